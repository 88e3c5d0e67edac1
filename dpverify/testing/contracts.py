"""Public contract checks of dpverify's extensions: one call checks a record, a mechanism or a result.

What the auditor relies on, checked from outside, the way scikit-learn's ``check_estimator``
checks an estimator. Each check raises an ``AssertionError`` naming the record and what is
wrong, and returns None when everything holds:

- :func:`check_event_family`: an :class:`~dpverify.events.EventFamily` builds well-formed
  candidates on small samples of each output kind it applies to, with counts that its
  events' indicators reproduce, the same on a second build;
- :func:`check_relation`: a :class:`~dpverify.neighbours.NeighbourRelation` builds
  neighbours that propose differing pairs, the same for one seed, and its declared input
  domain holds pairs it proposes; its Hypothesis twin, where declared, resolves;
- :func:`check_claim_kind`: a :class:`~dpverify.claims.ClaimKind`, read through a claim of
  it: the claim validates, describes itself and round-trips through JSON; no evidence
  certifies no violation; more evidence never certifies less;
- :func:`check_mechanism`: a mechanism draws reproducibly for one seed, gives outputs the
  auditor can read, states a valid claim, and its declared relation and domain hold the pair;
- :func:`check_result`: a result round-trips through JSON to an equal result, compares equal
  to itself, renders its summary, and holds values of its fields' declared types.

:func:`parametrize_with_checks` turns a list of such items into one parametrized pytest
test (``@parametrize_with_checks([MY_FAMILY, MY_RELATION, PrivacyClaim(kind="mine", ...)])``
on ``def test_contract(check): check()``). The samples the checks draw are fixed (seed 0) and
small: they check the shape of an extension, not its statistical power.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import math
import numbers
import types
import typing

import numpy as np

from ..claims import ClaimKind, PrivacyClaim, claim_kind, claim_of
from ..events import Candidates, Event, EventFamily
from ..neighbours import NeighbourRelation, domain_neighbours
from ..neighbours._base import candidate_pairs, pair_key
from ..pipeline.outputs import fit_codec
from ..pipeline.sampler_check import check_sampler_agreement
from ..pipeline.sampling import draw

__all__ = [
    "check_event_family",
    "check_relation",
    "check_claim_kind",
    "check_mechanism",
    "check_result",
    "checks_of",
    "parametrize_with_checks",
]

#: Outputs per input in the samples the checks draw.
N_CHECK = 2_000
#: Pairs drawn from a relation's neighbours.
N_PAIRS = 8


def _fail(what: str, problem: str) -> None:
    raise AssertionError(f"{what}: {problem}")


def _expect(condition, what: str, problem: str) -> None:
    if not condition:
        _fail(what, problem)


def _named(record, record_type: type, public_name: str, called: str) -> str:
    """How messages name ``record`` (``"relation 'swap'"``), once it is a ``record_type`` (``public_name``)."""
    _expect(isinstance(record, record_type), repr(record), f"is not a {public_name}")
    return f"{called} {record.name!r}"


# --------------------------------------------------------------------------------------
# event families
# --------------------------------------------------------------------------------------


def _samples(kind: str) -> list:
    """Small seeded samples ``(description, sample_x, sample_x_prime, inputs)`` of outputs of ``kind``."""
    rng = np.random.default_rng(0)
    n = N_CHECK
    discrete = [
        ("integer outputs", rng.geometric(0.4, n) - 1, rng.geometric(0.4, n), (0, 1)),
        ("integer vectors", rng.geometric(0.5, (n, 2)), rng.geometric(0.4, (n, 2)), ((0, 0), (0, 1))),
    ]
    real = [
        ("real outputs", rng.laplace(0.0, 1.0, n), rng.laplace(1.0, 1.0, n), (0.0, 1.0)),
        ("real vectors", rng.laplace(0.0, 1.0, (n, 2)), rng.laplace(0.5, 1.0, (n, 2)), ((0.0, 0.0), (0.0, 1.0))),
    ]
    released = [("released keys", *_released_keys(rng, n), ((), ("b",)))]
    return {"discrete": discrete, "real": real, "any": discrete + real, "released-keys": released}[kind]


def _released_keys(rng: np.random.Generator, n: int) -> tuple[list, list]:
    """Mappings ``{key: noisy count}``: key ``"a"`` always released, ``"b"`` released more often under x'."""

    def draw(chance_b: float) -> list:
        values, has_b = rng.laplace(5.0, 1.0, (n, 2)), rng.random(n) < chance_b
        return [{"a": a, "b": b} if keep else {"a": a} for (a, b), keep in zip(values, has_b)]

    return draw(0.05), draw(0.3)


