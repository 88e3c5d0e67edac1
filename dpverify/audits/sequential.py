"""Sequential audits: stop as soon as the verdict is settled.

A fixed-size audit (:func:`dpverify.audit`) spends its whole budget even when
the first thousand samples already show a flagrant violation. A *sequential*
audit looks at the data at a few pre-registered sample sizes and stops at the
first look that certifies a violation.

The plan (a group-sequential design with Bonferroni alpha spending; a
**choice** among the group-sequential designs of Jennison and Turnbull 2000):

1. The looks are fixed before any sample is drawn: ``N_1 = first_look``,
   ``N_k = growth * N_{k-1}`` while below the budget, and ``N_K = n_samples``
   (a geometric schedule, so the overshoot past the sample size a violation
   needs is at most a factor ``growth``; every sample is drawn once, and the
   counting at all looks costs about ``growth / (growth - 1)`` times that of
   one fixed audit of the same size).
2. The overall level ``alpha`` is split in advance: ``final_share * alpha`` to
   the last look (so a tight certification loses little against a fixed
   audit of the same budget), the rest in equal parts to the earlier looks.
   The levels ``alpha_k`` sum to ``alpha``.
3. Two independent streams per input arrive in batches: a *selection*
   stream and a *certification* stream. Look ``k`` splits its ``N_k``
   samples as a fixed-size audit would (``s_k`` to select, by
   :func:`dpverify.pipeline.selection.default_selection_size` unless ``n_selection``
   is given, and ``c_k = N_k - s_k`` to certify); it sees the first ``s_k``
   of the selection stream and the first ``c_k`` of the certification stream,
   which extend those of look ``k - 1``.
4. At look ``k`` the event is chosen on its selection prefix alone and
   frozen, then counted on its certification prefix by streaming
   (:func:`dpverify.pipeline.sampling.count_events`), and tested at level
   ``alpha_k``. Counts are kept per batch and event, so an event that stays
   the same from look to look is never recounted; a new one is counted on
   the earlier batches, whose outputs are kept for it (every batch but the
   last: memory holds them besides the selection sample, and nothing is drawn
   twice, so the audit draws at most ``n_samples`` per input).
5. The audit stops at the first look whose p-value is at most ``alpha_k``
   (a violation), else after the last look (no violation found).

Why the false-alarm rate survives the stopping: at each look, the event is
a function of the selection stream alone, which is independent of the
certification stream, so on a mechanism that keeps its claim the look
rejects with probability at most ``alpha_k`` whatever the other looks saw. The audit reports a
violation only if some look rejects, and
by the union bound that has probability at most ``sum_k alpha_k = alpha``,
however the looks are correlated and wherever the audit stops. The same union
bound makes the reported lower bounds ``1 - alpha`` confidence bounds, and
``min_k p_k / w_k`` (with ``w_k = alpha_k / alpha``) a valid overall p-value.

There is no stopping for futility: a claim that is kept (or nearly violated)
uses the whole budget, while an obvious violation stops after a few thousand
samples.
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass, replace

import numpy as np

from .. import _validation as check
from .._results import PlainData
from ..errors import InsufficientMemoryError, InsufficientSamplesError, NotReplayableError
from ..options import AuditOptions
from ..pipeline.sampling import (
    DEFAULT_CHUNKS,
    children,
    concatenate_outputs,
    count_events,
    draw,
)
from ..pipeline.selection import default_selection_size
from ..protocols import check_replayable, contract_seed
from ..support.bounds import minimum_certifying_samples
from ..support.progress import progress_bar
from .certification import audit_result, check_before_drawing, recording_draws
from .choosing import select_for_claim
from .fingerprint import fingerprint_of
from .plan import Sizes, build_plan, claim_arguments, claim_words, pair_driver, sizing_claim
from .results import AuditResult

__all__ = [
    "sequential_audit",
    "SequentialAuditResult",
    "Look",
    "look_schedule",
    "alpha_spending",
    "LookSizes",
]


DEFAULT_BUDGET = 1_000_000
DEFAULT_FIRST_LOOK = 1_000
DEFAULT_GROWTH = 2.0
DEFAULT_FINAL_SHARE = 0.5


@dataclass(frozen=True)
class Look(PlainData):
    """What one look of a sequential audit saw.

    Attributes
    ----------
    n_samples : int
        Samples per input seen at this look (selection plus certification).
    alpha : float
        The level spent on this look.
    pvalue : float
        P-value of the claim on this look's certification samples.
    epsilon_lower_bound, delta_lower_bound : float
        The look's ``1 - alpha_k`` lower bounds (``delta_lower_bound`` None when the claim is
        not stated in (epsilon, delta)).
    violation : bool
        ``pvalue <= alpha``: the look rejected the claim (and the audit stopped).
    event : str
        Description of the event (or cells) certified at this look.
    claim_lower_bound : float or None
        The look's ``1 - alpha_k`` lower bound on the claim's parameter (epsilon, rho, mu...; None
        in looks saved before it was recorded).
    """

    n_samples: int
    alpha: float
    pvalue: float
    epsilon_lower_bound: float
    delta_lower_bound: float | None
    violation: bool
    event: str
    claim_lower_bound: float | None = None


@dataclass(frozen=True)
class SequentialAuditResult(AuditResult):
    """Outcome of :func:`sequential_audit`: an :class:`~dpverify.AuditResult` plus the looks.

    The inherited fields describe the *decisive* look (the one that rejected,
    or the last one): its event, bounds and sample counts; ``n_samples`` is
    therefore the number of samples per input the audit used. ``alpha`` is
    the overall level and ``pvalue`` the Bonferroni-adjusted overall p-value
    ``min_k p_k / w_k`` over the looks made (capped at 1), so
    ``violation == (pvalue <= alpha)`` as for a fixed audit.

    Attributes
    ----------
    budget : int
        The largest number of samples per input the plan allowed.
    looks : tuple of Look
        The looks made, in order.
    schedule : tuple of int
        The pre-registered sample sizes of all looks.
    stopped_early : bool
        True when the audit stopped before the last look of the schedule.
    plan : dict or None
        The look plan asked for (``first_look``, ``growth``, ``final_share``):
        with ``budget``, the claim, the seed and the options it replays the audit.
    """

    budget: int = 0
    looks: tuple = ()
    schedule: tuple = ()
    stopped_early: bool = False
    plan: dict | None = None

    @property
    def n_samples_used(self) -> int:
        """Samples per input the audit drew (the sample size of its decisive look)."""
        return self.n_samples

    def to_dict(self) -> dict:
        """A JSON-serializable dictionary of plain data, the looks included (reload with :meth:`from_dict`)."""
        return super().to_dict()

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["looks"] = tuple(Look(**look) for look in data.get("looks", ()))
        data["schedule"] = tuple(data.get("schedule", ()))
        return data

    def summary(self) -> str:
        base = super().summary()
        stop = (
            f"stopped early at look {len(self.looks)} of {len(self.schedule)}"
            if self.stopped_early
            else f"all {len(self.schedule)} looks made"
        )
        return base + (
            f"\nsequential: {stop}; used {self.n_samples} of {self.budget} samples per input "
            f"(looks at {', '.join(str(n) for n in self.schedule)})"
        )


def look_schedule(budget: int, first_look: int = DEFAULT_FIRST_LOOK, growth: float = DEFAULT_GROWTH) -> list[int]:
    """Pre-registered sample sizes of the looks: geometric from ``first_look``, ending at ``budget``.

    A geometric look whose size is within a factor 1.25 of the budget is
    merged into the final look (it would spend alpha for almost no saving).

    Examples
    --------
    >>> look_schedule(10_000, 1_000, 2.0)
    [1000, 2000, 4000, 10000]
    """
    budget = check.check_positive_int(budget, "n_samples", minimum=2)
    first_look = check.check_positive_int(first_look, "first_look", minimum=2)
    growth = check.check_positive_real(growth, "growth", lower=1.0)
    looks = []
    n = first_look
    while n * 1.25 < budget:
        looks.append(int(n))
        n = max(int(n) + 1, int(math.ceil(n * growth)))
    looks.append(budget)
    return looks


def alpha_spending(alpha: float, n_looks: int, final_share: float = DEFAULT_FINAL_SHARE) -> list[float]:
    """Levels of the looks: ``final_share * alpha`` for the last, the rest split equally.

    They sum to ``alpha`` (Bonferroni over the looks). With one look the whole
    ``alpha`` goes to it.

    Examples
    --------
    >>> alpha_spending(0.05, 3, 0.5)
    [0.0125, 0.0125, 0.025]
    """
    alpha = check.check_alpha(alpha)
    n_looks = check.check_positive_int(n_looks, "n_looks")
    final_share = check.check_fraction(final_share, "final_share")
    if n_looks == 1:
        return [alpha]
    early = alpha * (1.0 - final_share) / (n_looks - 1)
    return [early] * (n_looks - 1) + [alpha * final_share]


def _split(n: int, n_selection) -> tuple[int, int]:
    """(selection, certification) samples per input of a look of ``n`` samples."""
    s = default_selection_size(n) if n_selection is None else min(n_selection, n - 1)
    return s, n - s


@dataclass(frozen=True)
class LookSizes:
    """The looks of a sequential audit, fixed before any draw: the sizes, levels and splits of each.

    Attributes
    ----------
    schedule : tuple of int
        Samples per input at each look (:func:`look_schedule`, less the early looks too small to certify).
    alphas : tuple of float
        The level of each look (:func:`alpha_spending`).
    splits : tuple of (int, int)
        ``(selection, certification)`` samples per input at each look.
    first_look, growth, final_share
        The look plan asked for (recorded in the result: with the budget it replays the audit).
    """

    schedule: tuple
    alphas: tuple
    splits: tuple
    first_look: int
    growth: float
    final_share: float

    def recorded(self) -> dict:
        """The look plan as the result records it."""
        return {"first_look": self.first_look, "growth": self.growth, "final_share": self.final_share}


def _look_sizes(first_look, growth, final_share):
    """The sizing step of a sequential audit's plan: the looks (:class:`LookSizes`) within the budget."""

    def sizes(n_samples, options, claim) -> Sizes:
        (epsilon, delta), alpha, n_selection = sizing_claim(claim), options.alpha, options.n_selection
        n_samples = check.check_positive_int(n_samples, "n_samples", minimum=2)
        first = check.check_positive_int(first_look, "first_look", minimum=2)
        schedule = look_schedule(n_samples, min(first, n_samples), growth)
        alphas = alpha_spending(alpha, len(schedule), final_share)

        # Drop early looks too small to ever certify at their level: they would spend alpha for nothing.
        def can_certify(n, a):
            return _split(n, n_selection)[1] >= minimum_certifying_samples(epsilon, delta, a)

        if not can_certify(n_samples, alphas[-1]):
            required = minimum_certifying_samples(epsilon, delta, alphas[-1])
            raise InsufficientSamplesError(
                f"n_samples={n_samples} cannot certify a violation of {claim_words(claim)} "
                f"at the last look's level {alphas[-1]:.3g} (alpha={alpha:g}, final_share={final_share:g}): "
                f"at least {required} certification samples per input are needed, "
                f"and n_samples={n_samples} leaves {_split(n_samples, n_selection)[1]}",
                required=required + _split(n_samples, n_selection)[0],
            )
        while len(schedule) > 1 and not can_certify(schedule[0], alphas[0]):
            schedule = schedule[1:]
            alphas = alpha_spending(alpha, len(schedule), final_share)
        splits = tuple(_split(n, n_selection) for n in schedule)
        looks = LookSizes(tuple(schedule), tuple(alphas), splits, first, growth, final_share)
        return Sizes(n_samples, max(s for s, _ in splits), splits[-1][1], design=looks)

    return sizes


