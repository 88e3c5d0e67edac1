"""Bad input gets a named exception that says what is wrong."""

import numpy as np
import pytest

import dpverify
from dpverify.mechanisms.textbook import RandomizedResponse

RR = RandomizedResponse(1.0)


@pytest.mark.parametrize("epsilon", [0, -1, float("inf"), float("nan"), "1", True])
def test_bad_epsilon(epsilon):
    with pytest.raises(dpverify.InvalidClaimError, match="epsilon"):
        dpverify.audit(RR, 0, 1, epsilon=epsilon)


@pytest.mark.parametrize("delta", [-0.1, 1.0, 2, float("nan")])
def test_bad_delta(delta):
    with pytest.raises(dpverify.InvalidClaimError, match=r"delta must be .* \[0, 1\)"):
        dpverify.audit(RR, 0, 1, epsilon=1.0, delta=delta)


def test_too_few_samples_says_how_many_are_needed():
    with pytest.raises(dpverify.InsufficientSamplesError, match="at least") as info:
        dpverify.audit(RR, 0, 1, epsilon=8.0, n_samples=100)
    needed = info.value.required
    dpverify.audit(RR, 0, 1, epsilon=8.0, n_samples=needed, seed=1)  # enough is accepted
    with pytest.raises(dpverify.InsufficientSamplesError):
        dpverify.audit(RR, 0, 1, epsilon=8.0, n_samples=needed - 1, seed=1)  # and it is the least


def test_the_default_selection_gives_way_to_the_certification_a_claim_needs():
    from dpverify.support.bounds import minimum_certifying_samples

    needed = minimum_certifying_samples(8.0, 0.0, 1e-6)  # 43257
    result = dpverify.audit(RR, 0, 1, epsilon=8.0, n_samples=60_000, alpha=1e-6, seed=1)
    assert result.n_selection == 60_000 - needed and result.event.n_certification == needed


def test_a_raising_mechanism_is_named_and_chained():
    def broken(data, rng):
        raise ZeroDivisionError("division by zero inside the mechanism")

    with pytest.raises(dpverify.MechanismError, match="x = 0") as info:
        dpverify.audit(broken, 0, 1, epsilon=1.0, n_samples=100, seed=1)
    assert isinstance(info.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize(
    "outputs",
    [lambda d, rng: [1, 2], lambda d, rng: {"a": "one"}, lambda d, rng: 1 if rng.random() < 0.5 else 1.5],
)
def test_unhashable_or_mixed_outputs(outputs):
    with pytest.raises(dpverify.OutputTypeError):
        dpverify.audit(outputs, 0, 1, epsilon=1.0, n_samples=200, seed=1)


def test_different_output_types_on_the_two_inputs():
    with pytest.raises(dpverify.OutputTypeError, match="different types"):
        dpverify.audit(lambda d, rng: 1 if d == 0 else "one", 0, 1, epsilon=1.0, n_samples=200, seed=1)


@pytest.mark.parametrize("pair", [(0, 0), (np.array([1.0, 2.0]), np.array([1.0, 2.0])), ((1, 2), (1, 2))])
def test_equal_inputs(pair):
    with pytest.raises(dpverify.IdenticalInputsError):
        dpverify.audit(RR, *pair, epsilon=1.0)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"alpha": 0},
        {"alpha": 1.5},
        {"n_samples": 1},
        {"seed": -3},
        {"executor": "many"},
        {"event_families": ["no-such-family"]},
    ],
)
def test_bad_parameters(kwargs):
    with pytest.raises(dpverify.InvalidParameterError):
        dpverify.audit(RR, 0, 1, epsilon=1.0, **kwargs)


def test_errors_share_a_base_class():
    assert issubclass(dpverify.InvalidClaimError, dpverify.DPVerifyError)
    assert issubclass(dpverify.InvalidClaimError, ValueError)
