"""Candidate events: the sets S an audit compares P[M(x) in S] and P[M(x') in S] on.

By Neyman-Pearson the most telling events are likelihood-ratio level sets
(DP-Sniper); on discrete outputs they are estimated directly from counts, on
real outputs approximated by thresholds and intervals on a few projections
(StatDP). Each *family* is a function

    family(encoded_x, encoded_x_prime, outputs) -> Candidates

computing every candidate's counts on the selection samples at once.
``encoded_*`` are the selection samples encoded by the audit's
:class:`~dpverify.pipeline.outputs.OutputCodec` (codes, -1 for none here, or an (n, d)
float array) and ``outputs`` is that codec (for labels and numeric values).
Register further families with :func:`register_event_family`.

An event is *frozen* once chosen: its ``indicator`` maps encoded outputs
(encoded by the same codec, ``-1`` for values the selection samples never
showed) to membership. Certification ships it to the workers that draw the
fresh samples, so indicators must be picklable: the built-in families use the
small classes below (:class:`CodeSet`, :class:`AtLeast`, ...) rather than
closures. A third-party family returning closures works in-process and on
Dask (which pickles with cloudpickle), not on a process pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import InvalidParameterError
from ..support import arrays

__all__ = [
    "Event",
    "Candidates",
    "register_event_family",
    "registered_families",
    "family_role",
    "families_of_role",
    "event_families",
    "candidate_events",
    "CodeBook",
    "relabel",
    "CodeSet",
    "AtLeast",
    "Below",
    "Within",
    "Composed",
]

#: Quantile points per projection for threshold events, and for interval events.
THRESHOLD_POINTS = 32
INTERVAL_POINTS = 12
#: Real outputs with at most this many distinct values also get discrete events.
MAX_DISCRETE_VALUES = 1024
#: Caps on the number of singleton and level-set events (per direction).
MAX_SINGLETONS = 256
MAX_LEVEL_SETS = 512


@dataclass(frozen=True)
class Event:
    """An output event S, applicable to encoded outputs of the same code book.

    Attributes
    ----------
    description : str
        Readable description, e.g. ``"output >= 0.52"``.
    family : str
        The family that proposed it (``"singleton"``, ``"level-set"``,
        ``"threshold"``, ``"interval"``, ...).
    indicator : callable
        ``indicator(encoded_group) -> bool array`` (membership per output);
        picklable for certification on other processes.
    role : {"value", "implementation"}
        The role declared by the registered family that proposed it
        (:func:`register_event_family`); set by :func:`candidate_events`.
    """

    description: str
    family: str
    indicator: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)
    role: str = field(default="value", compare=False)

    def count(self, group: np.ndarray) -> int:
        return int(np.count_nonzero(self.indicator(group)))


@dataclass
class Candidates:
    """Events of one family and their counts on the selection samples.

    Counts may be fractional where a family estimates them on a subsample and
    rescales (they only rank candidates; certification counts afresh).
    """

    events: list
    counts_x: np.ndarray
    counts_x_prime: np.ndarray
    #: Families that proposed nothing, with the reason (reported in audit results).
    skipped: dict = field(default_factory=dict)

    @staticmethod
    def empty(reason: str | None = None) -> Candidates:
        found = Candidates([], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        if reason:
            found.skipped["_"] = reason
        return found


_FAMILIES: dict[str, tuple[str, Callable]] = {}
#: Families called with the keyword ``inputs=(x, x_prime)`` (the audited pair).
_USES_INPUTS: set[str] = set()
#: The role of each family: ``"value"`` or ``"implementation"`` (see :data:`ROLES`).
_ROLES: dict[str, str] = {}
#: What a family's events look at: the output values, or an artefact of their representation.
ROLES = ("value", "implementation")


def register_event_family(
    name: str, kind: str, family: Callable, *, uses_inputs: bool = False, role: str = "value"
) -> None:
    """Register ``family`` for outputs of ``kind`` (``"discrete"``, ``"real"`` or ``"any"``).

    With ``uses_inputs=True`` the family is also passed ``inputs=(x, x_prime)``
    (``None`` when the caller does not know them); events may depend on the
    inputs because they are fixed before any sample is drawn.

    ``role`` says what the family's events look at: ``"value"`` (the output
    values: an ideal mechanism computed in exact arithmetic has the same
    verdict) or ``"implementation"`` (an artefact of how outputs are
    represented, such as the low-order bits of floating-point numbers). An
    audit decided by an implementation event also reports the verdict of the
    value events on the same samples (:class:`dpverify.ValueVerdict`), and
    ``float_events=False`` leaves implementation families out.
    """
    if role not in ROLES:
        raise InvalidParameterError(f"role must be one of {ROLES}, got {role!r}")
    _FAMILIES[name] = (kind, family)
    _ROLES[name] = role
    if uses_inputs:
        _USES_INPUTS.add(name)
    else:
        _USES_INPUTS.discard(name)


def registered_families() -> list[str]:
    """The names of all registered families, in registration order."""
    return list(_FAMILIES)


def family_role(name: str) -> str:
    """The role a registered family declared (``"value"`` or ``"implementation"``)."""
    return _ROLES[name]


def families_of_role(role: str) -> tuple[str, ...]:
    """The registered families of ``role``, in registration order."""
    return tuple(name for name in _FAMILIES if _ROLES[name] == role)


def event_families(kind: str) -> dict[str, Callable]:
    """The registered families that apply to outputs of ``kind``."""
    return {n: f for n, (k, f) in _FAMILIES.items() if k in (kind, "any")}


def candidate_events(sel_x, sel_x_prime, outputs, families=None, inputs=None) -> Candidates:
    """All candidate events of the applicable families, with their selection counts.

    ``inputs`` is the audited pair ``(x, x_prime)`` (or None), handed to the
    families registered with ``uses_inputs=True``.
    """
    chosen = event_families(outputs.kind)
    skipped = {}
    if families is not None:
        unknown = set(families) - set(_FAMILIES)
        if unknown:
            raise InvalidParameterError(f"unknown event families {sorted(unknown)}; registered: {sorted(_FAMILIES)}")
        skipped = {
            name: f"applies to {_FAMILIES[name][0]} outputs, these are {outputs.kind}"
            for name in families
            if name not in chosen
        }
        chosen = {n: chosen[n] for n in families if n in chosen}
    events, cx, cxp = [], [], []
    for name, family in chosen.items():
        if name in _USES_INPUTS:
            found = family(sel_x, sel_x_prime, outputs, inputs=inputs)
        else:
            found = family(sel_x, sel_x_prime, outputs)
        if not found.events:
            if "_" in found.skipped:  # families say why when the reason helps the reader
                skipped[name] = found.skipped["_"]
            continue
        role = _ROLES[name]
        events.extend(e if e.role == role else replace(e, role=role) for e in found.events)
        cx.append(np.asarray(found.counts_x, dtype=float))
        cxp.append(np.asarray(found.counts_x_prime, dtype=float))
    if not events:
        return Candidates([], np.zeros(0), np.zeros(0), skipped)
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp), skipped)


# --------------------------------------------------------------------------
# picklable indicators
# --------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class _CodeLookup:
    """``table[code]`` per code, with a final sentinel entry that code -1 (unseen) reads."""

    table: np.ndarray
    array_ready = True

    def __call__(self, group) -> np.ndarray:
        return self.table[np.asarray(group, dtype=np.int64)]

    def on(self, group, xp):
        """The lookup on an array of another library."""
        table = arrays.asarray_like(self.table, group, xp)
        return xp.take(table, xp.where(group < 0, len(self.table) - 1, group))


class CodeSet(_CodeLookup):
    """Membership of integer codes in a set; code -1 (a value selection never saw) is never in it."""

    @classmethod
    def of(cls, codes, n_codes: int) -> CodeSet:
        table = np.zeros(int(n_codes) + 1, dtype=bool)
        table[np.asarray(codes, dtype=np.int64)] = True
        return cls(table)


@dataclass(frozen=True, eq=False)
class Coordinate:
    """Projection of (n, d) real outputs on coordinate ``index``."""

    index: int
    array_ready = True

    def __call__(self, group):
        return group[:, self.index]

    def on(self, group, xp):
        return group[:, self.index]


@dataclass(frozen=True, eq=False)
class Total:
    """Sum of the coordinates of (n, d) real outputs."""

    array_ready = True

    def __call__(self, group):
        with np.errstate(invalid="ignore", over="ignore"):
            return group.sum(axis=1)

    def on(self, group, xp):
        return xp.sum(group, axis=1)


@dataclass(frozen=True, eq=False)
class Largest:
    """Largest coordinate of (n, d) real outputs."""

    array_ready = True

    def __call__(self, group):
        return group.max(axis=1)

    def on(self, group, xp):
        return xp.max(group, axis=1)


@dataclass(frozen=True, eq=False)
class Linear:
    """``group @ weights`` for (n, d) real outputs."""

    weights: np.ndarray
    array_ready = True

    def __call__(self, group):
        with np.errstate(invalid="ignore", over="ignore"):
            return group @ self.weights

    def on(self, group, xp):
        return group @ arrays.asarray_like(self.weights, group, xp)


class CodeValue(_CodeLookup):
    """The numeric value of discrete codes; NaN for code -1, which then meets no threshold."""

    @classmethod
    def of(cls, numeric) -> CodeValue:
        return cls(np.append(np.asarray(numeric, dtype=float), np.nan))


@dataclass(frozen=True, eq=False)
class AtLeast:
    """``projection(o) >= threshold``."""

    projection: Callable
    threshold: float

    def __call__(self, group):
        return self.projection(group) >= self.threshold

    @property
    def array_ready(self) -> bool:
        return getattr(self.projection, "array_ready", False)

    def on(self, group, xp):
        return self.projection.on(group, xp) >= self.threshold


@dataclass(frozen=True, eq=False)
class Below:
    """``projection(o) < threshold``."""

    projection: Callable
    threshold: float

    def __call__(self, group):
        return self.projection(group) < self.threshold

    @property
    def array_ready(self) -> bool:
        return getattr(self.projection, "array_ready", False)

    def on(self, group, xp):
        return self.projection.on(group, xp) < self.threshold


@dataclass(frozen=True, eq=False)
class Within:
    """``low <= projection(o) < high``."""

    projection: Callable
    low: float
    high: float

    def __call__(self, group):
        v = self.projection(group)
        return (v >= self.low) & (v < self.high)

    @property
    def array_ready(self) -> bool:
        return getattr(self.projection, "array_ready", False)

    def on(self, group, xp):
        v = self.projection.on(group, xp)
        return (v >= self.low) & (v < self.high)


@dataclass(frozen=True, eq=False)
class Composed:
    """``inner(encoder(group))``: an event over codes that a family derives from outputs."""

    encoder: Callable
    inner: Callable

    def __call__(self, group):
        return self.inner(self.encoder(group))

    @property
    def array_ready(self) -> bool:
        return getattr(self.encoder, "array_ready", False) and getattr(self.inner, "array_ready", False)

    def on(self, group, xp):
        return self.inner.on(self.encoder.on(group, xp), xp)


def relabel(parts: Candidates, encoder, family: str, what: str) -> Candidates:
    """Wrap events over derived codes (``encoder(group)``) as events on the audit's outputs."""
    parts.events = [
        Event(e.description.replace("output in", f"{what} in"), family, Composed(encoder, e.indicator))
        for e in parts.events
    ]
    return parts


