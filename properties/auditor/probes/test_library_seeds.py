"""Grey-box probes replay and measure diffprivlib's own noise, and name the libraries they cannot seed.

diffprivlib's mechanisms draw from ``secrets.SystemRandom`` unless given ``random_state=``; the
probe makes every ``randomise`` call draw from a ``RandomState`` of its own seed and the call's
index, records it at its call site with the mechanism's declared sensitivity and scale
(:mod:`dpverify.probes.libraries`), and checks the shift against that sensitivity. The probes
draw no statistics: every test here is deterministic, with a false-alarm rate of 0 on the
correct pipelines and a power of 1 on the planted bugs, at every parameter value tried.

The bugs (the diffprivlib pipelines of :mod:`dpverify.mechanisms.glue`), written from the issues'
descriptions (not their code):

- a Laplace mechanism declared with sensitivity 1 for a query of sensitivity 2 (diffprivlib issues
  #104, #105, #110: a sensitivity that does not match the query);
- a mean handed to diffprivlib's Laplace with the bounds' sensitivity but never clipped to the
  bounds (smartnoise-sdk issue #621: the clipping step skipped).
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import dpverify
from dpverify.mechanisms.glue import DiffprivlibDoubledCount, DiffprivlibMean, replace_one_pairs, source_site
from dpverify.probes import libraries, probe_pair, probe_search
from dpverify.testing import check_result

mechanisms = pytest.importorskip("diffprivlib.mechanisms", reason="diffprivlib is in the test extra")
tools = pytest.importorskip("diffprivlib.tools", reason="diffprivlib is in the test extra")


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 3.0])
def test_a_diffprivlib_laplace_declared_with_too_small_a_sensitivity_is_found_at_its_call_site(epsilon):
    """Detects: diffprivlib #104/#105/#110-style, a Laplace mechanism declared with sensitivity 1 for a query
    (a doubled count) of sensitivity 2, and a probe that does not read the mechanism's own sensitivity.

    On 3 vs 2 records the call's shift is exactly 2, twice the declared 1 (implied epsilon 2 epsilon),
    and the finding names the ``randomise`` call. Declaring 2 is never flagged, at any seed tried.
    """
    report = probe_pair(DiffprivlibDoubledCount(epsilon, declared=1.0), [1, 2, 3], [1, 2], seed=0)
    (finding,) = report.findings
    assert finding.kind == "sensitivity" and finding.site == source_site(
        DiffprivlibDoubledCount.__call__, ".randomise("
    )
    (call,) = report.calls
    assert call.method == "diffprivlib.Laplace.randomise" and call.declared_sensitivity == 1.0
    check_result(report)
    assert call.shift_l1 == pytest.approx(2.0, rel=1e-12) and call.implied_epsilon == pytest.approx(
        2 * epsilon, rel=1e-12
    )
    for seed in range(5):
        assert not probe_pair(DiffprivlibDoubledCount(epsilon, declared=2.0), [1, 2, 3], [1, 2], seed=seed).flagged


@pytest.mark.parametrize("upper, n", [(1.0, 4), (10.0, 5)])
def test_a_mean_handed_to_diffprivlib_without_clipping_is_found_and_its_tools_mean_never_flagged(upper, n):
    """Detects: smartnoise-sdk #621-style, a mean noised with the bounds' sensitivity upper / n but not
    clipped to the bounds, so one value far outside moves it past that sensitivity.

    The probe search names the ``randomise`` call, with the excess of the pair 100 upper vs upper / 2 over
    the declared upper / n; clipping first, and ``diffprivlib.tools.mean`` with the same bounds (which
    clips, then noises a ``LaplaceTruncated``), are flagged on none of the pairs at any seed tried.
    """
    pairs = replace_one_pairs(n, upper)
    report = probe_search(DiffprivlibMean(upper, clip=False), pairs, seed=0)
    (finding,) = report.findings
    assert finding.kind == "sensitivity" and finding.site == source_site(DiffprivlibMean.__call__, ".randomise(")
    assert finding.numbers["excess"] == pytest.approx(99.5, rel=1e-9)

    def library_mean(data, rng):
        return tools.mean(np.asarray(data, dtype=float), epsilon=1.0, bounds=(0.0, upper))

    for seed in range(3):
        assert not probe_search(DiffprivlibMean(upper, clip=True), pairs, seed=seed).flagged
        tool = probe_search(library_mean, pairs, seed=seed)
        assert not tool.flagged and tool.calls[0].method == "diffprivlib.LaplaceTruncated.randomise"
        assert (
            0 < tool.excess() <= 1 + 1e-9
        )  # measured after the clamp into [0, upper]: at most upper / n, up to rounding


def test_diffprivlib_randomness_is_replayed_whatever_random_state_and_restored_after():
    """Detects: a probe that leaves diffprivlib's noise to ``secrets`` (two runs of x differ: refused), or to
    a ``random_state`` shared between runs; and one that leaves its patches or the mechanism's generator
    behind. A mechanism made outside the pipeline, with a RandomState of its own, replays too."""
    shared = mechanisms.Laplace(epsilon=1.0, sensitivity=1.0, random_state=np.random.RandomState(3))
    own_generator = shared._rng
    randomise = mechanisms.Laplace.randomise
    report = probe_pair(lambda data, rng: shared.randomise(len(data)), [1, 2], [1], seed=4)
    assert not report.flagged and report.calls[0].shift_l1 == 1.0
    assert shared._rng is own_generator and mechanisms.Laplace.randomise is randomise
    unseeded = probe_pair(
        lambda data, rng: mechanisms.Gaussian(epsilon=0.5, delta=1e-5, sensitivity=1.0).randomise(float(sum(data))),
        [3.0],
        [1.0],
        seed=1,
    )
    (call,) = unseeded.calls
    assert call.shift_l2 == 2.0 and call.implied_rho == pytest.approx(4.0 / (2 * call.scale**2), rel=1e-12)


def test_a_run_that_imports_a_replayed_library_is_run_again_replayed(monkeypatch):
    """Detects: a probe that keeps the run in which the pipeline first imported diffprivlib (whose noise,
    drawn before the probe could replay it, differs from every later run's), refusing the pipeline.

    A stand-in for ``diffprivlib.mechanisms`` adds 0.5 to the run that imports it: kept, the two runs
    of x would differ by it; run again, the pair's shift is the count's, 1."""
    monkeypatch.setattr(libraries, "REPLAYED_MODULES", ("replayed_stand_in",))
    monkeypatch.delitem(sys.modules, "replayed_stand_in", raising=False)

    def pipeline(data, rng):
        unreplayed = 0.0 if "replayed_stand_in" in sys.modules else 0.5
        monkeypatch.setitem(sys.modules, "replayed_stand_in", types.ModuleType("replayed_stand_in"))
        return len(data) + rng.laplace() + unreplayed

    (call,) = probe_pair(pipeline, [1, 2], [1], seed=0).calls
    assert call.shift_l1 == pytest.approx(1.0, rel=1e-12)


def test_a_library_that_cannot_be_seeded_is_named_not_reported_as_nothing_found(monkeypatch):
    """Detects: a probe that reports "nothing found" on a pipeline whose noise comes from a library it
    cannot seed (as OpenDP and python-dp draw from the operating system), instead of naming it, or a
    report that loses the name when saved.

    A stand-in module registered as unseedable draws from ``os.urandom``: its pipeline is refused with
    the library's name; one that calls it without drawing is reported with the name in its verdict."""
    module = types.ModuleType("unseedable_stand_in")
    exec("import os\ndef noise():\n    return os.urandom(1)[0] / 8.0\ndef setup():\n    return 0.0\n", vars(module))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(libraries.UNSEEDABLE_LIBRARIES, module.__name__, "StandIn")
    noisy = [0.0]
    for _ in range(3):  # os.urandom may repeat a byte: 3 tries, each refused unless it does (1/256 each)
        try:
            probe_pair(lambda data, rng: len(data) + module.noise(), [1, 2], [1])
        except dpverify.errors.MechanismError as error:
            noisy[0] = str(error)
            break
    assert "it called StandIn, which takes no seed" in noisy[0]
    report = probe_pair(lambda data, rng: len(data) + module.setup() + rng.laplace(), [1, 2], [1])
    assert report.unseeded_libraries == ("StandIn",) and "StandIn not replayed" in report.summary()
    check_result(report)  # reloads equal from JSON, its unseeded libraries included
    assert sys.getprofile() is None


@pytest.mark.parametrize("library", ["opendp", "pydp"])
def test_opendp_and_python_dp_are_named(library):
    """Detects: OpenDP's or python-dp's noise (no seed) probed as if replayed: refused, naming the library
    (runs where the library is installed; CI installs neither)."""
    pytest.importorskip(library, reason=f"{library} is not installed")
    if library == "opendp":
        import opendp.prelude as dp

        dp.enable_features("contrib")
        measurement = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)

        def noisy(data, rng):
            return measurement(float(len(data)))

        name = "OpenDP"
    else:
        from pydp.algorithms.laplacian import Count

        def noisy(data, rng):
            return float(Count(epsilon=1.0, dtype="int").quick_result(list(data)))

        name = "python-dp (PyDP)"
    with pytest.raises(dpverify.errors.MechanismError, match=f"it called {name.replace('(', '.').replace(')', '.')}"):
        probe_pair(noisy, [1, 2, 3], [1, 2])
