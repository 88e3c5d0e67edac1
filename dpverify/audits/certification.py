"""Certification: from the frozen events' counts on fresh samples to a verdict, shared by every driver.

- :func:`check_sizes`, :func:`default_split`, :func:`required_samples`: how the
  samples split between choosing the events and certifying them, and the
  smallest sample that can certify anything at the claim and level;
- :func:`certify`, :func:`certify_best`: Clopper-Pearson bounds on one frozen
  event, and on ``m`` of them with Bonferroni;
- :func:`audit_result`: the :class:`~dpverify.audits.results.AuditResult` of a
  selection and its certification counts (the value verdict and the kind of
  finding included);
- :func:`count_frozen`, :func:`certified_result`: the certification step of the
  drivers that draw their own samples, from the frozen events to the result;
- :func:`check_before_drawing` (:func:`check_memory`, then :func:`check_sampler`): the checks
  every drawing driver makes on its plan before the first draw.

References
----------
C. J. Clopper, E. S. Pearson, "The Use of Confidence or Fiducial Limits Illustrated in the
Case of the Binomial", Biometrika 26(4), 1934.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np

from .. import _validation as check
from ..claims import PrivacyClaim
from ..errors import InsufficientSamplesError
from ..pipeline.divergence import cells_pvalue, cells_statistic
from ..pipeline.memory import output_bytes, pilot_output, require_memory
from ..pipeline.partition import SCORE_CELLS
from ..pipeline.sampler_check import check_sampler_agreement
from ..pipeline.sampling import CHECKS, count_events, drawing_ledger
from ..pipeline.selection import Choice, Selection, default_selection_size
from ..protocols import check_replayable, contract_seed
from ..support.bounds import (
    minimum_certifying_samples,
)
from .findings import classify_finding
from .fingerprint import fingerprint_of
from .results import AuditResult, EventEstimate, PartitionEstimate, ValueVerdict

__all__ = [
    "check_sizes",
    "default_split",
    "required_samples",
    "certify",
    "certify_best",
    "audit_result",
    "where_counted",
    "count_frozen",
    "certified_result",
    "check_before_drawing",
    "check_memory",
    "check_sampler",
    "certify_events",
    "recorded_value_verdict",
]


def check_sizes(
    n_samples, n_selection, *, epsilon: float, delta: float, alpha: float, claimed: str | None = None
) -> tuple[int, int]:
    """Validated ``(n_samples, n_selection)`` per input, with the default selection size.

    ``epsilon`` and ``delta`` size the certification (:func:`dpverify.audits.plan.sizing_claim`);
    ``claimed`` names the claim in its own form in the error (default ``"eps=..., delta=..."``).

    Raises
    ------
    InvalidParameterError
        ``n_selection`` not an integer in ``[1, n_samples)``.
    InsufficientSamplesError
        Too few certification samples to certify any violation at ``alpha``.
    """
    n_samples = check.check_positive_int(n_samples, "n_samples", minimum=2)
    fixed_selection = n_selection
    required_cert = minimum_certifying_samples(epsilon, delta, alpha)
    if n_selection is None:
        n_selection = default_split(n_samples, required_cert)
    else:
        n_selection = check.check_positive_int(n_selection, "n_selection")
        check.check_below(n_selection, "n_selection", n_samples, "n_samples", " (the rest certify)")
    if n_samples - n_selection < required_cert:
        required = required_samples(required_cert, fixed_selection)
        raise InsufficientSamplesError(
            f"n_samples={n_samples} with n_selection={n_selection} leaves "
            f"{n_samples - n_selection} certification samples, which cannot certify a violation of "
            f"{claimed or f'eps={epsilon:g}, delta={delta:g}'} at alpha={alpha:g}: at least {required_cert} "
            f"certification samples per input are needed (n_samples >= {required})",
            required=required,
        )
    return n_samples, n_selection


#: The default selection gives way to certification down to this many samples (or half of them).
MIN_DEFAULT_SELECTION = 1_000


def default_split(n_samples: int, required_certification: int) -> int:
    """Default selection size: :func:`default_selection_size`, shrunk so that at least
    ``required_certification`` samples certify when ``n_samples`` allows it (never below
    ``min(MIN_DEFAULT_SELECTION, n_samples // 2)``)."""
    n_selection = default_selection_size(n_samples)
    if n_samples - n_selection < required_certification:
        n_selection = max(n_samples - required_certification, min(MIN_DEFAULT_SELECTION, n_samples // 2), 1)
    return n_selection


def required_samples(n_certification: int, n_selection: int | None = None) -> int:
    """Smallest ``n_samples`` leaving ``n_certification`` certification samples per input.

    With ``n_selection`` None the default split applies (:func:`default_split`).
    """
    if n_selection is not None:
        return n_certification + n_selection
    n = n_certification + 1
    while n - default_split(n, n_certification) < n_certification:
        n += max(1, (n_certification - (n - default_split(n, n_certification))))
    return n


def _estimate(choice: Choice, count_x: int, count_x_prime: int, n_x: int, n_x_prime: int) -> EventEstimate:
    """The :class:`EventEstimate` of one frozen event from its certification counts."""
    return EventEstimate(
        description=choice.event.description,
        family=choice.event.family,
        direction=choice.direction,
        probability_x=count_x / n_x if n_x else 0.0,
        probability_x_prime=count_x_prime / n_x_prime if n_x_prime else 0.0,
        count_x=int(count_x),
        count_x_prime=int(count_x_prime),
        n_certification=int(n_x),
        n_certification_x_prime=None if n_x == n_x_prime else int(n_x_prime),
    )


def _oriented(choice, count_x, count_x_prime, n_x, n_x_prime):
    """The counts as ``(p, n_p, q, n_q)``: first under the input the event favours."""
    if choice.direction == "x":
        return count_x, n_x, count_x_prime, n_x_prime
    return count_x_prime, n_x_prime, count_x, n_x


def certify_events(choices, counts_x, counts_x_prime, n_x: int, n_x_prime: int, *, claim, alpha: float):
    """Certify ``m`` frozen events in the claim's form, with Bonferroni.

    Each event's bounds are the kind's :attr:`~dpverify.claims.ClaimKind.event_bounds` at level
    ``alpha / m``, so all hold together with probability ``1 - alpha``: the largest of each recorded
    bound is a valid ``1 - alpha`` lower bound, and the p-value is ``min(1, m * min_j p_j)`` of the
    kind's :attr:`~dpverify.claims.ClaimKind.event_pvalue`. The reported event is the one with the
    largest bound on the claim's parameter (ties: the largest recorded bounds).

    Returns ``(bound, pvalue, recorded, EventEstimate)``: ``recorded`` the bounds the kind records
    beside the verdict (0 when nothing could be chosen: nothing is certified).
    """
    kind, m = claim.kind_record, len(choices)
    if m == 0:
        recorded = dict.fromkeys(kind.records, 0.0)
        estimate = EventEstimate(
            "no event (nothing separated the selection samples)",
            "none",
            "x",
            0.0,
            0.0,
            0,
            0,
            int(n_x),
            None if n_x == n_x_prime else int(n_x_prime),
        )
        return 0.0, 1.0, recorded, estimate
    rows = []
    for j, choice in enumerate(choices):
        oriented = _oriented(choice, counts_x[j], counts_x_prime[j], n_x, n_x_prime)
        bound, recorded = kind.event_bounds(claim, *oriented, alpha / m)
        rows.append((bound, recorded, kind.event_pvalue(claim, *oriented)))
    best = max(range(m), key=lambda j: (rows[j][0], *rows[j][1].values()))
    recorded = {name: max(r[1][name] for r in rows) for name in rows[best][1]}
    pvalue = min(1.0, m * min(r[2] for r in rows))
    return (
        rows[best][0],
        pvalue,
        recorded,
        _estimate(choices[best], counts_x[best], counts_x_prime[best], n_x, n_x_prime),
    )


def certify(
    choice: Choice,
    count_x: int,
    count_x_prime: int,
    n_x: int,
    n_x_prime: int,
    *,
    epsilon: float,
    delta: float,
    alpha: float,
):
    """Clopper-Pearson verdict of an (epsilon, delta) claim on one frozen event from its certification counts.

    Returns ``(epsilon_lower_bound, delta_lower_bound, pvalue, EventEstimate)``.
    """
    return certify_best(
        (choice,), (count_x,), (count_x_prime,), n_x, n_x_prime, epsilon=epsilon, delta=delta, alpha=alpha
    )


def _replay_note(replayable: bool, note: str | None = None) -> tuple:
    if note:
        return (note,)
    if replayable:
        return ()
    return (
        "the mechanism did not draw from the rng it was given (or declares replayable=False): "
        "if it has randomness of its own, the recorded seed does not replay it",
    )


def certify_best(
    choices, counts_x, counts_x_prime, n_x: int, n_x_prime: int, *, epsilon: float, delta: float, alpha: float
):
    """:func:`certify_events` of an (epsilon, delta) claim.

    Returns ``(epsilon_lower_bound, delta_lower_bound, pvalue, EventEstimate)``.
    """
    claim = PrivacyClaim(epsilon, delta)
    _, pvalue, recorded, estimate = certify_events(
        choices, counts_x, counts_x_prime, n_x, n_x_prime, claim=claim, alpha=alpha
    )
    return recorded["epsilon_lower_bound"], recorded["delta_lower_bound"], pvalue, estimate


def _value_events(selection: Selection, estimate) -> tuple:
    """The value events certified beside the verdict's: those of ``selection`` when a floating-point event
    decided (``estimate`` is the verdict's), else none."""
    roles = {c.event.family: c.event.role for c in selection.verdict_choices}
    return selection.value_choices if roles.get(estimate.family) == "implementation" else ()


def audit_result(
    selection,
    counts_x,
    counts_x_prime,
    n_x: int,
    n_x_prime: int,
    *,
    alpha: float,
    n_selection: int,
    claim: PrivacyClaim | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    seed=None,
    replayable: bool = True,
    replay_note: str | None = None,
    cls=None,
    **extra,
) -> AuditResult:
    """Assemble an :class:`AuditResult` from a frozen selection and its certification counts, for every kind.

    ``selection`` is a :class:`~dpverify.pipeline.selection.Selection` (kinds that read events:
    ``counts_*`` hold one count per event of ``selection.choices``, the verdict's events then the
    value verdict's) or a :class:`~dpverify.pipeline.partition.Partition` (kinds that read cells:
    ``counts_*`` count every cell but the last, which is the rest). ``claim`` is the claim audited
    (None: the (``epsilon``, ``delta``) claim); ``replay_note`` is the note of
    :func:`dpverify.protocols.check_replayable`, if any.

    The result's ``claim_lower_bound`` is the certified bound on the claim's parameter and
    ``violation`` says whether the claim is rejected at ``alpha``; beside them it records the
    bounds the kind records (:attr:`~dpverify.claims.ClaimKind.event_bounds`: for (epsilon, delta)
    the epsilon bound at the claimed delta and the delta bound at the claimed epsilon; for the
    other kinds the pure-epsilon bound of the same confidence region), and the claimed epsilon
    and delta where the kind's claim is an (epsilon, delta) pair
    (:attr:`~dpverify.claims.ClaimKind.epsilon_delta`). The result's ``claim`` is ``claim`` as given
    (its kind, parameters and wording), for every kind.
    """
    claim = PrivacyClaim(epsilon, delta) if claim is None else claim
    kind = claim.kind_record
    pair = kind.as_epsilon_delta(claim)
    read = _cells_verdict if kind.reads == "cells" else _events_verdict
    bound, pvalue, violation, recorded, event, value_verdict, fields = read(
        selection, counts_x, counts_x_prime, n_x, n_x_prime, claim=claim, alpha=alpha
    )
    finding = classify_finding(
        violation=violation,
        family=event.family,
        epsilon_lower_bound=bound,
        claimed_epsilon=claim.parameter,
        value_verdict=value_verdict,
    )
    return (cls or AuditResult)(
        **{"delta_lower_bound": None, "claim_lower_bound": bound, **recorded},
        claimed_epsilon=pair[0] if pair else None,
        claimed_delta=pair[1] if pair else None,
        pvalue=pvalue,
        violation=violation,
        alpha=alpha,
        event=event,
        n_samples=n_selection + max(n_x, n_x_prime),
        n_selection=n_selection,
        n_candidates=selection.n_candidates,
        seed=seed,
        value_verdict=value_verdict,
        notes=selection.notes + _replay_note(replayable, replay_note),
        replayable=replayable,
        finding=finding,
        claim=claim,
        **fields,
        **extra,
    )


def _value_verdict(recorded: dict, pvalue: float, violation: bool, event, alpha: float) -> ValueVerdict:
    """The :class:`ValueVerdict` of the value events' (or cells') certified bounds."""
    return ValueVerdict(
        **{"delta_lower_bound": None, **recorded}, pvalue=pvalue, violation=violation, event=event, alpha=alpha
    )


def _cells_verdict(selection, counts_x, counts_x_prime, n_x, n_x_prime, *, claim, alpha):
    """A frozen :class:`~dpverify.pipeline.partition.Partition` certified (:func:`audit_result`): the bound, p-value,
    verdict, recorded bounds, event, value verdict (the score cells beside a floating-point event's, when it
    decided) and the ``partition`` field."""
    k = len(selection.cells)
    bound, pvalue, violation, eps_lb, partition = _certify_cells(
        selection, counts_x[:k], counts_x_prime[:k], n_x, n_x_prime, claim=claim, alpha=alpha
    )
    event = _cells_event(selection, partition, counts_x, counts_x_prime, n_x, n_x_prime)
    value_verdict = None
    if selection.value is not None:
        v_bound, v_p, v_violation, v_eps, v_cells = _certify_cells(
            selection.value, counts_x[k:], counts_x_prime[k:], n_x, n_x_prime, claim=claim, alpha=alpha
        )
        v_event = _cells_event(selection.value, v_cells, counts_x[k:], counts_x_prime[k:], n_x, n_x_prime)
        v_recorded = _cells_recorded(claim, v_eps, v_bound)
        value_verdict = _value_verdict(v_recorded, v_p, v_violation, v_event, alpha)
    recorded = _cells_recorded(claim, eps_lb, bound)
    return bound, pvalue, violation, recorded, event, value_verdict, {"partition": partition}


def _cells_recorded(claim, epsilon: float, bound: float) -> dict:
    """The bounds a result of cells records (those of ``claim``'s kind's ``records``): the pure-epsilon bound
    of the cells' region and the bound on the claim's parameter."""
    bounds = {"epsilon_lower_bound": epsilon, "claim_lower_bound": bound}
    return {name: bounds[name] for name in claim.kind_record.records}


def recorded_value_verdict(result: AuditResult, alpha: float) -> ValueVerdict:
    """``result``'s verdict as the :class:`ValueVerdict` beside another result of the same claim, with the bounds
    its kind records (``ClaimKind.records``)."""
    recorded = {name: getattr(result, name) for name in result.audited_claim.kind_record.records}
    bounds = {"delta_lower_bound": result.delta_lower_bound, "claim_lower_bound": result.claim_lower_bound, **recorded}
    return ValueVerdict(**bounds, pvalue=result.pvalue, violation=result.violation, event=result.event, alpha=alpha)


def _events_verdict(selection, counts_x, counts_x_prime, n_x, n_x_prime, *, claim, alpha):
    """A frozen :class:`~dpverify.pipeline.selection.Selection` certified in the claim's form (:func:`audit_result`),
    as :func:`_cells_verdict` returns it (no further fields)."""
    k = len(selection.verdict_choices)
    options = dict(claim=claim, alpha=alpha)
    bound, pvalue, recorded, estimate = certify_events(
        selection.verdict_choices, counts_x[:k], counts_x_prime[:k], n_x, n_x_prime, **options
    )
    value_verdict, value = None, _value_events(selection, estimate)
    if value:
        v_bound, v_p, v_recorded, v_event = certify_events(
            value, counts_x[k:], counts_x_prime[k:], n_x, n_x_prime, **options
        )
        value_verdict = _value_verdict(
            {"claim_lower_bound": v_bound, **v_recorded}, v_p, bool(v_p <= alpha), v_event, alpha
        )
    return bound, pvalue, bool(pvalue <= alpha), recorded, estimate, value_verdict, {}


def _certify_cells(partition, counts_x, counts_x_prime, n_x: int, n_x_prime: int, *, claim, alpha: float):
    """A frozen partition's certified bound on the claim's parameter, p-value, verdict, pure-epsilon bound and
    :class:`~dpverify.audits.results.PartitionEstimate`, from the counts of every cell but the last."""
    cells_x, cells_xp = _all_cells(counts_x, n_x), _all_cells(counts_x_prime, n_x_prime)
    bound, order, direction, region = cells_statistic(claim, cells_x, cells_xp, n_x, n_x_prime, alpha)
    bound = max(bound, 0.0)
    violation = bool(bound > claim.parameter)
    pvalue = cells_pvalue(claim, cells_x, cells_xp, n_x, n_x_prime) if violation or bound > 0 else 1.0
    estimate = PartitionEstimate(
        description=partition.description,
        edges=tuple(partition.edges),
        counts_x=tuple(int(c) for c in cells_x),
        counts_x_prime=tuple(int(c) for c in cells_xp),
        n_certification=int(n_x),
        order=order,
        direction=direction,
        n_certification_x_prime=None if n_x == n_x_prime else int(n_x_prime),
    )
    return bound, pvalue, violation and pvalue <= alpha, _cells_epsilon(region), estimate


def _cells_event(partition, estimate, counts_x, counts_x_prime, n_x: int, n_x_prime: int) -> EventEstimate:
    """The :class:`EventEstimate` of certified cells: a floating-point event's own counts where its two cells
    were frozen; for the cells of a score, their description alone (no one event's probabilities)."""
    n_xp = None if n_x == n_x_prime else int(n_x_prime)
    if partition.family == SCORE_CELLS:
        return EventEstimate(partition.description, SCORE_CELLS, estimate.direction, 0.0, 0.0, 0, 0, int(n_x), n_xp)
    a, b = int(counts_x[0]), int(counts_x_prime[0])
    shares = (a / n_x, b / n_x_prime)
    return EventEstimate(partition.description, partition.family, estimate.direction, *shares, a, b, int(n_x), n_xp)


def _all_cells(counts, n: int) -> np.ndarray:
    """Every cell's count: the counted cells, then the rest."""
    counts = np.asarray(counts, dtype=np.int64)
    return np.append(counts, n - counts.sum())


def _cells_epsilon(region) -> float:
    """The pure-epsilon bound of the cells' simultaneous region: ``max ln(lo / hi)`` over cells, both ways."""
    with np.errstate(divide="ignore"):
        ratios = np.concatenate(
            [
                np.log(region.lo_x) - np.log(region.hi_x_prime),
                np.log(region.lo_x_prime) - np.log(region.hi_x),
            ]
        )
    return float(max(0.0, np.nan_to_num(ratios, nan=0.0, neginf=0.0, posinf=0.0).max(initial=0.0)))


def where_counted(where) -> str | None:
    """A note on where the events were counted, for outputs of another array library."""
    if not where:
        return None
    if where == {"device"}:
        return "the mechanism returns arrays of another library: the events were counted on its device"
    return (
        "the mechanism returns arrays of another library, but the certified events (or output_key) "
        "cannot run there: its outputs were moved to the host to be counted"
    )


def count_frozen(mechanism, x, x_prime, selection: Selection, n_certification: int, seeds, options, executor):
    """Count the frozen events of ``selection`` on ``n_certification`` fresh outputs of each input.

    ``seeds`` are the two certification streams (for ``x`` and ``x_prime``), independent of
    everything that chose the events. Returns the two :class:`~dpverify.pipeline.sampling.EventCounts`.
    """
    seed_x, seed_x_prime = seeds
    return count_events(
        mechanism,
        [(x, n_certification, seed_x, "x"), (x_prime, n_certification, seed_x_prime, "x_prime")],
        selection.codec,
        [c.event.indicator for c in selection.choices],
        executor=executor,
        n_chunks=options.n_chunks,
        progress=options.progress,
        output_key=options.output_key,
    )


def certified_result(plan, mechanism, x, x_prime, selection: Selection, /, *, rng_used: bool, executor=None, **fields):
    """Certify the frozen events of ``selection`` on fresh samples of the pair and assemble the result.

    The step that every driver drawing its own samples shares after its selection:
    :func:`count_frozen` on the plan's certification streams (``n_certification`` outputs of each
    input), replayability decided where every driver decides it
    (:func:`dpverify.protocols.check_replayable`, on a stream of the plan's sequence of its own),
    :func:`audit_result` with the plan's result fields
    (:meth:`dpverify.audits.plan.AuditPlan.result_fields`), and the notes on the claim and on
    where the events were counted.

    Parameters
    ----------
    plan : AuditPlan
        Claim, options, sizes, seed and streams of the run.
    mechanism, x, x_prime
        The pair certified (a search's chosen pair).
    selection : Selection or Partition
        The frozen events (or cells).
    rng_used : bool
        Whether every draw before the certification took its randomness from the generator it was given.
    executor : optional
        Where the certification samples are drawn (default: the plan's ``options.executor``).
    **fields
        Result fields that replace or add to the plan's: ``n_selection`` where the selection grew,
        ``cls`` and the driver's own fields (which may include ``x`` and ``x_prime``: the arguments
        before them are positional only).
    """
    options = plan.options
    executor = options.executor if executor is None else executor
    seeds = (plan.streams["certification_x"], plan.streams["certification_x_prime"])
    counted_x, counted_xp = count_frozen(
        mechanism, x, x_prime, selection, plan.n_certification, seeds, options, executor
    )
    replay = check_replayable(mechanism, x, contract_seed(plan.sequence), output_key=options.output_key)
    result = audit_result(
        selection,
        counted_x.counts,
        counted_xp.counts,
        plan.n_certification,
        plan.n_certification,
        replayable=replay.replayable and rng_used and counted_x.rng_used and counted_xp.rng_used,
        replay_note=replay.note,
        fingerprint=fingerprint_of(mechanism, (x, x_prime), replay),
        **plan.result_fields(**fields),
    )
    note = where_counted(counted_x.where | counted_xp.where)
    notes = tuple(plan.claim_notes) + ((note,) if note else ())
    return replace(result, notes=result.notes + notes) if notes else result


def recording_draws(driver):
    """``driver`` with what it drew per input, and for what, recorded in its result's ``draws`` and
    ``checks_drawn`` (:class:`dpverify.pipeline.sampling.DrawLedger`, read off the sampling layer)."""

    @functools.wraps(driver)
    def run(*args, **kwargs):
        with drawing_ledger() as ledger:
            result = driver(*args, **kwargs)
        outside = ledger.per_input(outside=True)
        return replace(result, draws=ledger.per_input(), checks_drawn=outside.get(CHECKS, 0))

    return run


def check_memory(plan, mechanism, x, n_held: int | None = None):
    """Refuse by name, before any draw, a run whose ``n_held`` selection outputs per input (default: the
    plan's ``n_selection``), with the bookkeeping of its certification's chunks, cannot fit in memory; one
    pilot output of ``x``, on a contract stream of the plan's sequence (no audit stream moves), sizes the
    outputs.

    Returns the pilot output (:func:`dpverify.pipeline.memory.pilot_output`; None where there is none).

    Raises
    ------
    InsufficientMemoryError
        ``n_held`` outputs per input cannot fit.
    """
    pilot = pilot_output(mechanism, x, plan.sequence, output_key=plan.options.output_key)
    if pilot is not None:
        n_certification = plan.n_certification or 0
        held = plan.n_selection if n_held is None else n_held
        require_memory(pilot, held, n_certification=n_certification, n_chunks=plan.options.n_chunks)
    return pilot


def check_sampler(plan, mechanism, x, x_prime, pilot=None) -> None:
    """The sampler check on the pair (:func:`dpverify.pipeline.sampler_check.check_sampler_agreement`), on a
    contract stream of the plan's sequence; ``pilot`` (from :func:`check_memory`) sizes its memory.

    Raises
    ------
    SamplerContractError
        The vectorized ``sample`` disagrees with the mechanism's call.
    """
    check_sampler_agreement(
        mechanism,
        [("x", x), ("x_prime", x_prime)],
        plan.sequence,
        output_key=plan.options.output_key,
        output_bytes=None if pilot is None else output_bytes(pilot),
    )


def check_before_drawing(plan, mechanism, x, x_prime, n_held: int | None = None):
    """The checks a driver makes before it draws: memory for ``n_held`` selection outputs per input
    (:func:`check_memory`, default the plan's ``n_selection``), then the sampler check on the pair
    (:func:`check_sampler`), each on a contract stream of the plan's sequence (no audit stream moves).

    Returns the pilot output (None where there is none), so that a driver that grows its selection can
    check memory again.

    Raises
    ------
    InsufficientMemoryError
        ``n_held`` outputs per input cannot fit.
    SamplerContractError
        The vectorized ``sample`` disagrees with the mechanism's call.
    """
    pilot = check_memory(plan, mechanism, x, n_held)
    check_sampler(plan, mechanism, x, x_prime, pilot)
    return pilot
