"""Threshold and interval events on one number per output, and the quantile grids they sit at.

The machinery the threshold families share (:mod:`.real`, :mod:`.discrete`):
grids of pooled quantiles (``numpy.quantile(method="nearest")``, computed from
each group sorted without merging them), and the events ``{v >= t}``,
``{v < t}`` and ``[lo, hi)`` counted in the sorted groups (StatDP's events on
real outputs).

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from .candidates import Candidates, Event
from .indicators import AtLeast, Below, Within

__all__ = [
    "THRESHOLD_POINTS",
    "INTERVAL_POINTS",
    "TAIL_QUANTILES",
    "pooled_grids",
    "sorted_grids",
    "signed_zeros_mixed",
    "order_statistics",
    "nearest_quantiles",
    "format_threshold",
    "threshold_candidates",
    "threshold_events",
    "shared_sorts",
    "shared_value",
    "sorted_projection",
    "presorted_projection",
]

#: Quantile points per projection for threshold events, and for interval events.
THRESHOLD_POINTS = 32
INTERVAL_POINTS = 12
#: Pooled quantiles (and their complements) of the extra thresholds in the tails of a likelihood-ratio
#: statistic (:func:`threshold_candidates` with ``tails=True``), below the grid's first point 1/33.
TAIL_QUANTILES = (1e-3, 2e-3, 4e-3, 7e-3, 1e-2, 1.5e-2, 2e-2)


def pooled_grids(values: np.ndarray, *points: int) -> list[np.ndarray]:
    """For each number of points: the distinct finite values when there are no more, else quantiles.

    The grids of one projection share the sort of its values (``unique``), the costliest step.
    """
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return [np.zeros(0) for _ in points]
    unique = np.unique(finite)
    return [
        unique if unique.size <= k else np.unique(np.quantile(finite, np.linspace(0, 1, k + 2)[1:-1], method="nearest"))
        for k in points
    ]


def _finite_part(sorted_values: np.ndarray) -> np.ndarray:
    """The finite values of a sorted array without NaN (``-inf`` sorts first, ``inf`` last): a view."""
    low = np.searchsorted(sorted_values, -np.inf, side="right")
    high = np.searchsorted(sorted_values, np.inf, side="left")
    return sorted_values[low:high]


def signed_zeros_mixed(*values: np.ndarray) -> bool:
    """Whether ``-0.0`` and ``0.0`` both occur among ``values`` (unsorted: numpy's sort may turn one into the other).

    Elsewhere values that compare equal have the same bits, so every order statistic and
    every distinct value is the same double whichever sort or selection algorithm found it.
    """
    negative = positive = False
    for part in values:
        part = np.asarray(part, dtype=np.float64)
        zeros = part[part == 0]  # both signed zeros; usually none, and then one pass
        if zeros.size:
            signs = np.signbit(zeros)
            negative = negative or bool(signs.any())
            positive = positive or not bool(signs.all())
    return negative and positive


def _distinct_up_to(sorted_values: np.ndarray, limit: int) -> np.ndarray | None:
    """The distinct values of a sorted array, or None when there are more than ``limit``.

    Evenly spaced entries are looked at first: the distinct values among them are distinct values of
    the array, so more than ``limit`` of them answer None without the pass over every value (continuous
    outputs: 1 ms per 1e6 values).
    """
    if sorted_values.size == 0:
        return sorted_values
    probe = sorted_values[np.unique(np.linspace(0, sorted_values.size - 1, 4 * limit + 4).astype(np.intp))]
    if np.count_nonzero(probe[1:] != probe[:-1]) + 1 > limit:
        return None
    new = sorted_values[1:] != sorted_values[:-1]
    if np.count_nonzero(new) + 1 > limit:
        return None
    return sorted_values[np.concatenate([[True], new])]


def order_statistics(a: np.ndarray, b: np.ndarray, ranks) -> np.ndarray:
    """``sort(concatenate([a, b]))[ranks]`` from sorted ``a`` and ``b`` (no NaN), without merging them.

    A binary search per rank on how many of the smallest ``rank + 1`` values come from ``a``.
    """
    ranks = np.asarray(ranks, dtype=np.int64)
    if len(a) == 0 or len(b) == 0:
        return (b if len(a) == 0 else a)[ranks]
    na, nb = len(a), len(b)
    low = np.maximum(0, ranks + 1 - nb)  # values taken from a
    high = np.minimum(ranks + 1, na)
    while np.any(low < high):
        # the smallest i with a[i] >= b[j - 1] (j = rank + 1 - i values from b), or i = na, or j = 0
        mid = (low + high) // 2
        j = ranks + 1 - mid
        enough = (mid >= na) | (j <= 0) | (a[np.minimum(mid, na - 1)] >= b[np.maximum(j - 1, 0)])
        searching = low < high
        high = np.where(searching & enough, mid, high)
        low = np.where(searching & ~enough, mid + 1, low)
    j = ranks + 1 - low
    from_a = np.where(low > 0, a[np.maximum(low - 1, 0)], -np.inf)
    from_b = np.where(j > 0, b[np.maximum(j - 1, 0)], -np.inf)
    return np.where(from_b > from_a, from_b, from_a)


def nearest_quantiles(x: np.ndarray, x_prime: np.ndarray, sorted_x, sorted_x_prime, quantiles) -> np.ndarray:
    """``np.quantile(concatenate([x, x_prime]), quantiles, method="nearest")``, given both groups sorted.

    The same doubles without copying and partitioning the pooled values (numpy's ``nearest``
    rank is ``round((n - 1) q)``, half to even), except where the result could depend on
    numpy's algorithms (a NaN, or both signed zeros): numpy computes those.
    """
    n = len(sorted_x) + len(sorted_x_prime)
    nan = any(len(s) and np.isnan(s[-1]) for s in (sorted_x, sorted_x_prime))
    if n == 0 or nan or signed_zeros_mixed(x, x_prime):
        return np.quantile(np.concatenate([x, x_prime]), quantiles, method="nearest")
    return order_statistics(sorted_x, sorted_x_prime, _nearest_ranks(n, quantiles))


def _nearest_ranks(n: int, quantiles) -> np.ndarray:
    """The ranks numpy's ``quantile(method="nearest")`` reads among ``n`` sorted values."""
    return np.around((n - 1) * np.asarray(quantiles, dtype=np.float64)).astype(np.intp)


def sorted_grids(sx, sxp, *points: int) -> list[np.ndarray]:
    """:func:`pooled_grids` of the pooled values, from each group sorted without NaN.

    The same doubles (:func:`nearest_quantiles`) where the values do not hold both signed zeros
    (:func:`signed_zeros_mixed`, which callers check on the unsorted values).
    """
    fx, fxp = _finite_part(sx), _finite_part(sxp)
    if fx.size + fxp.size == 0:
        return [np.zeros(0) for _ in points]
    few = [_distinct_up_to(f, max(points)) for f in (fx, fxp)]
    unique = None if any(f is None for f in few) else np.unique(np.concatenate(few))
    return [
        unique
        if unique is not None and unique.size <= k
        else np.unique(order_statistics(fx, fxp, _nearest_ranks(fx.size + fxp.size, np.linspace(0, 1, k + 2)[1:-1])))
        for k in points
    ]


#: The sorted projections of the selection groups while :func:`shared_sorts` is active:
#: ``(id(group), name) -> (group, sorted values)`` (the group is kept, so its id stays its own).
_SHARED_SORTS: ContextVar[dict | None] = ContextVar("dpverify_shared_sorts", default=None)


@contextmanager
def shared_sorts():
    """Within this block, :func:`sorted_projection` sorts each group's projection once.

    The threshold, support-edge and classifier families of one selection read the same sorted
    projections (:func:`dpverify.events.registry.candidate_events` opens the block): a sort of 1e6
    doubles costs about 5 ms, and the families used to sort the same values twice.
    """
    token = _SHARED_SORTS.set({})
    try:
        yield
    finally:
        _SHARED_SORTS.reset(token)


def sorted_projection(group, name: str, values: np.ndarray) -> np.ndarray:
    """``values`` (the projection ``name`` of ``group``) without NaN, sorted ascending.

    Inside :func:`shared_sorts` the array is computed once per group and name and returned read-only
    to every later caller; elsewhere, or with ``group`` None, it is a fresh array. The values are
    those of ``numpy.sort`` either way: values that compare equal have the same bits, but for the two
    signed zeros, whose order a sort may change; callers that read a zero's sign check
    :func:`signed_zeros_mixed` on ``values``.
    """
    cache = None if group is None else _SHARED_SORTS.get()
    key = (id(group), name)
    if cache is not None and key in cache and cache[key][0] is group:
        return cache[key][1]
    kept = np.sort(values)  # NaN sorts last: cut off (the sort of the other values is the same)
    if kept.size and np.isnan(kept[-1]):
        kept = kept[: np.searchsorted(kept, np.nan, side="left")].copy()
    if cache is not None:
        kept.flags.writeable = False
        cache[key] = (group, kept)
    return kept


def shared_value(groups: tuple, name: str, compute):
    """``compute()``, once per ``groups`` (by identity) and ``name`` inside the current :func:`shared_sorts`
    block (later callers get the same object); computed afresh elsewhere. For values that depend on the
    groups only, such as the projections of a selection's vectors that two families read."""
    cache = _SHARED_SORTS.get()
    if cache is None:
        return compute()
    key = (tuple(id(g) for g in groups), name)
    hit = cache.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], groups)):
        return hit[1]
    value = compute()
    cache[key] = (groups, value)
    return value