# --------------------------------------------------------------------------
# discrete outputs
# --------------------------------------------------------------------------


def _label_text(labels, codes, limit: int = 6) -> str:
    shown = ", ".join(repr(labels[c]) for c in codes[:limit])
    more = f", ... ({len(codes)} values)" if len(codes) > limit else ""
    return "{" + shown + more + "}"


def _counts(group, k: int) -> np.ndarray:
    """Counts of codes 0..k-1 in ``group`` (code -1 is not counted)."""
    group = np.asarray(group, dtype=np.int64)
    if group.size and group.min() < 0:
        group = group[group >= 0]
    return np.bincount(group, minlength=k)[:k]


def singleton_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Every single output seen in the selection samples (StatDP's small-output events)."""
    k = len(outputs.labels)
    a = _counts(sel_x, k)
    b = _counts(sel_x_prime, k)
    seen = np.flatnonzero(a + b)
    if seen.size > MAX_SINGLETONS:
        seen = np.sort(seen[np.argsort(-(a + b)[seen], kind="stable")[:MAX_SINGLETONS]])
    events = [Event(f"output == {outputs.labels[c]!r}", "singleton", CodeSet.of([c], k)) for c in seen]
    return Candidates(events, a[seen], b[seen])


def _prefix_sizes(k: int) -> np.ndarray:
    """Prefix sizes 1..k-1, thinned to a geometric grid when there are many outputs."""
    if k - 1 <= MAX_LEVEL_SETS:
        return np.arange(1, k)
    return np.unique(np.geomspace(1, k - 1, MAX_LEVEL_SETS).astype(np.int64))


def level_set_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Estimated likelihood-ratio level sets (Neyman-Pearson events, DP-Sniper).

    Outputs are ranked by ``(a + 1/2)/(b + 1/2)`` on the first half of the
    selection samples; for each k, the k outputs most in favour of x, and the
    k most in favour of x', are counted on the second half (counts doubled to
    the selection scale). Ranking and counting on disjoint halves keeps the
    scores of large level sets honest when there are many rare outputs, whose
    estimated ratios are mostly noise. Ties in the ratio are broken by code,
    and codes depend on the selection samples only.
    """
    k = len(outputs.labels)
    hx, hxp = len(sel_x) // 2, len(sel_x_prime) // 2
    if min(hx, hxp) < 1:
        return Candidates.empty()
    a_rank = _counts(sel_x[:hx], k)
    b_rank = _counts(sel_x_prime[:hxp], k)
    a = _counts(sel_x[hx:], k) * (len(sel_x) / (len(sel_x) - hx))
    b = _counts(sel_x_prime[hxp:], k) * (len(sel_x_prime) / (len(sel_x_prime) - hxp))
    seen = np.flatnonzero(a_rank + b_rank)
    if len(seen) < 2:
        return Candidates.empty("fewer than two distinct outputs in the selection samples")
    ratio = np.log(a_rank[seen] + 0.5) - np.log(b_rank[seen] + 0.5)
    order = seen[np.argsort(-ratio, kind="stable")]
    events, cx, cxp = [], [], []
    for ranked, label in ((order, "x"), (order[::-1], "x_prime")):
        sizes = _prefix_sizes(len(ranked))
        ca = np.cumsum(a[ranked])[sizes - 1]
        cb = np.cumsum(b[ranked])[sizes - 1]
        for size in sizes:
            codes = ranked[:size]
            events.append(
                Event(
                    f"output in {_label_text(outputs.labels, codes)} "
                    f"(the {size} most likely under {label} relative to the other input)",
                    "level-set",
                    CodeSet.of(codes, k),
                )
            )
        cx.append(ca)
        cxp.append(cb)
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp))


def numeric_discrete_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on the value of numeric discrete outputs.

    A value the selection samples never showed has no code, and meets no
    threshold (it counts in neither ``v >= t`` nor ``v < t``).
    """
    if outputs.numeric is None:
        return Candidates.empty("the outputs are not numbers")
    project = CodeValue.of(outputs.numeric)
    values = project.table[:-1]
    counts = [_counts(group, len(values)) for group in (sel_x, sel_x_prime)]
    if signed_zeros_mixed(values[(counts[0] + counts[1]) > 0]):
        return _threshold_candidates(project(sel_x), project(sel_x_prime), project, "output")
    # each group's values sorted, from its code counts: what sorting project(group) without NaN gives
    order = np.argsort(values, kind="stable")
    order = order[~np.isnan(values[order])]
    sx, sxp = (np.repeat(values[order], c[order]) for c in counts)
    return _threshold_events(sx, sxp, _sorted_grids(sx, sxp, THRESHOLD_POINTS, INTERVAL_POINTS), project, "output")