def _run_looks(plan, mechanism, x, x_prime) -> SequentialAuditResult:
    """Steps 3 to 5 of the module docstring for the plan's looks (its claim of any kind: each look
    selects and certifies in its form)."""
    options, looks_planned, streams = plan.options, plan.design, plan.streams
    schedule, splits = looks_planned.schedule, looks_planned.splits
    selection_sample = _GrowingSelection(
        mechanism, x, x_prime, streams["selection_x"], streams["selection_x_prime"], len(schedule), options
    )
    cert_batches = [c - (splits[j - 1][1] if j else 0) for j, (_, c) in enumerate(splits)]
    certification = _BatchCounts(
        mechanism, x, x_prime, cert_batches, streams["certification_x"], streams["certification_x_prime"], options
    )
    _check_memory(plan, mechanism, x, x_prime, sum(cert_batches[:-1]))
    replay = check_replayable(mechanism, x, contract_seed(plan.sequence), output_key=options.output_key)
    looks: list[Look] = []
    adjusted = 1.0
    result = None
    with progress_bar(total=schedule[-1], desc="sequential audit", enabled=options.progress) as bar:
        for k, (alpha_k, (s_k, c_k)) in enumerate(zip(looks_planned.alphas, splits)):
            sel_x, sel_xp = selection_sample.grow_to(s_k, k)
            selection = select_for_claim(
                plan, sel_x, sel_xp, inputs=(x, x_prime), n_certification=c_k, alpha=alpha_k, mechanism=mechanism
            )
            counts = certification.counts(selection, k)
            bar.update(schedule[k] - (schedule[k - 1] if k else 0))
            result = audit_result(
                selection,
                counts[0],
                counts[1],
                c_k,
                c_k,
                replayable=selection_sample.rng_used and certification.rng_used and replay.replayable,
                replay_note=replay.note,
                fingerprint=fingerprint_of(mechanism, (x, x_prime), replay),
                **plan.result_fields(alpha=alpha_k, n_selection=s_k),
            )
            rejected = bool(result.pvalue <= alpha_k)
            looks.append(
                Look(
                    schedule[k],
                    alpha_k,
                    result.pvalue,
                    result.epsilon_lower_bound,
                    result.delta_lower_bound,
                    rejected,
                    result.event.description,
                    claim_lower_bound=result.claim_lower_bound,
                )
            )
            adjusted = min(adjusted, result.pvalue * plan.alpha / alpha_k)
            if rejected:
                break
    values = {f: getattr(result, f) for f in AuditResult.__dataclass_fields__}
    values.update(
        pvalue=min(1.0, adjusted),
        violation=bool(looks[-1].violation),
        alpha=plan.alpha,
        budget=schedule[-1],
        looks=tuple(looks),
        schedule=tuple(schedule),
        stopped_early=len(looks) < len(schedule),
    )
    return SequentialAuditResult(**values)


