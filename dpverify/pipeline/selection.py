"""Choosing the event to certify, from the selection samples alone.

The first half of every audit (:func:`dpverify.audit`, the sequential audit,
the delta curve, :func:`dpverify.audit_samples`): from a bounded sample of
M(x) and M(x') build the code book (:class:`~dpverify.pipeline.outputs.OutputCodec`),
propose candidate events (:mod:`dpverify.events.registry`), and predict which one
fresh samples would certify best. The result is a :class:`Selection`: frozen,
picklable events that certification counts on samples this step never saw.

The prediction guards against the winner's curse: the luckiest of M noisy
estimates is inflated by about ``sqrt(2 ln M)`` standard errors, so selection
estimates are shrunk by that much before ranking (Clopper-Pearson form, so
rare events are handled exactly).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import InsufficientSamplesError
from ..events import Event, candidate_events, default_families, families_of_role
from ..support.bounds import clopper_pearson_lower, clopper_pearson_upper
from .outputs import OutputCodec, fit_codec

__all__ = [
    "Selection",
    "Choice",
    "select",
    "select_event",
    "predicted_bounds",
    "CandidateScores",
    "default_selection_size",
]

#: The best-looking of M candidates is inflated by luck (winner's curse) by
#: about sqrt(2 ln M) standard errors; selection estimates are shrunk by that
#: much (and at least this many standard errors) before ranking.
MIN_SHRINKAGE_SE = 1.0
#: Default selection sample per input: a tenth of the samples, at least
#: MIN_SELECTION (or half the samples when fewer), at most MAX_SELECTION, so
#: that the client's memory stays bounded however many samples certify.
MIN_SELECTION = 20_000
MAX_SELECTION = 2_000_000
#: Shrinkage levels (in standard errors; None: sqrt(2 ln M)) at which the best
#: candidate is picked. The distinct picks are all certified, with Bonferroni:
#: a strong but rare event loses to a safe large one under full shrinkage, and
#: a lucky rare one wins under light shrinkage; certifying both hedges.
SHRINKAGE_LEVELS = (None, 2.0, 1.0)
#: Discrete outputs warn when more than this share of selection outputs are distinct.
DISTINCT_WARNING_SHARE = 0.9


def default_selection_size(n_samples: int) -> int:
    """Selection samples per input for a budget of ``n_samples`` per input.

    ``clip(n_samples / 10, min(MIN_SELECTION, n_samples / 2), MAX_SELECTION)``.
    Certification, not selection, sets how large a bound can be certified
    (``ln`` of its size), so large budgets go to certification; small budgets
    spend more on selection, where a poor event costs most.
    """
    n = int(n_samples)
    return int(max(1, min(max(n // 10, min(MIN_SELECTION, n // 2)), MAX_SELECTION)))


#: A discrete output space of more than this many values that repeat in the
#: selection sample (at least REPEATS_FOR_GROWTH samples per value) gets a
#: larger selection share, GROWN_SHARE of the samples (at most MAX_SELECTION):
#: level sets over many outputs are ranked on per-output counts, whose noise
#: is what limits the bound there (measured on the sparse vector without cutoff:
#: docs/auditor/benchmarks.md).
GROWTH_MIN_CODES = 100
REPEATS_FOR_GROWTH = 10
GROWN_SHARE = 0.2


def grown_selection_size(
    sel_x, sel_x_prime, n_samples: int, n_selection: int, *, share: float = GROWN_SHARE, cap: int = MAX_SELECTION
) -> int:
    """The selection size to use after looking at a first selection sample.

    Growing the selection on what the selection samples show is valid: the
    certification samples are drawn afterwards from independent seeds, and
    their number is fixed before any of them is drawn. The grown size is
    ``min(share * n_samples, cap)`` (a search grows its chosen pair's selection
    further: :data:`dpverify.audits.search.WINNER_GROWN_SHARE`).
    """
    target = min(int(share * n_samples), int(cap))
    if target <= n_selection:
        return n_selection
    try:
        codec, _ = fit_codec(sel_x, sel_x_prime)
    except Exception:  # type errors surface in select(), with their message
        return n_selection
    if codec.kind != "discrete" or codec.n_codes <= GROWTH_MIN_CODES:
        return n_selection
    if 2 * n_selection < REPEATS_FOR_GROWTH * codec.n_codes:
        return n_selection  # outputs barely repeat: more selection samples would not rank them
    return target


def predicted_bounds(
    count_p, count_q, n_selection, n_certification, *, delta, alpha, n_candidates=None, shrinkage_se=None, claim=None
):
    """The lower bound on ``ln((P - delta)/Q)`` each candidate is predicted to certify
    (with ``claim`` of another kind that reads events: the bound on its parameter).

    The selection estimates are first shrunk towards "no difference" by
    ``max(1, sqrt(2 ln M))`` standard errors, M the number of candidates
    compared (or by ``shrinkage_se`` standard errors when given). The bound
    that certification would give at the shrunk probabilities on
    ``n_certification`` fresh samples is then computed with the audit's ``alpha``.
    """
    shrinkage_alpha = _shrinkage_alpha(
        len(np.atleast_1d(count_p)) if n_candidates is None else n_candidates, shrinkage_se
    )
    p_lo = _predicted_lower(count_p, n_selection, n_certification, shrinkage_alpha, alpha)
    q_hi = _predicted_upper(count_q, n_selection, n_certification, shrinkage_alpha, alpha)
    return _predicted_bound(p_lo, q_hi, delta, claim)


def _shrinkage_alpha(n_candidates: int, shrinkage_se) -> float:
    """The two-sided level of a shrinkage by ``shrinkage_se`` standard errors (None: ``max(1, sqrt(2 ln M))``,
    M = ``max(2, n_candidates)``)."""
    if shrinkage_se is None:
        k = max(MIN_SHRINKAGE_SE, math.sqrt(2 * math.log(max(2, n_candidates))))
    else:
        k = shrinkage_se
    from scipy import stats  # here: scipy.stats costs 0.6 s to import

    return 2 * stats.norm.sf(k)


def _predicted_lower(count_p, n_selection, n_certification, shrinkage_alpha, alpha):
    """``p_lo`` of :func:`predicted_bounds`: the certification's lower bound at the shrunk selection estimate."""
    p_sel = clopper_pearson_lower(count_p, n_selection, shrinkage_alpha)
    return clopper_pearson_lower(p_sel * n_certification, n_certification, alpha)


