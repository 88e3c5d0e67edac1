"""(alpha, epsilon)-Rényi differential privacy, at one order or on a curve of orders (Mironov 2017).

``D_alpha(M(x) || M(x')) <= epsilon(alpha)`` at each stated order ``alpha > 1``, both
orders of every neighbouring pair. At one order the audit certifies a lower bound on
``D_alpha`` itself (``claim_lower_bound`` is the Rényi epsilon at that order). On a curve it
certifies ``max_i D_lb(alpha_i) / epsilon_i``, the least factor by which the stated curve
must be scaled to hold: a bound above 1 is a violation at some order. The Rényi lower
bounds hold for every order at once, so the curve's orders cost nothing.

``D_alpha`` is non-decreasing in ``alpha`` (van Erven and Harremoës 2014, Theorem 3), so a
curve that falls as the order grows states at the lower order more than its higher order
allows: it was computed wrong at one of them (an accountant's fault), and is refused (a fall
within rounding, a relative ``FALL_TOLERANCE``, is not).

References
----------
I. Mironov, "Rényi Differential Privacy", IEEE CSF 2017.
T. van Erven and P. Harremoës, "Rényi Divergence and Kullback-Leibler Divergence", IEEE
Transactions on Information Theory 60(7), 2014 (Theorem 3: D_alpha is non-decreasing in alpha).
"""

from __future__ import annotations

import numpy as np

from .. import _validation as check
from ..errors import InvalidClaimError
from .kinds import ClaimKind

__all__ = ["RENYI", "FALL_TOLERANCE"]

#: A curve's epsilon may fall by this share from one order to a higher one (rounding in its
#: computation) before the curve is refused as falling.
FALL_TOLERANCE = 1e-9


def _check(claim) -> dict:
    orders = np.atleast_1d(np.asarray(claim.orders, dtype=float)) if claim.orders is not None else None
    epsilons = claim.renyi_epsilons
    check.check_empty(
        [name for name, value in (("orders", orders), ("epsilons", epsilons)) if value is None],
        "a Rényi claim needs its orders and epsilons: PrivacyClaim.renyi(alpha, epsilon)",
    )
    if callable(epsilons):
        epsilons = [epsilons(float(a)) for a in orders]
    epsilons = np.atleast_1d(np.asarray(epsilons, dtype=float))
    check.check_renyi_orders(orders, epsilons)
    values = tuple(check.check_claimed_epsilon(float(e), "Rényi epsilon") for e in epsilons)
    _check_non_decreasing(orders, np.asarray(values))
    return {"orders": tuple(float(a) for a in orders), "renyi_epsilons": values}


def _check_non_decreasing(orders: np.ndarray, epsilons: np.ndarray) -> None:
    """Refuse a curve whose epsilon at some order exceeds its epsilon at a higher order (beyond rounding)."""
    order = np.argsort(orders)
    a, e = orders[order], epsilons[order]
    lowest_above = np.minimum.accumulate(e[::-1])[::-1][1:]  # the least epsilon at any higher order
    falls = np.flatnonzero(e[:-1] > lowest_above * (1 + FALL_TOLERANCE))
    if falls.size:
        i = int(falls[0])
        j = i + 1 + int(np.argmin(e[i + 1 :]))
        raise InvalidClaimError(
            f"a Rényi curve must be non-decreasing in the order (D_alpha is; van Erven and Harremoës 2014, "
            f"Theorem 3): epsilon {e[i]:g} at order {a[i]:g} exceeds epsilon {e[j]:g} at the higher order {a[j]:g}, "
            "so one of them was computed wrong (a curve meant as stated implies, at each order, the least "
            "epsilon at it or any higher order: state that)"
        )


def _claimed(claim) -> float:
    return claim.renyi_epsilons[0] if len(claim.orders) == 1 else 1.0


def _describe(claim) -> str:
    if len(claim.orders) == 1:
        return f"Rényi eps={claim.renyi_epsilons[0]:g} at order {claim.orders[0]:g}"
    pairs = ", ".join(f"{a:g}: {e:g}" for a, e in list(zip(claim.orders, claim.renyi_epsilons))[:4])
    more = ", ..." if len(claim.orders) > 4 else ""
    return f"Rényi curve {{{pairs}{more}}} ({len(claim.orders)} orders)"


def _audit_check(claim) -> None:
    if min(claim.renyi_epsilons) <= 0:
        raise InvalidClaimError(f"an audit needs every Rényi epsilon > 0, got {claim.renyi_epsilons}")


def _cells_bound(claim, orders, divergences):
    divergences = np.maximum(np.asarray(divergences, dtype=float), 0.0)
    if len(claim.orders) == 1:
        return float(divergences[0]), float(orders[0])
    ratio = divergences / np.maximum(np.asarray(claim.renyi_epsilons), 1e-300)
    best = int(np.argmax(ratio))
    return float(ratio[best]), float(orders[best])


def _parameter(claim) -> str:
    if len(claim.orders) == 1:
        return f"Rényi epsilon at order {claim.orders[0]:g}"
    return "the Rényi curve's scale (the largest certified D_alpha / claimed epsilon(alpha) over its orders)"


RENYI = ClaimKind(
    name="renyi",
    title="Rényi DP",
    parameter=_parameter,
    reads="cells",
    fields=("orders", "renyi_epsilons"),
    check=_check,
    claimed_value=_claimed,
    describe=_describe,
    orders=lambda claim: np.asarray(claim.orders, dtype=float),
    cells_bound=_cells_bound,
    audit_check=_audit_check,
)
