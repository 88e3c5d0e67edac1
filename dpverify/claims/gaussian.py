"""mu-Gaussian differential privacy (Dong, Roth and Su 2022, Definition 2.6).

Distinguishing ``M(x)`` from ``M(x')`` is at least as hard as telling ``N(0, 1)`` from
``N(mu, 1)``: every test with type I error ``a`` has type II error at least
``Phi(Phi^-1(1 - a) - mu)``. A test rejecting on a frozen event ``S`` has type I error
``q = P[M(x') in S]`` and type II error ``1 - p`` with ``p = P[M(x) in S]``; at the least
favourable corner of the confidence box the claim must satisfy
``mu >= Phi^-1(p_lo) - Phi^-1(q_hi)``, the bound this kind certifies (Nasr et al. 2023
audit DP-SGD this way). For ``N(0, 1)`` against ``N(mu, 1)`` every threshold event is
optimal, so one event certifies mu in full.

The one-run f-DP analysis (:func:`dpverify.one_run_fdp_audit`) reads the curve through its inverse
blow-up, the least type I error of a test with power ``y``: ``Phi(Phi^-1(y) - mu)``
(:func:`gaussian_inverse_blow_up`).

References
----------
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
M. Nasr et al., "Tight Auditing of Differentially Private Machine Learning", USENIX Security 2023.
"""

from __future__ import annotations

import numpy as np

from .kinds import one_parameter_kind

__all__ = ["GAUSSIAN_DP", "probit_bound", "gaussian_inverse_blow_up"]


def probit_bound(p_lo, q_hi):
    """``max(0, Phi^-1(p_lo) - Phi^-1(q_hi))``, 0 where either end is degenerate (vectorised)."""
    from scipy import special  # loaded when a claim is read, not at import

    with np.errstate(invalid="ignore"):
        value = special.ndtri(np.asarray(p_lo, dtype=float)) - special.ndtri(np.asarray(q_hi, dtype=float))
    return np.maximum(np.nan_to_num(value, nan=0.0, posinf=0.0, neginf=0.0), 0.0)


def gaussian_inverse_blow_up(y, mu):
    """``Phi(Phi^-1(y) - mu)``: the least type I error of a test with power ``y`` under mu-GDP
    (``1 - f(a) = y`` solved for ``a``, ``f`` the mu-GDP trade-off curve); vectorised, ``y`` in [0, 1]."""
    from scipy import special

    return special.ndtr(special.ndtri(np.asarray(y, dtype=float)) - np.asarray(mu, dtype=float))


GAUSSIAN_DP = one_parameter_kind(
    "gdp",
    "mu-Gaussian DP",
    "mu",
    "Gaussian DP",
    reads="events",
    event_bound=lambda claim, p_lo, q_hi: probit_bound(p_lo, q_hi),
    inverse_blow_up=lambda claim: lambda y: gaussian_inverse_blow_up(y, claim.mu),
)
