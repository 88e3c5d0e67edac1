"""One contract that every audit driver meets, checked the same way for each.

The drivers (``audit``, ``search_audit``, ``sequential_audit``, ``audit_samples``,
``delta_lower_bound_curve``, ``audit_pairs``) share the pipeline; this module checks, driver by
driver with the same code, what a caller relies on. The drivers are read from their declared records
(:data:`dpverify.audits.replay.AUDIT_DRIVERS`): a new driver is in every check below once its record is
listed and :func:`_run` can call it.

- **one declaration**: the result type and streams a driver's record declares are those of its runs;

- **seed replays**: the same seed gives the same result (its JSON text, byte for byte), and
  ``result.replay(...)`` gives it again (a result of given samples has no seed: it refuses by name);
- **JSON round trip**: ``type(result).from_json(result.to_json())`` writes the same text;
- **named errors**: a bad ``alpha`` or sample size raises a :class:`~dpverify.DPVerifyError`
  before the mechanism draws anything;
- **memory refusal before drawing**: an absurd selection size raises
  :class:`~dpverify.InsufficientMemoryError` after at most the one pilot output that sizes the
  outputs. ``audit_samples`` draws nothing, so it has no such case.

Deterministic (fixed seeds, the available memory fixed at 1 GiB): no false alarm. Each check
fails on a driver that breaks it: a driver that draws from global state (replay), a field its
``from_dict`` drops (round trip), a raw ``ValueError`` or a check made after drawing (named
errors), a selection drawn before memory is checked (the issue's ``search_audit`` that grew to
3.6 GB).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import dpverify
from dpverify.audits.drivers import builtin_drivers
from dpverify.audits.plan import plan_of_result
from dpverify.errors import DPVerifyError, InsufficientMemoryError, NotReplayableError
from dpverify.mechanisms import GeometricMechanism
from dpverify.pipeline import memory

PAIRS = [(0, 1), (1, 3)]
GRID = [0.0, 0.5, 1.0]


def _samples(seed: int = 3):
    rng = np.random.default_rng(seed)
    return rng.geometric(0.5, 4_000), rng.geometric(0.35, 4_000)


def _run(driver: str, mechanism, *, seed=5, **options):
    """Run ``driver`` on ``mechanism`` at a small, fixed size; ``options`` are AuditOptions fields."""
    claim = dict(epsilon=1.0, seed=seed, **options)
    n = options.pop("n_samples", None)
    claim.pop("n_samples", None)
    if driver == "audit":
        return dpverify.audit(mechanism, 0, 1, n_samples=n or 20_000, **claim)
    if driver == "search_audit":
        return dpverify.search_audit(mechanism, PAIRS, n_samples=n or 20_000, **claim)
    if driver == "sequential_audit":
        return dpverify.sequential_audit(mechanism, 0, 1, n_samples=n or 40_000, **claim)
    if driver == "delta_lower_bound_curve":
        del claim["epsilon"]
        return dpverify.delta_lower_bound_curve(mechanism, 0, 1, epsilons=GRID, n_samples=n or 20_000, **claim)
    if driver == "audit_pairs":
        return dpverify.audit_pairs(mechanism, PAIRS, n_samples=n or 10_000, **claim)
    if driver == "audit_samples":
        del claim["seed"]
        samples_x, samples_x_prime = _samples()
        if n is not None:
            samples_x, samples_x_prime = samples_x[: max(n, 0)], samples_x_prime[: max(n, 0)]
        return dpverify.audit_samples(samples_x, samples_x_prime, **claim)
    raise AssertionError(f"the driver {driver!r} declares its record but has no call in this test's _run: add it")


#: The drivers by name, as declared (:class:`dpverify.audits.drivers.Driver`).
RECORDS = {record.name: record for record in builtin_drivers() if record.source == "samples"}
DRIVERS = list(RECORDS)
#: The drivers that draw from a seed (and so replay); the others are given their samples.
DRAWING = [name for name, record in RECORDS.items() if record.replay is not None]


def _inputs(driver: str, mechanism) -> tuple:
    """What ``result.replay`` needs besides the result, by the names the driver's record gives."""
    values = dict(mechanism=mechanism, x=0, x_prime=1, neighbours=PAIRS, pairs=PAIRS)
    return tuple(values[name] for name in RECORDS[driver].inputs)