def _check_memory(plan, mechanism, x, x_prime, n_kept: int) -> None:
    """The checks before drawing (:func:`~dpverify.audits.certification.check_before_drawing`), memory counted
    for the largest look's selection and the ``n_kept`` certification outputs per input the audit keeps."""
    try:
        check_before_drawing(plan, mechanism, x, x_prime, n_held=plan.n_selection + n_kept)
    except InsufficientMemoryError as error:
        raise InsufficientMemoryError(
            f"a sequential audit keeps its certification batches but the last ({n_kept} outputs per input "
            f"here) besides its selection ({plan.n_selection}), to count the events of later looks on them "
            f"without drawing past n_samples: {error}",
            error.required_bytes,
            error.available_bytes,
        ) from None


class _GrowingSelection:
    """The selection sample of both inputs, grown look by look; look ``k`` draws its growth from stream ``k``."""

    def __init__(self, mechanism, x, x_prime, seed_x, seed_x_prime, n_looks: int, options: AuditOptions):
        self._mechanism, self._options = mechanism, options
        self._inputs = (
            ([], x, "x", children(seed_x, n_looks)),
            ([], x_prime, "x_prime", children(seed_x_prime, n_looks)),
        )
        self._size = 0
        #: Whether every draw took its randomness from the generator it was given.
        self.rng_used = True

    def grow_to(self, size: int, k: int):
        """The selection outputs of ``x`` and ``x_prime``, grown to ``size`` per input at look ``k``."""
        grow, self._size = size - self._size, size  # the growth over the last look's size
        for parts, data, label, seeds in self._inputs:
            if grow > 0:
                drawn, used = draw(
                    self._mechanism,
                    data,
                    grow,
                    seeds[k],
                    label=label,
                    executor=self._options.executor,
                    n_chunks=DEFAULT_CHUNKS,
                    output_key=self._options.output_key,
                    return_rng_used=True,
                )
                parts.append(drawn)
                self.rng_used = self.rng_used and used
        return tuple(concatenate_outputs(parts) for parts, *_ in self._inputs)


