"""(eps, delta): the simultaneous delta(eps) lower-bound curve and the Gaussian mechanism.

Statistical assertions (fixed seeds):

- validity: for the correctly calibrated Gaussian mechanism (analytic sigma,
  Balle-Wang 2018) the curve at alpha = suite_alpha stays below the exact
  delta(eps) at every grid point and certifies no violation of the claim;
  false-alarm probability <= suite_alpha (the curve's simultaneous guarantee).
- power: sigma 30% too small (multiplier 0.7) at claim (eps, delta) = (1, 1e-3)
  has true delta(1) = 0.0126; with 4e5 samples per input the selected event
  (P ~ 0.03 vs ~0.008) certifies delta >= ~0.008 at alpha = 1e-6
  (standard error ~3e-4), so the violation is found with power ~1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dpverify
from dpverify.audits.delta_curve import CertifiedEvent, DeltaCurve
from dpverify.errors import IdenticalInputsError, InvalidParameterError
from dpverify.mechanisms import GaussianMechanism, analytic_gaussian_sigma, gaussian_delta
from dpverify.mechanisms.broken import BrokenGaussianMechanism

CLAIM = (1.0, 1e-3)
GRID = np.linspace(0.0, 2.0, 9)
N_SAMPLES = 400_000


@pytest.mark.parametrize("epsilon, delta", [(1.0, 1e-5), (0.5, 1e-3), (2.0, 1e-6), (0.1, 0.1)])
def test_analytic_sigma_attains_the_target_delta(epsilon, delta):
    sigma = analytic_gaussian_sigma(epsilon, delta)
    assert math.isclose(gaussian_delta(epsilon, sigma), delta, rel_tol=1e-8)
    assert gaussian_delta(epsilon, 0.99 * sigma) > delta


def test_gaussian_delta_is_a_decreasing_privacy_profile():
    eps = np.linspace(0, 5, 51)
    d = gaussian_delta(eps, 2.0)
    assert np.all(np.diff(d) <= 0) and d[0] == pytest.approx(2 * 0.5 * math.erf(0.25 / math.sqrt(2)), rel=1e-9)


@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=6),
    st.lists(st.floats(0, 5), min_size=1, max_size=8),
)
@example([(1.0, 0.0)], [1.0])
@example([(0.5, 0.1), (0.2, 0.0)], [0.0, 3.0])
def test_curve_is_nonincreasing_and_consistent_with_epsilon_at(bounds, grid):
    events = [CertifiedEvent("S", "f", "x", 0, 0, p, q) for p, q in bounds]
    grid = np.unique(np.asarray(grid))
    curve = DeltaCurve(grid, np.zeros(0), events, 0.05, 10, 1)
    values = np.atleast_1d(curve.delta_at(grid))
    assert np.all(np.diff(values) <= 1e-15) and np.all(values >= 0)
    for eps, d in zip(grid, values):
        if d > 1e-12:
            # some event certifies delta(eps) >= d > d/2, hence eps(d/2) > eps
            assert curve.epsilon_at(d / 2) >= eps - 1e-9


def _curve(mechanism, seed):
    return dpverify.delta_lower_bound_curve(
        mechanism, 0.0, 1.0, epsilons=GRID, n_samples=N_SAMPLES, alpha=1e-6, seed=seed
    )


@pytest.mark.privacy_audit
def test_calibrated_gaussian_curve_is_valid_and_finds_no_violation():
    mechanism = GaussianMechanism(*CLAIM)
    curve = _curve(mechanism, seed=21)
    truth = mechanism.true_delta(GRID)
    assert np.all(curve.delta_lower_bounds <= truth + 1e-12), (curve.delta_lower_bounds, truth)
    assert not curve.violates(*CLAIM)
    # the curve is informative, not trivially 0: at eps = 0 (total variation 0.154) it certifies > 0.1
    assert curve.delta_lower_bounds[0] > 0.1


@pytest.mark.privacy_audit
def test_miscalibrated_gaussian_is_caught_by_curve_and_audit():
    mechanism = BrokenGaussianMechanism(*CLAIM, sigma_multiplier=0.7)
    assert mechanism.true_delta(CLAIM[0]) > 10 * CLAIM[1]
    curve = _curve(mechanism, seed=22)
    assert curve.violates(*CLAIM)
    assert np.all(curve.delta_lower_bounds <= mechanism.true_delta(GRID) + 1e-12)
    result = dpverify.audit(
        mechanism, 0.0, 1.0, epsilon=CLAIM[0], delta=CLAIM[1], n_samples=N_SAMPLES, alpha=1e-6, seed=23
    )
    assert result.violation and result.delta_lower_bound > CLAIM[1]


def test_curve_rejects_bad_arguments():
    m = GaussianMechanism(*CLAIM)
    with pytest.raises(InvalidParameterError, match="epsilons"):
        dpverify.delta_lower_bound_curve(m, 0.0, 1.0, epsilons=[], n_samples=1000)
    with pytest.raises(InvalidParameterError, match="epsilons"):
        dpverify.delta_lower_bound_curve(m, 0.0, 1.0, epsilons=[-1.0], n_samples=1000)
    with pytest.raises(IdenticalInputsError):
        dpverify.delta_lower_bound_curve(m, 1.0, 1.0, epsilons=[1.0], n_samples=1000)
    with pytest.raises(InvalidParameterError, match="delta > 0"):
        GaussianMechanism(1.0, 0.0)


def test_curve_replays_from_its_seed():
    m = GaussianMechanism(*CLAIM)
    a = dpverify.delta_lower_bound_curve(m, 0.0, 1.0, epsilons=[0.5, 1.0], n_samples=20_000, seed=5)
    b = dpverify.delta_lower_bound_curve(m, 0.0, 1.0, epsilons=[0.5, 1.0], n_samples=20_000, seed=a.seed)
    assert a.to_dict() == b.to_dict()
