"""Auditing a mechanism over its neighbouring relation: search for the worst pair, then certify it.

:func:`dpverify.audit` bounds the loss of the one pair it is handed; a claim is
about the worst pair. :func:`search_audit` applies audit's select-then-certify
design one level up (Ding et al. 2018 generate pairs from patterns and keep the
smallest p-value; Bichsel et al. 2021 run their attack on each pattern; here the
pair is chosen like the event, on samples that never certify):

1. *candidates*: the neighbouring pairs to try, from a generator of this
   package's :mod:`dpverify.neighbours`, a list, a callable or a Hypothesis
   strategy (:func:`dpverify.neighbours.candidate_pairs`), seeded by their own
   child of the audit's SeedSequence;
2. *screening* (successive halving; Karnin, Koren, Somekh 2013; Jamieson and
   Talwalkar 2016): in each round every surviving pair draws more selection
   samples (its own spawned seeds), :func:`dpverify.pipeline.selection.select`
   chooses its events on all its screening samples so far, and the pair is scored
   by the bound its best event is predicted to certify
   (:func:`dpverify.pipeline.selection.predicted_bounds`, shrunk for the winner's
   curse over every event of every surviving pair); the better half goes on. The
   last pair standing brings its selection (code book and frozen events, in both
   directions) with it;
3. *certification*: the chosen pair's frozen events are counted on fresh samples
   from independent seeds (:func:`dpverify.pipeline.sampling.count_events`, on any
   executor) and turned into the verdict exactly as :func:`dpverify.audit` does
   (:func:`dpverify.audits.pair.audit_result`: Clopper-Pearson, Bonferroni over the
   at most three frozen events).

Why the false-alarm rate is ``alpha``, however many pairs were screened: the
chosen pair and its events are a function of the candidate and screening
streams only; the certification counts come from streams independent of both.
Conditionally on whatever was chosen, the certified bounds are ``1 - alpha``
confidence bounds for *that* pair, and a mechanism that keeps its claim keeps it
on every pair, so ``P[violation] <= alpha`` given the choice, hence overall. No
multiplicity correction is owed for the screened pairs; what the search costs is
its screening samples, not confidence.

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.

B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box Discovery
of Differential Privacy Violations using Classifiers", IEEE S&P 2021.

Z. Karnin, T. Koren, O. Somekh, "Almost Optimal Exploration in Multi-Armed
Bandits", ICML 2013 (sequential halving).

K. Jamieson, A. Talwalkar, "Non-stochastic Best Arm Identification and
Hyperparameter Optimization", AISTATS 2016 (successive halving).
"""

from __future__ import annotations

import copy
import math
import numbers
import warnings
from dataclasses import dataclass, replace

import numpy as np

from .. import _validation as check
from .._results import PlainData, short_repr
from ..errors import InsufficientMemoryError, InsufficientSamplesError, InvalidParameterError, ReplayMismatchError
from ..events import grows_selection
from ..neighbours import NeighbourGenerator, candidate_pairs
from ..neighbours._base import pair_key
from ..neighbours.domain import check_declared_domain, declared_domain
from ..options import DEFAULT_SAMPLES, AuditOptions
from ..pipeline import memory as memory_model
from ..pipeline.memory import audit_memory_bytes, pilot_output, require_memory
from ..pipeline.sampling import (
    DEFAULT_CHUNKS,
    children,
    concatenate_outputs,
    draw,
    drawing_for,
    drawing_ledger,
    resolve_seed,
)
from ..pipeline.sampling import _executor as one_executor
from ..pipeline.selection import grown_selection_size
from ..support.bounds import minimum_certifying_samples
from ..support.progress import progress_bar
from .certification import certified_result, check_sampler, recorded_value_verdict, recording_draws
from .choosing import rank_pair, ranking_scale, screening_event_families, select_for_claim
from .drivers import Driver
from .findings import classify_finding
from .fingerprint import check_source, with_notes
from .plan import Sizes, build_plan, claim_arguments, fixed_split, plan_of_result
from .power import power_note
from .results import AuditResult

__all__ = [
    "search_audit",
    "SearchAuditResult",
    "ScreenedCandidate",
    "default_screening_size",
    "screening_resolution",
    "screening_budget_for",
    "check_replay_candidates",
]

#: ``n_samples`` is the search's whole budget: screening, the chosen pair's selection top-up, the value track
#: and certification together draw at most ``n_samples`` per input (the contract checks apart). Default
#: screening budget, as a share of ``n_samples``: samples per input spent on screening, over every candidate
#: and round together (the value track, when it runs, screens again with the same budget; the rounds both
#: screenings share are drawn once).
SCREENING_SHARE = 0.3
#: Certification keeps at least this share of ``n_samples`` per input (split between the verdict's pair and
#: the value track's, when that chooses another): the draws before it (screening, top-ups, the value track's
#: screening) stop at ``1 - CERTIFICATION_FLOOR`` of ``n_samples``, and every sample they leave certifies.
CERTIFICATION_FLOOR = 0.25
#: The default screening budget is at most this many samples per input (the
#: samples of the surviving pairs are held in memory during a round).
MAX_SCREENING = 8_000_000
#: Fewest screening samples a pair draws per input in a round (below it no event is ranked).
MIN_ROUND_SAMPLES = 500
#: Where ``n_samples`` cannot hold every pair's :data:`MIN_ROUND_SAMPLES` a round besides the certification's
#: floor, the rounds draw fewer, down to this many (below it the search is refused by name).
SMALLEST_ROUND = 100

#: The fewest bytes one drawn candidate pair takes (a list slot and a 2-tuple, its inputs shared).
PAIR_BYTES = 64
#: Local moves of the screened winner tried with ``n_refining > 0`` when the neighbours are a
#: generator with refinements (:meth:`dpverify.neighbours.NeighbourGenerator.refinements`).
REFINEMENTS = 8
#: The chosen pair's selection, where its outputs are discrete with many values that repeat
#: (:func:`~dpverify.pipeline.selection.grown_selection_size`), is topped up to this share of
#: ``n_samples`` (at most MAX_WINNER_SELECTION per input, and at most MAX_WINNER_SELECTION_BYTES of
#: outputs per input held): level sets over many outputs are ordered by per-output likelihood-ratio
#: estimates, whose noise is what limits the bound there; the expected bound of the selection's picks
#: grows with the selection (measured on sparse vector Alg. 6: docs/auditor/benchmarks.md).
#: The top-up is drawn from the budget (certification gets what is left, at least :data:`CERTIFICATION_FLOOR`);
#: where the value track may run, the top-up leaves room for what its screening draws. The memory check before drawing
#: counts the largest top-up (:class:`_Budget`).
WINNER_GROWN_SHARE = 0.3
MAX_WINNER_SELECTION = 4_000_000
MAX_WINNER_SELECTION_BYTES = 256 * 2**20
#: The same top-up where the chosen pair's outputs are real vectors with markers and values, on which the
#: count-and-level family (``"learned-counts"``, which declares ``grows_selection``) fits a score on the
#: selection rows and thresholds it in its tails (events of probability about 0.0015 on Lyu et al.'s Alg. 3),
#: so that both its fit and the choice of its threshold sharpen with the rows (docs/auditor/benchmarks.md).
#: The chance of never drawing an output event in a candidate's screening that the resolution notes allow:
#: an event of probability p is missed by n samples with probability (1 - p)^n <= exp(-n p).
MISS_RATE = 0.05