def _predicted_upper(count_q, n_selection, n_certification, shrinkage_alpha, alpha):
    """``q_hi`` of :func:`predicted_bounds`: the certification's upper bound at the shrunk selection estimate."""
    q_sel = clopper_pearson_upper(count_q, n_selection, shrinkage_alpha)
    return clopper_pearson_upper(q_sel * n_certification, n_certification, alpha)


def _predicted_bound(p_lo, q_hi, delta, claim):
    if claim is not None:
        bound = claim.kind_record.event_bound(claim, p_lo, q_hi)
        return np.where(bound > 0, bound, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.maximum(p_lo - delta, 0)) - np.log(q_hi)


def select_event(
    candidates,
    n_selection: int,
    n_certification: int,
    *,
    epsilon: float,
    delta: float,
    alpha: float,
    mask=None,
    shrinkage_se=None,
    scores=None,
    claim=None,
):
    """Index and direction of the candidate predicted to certify the largest bound.

    Scores every candidate in both directions with :func:`predicted_bounds`
    (shrinkage ``sqrt(2 ln M)`` standard errors, or ``shrinkage_se``).
    Where no candidate is predicted to certify anything, the scores are
    recomputed with the minimal shrinkage (one standard error), and failing
    that the smoothed point estimate of the ratio decides, so a lopsided event
    is preferred to a near-certain one. Events containing every selection
    sample, or none, are never chosen; nor are those where ``mask`` is False.
    Selection only affects power: certification on fresh samples keeps the
    audit valid whatever is chosen. ``scores``, a dict, keeps the scores of
    every candidate between calls on the same candidates (they do not depend
    on ``mask``).
    """
    a, b = candidates.counts_x, candidates.counts_x_prime
    excluded = ((a == 0) & (b == 0)) | ((a == n_selection) & (b == n_selection))
    if mask is not None:
        excluded = excluded | ~np.asarray(mask, dtype=bool)
    first = dict(n_candidates=2 * len(a)) if shrinkage_se is None else dict(shrinkage_se=shrinkage_se)
    passes = [first, dict(shrinkage_se=MIN_SHRINKAGE_SE), None]
    for options in passes:
        best = None
        for direction, p, q in (("x", a, b), ("x_prime", b, a)):
            key = (direction, None if options is None else tuple(sorted(options.items())))
            scored = None if scores is None else scores.get(key)
            if scored is None:
                scored = CandidateScores(
                    p, q, n_selection, n_certification, options, delta=delta, alpha=alpha, claim=claim
                )
                if scores is not None:
                    scores[key] = scored
            value, i = scored.best(excluded)
            if best is None or value > best[0]:
                best = (value, i, direction)
        if best[0] > 0:
            break
    if not np.isfinite(best[0]):
        return None
    return best[1], best[2]


