"""Choosing a partition of the output space into cells, from the selection samples alone.

The first half of an audit of a claim that reads cells (rho-zCDP, Rényi DP;
:mod:`dpverify.claims.kinds`): a *score* maps every output to a number, and the cells are
the intervals between a few quantiles of the pooled selection scores. The candidate
scores are

- for real outputs, the projections the threshold events use (the value; each
  coordinate, the sum, the maximum and the mean-difference direction of a vector), and the
  score the mechanism declares, where it declares one and the ``"declared-score"`` family is
  asked for (:mod:`dpverify.events.declared`: a hint, chosen on like any other score);
- for discrete outputs, the estimated log likelihood ratio of each output seen in the
  selection samples, ``ln((a + 1/2) / (b + 1/2))`` (0 for an output they never showed,
  which then joins the cells of outputs with no evidence either way), and the numeric
  value where outputs are numbers.

Two kinds of cuts are tried: on every score, equal-mass cells, ``k`` of them for each ``k``
in :data:`CELL_COUNTS` (:func:`equal_mass_levels`); then, on the score whose equal-mass cells
predicted largest, tail-weighted cuts (:func:`tail_levels`). At order ``a`` the
cells' divergence is ``ln(sum_i P_i^a Q_i^(1-a)) / (a - 1)``, and its terms are largest
where the likelihood ratio is most extreme, the further out the higher the order (the
tilted density ``p^a q^(1-a)`` of two unit-variance Gaussians ``d`` apart is centred
``(a - 1) d`` beyond the mean of ``p``), where equal-mass cells lump the tail into one
cell. The tail-weighted cuts are one threshold in either tail (two cells: a single event),
and cells whose pooled share halves towards both tails, each from an outermost cell of
:data:`TAIL_FIRST_COUNT` pooled selection scores, doubling, up to a quarter. How deep to
cut is the prediction's choice: it weighs a tail cell's share of the sum at the claim's
orders against the width of its interval at the certification size. The partition whose
predicted certified bound is largest is frozen
(:func:`dpverify.pipeline.divergence.predicted_cells_statistic`: the claim's statistic at
the certification size, at the selection proportions shrunk by :data:`SHRINKAGE_SE`
standard errors towards the null, so that a deep cut is not preferred for a chance
shortfall of one input's few selection scores there), among the candidates that pass a
guard against the winner's curse of comparing many: each candidate's bound is predicted a
second time at the proportions shrunk :func:`guard_se` standard errors (``sqrt(2 ln M)``
for ``M`` partitions compared, about the largest chance excess among ``M`` estimates), and
only candidates whose guarded prediction is within :data:`GUARD_TOLERANCE` of the largest
guarded prediction stay eligible. A candidate whose bound rests on a chance imbalance of
the selection counts (a tail cell where one input fell short, or many cells that each
differ by noise) predicts high at half a standard error and little once shrunk further,
and gives way to one whose prediction holds; where the predictions hold, the plain
largest is frozen as before. The last cell holds everything at
or above the last cut, ``inf`` and NaN scores included, so the cells always partition the
output space: certification counts the first ``k - 1`` cells and the last is the rest.
Nothing of the certification samples reaches this step, so the region computed on them
later keeps its level whichever cuts were compared.

The events of the floating-point families (role ``"implementation"``: the low-order bits
of doubles, Mironov 2012) are not values of any score, so they are tried as partitions of
their own: a frozen event ``S`` is the two-cell partition ``{S, not S}``, and by the
data-processing inequality its cells' Rényi divergence lower-bounds the mechanism's too. An
event reachable from one input only (probability 0 under the other) has an infinite
divergence at every order, which no claim of these kinds allows. The
:data:`EVENT_PARTITIONS` events predicted strongest (their shrunk selection estimates, as
:func:`dpverify.pipeline.selection.predicted_bounds` shrinks them) compete with the score
partitions on the same predicted bound, and the one partition predicted largest is frozen:
one region is certified, so the level is the audit's whatever was compared. When an event
partition wins, the best score partition is frozen beside it and certified on the same
samples as the value verdict (its own level, as for the other kinds: the verdict's
false-alarm rate is untouched). The other event families do not run under these kinds (the
score's cells stand in for their events), and the result's notes say so.

References
----------
I. Mironov, "On significance of the least significant bits for differential privacy",
ACM CCS 2012.
T. van Erven and P. Harremoës, "Rényi Divergence and Kullback-Leibler Divergence", IEEE
Trans. Inf. Theory 60(7), 2014 (Theorem 9, data processing).
S. Boucheron, G. Lugosi and P. Massart, "Concentration Inequalities", Oxford University Press,
2013 (Theorem 2.5: the expected maximum of ``M`` sub-Gaussian variables is at most
``sqrt(2 ln M)`` standard deviations).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..events import candidate_events, default_families, families_of_role
from ..events.candidates import Event
from ..events.declared import FAMILY as DECLARED_FAMILY
from ..events.declared import DeclaredScore
from ..events.indicators import CodeValue, Within
from ..events.projections import vector_projections
from ..events.registry import event_family, outputs_kind, unfit_reason
from ..events.thresholds import _finite_part, _nearest_ranks, order_statistics
from ..protocols import declared_score
from ..support.bounds import clopper_pearson_lower, clopper_pearson_upper
from .counting import MIN_COMPILED_OUTPUTS, projected
from .divergence import cells_statistic, predicted_cells_statistic
from .outputs import OutputCodec, fit_codec
from .selection import Choice, _shrinkage_alpha, family_notes, requested_families

__all__ = [
    "Partition",
    "select_partition",
    "CELL_COUNTS",
    "EVENT_PARTITIONS",
    "SCORE_CELLS",
    "cell_index",
    "equal_mass_levels",
    "tail_levels",
    "TAIL_FIRST_COUNT",
    "SHRINKAGE_SE",
    "GUARD_TOLERANCE",
    "guard_se",
]

#: Numbers of cells tried for each score. More cells resolve more of the likelihood ratio
#: and pay a Bonferroni share each, so the best count grows with the sample (16-32 cells at
#: 1e6-1e7 samples per input; measured: docs/auditor/benchmarks.md).
CELL_COUNTS = (2, 4, 8, 16, 32, 64)
#: The fewest pooled selection scores in the outermost cell of a tail-weighted partition
#: (:func:`tail_levels`); the outermost share doubles from it while it is below a quarter.
TAIL_FIRST_COUNT = 32
#: Standard errors by which the selection counts of a candidate partition are shrunk towards the
#: null before its bound is predicted (:func:`dpverify.pipeline.divergence.predicted_cells_statistic`).
SHRINKAGE_SE = 0.5
#: The share of the largest guarded prediction (:func:`guard_se`) within which a candidate partition stays
#: eligible; the eligible one predicted largest at :data:`SHRINKAGE_SE` is frozen.
GUARD_TOLERANCE = 0.1
#: The family name of the cells of a score (events of the families keep their own).
SCORE_CELLS = "cells"
#: Floating-point events, the strongest by their shrunk selection estimates, tried as two-cell partitions.
EVENT_PARTITIONS = 4


@dataclass(frozen=True)
class Partition:
    """A frozen partition: the cells counted on fresh samples, and what chose them.

    Attributes
    ----------
    codec : OutputCodec
        The code book of the selection samples.
    cells : tuple of Choice
        One event per cell but the last (``Within`` a score interval, or one floating-point
        event); the last cell is the rest of the output space.
    score : str
        The score the cells cut, in words (for an event's two cells, the event).
    edges : tuple of float
        The cut points (``k - 1`` of them; none for an event's two cells).
    predicted : float
        The claim's bound predicted on the selection samples.
    n_candidates : int
        Partitions compared.
    notes : tuple of str
        What the reader should know.
    family : str
        ``"cells"`` for cells of a score, else the family of the event whose two cells these are.
    value : Partition or None
        Where a floating-point event's cells were frozen, the best cells of a score, certified on
        the same samples as the value verdict.
    """

    codec: OutputCodec
    cells: tuple
    score: str
    edges: tuple
    predicted: float
    n_candidates: int
    notes: tuple = ()
    family: str = SCORE_CELLS
    value: Partition | None = None

    @property
    def verdict_choices(self) -> tuple:
        """The verdict's cells (as :attr:`dpverify.pipeline.selection.Selection.verdict_choices`)."""
        return self.cells

    @property
    def choices(self) -> tuple:
        """Every event to count: the verdict's cells, then the value verdict's."""
        return self.cells + (self.value.cells if self.value is not None else ())

    @property
    def n_cells(self) -> int:
        return len(self.cells) + 1

    @property
    def description(self) -> str:
        if self.family != SCORE_CELLS:
            return f"2 cells: {self.score} [{self.family}], and the rest"
        return f"{self.n_cells} cells of {self.score} (cut at {_edges_text(self.edges)})"


def _edges_text(edges, limit: int = 4) -> str:
    shown = ", ".join(f"{e:.4g}" for e in edges[:limit])
    return shown + (f", ... ({len(edges)} cuts)" if len(edges) > limit else "")


def cell_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The cell of each score: ``i`` for ``edges[i-1] <= v < edges[i]``; NaN and ``inf`` in the last."""
    return np.searchsorted(edges, values, side="right")


def _scores(enc_x, enc_xp, codec) -> list:
    """``(name, projection)`` candidates for the codec's outputs."""
    if codec.kind == "real":
        return list(vector_projections(enc_x, enc_xp))
    k = codec.n_codes
    a = np.bincount(enc_x[enc_x >= 0], minlength=k)[:k]
    b = np.bincount(enc_xp[enc_xp >= 0], minlength=k)[:k]
    ratio = np.log(a + 0.5) - np.log(b + 0.5)
    out = [("the estimated log likelihood ratio of the output", CodeValue(np.append(ratio, 0.0)))]
    if codec.numeric is not None:
        out.append(("the output value", CodeValue.of(codec.numeric)))
    return out


def equal_mass_levels() -> list:
    """The pooled quantile levels of the equal-mass cuts: ``1/k, ..., (k-1)/k``, each ``k`` of :data:`CELL_COUNTS`."""
    return [np.linspace(0.0, 1.0, k + 1)[1:-1] for k in CELL_COUNTS]


def tail_levels(n: int) -> list:
    """The pooled quantile levels of the tail-weighted cuts, for ``n`` pooled scores.

    For each outermost share ``s = m / n`` with ``m`` a power of two from :data:`TAIL_FIRST_COUNT`
    below ``n / 4``: ``s`` alone and ``1 - s`` alone (one threshold event in either tail, two
    cells), and ``s, 2s, 4s, ... < 1/2``, the median and their mirror images above it (cells
    whose pooled share halves towards both tails).
    """
    levels, first = [], TAIL_FIRST_COUNT
    while first < n / 4:
        share = first / n
        low = share * 2.0 ** np.arange(int(np.ceil(np.log2(0.5 / share))))
        low = low[low < 0.5]
        levels += [np.array([share]), np.array([1.0 - share]), np.concatenate([low, [0.5], 1.0 - low[::-1]])]
        first *= 2
    return levels


def _edges(finite_x, finite_xp, levels) -> np.ndarray:
    """The distinct ``nearest`` quantiles at ``levels`` of the pooled finite scores (each group sorted)."""
    n = finite_x.size + finite_xp.size
    if n == 0:
        return np.zeros(0)
    return np.unique(order_statistics(finite_x, finite_xp, _nearest_ranks(n, levels)))


def _cell_counts(sorted_values, edges) -> np.ndarray:
    """Counts of each cell (:func:`cell_index`) in sorted scores (NaN last): differences of ``searchsorted``."""
    below = np.searchsorted(sorted_values, edges, side="left")
    return np.diff(np.concatenate([[0], below, [sorted_values.size]]))


def _sorted_scores(projection, enc_x, enc_xp, compiled: bool) -> tuple:
    """The two selection samples' scores, each sorted (NaN last); ``compiled``: as :func:`.counting.projected`."""
    return tuple(np.sort(projected(projection, group, compiled)) for group in (enc_x, enc_xp))


@dataclass(frozen=True)
class _Candidate:
    """A candidate partition of a score: its predicted bound, the score, the cut points and the selection counts."""

    predicted: float
    name: str
    projection: object
    edges: np.ndarray
    counts: tuple


def _cut_candidates(name, projection, scores, n_x, n_xp, claim, n_certification, alpha, levels_of) -> list:
    """The cuts of one score as :class:`_Candidate` records (``scores``: :func:`_sorted_scores`, ``n_x``, ``n_xp``
    the selection sizes): the equal-mass ones (``levels_of`` None), else ``levels_of(n)`` for ``n`` pooled finite
    scores, each with its bound predicted at :data:`SHRINKAGE_SE`."""
    sorted_x, sorted_xp = scores
    finite_x, finite_xp = _finite_part(sorted_x), _finite_part(sorted_xp)
    n = finite_x.size + finite_xp.size
    seen, found = set(), []
    for levels in equal_mass_levels() if levels_of is None else levels_of(n):
        edges = _edges(finite_x, finite_xp, levels)
        if edges.size == 0 or edges.tobytes() in seen:
            continue
        seen.add(edges.tobytes())
        counts = (_cell_counts(sorted_x, edges), _cell_counts(sorted_xp, edges))
        predicted = _predicted(counts, n_x, n_xp, claim, n_certification, alpha, SHRINKAGE_SE)
        found.append(_Candidate(predicted, name, projection, edges, counts))
    return found


def _predicted(counts, n_x, n_xp, claim, n_certification, alpha, shrinkage_se) -> float:
    """:func:`dpverify.pipeline.divergence.predicted_cells_statistic` of selection counts ``(counts_x, counts_xp)``."""
    return predicted_cells_statistic(
        claim, *counts, n_x, n_xp, n_certification=n_certification, alpha=alpha, shrinkage_se=shrinkage_se
    )


def guard_se(n_candidates: int) -> float:
    """The shrinkage of the guarded prediction (:func:`_guarded_best`): ``sqrt(2 ln M)`` standard errors for ``M``
    candidates compared (at least :data:`SHRINKAGE_SE`), about the largest chance excess among ``M`` normal
    estimates."""
    return max(SHRINKAGE_SE, math.sqrt(2.0 * math.log(max(2, n_candidates))))


def _guarded_best(candidates, n_x, n_xp, claim, n_certification, alpha):
    """The candidate predicted largest among those whose guarded prediction is within :data:`GUARD_TOLERANCE` of
    the largest guarded prediction (module docstring).

    The guarded prediction is the smaller of the candidate's prediction and its prediction at :func:`guard_se`
    standard errors, so it never exceeds the prediction: candidates are visited in decreasing order of their
    prediction (the first of equal ones first, as the plain maximum) until one falls below the largest guarded
    prediction seen, which no later candidate can then exceed.
    """
    level = guard_se(len(candidates))
    order = sorted(range(len(candidates)), key=lambda i: -candidates[i].predicted)
    guarded, top = [], -np.inf
    for i in order:
        candidate = candidates[i]
        if candidate.predicted < top:
            break
        strict = _predicted(candidate.counts, n_x, n_xp, claim, n_certification, alpha, level)
        guarded.append((candidate, min(candidate.predicted, strict)))
        top = max(top, guarded[-1][1])
    return next(candidate for candidate, value in guarded if value >= top - GUARD_TOLERANCE * abs(top))


def select_partition(
    sel_x,
    sel_x_prime,
    *,
    claim,
    n_certification: int,
    alpha: float,
    event_families=None,
    float_events: bool = True,
    inputs=None,
    mechanism=None,
) -> Partition:
    """Build the code book and freeze the partition predicted to certify the largest bound of ``claim``.

    Parameters
    ----------
    sel_x, sel_x_prime : list or numpy.ndarray
        Raw selection outputs of M(x) and M(x') (after any ``output_key``).
    claim : PrivacyClaim
        A claim of a kind that reads cells.
    n_certification : int
        Fresh samples per input that will certify (the prediction uses it).
    alpha : float
        The level.
    event_families : list of str, optional
        The families asked for (None: the default set); their floating-point families are tried
        as two-cell partitions, and the others are named in the notes as not run.
    float_events : bool
        With False, the floating-point families are left out (and named in the notes).
    inputs : tuple, optional
        ``(x, x_prime)`` for input-aware families.
    mechanism : callable, optional
        The audited mechanism: its declared score is one more candidate score (module docstring).
    """
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_x_prime)
    candidates, lead, lead_scores = [], None, None
    declared = _declared_scores(event_families, float_events, codec, inputs, mechanism)
    sizes = (len(enc_x), len(enc_xp), claim, n_certification, alpha)
    compiled = n_certification * codec.dimension >= MIN_COMPILED_OUTPUTS  # the certification loads numba
    for name, projection in _scores(enc_x, enc_xp, codec) + declared:
        scores = _sorted_scores(projection, enc_x, enc_xp, compiled)
        for candidate in _cut_candidates(name, projection, scores, *sizes, None):
            candidates.append(candidate)
            if lead is None or candidate.predicted > lead.predicted:
                lead, lead_scores = candidate, scores
    if lead is not None:  # the tail-weighted cuts, on the score whose equal-mass cells predicted largest
        candidates += _cut_candidates(lead.name, lead.projection, lead_scores, *sizes, tail_levels)
    best = _guarded_best(candidates, *sizes) if candidates else None
    tried = len(candidates)
    requested = dict(families=event_families, float_events=float_events, inputs=inputs, mechanism=mechanism)
    scored = (DECLARED_FAMILY,) if declared else ()
    events, notes = _event_partitions(enc_x, enc_xp, codec, claim, n_certification, alpha, scored=scored, **requested)
    tried += len(events)
    value = None
    if best is not None:
        predicted, name, projection, edges = best.predicted, best.name, best.projection, best.edges
        lows = np.concatenate([[-np.inf], edges[:-1]])
        cells = tuple(
            Choice(Event(f"{name} in [{lo:.6g}, {hi:.6g})", SCORE_CELLS, Within(projection, float(lo), float(hi))), "x")
            for lo, hi in zip(lows, edges)
        )
        value = Partition(codec, cells, name, tuple(float(e) for e in edges), float(predicted), tried, notes)
    event = max(events, key=lambda e: e[0], default=None)
    if event is not None and (value is None or event[0] > value.predicted):
        predicted, chosen = event
        score = chosen.description
        return Partition(codec, (Choice(chosen, "x"),), score, (), predicted, tried, notes, chosen.family, value)
    if value is not None:
        return value
    return Partition(  # every score was constant: one cell, nothing to certify
        codec,
        (),
        "no score (every selection output scored alike)",
        (),
        0.0,
        tried,
        notes
        + (
            "no score separates the inputs' selection samples: one cell, nothing was certified; if the "
            "mechanism has rare outputs, draw more samples",
        ),
    )


def _declared_scores(families, float_events: bool, codec, inputs, mechanism) -> list:
    """``[("declared score", projection)]`` where the mechanism declares a score, the outputs are real, the pair
    is known and the ``"declared-score"`` family is asked for (None: the default set); else ``[]``."""
    pool, _ = requested_families(families, float_events)
    score = declared_score(mechanism)
    asked = DECLARED_FAMILY in (default_families() if pool is None else pool)
    if score is None or inputs is None or codec.kind != "real" or not asked:
        return []
    return [("declared score", DeclaredScore(score, *inputs))]


def _event_partitions(
    enc_x, enc_xp, codec, claim, n_certification, alpha, *, families, float_events, inputs, mechanism, scored=()
):
    """The floating-point events' two-cell partitions worth trying, as ``[(predicted, event), ...]``, and the notes
    on the event families that did not run (module docstring; ``scored``: families whose score was tried as a
    cell score, and so did run).

    The events are ranked by the larger of ``ln(p / q)`` over both directions at their shrunk selection
    estimates (``p`` a lower, ``q`` an upper Clopper-Pearson bound at ``sqrt(2 ln M)`` standard errors over
    their ``M`` (event, direction)s); the :data:`EVENT_PARTITIONS` first with a positive ratio are scored
    with the claim's statistic at those shrunk estimates, scaled to the certification size.
    """
    families, skipped = requested_families(families, float_events)
    pool = list(default_families() if families is None else families)
    implementation = set(families_of_role("implementation"))
    why = f"a {claim.kind_record.title} claim reads cells of a score of the output values, not this family's events"
    for name in pool:
        if name not in implementation and name not in scored:
            skipped[name] = unfit_reason(event_family(name), outputs_kind(codec)) or why
    pool = [f for f in pool if f in implementation]
    found = candidate_events(enc_x, enc_xp, codec, pool, inputs=inputs, mechanism=mechanism)
    skipped.update(found.skipped)
    notes = tuple(family_notes(skipped))
    if not found.events:
        return [], notes
    a, b = np.asarray(found.counts_x, dtype=float), np.asarray(found.counts_x_prime, dtype=float)
    n_x, n_xp, m = len(enc_x), len(enc_xp), n_certification
    level = _shrinkage_alpha(2 * len(a), None)
    p_lo, p_hi = clopper_pearson_lower(a, n_x, level), clopper_pearson_upper(a, n_x, level)
    q_lo, q_hi = clopper_pearson_lower(b, n_xp, level), clopper_pearson_upper(b, n_xp, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward, backward = np.log(p_lo) - np.log(q_hi), np.log(q_lo) - np.log(p_hi)
    ratio = np.nan_to_num(np.maximum(forward, backward), nan=-np.inf)
    ratio[((a == 0) & (b == 0)) | ((a == n_x) & (b == n_xp))] = -np.inf
    scored = []
    for i in np.argsort(-ratio, kind="stable")[:EVENT_PARTITIONS]:
        if not ratio[i] > 0:
            break
        p, q = (p_lo[i], q_hi[i]) if forward[i] >= backward[i] else (p_hi[i], q_lo[i])
        cells_x, cells_xp = np.array([p, 1.0 - p]) * m, np.array([q, 1.0 - q]) * m
        scored.append((float(cells_statistic(claim, cells_x, cells_xp, m, m, alpha)[0]), found.events[i]))
    return scored, notes