def default_screening_size(n_samples: int) -> int:
    """Screening samples per input for a search audit of ``n_samples`` per input.

    ``min(SCREENING_SHARE * n_samples, MAX_SCREENING)``: screening is part of the
    ``n_samples`` budget, which the chosen pair's top-up, the value track and the
    certification share (:data:`CERTIFICATION_FLOOR`). Smaller budgets let lucky
    events of mediocre pairs win the early rounds (measured on the noisy max
    returning its value: docs/manual/search.md, "Defaults and the measurements
    behind them").
    """
    return int(min(SCREENING_SHARE * int(n_samples), MAX_SCREENING))


def screening_resolution(n: int, miss: float = MISS_RATE) -> float:
    """The smallest probability of an output event that ``n`` samples per input see with chance ``1 - miss``.

    An event of probability ``p`` is absent from ``n`` independent samples with
    probability ``(1 - p)^n <= exp(-n p)``, so every event of probability at least
    ``ln(1 / miss) / n`` is drawn at least once except with probability ``miss``
    (the "rule of three" at ``miss = 0.05``: about ``3 / n``). Below it, a
    candidate's screening may never see the event its worst case hangs on, and
    the pair can lose the ranking to a pair that leaks less.

    Parameters
    ----------
    n : int
        Samples per input.
    miss : float, default MISS_RATE
        The chance of missing the event that is allowed.

    Returns
    -------
    float

    References
    ----------
    B. D. Jovanovic, P. S. Levy, "A Look at the Rule of Three", The American Statistician 51(2), 1997.
    """
    return math.log(1.0 / miss) / max(1, int(n))


def screening_budget_for(probability: float, n_candidates: int, miss: float = MISS_RATE) -> int:
    """The screening budget per input at which every one of ``n_candidates`` pairs draws enough samples in
    its first round to see an event of ``probability`` (chance ``1 - miss``; :func:`screening_resolution`).

    Successive halving gives each pair ``n_screening / ceil(log2 m) / m`` samples per input in the first
    round, so the budget is ``ceil(log2 m) * m * ceil(ln(1 / miss) / probability)``.
    """
    need = max(MIN_ROUND_SAMPLES, math.ceil(math.log(1.0 / miss) / probability))
    m = max(1, int(n_candidates))
    rounds = max(1, math.ceil(math.log2(m))) if m > 1 else 1
    return rounds * m * need


def _resolution_note(n_least: int, n_certification: int, n_candidates: int) -> str | None:
    """Says what screening could not have seen, when its least-screened candidate resolves coarser
    probabilities than the certification sample does (None otherwise)."""
    seen, level = screening_resolution(n_least), screening_resolution(n_certification)
    if seen <= level:
        return None
    budget = screening_budget_for(level, n_candidates)
    return (
        f"screening resolution: each candidate drew at least {n_least} samples per input, so an output event "
        f"of probability below {seen:.2g} could go unseen in a candidate's screening (chance above "
        f"{MISS_RATE:g}) and a pair that leaks only through it could lose the ranking; to screen every "
        f"candidate down to {level:.2g} (what the {n_certification} certification samples resolve), pass "
        f"n_screening={budget} or more (with n_samples={math.ceil(budget / (1.0 - CERTIFICATION_FLOOR)) + 1} or more: "
        "n_samples is the whole budget), or fewer candidates"
    )


def _held_per_input(n_screening: int, n_candidates: int, n_refining: int, n_selection: int) -> int:
    """The most screening samples per input the search holds at once (the survivors of a round keep theirs)."""

    def peak(budget, m):
        alive, cumulative, held = m, 0, 0
        for size in _round_sizes(budget, m):
            cumulative += size
            held = max(held, alive * cumulative)
            alive = math.ceil(alive / 2)
        return held

    main = peak(n_screening - n_refining, n_candidates)
    refine = peak(n_refining, REFINEMENTS + 1) if n_refining else 0
    return max(main + refine, n_selection)


def _screening_draws(n_screening: int, n_candidates: int, n_refining: int = 0, floor: int = MIN_ROUND_SAMPLES) -> int:
    """The most samples per input a screening of this budget draws: every pair's rounds (at least ``floor``
    each), and with ``n_refining`` a refinement over all :data:`REFINEMENTS` moves."""

    def drawn(budget, m):
        alive, total = m, 0
        for size in _round_sizes(budget, m, floor):
            total += size * alive
            alive = math.ceil(alive / 2)
        return total

    refining = drawn(n_refining, REFINEMENTS + 1) if n_refining else 0
    return drawn(n_screening - n_refining, max(1, n_candidates)) + refining


@dataclass(frozen=True)
class _Budget:
    """Samples per input a search spends: screening over all candidates and rounds (``n_screening``), of it
    refining the winner (``n_refining``), the chosen pair's selection at least (``n_selection``) and at most
    (``n_grown``, :data:`WINNER_GROWN_SHARE`), over the ``n_candidates`` pairs proposed (0 until they are);
    of ``n_samples``, the most drawn before certification (``n_before_certification``), the most one screening
    draws (``n_screening_most``), the most the value track's screening draws besides (``n_value_screening``:
    all of its screening, less the first round where the first screening's draws are kept), whether the value
    track has room (``value_track``) and whether the first screening's draws are kept for it (``keeps_draws``).
    The search's part of its plan (its ``design``)."""

    n_screening: int
    n_selection: int
    n_refining: int = 0
    n_candidates: int = 0
    n_grown: int = 0
    n_samples: int = 0
    n_before_certification: int = 0
    n_screening_most: int = 0
    n_value_screening: int = 0
    value_track: bool = False
    keeps_draws: bool = False
    round_floor: int = MIN_ROUND_SAMPLES

    def top_up_room(self, spent: int, value_track: bool, samples=None) -> int:
        """Samples per input a top-up may still draw, ``spent`` having been drawn, leaving the certification
        its floor and, on the verdict's track (``value_track`` False) where the value track may run (on
        ``samples`` that are not integer arrays: floating-point families read real outputs), room for what the
        value track's screening draws (``n_value_screening``)."""
        room_kept = self.value_track and not value_track and not _integer_array(samples)
        reserve = self.n_value_screening if room_kept else 0
        return max(0, self.n_before_certification - reserve - spent)

    def held(self, n_screening: int | None = None) -> int:
        """The most screening samples per input held at once, with this budget or another ``n_screening``."""
        n_screening = self.n_screening if n_screening is None else n_screening
        largest = max(self.n_selection, self.n_grown)
        return _held_per_input(n_screening, self.n_candidates, self.n_refining, largest)