class _BatchCounts:
    """Counts of frozen events on the certification batches, each event counted once per batch.

    Batch ``j`` (``batches[j]`` fresh outputs per input, from stream ``j`` of each
    certification seed) joins at look ``j``; an event chosen again at a later look
    reuses the counts it already has, keyed by the codec and indicator it was frozen with.
    Every batch but the last keeps its outputs when it is drawn, and a new event is counted
    on those of the earlier batches: each batch is drawn once.
    """

    def __init__(self, mechanism, x, x_prime, batches, seed_x, seed_x_prime, options: AuditOptions):
        self._mechanism, self._x, self._x_prime, self._options = mechanism, x, x_prime, options
        self._batches = batches
        self._seeds = (children(seed_x, len(batches)), children(seed_x_prime, len(batches)))
        self._cache: dict = {}
        self._kept: dict = {}  # batch -> (outputs of x, outputs of x_prime)
        #: Whether every draw took its randomness from the generator it was given.
        self.rng_used = True

    def counts(self, selection, k: int) -> np.ndarray:
        """Counts (row 0 for ``x``, row 1 for ``x_prime``) of ``selection``'s events on batches 0 to ``k``."""
        counts = np.zeros((2, len(selection.choices)), dtype=np.int64)
        keys = [pickle.dumps((selection.codec, c.event.indicator)) for c in selection.choices]
        for j in range(k + 1):
            missing = [i for i, key in enumerate(keys) if (key, j) not in self._cache]
            if missing and self._batches[j] > 0:
                if j in self._kept:
                    self._count_kept(selection, keys, missing, j)
                else:
                    self._count_batch(selection, keys, missing, j)
            for i, key in enumerate(keys):
                counts[:, i] += self._cache.get((key, j), (0, 0))
        return counts

    def _count_batch(self, selection, keys, missing, j: int) -> None:
        """Draw batch ``j`` and count the ``missing`` events on it (keeping its outputs unless it is the last)."""
        keep = j < len(self._batches) - 1
        counted = count_events(
            self._mechanism,
            [
                (self._x, self._batches[j], self._seeds[0][j], "x"),
                (self._x_prime, self._batches[j], self._seeds[1][j], "x_prime"),
            ],
            selection.codec,
            [selection.choices[i].event.indicator for i in missing],
            executor=self._options.executor,
            n_chunks=self._options.n_chunks,
            output_key=self._options.output_key,
            keep_outputs=keep,
        )
        if keep:
            counted, self._kept[j] = counted
        cx, cxp = counted
        self.rng_used = self.rng_used and cx.rng_used and cxp.rng_used
        for slot, i in enumerate(missing):
            self._cache[(keys[i], j)] = (int(cx.counts[slot]), int(cxp.counts[slot]))

    def _count_kept(self, selection, keys, missing, j: int) -> None:
        """Count the ``missing`` events on the kept outputs of batch ``j`` (drawn at an earlier look)."""
        encoded = [selection.codec.encode(outputs) for outputs in self._kept[j]]
        for i in missing:
            indicator = selection.choices[i].event.indicator
            self._cache[(keys[i], j)] = tuple(int(np.count_nonzero(indicator(codes))) for codes in encoded)


