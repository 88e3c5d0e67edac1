"""Auditing a privacy claim on one pair of neighbouring inputs: select, then stream.

The audit follows StatDP's select-then-certify design with DP-Sniper's
likelihood-ratio events (Ding et al. 2018; Bichsel et al. 2021):

1. draw a bounded *selection* sample of M(x) and of M(x') (``n_selection``
   each), build the code book and the candidate events from it alone, and
   choose the events and directions predicted to certify the largest bound
   (the best at three winner's-curse shrinkage levels, at most three events;
   :mod:`dpverify.selection`); the events are frozen;
2. *certify*: stream ``n_samples - n_selection`` fresh outputs of each input
   from independent seeds, in chunks on any executor; each worker counts the
   frozen events block by block and returns only the counts
   (:func:`dpverify.sampling.count_events`); report Clopper-Pearson bounds
   (:mod:`dpverify.bounds`), with Bonferroni over the ``m`` events.

Only the selected events are tested on fresh samples, and nothing of those
samples (values, order, number of distinct values) reaches the selection, so
the ``1 - alpha`` guarantee of the reported bounds, and the false-alarm rate
``alpha`` of ``violation``, hold whatever the selection did. Client memory
depends on ``n_selection``, never on the certification size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace

import numpy as np

from . import _validation as check
from ._results import dataclass_to_dict
from .bounds import (
    claim_pvalue,
    clopper_pearson_delta_bound,
    clopper_pearson_epsilon_bound,
    minimum_certifying_samples,
)
from .errors import IdenticalInputsError, InsufficientSamplesError, InvalidParameterError
from .findings import classify_finding, finding_lines
from .floating import FLOATING_FAMILIES
from .memory import output_bytes, pilot_output, require_memory
from .protocols import check_mechanism, check_replayable, contract_seed
from .sampler_check import check_sampler_agreement
from .sampling import DEFAULT_CHUNKS, children, concatenate_outputs, count_events, draw, resolve_seed
from .selection import Choice, Selection, default_selection_size, grown_selection_size, select

__all__ = ["audit", "AuditResult", "EventEstimate", "ValueVerdict"]

DEFAULT_SAMPLES = 100_000


@dataclass(frozen=True)
class EventEstimate:
    """The certified event and its estimated probabilities on the fresh samples.

    Attributes
    ----------
    description : str
        The event S in words.
    family : str
        The event family that proposed S.
    direction : {"x", "x_prime"}
        The input under which S is more likely: the bound is on
        ``ln P[M(direction) in S] / P[M(other) in S]``.
    probability_x, probability_x_prime : float
        Estimates of P[M(x) in S] and P[M(x') in S] on the certification samples.
    count_x, count_x_prime : int
        The counts behind them.
    n_certification : int
        Certification samples of M(x).
    n_certification_x_prime : int or None
        Certification samples of M(x') where they differ from those of M(x)
        (audits of given samples); None when equal.
    """

    description: str
    family: str
    direction: str
    probability_x: float
    probability_x_prime: float
    count_x: int
    count_x_prime: int
    n_certification: int
    n_certification_x_prime: int | None = None

    def to_dict(self) -> dict:
        """The fields as JSON-serialisable plain data."""
        return dataclass_to_dict(self)

    def __str__(self) -> str:
        return (
            f"{self.description} [{self.family}]: P[M(x) in S] ~ {self.probability_x:.4g}, "
            f"P[M(x') in S] ~ {self.probability_x_prime:.4g}"
        )


@dataclass(frozen=True)
class ValueVerdict:
    """The verdict of the *ideal* mechanism: value events only, on the same samples.

    When a floating-point event family (Mironov 2012) decides an audit, its
    bound may reflect the implementation's rounding, a wrong noise scale, or
    both (a mantissa code includes the binade, a value bucket). This verdict certifies the best event among the
    value families (thresholds, level sets, classifier...) on the same
    certification samples, at the same level ``alpha``: it audits the
    mechanism as if computed in exact arithmetic.

    Attributes
    ----------
    epsilon_lower_bound, delta_lower_bound : float
        The ``1 - alpha`` lower bounds on the value events.
    pvalue : float
        P-value of the claim on the value events.
    violation : bool
        ``pvalue <= alpha``.
    event : EventEstimate
        The certified value event.
    alpha : float or None
        The test level (the audit's); None only in results saved before it was recorded.
    """

    epsilon_lower_bound: float
    delta_lower_bound: float
    pvalue: float
    violation: bool
    event: EventEstimate
    alpha: float | None = None

    def to_dict(self) -> dict:
        """The fields as JSON-serialisable plain data."""
        return dataclass_to_dict(self)


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    epsilon_lower_bound : float
        ``1 - alpha`` lower confidence bound on the privacy loss of the pair at
        the claimed delta: ``ln((p_lo - delta)/q_hi)`` on the certified event
        (0 when nothing is certified). Finite even when the true loss is
        infinite; it then grows with the sample size.
    delta_lower_bound : float
        ``1 - alpha`` lower confidence bound on the delta needed at the claimed
        epsilon: ``p_lo - exp(epsilon) q_hi`` (0 when nothing is certified).
    claimed_epsilon, claimed_delta : float
        The claim audited.
    pvalue : float
        P-value of "the claim holds on this pair" (small means evidence of a
        violation).
    violation : bool
        ``pvalue <= alpha``, equivalently ``epsilon_lower_bound > claimed_epsilon``.
    alpha : float
        The test level (the bounds are ``1 - alpha`` confidence bounds).
    event : EventEstimate
        The certified event and its estimated probabilities.
    n_samples : int
        Samples drawn per input (selection plus certification).
    n_selection : int
        Samples per input used to choose the event.
    n_candidates : int
        Number of (event, direction) pairs compared during selection.
    seed : int or list of int
        Entropy of the audit's SeedSequence: ``audit(..., seed=result.seed)``
        replays the audit exactly (when ``replayable``).
    value_verdict : ValueVerdict or None
        When a floating-point event family decided the verdict: the verdict
        on value events only (the ideal mechanism), on the same samples.
    notes : tuple of str
        What the reader should know: event families that did not apply and
        why, warnings about the outputs, replay.
    replayable : bool
        False when the mechanism never drew from the ``rng`` it was given,
        declares ``replayable = False``, or gave different first outputs for
        the same seed (:func:`dpverify.protocols.check_replayable`): its own
        randomness is not seeded by the audit, and ``seed`` does not replay
        it. ``notes`` say when this could not be checked.
    finding : {"none", "value", "rounding", "floating-point"}
        The kind of finding (:mod:`dpverify.findings`): ``"rounding"`` only
        when a floating-point event certifies a violation that the value
        events on the same samples do not (or certify materially less of).
    """

    epsilon_lower_bound: float
    delta_lower_bound: float
    claimed_epsilon: float
    claimed_delta: float
    pvalue: float
    violation: bool
    alpha: float
    event: EventEstimate
    n_samples: int
    n_selection: int
    n_candidates: int
    seed: int | list | dict = field(default=None)
    value_verdict: ValueVerdict | None = None
    notes: tuple = ()
    replayable: bool = True
    finding: str = "none"

    def to_dict(self) -> dict:
        """A JSON-serializable dictionary of plain data (reload with :meth:`from_dict`)."""
        return dataclass_to_dict(self)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = dict(data)
        data["event"] = EventEstimate(**data["event"])
        verdict = data.get("value_verdict")
        if verdict is not None:
            verdict = dict(verdict)
            verdict["event"] = EventEstimate(**verdict["event"])
            data["value_verdict"] = ValueVerdict(**verdict)
        data["notes"] = tuple(data.get("notes", ()))
        if "finding" not in data:  # saved before the kind of finding was recorded
            data["finding"] = classify_finding(
                violation=data["violation"],
                family=data["event"].family,
                epsilon_lower_bound=data["epsilon_lower_bound"],
                claimed_epsilon=data["claimed_epsilon"],
                value_verdict=data.get("value_verdict"),
            )
        return data

    @classmethod
    def from_dict(cls, data: dict) -> AuditResult:
        return cls(**cls._parse(data))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str) -> AuditResult:
        return cls.from_dict(json.loads(text))

    def summary(self) -> str:
        """A few readable lines: verdict, bound, event, replay seed."""
        verdict = "VIOLATION" if self.violation else "no violation found"
        claim = f"eps={self.claimed_epsilon:g}" + (f", delta={self.claimed_delta:g}" if self.claimed_delta else "")
        lines = [
            f"verdict: {verdict} of the claim ({claim}) at alpha={self.alpha:g} (p-value {self.pvalue:.3g})",
            f"certified lower bound on epsilon: {self.epsilon_lower_bound:.4g} "
            f"({100 * (1 - self.alpha):g}% confidence); "
            f"lower bound on delta at eps={self.claimed_epsilon:g}: {self.delta_lower_bound:.3g}",
            f"event: {self.event}",
        ]
        lines += finding_lines(self)
        seed = f"seed {self.seed}" if self.replayable else f"seed {self.seed} (does not replay the mechanism)"
        lines.append(
            f"samples: {self.n_samples} per input ({self.n_selection} to choose the event "
            f"among {self.n_candidates}, {self.event.n_certification} to certify it); {seed}"
        )
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _inputs_equal(x, x_prime) -> bool:
    try:
        if isinstance(x, np.ndarray) or isinstance(x_prime, np.ndarray):
            return bool(np.array_equal(np.asarray(x), np.asarray(x_prime)))
        if isinstance(x, (tuple, list)) and isinstance(x_prime, (tuple, list)):  # e.g. tuples of arrays
            return type(x) is type(x_prime) and len(x) == len(x_prime) and all(map(_inputs_equal, x, x_prime))
        equal = x == x_prime
        return bool(equal) if isinstance(equal, (bool, np.bool_)) else False
    except Exception:
        return False


def check_inputs_differ(x, x_prime) -> None:
    """Raise :class:`IdenticalInputsError` when ``x`` equals ``x_prime``."""
    if _inputs_equal(x, x_prime):
        raise IdenticalInputsError(
            f"x and x_prime are equal ({x!r}); an audit compares two different neighbouring inputs"
        )


def check_sizes(n_samples, n_selection, *, epsilon: float, delta: float, alpha: float) -> tuple[int, int]:
    """Validated ``(n_samples, n_selection)`` per input, with the default selection size.

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
        if n_selection >= n_samples:
            raise InvalidParameterError(
                f"n_selection must be smaller than n_samples={n_samples} (the rest certify), got {n_selection}"
            )
    if n_samples - n_selection < required_cert:
        required = required_samples(required_cert, fixed_selection)
        raise InsufficientSamplesError(
            f"n_samples={n_samples} with n_selection={n_selection} leaves "
            f"{n_samples - n_selection} certification samples, which cannot certify a violation of "
            f"eps={epsilon:g}, delta={delta:g} at alpha={alpha:g}: at least {required_cert} "
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
    """Clopper-Pearson verdict on one frozen event from its certification counts.

    Returns ``(epsilon_lower_bound, delta_lower_bound, pvalue, EventEstimate)``.
    """
    if choice.direction == "x":
        p, n_p, q, n_q = count_x, n_x, count_x_prime, n_x_prime
    else:
        p, n_p, q, n_q = count_x_prime, n_x_prime, count_x, n_x
    eps_lb = float(clopper_pearson_epsilon_bound(p, n_p, q, n_q, alpha, delta))
    delta_lb = float(clopper_pearson_delta_bound(p, n_p, q, n_q, alpha, epsilon))
    pvalue = claim_pvalue(p, n_p, q, n_q, epsilon, delta)
    estimate = EventEstimate(
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
    return eps_lb, delta_lb, pvalue, estimate


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
    """Certify ``m`` frozen events with Bonferroni; the verdict of the largest bound.

    Each event's bounds are taken at level ``alpha / m``, so all hold together
    with probability ``1 - alpha`` and the largest is a valid ``1 - alpha``
    lower bound (of epsilon, and of delta); the p-value is
    ``min(1, m * min_j p_j)``. The reported event is the one with the
    largest epsilon bound.

    Returns ``(epsilon_lower_bound, delta_lower_bound, pvalue, EventEstimate)``.
    """
    m = len(choices)
    if m == 0:  # nothing could be chosen: nothing is certified
        return (
            0.0,
            0.0,
            1.0,
            EventEstimate(
                "no event (nothing separated the selection samples)",
                "none",
                "x",
                0.0,
                0.0,
                0,
                0,
                int(n_x),
                None if n_x == n_x_prime else int(n_x_prime),
            ),
        )
    certified = [
        certify(choice, counts_x[j], counts_x_prime[j], n_x, n_x_prime, epsilon=epsilon, delta=delta, alpha=alpha / m)
        for j, choice in enumerate(choices)
    ]
    best = max(range(m), key=lambda j: (certified[j][0], certified[j][1]))
    eps_lb, _, _, estimate = certified[best]
    delta_lb = max(c[1] for c in certified)  # all m bounds hold together: the largest of each is valid
    pvalue = min(1.0, m * min(c[2] for c in certified))
    return eps_lb, delta_lb, pvalue, estimate


def audit_result(
    selection: Selection,
    counts_x,
    counts_x_prime,
    n_x: int,
    n_x_prime: int,
    *,
    epsilon: float,
    delta: float,
    alpha: float,
    n_selection: int,
    seed=None,
    replayable: bool = True,
    replay_note: str | None = None,
    cls=None,
    **extra,
) -> AuditResult:
    """Assemble an :class:`AuditResult` from a selection and the certification counts.

    ``counts_*`` hold one count per event of ``selection.choices`` (the
    verdict's events, then the value verdict's); ``replay_note`` is the
    note of :func:`dpverify.protocols.check_replayable`, if any.
    """
    k = len(selection.verdict_choices)
    options = dict(epsilon=epsilon, delta=delta, alpha=alpha)
    eps_lb, delta_lb, pvalue, estimate = certify_best(
        selection.verdict_choices, counts_x[:k], counts_x_prime[:k], n_x, n_x_prime, **options
    )
    value_verdict = None
    if selection.value_choices and estimate.family in FLOATING_FAMILIES:
        v_eps, v_delta, v_p, v_event = certify_best(
            selection.value_choices, counts_x[k:], counts_x_prime[k:], n_x, n_x_prime, **options
        )
        value_verdict = ValueVerdict(v_eps, v_delta, v_p, bool(v_p <= alpha), v_event, alpha=alpha)
    finding = classify_finding(
        violation=bool(pvalue <= alpha),
        family=estimate.family,
        epsilon_lower_bound=eps_lb,
        claimed_epsilon=epsilon,
        value_verdict=value_verdict,
    )
    return (cls or AuditResult)(
        epsilon_lower_bound=eps_lb,
        delta_lower_bound=delta_lb,
        claimed_epsilon=epsilon,
        claimed_delta=delta,
        pvalue=pvalue,
        violation=bool(pvalue <= alpha),
        alpha=alpha,
        event=estimate,
        n_samples=n_selection + max(n_x, n_x_prime),
        n_selection=n_selection,
        n_candidates=selection.n_candidates,
        seed=seed,
        value_verdict=value_verdict,
        notes=selection.notes + _replay_note(replayable, replay_note),
        replayable=replayable,
        finding=finding,
        **extra,
    )


def audit(
    mechanism,
    x,
    x_prime,
    *,
    epsilon,
    delta=0.0,
    n_samples: int = DEFAULT_SAMPLES,
    n_selection: int | None = None,
    alpha: float = 0.05,
    seed=None,
    executor=None,
    n_chunks: int | None = None,
    event_families=None,
    float_events: bool = True,
    output_key=None,
    progress: bool = False,
) -> AuditResult:
    """Test whether ``mechanism`` keeps an (epsilon, delta)-DP claim on ``x ~ x_prime``.

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
    epsilon : float
        Claimed epsilon, finite and > 0.
    delta : float, default 0
        Claimed delta, in [0, 1).
    n_samples : int, default 100_000
        Samples of M(x), and as many of M(x'), in total (selection plus certification).
    n_selection : int, optional
        Of those, how many choose the event (held in memory); by default
        :func:`dpverify.selection.default_selection_size` (a tenth, between
        20,000 and 2,000,000), grown to a fifth (at most 2,000,000) when the
        first selection sample shows more than 100 discrete outputs that
        repeat (:func:`dpverify.selection.grown_selection_size`). The others
        certify it, streamed.
    alpha : float, default 0.05
        Test level: the false-alarm rate of ``violation`` on a mechanism that
        keeps its claim, and ``1 - alpha`` is the confidence of the bounds.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the audit; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    executor : None, int, concurrent.futures.Executor or distributed.Client
        Where the sampling chunks run (an int starts that many local
        processes; a Dask ``Client`` runs them on its cluster). The result
        does not depend on it.
    n_chunks : int, optional
        Certification chunks per input (by default
        :func:`dpverify.sampling.default_chunks`: at least 16, at most 2**24
        samples each). Part of the seeding, like the seed.
    event_families : list of str, optional
        Restrict the candidate events to these registered families.
    float_events : bool, default True
        With False, the floating-point families (``"mantissa"``,
        ``"reachability"``) are left out: the audit then judges the output
        values only.
    output_key : callable, optional
        Maps every output to a hashable or numeric value before anything
        else sees it (e.g. :func:`dpverify.keys.weighted_edges` for graphs);
        must be picklable to run on other processes.
    progress : bool
        Show progress while certifying.

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidClaimError
        epsilon <= 0 or not finite, delta outside [0, 1).
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
        per input (:func:`dpverify.sampler_check.check_sampler_agreement`,
        false-alarm rate 1e-8, drawn from a stream of its own).
    OutputTypeError
        Unhashable, identity-compared, mixed-type or NaN outputs.
    InsufficientMemoryError
        Before any sampling: the selection samples and event families would
        need more memory than is available (:mod:`dpverify.memory`).

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.zoo import LaplaceMechanism
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
    epsilon = check.check_epsilon(epsilon)
    delta = check.check_delta(delta)
    alpha = check.check_alpha(alpha)
    fixed_selection = n_selection
    n_samples, n_selection = check_sizes(n_samples, n_selection, epsilon=epsilon, delta=delta, alpha=alpha)
    if n_chunks is not None:
        n_chunks = check.check_positive_int(n_chunks, "n_chunks")
    check_inputs_differ(x, x_prime)
    n_certification = n_samples - n_selection

    sequence, entropy = resolve_seed(seed)
    pilot = pilot_output(mechanism, x, sequence, output_key=output_key)
    if pilot is not None:
        require_memory(pilot, n_selection)
    check_sampler_agreement(
        mechanism,
        [("x", x), ("x_prime", x_prime)],
        sequence,
        output_key=output_key,
        output_bytes=None if pilot is None else output_bytes(pilot),
    )
    seed_sel_x, seed_sel_xp, seed_cert_x, seed_cert_xp, seed_more = children(sequence, 5)
    common = dict(executor=executor, n_chunks=DEFAULT_CHUNKS, output_key=output_key, return_rng_used=True)
    sel_x, used_x = draw(mechanism, x, n_selection, seed_sel_x, label="x", **common)
    sel_xp, used_xp = draw(mechanism, x_prime, n_selection, seed_sel_xp, label="x_prime", **common)
    if fixed_selection is None:  # a large discrete output space gets a larger selection share
        grown = grown_selection_size(sel_x, sel_xp, n_samples, n_selection)
        if grown > n_selection and n_samples - grown >= minimum_certifying_samples(epsilon, delta, alpha):
            if pilot is not None:
                require_memory(pilot, grown)
            more_x, more_xp = children(seed_more, 2)
            extra_x, used_more_x = draw(mechanism, x, grown - n_selection, more_x, label="x", **common)
            extra_xp, used_more_xp = draw(mechanism, x_prime, grown - n_selection, more_xp, label="x_prime", **common)
            sel_x, sel_xp = concatenate_outputs([sel_x, extra_x]), concatenate_outputs([sel_xp, extra_xp])
            used_x, used_xp = used_x and used_more_x, used_xp and used_more_xp
            n_selection = grown
            n_certification = n_samples - n_selection
    selection = select(
        sel_x,
        sel_xp,
        n_certification=n_certification,
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        event_families=event_families,
        float_events=float_events,
        inputs=(x, x_prime),
    )
    del sel_x, sel_xp
    counted_x, counted_xp = count_events(
        mechanism,
        [(x, n_certification, seed_cert_x, "x"), (x_prime, n_certification, seed_cert_xp, "x_prime")],
        selection.codec,
        [c.event.indicator for c in selection.choices],
        executor=executor,
        n_chunks=n_chunks,
        progress=progress,
        output_key=output_key,
    )
    replay = check_replayable(mechanism, x, contract_seed(sequence), output_key=output_key)
    replayable = replay.replayable and used_x and used_xp and counted_x.rng_used and counted_xp.rng_used
    result = audit_result(
        selection,
        counted_x.counts,
        counted_xp.counts,
        n_certification,
        n_certification,
        epsilon=epsilon,
        delta=delta,
        alpha=alpha,
        n_selection=n_selection,
        seed=entropy,
        replayable=replayable,
        replay_note=replay.note,
    )
    note = where_counted(counted_x.where | counted_xp.where)
    return replace(result, notes=result.notes + (note,)) if note else result


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