def _fit_budget(plan, budget: _Budget, value_possible: bool, pilot) -> _Budget:
    """``budget`` within ``n_samples``: refuse by name, before any draw, a screening that would leave the
    certification less than its floor (:data:`CERTIFICATION_FLOOR`), and give the value track room only where
    what its screening draws fits too (``value_possible``: it may run at all). That is the whole second
    screening, less its first round where the first screening's draws are kept for it (:func:`_keeps_draws`,
    decided here from ``pilot``): every candidate screens its first round in both, on the same seeds."""
    n = plan.n_samples
    floor = max(minimum_certifying_samples(plan.epsilon, plan.delta, plan.alpha), math.ceil(CERTIFICATION_FLOOR * n))
    before = n - floor
    rounds = MIN_ROUND_SAMPLES
    most = _screening_draws(budget.n_screening, budget.n_candidates, budget.n_refining, rounds)
    while most > before and rounds > SMALLEST_ROUND:  # fewer samples a round where the budget is tight
        rounds = max(SMALLEST_ROUND, int(rounds * before / most))
        most = _screening_draws(budget.n_screening, budget.n_candidates, budget.n_refining, rounds)
    if most > before:
        needed = math.ceil(most / (1.0 - CERTIFICATION_FLOOR)) + 1
        raise InsufficientSamplesError(
            f"n_samples={n} is the search's whole budget, and its screening would draw up to {most} per input "
            f"({budget.n_candidates} candidates, at least {SMALLEST_ROUND} each per round), leaving less than "
            f"the {floor} per input the certification keeps; pass n_samples={needed} or more, fewer candidates "
            "or a smaller n_screening",
            required=needed,
        )
    sized = replace(budget, n_samples=n, n_before_certification=before, n_screening_most=most, round_floor=rounds)
    keeps = value_possible and _keeps_draws(pilot, sized)
    again = most - (_first_round_size(sized) * sized.n_candidates if keeps else 0)
    value = value_possible and most + again <= before
    return replace(sized, n_value_screening=again, value_track=value, keeps_draws=keeps and value)


def _first_round_size(budget: _Budget) -> int:
    """Samples per input each candidate draws in a screening's first round (both tracks draw them)."""
    return _round_sizes(budget.n_screening - budget.n_refining, budget.n_candidates, budget.round_floor)[0]


def _screening_plan(plan, budget: _Budget):
    """The plan screening ranks pairs with: its certification size the one expected after the screening,
    the value track's room and the plain selection, at least the floor (the ranking predicts bounds at it)."""
    reserve = budget.n_screening_most + (budget.n_value_screening if budget.value_track else 0)
    expected = max(plan.n_samples - budget.n_before_certification, plan.n_samples - reserve - plan.n_selection)
    return plan.with_selection(plan.n_selection, expected)


def _search_sizes(n_screening):
    """The sizing step of a search's plan: a plain audit's split of ``n_samples`` for the chosen pair, and the
    screening budget (default :func:`default_screening_size`)."""

    def sizes(n_samples, options, claim) -> Sizes:
        split = fixed_split(n_samples, options, claim)
        screening = default_screening_size(split.n_samples) if n_screening is None else n_screening
        grown = min(int(WINNER_GROWN_SHARE * split.n_samples), MAX_WINNER_SELECTION)
        budget = _Budget(check.check_count(screening, "n_screening", minimum=1), split.n_selection, n_grown=grown)
        return replace(split, design=budget)

    return sizes


def _check_screening_memory(plan, mechanism, x, budget: _Budget):
    """Refuse by name, before any screening draw, a search whose held samples cannot fit in memory.

    One pilot output of ``x`` (a contract stream of the plan's sequence: no audit stream moves) sizes the
    outputs, as :func:`dpverify.audits.certification.check_memory` does for the drivers that hold one
    selection sample; the message says the largest budget that fits. Returns the pilot (None where drawing
    it raised).
    """
    pilot = pilot_output(mechanism, x, plan.sequence, output_key=plan.options.output_key)
    if pilot is None:
        return None
    # the certification's chunk bookkeeping alone, for a budget no selection size can make fit
    require_memory(pilot, 0, n_certification=plan.n_samples, n_chunks=plan.options.n_chunks)
    held = budget.held()
    try:
        require_memory(pilot, held)
    except InsufficientMemoryError as exc:
        lo, hi = budget.n_refining + 1, budget.n_screening
        if audit_memory_bytes(pilot, budget.held(lo)) > exc.available_bytes:
            advice = "fewer candidates or a smaller n_samples"
        else:
            while lo < hi:  # the largest budget that fits
                mid = (lo + hi + 1) // 2
                fits = audit_memory_bytes(pilot, budget.held(mid))
                lo, hi = (mid, hi) if fits <= exc.available_bytes else (lo, mid - 1)
            advice = f"n_screening={lo} or less"
        raise InsufficientMemoryError(
            f"the search would hold up to {held} samples per input at once (its screening, n_screening="
            f"{budget.n_screening} over {budget.n_candidates} candidates, or the chosen pair's selection), about "
            f"{exc.required_bytes / 2**30:.3g} GiB, and {exc.available_bytes / 2**30:.3g} GiB is available; "
            f"pass {advice} (or map the outputs to fewer coordinates with output_key=)",
            required_bytes=exc.required_bytes,
            available_bytes=exc.available_bytes,
        ) from None
    return pilot


def _proposed_pairs(neighbours, n_candidates, sequence) -> tuple[list, str]:
    """The candidate pairs a search of ``neighbours`` under ``sequence`` screens first (its candidate stream)."""
    return candidate_pairs(neighbours, n_candidates, children(sequence, len(DRIVER.streams))[0])


def check_replay_candidates(result, neighbours, replayed=None) -> None:
    """Refuse by name a replay of ``result`` on neighbours that propose other pairs than it recorded.

    Parameters
    ----------
    result : SearchAuditResult
        The result to replay.
    neighbours
        What the replay was handed.
    replayed : SearchAuditResult, optional
        The replay's own result: then every candidate (refinement moves included) must match.

    Raises
    ------
    ReplayMismatchError
        A candidate pair differs from the recorded one, or their numbers differ.
    """
    if replayed is None:  # before drawing: the first pairs screened (refinement moves come after them)
        sequence, _ = resolve_seed(result.seed)
        proposed, source = _proposed_pairs(neighbours, result.n_pairs_requested, sequence)
    else:  # after: every candidate, refinement moves included
        proposed, source = [(c.x, c.x_prime) for c in replayed.candidates], replayed.neighbours
    recorded = result.candidates
    for i, pair in enumerate(proposed):
        if i >= len(recorded) or pair_key(tuple(pair)) != pair_key((recorded[i].x, recorded[i].x_prime)):
            was = "none" if i >= len(recorded) else f"{short_repr(recorded[i].x)} ~ {short_repr(recorded[i].x_prime)}"
            raise ReplayMismatchError(
                f"cannot replay this search audit on {source}: its candidate {i} is "
                f"{short_repr(pair[0])} ~ {short_repr(pair[1])}, the result recorded {was} (from "
                f"{result.neighbours}); a replay on other neighbours would audit other pairs. Pass the "
                "neighbours that were searched, or run dpverify.search_audit for a new search"
            )
    if replayed is not None and len(proposed) != len(recorded):
        raise ReplayMismatchError(
            f"cannot replay this search audit on {source}: it screened {len(proposed)} candidate pairs, "
            f"the result recorded {len(recorded)} (from {result.neighbours})"
        )


@dataclass(frozen=True)
class ScreenedCandidate(PlainData):
    """One candidate pair and what screening saw of it.

    Attributes
    ----------
    x, x_prime : object
        The pair.
    rounds : int
        Screening rounds it took part in (the chosen pair: all).
    n_screened : int
        Screening samples per input it drew in all.
    predicted_bound : float
        The bound its best event was predicted to certify, on its last round
        (``-inf`` where no event separated its samples), on the parameter pairs are ranked on
        (:func:`dpverify.audits.choosing.ranking_scale`: pure epsilon for a zCDP or Rényi claim).
    event : str
        That event, in words.
    """

    x: object
    x_prime: object
    rounds: int
    n_screened: int
    predicted_bound: float
    event: str

    @classmethod
    def from_dict(cls, data: dict) -> ScreenedCandidate:
        data = dict(data)
        data["x"], data["x_prime"] = _as_tuples(data["x"]), _as_tuples(data["x_prime"])
        return cls(**data)


