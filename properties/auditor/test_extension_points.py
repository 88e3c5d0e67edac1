"""Extension points: event families and neighbouring relations are declared records, registered in one place.

A third party adds an event family or a relation with one module (docs/extending.md):
these tests do so through the public mechanisms -- ``register_event_family`` and
``register_relation`` at run time, and the entry-point groups ``dpverify.event_families``
and ``dpverify.neighbour_relations`` (simulated: the registries read
``importlib.metadata.entry_points``) -- and audit with what they registered. The
registries are restored after each test, so no other test sees the toys.

The built-in order is part of every seeded result (candidates are built and reported in it, and
ties in selection go to the first): ``test_the_builtin_order_is_the_explicit_tuple`` pins it.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import dpverify
from dpverify import plugins
from dpverify.errors import InsufficientMemoryError, InvalidNeighboursError, InvalidParameterError, PluginError
from dpverify.events import (
    BUILTIN_FAMILIES,
    Candidates,
    Event,
    EventFamily,
    FamilyMemory,
    event_family,
    register_event_family,
    registered_families,
    screening_families,
)
from dpverify.events import registry as family_registry
from dpverify.events.indicators import CodeSet
from dpverify.mechanisms import GeometricMechanism, LaplaceMechanism
from dpverify.neighbours import BUILTIN_RELATIONS, NeighbourRelation, RelationFlag, domain_neighbours, relation
from dpverify.neighbours import relations as relation_registry
from dpverify.pipeline.memory import audit_memory_bytes

#: The registration order of the built-in families and relations as released: a reordered tuple
#: changes seeded results, so it fails here first (new built-ins come after these).
FAMILY_ORDER = [
    "singleton",
    "level-set",
    "numeric-threshold",
    "row-threshold",
    "threshold",
    "real-value",
    "mantissa",
    "reachability",
    "classifier",
    "learned",  # the opt-in families come last: out of the default set, no seeded result moves
    "learned-trees",
    "product",
    "learned-counts",  # default, but it proposes only on vectors with markers: elsewhere no seeded result moves
    "support-edge",  # default, but it proposes only beyond one input's support: elsewhere no seeded result moves
    "key-presence",  # default, on released-key outputs only: other outputs' seeded results do not move
    "key-value",
    "key-count",
    "declared-score",  # default, but it proposes only where the mechanism declares a score: elsewhere nothing moves
]
RELATION_ORDER = ["scalars", "vectors", "streams", "graphs", "datasets", "bits"]
#: The built-in names in registration order (the released ones above, then any added since).
FAMILIES = [record.name for record in BUILTIN_FAMILIES]
RELATIONS = [record.name for record in BUILTIN_RELATIONS]


def parity_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """A toy family: the one event "the output is odd", on numeric discrete outputs."""
    if outputs.numeric is None:
        return Candidates.empty("the outputs are not numbers")
    odd = CodeSet.of(np.flatnonzero(np.mod(outputs.numeric, 2) == 1), len(outputs.labels))
    counts = [np.count_nonzero(odd(sample)) for sample in (sel_x, sel_x_prime)]
    return Candidates([Event("output is odd", "parity", odd)], np.array(counts[:1]), np.array(counts[1:]))


PARITY = EventFamily("parity", "discrete", parity_events, screening=False, memory=FamilyMemory(fixed_bytes=1 << 29))


class _EntryPoint:
    """What ``importlib.metadata.entry_points`` yields: a name, a value and ``load()``."""

    def __init__(self, name, target):
        self.name, self.value, self._target = name, f"toy:{name}", target

    def load(self):
        if isinstance(self._target, Exception):
            raise self._target
        return self._target


def _entry_points_of(group_name, points):
    def entry_points(group):
        return points if group == group_name else []

    return entry_points


def test_the_builtin_order_is_the_explicit_tuple(fresh_registries):
    """Detects: a reordered BUILTIN_FAMILIES or BUILTIN_RELATIONS, or one inserted before a released one
    (seeded results would change), and a registry that does not start from them (tried: swapping two
    records of the tuple fails here). A new built-in goes at the end of its tuple, and this pin needs no
    edit for it (docs/extending.md: one module and one test)."""
    assert FAMILIES[: len(FAMILY_ORDER)] == FAMILY_ORDER and registered_families() == FAMILIES
    assert RELATIONS[: len(RELATION_ORDER)] == RELATION_ORDER and relation_registry.relation_names() == RELATIONS


def test_the_records_say_what_the_auditor_asks(fresh_registries):
    """Detects: family knowledge outside the records drifting from them (the classifier not screening,
    the floating-point families' role, the inputs the reachability family needs)."""
    assert "classifier" not in screening_families() and "threshold" in screening_families()
    assert dpverify.events.families_of_role("implementation") == ("mantissa", "reachability")
    assert event_family("reachability").uses_inputs and not event_family("mantissa").uses_inputs
    assert event_family("classifier").memory.fixed_bytes == max(r.memory.fixed_bytes for r in BUILTIN_FAMILIES)


def test_a_family_registered_at_run_time_is_audited_with(fresh_registries):
    """Register a toy family, audit with it alone: its event is certified and reported under its name.

    Detects: a registry that ignores late registrations, a candidate_events that does not call them, and
    a memory model that does not read the records (the toy declares 512 MiB, twice the classifier's: the
    estimate grows by the difference; a toy declaring a pebibyte is refused before drawing).
    """
    before = audit_memory_bytes(0, 1000)
    with pytest.raises(InvalidParameterError, match="parity"):
        dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=3, event_families=["parity"])
    register_event_family(PARITY)
    assert registered_families() == [*FAMILIES, "parity"]
    assert "parity" not in screening_families()
    assert audit_memory_bytes(0, 1000) == before - max(r.memory.fixed_bytes for r in BUILTIN_FAMILIES) + (1 << 29)
    result = dpverify.audit(
        GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=3, event_families=["parity"]
    )
    assert result.event.family == "parity"
    assert result.event.description == "output is odd"
    assert 0 < result.epsilon_lower_bound <= 1.0 and not result.violation
    family_registry.unregister_event_family("parity")
    assert registered_families() == FAMILIES
    register_event_family(replace(PARITY, memory=FamilyMemory(fixed_bytes=1 << 50)))
    with pytest.raises(InsufficientMemoryError):
        dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=3)


