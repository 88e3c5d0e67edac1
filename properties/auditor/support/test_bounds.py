"""Clopper-Pearson bounds and the claim p-value (dpverify.support.bounds), checked by exact enumeration.

Nothing here is sampled: for a binomial count K ~ Bin(n, p) with small n every outcome k is
enumerated, so the coverage of a bound, P_p[bound(K) is wrong], is computed exactly as a sum of
binomial probabilities. These are deterministic checks (no false alarms); each one fails on
the bugs named in its docstring.
"""

import math

import numpy as np
import pytest
from scipy import stats

from dpverify.support.bounds import (
    claim_pvalue,
    clopper_pearson_delta_bound,
    clopper_pearson_epsilon_bound,
    clopper_pearson_lower,
    clopper_pearson_upper,
)

SIZES = [1, 2, 3, 5, 8, 13, 30, 60]
ALPHAS = [0.2, 0.05, 1e-3, 1e-6]
TOL = 1e-9


def _grid_and_jumps(bounds):
    """Probabilities at which coverage is evaluated: a fine grid plus points just either side of
    every value the bound takes (the non-coverage is piecewise smooth with jumps there)."""
    b = np.unique(np.clip(bounds, 1e-12, 1 - 1e-12))
    near = np.concatenate([b * (1 - 1e-9), b * (1 + 1e-9), 1 - (1 - b) * (1 - 1e-9), 1 - (1 - b) * (1 + 1e-9)])
    grid = np.concatenate([np.linspace(1e-6, 1 - 1e-6, 401), near])
    return grid[(grid > 0) & (grid < 1)]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("alpha", ALPHAS)
def test_clopper_pearson_one_sided_coverage_is_exact(n, alpha):
    """sup_p P_p[lower(K) > p] = alpha/2 and sup_p P_p[upper(K) < p] = alpha/2, by enumeration.

    Validity (<= alpha/2 at every p) fails for an anti-conservative bound (alpha doubled, the
    beta parameters of the other tail); tightness (the sup is attained just below each
    lower(k), where P[K >= k] = alpha/2 by definition) fails for a conservative one (alpha
    halved, a two-sided bound at 1 - alpha/2 used as a one-sided one).
    """
    k = np.arange(n + 1)
    lower = clopper_pearson_lower(k, n, alpha)
    upper = clopper_pearson_upper(k, n, alpha)
    assert np.all(np.diff(lower) > 0) and np.all(np.diff(upper) > 0)
    assert lower[0] == 0.0 and upper[-1] == 1.0
    ps = _grid_and_jumps(np.concatenate([lower, upper]))
    pmf = stats.binom.pmf(k[None, :], n, ps[:, None])  # (grid, k)
    miss_low = (pmf * (lower[None, :] > ps[:, None])).sum(axis=1)
    miss_up = (pmf * (upper[None, :] < ps[:, None])).sum(axis=1)
    assert miss_low.max() <= alpha / 2 * (1 + TOL) + 1e-15
    assert miss_up.max() <= alpha / 2 * (1 + TOL) + 1e-15
    # tightness: just below lower(k) (k >= 1) the miss probability is P[K >= k] -> alpha/2
    for j in range(1, n + 1):
        p = lower[j] * (1 - 1e-9)
        assert stats.binom.sf(j - 1, n, p) == pytest.approx(alpha / 2, rel=1e-5)
        p = upper[j - 1] + (1 - upper[j - 1]) * 1e-9
        assert stats.binom.cdf(j - 1, n, p) == pytest.approx(alpha / 2, rel=1e-5)


def _miss_probabilities(bound_matrix, true_values, wp, wq):
    """P[bound(K_p, K_q) > true value] for each (P, Q) pair of a row: K_p ~ Bin(n_p, P) with pmf
    ``wp`` (n_p + 1,), K_q ~ Bin(n_q, Q) with pmfs ``wq`` (Q values, n_q + 1), ``true_values``
    aligned with the Q values."""
    tv = np.asarray(true_values)
    wrong = bound_matrix[:, :, None] > tv[None, None, :] * (1 + 1e-12) + 1e-12  # (kp, kq, Q)
    return np.einsum("a,abq,qb->q", wp, wrong.astype(float), wq)