def _as_tuples(value):
    """Lists (as JSON gives back inputs saved as tuples or arrays) as tuples, recursively."""
    if isinstance(value, list):
        return tuple(_as_tuples(v) for v in value)
    return value


@dataclass(frozen=True)
class SearchAuditResult(AuditResult):
    """Outcome of :func:`search_audit`: the verdict on the chosen pair, and the search behind it.

    The verdict fields (``violation``, ``epsilon_lower_bound``, ``pvalue``,
    ``event``, ``value_verdict``...) are those of :class:`dpverify.AuditResult`,
    certified on fresh samples of the chosen pair at the full ``alpha``.
    ``n_samples`` is the search's whole budget per input (``draws`` says what each step took:
    screening, the top-up, the value track, certification); ``n_selection`` the samples per input
    the chosen pair's events were selected on (its screening samples and its top-up).

    Attributes
    ----------
    x, x_prime : object
        The chosen pair (the event's ``direction`` refers to them).
    candidates : tuple of ScreenedCandidate
        Every pair tried, in the order they were proposed.
    chosen : int
        Index of the chosen pair in ``candidates``.
    n_screening : int
        Screening budget per input (all candidates and rounds).
    n_screening_drawn : int
        Screening samples per input drawn over all candidates and rounds (more than
        ``n_screening`` where each pair's 500 per round exceed it; 0: not recorded).
    n_refining : int
        Of it, the samples per input spent refining the winner (0: none).
    n_candidates : int or None
        Candidates asked of a generator, callable or strategy (None: the default;
        a list is used whole).
    neighbours : str
        Where the candidates came from, in words.
    value_x, value_x_prime : object
        The pair the value verdict was certified on, where the value track chose another pair than the
        verdict's (:func:`search_audit`, Notes); None when the value verdict, if any, is on ``x, x_prime``.
    """

    x: object = None
    x_prime: object = None
    candidates: tuple = ()
    chosen: int = 0
    n_screening: int = 0
    n_screening_drawn: int = 0
    n_refining: int = 0
    n_pairs_requested: int | None = None
    neighbours: str = ""
    value_x: object = None
    value_x_prime: object = None

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["x"], data["x_prime"] = _as_tuples(data.get("x")), _as_tuples(data.get("x_prime"))
        data["value_x"], data["value_x_prime"] = _as_tuples(data.get("value_x")), _as_tuples(data.get("value_x_prime"))
        data["candidates"] = tuple(ScreenedCandidate.from_dict(c) for c in data.get("candidates", ()))
        return data

    @property
    def predicted_bound_scale(self) -> str:
        """The scale of the candidates' ``predicted_bound`` values, in words (:func:`.choosing.ranking_scale`):
        ``"on rho"``, or ``"on pure epsilon, the scale pairs are ranked on; ..."`` for a kind reading cells."""
        claim = self.audited_claim
        scale = ranking_scale(claim)
        if scale == claim.parameter_name:
            return f"on {scale}"
        return f"on {scale}, the scale pairs are ranked on; {claim.parameter_name} is certified for the chosen pair"

    def summary(self) -> str:
        """The audit's lines, with the chosen pair and the search that chose it."""
        lines = super().summary().split("\n")
        best = sorted(self.candidates, key=lambda c: -c.predicted_bound)[:3]
        tried = "; ".join(f"{short_repr(c.x, 40)} ~ {short_repr(c.x_prime, 40)}: {c.predicted_bound:.3g}" for c in best)
        certified = self.event.n_certification
        drawn = self.n_screening_drawn or self.n_screening
        asked = ""
        if drawn > self.n_screening:
            asked = f"n_screening={self.n_screening} asked, each pair draws a floor per round; "
        elif drawn < self.n_screening:
            asked = f"of n_screening={self.n_screening}; "
        lines = [
            lines[0],
            f"chosen pair: x={short_repr(self.x)}, x'={short_repr(self.x_prime)} "
            f"(best of {len(self.candidates)} candidates from {self.neighbours})",
            *[line for line in lines[1:] if not line.startswith("samples:")],
            f"samples: {drawn} per input drawn to screen the candidates ({asked}the chosen pair's events were "
            f"selected on {self.n_selection}), {certified} fresh ones per input to certify; seed {self.seed}",
            f"top predicted bounds in screening ({self.predicted_bound_scale}): {tried}",
        ]
        if self.value_x is not None:
            lines = [
                line.replace("value events only (same samples)", "value events only (on the pair below)")
                for line in lines
            ]
            lines.append(
                f"value verdict on the pair the value events ranked best: x={short_repr(self.value_x)}, "
                f"x'={short_repr(self.value_x_prime)}"
            )
            if self.value_verdict is not None and self.value_verdict.violation and not self.violation:
                lines.insert(
                    1,
                    "the value verdict, a values-only search on another pair at the same level, certifies a "
                    "VIOLATION that the verdict above does not (see its line below)",
                )
        return "\n".join(lines)


@dataclass
class _Pair:
    """A candidate during screening: its selection samples so far and its last score."""

    index: int
    x: object
    x_prime: object
    seed: np.random.SeedSequence
    samples_x: object = None
    samples_x_prime: object = None
    n: int = 0
    rounds: int = 0
    rng_used: bool = True
    selection: object = None
    score: float = -math.inf
    event: str = "not screened"