# --------------------------------------------------------------------------
# real outputs
# --------------------------------------------------------------------------


def _grids(values: np.ndarray, *points: int) -> list[np.ndarray]:
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
        bits = np.asarray(part, dtype=np.float64).view(np.uint64)
        negative = negative or bool(np.any(bits == np.uint64(1 << 63)))
        positive = positive or bool(np.any(bits == np.uint64(0)))
    return negative and positive


def _distinct_up_to(sorted_values: np.ndarray, limit: int) -> np.ndarray | None:
    """The distinct values of a sorted array, or None when there are more than ``limit``."""
    if sorted_values.size == 0:
        return sorted_values
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


def _sorted_grids(sx, sxp, *points: int) -> list[np.ndarray]:
    """:func:`_grids` of the pooled values, from each group sorted without NaN.

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


def _fmt(t: float) -> str:
    return f"{t:.6g}"


def _threshold_candidates(px, pxp, project, name: str) -> Candidates:
    """Events {v >= t}, {v < t} and [lo, hi) on a projection ``v = project(group)``."""
    # NaN projections (unseen codes, inf - inf) belong to no threshold event; the selected copies are sorted in place
    sx, sxp = px[~np.isnan(px)], pxp[~np.isnan(pxp)]
    sx.sort()
    sxp.sort()
    if signed_zeros_mixed(px, pxp):  # numpy's own expression: its sort may return one sign for both zeros
        grids = _grids(np.concatenate([px, pxp]), THRESHOLD_POINTS, INTERVAL_POINTS)
    else:
        grids = _sorted_grids(sx, sxp, THRESHOLD_POINTS, INTERVAL_POINTS)
    return _threshold_events(sx, sxp, grids, project, name)


def _threshold_events(sx, sxp, grids, project, name: str) -> Candidates:
    """The threshold and interval events at ``grids`` (thresholds, interval ends), counted in the sorted groups."""
    thresholds, ends = grids
    events, cx, cxp = [], [], []

    def below(sorted_values, t):
        return np.searchsorted(sorted_values, t, side="left")

    if thresholds.size:
        bx, bxp = below(sx, thresholds), below(sxp, thresholds)
        for t in thresholds:
            events.append(Event(f"{name} >= {_fmt(t)}", "threshold", AtLeast(project, float(t))))
        for t in thresholds:
            events.append(Event(f"{name} < {_fmt(t)}", "threshold", Below(project, float(t))))
        cx += [len(sx) - bx, bx]
        cxp += [len(sxp) - bxp, bxp]
    if ends.size >= 3:
        i, j = np.triu_indices(ends.size, k=2)
        lo, hi = ends[i], ends[j]
        cx.append(below(sx, hi) - below(sx, lo))
        cxp.append(below(sxp, hi) - below(sxp, lo))
        for a, b in zip(lo, hi):
            events.append(Event(f"{name} in [{_fmt(a)}, {_fmt(b)})", "interval", Within(project, float(a), float(b))))
    if not events:
        return Candidates.empty()
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp))


#: Elements clipped at once by :func:`_finite_mean` (its memory is one block, not a copy of the outputs).
MEAN_BLOCK_ELEMENTS = 1 << 20


def _finite_mean(group: np.ndarray) -> np.ndarray:
    """Mean of the rows clipped to +-1e150 (inf and huge outputs must not poison the direction).

    Block by block, adding rows in order as ``clip(group).mean(axis=0)`` does (the same
    bits), without the clipped copy of the whole selection sample.
    """
    total = np.zeros(group.shape[1])
    rows = max(1, MEAN_BLOCK_ELEMENTS // max(1, group.shape[1]))
    for start in range(0, len(group), rows):
        block = np.clip(group[start : start + rows], -1e150, 1e150)
        total = np.add.reduce(np.vstack([total[None, :], block]), axis=0)
    return total / len(group)


def _fixed_projections(d: int) -> list:
    """The projections of ``d``-vectors that do not depend on the samples: coordinates (up to 16), sum, max."""
    out = [(f"output[{i}]", Coordinate(i)) for i in range(min(d, 16))]
    out.append(("sum(output)", Total()))
    out.append(("max(output)", Largest()))
    return out


def _projections(sel_x, sel_x_prime):
    """Projections of real vectors: each coordinate (up to 16), sum, max, mean difference."""
    d = sel_x.shape[1]
    if d == 1:
        return [("output", Coordinate(0))]
    out = _fixed_projections(d)
    direction = np.nan_to_num(_finite_mean(sel_x) - _finite_mean(sel_x_prime))
    norm = np.linalg.norm(direction)
    if np.isfinite(norm) and norm > 0:
        w = direction / norm
        text = "(" + ", ".join(f"{v:.3g}" for v in w[:4]) + (", ..." if d > 4 else "") + ")"
        out.append((f"<output, {text}>", Linear(w)))
    return out


def real_threshold_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on coordinates and simple projections of real outputs."""
    parts = [
        _threshold_candidates(project(sel_x), project(sel_x_prime), project, name)
        for name, project in _projections(sel_x, sel_x_prime)
    ]
    return _concat(parts)


