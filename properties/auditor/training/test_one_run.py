"""One-run audits (dpverify.audits.one_run): the p-value, the guesses, validity, tightness, the result type.

Validity is checked over repeated simulated runs (fixed seeds) at the driver's alpha = 0.05: the
count of runs whose bound exceeds the true epsilon must stay below Binomial(runs, 0.05)'s upper
suite_alpha quantile (false alarm of the check itself <= 1e-6). Simulated runs: each canary's
score is randomized response on its inclusion bit at the true epsilon (ideal canaries: the
number of correct guesses is then exactly Binomial(r, e^eps/(1 + e^eps)), the theorem's worst
case), or independent of the bits (null scores, true epsilon 0), or randomized response that
reveals each bit outright with probability delta (an (eps, delta) mechanism that is not (eps, 0)).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.audits.one_run import (
    OneRunAuditResult,
    canary_inclusions,
    one_run_audit,
    one_run_guess_grid,
    one_run_p_value,
)
from dpverify.errors import InvalidClaimError, InvalidParameterError, NotReplayableError

#: Simulated runs per case, and the most false alarms Binomial(runs, 0.05) exceeds with probability < 1e-6.
RUNS = {"null": 200, "ideal eps 2": 100, "delta leak": 100}
MAX_FALSE_ALARMS = {case: int(stats.binom.isf(1e-6, runs, 0.05)) for case, runs in RUNS.items()}  # 27, 18, 18


def _randomized_response(epsilon, m, seed, reveal=0.0):
    """Scores of ideal canaries: +-1 telling the bit truly with probability e^eps / (1 + e^eps);
    with probability ``reveal`` a canary's score is +-10 and always true."""
    rng = np.random.default_rng(seed)
    bits = rng.random(m) < 0.5
    truthful = rng.random(m) < math.exp(epsilon) / (1 + math.exp(epsilon))
    scores = np.where(bits == truthful, 1.0, -1.0)
    revealed = rng.random(m) < reveal
    scores[revealed] = np.where(bits[revealed], 10.0, -10.0)
    return scores, bits


def _paper_p_value(m, r, v, eps, delta):
    """Steinke, Nasr and Jagielski (2023)'s appendix code, transcribed loop for loop."""
    q = 1 / (1 + math.exp(-eps))
    beta = stats.binom.sf(v - 1, r, q)
    alpha = 0
    total = 0
    for i in range(1, v + 1):
        total = total + stats.binom.pmf(v - i, r, q)
        if total > i * alpha:
            alpha = total / i
    return min(beta + alpha * delta * 2 * m, 1)


@pytest.mark.parametrize(
    "m, r, v, eps, delta",
    [(1000, 100, 80, 1.0, 1e-5), (1000, 100, 80, 1.0, 0.0), (50, 50, 50, 3.0, 1e-3), (10_000, 500, 260, 0.2, 1e-6)],
)
def test_the_p_value_is_the_papers(m, r, v, eps, delta):
    """Detects: the delta term dropped or scaled by r instead of m, q = e^eps / (1 + e^eps) mistyped."""
    assert one_run_p_value(m, r, v, eps, delta) == pytest.approx(_paper_p_value(m, r, v, eps, delta), rel=1e-9)


def test_guesses_are_the_highest_and_lowest_scores_with_ties_by_index():
    """Correct guesses at (k+, k-) against a direct count (ties broken by canary index)."""
    rng = np.random.default_rng(0)
    scores = rng.integers(0, 4, 30).astype(float)
    bits = rng.random(30) < 0.5
    order = sorted(range(30), key=lambda i: (-scores[i], i))
    grid = [(3, 0), (0, 4), (7, 7), (30, 0), (10, 20)]
    result = one_run_audit(scores, bits, grid=grid)
    counts = [sum(bits[i] for i in order[:p]) + sum(not bits[i] for i in order[30 - n :]) for p, n in grid]
    best = grid.index((result.k_plus, result.k_minus))
    assert result.n_correct == counts[best]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("case", ["null", "ideal eps 2", "delta leak"])
def test_false_alarms_stay_below_alpha_over_runs(case):
    """200 (null) or 100 runs, m = 1000 canaries, alpha = 0.05: the bound exceeds the true epsilon
    in at most 27 or 18 runs (Binomial(runs, 0.05) exceeds them with probability < 1e-6).

    - null: scores independent of the bits (true epsilon 0 at delta 0);
    - ideal eps 2: randomized response at epsilon 2, delta 0 (the theorem's worst case);
    - delta leak: randomized response at epsilon 1 revealing each bit with probability 0.05,
      audited at delta 0.05 (true epsilon at that delta: 1).

    Detects: no union bound over the grid (each point at alpha instead of alpha / |grid|: 23 of
    the first 100 null runs flagged, about 46 of 200 expected), the delta term dropped (as in a
    published copy of the paper's code: all 100 delta-leak runs flagged)."""
    true_epsilon, delta, over = {"null": (0.0, 0.0, 0), "ideal eps 2": (2.0, 0.0, 0), "delta leak": (1.0, 0.05, 0)}[
        case
    ]
    for run in range(RUNS[case]):
        if case == "null":
            rng = np.random.default_rng(run)
            scores, bits = rng.normal(size=1000), rng.random(1000) < 0.5
        else:
            scores, bits = _randomized_response(true_epsilon, 1000, 1000 + run, reveal=delta)
        over += one_run_audit(scores, bits, delta=delta, alpha=0.05).epsilon_lower_bound > true_epsilon
    assert over <= MAX_FALSE_ALARMS[case], (case, over)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("epsilon, least", [(2.0, 1.7), (4.0, 3.3), (8.0, 4.8)])
