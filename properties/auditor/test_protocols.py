"""Mechanism contracts (dpverify.protocols) and replayability decided by what can be checked.

Deterministic checks: a replay check draws the first outputs twice from one seed, so nothing here
is statistical (a mechanism drawing from numpy's global state gives equal first 64 continuous
outputs with probability 0).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpverify
from dpverify.errors import SamplerContractError
from dpverify.extras.adapters import UnseededMechanism
from dpverify.mechanisms.textbook import LaplaceMechanism, RandomizedResponse
from dpverify.protocols import (
    ExactMechanism,
    VectorizedSampler,
    check_replayable,
    contract_seed,
    declares_not_replayable,
    has_exact_pmf,
    is_mechanism,
    is_vectorized,
)


def global_noise(x, rng):
    """Touches its rng, but its noise comes from numpy's global state: not replayable."""
    rng.random()
    return float(x) + float(np.random.laplace(scale=1.0))


class Opaque:
    """An output compared by identity."""


def test_a_mechanism_drawing_from_the_global_state_is_not_replayable():
    """Detects replayability decided by "the rng was touched" alone: this mechanism touches it,
    and two audits with one seed give different bounds, yet both were marked replayable."""
    first = dpverify.audit(global_noise, 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=4, float_events=False)
    assert not first.replayable
    assert any("the same seed gave different outputs" in note for note in first.notes)
    assert "does not replay" in first.summary()
    sequential = dpverify.sequential_audit(global_noise, 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=4)
    assert not sequential.replayable


def test_a_seeded_mechanism_is_replayable_without_a_note():
    """Detects a check that calls every mechanism unreplayable (or notes it needlessly)."""
    result = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=4)
    assert result.replayable and not any("replay" in note for note in result.notes)
    again = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=4)
    assert again == result


def test_the_check_says_when_it_could_not_decide():
    """Detects a check that guesses: outputs compared by identity cannot be compared twice."""
    seed = contract_seed(np.random.SeedSequence(1))
    opaque = check_replayable(lambda x, rng: (rng.random(), Opaque())[1], 0, seed)
    assert opaque.replayable and "could not be checked" in opaque.note
    keyed = check_replayable(lambda x, rng: (rng.random(), Opaque())[1], 0, seed, output_key=lambda o: 0)
    assert keyed.replayable and keyed.note is None


def test_declared_and_unused_randomness_is_not_replayable():
    """Detects a check that overrides the mechanism's own declaration."""
    seed = contract_seed(np.random.SeedSequence(1))
    declared = UnseededMechanism(lambda x: x, epsilon=1.0)
    assert declares_not_replayable(declared)
    assert not check_replayable(declared, 0, seed).replayable
    unused = check_replayable(lambda x, rng: x, 0, seed)
    assert not unused.replayable and "did not draw" in unused.note


def test_the_protocols_recognise_the_contracts():
    """Detects probes that accept a non-callable ``sample`` or ``pmf`` attribute."""
    rr = RandomizedResponse(1.0)
    assert is_mechanism(rr) and is_vectorized(rr) and has_exact_pmf(rr)
    assert isinstance(rr, VectorizedSampler) and isinstance(rr, ExactMechanism)

    class Attribute:
        sample = 3
        pmf = None

        def __call__(self, data, rng):
            return 0

    assert is_mechanism(Attribute()) and not is_vectorized(Attribute()) and not has_exact_pmf(Attribute())
    assert not is_mechanism(5)


def test_a_sampler_of_the_wrong_length_is_refused_by_name():
    """Detects the wrong length worded as "the mechanism raised ValueError"."""

    class Short:
        def __call__(self, data, rng):
            return rng.integers(2)

        def sample(self, data, size, rng):
            return rng.integers(2, size=size - 1)

    with pytest.raises(SamplerContractError, match="first axis must be size"):
        dpverify.audit(Short(), 0, 1, epsilon=1.0, n_samples=2_000, seed=1)