def check_event_family(record: EventFamily, mechanism=None) -> None:
    """Check an event family's contract on small seeded samples of each output kind it applies to.

    On each sample (integer or real outputs, scalars and vectors of two), encoded by the
    auditor's code book, ``record.candidates`` returns :class:`~dpverify.events.Candidates`
    whose counts are one per event, finite and within the sample size (a family may estimate
    them on part of the sample and rescale: they only rank, certification counts afresh);
    each event has a description and its indicator marks one boolean per encoded output; a
    second build gives the same events and counts. On samples where the family proposes
    nothing only the shape of its answer is checked. The declarations the drivers read hold: the
    events of a family declared ``extreme`` carry its name, and ``grows_selection`` answers a bool.
    A family that declares ``uses_mechanism`` is passed ``mechanism`` (a mechanism whose declarations
    it reads, e.g. a score: :class:`dpverify.protocols.DeclaresScore`; None: as given samples).

    Raises
    ------
    AssertionError
        Naming the family, the sample and what is wrong.
    """
    family = _named(record, EventFamily, "dpverify.events.EventFamily", "event family")
    for description, raw_x, raw_xp, inputs in _samples(record.kind):
        what = f"{family} on {description}"
        codec, (sel_x, sel_xp) = fit_codec(raw_x, raw_xp)
        found = _build(record, sel_x, sel_xp, codec, inputs, mechanism, what)
        again = _build(record, sel_x, sel_xp, codec, inputs, mechanism, what)
        _check_candidates(found, sel_x, sel_xp, what)
        same = [e.description for e in found.events] == [e.description for e in again.events]
        _expect(same, what, "a second build on the same samples proposes other events (unseeded randomness?)")
        for first, second in ((found.counts_x, again.counts_x), (found.counts_x_prime, again.counts_x_prime)):
            _expect(np.array_equal(first, second), what, "a second build on the same samples gives other counts")
        _check_declarations(record, found, raw_x, raw_xp, what)


def _check_declarations(record: EventFamily, found: Candidates, raw_x, raw_xp, what: str) -> None:
    """What the drivers read from the record holds on the sample: an ``extreme`` family's events carry its name
    (a search recognises them by ``Event.family``); ``grows_selection`` answers True or False."""
    if record.extreme:
        named = all(e.family == record.name for e in found.events)
        _expect(named, what, "declares extreme, but its events carry another family name than the record's")
    if record.grows_selection is not None:
        answer = record.grows_selection(raw_x, raw_xp)
        _expect(isinstance(answer, bool), what, f"grows_selection returned {answer!r}, not True or False")


def _build(record, sel_x, sel_xp, codec, inputs, mechanism, what) -> Candidates:
    try:
        found = record.candidates(sel_x, sel_xp, codec, inputs=inputs, mechanism=mechanism)
    except Exception as exc:
        _fail(what, f"build raised {type(exc).__name__}: {exc}")
    _expect(isinstance(found, Candidates), what, f"build returned {type(found).__name__}, not Candidates")
    return found