class Counted:
    """A geometric mechanism that counts the outputs drawn from it, and refuses beyond ``limit``."""

    def __init__(self, limit: int | None = None):
        self.inner = GeometricMechanism(1.0)
        self.limit = limit
        self.drawn = 0

    def _count(self, size: int) -> None:
        self.drawn += size
        if self.limit is not None and self.drawn > self.limit:
            raise RuntimeError(f"drew {self.drawn} outputs, more than the {self.limit} allowed before a refusal")

    def __call__(self, data, rng):
        self._count(1)
        return self.inner(data, rng)


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_same_seed_gives_the_same_result_and_replay_gives_it_again(driver):
    first = _run(driver, GeometricMechanism(1.0))
    second = _run(driver, GeometricMechanism(1.0))
    assert first.to_json() == second.to_json()
    if driver not in DRAWING:
        with pytest.raises(NotReplayableError, match="no seed"):
            first.replay(GeometricMechanism(1.0), 0, 1)
    else:
        assert first.replay(*_inputs(driver, GeometricMechanism(1.0))).to_json() == first.to_json()


@pytest.mark.parametrize("driver", DRIVERS)
def test_a_driver_runs_as_its_record_declares(driver):
    """The record's result type is the type of the driver's results; a replayable result's plan lays out the
    record's streams in their order and reads the sample count from the record's field; a replay given
    another number of inputs than the record names is refused by name. Detects: a record that disagrees
    with its driver (the plan and the replay would lay out other streams or read another size than the run
    drew, and every replay would differ)."""
    record = RECORDS[driver]
    result = _run(driver, GeometricMechanism(1.0))
    assert type(result) is record.result
    if record.streams:  # the pairs of audit_pairs each replay under their own audit's plan
        plan = plan_of_result(result, record)
        assert plan.driver == driver and tuple(plan.streams) == record.streams
        assert plan.n_samples == getattr(result, record.sample_field)
    if driver in DRAWING:
        with pytest.raises(DPVerifyError, match="replays from"):
            result.replay(*_inputs(driver, GeometricMechanism(1.0))[:-1])


@pytest.mark.parametrize("driver", DRIVERS)
def test_the_result_round_trips_through_json(driver):
    result = _run(driver, GeometricMechanism(1.0))
    back = type(result).from_json(result.to_json())
    assert type(back) is type(result)
    assert back.to_json() == result.to_json()
    assert back.summary() == result.summary()


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("bad", [dict(alpha=1.5), dict(alpha=0.0), dict(n_samples=-5)])
def test_bad_input_raises_a_named_error_before_drawing(driver, bad):
    mechanism = Counted(limit=0)
    with pytest.raises(DPVerifyError):
        _run(driver, mechanism, **bad)
    assert mechanism.drawn == 0


#: Every driver that draws checks memory on its plan before the first draw (a search before screening:
#: the search that once grew to 3.6 GB before it was killed).
@pytest.mark.parametrize("driver", DRAWING)
def test_an_absurd_selection_is_refused_before_drawing(driver, monkeypatch):
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 1 << 30)
    mechanism = Counted(limit=1)  # the pilot output that sizes the outputs, nothing more
    with pytest.raises(InsufficientMemoryError):
        _run(driver, mechanism, n_samples=10**13, n_selection=10**12)
    assert mechanism.drawn <= 1


#: One claim of each kind (the kinds are declared records: a new one joins this contract by a line here).
KIND_CLAIMS = {
    "zcdp": dpverify.PrivacyClaim.zcdp(0.5),
    "renyi": dpverify.PrivacyClaim.renyi([2.0, 4.0], [1.0, 2.0]),
    "gdp": dpverify.PrivacyClaim.gdp(1.5),
    "tradeoff": dpverify.PrivacyClaim.tradeoff([(0.0, 0.9), (0.5, 0.2), (1.0, 0.0)]),
}


def test_every_registered_claim_kind_is_in_the_contract():
    """Detects a claim kind registered without a case in this contract."""
    from dpverify.claims import BUILTIN_KINDS

    assert {k.name for k in BUILTIN_KINDS} == {"dp", *KIND_CLAIMS}