def test_the_field_form_of_register_event_family_still_works(fresh_registries):
    """The former signature ``register_event_family(name, kind, family, role=...)`` registers a record."""
    record = register_event_family("parity", "discrete", parity_events, role="value")
    assert event_family("parity") == record and record.screening and record.memory == FamilyMemory()
    with pytest.raises(InvalidParameterError, match="role"):
        register_event_family("parity", "discrete", parity_events, role="float")
    with pytest.raises(InvalidParameterError, match="kind"):
        EventFamily("parity", "vectors", parity_events)
    with pytest.raises(InvalidParameterError, match="built-in"):
        family_registry.unregister_event_family("threshold")


def test_a_family_registered_by_entry_point_comes_after_the_builtins(fresh_registries, monkeypatch):
    """Detects: a registry that skips the entry-point group, or loads it before the built-ins (their
    order would change); a broken entry point is named (a warning, and its PluginError where it is
    asked for), never a silently missing family nor one that takes the registry down."""
    monkeypatch.setattr(
        plugins, "entry_points", _entry_points_of("dpverify.event_families", [_EntryPoint("toy", (PARITY,))])
    )
    assert registered_families() == [*FAMILIES, "parity"]
    result = dpverify.audit(
        GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=3, event_families=["parity"]
    )
    assert result.event.family == "parity"
    monkeypatch.setattr(family_registry, "_REGISTRY", {})
    monkeypatch.setattr(
        plugins,
        "entry_points",
        _entry_points_of("dpverify.event_families", [_EntryPoint("broken", ImportError("no module toy"))]),
    )
    with pytest.warns(plugins.PluginWarning, match="'broken'.*ImportError: no module toy"):
        assert registered_families() == FAMILIES
    with pytest.raises(PluginError, match="'broken'.*does not load: ImportError: no module toy"):
        dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=2_000, seed=3, event_families=["broken"])
    with pytest.raises(InvalidParameterError, match="plug-ins that did not load: broken"):
        event_family("other")


