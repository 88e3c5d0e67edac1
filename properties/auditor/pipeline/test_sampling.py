"""Seeding and chunked sampling (dpverify.pipeline.sampling): same seed, same result, whatever runs the chunks.

A ``numpy.random.Generator`` is accepted as a seed wherever a seed is: a child of its SeedSequence
is spawned, so generators made alike give the same result and the recorded seed replays it.
"""

import concurrent.futures
import inspect
import json

import numpy as np
import pytest

import dpverify
from dpverify.mechanisms.textbook import GeometricMechanism, LaplaceMechanism, RandomizedResponse
from dpverify.pipeline.sampling import resolve_seed


class PerCallRR:
    """A mechanism without ``sample``: exercised through the per-call path."""

    def __call__(self, data, rng):
        return int(data) if rng.random() < 0.7 else 1 - int(data)


def test_audit_identical_with_and_without_a_process_pool():
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        for mechanism, x, x_prime in [
            (LaplaceMechanism(1.0), 0.0, 1.0),
            (GeometricMechanism(0.5), 0, 1),
            (PerCallRR(), 0, 1),
        ]:
            local = dpverify.audit(mechanism, x, x_prime, epsilon=1.0, n_samples=20_000, seed=42)
            pooled = dpverify.audit(mechanism, x, x_prime, epsilon=1.0, n_samples=20_000, seed=42, executor=pool)
            assert local == pooled


def test_worker_count_as_executor_gives_the_same_result():
    local = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=3)
    assert dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=3, executor=2) == local


def test_replaying_the_recorded_seed_reproduces_an_unseeded_audit():
    first = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000)
    again = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=first.seed)
    assert again == first


class Die:
    def __call__(self, rng):
        return int(rng.integers(6))


def test_distribution_tests_are_reproducible_across_executors():
    local = dpverify.equal_distributions(Die(), Die(), n_samples=5_000, seed=9)
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        pooled = dpverify.equal_distributions(Die(), Die(), n_samples=5_000, seed=9, executor=pool)
    assert local == pooled


def test_a_spawned_seed_sequence_is_recorded_so_that_it_replays():
    child = np.random.SeedSequence(2024).spawn(3)[2]
    first = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=child)
    assert first.seed == {"entropy": 2024, "spawn_key": [2]}
    again = dpverify.AuditResult.from_json(first.to_json())
    assert dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=again.seed) == first


# ----------------------------------------------------------------------------
# a numpy Generator as the seed
# ----------------------------------------------------------------------------


def test_resolve_seed_spawns_from_a_generator_without_drawing_from_it():
    rng = np.random.default_rng(7)
    state = rng.bit_generator.state
    first, recorded = resolve_seed(rng)
    assert rng.bit_generator.state == state  # the generator's stream is untouched
    assert recorded == {"entropy": 7, "spawn_key": [0]}  # plain data, replayable
    json.dumps(recorded)
    again, _ = resolve_seed(recorded)
    assert np.array_equal(again.generate_state(4), first.generate_state(4))
    # alike generators give the same child; one generator gives a new child each call
    assert resolve_seed(np.random.default_rng(7))[1] == recorded
    assert resolve_seed(rng)[1] == {"entropy": 7, "spawn_key": [1]}
    # the child is the one numpy's own Generator.spawn would make
    spawned = np.random.default_rng(7).spawn(1)[0]
    assert np.array_equal(spawned.bit_generator.seed_seq.generate_state(4), first.generate_state(4))


def test_a_generator_without_a_seed_sequence_is_drawn_from_once():
    """A legacy-seeded bit generator has no SeedSequence to spawn from: 128 bits are drawn instead."""

    def legacy():
        return np.random.Generator(np.random.RandomState(5)._bit_generator)  # seed_seq is None

    assert legacy().bit_generator.seed_seq is None
    sequence, recorded = resolve_seed(legacy())
    json.dumps(recorded)
    assert resolve_seed(legacy())[1] == recorded  # alike generators, same seed
    assert np.array_equal(resolve_seed(recorded)[0].generate_state(2), sequence.generate_state(2))


