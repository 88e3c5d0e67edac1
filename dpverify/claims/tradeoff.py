"""f-differential privacy: a trade-off curve (Dong, Roth and Su 2022, Definition 2.3).

The claim is a trade-off function ``f``: every test between ``M(x')`` and ``M(x)`` with
type I error ``a`` has type II error at least ``f(a)``. It is given as a callable (applied
to arrays of type I errors) or as points ``(a_i, f(a_i))``. A trade-off function is
non-increasing, so between points the audit reads the points as the step function
``f(a) >= f(a_j)`` for the smallest ``a_j >= a`` (and 0 beyond the last): never more
than the points state. A trade-off function is convex, continuous, non-increasing and at
most ``1 - a`` (Dong, Roth and Su 2022, Proposition 2.2): a claim whose values at its points
(at those of :data:`TRADEOFF_GRID`, for a callable) lie above ``1 - a``, grow, or are not
convex is refused when it is made (:func:`dpverify._validation.check_tradeoff_shape`); ``f = 1``
claims that no test has any power, which no mechanism meets. Continuity, and the shape between
those points, are not checked.

A frozen event ``S`` with ``p = P[M(x) in S]``, ``q = P[M(x') in S]`` is a test of type I
error ``q`` and type II error ``1 - p``. Its confidence box lies wholly below the curve
when ``1 - p_lo < f(q_hi)``; the audit certifies the depth ``f(q_hi) - (1 - p_lo)``
(0 when the box touches the curve), and a positive depth is a violation.

The one-run f-DP analysis (:func:`dpverify.one_run_fdp_audit`) reads the claim through its
inverse blow-up ``g(y) = inf{a : 1 - f(a) >= y}`` (:func:`tradeoff_inverse_blow_up`), taken on
:data:`INVERSE_GRID` (and the claim's points) from below: the largest grid point where the running
minimum of ``f`` (the step function of points, as above) still exceeds ``1 - y``. For a
non-increasing ``f`` that is at most the exact value, so the test reads a weaker claim than the one
made and stays valid.

References
----------
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
"""

from __future__ import annotations

import numpy as np

from .. import _validation as check
from ..errors import InvalidClaimError
from .kinds import ClaimKind

__all__ = ["TRADEOFF", "tradeoff_lower", "TRADEOFF_GRID", "INVERSE_GRID", "tradeoff_inverse_blow_up"]

#: Type I errors at which a callable trade-off function is checked (in [0, 1], non-increasing).
TRADEOFF_GRID = np.linspace(0.0, 1.0, 101)
#: Type I errors at which :func:`tradeoff_inverse_blow_up` reads a claim: even steps of 1/4000 and
#: 4001 geometric steps from 1e-15 (small type I errors decide a one-run audit).
INVERSE_GRID = np.unique(np.concatenate(([0.0], np.linspace(0.0, 1.0, 4001), np.geomspace(1e-15, 1.0, 4001))))


def _evaluate_callable(f, a):
    a = np.asarray(a, dtype=float)
    try:
        values = np.asarray(f(a), dtype=float)
        if values.shape != a.shape:
            raise ValueError
    except Exception:  # a scalar function: apply it per value
        values = np.array([float(f(float(v))) for v in a.ravel()]).reshape(a.shape)
    return values


def _check(claim) -> dict:
    f = claim.tradeoff_curve
    check.check_given(f, "a trade-off claim needs its function: PrivacyClaim.tradeoff(f)")
    if not callable(f):
        return {"tradeoff_curve": check.check_tradeoff_points(f)}
    values = check.check_call(
        lambda: _evaluate_callable(f, TRADEOFF_GRID),
        lambda error: f"the trade-off function raised on type I errors in [0, 1]: {error!r}",
        InvalidClaimError,
    )
    check.check_tradeoff_values(values, TRADEOFF_GRID)
    return {"tradeoff_curve": f}


def tradeoff_lower(f, a):
    """A lower bound on ``f(a)`` for the claim's function (vectorised): exact for a callable,
    the step function of the points otherwise."""
    a = np.asarray(a, dtype=float)
    if callable(f):
        return np.clip(_evaluate_callable(f, a), 0.0, 1.0)
    pairs = np.asarray(f, dtype=float)
    index = np.searchsorted(pairs[:, 0], a, side="left")  # the smallest a_j >= a
    padded = np.append(pairs[:, 1], 0.0)
    return padded[np.minimum(index, len(pairs))]


def tradeoff_inverse_blow_up(f):
    """``g(y)``, a lower bound on ``inf{a : 1 - f(a) >= y}`` (vectorised in ``y``): the largest type
    I error of :data:`INVERSE_GRID` (with the points' own, for points) at which the running minimum
    of :func:`tradeoff_lower` exceeds ``1 - y``; 0 where none does."""
    grid = INVERSE_GRID
    if not callable(f):
        grid = np.unique(np.concatenate((grid, np.asarray(f, dtype=float)[:, 0])))
    running = np.minimum.accumulate(tradeoff_lower(f, grid))  # non-increasing

    def inverse(y):
        above = np.searchsorted(-running, -(1.0 - np.asarray(y, dtype=float)), side="left")  # #{running > 1 - y}
        return np.where(above > 0, grid[np.maximum(above - 1, 0)], 0.0)

    return inverse


def _event_bound(claim, p_lo, q_hi):
    depth = tradeoff_lower(claim.tradeoff_curve, q_hi) - (1.0 - np.asarray(p_lo, dtype=float))
    return np.maximum(depth, 0.0)


def _describe(claim) -> str:
    f = claim.tradeoff_curve
    if callable(f):
        return f"trade-off curve {getattr(f, '__name__', repr(f))} (f-DP)"
    return f"trade-off curve through {len(f)} points (f-DP)"


TRADEOFF = ClaimKind(
    name="tradeoff",
    title="f-DP (trade-off curve)",
    parameter="depth below the trade-off curve",
    reads="events",
    fields=("tradeoff_curve",),
    check=_check,
    claimed_value=lambda claim: 0.0,
    describe=_describe,
    event_bound=_event_bound,
    inverse_blow_up=lambda claim: tradeoff_inverse_blow_up(claim.tradeoff_curve),
)