def _round_sizes(n_screening: int, n_candidates: int, floor: int = MIN_ROUND_SAMPLES) -> list[int]:
    """Samples per input each surviving pair draws in each round of successive halving."""
    sizes, alive = [], n_candidates
    rounds = max(1, math.ceil(math.log2(n_candidates))) if n_candidates > 1 else 1
    per_round = n_screening / rounds
    while True:
        sizes.append(max(floor, int(per_round // alive)))
        if alive <= 1:
            break
        alive = math.ceil(alive / 2)
        if alive == 1:
            break
    return sizes


@dataclass(frozen=True)
class _Screening:
    """How a search screens: its plan, where it draws, the families that rank pairs
    (:func:`~dpverify.audits.choosing.screening_event_families`), whether the chosen pair's
    selection keeps the floating-point families (False on the value track), and the screening draws kept
    for the value track (``kept``, shared by both tracks; None: not kept)."""

    plan: object
    executor: object
    families: list
    float_events: bool
    track: str = ""
    round_floor: int = MIN_ROUND_SAMPLES
    kept: dict | None = None

    @classmethod
    def of(cls, plan, executor, float_events: bool, track: str = "", round_floor: int = MIN_ROUND_SAMPLES, kept=None):
        families = screening_event_families(plan.options.families, float_events)
        return cls(plan, executor, families, float_events, track, round_floor, kept)

    def purpose(self, step: str) -> str:
        """What this track's draws of ``step`` are recorded as (``"screening"``, ``"value selection"``...)."""
        return f"{self.track}{step}"

    def final_options(self):
        """The options the chosen pair's events are selected with: every family asked for."""
        options = self.plan.options
        return replace(options, event_families=options.families, float_events=self.float_events)


def _screen_round(pairs, size, round_index, mechanism, screening, *, final: bool = False, bar=None) -> None:
    """Draw ``size`` more samples per input for every pair and rank it (``final``: select its events).

    Pair by pair (each from its own seeds, so the order changes nothing): ``bar`` advances after each,
    so the progress line's time estimate comes after the first pair, not after the first round."""
    plan = screening.plan
    common = dict(
        executor=screening.executor,
        n_chunks=DEFAULT_CHUNKS,
        output_key=plan.options.output_key,
        return_rng_used=True,
    )
    for pair in pairs:
        if size > 0:
            _draw_more(pair, size, round_index, mechanism, common, screening.kept)
        with warnings.catch_warnings():  # the chosen pair's selection keeps its notes
            warnings.simplefilter("ignore", UserWarning)
            if final:  # the chosen pair's events (or cells), selected in the claim's form with every family asked for
                pair.selection = select_for_claim(
                    plan,
                    pair.samples_x,
                    pair.samples_x_prime,
                    inputs=(pair.x, pair.x_prime),
                    options=screening.final_options(),
                    mechanism=mechanism,
                )
            else:
                pair.score, pair.event = rank_pair(pair, plan, screening.families, mechanism)
        if bar is not None:
            bar.update(size)


def _draw_more(pair, size: int, round_index: int, mechanism, common: dict, kept: dict | None = None) -> None:
    """``size`` more screening samples per input for ``pair``, from its seed's child ``round_index``.

    Where ``kept`` is a dict, draws that are not both integer arrays (floating-point families read the others)
    are kept in it (a copy: nothing the track does to its own samples reaches the other track), and a draw it
    already holds (the same pair, seed, round and size: the same samples) is taken from it, copied, instead of
    being drawn again."""
    key = _draw_key(pair, round_index, size)
    if kept is not None and key in kept:
        held_x, used_x, held_xp, used_xp = kept[key]
        new_x, new_xp = _copied(held_x), _copied(held_xp)
    else:
        seed_x, seed_xp = children(children(pair.seed, round_index + 1)[round_index], 2)
        new_x, used_x = draw(mechanism, pair.x, size, seed_x, label="x", **common)
        new_xp, used_xp = draw(mechanism, pair.x_prime, size, seed_xp, label="x_prime", **common)
        if kept is not None and not (_integer_array(new_x) and _integer_array(new_xp)):
            kept[key] = (_copied(new_x), used_x, _copied(new_xp), used_xp)
    if pair.samples_x is None:
        pair.samples_x, pair.samples_x_prime = new_x, new_xp
    else:
        pair.samples_x = concatenate_outputs([pair.samples_x, new_x])
        pair.samples_x_prime = concatenate_outputs([pair.samples_x_prime, new_xp])
    pair.n += size
    pair.rounds += 1
    pair.rng_used = pair.rng_used and used_x and used_xp


def _draw_key(pair, round_index: int, size: int) -> tuple:
    """What makes two screening draws the same samples: the pair, its seed, the round and the size (one search:
    one entropy)."""
    return (pair_key((pair.x, pair.x_prime)), tuple(pair.seed.spawn_key), round_index, size)


def _integer_array(samples) -> bool:
    """Whether ``samples`` are an array of integers (or booleans): outputs no floating-point family reads."""
    return isinstance(samples, np.ndarray) and samples.dtype.kind in "iub"


def _copied(samples):
    """A copy of drawn ``samples`` that shares nothing with them (an array's copy, or a deep copy)."""
    return samples.copy() if isinstance(samples, np.ndarray) else copy.deepcopy(samples)


def _keeps_draws(pilot, budget: _Budget) -> bool:
    """Whether the screening's draws are kept for the value track: where the whole screening fits in memory a
    second time besides what the search holds anyway (``pilot`` sizes the outputs,
    :func:`_check_screening_memory`; a pilot that could not be drawn keeps nothing).

    The value track screens the candidates again on the same per-pair, per-round seeds, so every round
    both tracks screen draws the same samples: kept, they are drawn once and the budget pays for them once
    (what it saves goes to the certification). Keeping them changes no choice of either track."""
    if pilot is None:
        return False
    try:
        require_memory(pilot, budget.held() + budget.n_screening_most)
    except InsufficientMemoryError:
        return False
    return True


def _value_screening_draws(budget: _Budget, kept: dict | None, candidates) -> int:
    """The most samples per input the value track's screening of ``candidates`` draws: the whole screening,
    less each candidate's first round where ``kept`` holds it."""
    size = _first_round_size(budget)
    held = sum(1 for p in candidates if kept is not None and _draw_key(p, 0, size) in kept)
    return budget.n_screening_most - held * size


def _successive_halving(pairs, n_screening, mechanism, screening, first_round: int = 0):
    """Screen ``pairs`` by successive halving; returns the winner and the rounds run (the others keep
    their last scores). Round ``r`` of a pair draws from its seed's child ``first_round + r``."""
    sizes = _round_sizes(n_screening, len(pairs), screening.round_floor)
    alive = list(pairs)
    total = sum(size * math.ceil(len(pairs) / 2**r) for r, size in enumerate(sizes))
    with progress_bar(total=total, desc="screening pairs", enabled=screening.plan.options.progress) as bar:
        for round_index, size in enumerate(sizes, start=first_round):
            _screen_round(alive, size, round_index, mechanism, screening, bar=bar)
            # ties keep the earlier candidate (the fixed patterns come first)
            ranked = sorted(alive, key=lambda p: (-p.score, p.index))
            keep = max(1, math.ceil(len(alive) / 2))
            for dropped in ranked[keep:]:
                dropped.samples_x = dropped.samples_x_prime = None  # memory: only survivors keep samples
            alive = ranked[:keep]
            if len(alive) == 1:
                break
    return alive[0], first_round + len(sizes)


def _refines(neighbours) -> bool:
    """Whether ``neighbours`` is a generator that proposes local moves of a pair."""
    return isinstance(neighbours, NeighbourGenerator) and (
        type(neighbours).refinements is not NeighbourGenerator.refinements
    )


def _refine(winner, screened, neighbours, n_screening, n_rounds, mechanism, screening):
    """Local refinement: screen up to :data:`REFINEMENTS` moves of ``winner`` against it (successive
    halving on ``n_screening`` more samples per input, from the plan's refining stream; the winner keeps
    its samples). The moves not tried before are appended to ``screened``; returns the new winner and the
    rounds run so far."""
    seed_moves, seed_screen = children(screening.plan.streams["refining"], 2)
    moves = neighbours.refinements(winner.x, winner.x_prime, REFINEMENTS, np.random.default_rng(seed_moves))
    seen = {pair_key((p.x, p.x_prime)) for p in screened}
    new = []
    for x, x_prime in moves:
        key = pair_key((x, x_prime))
        check_declared_domain(mechanism, x, x_prime, where=f" (a refinement of the chosen pair by {neighbours!r})")
        if key not in seen:
            seen.add(key)
            new.append((x, x_prime))
    if not new:
        return winner, n_rounds
    seeds = children(seed_screen, len(new))
    pairs = [_Pair(len(screened) + j, x, xp, s) for j, ((x, xp), s) in enumerate(zip(new, seeds))]
    screened.extend(pairs)
    return _successive_halving([winner, *pairs], n_screening, mechanism, screening, first_round=n_rounds)


def _check_refining(n_refining, n_screening: int, neighbours) -> int:
    n_refining = check.check_count(n_refining, "n_refining", minimum=0)
    if n_refining >= n_screening:
        raise InvalidParameterError(f"n_refining={n_refining} must be smaller than n_screening={n_screening}")
    if n_refining and not _refines(neighbours):
        raise InvalidParameterError(
            f"n_refining={n_refining} needs neighbours that propose local moves of a pair (a generator of "
            f"dpverify.neighbours with refinements, such as query_vectors); {type(neighbours).__name__} does not, "
            "so leave n_refining at 0"
        )
    return n_refining


def _top_up(winner, n_selection: int, next_round: int, mechanism, screening) -> None:
    """Give the chosen pair a selection sample at least as large as a plain audit's, and select its
    events on all its screening samples with every event family asked for."""
    _screen_round([winner], max(0, n_selection - winner.n), next_round, mechanism, screening, final=True)


def _on_input_domain(neighbours, mechanism):
    """A generator without an input domain, on the domain the mechanism declares (``input_domain``), if any."""
    declared = declared_domain(mechanism)
    if declared is None or getattr(neighbours, "domain", 0) is not None or not hasattr(neighbours, "with_domain"):
        return neighbours
    return neighbours.with_domain(declared)


def _find_winner(screened, budget: _Budget, neighbours, mechanism, screening, spent, chosen=None):
    """Screen ``screened`` (successive halving, then refinement with ``budget.n_refining``) and top the winner
    up to its selection, as far as the budget leaves room (:meth:`_Budget.top_up_room`, ``spent`` the search's
    ledger); returns the winner with its frozen selection, the screening samples drawn per input over all
    pairs, and the fewest any screened pair had (both before the top-up). A winner that is the pair ``chosen``
    (the verdict's, whose selection is made) is returned without a top-up or a selection."""
    with drawing_for(screening.purpose("screening")):
        winner, n_rounds = _successive_halving(screened, budget.n_screening - budget.n_refining, mechanism, screening)
        n_selection_final = budget.n_selection
        if budget.n_refining:  # the final pair's events are selected on at least as many samples as the first's
            n_selection_final = max(budget.n_selection, winner.n)
            winner, n_rounds = _refine(winner, screened, neighbours, budget.n_refining, n_rounds, mechanism, screening)
    n_drawn = sum(p.n for p in screened)
    n_least = min(p.n for p in screened if p.rounds)
    if chosen is not None and pair_key((winner.x, winner.x_prime)) == pair_key((chosen.x, chosen.x_prime)):
        return winner, n_drawn, n_least
    n_selection_final = max(n_selection_final, _grown_winner_selection(winner, n_selection_final, screening))
    room = budget.top_up_room(sum(spent.per_input().values()), bool(screening.track), winner.samples_x)
    with drawing_for(screening.purpose("selection")):
        _top_up(winner, min(n_selection_final, winner.n + room), n_rounds, mechanism, screening)
    return winner, n_drawn, n_least


def _grown_winner_selection(winner, n_selection: int, screening) -> int:
    """The chosen pair's selection size where its outputs are discrete with many repeating values
    (:data:`WINNER_GROWN_SHARE`); ``n_selection`` otherwise, or where its outputs are not arrays or would
    hold more than :data:`MAX_WINNER_SELECTION_BYTES` per input."""
    held = winner.samples_x
    if not isinstance(held, np.ndarray) or held.dtype == object or winner.n < 1:
        return n_selection
    cap = min(MAX_WINNER_SELECTION, int(MAX_WINNER_SELECTION_BYTES // max(1, held.nbytes // winner.n)))
    current = max(n_selection, winner.n)
    n_samples = screening.plan.n_samples
    if _counts_select(winner, screening):  # the count-and-level fit and its tail thresholds sharpen with rows
        return max(current, min(int(WINNER_GROWN_SHARE * n_samples), cap))
    return grown_selection_size(
        winner.samples_x, winner.samples_x_prime, n_samples, current, share=WINNER_GROWN_SHARE, cap=cap
    )


def _counts_select(winner, screening) -> bool:
    """Whether a family the chosen pair's events are selected with declares a fit that sharpens with the
    selection rows on its outputs (:attr:`dpverify.events.EventFamily.grows_selection`: the count-and-level
    family on real vectors with markers and values)."""
    return grows_selection(screening.plan.options.families, winner.samples_x, winner.samples_x_prime)


def _value_track_possible(options, pilot=None) -> bool:
    """Whether floating-point families may take part in a verdict and value families are there to rank on (and,
    given a ``pilot`` output, whether it is not an integer: floating-point families read no integer outputs)."""
    integer = isinstance(pilot, (int, np.integer, np.bool_)) or _integer_array(pilot)
    return bool(options.float_events and screening_event_families(options.families, False)) and not integer


def _float_picked(winner, options) -> bool:
    """Whether a floating-point family took part in the verdict and value families are there to rank on."""
    if not _value_track_possible(options):
        return False
    return any(c.event.role == "implementation" for c in winner.selection.verdict_choices)


def _value_winner(candidates, budget, neighbours, mechanism, screening, spent, chosen):
    """The pair a values-only search chooses, with its value events selected, when a floating-point family
    took part in the verdict; None where it is the verdict's own pair (``chosen``).

    The same candidates are screened again, ranked by the value families alone (``screening``, the value
    track), on the same per-pair, per-round seeds and the same screening budget (so exactly the screening
    samples a search with ``float_events=False`` draws; those the first screening drew are taken from
    ``screening.kept`` where it holds them); its top-up takes what the budget leaves
    (:meth:`_Budget.top_up_room`), and is not drawn where the pair is ``chosen`` (it would go unused).
    """
    fresh = [_Pair(p.index, p.x, p.x_prime, p.seed) for p in candidates]
    value, _, _ = _find_winner(fresh, budget, neighbours, mechanism, screening, spent, chosen)
    if pair_key((value.x, value.x_prime)) == pair_key((chosen.x, chosen.x_prime)):
        return None, fresh
    return value, fresh


def _value_verdict(result, plan, mechanism, value, fresh, screening):
    """``result`` with the value verdict of ``value`` (the value track's pair, another than the verdict's):
    its value events certified on the verdict's certification streams and the plan's ``n_certification``
    (valid: that pair and its events are functions of the screening streams only)."""
    check_sampler(plan, mechanism, value.x, value.x_prime)
    with drawing_for("value certification"):
        certified = _certify(plan, mechanism, value, fresh, screening)
    verdict = recorded_value_verdict(certified, result.alpha)
    finding = classify_finding(
        violation=result.violation,
        family=result.event.family,
        epsilon_lower_bound=result.claim_lower_bound,
        claimed_epsilon=result.audited_claim.parameter,
        value_verdict=verdict,
    )
    return replace(result, value_verdict=verdict, value_x=value.x, value_x_prime=value.x_prime, finding=finding)


def _value_track_fits(budget: _Budget, kept: dict | None, candidates, spent) -> bool:
    """Whether the value track's screening fits, drawn per input so far ``spent`` (the search's ledger): planned
    room (``budget.value_track``) and, as drawn, no more than the draws before certification may take (where
    draws planned to be kept were not, it would draw more than the room kept for it)."""
    drawn = sum(spent.per_input().values()) + _value_screening_draws(budget, kept, candidates)
    return budget.value_track and drawn <= budget.n_before_certification


def _value_track_note(n_samples: int, budget: _Budget, again: int) -> str:
    """Why the value track did not run where a floating-point family took part in the verdict (``again``: what
    its screening would draw)."""
    needed = budget.n_screening_most + again
    return (
        f"value track not run: a floating-point family took part in the verdict, and a values-only screening "
        f"(up to {again} more per input) does not fit in n_samples={n_samples} besides the "
        f"first and the certification's floor; the value verdict is on the verdict's pair (pass n_samples="
        f"{math.ceil(needed / (1.0 - CERTIFICATION_FLOOR)) + 1} or more for the value track)"
    )


def _propose(plan, mechanism, neighbours, n_candidates, n_refining):
    """The candidate pairs of a search, from the plan's candidate stream, each with its screening seed, and the
    budget that screens them; memory is checked here, before any screening draw. Returns the pairs, the
    neighbours (on the mechanism's input domain), the budget, where the pairs came from and the pilot output
    that sized them (:func:`_check_screening_memory`)."""
    budget = replace(plan.design, n_refining=_check_refining(n_refining, plan.design.n_screening, neighbours))
    neighbours = _on_input_domain(neighbours, mechanism)
    _check_candidates_fit(neighbours, n_candidates)
    pairs, source = candidate_pairs(neighbours, n_candidates, plan.streams["candidates"])
    for i, (x, x_prime) in enumerate(pairs):
        check_declared_domain(mechanism, x, x_prime, where=f" (candidate pair {i}, from {source})")
    budget = replace(budget, n_candidates=len(pairs))
    pilot = _check_screening_memory(plan, mechanism, pairs[0][0], budget)
    seeds = children(plan.streams["screening"], len(pairs))
    screened = [_Pair(i, x, xp, s) for i, ((x, xp), s) in enumerate(zip(pairs, seeds))]
    return screened, neighbours, budget, source, pilot


def _check_candidates_fit(neighbours, n_candidates) -> None:
    """Refuse by name, before drawing them, more candidate pairs than memory can hold even at their smallest
    (:data:`PAIR_BYTES` each, a lower bound: a list slot and a 2-tuple of shared inputs): a callable asked
    for 1e9 pairs ran out of memory drawing them. A run this refuses could not have finished."""
    if isinstance(neighbours, (list, tuple)) or not isinstance(n_candidates, numbers.Integral):
        return  # a sequence is searched whole (n_candidates does not apply); a bad count is named where it is read
    available = memory_model.available_memory_bytes()
    if available is not None and n_candidates * PAIR_BYTES > available:
        raise InsufficientMemoryError(
            f"n_candidates={n_candidates} pairs would take at least {n_candidates * PAIR_BYTES / 2**30:.3g} GiB "
            f"to draw, and {available / 2**30:.3g} GiB is available; pass n_candidates={available // PAIR_BYTES} "
            "or fewer (a search screens at most one candidate per 100 of its n_samples)",
            required_bytes=n_candidates * PAIR_BYTES,
            available_bytes=available,
        )


def _certify(plan, mechanism, pair, drawn, screening, **fields):
    """The frozen events of ``pair`` (the chosen candidate, with its selection) certified on the plan's
    certification streams; ``drawn`` are the candidates whose draws decide ``rng_used``, ``fields`` the
    result's own (a search's: every candidate and what screening saw of it)."""
    rng_used = all(p.rng_used for p in drawn if p.rounds)
    return certified_result(
        plan,
        mechanism,
        pair.x,
        pair.x_prime,
        pair.selection,
        rng_used=rng_used,
        executor=screening.executor,
        n_selection=pair.n,
        **fields,
    )


@recording_draws
def search_audit(
    mechanism,
    neighbours,
    *,
    epsilon=None,
    delta=None,
    claim=None,
    n_samples: int = DEFAULT_SAMPLES,
    seed=None,
    n_candidates: int | None = None,
    n_screening: int | None = None,
    n_refining: int = 0,
    options: AuditOptions | None = None,
    **option_fields,
) -> SearchAuditResult:
    """Audit ``mechanism``'s claim on the worst pair a search of ``neighbours`` finds.

    Parameters
    ----------
    mechanism : callable
        As for :func:`dpverify.audit`.
    neighbours : NeighbourGenerator, sequence of pairs, callable or Hypothesis strategy
        The neighbouring relation to search: a ready generator
        (:mod:`dpverify.neighbours`: ``query_vectors``, ``streams``,
        ``graph_weights``, ``add_remove_one``), a sequence of ``(x, x_prime)``
        pairs, a callable ``neighbours(rng) -> (x, x_prime)``, or a Hypothesis
        strategy of pairs (:func:`dpverify.neighbours.candidate_pairs`).
    epsilon, delta : float, optional
        The claim; omitted, the mechanism's stated claim (as for :func:`dpverify.audit`).
    claim : PrivacyClaim, optional
        A claim of any kind instead of ``epsilon`` and ``delta`` (as for
        :func:`dpverify.audit`). Pairs are ranked by the bound on the claim's own
        parameter for the kinds that read events (Gaussian DP, trade-off curves), and
        by the epsilon bound for those that read cells (zCDP, Rényi); the chosen pair
        is certified in the claim's form.
    n_samples : int, default 100_000
        The search's whole budget: samples drawn per input by screening, the chosen
        pair's selection top-up, the value track and certification together (the
        contract checks' fixed draws apart; ``result.draws`` says what each took).
        Screening takes ``n_screening``; the chosen pair's selection is topped up to
        at least a plain audit's selection size (or ``options.n_selection``) as far
        as the budget leaves room; the certification gets every sample left, at
        least :data:`CERTIFICATION_FLOOR` of ``n_samples``.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the whole search (candidates, screening, certification from
        separate spawned children); the value recorded replays it.
    n_candidates : int, optional
        Pairs drawn from a generator, callable or strategy (default 16, and
        at least every fixed pattern of a generator: its fixed patterns, then
        random draws); a sequence is used whole.
    n_screening : int, optional
        Screening samples per input over all candidates and rounds, out of
        ``n_samples`` (default :func:`default_screening_size`: 0.3 of ``n_samples``,
        at most 8,000,000). Each pair draws at least 500 per input per round it
        takes part in (fewer, down to 100, where ``n_samples`` could not hold that
        besides the certification's floor; refused by name below that).
    n_refining : int, default 0
        Of ``n_screening``, the samples per input spent refining the screened
        winner: with a generator that proposes local moves (``query_vectors``:
        shift, push one answer, flip or move the difference), up to 8 moves of the
        winner are screened against it by successive halving, and the final pair's
        events are selected on at least as many samples as the first winner had.
        Default 0 (off): with a quarter of the budget it did not raise the certified
        bounds on the sparse vector and noisy max cases (measured: docs/manual/search.md,
        "Defaults and the measurements behind them").
    options : AuditOptions, optional
        As for :func:`dpverify.audit`; ``alpha`` is the false-alarm rate of the
        verdict however many candidates were screened.
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword.

    Returns
    -------
    SearchAuditResult

    Raises
    ------
    InvalidNeighboursError
        No usable pairs (equal inputs, not pairs, bad ``n_candidates``).
    OutsideDomainError
        A candidate pair (given, drawn from a callable or strategy, or a refinement) outside the
        mechanism's declared input domain (``input_domain``).
    InvalidParameterError
        ``n_refining`` not smaller than ``n_screening``, or asked of neighbours that propose no local moves.
    InsufficientMemoryError
        The screening samples the search would hold at once cannot fit in memory (refused after one
        pilot output, before any screening draw; the message says the budget that fits).
    InsufficientSamplesError
        The screening (at least 100 per input per pair and round) would leave the certification less than
        its floor; the message says the ``n_samples`` that fits.
    InvalidClaimError, InvalidParameterError, InsufficientSamplesError, MechanismError, OutputTypeError
        As for :func:`dpverify.audit`.

    Notes
    -----
    When the least-screened candidate resolves coarser event probabilities than the
    certification does (:func:`screening_resolution`), a note says so and gives the
    budget that would resolve the certification's level (:func:`screening_budget_for`).

    Where the chosen pair's outputs are discrete with many values that repeat, or where a family used
    declares a fit that sharpens with rows on them (``EventFamily.grows_selection``: the count-and-level
    family on real vectors with markers and values), its selection is topped up to
    :data:`WINNER_GROWN_SHARE` of ``n_samples`` (at most :data:`MAX_WINNER_SELECTION` per input and
    :data:`MAX_WINNER_SELECTION_BYTES` of outputs), from its own screening stream, as far as the budget
    leaves room (where the value track may run on real outputs, room for what its screening draws is kept).

    Successive halving: with ``m`` candidates there are ``ceil(log2 m)`` rounds;
    each spends ``n_screening / ceil(log2 m)`` samples per input, split evenly over
    the pairs still in; the better half (by predicted bound) goes on. Samples of
    earlier rounds are kept, so the chosen pair's events are selected on about
    ``n_screening / ceil(log2 m)`` samples per input.

    Value and float verdicts are screened apart. Screening ranks pairs by the best event of any family,
    so a floating-point leak (Mironov 2012) can choose a pair whose values leak little. When a
    floating-point family takes part in the chosen pair's verdict, the candidates are screened again by
    the value families alone, on the same per-pair seeds (the samples a search with
    ``float_events=False`` draws); if that picks another pair, it is topped up to its selection and its
    value events are certified on the verdict's certification streams and give ``value_verdict`` (with
    ``value_x``, ``value_x_prime``), which is then the pair and the value events a values-only search
    chooses (where it picks the verdict's pair, that pair is not topped up again). Each verdict keeps its level
    ``alpha``. Cost, within ``n_samples``, only when a float family took part: the second screening draws
    what the first did not (a round of a pair both screenings keep is the same samples, drawn once and kept
    where a copy of the first screening's outputs fits in memory; at most the same ``n_screening`` per input)
    and, if the pair differs, the samples left are split evenly between the two certifications. Room for it
    is kept before any draw: the whole second screening, less its first round (which every candidate runs in
    both) where the draws are kept, and none where a pilot output is an integer (floating-point families read
    no integer outputs). Where that does not fit besides the first screening and the
    certification's floor, the value track does not run and a note says so.

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.mechanisms import NoisyMaxValue
    >>> from dpverify.neighbours import query_vectors
    >>> r = dpverify.search_audit(NoisyMaxValue(0.1), query_vectors(5), epsilon=0.1, n_samples=1_000_000, seed=1)
    >>> r.violation, r.x_prime
    (True, (2.0, 1.0, 2.0, 6.0, 1.0))
    """
    claimed, sizes = (epsilon, delta, claim), _search_sizes(n_screening)
    plan = build_plan(DRIVER, mechanism, None, claimed, n_samples, seed, options, option_fields, sizes=sizes)
    screened, neighbours, budget, source, pilot = _propose(plan, mechanism, neighbours, n_candidates, n_refining)
    budget = _fit_budget(plan, budget, _value_track_possible(plan.options, pilot), pilot)
    notes = []
    # one pool for every draw of the search; the ledger is the budget: certification gets what is left
    with one_executor(plan.options.executor) as pool, drawing_ledger() as spent:
        screening_plan, floor = _screening_plan(plan, budget), budget.round_floor
        kept = {} if budget.keeps_draws else None
        screening = _Screening.of(screening_plan, pool, plan.options.float_events, round_floor=floor, kept=kept)
        winner, n_drawn, n_least = _find_winner(screened, budget, neighbours, mechanism, screening, spent)
        check_sampler(plan, mechanism, winner.x, winner.x_prime)  # the sampler check, on the chosen pair
        value, fresh, candidates = None, (), screened[: budget.n_candidates]
        if _float_picked(winner, plan.options) and not _value_track_fits(budget, kept, candidates, spent):
            notes.append(_value_track_note(plan.n_samples, budget, _value_screening_draws(budget, kept, candidates)))
        elif _float_picked(winner, plan.options):
            value_screening = _Screening.of(screening_plan, pool, False, track="value ", round_floor=floor, kept=kept)
            value, fresh = _value_winner(candidates, budget, neighbours, mechanism, value_screening, spent, winner)
        left = plan.n_samples - sum(spent.per_input().values())
        n_value = left // 2 if value is not None else 0
        certifying = plan.with_selection(winner.n, left - n_value)
        candidates = tuple(ScreenedCandidate(p.x, p.x_prime, p.rounds, p.n, float(p.score), p.event) for p in screened)
        searched = dict(x=winner.x, x_prime=winner.x_prime, candidates=candidates, chosen=winner.index)
        budgets = dict(n_screening=budget.n_screening, n_screening_drawn=n_drawn, n_refining=budget.n_refining)
        requested = dict(n_pairs_requested=n_candidates, neighbours=source)
        result = _certify(
            certifying,
            mechanism,
            winner,
            screened,
            screening,
            cls=SearchAuditResult,
            **searched,
            **budgets,
            **requested,
        )
        if value is not None:
            valued = certifying.with_selection(value.n, n_value)
            result = _value_verdict(result, valued, mechanism, value, fresh, value_screening)
    result = replace(result, n_samples=plan.n_samples)
    added = (_resolution_note(n_least, certifying.n_certification, len(screened)), power_note(result), *notes)
    return replace(result, notes=(*result.notes, *(note for note in added if note is not None)))


def _replay(result, *inputs, executor=None, progress=False):
    plan = plan_of_result(result, executor=executor, progress=progress, driver=DRIVER)  # first: a result with no seed
    mechanism, neighbours = DRIVER.replay_inputs(result, inputs)
    check_replay_candidates(result, _on_input_domain(neighbours, mechanism))
    notes = check_source(result, plan, mechanism, result.x, result.x_prime)  # the mechanism on the chosen pair
    again = search_audit(
        mechanism,
        neighbours,
        n_samples=plan.n_samples,
        n_candidates=result.n_pairs_requested,
        n_screening=result.n_screening,
        n_refining=result.n_refining,
        **claim_arguments(plan),
    )
    check_replay_candidates(result, neighbours, replayed=again)
    return with_notes(again, notes)


DRIVER = Driver(
    "search_audit",
    SearchAuditResult,
    streams=("candidates", "screening", "certification_x", "certification_x_prime", "refining"),
    inputs=("mechanism", "neighbours"),
    replay=_replay,
)
