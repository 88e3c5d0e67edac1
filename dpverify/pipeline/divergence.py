"""Certified Rényi lower bounds from the counts of a frozen partition of the output space.

A partition of the output space into cells ``C_1..C_k`` is a post-processing of the
mechanism, so by the data-processing inequality (van Erven and Harremoës 2014, Theorem 9)
the Rényi divergence of the cell distributions ``P = (P[M(x) in C_i])_i`` and
``Q = (P[M(x') in C_i])_i`` lower-bounds the mechanism's, at every order. With fresh counts
of the cells under both inputs:

1. :func:`cell_region`: a simultaneous ``1 - alpha`` confidence region for ``(P, Q)``, the
   box of two-sided Clopper-Pearson intervals at level ``alpha / (2k)`` per cell and input
   (Bonferroni over the ``2k`` intervals), intersected with the simplex;
2. :func:`renyi_lower_bounds`: for every order ``a > 1`` a certified lower bound on the
   minimum of ``D_a(P || Q)`` over the region. The objective ``sum_i P_i^a Q_i^(1-a)`` is
   jointly convex; its minimiser over the region does not depend on ``a`` (every block step
   makes ``P`` proportional to ``Q`` where the box allows it: the least favourable pair of
   the two boxes), and is found by alternating those steps. Convexity then gives a bound
   that holds whether or not the steps converged: ``F(z) + min_{z' in region} grad F(z) .
   (z' - z) <= min F`` (the Frank-Wolfe gap; the linear minimum over a box cut by the
   simplex is a fractional knapsack).

Since the region holds for every order at once, the bounds at all orders hold together
with probability ``1 - alpha``: a claim read at any order, or at the supremum over orders
(rho-zCDP), owes nothing for the orders tried.

References
----------
T. van Erven and P. Harremoës, "Rényi Divergence and Kullback-Leibler Divergence", IEEE
Trans. Inf. Theory 60(7), 2014.
P. J. Huber and V. Strassen, "Minimax Tests and the Neyman-Pearson Lemma for Capacities",
Ann. Statist. 1(2), 1973.
C. J. Clopper and E. S. Pearson, "The Use of Confidence or Fiducial Limits Illustrated in
the Case of the Binomial", Biometrika 26(4), 1934.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validation as check
from ..support.bounds import clopper_pearson_lower, clopper_pearson_upper, smallest_rejecting_level

__all__ = ["CellRegion", "cell_region", "least_favourable_pair", "renyi_lower_bounds", "cells_pvalue"]

#: Alternating steps towards the least favourable pair (each step is exact; the bound is valid
#: after any number of them, and tight once they have converged).
MAX_STEPS = 200
#: Floor of cell probabilities inside the logarithms (the bound stays valid: see the module docstring).
FLOOR = 1e-300
#: Relative slack taken off the bound for floating-point error in the sums.
SLACK = 1e-9


class CellRegion:
    """Simultaneous confidence intervals of the cell probabilities under both inputs.

    Attributes
    ----------
    lo_x, hi_x, lo_x_prime, hi_x_prime : numpy.ndarray
        The intervals, one per cell; each interval holds with probability at least
        ``1 - alpha / (2k)``, all ``2k`` together with probability at least ``1 - alpha``.
    """

    def __init__(self, lo_x, hi_x, lo_x_prime, hi_x_prime):
        self.lo_x, self.hi_x = lo_x, hi_x
        self.lo_x_prime, self.hi_x_prime = lo_x_prime, hi_x_prime


def cell_region(counts_x, counts_x_prime, n_x, n_x_prime, alpha: float) -> CellRegion:
    """The Bonferroni box of :class:`CellRegion` from cell counts (every cell, summing to ``n``)."""
    return _box(counts_x, counts_x_prime, n_x, n_x_prime, alpha / (2 * len(counts_x)))


def _box(counts_x, counts_x_prime, n_x, n_x_prime, level: float) -> CellRegion:
    """Two-sided Clopper-Pearson intervals at ``level`` each, for every cell under both inputs."""
    counts_x = np.asarray(counts_x, dtype=float)
    counts_x_prime = np.asarray(counts_x_prime, dtype=float)
    return CellRegion(
        clopper_pearson_lower(counts_x, n_x, level),
        clopper_pearson_upper(counts_x, n_x, level),
        clopper_pearson_lower(counts_x_prime, n_x_prime, level),
        clopper_pearson_upper(counts_x_prime, n_x_prime, level),
    )


def _proportional_fit(w, lo, hi):
    """``clip(s w, lo, hi)`` with ``s`` such that it sums to 1 (``lo.sum() <= 1 <= hi.sum()``).

    The sum is piecewise linear and non-decreasing in ``s`` with breakpoints ``a = lo / w`` and
    ``b = hi / w``: at ``t`` it is ``sum_{a > t} lo + t sum_{a <= t < b} w + sum_{b <= t} hi``,
    evaluated at every breakpoint from sorted cumulative sums (time ``k log k``, memory ``k``); it
    crosses 1 on one segment, where ``s`` is interpolated exactly.
    """
    w = np.maximum(w, FLOOR)
    a, b = lo / w, hi / w
    order_a, order_b = np.argsort(a, kind="stable"), np.argsort(b, kind="stable")
    a_sorted, b_sorted = a[order_a], b[order_b]
    lo_cum = np.concatenate([[0.0], np.cumsum(lo[order_a])])  # lo of the smallest a's
    wa_cum = np.concatenate([[0.0], np.cumsum(w[order_a])])
    hi_cum = np.concatenate([[0.0], np.cumsum(hi[order_b])])
    wb_cum = np.concatenate([[0.0], np.cumsum(w[order_b])])
    breaks = np.unique(np.concatenate([a, b]))
    at_most_a = np.searchsorted(a_sorted, breaks, side="right")  # a <= t
    at_most_b = np.searchsorted(b_sorted, breaks, side="right")  # b <= t
    sums = (lo_cum[-1] - lo_cum[at_most_a]) + breaks * (wa_cum[at_most_a] - wb_cum[at_most_b]) + hi_cum[at_most_b]
    j = int(np.searchsorted(sums, 1.0, side="left"))
    if j == 0:
        scale = breaks[0]
    elif j >= breaks.size:
        scale = breaks[-1]
    else:
        low, high = sums[j - 1], sums[j]
        share = 0.0 if high <= low else (1.0 - low) / (high - low)
        scale = breaks[j - 1] + share * (breaks[j] - breaks[j - 1])
    return np.clip(scale * w, lo, hi)


def least_favourable_pair(lo_p, hi_p, lo_q, hi_q, steps: int = MAX_STEPS):
    """The pair ``(P, Q)`` of the region closest in every Rényi divergence (alternating exact steps)."""
    q = _proportional_fit((lo_q + hi_q) / 2, lo_q, hi_q)
    p = _proportional_fit(q, lo_p, hi_p)
    for _ in range(steps):
        q_new = _proportional_fit(p, lo_q, hi_q)
        p_new = _proportional_fit(q_new, lo_p, hi_p)
        done = np.max(np.abs(p_new - p)) < 1e-15 and np.max(np.abs(q_new - q)) < 1e-15
        p, q = p_new, q_new
        if done:
            break
    return p, q


def _linear_minimum(g, point, lo, hi):
    """``min_{z in box cut by the simplex} g . z - g . point`` for each row of ``g`` (fractional knapsack)."""
    order = np.argsort(g, axis=1, kind="stable")
    g_sorted = np.take_along_axis(g, order, axis=1)
    capacity = (hi - lo)[order]
    left = 1.0 - lo.sum()
    taken = np.clip(left - (np.cumsum(capacity, axis=1) - capacity), 0.0, capacity)
    with np.errstate(invalid="ignore"):
        value = g @ lo + np.sum(g_sorted * taken, axis=1) - g @ point
    return np.nan_to_num(value, nan=-np.inf)


def renyi_lower_bounds(region: CellRegion, orders, *, reverse: bool = False) -> np.ndarray:
    """Certified lower bounds on ``D_a(P || Q)`` (``reverse``: ``D_a(Q || P)``) at each order ``a > 1``.

    Valid whenever the true cell probabilities lie in ``region``; 0 where nothing is certified.
    """
    orders = np.asarray(orders, dtype=float)
    lo_p, hi_p, lo_q, hi_q = region.lo_x, region.hi_x, region.lo_x_prime, region.hi_x_prime
    if reverse:
        lo_p, hi_p, lo_q, hi_q = lo_q, hi_q, lo_p, hi_p
    p, q = least_favourable_pair(lo_p, hi_p, lo_q, hi_q)
    lp, lq = np.log(np.maximum(p, FLOOR)), np.log(np.maximum(q, FLOOR))
    a = orders[:, None]
    terms = a * lp + (1.0 - a) * lq
    top = terms.max(axis=1, keepdims=True)
    with np.errstate(over="ignore", invalid="ignore"):
        t = np.exp(terms - top)  # F(z) e^(-top), per cell
        grad_p = a * np.exp(terms - top - lp)
        grad_q = (1.0 - a) * np.exp(terms - top - lq)
    value = t.sum(axis=1)
    gap = _linear_minimum(grad_p, p, lo_p, hi_p) + _linear_minimum(grad_q, q, lo_q, hi_q)
    lower = value + np.minimum(gap, 0.0)
    lower = lower * (1.0 - SLACK) - SLACK * value
    with np.errstate(divide="ignore", invalid="ignore"):
        log_f = top[:, 0] + np.log(lower)
    bound = np.where(lower > 0, log_f / (orders - 1.0), 0.0)
    return np.maximum(np.nan_to_num(bound, nan=0.0, posinf=0.0, neginf=0.0), 0.0)


def cells_statistic(claim, counts_x, counts_x_prime, n_x, n_x_prime, alpha: float):
    """The claim's certified parameter bound from cell counts at level ``alpha``, both directions.

    Returns ``(bound, order, direction, region)``.
    """
    kind = claim.kind_record
    orders = np.asarray(kind.orders(claim), dtype=float)
    region = cell_region(counts_x, counts_x_prime, n_x, n_x_prime, alpha)
    best = (-1.0, float(orders[0]), "x")
    for direction, reverse in (("x", False), ("x_prime", True)):
        bound, order = kind.cells_bound(claim, orders, renyi_lower_bounds(region, orders, reverse=reverse))
        check.check_kind_bound(kind, "cells_bound", bound)
        if bound > best[0]:
            best = (bound, order, direction)
    return best[0], best[1], best[2], region


def predicted_cells_statistic(
    claim, counts_x, counts_x_prime, n_x, n_x_prime, *, n_certification: int, alpha: float, shrinkage_se: float
) -> float:
    """The claim's bound predicted at ``n_certification`` samples per input from selection counts of the cells.

    The selection proportions are first shrunk towards the null: to the least favourable pair
    (:func:`least_favourable_pair`) of the box of two-sided Clopper-Pearson intervals of
    ``shrinkage_se`` standard errors about each selection count. A tail cell that the selection
    saw a few times under one input then tells no more than its interval allows, so a deep cut
    is not preferred for a chance shortfall there (the winner's curse of choosing among many
    cuts). The prediction is :func:`cells_statistic` at the shrunk pair's expected counts at the
    certification size.
    """
    level = math.erfc(shrinkage_se / math.sqrt(2.0))  # two-sided normal tail beyond shrinkage_se
    shrunk = _box(counts_x, counts_x_prime, n_x, n_x_prime, level)
    p, q = least_favourable_pair(shrunk.lo_x, shrunk.hi_x, shrunk.lo_x_prime, shrunk.hi_x_prime)
    m = n_certification
    return float(cells_statistic(claim, m * p, m * q, m, m, alpha)[0])


def cells_pvalue(claim, counts_x, counts_x_prime, n_x, n_x_prime, *, iterations: int = 24) -> float:
    """P-value of "the claim holds" on the cells: the smallest level at which the certified bound exceeds it.

    The confidence regions are nested in the level, so the rejection regions are, and
    ``P[pvalue <= a] <= a`` under the claim. Bisection on ``log(alpha)``, rounded up.
    """
    claimed = claim.parameter
    return smallest_rejecting_level(
        lambda log_alpha: (
            cells_statistic(claim, counts_x, counts_x_prime, n_x, n_x_prime, math.exp(log_alpha))[0] > claimed
        ),
        iterations=iterations,
        lowest=math.log(1e-300),
        floor=1e-300,
    )
