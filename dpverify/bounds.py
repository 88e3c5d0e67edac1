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
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

__all__ = [
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "clopper_pearson_epsilon_bound",
    "clopper_pearson_delta_bound",
    "claim_pvalue",
    "minimum_certifying_samples",
]


def clopper_pearson_lower(count, nobs, alpha):
    """One-sided ``1 - alpha/2`` Clopper-Pearson lower bound (statsmodels, method="beta")."""
    low, _ = proportion_confint(count, nobs, alpha=alpha, method="beta")
    return np.nan_to_num(np.asarray(low, dtype=float), nan=0.0)


def clopper_pearson_upper(count, nobs, alpha):
    """One-sided ``1 - alpha/2`` Clopper-Pearson upper bound (statsmodels, method="beta")."""
    _, upp = proportion_confint(count, nobs, alpha=alpha, method="beta")
    return np.nan_to_num(np.asarray(upp, dtype=float), nan=1.0)


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


def _beta_lower(count, nobs, alpha):
    """One-sided ``1 - alpha/2`` Clopper-Pearson lower bound, through scipy directly.

    The same bound as :func:`clopper_pearson_lower`; it also takes real-valued (predicted)
    counts, and skips statsmodels' wrapper where it is called many times.
    """
    count = np.asarray(count, dtype=float)
    with np.errstate(invalid="ignore"):
        value = stats.beta.ppf(alpha / 2, count, nobs - count + 1)
    return np.where(count <= 0, 0.0, np.nan_to_num(value, nan=0.0))


def _beta_upper(count, nobs, alpha):
    """One-sided ``1 - alpha/2`` Clopper-Pearson upper bound (see :func:`_beta_lower`)."""
    count = np.asarray(count, dtype=float)
    with np.errstate(invalid="ignore"):
        value = stats.beta.isf(alpha / 2, count + 1, nobs - count)
    return np.where(count >= nobs, 1.0, np.nan_to_num(value, nan=1.0))


def _excess(count_p, n_p, count_q, n_q, alpha, epsilon, delta) -> float:
    # the same Clopper-Pearson bounds as above, through scipy directly (this
    # runs ~80 times per p-value; statsmodels' wrapper dominates otherwise)
    # (scalar form of _beta_lower/_beta_upper, kept apart: counts above n give NaN here, as before)
    p_lo = 0.0 if count_p <= 0 else float(stats.beta.ppf(alpha / 2, count_p, n_p - count_p + 1))
    q_hi = 1.0 if count_q >= n_q else float(stats.beta.isf(alpha / 2, count_q + 1, n_q - count_q))
    return p_lo - delta - math.exp(epsilon) * q_hi


def claim_pvalue(count_p, n_p, count_q, n_q, epsilon, delta=0.0) -> float:
    """P-value of "P <= exp(epsilon) Q + delta" for one pre-selected event.

    The smallest ``alpha`` at which the Clopper-Pearson test above rejects the
    claim; rejection regions are nested in ``alpha``, so this is a valid
    p-value (``P[pvalue <= a] <= a`` under the claim). Found by bisection on
    ``log(alpha)``.
    """
    if _excess(count_p, n_p, count_q, n_q, 1.0 - 1e-12, epsilon, delta) <= 0:
        return 1.0
    lo, hi = -745.0, math.log(1.0 - 1e-12)  # log(alpha) range
    if _excess(count_p, n_p, count_q, n_q, math.exp(lo), epsilon, delta) > 0:
        return 0.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        if _excess(count_p, n_p, count_q, n_q, math.exp(mid), epsilon, delta) > 0:
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


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