def _same(run):
    """``run(seed)`` twice with alike generators, and once with the recorded seed."""
    first = run(np.random.default_rng(11))
    second = run(np.random.default_rng(11))
    return first, second


def test_audit_accepts_a_generator_and_records_a_seed_that_replays_it():
    mechanism = RandomizedResponse(1.0)

    def run(seed):
        return dpverify.audit(mechanism, 0, 1, epsilon=1.0, n_samples=5_000, seed=seed)

    first, second = _same(run)
    assert first == second
    assert first.seed == {"entropy": 11, "spawn_key": [0]}
    assert run(first.seed) == first
    assert run(np.random.SeedSequence(11).spawn(1)[0]) == first


def test_every_public_function_with_a_seed_takes_a_generator():
    from dpverify.audits.oracle import oracle_epsilon_bound
    from dpverify.testing import assert_dp, audit_pairs

    rr = RandomizedResponse(1.0)
    runs = {
        "sequential_audit": lambda s: dpverify.sequential_audit(rr, 0, 1, epsilon=1.0, n_samples=8_000, seed=s),
        "delta_lower_bound_curve": lambda s: dpverify.delta_lower_bound_curve(
            rr, 0, 1, epsilons=[0.5, 1.0], n_samples=4_000, seed=s
        ).to_dict(),
        "equal_distributions": lambda s: dpverify.equal_distributions(Die(), Die(), n_samples=2_000, seed=s),
        "goodness_of_fit": lambda s: dpverify.goodness_of_fit(
            Die(), {i: 1 / 6 for i in range(6)}, n_samples=2_000, seed=s
        ),
        "audit_pairs": lambda s: audit_pairs(rr, [(0, 1), (1, 0)], epsilon=1.0, n_samples=4_000, seed=s),
        "assert_dp": lambda s: assert_dp(rr, 0, 1, epsilon=1.0, n_samples=4_000, seed=s),
        "simulated_bounds": lambda s: (
            oracle_epsilon_bound({0: 0.7, 1: 0.3}, {0: 0.3, 1: 0.7}, 1_000).simulated_bounds(5, seed=s).tolist()
        ),
    }
    for name, run in runs.items():
        first, second = _same(run)
        assert first == second, name
        if hasattr(first, "seed"):
            assert first.seed == {"entropy": 11, "spawn_key": [0]}, name
            assert run(first.seed) == first, name


def test_run_suite_accepts_a_generator():
    from dpverify.cli.suite import Verification, VerificationOutcome, run_suite

    item = Verification("test/seed", "echo", lambda seed: VerificationOutcome(passed=True, details=str(seed)))
    first = run_suite([item], seed=np.random.default_rng(3))
    second = run_suite([item], seed=np.random.default_rng(3))
    assert [r.details for r in first] == [r.details for r in second]


def _public_functions_with_a_seed():
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(dpverify.__path__):
        if info.name.startswith("_") or info.name in {"strategies", "cli", "__main__"}:
            continue
        module = importlib.import_module(f"dpverify.{info.name}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            members = (
                [obj]
                if inspect.isfunction(obj)
                else [m for _, m in inspect.getmembers(obj, inspect.isfunction) if not m.__name__.startswith("_")]
                if inspect.isclass(obj) and obj.__module__ == module.__name__
                else []
            )
            for function in members:
                if "seed" in inspect.signature(function).parameters:
                    yield f"{module.__name__}.{function.__qualname__}", function


#: Functions whose ``seed`` is already a resolved SeedSequence (or an int derived from one).
PLUMBING = {
    "dpverify.pipeline.sampling.draw",
    "dpverify.pipeline.sampling.children",
    "dpverify.cli.suite.verification_seed",
    "dpverify.cli.suite.write_suite_report",
}


@pytest.mark.parametrize(
    "name, function",
    sorted((item for item in _public_functions_with_a_seed() if item[0] not in PLUMBING), key=lambda t: t[0]),
)
def test_the_seed_parameter_documents_generators(name, function):
    """Each public ``seed`` parameter says what a Generator does (numpydoc ``seed : ...`` entry)."""
    doc = inspect.getdoc(function) or ""
    assert "seed" in doc and "Generator" in doc, name