@pytest.mark.parametrize("kind", sorted(KIND_CLAIMS))
@pytest.mark.parametrize("driver", [d for d in DRIVERS if d != "delta_lower_bound_curve"])
def test_claims_of_every_kind_replay_and_round_trip_through_json(driver, kind):
    """The same contract for a claim of each other kind (the delta curve is an (epsilon, delta) curve and takes
    none): same seed, same JSON; replay gives it again; the reloaded result states the same claim. Detects a
    driver that drops the claim on the way (replaying or reloading it as (epsilon, delta)), or that cannot
    replay one."""

    def run():
        claim = dict(claim=KIND_CLAIMS[kind])
        if driver == "audit":
            return dpverify.audit(GeometricMechanism(1.0), 0, 1, n_samples=20_000, seed=5, **claim)
        if driver == "search_audit":
            return dpverify.search_audit(GeometricMechanism(1.0), PAIRS, n_samples=20_000, seed=5, **claim)
        if driver == "sequential_audit":
            return dpverify.sequential_audit(GeometricMechanism(1.0), 0, 1, n_samples=40_000, seed=5, **claim)
        if driver == "audit_pairs":
            return dpverify.audit_pairs(GeometricMechanism(1.0), PAIRS, n_samples=10_000, seed=5, **claim)
        return dpverify.audit_samples(*_samples(), **claim)

    first, second = run(), run()
    assert first.to_json() == second.to_json()
    back = type(first).from_json(first.to_json())
    assert back.to_json() == first.to_json()
    states = [r.claim for r in getattr(first, "results", (first,))]
    assert all(c.kind == kind for c in states)
    if driver != "audit_samples":
        assert first.replay(*_inputs(driver, GeometricMechanism(1.0))).to_json() == first.to_json()


def test_a_malformed_driver_record_is_refused_by_name():
    """Detects: a record that accepts a result type that is not a class or a replay that is not callable, or a
    plan built from a bare name (whose streams no record declares)."""
    from dpverify.audits.drivers import Driver
    from dpverify.audits.plan import build_plan
    from dpverify.errors import InvalidParameterError

    with pytest.raises(InvalidParameterError, match="driver 'mine': result"):
        Driver("mine", "AuditResult")
    with pytest.raises(InvalidParameterError, match="driver 'mine': replay"):
        Driver("mine", dpverify.AuditResult, replay="audit")
    with pytest.raises(InvalidParameterError, match="a Driver"):
        build_plan("audit", GeometricMechanism(1.0), (0, 1), (1.0, None, None), 20_000, 1, None, None)


THROWAWAY_DRIVER = """
from dataclasses import dataclass

import importlib

import numpy as np

from dpverify._results import Result
from dpverify.audits.drivers import Driver, ReplayedByItsDriver


@dataclass(frozen=True)
class Tosses(ReplayedByItsDriver, Result):
    heads: int
    seed: int


def toss(mechanism, seed):
    rng = np.random.default_rng(seed)
    return Tosses(sum(int(mechanism(0, rng)) for _ in range(50)), seed)


def _replay(result, mechanism, executor=None, progress=False):
    return toss(mechanism, result.seed)


DRIVER = Driver("toss", Tosses, inputs=("mechanism",), replay=_replay)
"""


def test_a_driver_is_added_by_its_module_alone(tmp_path, monkeypatch):
    """The manual's promise (docs/extending.md, "How many files"): a driver's module declaring its ``Driver`` record
    is all the machinery reads; no list elsewhere names it. A throwaway package holding one such module is read by
    the same discovery as the built-ins, and a result of its type replays through ``result.replay`` from the record
    alone. Detects: a driver list or registration to keep beside the module (the record would not be found), a
    record imported into a second module read twice, two records of one name accepted."""
    from dpverify.audits import drivers

    package = tmp_path / "throwaway_drivers"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "toss.py").write_text(THROWAWAY_DRIVER)
    (package / "again.py").write_text("from .toss import DRIVER as TOSS  # a driver that runs another\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = drivers.declared_drivers("throwaway_drivers")
    assert [record.name for record in found] == ["toss"]
    assert drivers.declared_drivers("dpverify.audits") == builtin_drivers()
    monkeypatch.setattr(drivers, "builtin_drivers", lambda: found)
    result = importlib.import_module("throwaway_drivers.toss").toss(GeometricMechanism(1.0), 3)
    assert result.replay(GeometricMechanism(1.0)) == result
    (package / "twin.py").write_text(THROWAWAY_DRIVER)  # a second record named "toss"
    with pytest.raises(DPVerifyError, match="two driver records are named 'toss'"):
        drivers.declared_drivers("throwaway_drivers")


@pytest.mark.parametrize("driver", DRAWING)
def test_an_absurd_sample_size_is_refused_before_drawing(driver, monkeypatch):
    """The certification's chunks are bookkept per chunk, one per 2^24 samples: 10^15 samples per input
    hold about 6e7 of them. Detects: an audit at the default selection that draws its selection and then
    runs out of memory (a raw MemoryError) building the chunks of a certification that cannot fit, in
    any driver that draws."""
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 8 << 30)
    mechanism = Counted(limit=1)  # the pilot output that sizes the outputs, nothing more
    with pytest.raises(InsufficientMemoryError, match="chunks .* certification|keeps its certification"):
        _run(driver, mechanism, n_samples=10**15)
    assert mechanism.drawn <= 1