def test_ideal_canaries_certify_close_to_their_epsilon_or_the_ceiling(epsilon, least, suite_alpha):
    """10,000 ideal canaries at alpha = suite_alpha: the bound is at most the true epsilon (false
    alarm <= 1e-6) and at least ``least`` (seeds 100-109 gave 1.78-1.86, 3.43-3.64, 5.09-5.92;
    at epsilon 8 the ceiling, 6.39, is what 10,000 canaries allow).

    Detects: guesses taken from the wrong end of the scores, a bound that wastes its grid."""
    scores, bits = _randomized_response(epsilon, 10_000, int(epsilon))
    result = one_run_audit(scores, bits, alpha=suite_alpha)
    assert least <= result.epsilon_lower_bound <= epsilon, result.summary()
    assert result.epsilon_lower_bound <= result.ceiling


def test_perfect_guesses_are_all_correct_and_the_bound_grows_with_the_canaries():
    """Scores equal to the bits: every guess the best grid point makes is correct, the bound is at
    most the ceiling (all guesses correct at every grid point, feasible or not) and grows with m."""
    bounds = []
    for m in (100, 1000, 10_000):
        bits = canary_inclusions(m, seed=m)
        result = one_run_audit(np.where(bits, 1.0, -1.0), seed=m)
        assert result.n_correct == result.n_guesses and 0 < result.epsilon_lower_bound <= result.ceiling
        bounds.append(result.epsilon_lower_bound)
    assert bounds == sorted(bounds)


def test_a_claim_is_refuted_when_the_grid_rejects_its_epsilon():
    """Ideal canaries at epsilon 4 refute a claim of epsilon 1; they keep a claim of 6."""
    scores, bits = _randomized_response(4.0, 10_000, 4)
    low = one_run_audit(scores, bits, claim=dpverify.PrivacyClaim(1.0, 1e-6))
    high = one_run_audit(scores, bits, claim=dpverify.PrivacyClaim(6.0, 1e-6))
    assert low.violation and low.pvalue <= low.alpha and low.delta == 1e-6
    assert not high.violation and high.pvalue > high.alpha


def test_the_result_round_trips_and_compares_equal():
    scores, bits = _randomized_response(2.0, 500, 7)
    result = one_run_audit(scores, bits, claim=dpverify.PrivacyClaim(1.0, 1e-5, source="test"))
    again = OneRunAuditResult.from_json(result.to_json())
    assert again == result and again.to_json() == result.to_json()
    assert again.to_dict()["violation"] is result.violation
    assert "ceiling" in result.summary()
    with pytest.raises(NotReplayableError, match="scores"):
        result.replay()
    drawn = one_run_audit(np.where(canary_inclusions(50, 3), 1.0, 0.0), seed=3)
    assert drawn.seed == 3 and OneRunAuditResult.from_json(drawn.to_json()) == drawn


def test_inclusion_bits_are_fair_coins(suite_alpha):
    """canary_inclusions: Binomial(m, 1/2) ones (two-sided test at suite_alpha), reproducible by seed."""
    bits = canary_inclusions(100_000, seed=9)
    assert stats.binomtest(int(bits.sum()), bits.size, 0.5).pvalue >= suite_alpha
    assert np.array_equal(bits, canary_inclusions(100_000, seed=9))


def test_bad_arguments_are_refused_by_name():
    bits = np.arange(10) % 2 == 0
    with pytest.raises(InvalidParameterError, match="one of them"):
        one_run_audit(np.zeros(10), bits, seed=1)
    with pytest.raises(InvalidParameterError, match="one of them"):
        one_run_audit(np.zeros(10))
    with pytest.raises(InvalidParameterError, match="10 booleans"):
        one_run_audit(np.zeros(10), bits[:5])
    with pytest.raises(InvalidParameterError, match="finite"):
        one_run_audit(np.array([0.0, math.nan]), bits[:2])
    with pytest.raises(InvalidParameterError, match=r"\(k\+, k-\)"):
        one_run_audit(np.zeros(10), bits, grid=[(6, 6)])
    with pytest.raises(InvalidClaimError, match="states no epsilon"):
        one_run_audit(np.zeros(10), bits, claim=dpverify.PrivacyClaim.zcdp(0.5))
    with pytest.raises(InvalidClaimError, match="differs from the claim"):
        one_run_audit(np.zeros(10), bits, claim=dpverify.PrivacyClaim(1.0, 1e-5), delta=1e-6)
    assert all(p + n <= 10 for p, n in one_run_guess_grid(10))
