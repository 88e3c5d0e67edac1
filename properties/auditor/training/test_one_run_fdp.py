"""One-run f-DP audits (dpverify.audits.one_run_fdp): the recursion, its monotonicity, validity and tightness
on exact Gaussian canaries, claims with a trade-off curve, the result type.

Simulated runs: each canary's score is ``N(mu * bit, 1)`` with its inclusion bit a fair coin, an
exact mu-GDP mechanism for each canary's bit (mu = 0: null scores). Validity is checked over
repeated runs at the driver's alpha = 0.05: the count of runs whose bound exceeds the true mu
must stay within Binomial(runs, 0.05)'s upper ``SUITE_ALPHA`` quantile (false alarm of the check
itself <= 1e-6).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.audits.one_run import canary_inclusions, correct_guesses, one_run_guess_grid, one_run_p_value
from dpverify.audits.one_run_fdp import OneRunFdpAuditResult, one_run_fdp_audit, one_run_fdp_rejects
from dpverify.claims.approximate import dp_inverse_blow_up
from dpverify.claims.gaussian import gaussian_inverse_blow_up
from dpverify.claims.tradeoff import tradeoff_inverse_blow_up
from dpverify.errors import InvalidClaimError, InvalidParameterError, NotReplayableError

SUITE_ALPHA = 1e-6
#: Runs per case, and the most false alarms Binomial(runs, 0.05) exceeds with probability < 1e-6.
RUNS = {0.0: 100, 1.0: 40}
MAX_FALSE_ALARMS = {mu: int(stats.binom.isf(SUITE_ALPHA, runs, 0.05)) for mu, runs in RUNS.items()}  # 18, 10


def _gaussian_canaries(mu, m, seed):
    """Scores N(mu * bit, 1), bits fair coins: an exact mu-GDP release of each canary's bit."""
    rng = np.random.default_rng(seed)
    bits = rng.random(m) < 0.5
    return rng.normal(size=m) + mu * bits, bits


def _paper_rejects(m, k, c, tau, mu):
    """Mahloujifar, Melis and Chaudhuri (2025)'s audit_rh_with_cap at level tau, loop for loop, for mu-GDP."""
    h = [0.0] * (c + 1)
    r = [0.0] * (c + 1)
    r[c], h[c] = tau * c / m, tau * (k - c) / m
    for i in range(c - 1, -1, -1):
        h[i] = max(h[i + 1], stats.norm.cdf(stats.norm.ppf(min(r[i + 1], 1.0)) - mu))
        r[i] = r[i + 1] + (i / (k - i)) * (h[i] - h[i + 1])
    return r[0] + h[0] > k / m