def _check_candidates(found: Candidates, sel_x, sel_xp, what: str) -> None:
    n_events = len(found.events)
    for name, counts, sample in (("counts_x", found.counts_x, sel_x), ("counts_x_prime", found.counts_x_prime, sel_xp)):
        counts = np.asarray(counts, dtype=float)
        _expect(counts.shape == (n_events,), what, f"{name} has shape {counts.shape}, one per event is {n_events}")
        inside = np.isfinite(counts) & (counts >= 0) & (counts <= len(sample))
        _expect(bool(np.all(inside)), what, f"{name} must be finite and in [0, {len(sample)}]")
    for i, event in enumerate(found.events):
        _expect(isinstance(event, Event), what, f"event {i} is a {type(event).__name__}, not an Event")
        _expect(isinstance(event.description, str) and event.description, what, f"event {i} has no description")
        for sample in (sel_x, sel_xp):
            marked = np.asarray(event.indicator(sample))
            _expect(
                marked.dtype == bool and marked.shape == (len(sample),),
                what,
                f"the indicator of {event.description!r} must give one bool per output, got {marked.dtype} "
                f"of shape {marked.shape}",
            )


# --------------------------------------------------------------------------------------
# neighbouring relations
# --------------------------------------------------------------------------------------


def check_relation(record: NeighbourRelation, **parameters) -> None:
    """Check a neighbouring relation's contract.

    Its neighbours are built with ``parameters`` (``record.build(**parameters)``); without
    them, a relation offered on the command line is built by its ``from_flags`` from its
    flags' defaults (a required count flag at 3), another by ``build()``. They must propose
    :data:`N_PAIRS` pairs of differing inputs, the same for one seed; a declared ``domain``
    answers a dict or None and holds at least one proposed pair, whose neighbours it then
    builds; every flag is a :class:`~dpverify.neighbours.RelationFlag` of its own
    destination; a declared Hypothesis twin resolves to a strategy (where Hypothesis is
    installed).

    Raises
    ------
    AssertionError
        Naming the relation and what is wrong.
    """
    what = _named(record, NeighbourRelation, "dpverify.neighbours.NeighbourRelation", "relation")
    destinations = [flag.dest for flag in record.flags]
    _expect(len(set(destinations)) == len(destinations), what, f"two flags share a destination: {destinations}")
    try:
        neighbours = _neighbours(record, parameters)
        pairs, _ = candidate_pairs(neighbours, N_PAIRS, np.random.SeedSequence(0))
        again, _ = candidate_pairs(_neighbours(record, parameters), N_PAIRS, np.random.SeedSequence(0))
    except Exception as exc:
        _fail(what, f"its neighbours do not propose pairs: {type(exc).__name__}: {exc}")
    _expect(pairs, what, "its neighbours propose no pair")
    same = [pair_key(p) for p in pairs] == [pair_key(p) for p in again]
    _expect(same, what, "its neighbours propose other pairs for the same seed")
    if record.domain is not None:
        _check_domain(record, pairs, what)
    if record.strategy is not None:
        _check_strategy(record, what)


def _neighbours(record: NeighbourRelation, parameters: dict):
    if parameters or record.from_flags is None:
        return record.build(**parameters)
    flags = {flag.dest: flag.default for flag in record.flags}
    flags.update({flag.dest: 3 for flag in record.required if flag.kind == "count"})
    return record.from_flags(argparse.Namespace(**flags))


def _check_domain(record: NeighbourRelation, pairs, what: str) -> None:
    held = []
    for x, x_prime in pairs:
        answer = record.domain(x, x_prime)
        _expect(answer is None or isinstance(answer, dict), what, f"domain{(x, x_prime)!r} gave {answer!r}")
        if answer is not None:
            held.append((x, x_prime))
    _expect(held, what, "its declared domain holds none of the pairs its neighbours propose")
    x, x_prime = held[0]
    try:
        domain_neighbours(x, x_prime, record.name) if _registered(record) else record.neighbours_of(x, x_prime)
    except Exception as exc:
        _fail(what, f"the neighbours on the domain of {(x, x_prime)!r} do not build: {type(exc).__name__}: {exc}")


def _registered(record: NeighbourRelation) -> bool:
    from ..neighbours import registered_relations

    return any(r is record for r in registered_relations())


