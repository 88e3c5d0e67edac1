"""The epsilon of the canary traces' pairs (benchmarks/dpsgd_traces.py): Monte Carlo against exact values.

``shuffle_epsilon`` estimates, by importance sampling, the epsilon at delta of several epochs of the
shuffled trace's pair; ``without_replacement_epsilon`` brackets that of the trace without replacement per
step by composing a gridded privacy loss distribution. They are the yardsticks the DP-SGD section of
docs/auditor/benchmarks.md sets certified lower bounds against (a certified value above its pair's epsilon
would be an invalid bound), so each is checked against an independent exact computation: the Gaussian
mechanism where there is one batch per epoch, and numerical integration of the two-batch pair.

The Monte Carlo checks use fixed seeds and allow 5.5 standard errors of the estimate (the estimate is a
smooth function of a mean of i.i.d. weighted terms, so about normal: a correct estimator falls outside
with probability about 4e-8 per check, so at most 3 checks per test stay below the suite's 1e-6). The
standard error is itself estimated from the weighted terms; the exact comparisons are what check it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import norm

Z = 5.5  # standard errors allowed: two-sided 3.8e-8


@pytest.fixture(scope="module")
def bench(load_benchmark):
    """benchmarks/dpsgd_traces.py."""
    return load_benchmark("dpsgd_traces")


@pytest.fixture(scope="module")
def two_batch_losses():
    """The one-epoch privacy loss of the two-batch shuffled pair in Chua et al.'s worst case (sigma 1; the
    canary's batch moves by 2 on ``x``, 1 on ``x'``), each direction on a grid of square cells of side 0.01
    over +-10 sigma: ``(most, least, mass)`` per cell, its mass exact, its loss between the least and most of
    its corners."""
    sigma, step = 1.0, 0.01
    edges = np.arange(-10 * sigma, 2 + 10 * sigma, step)
    cell = {a: np.diff(norm.cdf((edges - a) / sigma)) for a in (0.0, 1.0, 2.0)}
    y1, y2 = np.meshgrid(edges, edges, indexing="ij")

    def log_density(a):  # up to the same constant for both inputs
        return np.logaddexp((2 * y1 - a) * a / (2 * sigma**2), (2 * y2 - a) * a / (2 * sigma**2))

    directions = []
    for a, b in ((2.0, 1.0), (1.0, 2.0)):
        loss = log_density(a) - log_density(b)
        corners = np.stack([loss[:-1, :-1], loss[1:, :-1], loss[:-1, 1:], loss[1:, 1:]])
        masses = 0.5 * (np.outer(cell[a], cell[0.0]) + np.outer(cell[0.0], cell[a]))
        directions.append((corners.max(axis=0).ravel(), corners.min(axis=0).ravel(), masses.ravel()))
    return directions


@pytest.mark.parametrize(("epochs", "delta"), [(1, 1e-2), (1, 1e-5), (2, 1e-2), (2, 1e-5)])
def test_the_shuffled_pairs_epsilon_matches_integration_of_the_two_batch_pair(bench, two_batch_losses, epochs, delta):
    """Two batches per epoch (sigma 1, the other records at -1): the importance-sampled epsilon of 1 and 2
    epochs at delta 1e-2 and 1e-5 lies within 5.5 standard errors of the bracket that numerical integration
    and exact composition give (:func:`two_batch_losses` composed by dp_accounting, both directions; its
    width, about 0.03, is the grid's).

    Detects: epochs' losses not summed (2 epochs read as 1: 0.5-1 below), importance weights with the wrong
    sign or left out (the tilted draws read as the pair's: far above), and a standard error too small for the
    estimate's spread."""
    pytest.importorskip("dp_accounting", reason="dp-accounting is in the 'test' and 'accountants' extras")
    bounds = [bench._composed_epsilon(*direction, epochs, delta) for direction in two_batch_losses]
    above, below = max(b[0] for b in bounds), max(b[1] for b in bounds)
    assert above - below < 0.06, (above, below)
    estimate = bench.shuffle_epsilon(1.0, 2, delta, draws=50_000, seed=3, others=-1.0, epochs=epochs)
    assert estimate.std_error < 0.02, estimate
    assert below - Z * estimate.std_error <= estimate.epsilon <= above + Z * estimate.std_error, (
        estimate,
        above,
        below,
    )


@pytest.mark.parametrize(("epochs", "delta"), [(1, 1e-2), (1, 1e-5), (3, 1e-5)])
def test_the_shuffled_pairs_epsilon_is_the_gaussian_mechanisms_at_one_batch(bench, epochs, delta):
    """One batch per epoch: the pair is the Gaussian mechanism of shift 1 in each of the epochs, ``mu =
    sqrt(E) / sigma``, whose epsilon is exact (Balle and Wang 2018); the estimate is within 5.5 standard
    errors of it and resolves delta 1e-5 to a standard error below 0.01.

    Detects: as above, and a tilt that leaves the tail unresolved (plain Monte Carlo on 50,000 traces has
    a standard error of about 0.3 at delta 1e-5, seeds 4 and 5)."""
    sigma = 0.7
    exact = bench._gaussian_epsilon(math.sqrt(epochs) / sigma, delta)
    estimate = bench.shuffle_epsilon(sigma, 1, delta, draws=50_000, seed=4, others=-1.0, epochs=epochs)
    assert estimate.std_error < 0.01, estimate
    assert abs(estimate.epsilon - exact) <= Z * estimate.std_error, (estimate, exact)


def test_the_one_epoch_estimate_agrees_with_plain_monte_carlo(bench):
    """At one epoch of 100 batches (sigma 0.7, delta 1e-2, the other records at -1) the importance-sampled
    estimate and plain Monte Carlo (the one-epoch computation before this estimator) agree within 5.5 of
    their combined standard errors.

    Detects: a tilt whose weights do not undo it (the two disagree) at the size of the gap table's rows."""
    plain = bench.shuffle_epsilon(0.7, 100, 1e-2, draws=20_000, seed=5, others=-1.0, importance=False)
    tilted = bench.shuffle_epsilon(0.7, 100, 1e-2, draws=20_000, seed=6, others=-1.0)
    spread = math.hypot(plain.std_error, tilted.std_error)
    assert abs(plain.epsilon - tilted.epsilon) <= Z * spread, (plain, tilted)


def test_the_shuffled_pairs_epsilon_lies_between_fewer_epochs_and_the_gaussian_mechanism(bench):
    """100 batches per epoch (the other records at -1): the pair's epsilon grows with the epochs (one epoch's
    trace is a post-processing of two epochs') and never exceeds the Gaussian mechanism of shift 1 in each
    epoch, ``mu = sqrt(E) / sigma`` (the trace with the canary's batches released, of which the pair is a
    post-processing); at sigma 0.7 and delta 1e-5 it comes within 0.02 of it, at sigma 1 and delta 1e-2 it
    is far below (the choice of batch amplifies there). Each comparison allows 5.5 standard errors.

    Detects: an estimate that ignores the choice of batch (the Gaussian value at sigma 1), or the epochs
    (1 = 2), and a tilt biased upwards (above the Gaussian)."""
    one, two = (bench.shuffle_epsilon(0.7, 100, 1e-5, draws=20_000, seed=7, others=-1.0, epochs=e) for e in (1, 2))
    assert one.epsilon + Z * math.hypot(one.std_error, two.std_error) < two.epsilon, (one, two)
    for estimate, epochs in ((one, 1), (two, 2)):
        assert estimate.epsilon - Z * estimate.std_error <= bench._gaussian_epsilon(math.sqrt(epochs) / 0.7, 1e-5)
    amplified = bench.shuffle_epsilon(1.0, 100, 1e-2, draws=20_000, seed=8, others=-1.0, epochs=2)
    assert amplified.epsilon + Z * amplified.std_error < 0.8 * bench._gaussian_epsilon(math.sqrt(2), 1e-2)


@pytest.mark.parametrize("steps", [1, 4])
def test_the_without_replacement_pair_is_the_gaussian_at_one_batch(bench, steps):
    """With one batch (q = 1) every step holds the canary, and the pair without replacement per step is the
    Gaussian mechanism of shift 1 in each step, ``mu = sqrt(T) / sigma`` (sigma 0.7, delta 1e-5): the bracket
    holds its exact epsilon and is narrower than 0.05.

    Detects: the composition over steps left out or halved (tried: fails at 4 steps), the rounding inwards
    (the bracket missing the exact value)."""
    pytest.importorskip("dp_accounting", reason="dp-accounting is in the 'test' and 'accountants' extras")
    exact = bench._gaussian_epsilon(math.sqrt(steps) / 0.7, 1e-5)
    above, below = bench.without_replacement_epsilon(0.7, 1, steps, 1e-5, others=-1.0)
    assert below <= exact <= above and above - below < 0.05, (below, exact, above)


def test_the_without_replacement_pair_lies_between_one_step_and_every_step(bench):
    """At 100 batches and 100 steps (sigma 0.7, delta 1e-5) the pair without replacement per step lies below
    the Gaussian mechanism of every step (``mu = 10 / sigma``) and above that of one step (``mu = 1 / sigma``),
    which bounds one epoch of shuffling: per-step sampling holds the canary in about one step, sometimes
    several, and the several dominate at small delta.

    Detects: the sampling probability ignored (every step: the upper value) or applied twice (below)."""
    pytest.importorskip("dp_accounting", reason="dp-accounting is in the 'test' and 'accountants' extras")
    above, below = bench.without_replacement_epsilon(0.7, 100, 100, 1e-5, others=-1.0)
    assert bench._gaussian_epsilon(1 / 0.7, 1e-5) < below <= above < bench._gaussian_epsilon(10 / 0.7, 1e-5)