def test_the_recursion_is_the_papers():
    """60 random (m, k, c, tau, mu): the vectorised test agrees with a loop-for-loop transcription, and
    both verdicts occur. Detects: the weight i / (k - i) mistyped, r and h started swapped, a
    non-strict comparison, an early stop that decides too soon."""
    rng = np.random.default_rng(0)
    verdicts = []
    for _ in range(60):
        m = int(rng.integers(20, 400))
        k = int(rng.integers(1, m + 1))
        c = int(rng.integers(k // 2, k + 1))
        tau, mu = float(10 ** rng.uniform(-6, 0)), float(rng.uniform(0, 3))
        ours = bool(one_run_fdp_rejects(m, k, c, tau, lambda y, mu=mu: gaussian_inverse_blow_up(y, mu)))
        assert ours == _paper_rejects(m, k, c, tau, mu), (m, k, c, tau, mu)
        verdicts.append(ours)
    assert 5 <= sum(verdicts) <= 55


def test_rejection_is_monotone_in_mu_and_in_the_level():
    """What the bound's validity rests on (module docstring): rejecting mu rejects every smaller mu,
    and a level that rejects is exceeded only by levels that reject. Checked on 40 random cases over a
    grid of 200 mu and 200 levels each."""
    rng = np.random.default_rng(1)
    mus = np.linspace(0, 4, 200)
    levels = np.geomspace(1e-12, 1, 200)
    for _ in range(40):
        m = int(rng.integers(50, 3000))
        k = int(rng.integers(1, m + 1))
        c = int(rng.integers(k // 2, k + 1))
        tau = float(10 ** rng.uniform(-6, -1))
        by_mu = one_run_fdp_rejects(m, np.full(200, k), c, tau, lambda y: gaussian_inverse_blow_up(y, mus))
        assert np.all(np.diff(by_mu.astype(int)) <= 0), (m, k, c, tau)
        by_level = one_run_fdp_rejects(m, k, c, levels, lambda y: gaussian_inverse_blow_up(y, 0.5))
        assert np.all(np.diff(by_level.astype(int)) >= 0), (m, k, c)


def test_inverse_blow_ups_of_the_claim_kinds():
    """mu-GDP's inverse blow-up solves 1 - f(a) = y; a trade-off claim's is read from below (a callable
    on its grid, points as their step function). Detects: the blow-up given for its inverse (+mu),
    a trade-off inverse read from above (not conservative)."""
    mu = 1.3
    f = lambda a: stats.norm.cdf(stats.norm.ppf(1 - a) - mu)  # noqa: E731
    y = np.linspace(0.001, 0.999, 50)
    exact = gaussian_inverse_blow_up(y, mu)
    np.testing.assert_allclose(1 - f(exact), y, rtol=1e-9)
    from_callable = tradeoff_inverse_blow_up(f)(y)
    assert np.all(from_callable <= exact) and np.all(from_callable >= exact * 0.99 - 3e-4)
    points = [(0.01, float(f(0.01))), (0.1, float(f(0.1))), (0.5, float(f(0.5))), (1.0, 0.0)]
    stepped = tradeoff_inverse_blow_up(points)(np.array([0.0, 1 - f(0.01) - 1e-9, 1 - f(0.01) + 1e-9, 1.0]))
    np.testing.assert_array_equal(stepped, [0.0, 0.0, 0.01, 0.5])


@pytest.mark.privacy_audit
@pytest.mark.parametrize("mu", sorted(RUNS))
def test_false_alarms_stay_below_alpha_over_runs(mu):
    """100 null runs (mu = 0) and 40 runs of Gaussian canaries at mu = 1, m = 1000, alpha = 0.05: the
    bound exceeds the true mu in at most 18 and 10 runs (Binomial exceeds them with probability < 1e-6;
    seen: 0 of 100 and 0 of 40, the Gaussian bounds 0.35-0.57). The analysis is conservative on these
    runs: even each grid point at alpha (no union bound) stays within the limit, which
    :func:`test_the_grid_is_paid_for` checks instead.

    Detects: the blow-up used for its inverse (+mu: every Gaussian run flagged)."""
    over = 0
    for run in range(RUNS[mu]):
        scores, bits = _gaussian_canaries(mu, 1000, 500 + run)
        over += one_run_fdp_audit(scores, bits, alpha=0.05).lower_bound > mu
    assert over <= MAX_FALSE_ALARMS[mu], (mu, over)


@pytest.mark.privacy_audit
def test_false_alarms_over_200_runs_per_case_with_interference_thorough(thorough):
    """200 runs per case (thorough profile only), m = 1000, alpha = 0.05, at most 27 runs above the
    true mu (Binomial(200, 0.05) exceeds 27 with probability < 1e-6): null scores, Gaussian canaries
    at mu 0.5, 1 and 2, and at mu 1 with interference (score i minus half of score i + 1, cyclically:
    each score depends on two canaries' bits, as scores of one model do; an invertible post-processing
    of the Gaussian scores, so the true mu is still 1). Seen: no run above mu in any case (largest
    bounds 0.38, 0.72, 1.15 and 0.58)."""
    if not thorough:
        pytest.skip("thorough profile: 1,000 one-run audits")
    limit = int(stats.binom.isf(SUITE_ALPHA, 200, 0.05))
    for mu, mixed in ((0.0, False), (0.5, False), (1.0, False), (2.0, False), (1.0, True)):
        over = 0
        for run in range(200):
            scores, bits = _gaussian_canaries(mu, 1000, 10_000 + run)
            scores = scores - 0.5 * np.roll(scores, -1) if mixed else scores
            over += one_run_fdp_audit(scores, bits, alpha=0.05).lower_bound > mu
        assert over <= limit, (mu, mixed, over)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("mu, least", [(1.0, 0.33), (2.0, 0.65)])
def test_gaussian_canaries_certify_a_stated_fraction_of_mu(mu, least, suite_alpha):
    """10,000 Gaussian canaries at alpha = suite_alpha: the bound is at most the true mu (false alarm
    <= 1e-6) and at least ``least`` (seeds 0-9 gave 0.33-0.40 at mu = 1 and 0.69-0.83 at mu = 2;
    the ceiling of 10,000 canaries at this alpha is 1.35).

    Detects: guesses from the wrong end of the scores, a search that keeps too little of its bound."""
    scores, bits = _gaussian_canaries(mu, 10_000, int(mu))
    result = one_run_fdp_audit(scores, bits, alpha=suite_alpha)
    assert least <= result.lower_bound <= mu, result.summary()
    assert result.lower_bound <= result.ceiling


def test_the_grid_is_paid_for():
    """The bound on a grid of n points is the best of the one-point bounds at alpha / n (the union
    bound), and the claim's p-value n times the smallest one-point p-value. Detects: each grid point
    tested at alpha."""
    scores, bits = _gaussian_canaries(1.0, 2000, 11)
    grid = [(20, 20), (100, 0), (200, 200), (1000, 0)]
    claim = dpverify.PrivacyClaim.gdp(0.3)
    whole = one_run_fdp_audit(scores, bits, grid=grid, alpha=0.05, claim=claim)
    alone = [one_run_fdp_audit(scores, bits, grid=[pt], alpha=0.05 / len(grid), claim=claim) for pt in grid]
    assert whole.lower_bound == max(a.lower_bound for a in alone) > 0
    assert whole.pvalue == pytest.approx(min(1.0, len(grid) * min(a.pvalue for a in alone)), rel=1e-12)


def test_perfect_guesses_reach_the_ceiling_and_it_grows_with_the_canaries():
    """Scores equal to the bits on a grid where every guess is correct: the bound is the ceiling
    (to the search's precision), and the ceiling grows with m."""
    ceilings = []
    for m in (100, 1000, 10_000):
        bits = canary_inclusions(m, seed=m)
        k = int(min(bits.sum(), (~bits).sum()))
        grid = [(k // 10, k // 10), (k, 0), (k, k)]
        result = one_run_fdp_audit(np.where(bits, 1.0, -1.0), seed=m, grid=grid)
        assert result.n_correct == result.n_guesses
        assert result.lower_bound == pytest.approx(result.ceiling, abs=1e-4) and result.lower_bound > 0
        ceilings.append(result.ceiling)
    assert ceilings == sorted(ceilings)


def test_claims_with_a_trade_off_curve_are_tested_consistently():
    """Gaussian canaries at mu = 2 (m = 10,000): a GDP claim below the bound is refuted, one above it
    kept; the same curve as a trade-off claim (callable, points) is refuted at a p-value no smaller
    (read from below); violation is pvalue <= alpha."""
    scores, bits = _gaussian_canaries(2.0, 10_000, 3)
    f = lambda a: stats.norm.cdf(stats.norm.ppf(1 - a) - 0.5)  # noqa: E731
    low = one_run_fdp_audit(scores, bits, claim=dpverify.PrivacyClaim.gdp(0.5))
    high = one_run_fdp_audit(scores, bits, claim=dpverify.PrivacyClaim.gdp(3.0))
    curve = one_run_fdp_audit(scores, bits, claim=dpverify.PrivacyClaim.tradeoff(f))
    points = one_run_fdp_audit(
        scores, bits, claim=dpverify.PrivacyClaim.tradeoff([(a, float(f(a))) for a in np.geomspace(1e-6, 1, 60)])
    )
    assert low.lower_bound > 0.5 and low.violation and low.pvalue <= low.alpha
    assert high.lower_bound < 3.0 and not high.violation and high.pvalue > high.alpha
    assert curve.violation and points.violation
    assert low.pvalue <= curve.pvalue <= points.pvalue
    at_bound = one_run_fdp_audit(scores, bits, claim=dpverify.PrivacyClaim.gdp(low.lower_bound))
    assert at_bound.violation and at_bound.pvalue <= at_bound.alpha


def _randomized_response(epsilon, m, seed):
    """Scores +-1 telling each bit truly with probability e^eps / (1 + e^eps): the worst case of eps-DP."""
    rng = np.random.default_rng(seed)
    bits = rng.random(m) < 0.5
    truthful = rng.random(m) < np.exp(epsilon) / (1 + np.exp(epsilon))
    return np.where(bits == truthful, 1.0, -1.0), bits


@pytest.mark.privacy_audit
def test_epsilon_delta_claims_through_their_curve_keep_alpha_on_randomized_response():
    """(epsilon, delta) claims read as the curve max(0, 1 - delta - e^eps a, e^-eps (1 - delta - a)):
    its inverse blow-up solves 1 - f(a) = y; 200 runs of randomized response at epsilon 2 (the worst
    case of 2-DP), m = 1000, claim (2, 0), each grid point at 0.05 / |grid|: at most 27 runs rejected
    (Binomial(200, 0.05) exceeds 27 with probability < 1e-6; seen: 0). And on one run at epsilon 4 a
    claim (2, 1e-5) gets a smaller p-value than Steinke et al.'s (seen: 2.1e-4 against 2.9e-3).

    Detects: e^eps and e^-eps swapped in the inverse (all 200 runs rejected)."""
    a = np.linspace(0, 1, 41)
    f = np.maximum(0, np.maximum(1 - 1e-3 - np.exp(0.7) * a, np.exp(-0.7) * (1 - 1e-3 - a)))
    power = 1 - f
    inside = (power > 1e-3) & (power < 1)
    np.testing.assert_allclose(dp_inverse_blow_up(power[inside], 0.7, 1e-3), a[inside], atol=1e-12)
    m = 1000
    grid = one_run_guess_grid(m)
    sizes = [sum(pt) for pt in grid]
    rejected = 0
    for run in range(200):
        scores, bits = _randomized_response(2.0, m, 100 + run)
        correct = correct_guesses(scores, bits, grid)
        inverse = lambda y: dp_inverse_blow_up(y, 2.0, 0.0)  # noqa: E731
        rejected += bool(np.any(one_run_fdp_rejects(m, sizes, correct, 0.05 / len(grid), inverse)))
    assert rejected <= int(stats.binom.isf(SUITE_ALPHA, 200, 0.05)), rejected
    scores, bits = _randomized_response(4.0, m, 1)
    result = one_run_fdp_audit(scores, bits, claim=dpverify.PrivacyClaim(2.0, 1e-5))
    correct = correct_guesses(scores, bits, grid)
    steinke = min(1.0, len(grid) * min(one_run_p_value(m, k, c, 2.0, 1e-5) for k, c in zip(sizes, correct)))
    assert result.violation and result.pvalue < steinke


def test_the_result_round_trips_and_compares_equal():
    scores, bits = _gaussian_canaries(1.0, 500, 7)
    result = one_run_fdp_audit(scores, bits, claim=dpverify.PrivacyClaim.gdp(0.2, source="test"))
    again = OneRunFdpAuditResult.from_json(result.to_json())
    assert again == result and again.to_json() == result.to_json()
    assert again.to_dict()["violation"] is result.violation and result.kind == "gdp"
    assert "ceiling" in result.summary() and "mu" in result.summary()
    with pytest.raises(NotReplayableError, match="scores"):
        result.replay()
    drawn = one_run_fdp_audit(np.where(canary_inclusions(50, 3), 1.0, 0.0), seed=3)
    assert drawn.seed == 3 and OneRunFdpAuditResult.from_json(drawn.to_json()) == drawn


def test_bad_arguments_are_refused_by_name():
    bits = np.arange(10) % 2 == 0
    with pytest.raises(InvalidParameterError, match="one of them"):
        one_run_fdp_audit(np.zeros(10))
    with pytest.raises(InvalidParameterError, match=r"\(k\+, k-\)"):
        one_run_fdp_audit(np.zeros(10), bits, grid=[(6, 6)])
    with pytest.raises(InvalidClaimError, match="trade-off curve"):
        one_run_fdp_audit(np.zeros(10), bits, claim=dpverify.PrivacyClaim.zcdp(0.5))
    with pytest.raises(InvalidClaimError, match="mu"):
        one_run_fdp_audit(np.zeros(10), bits, claim=dpverify.PrivacyClaim.gdp(0.0))