#: Outputs of M(x) whose distinct values :func:`real_value_events` counts first: continuous outputs
#: show more than MAX_DISCRETE_VALUES among them, and the sort of all selection outputs is skipped.
DISTINCT_PROBE = 4 * MAX_DISCRETE_VALUES


@dataclass(frozen=True, eq=False)
class ExactValue:
    """Code of a scalar real output among ``values`` (sorted), -1 when it is none of them."""

    values: np.ndarray

    def __call__(self, group):
        v = group[:, 0]
        idx = np.clip(np.searchsorted(self.values, v), 0, len(self.values) - 1)
        return np.where(self.values[idx] == v, idx, -1)

    array_ready = True

    def on(self, group, xp):
        values = arrays.asarray_like(self.values, group, xp)
        v = group[:, 0]
        idx = xp.minimum(xp.searchsorted(values, v), len(self.values) - 1)
        return xp.where(xp.take(values, idx) == v, idx, -1)


def real_value_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Discrete events on exact values, for scalar real outputs with few distinct values."""
    if sel_x.shape[1] != 1:
        return Candidates.empty()
    many = f"the outputs take more than {MAX_DISCRETE_VALUES} values or never repeat"
    if np.unique(sel_x[:DISTINCT_PROBE, 0]).size > MAX_DISCRETE_VALUES:  # a subset has too many already
        return Candidates.empty(many)
    pooled = np.concatenate([sel_x[:, 0], sel_x_prime[:, 0]])
    values = np.unique(pooled)
    if values.size > MAX_DISCRETE_VALUES or values.size == pooled.size:
        return Candidates.empty(many)
    encode = ExactValue(values)
    view = CodeBook([float(v) for v in values])
    parts = [family(encode(sel_x), encode(sel_x_prime), view) for family in (singleton_events, level_set_events)]
    merged = _concat(parts)
    merged.events = [Event(e.description, e.family, Composed(encode, e.indicator)) for e in merged.events]
    return merged


@dataclass(frozen=True, eq=False)
class RowValues:
    """The integer row of each code as floats (NaN for code -1): (n,) codes -> (n, d) values."""

    table: np.ndarray  # one row per code, a NaN row appended

    @classmethod
    def of(cls, rows) -> RowValues:
        rows = np.asarray(rows, dtype=float)
        return cls(np.vstack([rows, np.full((1, rows.shape[1]), np.nan)]))

    def __call__(self, group):
        return self.table[np.asarray(group, dtype=np.int64)]


def row_threshold_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on coordinates and projections of integer-vector outputs.

    Histograms and counters release integer vectors with far more distinct
    rows than samples; level sets over whole rows then see each row about
    once, while ``count[i] >= t`` sees them all. The projections are those of
    real vectors (:func:`real_threshold_events`); a row the selection samples
    never showed meets no threshold.
    """
    rows = getattr(outputs.labels, "rows", None)
    if rows is None or rows.ndim != 2 or rows.shape[1] < 1:
        return Candidates.empty()  # not integer vectors: nothing to say
    table = np.asarray(rows, dtype=float)
    parts = []
    for name, project in _row_projections(table, sel_x, sel_x_prime):
        lookup = CodeValue.of(project(table))  # each code's projection: no (n, d) array of the selection rows
        parts.append(_threshold_candidates(lookup(sel_x), lookup(sel_x_prime), lookup, name))
    return _concat(parts)