def _unit_steps(low=0, high=8):
    """Integers that differ by one, in ``[low, high]``: a callable ``neighbours(rng)``."""

    def draw(rng):
        k = int(rng.integers(low, high))
        return k, k + 1

    return draw


STEPS = RelationFlag("--steps-high", "unit-steps: the largest integer (default 8)", "count")
UNIT_STEPS = NeighbourRelation(
    "unit-steps",
    "integers that differ by one",
    _unit_steps,
    flags=(STEPS,),
    from_flags=lambda args: _unit_steps(0, args.steps_high or 8),
    domain=lambda x, x_prime: {} if isinstance(x, int) and abs(x - x_prime) == 1 else None,
    inferred=False,
)


def test_a_relation_registered_at_run_time_serves_search_cli_and_domain(fresh_registries, tmp_path, monkeypatch):
    """Register a toy relation: a search audit explores it, the command line offers it with its own flag,
    and a mechanism that names it gets it as its input domain.

    Detects: a command line with a hand-written list of relations or flags, and a domain lookup that
    ignores the records (a mechanism's input_relation).
    """
    from dpverify.cli.commands import main

    relation_registry.register_relation(UNIT_STEPS)
    result = dpverify.search_audit(
        GeometricMechanism(1.0), relation("unit-steps").build(), epsilon=0.5, n_samples=20_000, seed=5, n_candidates=4
    )
    assert result.violation  # the geometric mechanism's loss is 1 on every unit step
    (tmp_path / "steps_mech.py").write_text(
        "from dpverify.mechanisms import GeometricMechanism\nmechanism = GeometricMechanism(1.0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    common = ["--samples", "20000", "--seed", "1", "--quiet", "--candidates", "4", "--steps-high", "5"]
    assert main(["audit", "steps_mech:mechanism", "--search", "unit-steps", "--epsilon", "0.5", *common]) == 1
    draw = domain_neighbours(3, 4, "unit-steps")
    assert draw(np.random.default_rng(0))[1] - draw(np.random.default_rng(0))[0] == 1
    with pytest.raises(InvalidNeighboursError, match="unit-steps"):
        domain_neighbours(3.5, 4.0, "unit-steps")
    assert domain_neighbours(3, 4) is not None and type(domain_neighbours(3, 4)).__name__ == "QueryVectors"


def test_a_relation_registered_by_entry_point_is_found(fresh_registries, monkeypatch):
    """Detects: a relation registry that skips its entry-point group."""
    monkeypatch.setattr(
        plugins, "entry_points", _entry_points_of("dpverify.neighbour_relations", [_EntryPoint("toy", UNIT_STEPS)])
    )
    assert relation_registry.relation_names() == [*RELATIONS, "unit-steps"]
    with pytest.raises(InvalidNeighboursError, match="built-in"):
        relation_registry.unregister_relation("vectors")


@pytest.mark.parametrize("record", [r for r in BUILTIN_RELATIONS if r.strategy], ids=lambda r: r.name)
def test_each_declared_hypothesis_twin_draws_pairs_that_differ(record):
    """Detects: a record whose strategy string names no strategy, or one that draws equal inputs."""
    from dpverify.testing.strategies import draw_pairs, relation_strategy

    pairs = draw_pairs(relation_strategy(record.name), 5, seed=1)
    assert pairs
    for pair in pairs:
        first, second = (pair.weights, pair.weights_prime) if hasattr(pair, "weights") else pair
        assert not np.array_equal(np.asarray(first), np.asarray(second)) or len(first) != len(second)


def test_laplace_audits_do_not_see_a_registered_discrete_family(fresh_registries):
    """A discrete family registered by a third party is skipped on real outputs, with the reason reported."""
    register_event_family(PARITY)
    result = dpverify.audit(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=3, event_families=["threshold", "parity"]
    )
    assert result.event.family != "parity"
    assert any("parity" in note for note in result.notes)