@recording_draws
def sequential_audit(
    mechanism,
    x,
    x_prime,
    *,
    epsilon=None,
    delta=None,
    claim=None,
    n_samples: int = DEFAULT_BUDGET,
    seed=None,
    first_look: int = DEFAULT_FIRST_LOOK,
    growth: float = DEFAULT_GROWTH,
    final_share: float = DEFAULT_FINAL_SHARE,
    options: AuditOptions | None = None,
    **option_fields,
) -> SequentialAuditResult:
    """Audit a privacy claim on ``x ~ x_prime``, stopping at the first certified violation.

    A group-sequential version of :func:`dpverify.audit` (see the module
    docstring for the plan and why its false-alarm rate is at most ``alpha``
    wherever it stops).

    Parameters
    ----------
    mechanism, x, x_prime, epsilon, delta
        As for :func:`dpverify.audit` (the claim defaults to the mechanism's own).
    claim : PrivacyClaim, optional
        A claim of any kind (as for :func:`dpverify.audit`); every look selects and
        certifies in its form (events, or cells for zCDP and Rényi DP).
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the audit (every look); the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.pipeline.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    n_samples : int, default 1_000_000
        The budget: the most samples per input the audit may draw (the last look).
    first_look : int, default 1000
        Samples per input at the first look (raised to the fewest that could
        certify a violation at that look's level).
    growth : float, default 2
        Ratio of successive look sizes.
    final_share : float, default 0.5
        Share of ``alpha`` spent on the last look.
    options : AuditOptions, optional
        As for :func:`dpverify.audit`, and recorded in the result. Its ``alpha``
        (default 0.05) is the overall false-alarm rate of ``violation``, over all
        looks; its ``n_selection`` is the selection size at every look (capped
        below the look's size; by default each look splits as a fixed audit of
        its size would).
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword.

    Returns
    -------
    SequentialAuditResult
        ``n_samples`` is the number of samples per input used;
        ``looks`` records each look, ``stopped_early`` whether it stopped
        before the budget.

    Raises
    ------
    InvalidClaimError, InvalidParameterError, IdenticalInputsError, OutsideDomainError, MechanismError, OutputTypeError
        As for :func:`dpverify.audit`.
    InsufficientSamplesError
        If even the whole budget could not certify a violation at the last look's level.

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.mechanisms.textbook import LaplaceMechanism
    >>> broken = LaplaceMechanism(epsilon=1.0)  # claimed 0.1 below: 10x too little noise
    >>> r = dpverify.sequential_audit(broken, 0.0, 1.0, epsilon=0.1, n_samples=10**6, seed=3)
    >>> r.violation, r.n_samples < 10**5
    (True, True)
    """
    claimed, sizes = (epsilon, delta, claim), _look_sizes(first_look, growth, final_share)
    plan = build_plan(DRIVER, mechanism, (x, x_prime), claimed, n_samples, seed, options, option_fields, sizes=sizes)
    result = _run_looks(plan, mechanism, x, x_prime)
    return replace(result, notes=result.notes + plan.claim_notes, plan=plan.design.recorded())


def _again(result, plan, mechanism, x, x_prime):
    if result.plan is None:
        raise NotReplayableError("this sequential result does not record its look plan")
    return sequential_audit(mechanism, x, x_prime, n_samples=plan.n_samples, **claim_arguments(plan), **result.plan)


DRIVER = pair_driver("sequential_audit", SequentialAuditResult, _again, sample_field="budget")
