"""Candidate events: the sets S an audit compares P[M(x) in S] and P[M(x') in S] on.

By Neyman-Pearson the most telling events are likelihood-ratio level sets
(DP-Sniper); on discrete outputs they are estimated directly from counts, on
real outputs approximated by thresholds and intervals on a few projections
(StatDP). Each *family* is a function

    family(encoded_x, encoded_x_prime, outputs) -> Candidates

computing every candidate's counts on the selection samples at once.
``encoded_*`` are the selection groups of an :class:`~dpverify.outputs.EncodedOutputs`
(codes, or an (n, d) float array), ``outputs`` the EncodedOutputs itself (for
labels). Register further families with :func:`register_event_family`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .errors import InvalidParameterError

__all__ = [
    "Event",
    "Candidates",
    "register_event_family",
    "event_families",
    "candidate_events",
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
        ``indicator(encoded_group) -> bool array`` (membership per output).
    """

    description: str
    family: str
    indicator: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)

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

    @staticmethod
    def empty() -> "Candidates":
        return Candidates([], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


_FAMILIES: dict[str, tuple[str, Callable]] = {}
#: Families called with the keyword ``inputs=(x, x_prime)`` (the audited pair).
_USES_INPUTS: set[str] = set()


def register_event_family(name: str, kind: str, family: Callable, *, uses_inputs: bool = False) -> None:
    """Register ``family`` for outputs of ``kind`` (``"discrete"``, ``"real"`` or ``"any"``).

    With ``uses_inputs=True`` the family is also passed ``inputs=(x, x_prime)``
    (``None`` when the caller does not know them); events may depend on the
    inputs because they are fixed before any sample is drawn.
    """
    _FAMILIES[name] = (kind, family)
    if uses_inputs:
        _USES_INPUTS.add(name)
    else:
        _USES_INPUTS.discard(name)


def event_families(kind: str) -> dict[str, Callable]:
    """The registered families that apply to outputs of ``kind``."""
    return {n: f for n, (k, f) in _FAMILIES.items() if k in (kind, "any")}


def candidate_events(sel_x, sel_x_prime, outputs, families=None, inputs=None) -> Candidates:
    """All candidate events of the applicable families, with their selection counts.

    ``inputs`` is the audited pair ``(x, x_prime)`` (or None), handed to the
    families registered with ``uses_inputs=True``.
    """
    chosen = event_families(outputs.kind)
    if families is not None:
        unknown = set(families) - set(_FAMILIES)
        if unknown:
            raise InvalidParameterError(
                f"unknown event families {sorted(unknown)}; registered: {sorted(_FAMILIES)}"
            )
        # families registered for another kind of output simply do not apply
        chosen = {n: chosen[n] for n in families if n in chosen}
    events, cx, cxp = [], [], []
    for name, family in chosen.items():
        if name in _USES_INPUTS:
            found = family(sel_x, sel_x_prime, outputs, inputs=inputs)
        else:
            found = family(sel_x, sel_x_prime, outputs)
        events.extend(found.events)
        cx.append(np.asarray(found.counts_x, dtype=float))
        cxp.append(np.asarray(found.counts_x_prime, dtype=float))
    if not events:
        return Candidates.empty()
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp))


# --------------------------------------------------------------------------
# discrete outputs
# --------------------------------------------------------------------------


def _label_text(labels, codes, limit: int = 6) -> str:
    shown = ", ".join(repr(labels[c]) for c in codes[:limit])
    more = f", ... ({len(codes)} values)" if len(codes) > limit else ""
    return "{" + shown + more + "}"


def _code_set_indicator(codes: np.ndarray):
    codes = np.asarray(codes, dtype=np.int64)

    def indicator(group: np.ndarray) -> np.ndarray:
        return np.isin(group, codes)

    return indicator