def presorted_projection(group, name: str) -> np.ndarray | None:
    """The array :func:`sorted_projection` returned for ``group`` and ``name`` inside the current
    :func:`shared_sorts` block, or None where none was computed."""
    cache = _SHARED_SORTS.get()
    hit = None if cache is None else cache.get((id(group), name))
    return hit[1] if hit is not None and hit[0] is group else None


def format_threshold(t: float) -> str:
    return f"{t:.6g}"


def _tail_points(px, pxp, sx, sxp, tail_quantiles=TAIL_QUANTILES) -> np.ndarray:
    """The pooled values at ``tail_quantiles`` and their complements (``quantile(method="nearest")``)."""
    q = np.asarray(tail_quantiles)
    quantiles = np.concatenate([q, 1 - q])
    fx, fxp = _finite_part(sx), _finite_part(sxp)
    if fx.size + fxp.size == 0:
        return np.zeros(0)
    if signed_zeros_mixed(px, pxp):
        pooled = np.concatenate([px, pxp])
        return np.unique(np.quantile(pooled[np.isfinite(pooled)], quantiles, method="nearest"))
    return np.unique(order_statistics(fx, fxp, _nearest_ranks(fx.size + fxp.size, quantiles)))


def threshold_candidates(
    px, pxp, project, name: str, groups=None, *, tails: bool = False, tail_quantiles=TAIL_QUANTILES
) -> Candidates:
    """Events {v >= t}, {v < t} and [lo, hi) on a projection ``v = project(group)``.

    ``groups``, the selection groups that ``px`` and ``pxp`` project, lets the sorted projections be
    shared with other families (:func:`sorted_projection`). With ``tails``, thresholds also at the
    pooled ``tail_quantiles`` (default :data:`TAIL_QUANTILES`) and their complements: on a
    likelihood-ratio statistic the most lopsided events (Neyman and Pearson's best tests at the
    smallest sizes) lie in its tails, beyond the grid's first and last points.
    """
    # NaN projections (unseen codes, inf - inf) belong to no threshold event
    group_x, group_xp = (None, None) if groups is None else groups
    sx, sxp = sorted_projection(group_x, name, px), sorted_projection(group_xp, name, pxp)
    grids = sorted_grids(sx, sxp, THRESHOLD_POINTS, INTERVAL_POINTS)
    if any(np.any(grid == 0) for grid in grids) and signed_zeros_mixed(px, pxp):
        # a zero on a grid has the sign numpy's own expression gives it (its sort may return one sign
        # for both zeros); any other grid value is the same double whichever sort found it
        grids = pooled_grids(np.concatenate([px, pxp]), THRESHOLD_POINTS, INTERVAL_POINTS)
    if tails:
        grids = [np.union1d(grids[0], _tail_points(px, pxp, sx, sxp, tail_quantiles)), grids[1]]
    return threshold_events(sx, sxp, grids, project, name)