#: A candidate whose predicted bound is not finite scores this plus its smoothed log ratio: below every
#: finite bound (at least ``ln`` of the smallest double, about -745), so any finite bound ranks first.
NO_BOUND_SCORE = -1e6
#: Candidates (of largest upper bound) whose predicted bounds :class:`CandidateScores` computes first.
FIRST_COMPUTED = 8
#: A candidate is passed over only when its upper bound lies at least this far below the best computed
#: score, relative to ``1 + |best|``: far above the rounding of the upper bounds and of scipy's inverse
#: incomplete beta function (relative errors near 1e-15).
BOUND_MARGIN = 1e-6


#: Largest selection size at which a candidate dominated by another (a count under x at least as large,
#: one under x' at most as large) is passed over: a positive bound then changes by at least a relative
#: 1e-8 per count, far above its rounding, so the larger count scores higher.
MAX_DOMINANCE_SELECTION = 10**8


class CandidateScores:
    """The scores of the candidates in one direction at one shrinkage, computed where a pick needs them.

    A candidate's score is its predicted bound (:func:`predicted_bounds`, ``options`` the shrinkage)
    where that is finite, else :data:`NO_BOUND_SCORE` plus its smoothed log ratio
    ``ln((p + 1/2) / (q + 1/2))``; with ``options`` None, the smoothed log ratio alone.
    :meth:`best` returns what ``argmax`` over every score would, without computing every bound.

    Notes
    -----
    Each bound takes four evaluations of the inverse incomplete beta function. For integer counts
    ``k_p, k_q`` of ``n`` selection samples and ``m`` certification samples, the bound is at most
    ``ln(k_p/n + 1/m - delta) - ln(max(k_q/n - 1/m, 1 - (alpha/2)^(1/m)))``: a Clopper-Pearson lower
    bound on an integer count ``k`` of ``N`` is at most ``k/N``, and an upper bound at least ``k/N``
    (``k`` is the median of the binomial of mean ``k``, so the tail beyond it holds at least 1/2, more
    than ``alpha/2``); each bound is monotone in the count, and a real count lies within 1 of an integer;
    the upper bound of a count of 0 is ``1 - (alpha/2)^(1/m)``. Bounds are computed in decreasing
    order of this upper bound, :data:`FIRST_COMPUTED` first, then every candidate whose upper bound
    reaches the best score found (less :data:`BOUND_MARGIN`); the others cannot score as high. Of
    these, the shrunk selection estimates ``p_sel``, ``q_sel`` (two of the four evaluations) are
    computed first, and the bound only where ``ln(p_sel + 1/m - delta) - ln(max(q_sel - 1/m,
    1 - (alpha/2)^(1/m)))``, an upper bound by the same argument, still reaches the best score. Once a
    positive bound is found, a candidate dominated by another (a count under x at least as large, one
    under x' at most as large) is passed over too: the bound is monotone in each count, and strictly
    so where it is positive (its probabilities are then far from underflow and change by a relative
    1e-8 or more per count; equal counts leave the earlier index first). The
    bounds computed are those :func:`predicted_bounds` gives, to the bit (the same elementwise
    operations, on the distinct counts). Claims of other kinds compute every bound.

    References
    ----------
    C. J. Clopper and E. S. Pearson, "The use of confidence or fiducial limits illustrated in the case
    of the binomial", Biometrika, 1934. R. Kaas and J. M. Buhrman, "Mean, median and mode in binomial
    distributions", Statistica Neerlandica, 1980 (the median of a binomial of integer mean is the mean).
    """

    def __init__(self, p, q, n_selection, n_certification, options, *, delta, alpha, claim=None):
        self.p, self.q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
        self.n_selection, self.n_certification = n_selection, n_certification
        self.delta, self.alpha, self.claim = delta, alpha, claim
        with np.errstate(divide="ignore", invalid="ignore"):
            self.fallback = np.log(self.p + 0.5) - np.log(self.q + 0.5)
        self.upper = None
        if options is None:
            self.values = self.fallback
            return
        options = dict(options)
        self.shrinkage_alpha = _shrinkage_alpha(
            options.pop("n_candidates", len(self.p)), options.pop("shrinkage_se", None)
        )
        self.values = np.full(len(self.p), np.nan)  # NaN: not computed yet
        self.p_sel, self.q_sel = np.full(len(self.p), np.nan), np.full(len(self.p), np.nan)  # shrunk estimates
        if claim is None:
            self.upper = self._upper_bounds()
        if self.upper is None:
            self._compute(np.arange(len(self.p)))
        else:
            certain = self.upper == -np.inf  # p_lo <= delta for sure: no finite bound
            self.values[certain] = NO_BOUND_SCORE + self.fallback[certain]

    def _upper_bounds(self):
        """An upper bound on each candidate's predicted bound (class Notes), or None where it does not hold."""
        p, q, n, m, alpha = self.p, self.q, self.n_selection, self.n_certification, self.alpha
        if not (0 < alpha < 1 and 0 < self.shrinkage_alpha < 1 and n >= 1 and m >= 1 and len(p)):
            return None
        if not (np.all(p == np.floor(p)) and np.all(q == np.floor(q))):
            return None
        if p.min() < 0 or q.min() < 0 or p.max() > n or q.max() > n:
            return None
        top = np.where(p > 0, np.minimum(p / n + 1.0 / m, 1.0), 0.0)
        floor = -math.expm1(math.log(alpha / 2) / m) * (1 - 1e-9)
        bottom = np.maximum(q / n - 1.0 / m, floor)
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(top - self.delta, 0.0)) - np.log(bottom)

    def _shrink(self, index):
        """The shrunk selection estimates (``p_sel``, ``q_sel`` of :func:`predicted_bounds`) of ``index``,
        each distinct count's once."""
        n, sa = self.n_selection, self.shrinkage_alpha
        for counts, shrunk, bound in (
            (self.p, self.p_sel, clopper_pearson_lower),
            (self.q, self.q_sel, clopper_pearson_upper),
        ):
            missing = index[np.isnan(shrunk[index])]
            if missing.size:
                distinct, at = np.unique(counts[missing], return_inverse=True)
                shrunk[missing] = bound(distinct, n, sa)[at]

    def _upper_after_shrinking(self, index) -> np.ndarray:
        """A tighter upper bound of the candidates ``index``, from their shrunk estimates (class Notes)."""
        m = self.n_certification
        p_sel, q_sel = self.p_sel[index], self.q_sel[index]
        top = np.where(p_sel > 0, np.minimum(p_sel + 1.0 / m, 1.0), 0.0)
        bottom = np.maximum(q_sel - 1.0 / m, -math.expm1(math.log(self.alpha / 2) / m) * (1 - 1e-9))
        with np.errstate(divide="ignore"):
            return np.log(np.maximum(top - self.delta, 0.0)) - np.log(bottom)

    def _compute(self, index):
        """Compute the scores of the candidates ``index`` (each distinct count's bounds once)."""
        if index.size == 0:
            return
        sizes = (self.n_selection, self.n_certification, self.shrinkage_alpha, self.alpha)
        if self.claim is not None:
            p_lo, q_hi = _predicted_lower(self.p[index], *sizes), _predicted_upper(self.q[index], *sizes)
        else:  # predicted_bounds' operations, each on the distinct values
            self._shrink(index)
            m, alpha = self.n_certification, self.alpha
            ps, p_at = np.unique(self.p_sel[index], return_inverse=True)
            qs, q_at = np.unique(self.q_sel[index], return_inverse=True)
            p_lo = clopper_pearson_lower(ps * m, m, alpha)[p_at]
            q_hi = clopper_pearson_upper(qs * m, m, alpha)[q_at]
        bound = _predicted_bound(p_lo, q_hi, self.delta, self.claim)
        self.values[index] = np.where(np.isfinite(bound), bound, NO_BOUND_SCORE + self.fallback[index])

    def _dominated(self, candidates) -> np.ndarray:
        """Whether each of ``candidates`` has another among them with a count under x at least as large and
        one under x' at most as large (the same counts: an earlier index). All False where counts are too
        fine for the bounds to tell them apart (:data:`MAX_DOMINANCE_SELECTION`)."""
        if self.n_selection > MAX_DOMINANCE_SELECTION:
            return np.zeros(candidates.size, dtype=bool)
        p, q = self.p[candidates], self.q[candidates]
        order = np.lexsort((candidates, q, -p))  # count under x down, then count under x' up, then index
        in_order = q[order]
        smallest_before = np.minimum.accumulate(np.concatenate([[np.inf], in_order[:-1]]))
        dominated = np.empty(candidates.size, dtype=bool)
        dominated[order] = smallest_before <= in_order
        return dominated

    def best(self, excluded) -> tuple:
        """``(score, index)`` of the first largest score among candidates not ``excluded`` (``(-inf, 0)``
        when all are): what ``argmax`` of the scores, ``-inf`` where excluded, returns."""
        candidates = np.flatnonzero(~np.asarray(excluded, dtype=bool))
        if self.upper is not None and candidates.size:
            order = candidates[np.argsort(-self.upper[candidates], kind="stable")]
            first = order[:FIRST_COMPUTED]
            self._compute(first[np.isnan(self.values[first])])
            known = self.values[candidates]
            bounds = known[known > NO_BOUND_SCORE / 2]  # finite bounds (NaN compares False)
            if bounds.size:
                top = bounds.max()
                reach = top - BOUND_MARGIN * (1 + abs(top))
                needed = candidates[self.upper[candidates] >= reach]
                if top > 0:  # positive bounds, far from underflow: a dominated candidate scores strictly less
                    needed = np.intersect1d(needed, candidates[~self._dominated(candidates)], assume_unique=True)
                needed = needed[np.isnan(self.values[needed])]
                self._shrink(needed)  # half the work of a bound, and a bound on it much closer to it
                closer = self._upper_after_shrinking(needed)
                self._compute(needed[np.argsort(-closer, kind="stable")[:FIRST_COMPUTED]])  # raise the best first
                known = self.values[candidates]
                top = known[known > NO_BOUND_SCORE / 2].max()
                needed = needed[closer >= top - BOUND_MARGIN * (1 + abs(top))]
            else:
                needed = candidates[self.upper[candidates] > -np.inf]
            self._compute(needed[np.isnan(self.values[needed])])
        score = np.full(len(self.values), -np.inf)
        known = candidates[~np.isnan(self.values[candidates])]
        score[known] = self.values[known]
        i = int(np.argmax(score))
        return score[i], i


