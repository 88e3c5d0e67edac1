"""The audit plan: what a driver fixes before it draws anything, in one record.

Every driver (:func:`dpverify.audit`, :func:`dpverify.search_audit`,
:func:`dpverify.sequential_audit`, :func:`dpverify.delta_lower_bound_curve`,
:func:`dpverify.audit_samples`, :func:`dpverify.audit_pairs`) starts by calling
:func:`build_plan`, which checks the arguments in one order (the mechanism, the
options, the claim, the sizes, the inputs, the seed) and returns an
:class:`AuditPlan`: the claim and the notes on it, the options, the sample sizes
(with the driver's own design: the looks of a sequential audit, the screening
budget of a search), the seed recorded in the result and the named random streams,
children of the seed's SeedSequence. The steps after it take the plan, so that
each is called once, the same way, from every driver:

- the checks before drawing (memory, the sampler check):
  :func:`dpverify.audits.certification.check_before_drawing`;
- selection: :func:`dpverify.audits.choosing.select_for_claim`;
- certification: :func:`dpverify.audits.certification.certified_result`.

:func:`plan_of_result` goes the other way: the plan a recorded result was run
under, for :func:`dpverify.replay` and for re-drawing an audit's selection samples.

The separate streams follow the usual practice for reproducible parallel random
numbers (``numpy.random.SeedSequence.spawn``; Salmon et al. 2011): every stream a
driver draws from is a child of the run's SeedSequence with a fixed index, so
the plan, not the order of the calls, decides which samples each step sees.

References
----------
J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel Random Numbers: As Easy as
1, 2, 3", SC 2011.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .. import _validation as check
from ..claims import PrivacyClaim, resolve_claim
from ..errors import InvalidParameterError, NotReplayableError
from ..neighbours.domain import check_declared_domain
from ..options import AuditOptions, resolve_options
from ..pipeline.sampling import children, resolve_seed
from ..pipeline.selection import default_selection_size
from ..protocols import check_mechanism
from .certification import check_sizes
from .drivers import PAIR_INPUTS, PAIR_STREAMS, Driver
from .fingerprint import check_source, with_notes

__all__ = [
    "AuditPlan",
    "Sizes",
    "build_plan",
    "plan_of_result",
    "claim_arguments",
    "sizing_claim",
    "claim_words",
    "fixed_split",
    "curve_split",
    "pair_driver",
]


def sizing_claim(claim) -> tuple[float, float]:
    """The (epsilon, delta) that sizes the certification sample of an audit of ``claim``: the claim's own
    for (epsilon, delta)-DP; for the other kinds, whose bounds need no minimum beyond a few samples,
    the sizes of an eps = 1 claim."""
    pair = claim.kind_record.as_epsilon_delta(claim)
    return (1.0, 0.0) if pair is None else pair


def claim_words(claim) -> str:
    """``claim`` in its own form, without its source, as errors name it (``"rho=0.5 (zCDP)"``): sized by
    :func:`sizing_claim`, a claim of another kind is still named in its own parameter."""
    return claim.kind_record.describe(claim)


@dataclass(frozen=True)
class Sizes:
    """Samples per input: in all, to select, to certify, and the driver's own design.

    ``design`` is what a driver sizes beyond one split: the looks of a sequential audit
    (:class:`dpverify.audits.sequential.LookSizes`), the screening budget of a search
    (:class:`dpverify.audits.search._Budget`); None for the others.
    """

    n_samples: int | None = None
    n_selection: int | None = None
    n_certification: int | None = None
    design: object = None


@dataclass(frozen=True)
class AuditPlan:
    """What a driver fixed before drawing: claim, options, sizes, seed and streams.

    Attributes
    ----------
    driver : str
        The driver's name (``"audit"``, ``"search_audit"``...), as in its errors.
    claim : PrivacyClaim or None
        The claim audited (None: a delta curve, or the pairs of :func:`dpverify.audit_pairs`, whose
        audits each resolve their own).
    claim_notes : tuple of str
        Notes for the result on the claim (it differs from the one the mechanism states).
    options : AuditOptions
        The options, resolved (``alpha`` set), recorded in the result.
    n_samples, n_selection, n_certification : int or None
        Samples per input in all, to select the events, to certify them.
    design : object
        The driver's own sizes (:class:`Sizes`).
    seed : int, list, dict or None
        The value the result records, which replays the run (None: given samples).
    sequence : numpy.random.SeedSequence or None
        The root of the run's streams.
    streams : dict
        The named children of ``sequence`` (the driver's :attr:`~dpverify.audits.drivers.Driver.streams`).
    """

    driver: str
    claim: PrivacyClaim | None
    claim_notes: tuple
    options: AuditOptions
    n_samples: int | None = None
    n_selection: int | None = None
    n_certification: int | None = None
    design: object = None
    seed: object = None
    sequence: object = field(default=None, repr=False)
    streams: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def alpha(self) -> float:
        """The level: the false-alarm rate of the driver's verdict."""
        return self.options.alpha

    @property
    def epsilon(self) -> float | None:
        """The epsilon that sizes the certification (:func:`sizing_claim`; None without a claim)."""
        return None if self.claim is None else sizing_claim(self.claim)[0]

    @property
    def delta(self) -> float | None:
        """The delta that sizes the certification (:func:`sizing_claim`; None without a claim)."""
        return None if self.claim is None else sizing_claim(self.claim)[1]

    def with_selection(self, n_selection: int, n_certification: int | None = None) -> AuditPlan:
        """The plan with another selection size (a grown selection, the split of given samples);
        ``n_certification`` defaults to the rest of ``n_samples``."""
        if n_certification is None:
            n_certification = self.n_samples - n_selection
        return replace(self, n_selection=n_selection, n_certification=n_certification)

    def result_fields(self, **overrides) -> dict:
        """The fields of the result that the plan fixes (claim, level, selection size, seed, options),
        as keywords of :func:`dpverify.audits.certification.audit_result`; ``overrides`` replace them
        (a sequential look's level and selection)."""
        fields = dict(
            epsilon=self.epsilon,
            delta=self.delta,
            claim=self.claim,
            alpha=self.alpha,
            n_selection=self.n_selection,
            seed=self.seed,
            options=self.options,
        )
        fields.update(overrides)
        return fields

    def pair_seeds(self, n_pairs: int) -> list:
        """Plain integer seeds, one per pair, from spawned children (each replays its pair's audit alone)."""
        return [[int(v) for v in child.generate_state(4)] for child in children(self.sequence, n_pairs)]


def fixed_split(n_samples, options: AuditOptions, claim) -> Sizes:
    """The split of a fixed-size audit (:func:`dpverify.audits.certification.check_sizes`), sized by the claim."""
    epsilon, delta = sizing_claim(claim)
    n_samples, n_selection = check_sizes(
        n_samples, options.n_selection, epsilon=epsilon, delta=delta, alpha=options.alpha, claimed=claim_words(claim)
    )
    return Sizes(n_samples, n_selection, n_samples - n_selection)


def curve_split(n_samples, options: AuditOptions, claim=None) -> Sizes:
    """The split of a delta curve: at least 20 samples, the default selection size, the rest certify."""
    n_samples = check.check_positive_int(n_samples, "n_samples", minimum=20)
    n_selection = options.n_selection
    if n_selection is None:
        n_selection = default_selection_size(n_samples)
    n_selection = check.check_positive_int(n_selection, "n_selection")
    check.check_below(n_selection, "n_selection", n_samples, "n_samples")
    return Sizes(n_samples, n_selection, n_samples - n_selection)


def _given_claim(epsilon, delta, claim) -> tuple:
    """The claim of given samples: there is no mechanism to state one, so it must be passed."""
    check.check_claim_given(epsilon, claim)
    if claim is None:
        claim = PrivacyClaim(check.check_epsilon(epsilon), check.check_delta(0.0 if delta is None else delta))
    return (resolve_claim(None, claim=claim)[0] if epsilon is None and delta is None else claim), ()


def build_plan(
    driver: Driver,
    mechanism,
    inputs,
    claimed,
    n_samples,
    seed,
    options: AuditOptions | None,
    option_fields: dict | None,
    *,
    sizes: Callable | None = fixed_split,
    given: bool = False,
) -> AuditPlan:
    """The plan of a run of ``driver``, every argument checked in one order, before anything is drawn.

    The order: the mechanism, the options, the claim, the sizes, the inputs (and their domain), the seed.

    Parameters
    ----------
    driver : Driver
        The driver's record (:class:`~dpverify.audits.drivers.Driver`: its name, in option errors, and its
        streams).
    mechanism : callable or None
        Checked (:func:`dpverify.protocols.check_mechanism`) and read for its stated claim. None: nothing
        to check (given samples; the pairs of :func:`dpverify.audit_pairs`, whose audits check it).
    inputs : tuple or None
        ``(x, x_prime)``, checked to differ and to lie in the mechanism's declared input domain (None:
        nothing to check).
    claimed : tuple or None
        The driver's ``(epsilon, delta, claim)`` arguments (:func:`dpverify.claims.resolve_claim`); None:
        the driver takes no claim (a delta curve) or leaves it to its inner audits (:func:`dpverify.audit_pairs`).
    n_samples
        The driver's sample-size argument, read by ``sizes``.
    seed
        The run's seed (:func:`dpverify.pipeline.sampling.resolve_seed`).
    options, option_fields
        :func:`dpverify.options.resolve_options`.
    sizes : callable or None
        ``sizes(n_samples, options, claim) -> Sizes`` (:func:`fixed_split` by default; None: the driver
        sizes later, with :meth:`AuditPlan.with_selection`).
    given : bool
        Given samples (:func:`dpverify.audit_samples`): no seed, no sampling options, and a claim that must
        be passed.

    Returns
    -------
    AuditPlan

    Examples
    --------
    >>> from dpverify.audits.plan import build_plan
    >>> from dpverify.mechanisms import GeometricMechanism
    >>> from dpverify.audits.pair import DRIVER
    >>> plan = build_plan(DRIVER, GeometricMechanism(1.0), (0, 1), (1.0, None, None), 100_000, 7, None, None)
    >>> plan.claim, plan.n_selection, plan.n_certification, plan.alpha, plan.seed
    (PrivacyClaim(epsilon=1.0), 20000, 80000, 0.05, 7)
    >>> list(plan.streams)
    ['selection_x', 'selection_x_prime', 'certification_x', 'certification_x_prime', 'more']

    Raises
    ------
    InvalidClaimError, InvalidParameterError, InsufficientSamplesError, IdenticalInputsError
        As the drivers document: every argument is checked here, before any draw.
    OutsideDomainError
        An input outside the domain the mechanism declares (:func:`dpverify.neighbours.domain.check_in_domain`).
    """
    check.check_instance(driver, Driver, f"build_plan takes the driver's record (a Driver), got {driver!r}")
    name, names = driver.name, driver.streams
    if mechanism is not None:
        check_mechanism(mechanism)
    options = resolve_options(options, option_fields or {}, driver=name)
    if given:
        check.check_draws_nothing(options, name)
    resolved, notes = None, ()
    if claimed is not None:
        resolved, notes = _given_claim(*claimed) if given else resolve_claim(mechanism, *claimed)
    planned = Sizes() if sizes is None else sizes(n_samples, options, resolved)
    if inputs is not None:
        check.check_input_pair(inputs)
        if mechanism is not None:
            check_declared_domain(mechanism, *inputs)
    sequence, recorded = (None, None) if given else resolve_seed(seed)
    named = {} if given else dict(zip(names, children(sequence, len(names))))
    return AuditPlan(
        driver=name,
        claim=resolved,
        claim_notes=tuple(notes),
        options=options,
        n_samples=planned.n_samples,
        n_selection=planned.n_selection,
        n_certification=planned.n_certification,
        design=planned.design,
        seed=recorded,
        sequence=sequence,
        streams=named,
    )


def check_claim_replays(claim) -> None:
    """Refuse to replay a claim reloaded approximated (:attr:`dpverify.PrivacyClaim.approximated`).

    Raises
    ------
    NotReplayableError
        ``claim.approximated`` is set: a replay would audit another, weaker claim than the one saved.
    """
    if claim is not None and claim.approximated:
        raise NotReplayableError(
            f"this result's claim was reloaded approximated ({claim.approximated}): a replay would audit another, "
            "weaker claim and could change the verdict; audit the claim as stated with the driver instead"
        )


def plan_of_result(result, driver: Driver, *, executor=None, progress: bool = False) -> AuditPlan:
    """The plan ``result`` was run under: its claim, sizes, seed, options and streams, read from the result.

    What a replay hands back to the driver (:func:`dpverify.replay`), and what re-draws an audit's
    selection samples. ``executor`` and ``progress`` replace the recorded ones (they change no result);
    ``driver``, the record of the driver that ran it (:func:`dpverify.audits.replay.driver_of` finds a
    built-in's), says the streams to lay out and the field that holds the sample count.

    Raises
    ------
    NotReplayableError
        The result has no seed (given samples), does not record its options, or holds a claim reloaded
        approximated (:func:`check_claim_replays`).
    """
    if result.seed is None:
        raise NotReplayableError(
            "this result has no seed (an audit of given samples, or saved without one): there is nothing to replay"
        )
    if getattr(result, "options", None) is None:
        raise NotReplayableError("this result does not record its options (saved by an older dpverify)")
    check.check_instance(driver, Driver, f"plan_of_result takes the driver's record (a Driver), got {driver!r}")
    claim = getattr(result, "audited_claim", None)  # None: a delta curve
    check_claim_replays(claim)
    event = getattr(result, "event", None)
    sequence, _ = resolve_seed(result.seed)
    return AuditPlan(
        driver=driver.name,
        claim=claim,
        claim_notes=(),
        options=replace(result.options, executor=executor, progress=progress),
        n_samples=getattr(result, driver.sample_field),
        n_selection=getattr(result, "n_selection", None),
        n_certification=None if event is None else event.n_certification,
        seed=result.seed,
        sequence=sequence,
        streams=dict(zip(driver.streams, children(sequence, len(driver.streams)))),
    )


def pair_driver(name: str, result_type: type, again: Callable, *, streams=PAIR_STREAMS, **fields) -> Driver:
    """The record of a driver of one pair, whose replay takes ``(mechanism, x, x_prime)``: the result's source
    is checked (:func:`dpverify.audits.fingerprint.check_source`) before ``again(result, plan, mechanism, x,
    x_prime)`` runs the driver again under the result's plan, and the notes of what could not be checked are
    added. ``fields`` are the record's others (:class:`~dpverify.audits.drivers.Driver`)."""

    def replay(result, *inputs, executor=None, progress=False):
        plan = plan_of_result(result, record, executor=executor, progress=progress)  # first: a result with no seed
        mechanism, x, x_prime = record.replay_inputs(result, inputs)
        notes = check_source(result, plan, mechanism, x, x_prime)
        return with_notes(again(result, plan, mechanism, x, x_prime), notes)

    record = Driver(name, result_type, streams=streams, inputs=PAIR_INPUTS, replay=replay, **fields)
    return record


def claim_arguments(plan: AuditPlan) -> dict:
    """The driver keywords that state ``plan``'s claim, seed and options again: ``claim=``, the claim as the
    result recorded it (its kind, parameters and wording, for every kind)."""
    if plan.claim is None:
        raise InvalidParameterError(f"a {plan.driver} plan states no claim")
    return dict(claim=plan.claim, seed=plan.seed, options=plan.options)