def _row_projections(table: np.ndarray, codes_x, codes_x_prime):
    """:func:`_projections` of the rows ``table[codes]``, computed from the code book and code counts.

    The mean difference direction is ``sum_c (n_x(c) / n_x - n_x'(c) / n_x') row_c``: the
    selection rows are never expanded to an (n, d) array (their memory is the code book's).
    """
    d = table.shape[1]
    if d == 1:
        return [("output", Coordinate(0))]
    out = _fixed_projections(d)
    k = len(table)
    share_x = np.bincount(codes_x[codes_x >= 0], minlength=k) / max(1, len(codes_x))
    share_xp = np.bincount(codes_x_prime[codes_x_prime >= 0], minlength=k) / max(1, len(codes_x_prime))
    direction = np.nan_to_num((share_x - share_xp) @ np.clip(table, -1e150, 1e150))
    norm = np.linalg.norm(direction)
    if np.isfinite(norm) and norm > 0:
        w = direction / norm
        text = "(" + ", ".join(f"{v:.3g}" for v in w[:4]) + (", ..." if d > 4 else "") + ")"
        out.append((f"<output, {text}>", Linear(w)))
    return out


@dataclass(frozen=True)
class CodeBook:
    """A code book of its own for a family whose events look at derived codes (a mantissa
    code, a reachability cell, an exact real value) instead of the audit's output codes:
    ``labels[c]`` describes code ``c``; :func:`relabel` maps such events back."""

    labels: list
    numeric: np.ndarray | None = None
    kind: str = "discrete"


def _concat(parts) -> Candidates:
    parts = [p for p in parts if p.events]
    if not parts:
        return Candidates.empty()
    return Candidates(
        [e for p in parts for e in p.events],
        np.concatenate([p.counts_x for p in parts]),
        np.concatenate([p.counts_x_prime for p in parts]),
    )


register_event_family("singleton", "discrete", singleton_events)
register_event_family("level-set", "discrete", level_set_events)
register_event_family("numeric-threshold", "discrete", numeric_discrete_events)
register_event_family("row-threshold", "discrete", row_threshold_events)
register_event_family("threshold", "real", real_threshold_events)
register_event_family("real-value", "real", real_value_events)