def singleton_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Every single output seen in the selection samples (StatDP's small-output events)."""
    k = len(outputs.labels)
    a = np.bincount(sel_x, minlength=k)
    b = np.bincount(sel_x_prime, minlength=k)
    seen = np.flatnonzero(a + b)
    if seen.size > MAX_SINGLETONS:
        seen = np.sort(seen[np.argsort(-(a + b)[seen], kind="stable")[:MAX_SINGLETONS]])
    events = [
        Event(f"output == {outputs.labels[c]!r}", "singleton", _code_set_indicator([c])) for c in seen
    ]
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
    estimated ratios are mostly noise.
    """
    k = len(outputs.labels)
    hx, hxp = len(sel_x) // 2, len(sel_x_prime) // 2
    if min(hx, hxp) < 1:
        return Candidates.empty()
    a_rank = np.bincount(sel_x[:hx], minlength=k)
    b_rank = np.bincount(sel_x_prime[:hxp], minlength=k)
    a = np.bincount(sel_x[hx:], minlength=k) * (len(sel_x) / (len(sel_x) - hx))
    b = np.bincount(sel_x_prime[hxp:], minlength=k) * (len(sel_x_prime) / (len(sel_x_prime) - hxp))
    seen = np.flatnonzero(a_rank + b_rank)
    if len(seen) < 2:
        return Candidates.empty()
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
                    _code_set_indicator(codes),
                )
            )
        cx.append(ca)
        cxp.append(cb)
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp))


def numeric_discrete_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on the value of numeric discrete outputs."""
    if outputs.numeric is None:
        return Candidates.empty()
    vx = outputs.numeric[sel_x][:, None]
    vxp = outputs.numeric[sel_x_prime][:, None]
    numeric = outputs.numeric

    def project(group):
        return numeric[group]

    return _threshold_candidates(vx[:, 0], vxp[:, 0], project, "output")


# --------------------------------------------------------------------------
# real outputs
# --------------------------------------------------------------------------


def _grid(values: np.ndarray, points: int) -> np.ndarray:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return np.zeros(0)
    unique = np.unique(finite)
    if unique.size <= points:
        return unique
    return np.unique(np.quantile(finite, np.linspace(0, 1, points + 2)[1:-1], method="nearest"))


def _fmt(t: float) -> str:
    return f"{t:.6g}"


def _threshold_candidates(px, pxp, project, name: str) -> Candidates:
    """Events {v >= t}, {v < t} and [lo, hi) on a projection ``v = project(group)``."""
    pooled = np.concatenate([px, pxp])
    thresholds = _grid(pooled, THRESHOLD_POINTS)
    sx, sxp = np.sort(px), np.sort(pxp)
    events, cx, cxp = [], [], []

    def below(sorted_values, t):
        return np.searchsorted(sorted_values, t, side="left")

    if thresholds.size:
        bx, bxp = below(sx, thresholds), below(sxp, thresholds)
        for t in thresholds:
            events.append(Event(f"{name} >= {_fmt(t)}", "threshold", _ge(project, t)))
        for t in thresholds:
            events.append(Event(f"{name} < {_fmt(t)}", "threshold", _lt(project, t)))
        cx += [len(sx) - bx, bx]
        cxp += [len(sxp) - bxp, bxp]
    ends = _grid(pooled, INTERVAL_POINTS)
    if ends.size >= 3:
        i, j = np.triu_indices(ends.size, k=2)
        lo, hi = ends[i], ends[j]
        cx.append(below(sx, hi) - below(sx, lo))
        cxp.append(below(sxp, hi) - below(sxp, lo))
        for a, b in zip(lo, hi):
            events.append(Event(f"{name} in [{_fmt(a)}, {_fmt(b)})", "interval", _between(project, a, b)))
    if not events:
        return Candidates.empty()
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp))


def _ge(project, t):
    return lambda group: project(group) >= t


def _lt(project, t):
    return lambda group: project(group) < t


def _between(project, a, b):
    def indicator(group):
        v = project(group)
        return (v >= a) & (v < b)

    return indicator


def _projections(sel_x, sel_x_prime):
    """Projections of real vectors: each coordinate (up to 16), sum, max, mean difference."""
    d = sel_x.shape[1]
    if d == 1:
        return [("output", lambda g: g[:, 0])]
    out = [(f"output[{i}]", (lambda i: lambda g: g[:, i])(i)) for i in range(min(d, 16))]
    out.append(("sum(output)", lambda g: g.sum(axis=1)))
    out.append(("max(output)", lambda g: g.max(axis=1)))
    direction = np.nan_to_num(sel_x.mean(axis=0) - sel_x_prime.mean(axis=0))
    norm = np.linalg.norm(direction)
    if norm > 0:
        w = direction / norm
        text = "(" + ", ".join(f"{v:.3g}" for v in w[:4]) + (", ..." if d > 4 else "") + ")"
        out.append((f"<output, {text}>", lambda g: g @ w))
    return out


def real_threshold_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on coordinates and simple projections of real outputs."""
    parts = [
        _threshold_candidates(project(sel_x), project(sel_x_prime), project, name)
        for name, project in _projections(sel_x, sel_x_prime)
    ]
    return _concat(parts)


def real_value_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Discrete events on exact values, for scalar real outputs with few distinct values."""
    if sel_x.shape[1] != 1:
        return Candidates.empty()
    pooled = np.concatenate([sel_x[:, 0], sel_x_prime[:, 0]])
    values = np.unique(pooled)
    if values.size > MAX_DISCRETE_VALUES or values.size == pooled.size:
        return Candidates.empty()

    def encode(group):
        v = group[:, 0]
        idx = np.clip(np.searchsorted(values, v), 0, len(values) - 1)
        return np.where(values[idx] == v, idx, -1)

    labels = [float(v) for v in values]
    view = _CodeBook(labels)
    parts = [
        family(encode(sel_x), encode(sel_x_prime), view) for family in (singleton_events, level_set_events)
    ]
    merged = _concat(parts)
    merged.events = [
        Event(e.description, e.family, (lambda ind: lambda g: ind(encode(g)))(e.indicator))
        for e in merged.events
    ]
    return merged


@dataclass(frozen=True)
class _CodeBook:
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
register_event_family("threshold", "real", real_threshold_events)
register_event_family("real-value", "real", real_value_events)