def threshold_events(sx, sxp, grids, project, name: str) -> Candidates:
    """The threshold and interval events at ``grids`` (thresholds, interval ends), counted in the sorted groups."""
    thresholds, ends = grids
    events, cx, cxp = [], [], []

    def below(sorted_values, t):
        return np.searchsorted(sorted_values, t, side="left")

    if thresholds.size:
        bx, bxp = below(sx, thresholds), below(sxp, thresholds)
        for t in thresholds:
            events.append(Event(f"{name} >= {format_threshold(t)}", "threshold", AtLeast(project, float(t))))
        for t in thresholds:
            events.append(Event(f"{name} < {format_threshold(t)}", "threshold", Below(project, float(t))))
        cx += [len(sx) - bx, bx]
        cxp += [len(sxp) - bxp, bxp]
    if ends.size >= 3:
        i, j = np.triu_indices(ends.size, k=2)
        lo, hi = ends[i], ends[j]
        cx.append(below(sx, hi) - below(sx, lo))
        cxp.append(below(sxp, hi) - below(sxp, lo))
        for a, b in zip(lo, hi):
            text = f"{name} in [{format_threshold(a)}, {format_threshold(b)})"
            events.append(Event(text, "interval", Within(project, float(a), float(b))))
    if not events:
        return Candidates.empty()
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp))
