"""Accounting helpers (Pagh et al. 2025, Thm 3.2) and named errors for bad parameters."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms.errors import InvalidPrivacyParameterError
from algorithms.graphs import as_graph_arrays
from algorithms.matroids import UniformMatroid
from algorithms.mst.accounting import (
    CONVERSIONS,
    accounting_from_epsilon0,
    accounting_from_epsilon_delta,
    accounting_from_rho,
    check_delta,
    epsilon0_from_rho,
    epsilon_from_rho,
    rho_from_epsilon,
    rho_from_epsilon0,
    zcdp_of_pure_step,
)
from algorithms.mst.kruskal import one_pass_kruskal, private_kruskal
from algorithms.mst.matroid_extension import private_matroid_basis
from algorithms.mst.pamst import pamst_fast, pamst_naive
from algorithms.mst.perturbation import GumbelPerturbationMechanism, perturbed_mst
from algorithms.mst.privatization import (
    gaussian_accounting,
    gaussian_privatized_mst,
    gaussian_sigma,
    laplace_accounting,
    laplace_privatized_mst,
    laplace_scale,
)

TRI = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [0.0, 1.0, 2.0]))
positive = st.floats(1e-4, 1e3)
deltas = st.floats(1e-12, 0.5)


@given(positive, deltas)
def test_rho_and_epsilon_conversions_are_inverse(eps, delta):
    rho = rho_from_epsilon(eps, delta)
    assert epsilon_from_rho(rho, delta) == pytest.approx(eps, rel=1e-9)


@given(positive, st.integers(1, 10_000), st.sampled_from(sorted(CONVERSIONS)))
def test_eps0_and_rho_conversions_are_inverse(rho, steps, conversion):
    epsilon0 = epsilon0_from_rho(rho, steps, conversion)
    assert rho_from_epsilon0(epsilon0, steps, conversion) == pytest.approx(rho, rel=1e-12)


def test_named_conversions_follow_the_notes():
    assert zcdp_of_pure_step(2.0, "generic") == 2.0  # epsilon0^2 / 2
    assert zcdp_of_pure_step(2.0, "bounded-range") == 0.5  # epsilon0^2 / 8
    assert zcdp_of_pure_step(2.0) == 2.0  # default: generic
    # epsilon0 = sqrt(2 rho / (n-1)) (generic) and sqrt(8 rho / (n-1)) (bounded range)
    assert epsilon0_from_rho(1.0, 999) == pytest.approx(math.sqrt(2 / 999))
    assert epsilon0_from_rho(1.0, 999, "bounded-range") == pytest.approx(math.sqrt(8 / 999))
    claim = accounting_from_epsilon_delta(1.0, 1e-6, 9)
    assert claim.epsilon == pytest.approx(1.0) and claim.steps == 9 and claim.conversion == "generic"
    assert claim.rho == pytest.approx((math.sqrt(1 + math.log(1e6)) - math.sqrt(math.log(1e6))) ** 2)
    assert accounting_from_rho(claim.rho, 9, 1e-6).epsilon0_per_step == pytest.approx(claim.epsilon0_per_step)
    assert accounting_from_epsilon0(claim.epsilon0_per_step, 9, 1e-6).epsilon == pytest.approx(1.0)


BAD_EPS = [0, -1.0, float("nan"), float("inf"), True, "1", None]
BAD_DELTA = [0, 1, 1.5, -0.1, float("nan"), None]


@pytest.mark.parametrize("bad", BAD_EPS)
def test_bad_epsilon_raises_named_error_everywhere(bad):
    calls = [
        lambda: perturbed_mst(TRI, bad, 0),
        lambda: GumbelPerturbationMechanism(bad),
        lambda: private_kruskal(TRI, bad, 0),
        lambda: one_pass_kruskal(TRI, bad, 0),
        lambda: pamst_naive(TRI, bad, 0),
        lambda: pamst_fast(TRI, bad, 0),
        lambda: laplace_privatized_mst(TRI, bad, 0),
        lambda: gaussian_privatized_mst(TRI, bad, 0),
        lambda: private_matroid_basis(UniformMatroid(3, 2), [1.0, 2.0, 3.0], bad, 0),
        lambda: accounting_from_epsilon_delta(bad, 1e-6, 3),
        lambda: epsilon_from_rho(bad, 1e-6),
    ]
    for call in calls:
        with pytest.raises(InvalidPrivacyParameterError, match="finite real number > 0"):
            call()


@pytest.mark.parametrize("bad", BAD_DELTA)
def test_bad_delta_raises_named_error(bad):
    for call in (
        lambda: check_delta(bad),
        lambda: epsilon_from_rho(1.0, bad),
        lambda: accounting_from_epsilon_delta(1.0, bad, 3),
        lambda: GumbelPerturbationMechanism(1.0).privacy_accounting(TRI, bad),
        lambda: gaussian_accounting(1.0, bad),
    ):
        with pytest.raises(InvalidPrivacyParameterError, match=r"open interval \(0, 1\)"):
            call()


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), float("nan")])
def test_bad_sensitivity_raises_named_error(bad):
    for call in (
        lambda: perturbed_mst(TRI, 1.0, 0, sensitivity=bad),
        lambda: private_kruskal(TRI, 1.0, 0, sensitivity=bad),
        lambda: pamst_fast(TRI, 1.0, 0, sensitivity=bad),
        lambda: laplace_scale(3, 1.0, bad),
        lambda: gaussian_sigma(3, 1.0, bad),
    ):
        with pytest.raises(InvalidPrivacyParameterError, match="sensitivity must be a finite real number > 0"):
            call()


def test_bad_steps_conversion_and_relation_raise_named_errors():
    with pytest.raises(InvalidPrivacyParameterError, match="steps"):
        rho_from_epsilon0(1.0, 0)
    with pytest.raises(InvalidPrivacyParameterError, match="conversion"):
        zcdp_of_pure_step(1.0, "advanced")
    with pytest.raises(InvalidPrivacyParameterError, match="neighbouring"):
        laplace_scale(3, 1.0, 1.0, "l2")


def test_input_privatization_calibrations():
    # l_inf: l1 sensitivity m D (Laplace m D / eps), l2 sensitivity sqrt(m) D (sigma = D sqrt(m / 2 rho))
    assert laplace_scale(10, 2.0, 0.5) == pytest.approx(10 * 0.5 / 2.0)
    assert laplace_scale(10, 2.0, 0.5, "l1") == pytest.approx(0.5 / 2.0)
    assert gaussian_sigma(10, 2.0, 0.5) == pytest.approx(0.5 * math.sqrt(10 / 4.0))
    assert gaussian_sigma(10, 2.0, 0.5, "l1") == pytest.approx(0.5 / 2.0)
    assert laplace_accounting(1.5).epsilon == 1.5 and laplace_accounting(1.5).delta == 0.0
    assert gaussian_accounting(1.0, 1e-6).epsilon == pytest.approx(1 + 2 * math.sqrt(math.log(1e6)))


def test_mechanism_claim_counts_one_step_per_forest_edge():
    disconnected = as_graph_arrays((5, [[0, 1], [1, 2], [3, 4]], [0.0, 1.0, 2.0]))
    claim = GumbelPerturbationMechanism(0.5).privacy_accounting(disconnected, 1e-6)
    assert claim.steps == 3 and claim.epsilon0_per_step == 0.5
    assert claim.rho == pytest.approx(3 * 0.5**2 / 2)
    assert claim.basic_composition_epsilon == pytest.approx(1.5)


def test_log_space_private_kruskal_keeps_far_lighter_candidates():
    # epsilon0 = 10, weights +-1e3: sampling weights exp(+-5000) overflow/underflow in linear space.
    huge = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], [1e3, -1e3, -999.0, 0.0, 1e3]))
    for seed in range(50):
        assert private_kruskal(huge, 10.0, seed).tolist() == [1, 2, 3]
        assert pamst_fast(huge, 10.0, seed).tolist() == [1, 2, 3]
        assert pamst_naive(huge, 10.0, seed).tolist() == [1, 2, 3]
    # ... and an exact near-tie among huge weights is still a fair coin, not a lost candidate.
    tie = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [1e3, 1e3, -1e3]))
    draws = np.array([private_kruskal(tie, 10.0, s).tolist() for s in range(400)])
    # edge 2 always; edge 0 vs 1 each w.p. 1/2: Binomial(400, 1/2) outside [140, 260] has prob < 1e-9
    assert np.all((draws == 2).any(axis=1))
    assert 140 <= int((draws == 0).any(axis=1).sum()) <= 260
