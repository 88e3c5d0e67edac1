"""Same seed, same result, whatever runs the chunks."""

import concurrent.futures

import dpverify
from dpverify.zoo import GeometricMechanism, LaplaceMechanism, RandomizedResponse


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
            pooled = dpverify.audit(mechanism, x, x_prime, epsilon=1.0, n_samples=20_000, seed=42,
                                    executor=pool)
            assert local == pooled


def test_worker_count_as_executor_gives_the_same_result():
    local = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=3)
    assert dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=3,
                          executor=2) == local


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
    import numpy as np

    child = np.random.SeedSequence(2024).spawn(3)[2]
    first = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=child)
    assert first.seed == {"entropy": 2024, "spawn_key": [2]}
    again = dpverify.AuditResult.from_json(first.to_json())
    assert dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=10_000, seed=again.seed) == first
