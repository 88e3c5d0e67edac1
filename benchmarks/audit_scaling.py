"""Scale-out and memory of the streaming audit: workers, Dask, client peak memory.

Select-then-stream keeps the client's memory at the selection sample (at most
2e6 outputs per input by default) whatever the certification size, and the
workers return counts only, so throughput grows with the number of worker
processes.

As asv benchmarks: ``AuditWorkers.time_audit`` over 1 and 2 local Dask worker
processes at 2e7 samples per input, ``StreamingMemory.peakmem_audit`` at 1e7
and 1e8 samples per input (the peak must not grow with the size).

As a script (the figures of the README)::

    python benchmarks/audit_scaling.py --samples 1e8 --workers 1 2        # Dask LocalCluster
    python benchmarks/audit_scaling.py --samples 1e8 --workers 1 2 --pool  # process pool
    /usr/bin/time -v python benchmarks/audit_scaling.py --samples 1e9 --workers 2 --memory

Throughput counts the samples of both inputs: ``2 n / seconds``.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import resource
import sys
import time
from pathlib import Path

import dpverify
from dpverify.mechanisms.textbook import LaplaceMechanism

if not __package__:  # run as a script: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import OverWorkers, WholeRun  # noqa: E402

SEED = 20241122
#: Event families of the scaling runs: every default family (as a user would run it).
FAMILIES = None


def laplace_audit(n_samples: int, executor=None, n_chunks=None):
    """One audit of the (float-safe) Laplace mechanism at its claim, eps = 1, inputs 0 and 1."""
    return dpverify.audit(
        LaplaceMechanism(1.0),
        0.0,
        1.0,
        epsilon=1.0,
        n_samples=n_samples,
        seed=SEED,
        executor=executor,
        n_chunks=n_chunks,
        event_families=FAMILIES,
    )


@contextlib.contextmanager
def dask_executor(n_workers: int):
    """A Client on a LocalCluster of ``n_workers`` single-threaded processes."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        yield client


@contextlib.contextmanager
def pool_executor(n_workers: int):
    with concurrent.futures.ProcessPoolExecutor(max_workers=n_workers) as pool:
        yield pool


class AuditWorkers(OverWorkers):
    """End-to-end audit at 2e7 samples per input on 1 and 2 Dask worker processes."""

    repeat = 2

    def setup(self, workers):
        self._context = dask_executor(workers)
        self.client = self._context.__enter__()
        laplace_audit(1_000_000, self.client)  # workers import dpverify and compile once

    def teardown(self, workers):
        self._context.__exit__(None, None, None)

    def time_audit(self, workers):
        laplace_audit(20_000_000, self.client, n_chunks=32)


class StreamingMemory(WholeRun):
    """Peak memory of an in-process audit: flat in the number of samples."""

    params = [[10_000_000, 100_000_000]]
    param_names = ["n_samples"]
    timeout = 900

    def peakmem_audit(self, n_samples):
        laplace_audit(n_samples)


def _peak_mb() -> float:
    """This process's peak resident memory in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=float, default=1e8, help="samples per input (default 1e8)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts to time")
    parser.add_argument("--pool", action="store_true", help="a process pool instead of a Dask LocalCluster")
    parser.add_argument("--chunks", type=int, default=None, help="chunks per input (default: automatic)")
    parser.add_argument("--memory", action="store_true", help="also print the client's peak memory")
    args = parser.parse_args(argv)
    n = int(args.samples)
    make = pool_executor if args.pool else dask_executor
    base = None
    for k in args.workers:
        with make(k) as executor:
            laplace_audit(1_000_000, executor)  # warm the workers
            start = time.perf_counter()
            result = laplace_audit(n, executor, args.chunks)
            seconds = time.perf_counter() - start
        rate = 2 * n / seconds
        if k == 1:
            base = rate
        versus = f", {rate / base:.2f}x one worker ({rate / (base * k):.2f} of linear)" if base else ""
        print(
            f"{k} worker(s) ({'pool' if args.pool else 'dask'}): {seconds:.1f} s, {rate:.3g} samples/s"
            f"{versus}; eps >= {result.epsilon_lower_bound:.4f}, violation={result.violation}",
            flush=True,
        )
    if args.memory:
        print(f"client peak resident memory: {_peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
