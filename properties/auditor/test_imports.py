"""``import dpverify`` is light: the heavy libraries load only when a function needs them.

Catches an eager import of numba, scipy.stats, scipy.special or statsmodels (each 0.1 to 0.6 s)
coming back at module level, and ``import dpverify`` installing the command line's exception hook
(only :func:`dpverify.cli.main` may). Checked in a fresh interpreter, since this test process has
imported them all already. Deterministic: no false alarm.
"""

import json
import subprocess
import sys

LAZY = ("numba", "scipy.stats", "scipy.special", "statsmodels", "pandas")


def _fresh(code: str) -> dict:
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


def test_import_dpverify_leaves_the_heavy_libraries_unloaded():
    loaded = _fresh(f"import json, sys, dpverify; print(json.dumps([m for m in {LAZY!r} if m in sys.modules]))")
    assert loaded == []


def test_import_dpverify_keeps_pythons_exception_hook():
    # even in a process that looks like the command line (argv[0] is the console script)
    code = (
        "import json, sys; sys.argv[0] = 'dpverify'; import dpverify; "
        "print(json.dumps(sys.excepthook is sys.__excepthook__))"
    )
    same = _fresh(code)
    assert same is True


def test_the_heavy_libraries_load_when_an_audit_needs_them():
    code = (
        "import json, sys, dpverify\n"
        "from dpverify.mechanisms import GeometricMechanism\n"
        "dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=2000, seed=1)\n"
        "print(json.dumps([m for m in ('scipy.special', 'scipy.stats') if m in sys.modules]))"
    )
    assert _fresh(code) == ["scipy.special", "scipy.stats"]


def test_the_drivers_load_at_first_use_and_stay_reachable_as_attributes():
    """``import dpverify`` leaves the drivers unloaded (so that the command line installs its Ctrl-C
    handler first), and ``dpverify.audit``, ``dpverify.audits.pair`` and ``from dpverify import *``
    reach them as before."""
    code = (
        "import json, sys, dpverify\n"
        "before = 'dpverify.audits' in sys.modules\n"
        "ok = dpverify.audits.pair.audit is dpverify.audit and dpverify.support.bounds is not None\n"
        "namespace = {}\n"
        "exec('from dpverify import *', namespace)\n"
        "print(json.dumps([before, ok, all(n in namespace for n in dpverify.__all__)]))"
    )
    assert _fresh(code) == [False, True, True]