@dataclass(frozen=True)
class Choice:
    """An event chosen for certification, and the direction it is tested in."""

    event: Event
    direction: str


@dataclass(frozen=True)
class Selection:
    """What the selection step decided; all of it frozen before certification.

    Attributes
    ----------
    codec : OutputCodec
        The code book, built from the selection samples only.
    verdict_choices : tuple of Choice
        The events certified for the verdict (every applicable family): the
        distinct best picks at the :data:`SHRINKAGE_LEVELS`, certified with
        Bonferroni over their number.
    value_choices : tuple of Choice
        The same among the *value* families (no floating-point family), when
        a floating-point family made a verdict pick; else empty.
    n_candidates : int
        (event, direction) pairs compared.
    notes : tuple of str
        Families that proposed nothing and why; warnings.
    """

    codec: OutputCodec
    verdict_choices: tuple
    value_choices: tuple
    n_candidates: int
    notes: tuple

    @property
    def choice(self) -> Choice | None:
        """The pick at full shrinkage (None when no event could be chosen)."""
        return self.verdict_choices[0] if self.verdict_choices else None

    @property
    def choices(self) -> list[Choice]:
        """Every event to count: the verdict's, then the value verdict's."""
        return list(self.verdict_choices) + list(self.value_choices)


def _distinct_note(codec: OutputCodec, n_outputs: int) -> str | None:
    if codec.kind != "discrete" or codec.numeric is not None or n_outputs < 100:
        return None
    if codec.n_codes > DISTINCT_WARNING_SHARE * n_outputs:
        return (
            f"{codec.n_codes} of {n_outputs} selection outputs are distinct: events on single values "
            "cannot see much; if outputs are objects that should compare equal when their content is "
            "equal, pass output_key= (see dpverify.keys)"
        )
    return None