@pytest.mark.parametrize("n_p, n_q", [(6, 9), (30, 20)])
@pytest.mark.parametrize("alpha", [0.3, 1e-3])
@pytest.mark.parametrize("delta", [0.0, 0.05])
def test_epsilon_and_delta_bounds_cover_exactly(n_p, n_q, alpha, delta):
    """The eps lower bound ln((p_lo - delta)/q_hi) and the delta lower bound p_lo - e^eps q_hi
    exceed the true values with probability <= alpha, at every (P, Q) of a grid (enumeration).

    The grid includes the least favourable points (Q = q_hi(k) from above, P = p_lo(k) from
    below, where the union bound is nearly attained). Fails for a wrong tail (alpha instead of
    alpha/2 per side) or a wrong sign of delta.
    """
    kp, kq = np.meshgrid(np.arange(n_p + 1), np.arange(n_q + 1), indexing="ij")
    eps_lb = clopper_pearson_epsilon_bound(kp, n_p, kq, n_q, alpha, delta=delta)
    eps_claim = 0.7
    delta_lb = clopper_pearson_delta_bound(kp, n_p, kq, n_q, alpha, eps_claim)
    p_lo = clopper_pearson_lower(np.arange(n_p + 1), n_p, alpha)
    q_hi = clopper_pearson_upper(np.arange(n_q + 1), n_q, alpha)
    ps = np.unique(np.concatenate([np.linspace(0.02, 0.98, 25), p_lo[1:] * (1 - 1e-9)]))
    qs = np.unique(np.concatenate([np.linspace(0.01, 0.97, 25), q_hi[:-1] + (1 - q_hi[:-1]) * 1e-9]))
    ps, qs = ps[(ps > 0) & (ps < 1)], qs[(qs > 0) & (qs < 1)]
    wq = stats.binom.pmf(np.arange(n_q + 1)[None, :], n_q, qs[:, None])
    worst_eps = worst_delta = 0.0
    for p in ps:
        wp = stats.binom.pmf(np.arange(n_p + 1), n_p, p)
        if p > delta:
            true_eps = np.maximum(np.log((p - delta) / qs), 0.0)
            worst_eps = max(worst_eps, _miss_probabilities(eps_lb, true_eps, wp, wq).max())
        true_delta = np.maximum(p - math.exp(eps_claim) * qs, 0.0)
        worst_delta = max(worst_delta, _miss_probabilities(delta_lb, true_delta, wp, wq).max())
    assert worst_eps <= alpha * (1 + TOL)
    assert worst_delta <= alpha * (1 + TOL)


def test_epsilon_bound_with_delta_covers_at_larger_n():
    """The same exact coverage with 300 samples per input at alpha = 0.3 and delta = 0.05, where
    the Clopper-Pearson half-width (~0.03) is below delta: adding delta instead of subtracting
    it would overshoot the true ln((P - delta)/Q) with probability ~0.9 at (0.6, 0.5)."""
    n, alpha, delta = 300, 0.3, 0.05
    kp, kq = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    eps_lb = clopper_pearson_epsilon_bound(kp, n, kq, n, alpha, delta=delta)
    qs = np.array([0.1, 0.3, 0.5])
    wq = stats.binom.pmf(np.arange(n + 1)[None, :], n, qs[:, None])
    for p in (0.3, 0.6, 0.9):
        wp = stats.binom.pmf(np.arange(n + 1), n, p)
        miss = _miss_probabilities(eps_lb, np.maximum(np.log((p - delta) / qs), 0.0), wp, wq)
        assert miss.max() <= alpha * (1 + TOL), (p, miss)


