"""rho-zero-concentrated differential privacy (Bun and Steinke 2016, Definition 1.1).

``D_alpha(M(x) || M(x')) <= rho * alpha`` for every order ``alpha > 1`` and both orders
of every neighbouring pair. An audit certifies ``sup_alpha D_lb(alpha) / alpha`` over the
orders of :data:`ZCDP_ORDERS`, where ``D_lb`` are Rényi lower bounds that hold for every
order at once (one simultaneous confidence region on a frozen partition): no charge for
the orders tried. Known values: a Gaussian of l2 sensitivity ``D`` and standard deviation
``sigma`` is ``D^2 / (2 sigma^2)``-zCDP (Bun and Steinke 2016, Proposition 1.6); an
epsilon-DP mechanism is ``epsilon^2 / 2``-zCDP, and the exponential mechanism (epsilon-
bounded range) ``epsilon^2 / 8``-zCDP (Cesar and Rogers 2021).

References
----------
M. Bun and T. Steinke, "Concentrated Differential Privacy: Simplifications, Extensions,
and Lower Bounds", TCC 2016.
M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating: Unifying Privacy Loss
Composition for Data Analytics", ALT 2021.
"""

from __future__ import annotations

import numpy as np

from .kinds import one_parameter_kind

__all__ = ["ZCDP", "ZCDP_ORDERS"]

#: The Rényi orders a zCDP audit evaluates: 1.001 to 257, log-spaced in ``alpha - 1``. With
#: simultaneous bounds every order is free; the grid only has to be fine near the orders a
#: sample resolves (the supremum of a certified bound sits at small orders for Gaussian and
#: Laplace noise, where finite samples resolve the divergence; measured: docs/auditor/benchmarks.md).
ZCDP_ORDERS = 1.0 + np.geomspace(1e-3, 256.0, 64)


def _cells_bound(claim, orders, divergences):
    ratio = np.asarray(divergences, dtype=float) / np.asarray(orders, dtype=float)
    best = int(np.argmax(ratio))
    return max(float(ratio[best]), 0.0), float(orders[best])


ZCDP = one_parameter_kind(
    "zcdp", "rho-zCDP", "rho", "zCDP", reads="cells", orders=lambda claim: ZCDP_ORDERS, cells_bound=_cells_bound
)
