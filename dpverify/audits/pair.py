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
   (:mod:`dpverify.pipeline.bounds`), with Bonferroni over the ``m`` events.

Only the selected events are tested on fresh samples, and nothing of those
samples (values, order, number of distinct values) reaches the selection, so
the ``1 - alpha`` guarantee of the reported bounds, and the false-alarm rate
``alpha`` of ``violation``, hold whatever the selection did. Client memory
depends on ``n_selection``, never on the certification size.
"""

from __future__ import annotations

from dataclasses import replace

from .._validation import check_inputs_differ
from ..claims import resolve_claim
from ..errors import InvalidParameterError
from ..options import DEFAULT_SAMPLES, AuditOptions, resolve_options
from ..pipeline.bounds import minimum_certifying_samples
from ..pipeline.memory import require_memory
from ..pipeline.partition import select_partition
from ..pipeline.sampling import DEFAULT_CHUNKS, children, concatenate_outputs, draw, resolve_seed
from ..pipeline.selection import grown_selection_size, select
from ..protocols import check_mechanism
from .certification import certified_result, check_before_drawing, check_sizes
from .power import power_note
from .results import AuditResult

__all__ = ["audit", "audit_streams", "selection_samples"]


def sizing_claim(claim) -> tuple[float, float]:
    """The (epsilon, delta) that sizes the certification sample of an audit of ``claim``: the claim's own
    for (epsilon, delta)-DP; for the other kinds, whose bounds need no minimum beyond a few samples,
    the sizes of an eps = 1 claim."""
    return (claim.epsilon, claim.delta) if claim.kind == "dp" else (1.0, 0.0)


def select_for_claim(sel_x, sel_x_prime, *, claim, n_certification, alpha, options, inputs):
    """The frozen events (or cells) that certify ``claim``, chosen on the selection samples alone:
    :func:`dpverify.pipeline.selection.select` for kinds that read events, ranked by the kind's
    bound, and :func:`dpverify.pipeline.partition.select_partition` for kinds that read cells."""
    if claim.kind_record.reads == "cells":
        return select_partition(sel_x, sel_x_prime, claim=claim, n_certification=n_certification, alpha=alpha)
    epsilon, delta = sizing_claim(claim)
    return select(
        sel_x,
        sel_x_prime,
        n_certification=n_certification,
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        event_families=options.families,
        float_events=options.float_events,
        inputs=inputs,
        claim=claim,
    )


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
        of these, integer arrays) or real numbers / real vectors (``inf``
        allowed). Objects that compare by identity need ``output_key``.
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
    check_mechanism(mechanism)
    options = resolve_options(options, option_fields, driver="audit")
    claim, claim_notes = resolve_claim(mechanism, epsilon, delta, claim)
    (epsilon, delta), alpha = sizing_claim(claim), options.alpha
    output_key, executor = options.output_key, options.executor
    fixed_selection = options.n_selection
    n_samples, n_selection = check_sizes(n_samples, fixed_selection, epsilon=epsilon, delta=delta, alpha=alpha)
    check_inputs_differ(x, x_prime)
    n_certification = n_samples - n_selection

    sequence, entropy = resolve_seed(seed)
    pilot = check_before_drawing(mechanism, x, x_prime, sequence, n_selection, output_key=output_key)
    streams = audit_streams(sequence)
    seed_cert_x, seed_cert_xp = streams["certification_x"], streams["certification_x_prime"]
    common = dict(executor=executor, output_key=output_key)
    (sel_x, sel_xp), used_x, used_xp = _draw_selection(mechanism, x, x_prime, streams, n_selection, 0, **common)
    if fixed_selection is None:  # a large discrete output space gets a larger selection share
        grown = grown_selection_size(sel_x, sel_xp, n_samples, n_selection)
        if grown > n_selection and n_samples - grown >= minimum_certifying_samples(epsilon, delta, alpha):
            if pilot is not None:
                require_memory(pilot, grown)
            (extra_x, extra_xp), used_more_x, used_more_xp = _draw_selection(
                mechanism, x, x_prime, streams, n_selection, grown, **common
            )
            sel_x, sel_xp = concatenate_outputs([sel_x, extra_x]), concatenate_outputs([sel_xp, extra_xp])
            used_x, used_xp = used_x and used_more_x, used_xp and used_more_xp
            n_selection = grown
            n_certification = n_samples - n_selection
    selection = select_for_claim(
        sel_x,
        sel_xp,
        claim=claim,
        n_certification=n_certification,
        alpha=alpha,
        options=options,
        inputs=(x, x_prime),
    )
    del sel_x, sel_xp
    result = certified_result(
        mechanism,
        x,
        x_prime,
        selection,
        n_certification,
        (seed_cert_x, seed_cert_xp),
        options,
        executor,
        sequence=sequence,
        rng_used=used_x and used_xp,
        claim_notes=claim_notes,
        epsilon=epsilon,
        delta=delta,
        claim=claim,
        alpha=alpha,
        n_selection=n_selection,
        seed=entropy,
    )
    note = power_note(result)  # what a budget that found nothing could have seen
    return replace(result, notes=(*result.notes, note)) if note else result


def audit_streams(sequence) -> dict:
    """The named seed streams of an audit, children of its SeedSequence (the one place that lays them out).

    ``selection_x``, ``selection_x_prime`` draw the first selection sample,
    ``certification_x``, ``certification_x_prime`` the certification samples,
    and ``more`` the extra selection samples of a grown selection.
    """
    names = ("selection_x", "selection_x_prime", "certification_x", "certification_x_prime", "more")
    return dict(zip(names, children(sequence, len(names))))


def _draw_selection(mechanism, x, x_prime, streams, first: int, grown: int, *, executor=None, output_key=None):
    """The first ``first`` selection samples of each input (``grown == 0``), or the ``grown - first`` extra ones.

    Returns ``((samples_x, samples_x_prime), rng_used_x, rng_used_x_prime)``.
    """
    if grown:
        seed_x, seed_xp = children(streams["more"], 2)
        size = grown - first
    else:
        seed_x, seed_xp, size = streams["selection_x"], streams["selection_x_prime"], first
    common = dict(executor=executor, n_chunks=DEFAULT_CHUNKS, output_key=output_key, return_rng_used=True)
    got_x, used_x = draw(mechanism, x, size, seed_x, label="x", **common)
    got_xp, used_xp = draw(mechanism, x_prime, size, seed_xp, label="x_prime", **common)
    return (got_x, got_xp), used_x, used_xp


def selection_samples(result: AuditResult, mechanism, x, x_prime, *, executor=None) -> tuple:
    """The selection samples of M(x) and M(x') that the audit behind ``result`` chose its events on.

    Re-drawn from the result's seed and options with the audit's own streams,
    the extra samples of a grown selection included.

    Raises
    ------
    InvalidParameterError
        A result without a seed or options.
    """
    if result.seed is None or result.options is None:
        raise InvalidParameterError("the result records no seed or no options: its selection cannot be re-drawn")
    streams = audit_streams(resolve_seed(result.seed)[0])
    epsilon, delta = sizing_claim(result.audited_claim)
    first = check_sizes(result.n_samples, result.options.n_selection, epsilon=epsilon, delta=delta, alpha=result.alpha)[
        1
    ]
    common = dict(executor=executor, output_key=result.options.output_key)
    (sel_x, sel_xp), _, _ = _draw_selection(mechanism, x, x_prime, streams, first, 0, **common)
    if result.n_selection > first:
        (extra_x, extra_xp), _, _ = _draw_selection(mechanism, x, x_prime, streams, first, result.n_selection, **common)
        sel_x, sel_xp = concatenate_outputs([sel_x, extra_x]), concatenate_outputs([sel_xp, extra_xp])
    return sel_x, sel_xp
