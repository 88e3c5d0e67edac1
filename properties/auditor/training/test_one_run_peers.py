"""One-run audits on interfering canaries, and the peer benchmark's optional imports (benchmarks/one_run_peers.py).

Validity under interference. The simulated runs are the benchmark's own (so the table of
docs/auditor/benchmarks.md and this test read the same runs): scores independent of the bits but
sharing a run-level effect and cluster effects with heavy-tailed noise (true epsilon 0), and
randomized response whose truth rate is drawn once per run (true epsilon at most 1). Each run is
an independent simulation, and a valid bound exceeds the true epsilon in a run with probability
at most alpha = 0.05, so the count of false alarms in ``n`` runs is stochastically at most
Binomial(n, 0.05); the test allows ``binom.isf(1e-6, n, 0.05)`` of them (44 of 400, 27 of 200),
which a correct analysis exceeds with probability below the suite's 1e-6 per test.

Peers. The benchmark imports jax_privacy, opake-auditing and PrivacyGuard only inside their
loaders; a peer that does not import is reported "not installed" and leaves no rows, and any
other error in a loader is raised, never reported as absent.
"""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from scipy import stats

from dpverify.audits.one_run import one_run_audit

#: Simulated runs per case, and the false alarms Binomial(runs, 0.05) exceeds with probability < 1e-6.
RUNS = {"null, shared effects": 400, "eps 1, shared truth rate": 200}
MAX_FALSE_ALARMS = {case: int(stats.binom.isf(1e-6, runs, 0.05)) for case, runs in RUNS.items()}  # 44, 27
#: Every module a peer's loader imports.
PEER_MODULES = (
    "jax_privacy",
    "jax_privacy.auditing",
    "opake",
    "opake.auditing",
    "opake.auditing.types",
    "privacy_guard",
    "privacy_guard.analysis",
    "privacy_guard.analysis.mia",
    "privacy_guard.analysis.mia.fdp_analysis_node",
)


@pytest.fixture(scope="module")
def bench(load_benchmark):
    """benchmarks/one_run_peers.py."""
    return load_benchmark("one_run_peers")


@pytest.mark.privacy_audit
@pytest.mark.parametrize("case", list(RUNS))
def test_interfering_canaries_keep_the_false_alarm_rate(bench, case):
    """400 (null, shared effects) or 200 (eps 1, shared truth rate) runs of 1,000 canaries at
    alpha = 0.05, delta = 1e-5: the bound exceeds the true epsilon (0, or 1) in at most 44 or 27 runs.

    Detects: guesses scored as if every canary were included (every "in" guess counted correct:
    every run flagged, null runs certifying 4.26), a grid without the union bound (each point
    tested at alpha: 83 of the 400 null runs flagged)."""
    scores, bits = bench.simulated_runs(case, RUNS[case], 1000)
    true_epsilon = bench.TRUE_EPSILON[case]
    bounds = [one_run_audit(s, b, delta=1e-5, alpha=0.05).epsilon_lower_bound for s, b in zip(scores, bits)]
    over = int(np.sum(np.array(bounds) > true_epsilon))
    assert over <= MAX_FALSE_ALARMS[case], (case, over, max(bounds))


def test_the_simulated_runs_are_what_they_say(bench):
    """The null cases' scores do not depend on the bits; the truth-rate case tells bits above chance."""
    scores, bits = bench.simulated_runs("null, shared effects", 3, 50)
    again, other_bits = bench.simulated_runs("null, shared effects", 3, 50)
    assert np.array_equal(scores, again) and scores.shape == bits.shape == (3, 50)
    scores, bits = bench.simulated_runs("eps 1, shared truth rate", 20, 1000)
    agree = np.mean((scores > 0) == bits)
    assert 0.5 < agree < bench.expit(1.0) + 0.01


def test_missing_peers_are_reported_and_leave_only_dpverify(bench, monkeypatch, capsys):
    """Every peer module made unimportable: the script names each peer "not installed" with how to
    install it, and prints rows for dpverify's analyses alone."""
    for name in PEER_MODULES:
        monkeypatch.setitem(sys.modules, name, None)  # ``import name`` raises ImportError
    found, absent = bench.analyses()
    assert found and all(name.startswith("dpverify ") for name in found)
    assert set(absent) == set(bench.PEERS)
    assert all(why.startswith("not installed (") for why in absent.values()), absent
    bench.main(["--runs", "2", "--canaries", "100", "--tightness-max", "1000"])
    out = capsys.readouterr().out
    assert out.count("not installed") == len(bench.PEERS)
    rows = [line for line in out.splitlines() if line.startswith("| ") and "---" not in line]
    analyses_named = {line.split(" | ")[2] for line in rows if not line.startswith(("| case", "| true eps"))}
    assert analyses_named == set(found)


def test_a_peer_without_an_adapter_says_so(bench, monkeypatch):
    """PrivacyGuard importable (a stand-in module): reported as not wired, not as absent, with no rows."""
    for name in PEER_MODULES[5:]:
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    found, absent = bench.analyses()
    assert "no adapter" in absent["PrivacyGuard"]
    assert not any("PrivacyGuard" in name for name in found)


def test_a_broken_peer_is_an_error_not_an_absence(bench, monkeypatch):
    """A loader failing for another reason than a missing import is raised, not hidden as "not installed"."""

    def broken():
        raise RuntimeError("the peer's API changed")

    monkeypatch.setitem(bench.PEERS, "jax_privacy", ("pip install jax-privacy", broken))
    with pytest.raises(RuntimeError, match="API changed"):
        bench.analyses()
