"""asv benchmarks: the first ``dpverify suite`` on an empty numba cache (cold start), and a warm one.

numba keeps compiled kernels beside the modules (``__pycache__/*.nbi, *.nbc``)
or under ``NUMBA_CACHE_DIR``. ``setup`` points ``NUMBA_CACHE_DIR`` at a fresh,
empty folder, which is an empty cache for the timed run without deleting the
caches of the working copy; ``teardown`` removes it. The suite runs as the
command a user types (``python -m dpverify suite``) in a new process, so imports
count too. Target: at most 40 s on the project's 2-core machine.
"""

import os
import shutil
import subprocess
import sys
import tempfile

from ._common import OverWorkers


def _suite(cache_dir: str, workers: int) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    subprocess.run(
        [sys.executable, "-m", "dpverify", "suite", "--quiet", "--workers", str(workers)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class _SuiteOnOwnCache(OverWorkers):
    """A ``dpverify suite`` run with 1 or 2 workers on a numba cache folder of its own, removed afterwards."""

    timeout = 900
    warmup_time = 0

    def setup(self, workers):
        self.cache = tempfile.mkdtemp(prefix="dpverify-numba-cache-")  # empty: nothing compiled yet

    def teardown(self, workers):
        shutil.rmtree(self.cache, ignore_errors=True)


class ColdSuite(_SuiteOnOwnCache):
    repeat = 1

    def time_first_suite(self, workers):
        _suite(self.cache, workers)


class WarmSuite(_SuiteOnOwnCache):
    repeat = 2

    def setup(self, workers):
        super().setup(workers)
        _suite(self.cache, workers)  # fills the cache

    def time_suite(self, workers):
        _suite(self.cache, workers)