def _pvalue_matrix(n_p, n_q, eps, delta):
    return np.array([[claim_pvalue(a, n_p, b, n_q, eps, delta) for b in range(n_q + 1)] for a in range(n_p + 1)])


PVALUE_CASES = [(10, 10, 0.5, 0.0), (12, 7, 1.3, 0.0), (9, 11, 0.2, 0.1)]


@pytest.mark.parametrize("n_p, n_q, eps, delta", PVALUE_CASES)
def test_claim_pvalue_is_super_uniform_for_a_fixed_event(n_p, n_q, eps, delta, thorough):
    """P[claim_pvalue <= a] <= a for every level a, for a fixed event whose probabilities satisfy
    the claim (on its boundary P = e^eps Q + delta, the least favourable case, and inside it),
    by exact enumeration over both binomial counts.

    Also checks that the p-value is the smallest alpha at which the Clopper-Pearson delta bound
    certifies a violation (the nesting the docstring states): that pins the tails and the beta
    parameters of the p-value's private bound computation to the public bounds.
    """
    if thorough:
        n_p, n_q = 2 * n_p, 2 * n_q
    pv = _pvalue_matrix(n_p, n_q, eps, delta)
    assert np.all((pv >= 0) & (pv <= 1))
    levels = np.unique(np.concatenate([pv.ravel(), [1e-6, 1e-3, 0.01, 0.05, 0.1, 0.5]]))
    levels = levels[(levels > 0) & (levels < 1)]
    q_max = (1 - delta) / math.exp(eps)
    for q in np.linspace(0.002, q_max, 25):
        for shrink in (1.0, 0.8):  # boundary and interior of the claim
            p = shrink * (math.exp(eps) * q + delta)
            wp = stats.binom.pmf(np.arange(n_p + 1), n_p, min(p, 1.0))
            wq = stats.binom.pmf(np.arange(n_q + 1), n_q, q)
            joint = np.outer(wp, wq).ravel()
            order = np.argsort(pv.ravel())
            cdf_at = np.searchsorted(pv.ravel()[order], levels, side="right")
            cum = np.concatenate([[0.0], np.cumsum(joint[order])])[cdf_at]
            assert np.all(cum <= levels * (1 + 1e-7) + 1e-12), (q, shrink, (cum / levels).max())
    # nesting: p-value <= a exactly when the delta bound at alpha = a certifies a violation
    for a in range(n_p + 1):
        for b in range(n_q + 1):
            v = pv[a, b]
            if 1e-250 < v < 1 - 1e-9:
                above = float(clopper_pearson_delta_bound(a, n_p, b, n_q, min(v * 1.001, 1 - 1e-12), eps))
                below = float(clopper_pearson_delta_bound(a, n_p, b, n_q, v / 1.001, eps))
                assert above > delta and below <= delta, (a, b, v, above, below)


def test_claim_pvalue_extremes():
    """Evidence for the claim gives 1; overwhelming evidence against it gives a tiny p-value."""
    assert claim_pvalue(10, 100, 50, 100, 1.0) == 1.0
    assert claim_pvalue(1000, 1000, 0, 1000, 1.0) < 1e-100


