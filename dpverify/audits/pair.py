"""Auditing a privacy claim on one pair of neighbouring inputs: select, then stream.

The audit follows StatDP's select-then-certify design with DP-Sniper's
likelihood-ratio events (Ding et al. 2018; Bichsel et al. 2021):

1. draw a bounded *selection* sample of M(x) and of M(x') (``n_selection``
   each), build the code book and the candidate events from it alone, and
   choose the events and directions predicted to certify the largest bound
   (the best at three winner's-curse shrinkage levels, at most three events;
   :mod:`dpverify.pipeline.selection`); the events are frozen;
2. *certify*: stream ``n_samples - n_selection`` fresh outputs of each input
   from independent seeds, in chunks on any executor; each worker counts the
   frozen events block by block and returns only the counts
   (:func:`dpverify.pipeline.sampling.count_events`); report Clopper-Pearson bounds
   (:mod:`dpverify.support.bounds`), with Bonferroni over the ``m`` events.

Only the selected events are tested on fresh samples, and nothing of those
samples (values, order, number of distinct values) reaches the selection, so
the ``1 - alpha`` guarantee of the reported bounds, and the false-alarm rate
``alpha`` of ``violation``, hold whatever the selection did. Client memory
depends on ``n_selection``, never on the certification size.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import InvalidParameterError
from ..options import DEFAULT_SAMPLES, AuditOptions
from ..pipeline.memory import require_memory
from ..pipeline.sampling import DEFAULT_CHUNKS, children, concatenate_outputs, draw
from ..pipeline.selection import grown_selection_size
from ..support.bounds import minimum_certifying_samples
from .certification import certified_result, check_before_drawing, check_sizes, recording_draws
from .choosing import select_for_claim
from .drivers import PAIR_STREAMS
from .plan import build_plan, claim_arguments, claim_words, pair_driver, plan_of_result
from .power import power_note
from .results import AuditResult

__all__ = ["audit", "selection_samples"]


@recording_draws
def audit(
    mechanism,
    x,
    x_prime,
    *,
    epsilon=None,
    delta=None,
    claim=None,
    n_samples: int = DEFAULT_SAMPLES,
    seed=None,
    options: AuditOptions | None = None,
    **option_fields,
) -> AuditResult:
    """Test whether ``mechanism`` keeps its privacy claim on ``x ~ x_prime``, in the form the claim is stated.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng) -> output``; an object with a vectorized
        ``sample(data, size, rng)`` is sampled through it. Outputs are hashable
        discrete values (int, bool, str, tuple, frozenset, None mixed with one
        of these, integer arrays), real numbers / real vectors (``inf``
        allowed), or mappings from keys to numbers (released keys,
        :mod:`dpverify.pipeline.released_keys`). Objects that compare by
        identity need ``output_key``.
    x, x_prime : object
        Neighbouring inputs (must differ).
    epsilon : float, optional
        Claimed epsilon, finite and > 0. Omitted: the claim the mechanism
        states (its ``claim`` attribute, :class:`dpverify.claims.PrivacyClaim`).
    delta : float, optional
        Claimed delta, in [0, 1). Omitted: the mechanism's stated delta when the
        epsilon is its stated one, else 0. When the audited claim differs from
        the stated one, the result's notes say so.
    n_samples : int, default 100_000
        Samples of M(x), and as many of M(x'), in total (selection plus certification).
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the audit; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.pipeline.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    options : AuditOptions, optional
        How the audit runs (:class:`dpverify.AuditOptions`: ``alpha``,
        ``n_selection``, ``n_chunks``, ``event_families``, ``float_events``,
        ``output_key``, ``executor``, ``progress``); recorded in the result.
        By default the selection takes :func:`dpverify.pipeline.selection.default_selection_size`
        samples (a tenth, between 20,000 and 2,000,000), grown to a fifth (at
        most 2,000,000) when the first selection sample shows more than 100
        discrete outputs that repeat
        (:func:`dpverify.pipeline.selection.grown_selection_size`); the others
        certify, streamed. ``alpha`` (default 0.05) is the false-alarm rate of
        ``violation`` on a mechanism that keeps its claim.
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword
        (``alpha=0.01``, ``executor=4``...); it replaces that field of ``options``.

    Returns
    -------
    AuditResult
        ``claim`` is the claim audited and ``claim_lower_bound`` the certified
        ``1 - alpha`` lower bound on its parameter (epsilon, rho, mu, the Rényi
        epsilon...); ``violation`` says whether it exceeds the claim.

    Raises
    ------
    InvalidClaimError
        epsilon <= 0 or not finite, delta outside [0, 1); ``claim`` beside
        ``epsilon``/``delta``; a claim parameter out of its domain.
    InvalidParameterError
        Bad alpha, sizes, chunk counts or executor.
    InsufficientSamplesError
        Too few certification samples to certify any violation at ``alpha``.
    IdenticalInputsError
        ``x`` equals ``x_prime``.
    OutsideDomainError
        ``x`` or ``x_prime`` outside the mechanism's declared input domain (``input_domain``,
        :func:`dpverify.neighbours.domain.check_in_domain`).
    MechanismError
        The mechanism raised (the input is named, the error chained).
    SamplerContractError
        The vectorized ``sample`` returns the wrong number of outputs, or is
        not distributed as ``mechanism(data, rng)`` on 1,000 outputs of each
        per input (:func:`dpverify.pipeline.sampler_check.check_sampler_agreement`,
        false-alarm rate 1e-8, drawn from a stream of its own).
    OutputTypeError
        Unhashable, identity-compared, mixed-type or NaN outputs.
    InsufficientMemoryError
        Before any sampling: the selection samples and event families would
        need more memory than is available (:mod:`dpverify.pipeline.memory`).

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.mechanisms.textbook import LaplaceMechanism
    >>> r = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1)
    >>> r.violation
    False

    The textbook floating-point version leaks through its low-order bits
    (Mironov 2012), and the audit says so; the ideal mechanism keeps its claim:

    >>> def textbook_laplace(x, rng):
    ...     return x + rng.laplace(scale=1.0)
    >>> r = dpverify.audit(textbook_laplace, 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1)
    >>> r.violation, r.value_verdict.violation
    (True, False)
    """
    plan = build_plan(DRIVER, mechanism, (x, x_prime), (epsilon, delta, claim), n_samples, seed, options, option_fields)
    pilot = check_before_drawing(plan, mechanism, x, x_prime)
    plan, (sel_x, sel_xp), rng_used = _selection_sample(plan, pilot, mechanism, x, x_prime)
    selection = select_for_claim(plan, sel_x, sel_xp, inputs=(x, x_prime), mechanism=mechanism)
    del sel_x, sel_xp
    result = certified_result(plan, mechanism, x, x_prime, selection, rng_used=rng_used)
    note = power_note(result)  # what a budget that found nothing could have seen
    return replace(result, notes=(*result.notes, note)) if note else result


def _selection_sample(plan, pilot, mechanism, x, x_prime):
    """The selection samples of an audit, grown when a large discrete output space repeats (only with the
    default selection size, and only where the rest still certifies; memory checked again on ``pilot``).

    Returns the plan (with the grown selection size), ``(samples_x, samples_x_prime)`` and whether every draw
    took its randomness from the generator it was given.
    """
    (sel_x, sel_xp), used_x, used_xp = _draw_selection(plan, mechanism, x, x_prime)
    if plan.options.n_selection is None:  # a large discrete output space gets a larger selection share
        grown = grown_selection_size(sel_x, sel_xp, plan.n_samples, plan.n_selection)
        if grown > plan.n_selection and plan.n_samples - grown >= minimum_certifying_samples(
            plan.epsilon, plan.delta, plan.alpha
        ):
            if pilot is not None:
                require_memory(pilot, grown)
            (extra_x, extra_xp), used_more_x, used_more_xp = _draw_selection(plan, mechanism, x, x_prime, grown)
            sel_x, sel_xp = concatenate_outputs([sel_x, extra_x]), concatenate_outputs([sel_xp, extra_xp])
            used_x, used_xp = used_x and used_more_x, used_xp and used_more_xp
            plan = plan.with_selection(grown)
    return plan, (sel_x, sel_xp), used_x and used_xp


def _draw_selection(plan, mechanism, x, x_prime, grown: int = 0, executor=None):
    """The plan's first ``n_selection`` selection samples of each input (``grown == 0``), or the
    ``grown - n_selection`` extra ones of a grown selection.

    Returns ``((samples_x, samples_x_prime), rng_used_x, rng_used_x_prime)``.
    """
    streams, first = plan.streams, plan.n_selection
    if grown:
        seed_x, seed_xp = children(streams["more"], 2)
        size = grown - first
    else:
        seed_x, seed_xp, size = streams["selection_x"], streams["selection_x_prime"], first
    executor = plan.options.executor if executor is None else executor
    common = dict(executor=executor, n_chunks=DEFAULT_CHUNKS, output_key=plan.options.output_key, return_rng_used=True)
    got_x, used_x = draw(mechanism, x, size, seed_x, label="x", **common)
    got_xp, used_xp = draw(mechanism, x_prime, size, seed_xp, label="x_prime", **common)
    return (got_x, got_xp), used_x, used_xp


def selection_samples(result: AuditResult, mechanism, x, x_prime, *, executor=None) -> tuple:
    """The selection samples of M(x) and M(x') that the audit behind ``result`` chose its events on.

    Re-drawn from the result's plan (:func:`dpverify.audits.plan.plan_of_result`) with the audit's
    own streams, the extra samples of a grown selection included.

    Raises
    ------
    InvalidParameterError
        A result without a seed or options.
    """
    if result.seed is None or result.options is None:
        raise InvalidParameterError("the result records no seed or no options: its selection cannot be re-drawn")
    recorded = plan_of_result(result, driver=DRIVER)  # re-drawn on an audit's streams
    first = recorded.with_selection(_first_split(recorded))  # the split the audit began with
    (sel_x, sel_xp), _, _ = _draw_selection(first, mechanism, x, x_prime, executor=executor)
    if result.n_selection > first.n_selection:
        (extra_x, extra_xp), _, _ = _draw_selection(first, mechanism, x, x_prime, result.n_selection, executor)
        sel_x, sel_xp = concatenate_outputs([sel_x, extra_x]), concatenate_outputs([sel_xp, extra_xp])
    return sel_x, sel_xp


def _first_split(plan) -> int:
    """The selection size an audit of ``plan``'s claim and sizes begins with (before any growth)."""
    return check_sizes(
        plan.n_samples,
        plan.options.n_selection,
        epsilon=plan.epsilon,
        delta=plan.delta,
        alpha=plan.alpha,
        claimed=claim_words(plan.claim),
    )[1]


def _again(result, plan, mechanism, x, x_prime):
    return audit(mechanism, x, x_prime, n_samples=plan.n_samples, **claim_arguments(plan))


DRIVER = pair_driver("audit", AuditResult, _again, streams=(*PAIR_STREAMS, "more"))
