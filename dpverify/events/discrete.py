"""Event families of discrete outputs: singletons, likelihood-ratio level sets, thresholds on numbers and rows.

Each family is ``family(codes_x, codes_x_prime, outputs) -> Candidates`` on the
selection samples encoded by the audit's code book (code -1: a value the
selection samples never showed). Level sets are the Neyman-Pearson events
(Bichsel et al. 2021, DP-Sniper); singletons and thresholds are StatDP's.

References
----------
B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box
Discovery of Differential Privacy Violations using Classifiers", IEEE S&P 2021.
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

import numpy as np

from .candidates import Candidates, Event, concat
from .indicators import CodeSet, CodeValue
from .projections import LogRatioSum, row_projections
from .thresholds import (
    INTERVAL_POINTS,
    THRESHOLD_POINTS,
    signed_zeros_mixed,
    sorted_grids,
    threshold_candidates,
    threshold_events,
)

__all__ = [
    "MAX_SINGLETONS",
    "MAX_LEVEL_SETS",
    "singleton_events",
    "level_set_events",
    "numeric_discrete_events",
    "row_threshold_events",
]

#: Caps on the number of singleton and level-set events (per direction).
MAX_SINGLETONS = 256
MAX_LEVEL_SETS = 512


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
    halves_x = (_counts(sel_x[:hx], k), _counts(sel_x[hx:], k))
    halves_x_prime = (_counts(sel_x_prime[:hxp], k), _counts(sel_x_prime[hxp:], k))
    return level_sets_of_counts(halves_x, halves_x_prime, len(sel_x), len(sel_x_prime), outputs.labels)


def level_sets_of_counts(halves_x, halves_x_prime, n_x: int, n_x_prime: int, labels) -> Candidates:
    """:func:`level_set_events` from the code counts of each half of each group.

    ``halves_x = (counts of codes 0..k-1 in sel_x[:n_x // 2], in sel_x[n_x // 2:])`` (int64), and
    likewise for x'; ``labels`` describe the k codes. For families that count codes without
    encoding every output (:mod:`dpverify.events._float_kernels`).
    """
    k = len(labels)
    hx, hxp = n_x // 2, n_x_prime // 2
    if min(hx, hxp) < 1:
        return Candidates.empty()
    a_rank, b_rank = halves_x[0], halves_x_prime[0]
    a = halves_x[1] * (n_x / (n_x - hx))
    b = halves_x_prime[1] * (n_x_prime / (n_x_prime - hxp))
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
                    f"output in {_label_text(labels, codes)} "
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
        return threshold_candidates(project(sel_x), project(sel_x_prime), project, "output")
    # each group's values sorted, from its code counts: what sorting project(group) without NaN gives
    order = np.argsort(values, kind="stable")
    order = order[~np.isnan(values[order])]
    sx, sxp = (np.repeat(values[order], c[order]) for c in counts)
    return threshold_events(sx, sxp, sorted_grids(sx, sxp, THRESHOLD_POINTS, INTERVAL_POINTS), project, "output")


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
    for name, project in row_projections(table, sel_x, sel_x_prime):
        lookup = CodeValue.of(project(table))  # each code's projection: no (n, d) array of the selection rows
        tails = isinstance(project, LogRatioSum)
        parts.append(threshold_candidates(lookup(sel_x), lookup(sel_x_prime), lookup, name, tails=tails))
    return concat(parts)