def select(
    sel_x,
    sel_x_prime,
    *,
    n_certification: int,
    epsilon: float,
    delta: float,
    alpha: float,
    event_families=None,
    float_events: bool = True,
    inputs=None,
    claim=None,
    mechanism=None,
) -> Selection:
    """Build the code book and choose the event(s) to certify, from selection samples only.

    Parameters
    ----------
    sel_x, sel_x_prime : list or numpy.ndarray
        Raw selection outputs of M(x) and M(x') (after any ``output_key``).
    n_certification : int
        Fresh samples per input that will certify (the prediction uses it).
    epsilon, delta, alpha : float
        The claim and the level.
    event_families : list of str, optional
        Restrict the candidates to these registered families.
    float_events : bool
        With False, the floating-point families are left out.
    inputs : tuple, optional
        ``(x, x_prime)`` for input-aware families.
    claim : PrivacyClaim, optional
        A claim of another kind than (epsilon, delta)-DP that reads events (Gaussian DP, a
        trade-off curve): candidates are ranked by the bound on its parameter they are
        predicted to certify. None ranks by the epsilon bound at ``delta``.
    mechanism : callable, optional
        The audited mechanism, for the families that read what it declares (a score).

    Raises
    ------
    InsufficientSamplesError
        No candidate event could be formed (too few or constant outputs).
    """
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_x_prime)
    event_families, left_out = requested_families(event_families, float_events)
    candidates = candidate_events(enc_x, enc_xp, codec, event_families, inputs=inputs, mechanism=mechanism)
    n_selection = min(len(enc_x), len(enc_xp))
    notes = family_notes({**left_out, **candidates.skipped})
    note = _distinct_note(codec, len(enc_x) + len(enc_xp))
    if note:
        warnings.warn(note, UserWarning, stacklevel=3)
        notes.append(note)
    options = dict(epsilon=epsilon, delta=delta, alpha=alpha, scores={})  # scores: computed once for both picks
    if claim is not None:
        options["claim"] = claim.kind_record.ranking_claim(claim)  # None: ranked at (epsilon, delta)
    verdict = _picks(candidates, n_selection, n_certification, None, **options) if candidates.events else ()
    if not verdict:
        if len(enc_x) + len(enc_xp) < 4:
            raise InsufficientSamplesError(
                "too few selection samples to form any event; draw more samples",
                required=2 * (n_selection + n_certification),
            )
        notes.append(_no_event_note(event_families, candidates.skipped))
    value = ()
    if any(c.event.role == "implementation" for c in verdict):
        value_mask = np.array([e.role == "value" for e in candidates.events])
        if value_mask.any():
            value = _picks(candidates, n_selection, n_certification, value_mask, **options)
    return Selection(codec, verdict, value, 2 * len(candidates.events), tuple(notes))


