"""Clopper-Pearson bounds and the privacy-loss bounds built from them.

For an event S with ``k_p`` of ``n_p`` samples of M(x) in S and ``k_q`` of
``n_q`` samples of M(x') in S, let ``p_lo`` be a one-sided ``1 - alpha/2``
Clopper-Pearson lower bound on P[M(x) in S] and ``q_hi`` a one-sided
``1 - alpha/2`` upper bound on P[M(x') in S]. By the union bound both hold
together with probability at least ``1 - alpha``, so

    eps_lb   = ln((p_lo - delta) / q_hi)          (Bichsel et al. 2021)
    delta_lb = p_lo - exp(eps) * q_hi

are ``1 - alpha`` lower confidence bounds on the privacy loss of the pair at
the given delta, and on the delta needed at the given eps. The p-value of
"the claim (eps, delta) holds on this pair" is the smallest alpha at which
``delta_lb`` exceeds ``delta``.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = [
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "clopper_pearson_epsilon_bound",
    "clopper_pearson_delta_bound",
    "claim_pvalue",
    "smallest_rejecting_level",
    "minimum_certifying_samples",
]


def clopper_pearson_lower(count, nobs, alpha):
    """One-sided ``1 - alpha/2`` Clopper-Pearson lower bound on a binomial proportion.

    The only implementation of the bound in dpverify: every audit, curve, oracle,
    selection score and p-value goes through it (or :func:`clopper_pearson_upper`).

    Parameters
    ----------
    count : array_like
        Successes, ``0 <= count <= nobs``. Real values are allowed (the
        bound is continuous in the count; the selection step and the oracle
        evaluate it at expected counts).
    nobs : array_like
        Trials.
    alpha : float or array_like
        The two-sided level: each one-sided bound fails with probability at
        most ``alpha / 2``.

    Returns
    -------
    numpy.ndarray
        ``Beta(alpha/2; count, nobs - count + 1)`` quantile, 0 where
        ``count <= 0`` (0-d for scalar input).

    Notes
    -----
    Equal to the lower end of
    ``statsmodels.stats.proportion.proportion_confint(count, nobs, alpha, method="beta")``
    and of ``scipy.stats.binomtest(count, nobs).proportion_ci(1 - alpha)``
    (the tests compare them); computed with ``scipy.special.betaincinv``
    directly, which gives the same values as the ``scipy.stats.beta.ppf`` that
    statsmodels calls (bit for bit), without its per-call argument checks: the
    p-value bisection evaluates the bound ~80 times, and a search audit's
    screening ranks thousands of events.

    References
    ----------
    C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits
    illustrated in the case of the binomial", Biometrika, 1934.
    """
    from scipy import special  # here: scipy.special costs 0.2 s to import

    count = np.asarray(count, dtype=float)
    half = np.asarray(alpha, dtype=float) / 2
    if count.ndim == 0 and np.ndim(nobs) == 0 and half.ndim == 0:  # one bound: no array bookkeeping
        if count <= 0:
            return np.asarray(0.0)
        with np.errstate(invalid="ignore"):
            value = float(special.betaincinv(count, nobs - count + 1, half))
        return np.asarray(0.0 if math.isnan(value) else value)
    with np.errstate(invalid="ignore"):
        value = special.betaincinv(count, nobs - count + 1, half)
    return np.where(count <= 0, 0.0, np.nan_to_num(value, nan=0.0))


def clopper_pearson_upper(count, nobs, alpha):
    """One-sided ``1 - alpha/2`` Clopper-Pearson upper bound on a binomial proportion.

    ``Beta(1 - alpha/2; count + 1, nobs - count)`` quantile, 1 where
    ``count >= nobs``; parameters, notes and references as for
    :func:`clopper_pearson_lower`.
    """
    from scipy import special  # here: scipy.special costs 0.2 s to import

    count = np.asarray(count, dtype=float)
    half = np.asarray(alpha, dtype=float) / 2
    if count.ndim == 0 and np.ndim(nobs) == 0 and half.ndim == 0:  # one bound: no array bookkeeping
        if count >= nobs:
            return np.asarray(1.0)
        with np.errstate(invalid="ignore"):
            value = float(special.betainccinv(count + 1, nobs - count, half))
        return np.asarray(1.0 if math.isnan(value) else value)
    with np.errstate(invalid="ignore"):
        value = special.betainccinv(count + 1, nobs - count, half)
    return np.where(count >= nobs, 1.0, np.nan_to_num(value, nan=1.0))


def clopper_pearson_epsilon_bound(count_p, n_p, count_q, n_q, alpha, delta=0.0):
    """``1 - alpha`` lower bound on ``ln((P - delta)/Q)``; 0 where nothing is certified.

    Vectorized over events. A violation that occurs only on outputs impossible
    under x' (``count_q = 0``) gives a finite bound that grows like
    ``ln(n_q)`` with the sample size.
    """
    p_lo = clopper_pearson_lower(count_p, n_p, alpha)
    q_hi = clopper_pearson_upper(count_q, n_q, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log(np.maximum(p_lo - delta, 0.0)) - np.log(q_hi)
    return np.maximum(np.nan_to_num(value, nan=0.0, neginf=0.0), 0.0)


def clopper_pearson_delta_bound(count_p, n_p, count_q, n_q, alpha, epsilon):
    """``1 - alpha`` lower bound on ``P - exp(epsilon) Q``; 0 where nothing is certified."""
    p_lo = clopper_pearson_lower(count_p, n_p, alpha)
    q_hi = clopper_pearson_upper(count_q, n_q, alpha)
    return np.maximum(p_lo - math.exp(epsilon) * q_hi, 0.0)


def _excess(count_p, n_p, count_q, n_q, alpha, epsilon, delta) -> float:
    """``p_lo - delta - exp(epsilon) q_hi`` at level ``alpha``: positive where the test rejects."""
    p_lo = float(clopper_pearson_lower(count_p, n_p, alpha))
    q_hi = float(clopper_pearson_upper(count_q, n_q, alpha))
    return p_lo - delta - math.exp(epsilon) * q_hi


def smallest_rejecting_level(rejects, *, iterations: int = 80, lowest: float = -745.0, floor: float = 0.0) -> float:
    """The smallest level ``alpha`` at which a test rejects, for tests whose rejection regions are nested in
    ``alpha`` (so the result is a valid p-value): bisection on ``log(alpha)``, rounded up.

    ``rejects(log_alpha)`` says whether the test rejects at ``exp(log_alpha)``. Returns 1 when it does not
    reject at ``alpha`` just below 1, and ``floor`` when it rejects at ``exp(lowest)`` already. The one
    implementation behind :func:`claim_pvalue` and the p-values of the other claim kinds. The bisection
    stops early once its ends are adjacent doubles (``rejects`` is false at one, true at the other, so
    no later step could move them): about 60 of the 80 steps, the same result.
    """
    high = math.log(1.0 - 1e-12)
    if not rejects(high):
        return 1.0
    low = lowest
    if rejects(low):
        return floor
    for _ in range(iterations):
        mid = 0.5 * (low + high)
        if mid == low or mid == high:  # adjacent doubles: every later step would leave low and high as they are
            break
        if rejects(mid):
            high = mid
        else:
            low = mid
    return math.exp(high)


def claim_pvalue(count_p, n_p, count_q, n_q, epsilon, delta=0.0) -> float:
    """P-value of "P <= exp(epsilon) Q + delta" for one pre-selected event.

    The smallest ``alpha`` at which the Clopper-Pearson test above rejects the
    claim; rejection regions are nested in ``alpha``, so this is a valid
    p-value (``P[pvalue <= a] <= a`` under the claim). Found by bisection on
    ``log(alpha)`` (:func:`smallest_rejecting_level`).
    """
    return smallest_rejecting_level(
        lambda log_alpha: _excess(count_p, n_p, count_q, n_q, math.exp(log_alpha), epsilon, delta) > 0
    )


def minimum_certifying_samples(epsilon: float, delta: float, alpha: float) -> int:
    """Fewest certification samples per input that could ever certify a violation.

    The most favourable data (every sample of M(x) in S, none of M(x')) gives
    ``p_lo = (alpha/2)^(1/n)`` and ``q_hi = 1 - (alpha/2)^(1/n)``; this is the
    smallest ``n`` with ``p_lo - delta > exp(epsilon) q_hi``.
    """

    def certifies(n: int) -> bool:
        p_lo = (alpha / 2) ** (1.0 / n)
        return p_lo - delta > math.exp(epsilon) * (1.0 - p_lo)

    hi = 1
    while not certifies(hi):
        hi *= 2
        if hi > 2**62:
            raise OverflowError("no sample size can certify this claim")
    lo = hi // 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        if certifies(mid):
            hi = mid
        else:
            lo = mid
    return hi