def _check_strategy(record: NeighbourRelation, what: str) -> None:
    try:
        import hypothesis.strategies  # noqa: F401
    except ImportError:  # pragma: no cover - the test extra is installed where the suite runs
        return
    from ..neighbours._base import is_hypothesis_strategy

    try:
        strategy = record.hypothesis_strategy()
    except Exception as exc:
        _fail(what, f"its strategy {record.strategy!r} does not resolve: {type(exc).__name__}: {exc}")
    _expect(is_hypothesis_strategy(strategy), what, f"its strategy {record.strategy!r} is not a Hypothesis strategy")


# --------------------------------------------------------------------------------------
# claim kinds
# --------------------------------------------------------------------------------------

#: Probabilities at which an event-reading kind's bound is evaluated.
_PROBABILITIES = np.array([0.05, 0.2, 0.5, 0.8, 0.95])


def check_claim_kind(kind: ClaimKind, claim: PrivacyClaim) -> None:
    """Check a claim kind's contract, read through ``claim``, a claim of that kind.

    The kind is registered under its name (:func:`~dpverify.claims.claim_kind`); its title
    and the name of its parameter for ``claim`` are non-empty; its ``check`` validates the
    claim into values of its own ``fields``; ``claimed_value`` is a number, ``describe`` a
    non-empty line; the claim (its own parameters included) round-trips through JSON text
    to an equal claim. Reading events, ``event_bound`` is vectorised, not NaN, non-decreasing in the
    favoured probability and non-increasing in the other, and certifies no violation from an
    event equally likely under both inputs. Reading cells, ``orders`` are finite and > 1, and
    ``cells_bound`` certifies no violation from zero divergences, never less from more, and
    names one of its orders.

    Raises
    ------
    AssertionError
        Naming the kind and what is wrong.
    """
    what = _named(kind, ClaimKind, "dpverify.claims.ClaimKind", "claim kind")
    _expect(isinstance(claim, PrivacyClaim) and claim.kind == kind.name, what, f"{claim!r} is not a claim of it")
    try:
        registered = claim_kind(kind.name)
    except Exception as exc:
        _fail(what, f"it is not registered: {exc}")
    _expect(registered is kind, what, "another record is registered under its name")
    _expect(isinstance(kind.title, str) and kind.title, what, "title must be a non-empty str")
    named = kind.parameter_name(claim)
    _expect(isinstance(named, str) and named, what, f"parameter (or parameter(claim)) gave {named!r}, not a name")
    values = kind.check(claim)
    _expect(isinstance(values, dict), what, f"check(claim) gave {type(values).__name__}, not a dict")
    own = set(values) <= set(kind.fields)
    _expect(own, what, f"check(claim) gave {sorted(values)}, not among its fields {kind.fields}")
    claimed = kind.claimed_value(claim)
    _expect(isinstance(claimed, numbers.Real) and not math.isnan(claimed), what, f"claimed_value gave {claimed!r}")
    line = kind.describe(claim)
    _expect(isinstance(line, str) and line.strip(), what, f"describe(claim) gave {line!r}")
    reloaded = PrivacyClaim.from_dict(json.loads(json.dumps(claim.to_dict())))
    _expect(reloaded == claim, what, f"{claim!r} reloads from its JSON as {reloaded!r}")
    if kind.reads == "events":
        _check_event_bound(kind, claim, claimed, what)
    else:
        _check_cells_bound(kind, claim, claimed, what)


def _check_event_bound(kind, claim, claimed, what) -> None:
    p_lo, q_hi = np.meshgrid(_PROBABILITIES, _PROBABILITIES, indexing="ij")
    bound = np.asarray(kind.event_bound(claim, p_lo, q_hi), dtype=float)
    _expect(bound.shape == p_lo.shape, what, f"event_bound is not vectorised: shape {bound.shape} for {p_lo.shape}")
    _expect(not np.any(np.isnan(bound)), what, "event_bound gave NaN for probabilities in (0, 1)")
    _expect(bool(np.all(np.diff(bound, axis=0) >= -1e-9)), what, "event_bound decreases as p_lo grows")
    _expect(bool(np.all(np.diff(bound, axis=1) <= 1e-9)), what, "event_bound grows as q_hi grows")
    _expect(
        bool(np.all(np.diag(bound) <= claimed)),
        what,
        f"an event equally likely under both inputs certifies {np.max(np.diag(bound)):g} > the claimed {claimed:g}",
    )