def _no_event_note(event_families, skipped: dict) -> str:
    """Why no event was certified: none of the families named runs on these outputs (each named in a note of
    its own), or the families that ran found no event that separates the selection samples."""
    if event_families is not None and set(event_families) <= set(skipped):
        return (
            "none of the event families asked for runs on these outputs (see why above): nothing was "
            "certified; name one that does, or pass event_families=None for every registered family"
        )
    return (
        "no event separates the inputs' selection samples (every output was the same, or every "
        "candidate contained all or none of them): nothing was certified; if the mechanism has "
        "rare outputs, draw more samples"
    )


#: Why the floating-point families are left out with ``float_events=False``.
FLOAT_EVENTS_OFF = "float_events=False leaves out the floating-point (implementation) families"


def requested_families(event_families, float_events: bool) -> tuple:
    """The families an audit's options ask for (None: the default set) and those it leaves out, with why.

    With ``float_events=False`` the families of role ``"implementation"`` are left out
    (:data:`FLOAT_EVENTS_OFF`). Returns ``(families, {name: why})``.
    """
    if float_events:
        return event_families, {}
    pool = event_families if event_families is not None else default_families()
    implementation = families_of_role("implementation")
    return [f for f in pool if f not in implementation], {f: FLOAT_EVENTS_OFF for f in pool if f in implementation}


def family_notes(skipped: dict) -> list:
    """The notes on the event families that did not run: one per reason, naming every family it kept out."""
    by_reason: dict = {}
    for name, why in skipped.items():
        by_reason.setdefault(why, []).append(name)
    return [
        f"event family {names[0]!r} not used: {why}"
        if len(names) == 1
        else f"event families {', '.join(repr(n) for n in names)} not used: {why}"
        for why, names in by_reason.items()
    ]


def _picks(candidates, n_selection, n_certification, mask, **options) -> tuple:
    """The distinct best (event, direction) at each of the :data:`SHRINKAGE_LEVELS`."""
    seen, picks = set(), []
    for level in SHRINKAGE_LEVELS:
        picked = select_event(candidates, n_selection, n_certification, mask=mask, shrinkage_se=level, **options)
        if picked is not None and picked not in seen:
            seen.add(picked)
            picks.append(Choice(candidates.events[picked[0]], picked[1]))
    return tuple(picks)
