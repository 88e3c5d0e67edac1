"""Events for rich outputs: classifier level sets (DP-Sniper style) on vectors, sequences, tuples.

Statistical assertions use fixed seeds:

- "caught" (violation is True at alpha = suite_alpha = 1e-6): each broken
  mechanism below has a true loss far above its claim on an event of
  probability >= 0.02, and the sample sizes give expected bounds at least
  ~2x the claim, so the power is ~1 (stated per test).
- "no violation" on correct mechanisms: false-alarm rate <= suite_alpha each.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dpverify
from dpverify.events.classifier import classifier_events, fit_logistic_score, label_features, output_features
from dpverify.mechanisms import (
    GeometricMechanism,
    NoisyHistogram,
    SparseVector,
    SparseVectorNoQueryNoise,
    interleaved_pair,
)
from dpverify.pipeline.outputs import encode_outputs


class VarianceLeak:
    """Outputs N(0, s^2 I_5) with s = 1 on input 0 and s = 1.3 on input 1: claimed eps = 1, true eps = inf.

    The likelihood ratio depends on ||y||^2 only: no coordinate threshold is a
    level set, a threshold on the classifier score (squares are features) is.
    """

    epsilon = 1.0

    def sample(self, data, size, rng):
        return rng.normal(scale=1.0 + 0.3 * data, size=(size, 5))

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


class MaxWithIndex:
    """(argmax index, max value) of 5 counts + Laplace(2/eps), eps = 1: a mixed (int, float) tuple; broken.

    The value alone leaks 5 * 1/2 = 2.5 > 1 on the "all above" pair (lower tail).
    """

    epsilon = 1.0

    def sample(self, data, size, rng):
        noisy = np.asarray(data, float) + rng.laplace(scale=2.0, size=(size, len(data)))
        noisy = np.rint(noisy * 1024) / 1024  # no float-bit artefacts
        return [(int(i), float(v)) for i, v in zip(noisy.argmax(axis=1), noisy.max(axis=1))]

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


def test_logistic_fit_recovers_the_direction_of_a_shift():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(5000, 3)) + [1.0, 0.0, 0.0]
    b = rng.normal(size=(5000, 3))
    model = fit_logistic_score(a, b)
    assert model.weights[0] > 0.5 and np.all(np.abs(model.weights[1:]) < 0.1)
    # the Bayes log-odds for unit Gaussians shifted by 1 is x0 - 1/2: slope 1 per unit of x0
    assert abs(model.weights[0] / model.scale[0] - 1.0) < 0.1


def test_logistic_fit_survives_perfect_separation_and_constant_features():
    a = np.column_stack([np.ones(100), np.linspace(1, 2, 100)])
    b = np.column_stack([np.ones(100), np.linspace(-2, -1, 100)])
    model = fit_logistic_score(a, b)
    assert model.weights[0] == 0.0 and model.weights[1] > 0 and np.all(np.isfinite(model.weights))


@given(st.lists(st.lists(st.integers(-3, 3), max_size=6).map(tuple), min_size=1, max_size=20, unique=True))
@example([(), (1,), (1, 0, -1)])
def test_label_features_distinguish_variable_length_sequences(labels):
    table = label_features(labels)
    assert table is not None and table.shape[0] == len(labels)
    assert len({tuple(row) for row in table}) == len(labels)


def test_label_features_decline_unfeaturizable_labels():
    assert label_features(["a", "b"]) is None
    assert label_features([frozenset({1}), frozenset()]) is None


def test_output_features_include_argmax_one_hot():
    f = output_features(np.array([[0.0, 3.0, 1.0]]))
    assert f.shape == (1, 3 + 3 + 3 + 3 + 1 + 3)
    assert list(f[0, -3:]) == [0.0, 1.0, 0.0]


def test_classifier_family_proposes_events_for_real_and_rich_discrete_outputs():
    rng = np.random.default_rng(1)
    out = encode_outputs(rng.normal(size=(500, 2)), rng.normal(size=(500, 2)) + 1)
    assert classifier_events(*out.groups, out).events
    rows = encode_outputs(rng.integers(0, 50, size=(500, 2)), rng.integers(0, 50, size=(500, 2)))
    assert rows.kind == "discrete" and classifier_events(*rows.groups, rows).events
    few = encode_outputs(rng.integers(0, 3, size=500), rng.integers(0, 3, size=500))
    assert not classifier_events(*few.groups, few).events  # exact level sets cover few outputs


def test_classifier_finds_a_quadratic_leak_in_vectors(suite_alpha):
    """Power: with 4e4 samples the event {||y||^2 large} (P ~ 0.05 vs ~0.003) certifies eps ~ 2 > 1."""
    result = dpverify.audit(
        VarianceLeak(), 0, 1, epsilon=1.0, n_samples=40_000, alpha=suite_alpha, seed=31, event_families=["classifier"]
    )
    assert result.violation and result.event.family == "classifier"
    assert "classifier score" in result.event.description


def test_default_families_report_which_family_found_the_violation(suite_alpha):
    result = dpverify.audit(VarianceLeak(), 0, 1, epsilon=1.0, n_samples=40_000, alpha=suite_alpha, seed=32)
    assert result.violation
    assert result.event.family in {"classifier", "threshold", "interval"}
    assert result.to_dict()["event"]["family"] == result.event.family


def test_mixed_tuples_are_audited(suite_alpha):
    """(int, float) tuples are real 2-vectors; power: the lower tail {max < 1} has P = 1/32 under x
    and ratio e^2.5; 3e4 samples certify ~1.9 > 1 at alpha = 1e-6."""
    result = dpverify.audit(
        MaxWithIndex(), (1.0,) * 5, (2.0,) * 5, epsilon=1.0, n_samples=30_000, alpha=suite_alpha, seed=33
    )
    assert result.violation, result.summary()


@pytest.mark.parametrize("output", ["answers", "mask"])
def test_sparse_vector_sequences(output, suite_alpha):
    """Answer sequences (tuples of ints) or their masks: Algorithm 5 caught, Algorithm 1 not.

    Power: on the 10-query interleaved pair an answer vector impossible under x'
    has probability 0.18 under x; 2e4 samples certify eps ~ 6.
    """
    x, x_prime = interleaved_pair(10)
    broken = dpverify.audit(
        SparseVectorNoQueryNoise(0.1, threshold=4.0, output=output),
        x,
        x_prime,
        epsilon=0.1,
        n_samples=20_000,
        alpha=suite_alpha,
        seed=34,
    )
    assert broken.violation and broken.epsilon_lower_bound > 3
    correct = dpverify.audit(
        SparseVector(0.1, output=output),
        (0.0,) * 9 + (1.0,),
        (1.0,) * 9 + (0.0,),
        epsilon=0.1,
        n_samples=20_000,
        alpha=suite_alpha,
        seed=35,
    )
    assert not correct.violation


class GeometricPair:
    """Two counts with two-sided geometric noise: int-row outputs with many distinct values."""

    def __init__(self, epsilon, noise_epsilon):
        self.epsilon = epsilon
        self.noise = GeometricMechanism(noise_epsilon)

    def sample(self, data, size, rng):
        return np.stack([self.noise.sample(v, size, rng) for v in data], axis=1)

    def __call__(self, data, rng):
        return tuple(int(v) for v in self.sample(data, 1, rng)[0])


def test_integer_vectors_correct_and_broken(suite_alpha):
    """Correct: eps/2 noise per count with l1 change 2... here one count changes by 1 (eps-DP at 0.5).
    Broken: noise for eps = 3 claimed as 0.5 (true 3); 3e4 samples certify ~2 with power ~1."""
    correct = dpverify.audit(
        GeometricPair(0.5, 0.5), (0, 0), (1, 0), epsilon=0.5, n_samples=30_000, alpha=suite_alpha, seed=36
    )
    assert not correct.violation
    broken = dpverify.audit(
        GeometricPair(0.5, 3.0), (0, 0), (1, 0), epsilon=0.5, n_samples=30_000, alpha=suite_alpha, seed=37
    )
    assert broken.violation


def test_correct_noisy_histogram_has_no_violation(suite_alpha):
    m = NoisyHistogram(0.5)
    result = dpverify.audit(
        m, (1.0,) * 5, (2.0, 1.0, 1.0, 1.0, 1.0), epsilon=0.5, n_samples=50_000, alpha=suite_alpha, seed=38
    )
    assert not result.violation