def _check_cells_bound(kind, claim, claimed, what) -> None:
    orders = np.asarray(kind.orders(claim), dtype=float)
    _expect(orders.ndim == 1 and orders.size, what, f"orders(claim) gave shape {orders.shape}, a 1-d array is needed")
    _expect(bool(np.all(np.isfinite(orders) & (orders > 1))), what, f"orders must be finite and > 1, got {orders}")
    none, order = kind.cells_bound(claim, orders, np.zeros_like(orders))
    _expect(float(none) <= claimed, what, f"zero divergences certify {float(none):g} > the claimed {claimed:g}")
    more, order = kind.cells_bound(claim, orders, np.full_like(orders, 10.0))
    _expect(float(more) >= float(none), what, "larger divergences certify a smaller bound")
    named = order is None or bool(np.any(np.isclose(order, orders)))
    _expect(named, what, f"cells_bound names order {order!r}, not one of its orders")


# --------------------------------------------------------------------------------------
# mechanisms
# --------------------------------------------------------------------------------------


def check_mechanism(mechanism, x, x_prime, *, n: int = 200) -> None:
    """Check a mechanism's contract on the pair ``(x, x_prime)``.

    ``n`` outputs per input drawn twice from one seed are equal, and the auditor can encode
    them; a vectorized ``sample`` is distributed as the calls (the sampler check every audit
    runs); a ``claim`` attribute is a valid claim; a declared ``input_relation`` names a
    registered relation whose domain holds the pair, and a declared ``input_domain`` holds
    both inputs.

    Raises
    ------
    AssertionError
        Naming the mechanism and what is wrong.
    """
    what = f"mechanism {type(mechanism).__name__}"
    _expect(callable(mechanism), what, "is not callable as mechanism(data, rng)")
    for label, data in (("x", x), ("x_prime", x_prime)):
        try:
            first, second = (draw(mechanism, data, n, np.random.SeedSequence(0), label=label) for _ in range(2))
            codec, (a, b) = fit_codec(first, second)
        except Exception as exc:
            _fail(what, f"on {label}={data!r}: {type(exc).__name__}: {exc}")
        same = np.array_equal(a, b)
        _expect(same, what, f"two draws from one seed differ on {label}={data!r} (unseeded randomness?)")
    try:
        check_sampler_agreement(mechanism, (("x", x), ("x_prime", x_prime)), np.random.SeedSequence(0))
        claim = claim_of(mechanism)
        if claim is not None:
            claim.kind_record.check(claim)
    except Exception as exc:
        _fail(what, f"{type(exc).__name__}: {exc}")
    _check_declared_inputs(mechanism, x, x_prime, what)


def _check_declared_inputs(mechanism, x, x_prime, what: str) -> None:
    declared = getattr(mechanism, "input_relation", None)
    if declared is not None:
        ok = isinstance(declared, tuple) and len(declared) == 2 and isinstance(declared[1], dict)
        _expect(ok, what, f"input_relation must be (name, parameters), got {declared!r}")
        try:
            domain_neighbours(x, x_prime, declared[0], **declared[1])
        except Exception as exc:
            _fail(what, f"its input_relation {declared[0]!r} does not hold {(x, x_prime)!r}: {exc}")
    domain = getattr(mechanism, "input_domain", None)
    if domain is not None:
        for value in (x, x_prime):
            _expect(domain.contains(value), what, f"its input_domain {domain.describe()} does not hold {value!r}")


# --------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------


