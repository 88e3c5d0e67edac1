"""Event families of real outputs: thresholds and intervals on projections, and exact values.

Each family is ``family(sel_x, sel_x_prime, outputs) -> Candidates`` on the
selection samples as (n, d) float arrays. Thresholds on a few projections
approximate the likelihood-ratio level sets (StatDP); scalar outputs with few
distinct values also get the discrete families on their exact values.

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

import numpy as np

from .candidates import Candidates, CodeBook, Event, concat
from .discrete import level_set_events, singleton_events
from .indicators import AtLeast, Below, Composed, ExactValue
from .projections import LogRatioSum, vector_projections
from .thresholds import format_threshold, shared_value, sorted_projection, threshold_candidates

__all__ = [
    "MAX_DISCRETE_VALUES",
    "DISTINCT_PROBE",
    "MIN_EDGE_TAIL",
    "EDGE_POINTS",
    "real_threshold_events",
    "real_value_events",
    "support_edge_events",
]

#: Real outputs with at most this many distinct values also get discrete events.
MAX_DISCRETE_VALUES = 1024


def _shared(sel_x, sel_x_prime):
    """The groups whose sorted projection the families share (:func:`.thresholds.shared_sorts`): scalar
    outputs' one projection (two sorted copies of the selection values, which the classifier reads too);
    vectors' many projections are sorted one at a time, so that their memory stays one projection's."""
    return (sel_x, sel_x_prime) if sel_x.shape[1] == 1 else (None, None)


def real_threshold_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on coordinates and simple projections of real outputs (and thresholds in the
    tails of the sum of coordinate log ratios, :func:`.thresholds.threshold_candidates` with ``tails``)."""
    parts = [
        threshold_candidates(
            project(sel_x),
            project(sel_x_prime),
            project,
            name,
            groups=_shared(sel_x, sel_x_prime),
            tails=isinstance(project, LogRatioSum),
        )
        for name, project in _projections(sel_x, sel_x_prime)
    ]
    return concat(parts)


def _projections(sel_x, sel_x_prime) -> list:
    """:func:`.projections.vector_projections` of the selection, fitted once for the threshold and
    support-edge families of one selection (:func:`.thresholds.shared_value`; the same projections)."""
    return shared_value((sel_x, sel_x_prime), "vector projections", lambda: vector_projections(sel_x, sel_x_prime))


#: Outputs of M(x) whose distinct values :func:`real_value_events` counts first: continuous outputs
#: show more than MAX_DISCRETE_VALUES among them, and the sort of all selection outputs is skipped.
DISTINCT_PROBE = 4 * MAX_DISCRETE_VALUES


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
    merged = concat(parts)
    merged.events = [Event(e.description, e.family, Composed(encode, e.indicator)) for e in merged.events]
    return merged


#: A projection proposes support-edge events in a direction only when at least this many selection
#: values of one input lie beyond every value of the other. Two samples of one continuous distribution
#: put ``k`` or more of one beyond all of the other with chance about ``2^-k`` (3% at 5), so on
#: mechanisms whose supports agree the family rarely proposes anything.
MIN_EDGE_TAIL = 5
#: Thresholds per tail: the other input's extreme and evenly spaced order statistics of the tail.
EDGE_POINTS = 8


def _edge_thresholds(tail: np.ndarray, lower: bool) -> np.ndarray:
    """Thresholds in a tail beyond the other input's extreme, tightest first: ``{v < t}`` holds the
    lower tail up to and including evenly spaced order statistics of it (``t`` the next double above
    one), ``{v >= t}`` the upper tail from one on."""
    ranks = np.unique(np.linspace(0, tail.size - 1, EDGE_POINTS).round().astype(np.int64))
    inner = tail[ranks]  # ascending
    return np.nextafter(inner[::-1], np.inf) if lower else inner


def _support_edge(other: np.ndarray, lower: bool) -> float:
    """Where the other input's support is estimated to end, from its sorted selection values: its smallest
    value less the gap to its next distinct value, ``2 X(1) - X(2)`` (Robson and Whitlock 1964; mirrored
    above), or its extreme itself where it shows a single distinct value."""
    if lower:
        extreme, beyond = other[0], other[np.searchsorted(other, other[0], side="right") :]
        step = beyond[0] - extreme if beyond.size else 0.0
        edge = extreme - step
    else:
        extreme, beyond = other[-1], other[: np.searchsorted(other, other[-1], side="left")]
        step = extreme - beyond[-1] if beyond.size else 0.0
        edge = extreme + step
    return float(edge) if np.isfinite(edge) else float(extreme)


