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


def test_the_old_dpverify_zoo_warns_and_still_gives_its_names():
    """Detects: the removed ``dpverify.zoo`` failing to import, or importing without a warning."""
    code = (
        "import json, warnings\n"
        "with warnings.catch_warnings(record=True) as caught:\n"
        "    warnings.simplefilter('always')\n"
        "    from dpverify.zoo import ExponentialMechanism, GeometricMechanism, LaplaceMechanism\n"
        "    from dpverify.zoo import RandomizedResponse, textbook_verifications\n"
        "import dpverify.mechanisms as m\n"
        "same = RandomizedResponse is m.RandomizedResponse and LaplaceMechanism is m.LaplaceMechanism\n"
        "warned = [str(w.message) for w in caught if w.category is DeprecationWarning and 'zoo' in str(w.message)]\n"
        "print(json.dumps([same, len(warned), len(textbook_verifications()) > 0]))"
    )
    assert _fresh(code) == [True, 1, True]


def test_the_moved_modules_keep_their_old_import_paths():
    """``extras.arrays``/``extras.progress`` and ``cli.reproduce`` are the moved modules themselves."""
    code = (
        "import json\n"
        "import dpverify.cli.reproduce as a, dpverify.reproduction as b\n"
        "import dpverify.extras.arrays as c, dpverify.support.arrays as d\n"
        "import dpverify.extras.progress as e, dpverify.support.progress as f\n"
        "from dpverify.cli.reproduce import MissingExtraError, Reproduction, map_tasks\n"
        "print(json.dumps([a is b, c is d, e is f, Reproduction is b.Reproduction]))"
    )
    assert _fresh(code) == [True, True, True, True]


def test_the_drivers_load_at_first_use_and_stay_reachable_as_attributes():
    """``import dpverify`` leaves the drivers unloaded (so that the command line installs its Ctrl-C
    handler first), and ``dpverify.audit``, ``dpverify.audits.pair`` and ``from dpverify import *``
    reach them as before."""
    code = (
        "import json, sys, dpverify\n"
        "before = 'dpverify.audits' in sys.modules\n"
        "ok = dpverify.audits.pair.audit is dpverify.audit and dpverify.pipeline.bounds is not None\n"
        "namespace = {}\n"
        "exec('from dpverify import *', namespace)\n"
        "print(json.dumps([before, ok, all(n in namespace for n in dpverify.__all__)]))"
    )
    assert _fresh(code) == [False, True, True]