@pytest.mark.parametrize("n", [1, 7, 60, 1000])
@pytest.mark.parametrize("alpha", [0.2, 0.05, 1e-6])
def test_the_one_clopper_pearson_equals_statsmodels_and_scipy(n, alpha):
    """dpverify has one Clopper-Pearson implementation; it is the textbook one.

    Fails if the bound drifts from statsmodels' ``proportion_confint(method="beta")`` or
    scipy's ``binomtest(...).proportion_ci`` (a one-sided bound at the two-sided level, the
    beta parameters of the other tail), or if the selection step's and the p-value's bounds
    stop being this one.
    """
    from statsmodels.stats.proportion import proportion_confint

    from dpverify.pipeline import selection
    from dpverify.support import bounds

    k = np.arange(n + 1)
    low, high = proportion_confint(k, n, alpha=alpha, method="beta")
    np.testing.assert_allclose(clopper_pearson_lower(k, n, alpha), low, rtol=1e-12, atol=0)
    np.testing.assert_allclose(clopper_pearson_upper(k, n, alpha), high, rtol=1e-12, atol=0)
    for j in (0, n // 3, n):
        ci = stats.binomtest(int(j), n).proportion_ci(confidence_level=1 - alpha, method="exact")
        assert float(clopper_pearson_lower(j, n, alpha)) == pytest.approx(ci.low, rel=1e-9, abs=1e-300)
        assert float(clopper_pearson_upper(j, n, alpha)) == pytest.approx(ci.high, rel=1e-9)
    # the p-value's rejection rule is the same bound (one scalar evaluation)
    j = n // 2
    expected = float(clopper_pearson_lower(j, n, alpha)) - float(clopper_pearson_upper(0, n, alpha))
    assert bounds._excess(j, n, 0, n, alpha, 0.0, 0.0) == expected
    # the selection step scores candidates with it too (no private copy)
    assert selection.clopper_pearson_lower is clopper_pearson_lower
    assert selection.clopper_pearson_upper is clopper_pearson_upper


def test_clopper_pearson_takes_real_valued_counts():
    """Expected counts (the oracle, the selection's predictions) lie between the integer bounds."""
    n, alpha = 100, 0.05
    mid = float(clopper_pearson_lower(10.5, n, alpha))
    assert float(clopper_pearson_lower(10, n, alpha)) < mid < float(clopper_pearson_lower(11, n, alpha))
    assert float(clopper_pearson_lower(0.0, n, alpha)) == 0.0
    assert float(clopper_pearson_upper(float(n), n, alpha)) == 1.0


def test_one_bound_equals_the_same_bound_in_an_array():
    """The scalar path of the Clopper-Pearson bounds gives the array path's doubles, as 0-d arrays.

    Detects: a scalar count of 0 (or of ``nobs``) not pinned to 0 (to 1), a NaN from scipy not
    mapped as the array path maps it, a Python float returned where callers get a 0-d array.
    """
    from dpverify.support.bounds import clopper_pearson_lower, clopper_pearson_upper

    counts = [0.0, -1.0, 0.5, 1.0, 3.0, 99.5, 100.0, 101.0, float("nan"), 37.25]
    for nobs in (1, 100, 10**9):
        for alpha in (0.05, 1e-9, 0.999):
            for bound in (clopper_pearson_lower, clopper_pearson_upper):
                together = bound(np.array(counts) * (nobs / 100), nobs, alpha)
                for i, count in enumerate(counts):
                    alone = bound(count * (nobs / 100), nobs, alpha)
                    assert isinstance(alone, np.ndarray) and alone.shape == ()
                    assert alone.view(np.uint64) == together[i : i + 1].view(np.uint64)[0], (bound, count, nobs)


def test_smallest_rejecting_level_stops_where_the_full_bisection_would_end():
    """Stopping the bisection once its ends are adjacent doubles returns what all 80 steps return, on
    boundaries across the whole range of ``log(alpha)`` (and on claim p-values, through
    ``claim_pvalue``). Detects a stop that returns ``low`` or the midpoint, or one taken a step early."""
    import math

    from dpverify.support.bounds import smallest_rejecting_level

    def all_steps(rejects):
        high, low = math.log(1.0 - 1e-12), -745.0
        if not rejects(high):
            return 1.0
        if rejects(low):
            return 0.0
        for _ in range(80):
            mid = 0.5 * (low + high)
            high, low = (mid, low) if rejects(mid) else (high, mid)
        return math.exp(high)

    rng = np.random.default_rng(8)
    for boundary in np.concatenate([rng.uniform(-745, 0, 200), -(10.0 ** rng.uniform(-12, 0, 200)), [-745.0, 0.0]]):
        rejects = lambda log_alpha, b=float(boundary): log_alpha >= b  # noqa: E731
        assert smallest_rejecting_level(rejects) == all_steps(rejects)