def _tail_beyond(a: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """The sorted values of ``a`` beyond the estimated end of ``b``'s support (:func:`_support_edge`); where
    fewer than :data:`MIN_EDGE_TAIL` lie there (a screening round's small sample shows few values at the
    edge), those beyond ``b``'s extreme itself."""
    for edge in (_support_edge(b, lower), b[0] if lower else b[-1]):
        tail = a[: np.searchsorted(a, edge, side="left")] if lower else a[np.searchsorted(a, edge, side="right") :]
        if tail.size >= MIN_EDGE_TAIL:
            break
    return tail


def support_edge_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Events beyond the support of one input's selection values, on each projection (``"support-edge"``).

    Where one input's outputs reach a region the other's never do (report noisy max returning its value
    with one-sided noise: ``max_i (q_i + E_i) >= max_i q_i``, so moving the largest answer up empties the
    region below it), the best event is that region, of probability 0 under the other input and often
    rare under the first. Pooled quantile thresholds (:mod:`.thresholds`) sit at ranks ``1/33, ...``
    and miss it. On each projection and in each direction, when at least :data:`MIN_EDGE_TAIL` values
    of one input lie below the other's estimated support edge (:func:`_support_edge`: its smallest value
    less the gap to its next one; mirrored above), this family proposes the events "at most" (at least)
    each of :data:`EDGE_POINTS` order statistics of that tail, the whole tail first. Its closed end is
    the tail's own extreme, short of the estimated edge: the other input has mass just beyond its
    smallest selection value that no selection sample showed, and each count of it there costs the
    certified bound dearly. (Where fewer than :data:`MIN_EDGE_TAIL` values lie beyond the estimated
    edge, the tail is taken beyond the other's smallest value itself, as a small screening sample needs.)
    On outputs on a grid, a region ending at the other input's smallest selection value would hold that
    input's first grid points beyond it, unseen in selection but not in certification (measured on the
    noisy max returning its value with exponential noise: docs/auditor/benchmarks.md).
    Certification on fresh samples decides what the region really holds.

    References
    ----------
    C. Dwork, A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014, Claim 3.9 (report
    noisy max); Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of Differential
    Privacy", ACM CCS 2018 (noisy max returning its value, a broken variant); D. S. Robson, J. H. Whitlock,
    "Estimation of a truncation point", Biometrika 51(1-2), 1964 (the edge estimate ``2 X(1) - X(2)``).
    """
    events, cx, cxp = [], [], []
    for name, project in _projections(sel_x, sel_x_prime):
        px, pxp = project(sel_x), project(sel_x_prime)
        group_x, group_xp = _shared(sel_x, sel_x_prime)
        sx, sxp = sorted_projection(group_x, name, px), sorted_projection(group_xp, name, pxp)
        if sx.size == 0 or sxp.size == 0:
            continue
        for a, b in ((sx, sxp), (sxp, sx)):
            for lower in (True, False):
                tail = _tail_beyond(a, b, lower)
                if tail.size < MIN_EDGE_TAIL or not np.all(np.isfinite(tail)):
                    continue
                for t in _edge_thresholds(tail, lower):
                    t = float(t)
                    if lower:
                        events.append(Event(f"{name} < {format_threshold(t)}", "support-edge", Below(project, t)))
                        cx.append(np.searchsorted(sx, t, side="left"))
                        cxp.append(np.searchsorted(sxp, t, side="left"))
                    else:
                        events.append(Event(f"{name} >= {format_threshold(t)}", "support-edge", AtLeast(project, t)))
                        cx.append(sx.size - np.searchsorted(sx, t, side="left"))
                        cxp.append(sxp.size - np.searchsorted(sxp, t, side="left"))
    if not events:
        return Candidates.empty()
    return Candidates(events, np.asarray(cx, dtype=np.int64), np.asarray(cxp, dtype=np.int64))