def check_result(result) -> None:
    """Check a result's contract.

    It is a frozen dataclass deriving from dpverify's result base; it compares equal to
    itself without raising; every field holds a value of its declared type (a float field a
    real number, an optional field None or its type, a tuple field a tuple, a nested dataclass
    its class); ``to_json`` reloads through its type's ``from_json`` to an equal result;
    ``summary()`` renders a non-empty text.

    Raises
    ------
    AssertionError
        Naming the result type and what is wrong.
    """
    from .._results import Result

    what = f"result {type(result).__name__}"
    _expect(isinstance(result, Result) and dataclasses.is_dataclass(result), what, "is not a dpverify result dataclass")
    _expect(type(result).__dataclass_params__.frozen, what, "is not frozen")
    hints = typing.get_type_hints(type(result))
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        _expect(_holds(hints[field.name], value), what, f"field {field.name} = {value!r} is not a {hints[field.name]}")
    try:
        _expect(result == result, what, "does not compare equal to itself")
        reloaded = type(result).from_json(result.to_json())
        equal = reloaded == result
    except AssertionError:
        raise
    except Exception as exc:
        _fail(what, f"{type(exc).__name__} in the JSON round trip or equality: {exc}")
    _expect(equal, what, "reloads from to_json() as a result that is not equal to it")
    text = result.summary()
    _expect(isinstance(text, str) and text.strip(), what, f"summary() gave {text!r}")


def _holds(annotation, value) -> bool:
    """Whether ``value`` is of ``annotation`` (classes, unions, Optional and generic containers' origins)."""
    if annotation is typing.Any:
        return True
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_holds(arg, value) for arg in typing.get_args(annotation))
    if origin is not None:
        return _holds(origin, value)
    if annotation is type(None):
        return value is None
    if annotation is float:
        return isinstance(value, numbers.Real) and not isinstance(value, bool)
    if annotation is int:
        return isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if isinstance(annotation, type):
        return isinstance(value, annotation)
    return True  # a string or a special form it cannot read: not a type error


# --------------------------------------------------------------------------------------
# pytest
# --------------------------------------------------------------------------------------


def checks_of(item) -> list:
    """The contract checks of one item, as ``(name, check)`` pairs of no-argument callables.

    An :class:`~dpverify.events.EventFamily`, a :class:`~dpverify.neighbours.NeighbourRelation`,
    a :class:`~dpverify.PrivacyClaim` (its kind's check), a result, or a tuple
    ``(mechanism, x, x_prime)``.
    """
    from .._results import Result

    if isinstance(item, EventFamily):
        return [(f"family:{item.name}", functools.partial(check_event_family, item))]
    if isinstance(item, NeighbourRelation):
        return [(f"relation:{item.name}", functools.partial(check_relation, item))]
    if isinstance(item, PrivacyClaim):
        return [(f"kind:{item.kind}", functools.partial(check_claim_kind, item.kind_record, item))]
    if isinstance(item, Result):
        return [(f"result:{type(item).__name__}", functools.partial(check_result, item))]
    if isinstance(item, tuple) and len(item) == 3 and callable(item[0]):
        return [(f"mechanism:{type(item[0]).__name__}", functools.partial(check_mechanism, *item))]
    raise TypeError(
        f"no contract check for {item!r}: give an EventFamily, a NeighbourRelation, a PrivacyClaim of a kind, "
        "a result, or (mechanism, x, x_prime)"
    )


def parametrize_with_checks(items):
    """A ``pytest.mark.parametrize`` of the contract checks of ``items``, one test per check.

    ``items`` as :func:`checks_of` takes them. The decorated test takes one argument,
    ``check``, and calls it::

        @parametrize_with_checks([MY_FAMILY, MY_RELATION, PrivacyClaim(kind="mine", mu=0.5)])
        def test_my_extensions(check):
            check()
    """
    import pytest

    cases = [case for item in items for case in checks_of(item)]
    return pytest.mark.parametrize("check", [check for _, check in cases], ids=[name for name, _ in cases])
