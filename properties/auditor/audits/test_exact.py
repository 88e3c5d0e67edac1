"""exact_privacy_loss agrees with closed forms."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from dpverify.mechanisms.textbook import ExponentialMechanism, RandomizedResponse


@given(st.floats(0.01, 5.0))
def test_randomized_response_epsilon_and_delta_curve(eps):
    rr = RandomizedResponse(eps)
    loss = dpverify.exact_privacy_loss(rr.pmf(0), rr.pmf(1))
    assert loss.epsilon == pytest.approx(eps, rel=1e-12)
    p = math.exp(eps) / (1 + math.exp(eps))
    for e in np.linspace(0, 1.2 * eps, 7):
        # hockey stick: only output 0 has p > e^e q; closed form p - e^e (1 - p)
        assert loss.delta(e) == pytest.approx(max(0.0, p - math.exp(e) * (1 - p)), abs=1e-12)
    assert loss.delta(eps) == pytest.approx(0.0, abs=1e-12)


@given(st.lists(st.floats(-3, 3), min_size=2, max_size=6), st.floats(0.1, 3.0))
def test_exponential_mechanism_loss_is_the_max_log_ratio(utilities, eps):
    mech = ExponentialMechanism(eps)
    u = np.array(utilities)
    shifted = u + np.where(np.arange(len(u)) % 2 == 0, 1.0, -1.0)  # neighbours: every utility moves by 1
    loss = dpverify.exact_privacy_loss(mech.pmf(u), mech.pmf(shifted))
    p, q = mech.probabilities(u), mech.probabilities(shifted)
    assert loss.epsilon == pytest.approx(np.max(np.abs(np.log(p / q))), rel=1e-9, abs=1e-12)
    assert loss.epsilon <= eps + 1e-9  # the mechanism's guarantee


def test_disjoint_supports_have_infinite_epsilon_and_delta_equal_to_the_gap():
    loss = dpverify.exact_privacy_loss({"a": 0.9, "b": 0.1}, {"a": 0.95, "c": 0.05})
    assert loss.epsilon == math.inf
    assert loss.delta(50.0) == pytest.approx(0.1)
    assert loss.delta(1e4) == pytest.approx(0.1)  # exp overflows; 0-mass outputs still count as 0
    assert loss.epsilon_for_delta(0.05) == math.inf
    assert loss.epsilon_for_delta(0.2) < math.inf


def test_identical_distributions_have_loss_plus_zero_in_both_directions():
    """Detects: the backward loss of identical pmfs kept as -0.0 (``max(-0.0, 0.0)`` is -0.0), which the
    summary printed as "backward -0"."""
    loss = dpverify.exact_privacy_loss({"a": 0.25, "b": 0.75}, {"a": 0.25, "b": 0.75})
    for value in (loss.epsilon, loss.epsilon_forward, loss.epsilon_backward):
        assert value == 0.0 and math.copysign(1.0, value) == 1.0
    assert "-0" not in loss.summary()


def test_epsilon_for_delta_inverts_the_curve():
    rr = RandomizedResponse(1.0)
    loss = dpverify.exact_privacy_loss(rr.pmf(0), rr.pmf(1))
    for target in [0.0, 0.05, 0.2]:
        e = loss.epsilon_for_delta(target)
        assert loss.delta(e) <= target + 1e-12
        if e > 0:
            assert loss.delta(e - 1e-6) > target
    assert loss.epsilon_for_delta(0.0) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "pmf",
    [{0: 0.5, 1: 0.6}, {0: -0.1, 1: 1.1}, {0: float("nan"), 1: 1.0}, {}],
)
def test_invalid_pmfs_are_named_errors(pmf):
    with pytest.raises(dpverify.InvalidDistributionError):
        dpverify.exact_privacy_loss(pmf, {0: 1.0})
