"""(alpha, epsilon)-Rényi differential privacy, at one order or on a curve of orders (Mironov 2017).

``D_alpha(M(x) || M(x')) <= epsilon(alpha)`` at each stated order ``alpha > 1``, both
orders of every neighbouring pair. At one order the audit certifies a lower bound on
``D_alpha`` itself (``claim_lower_bound`` is the Rényi epsilon at that order). On a curve it
certifies ``max_i D_lb(alpha_i) / epsilon_i``, the least factor by which the stated curve
must be scaled to hold: a bound above 1 is a violation at some order. The Rényi lower
bounds hold for every order at once, so the curve's orders cost nothing.

References
----------
I. Mironov, "Rényi Differential Privacy", IEEE CSF 2017.
"""

from __future__ import annotations

import numpy as np

from .. import _validation as check
from ..errors import InvalidClaimError
from .kinds import ClaimKind

__all__ = ["RENYI"]


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
    return {"orders": tuple(float(a) for a in orders), "renyi_epsilons": values}


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
