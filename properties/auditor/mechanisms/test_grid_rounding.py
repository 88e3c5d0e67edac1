"""Rounding to a power-of-two grid (:func:`dpverify.mechanisms.noise.round_to_grid`), which the Gaussian,
Laplace and snapping mechanisms apply to every draw. Deterministic (fixed seeds): no false alarm.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.mechanisms.noise import round_to_grid


@pytest.mark.parametrize("shape", [(), (1000,), (200, 5)])
def test_round_to_grid_is_the_clamped_rounded_value_and_leaves_its_input(shape):
    """Bit for bit ``clip(rint(v / grid) * grid, -bound, bound)`` (signed zeros, infinities, NaN, values
    beyond the bound), a scalar for a scalar, and the input array unchanged.

    Detects: the steps written into the caller's array (its noise or data), a scalar returned as an
    array (or failing), the clamp or the rounding dropped."""
    rng = np.random.default_rng(17)
    values = rng.standard_normal(shape) * 300.0
    if shape:
        values.flat[:7] = [np.inf, -np.inf, np.nan, -0.0, 0.0, 1e308, -0.1]
    kept = np.copy(values)
    with np.errstate(over="ignore", invalid="ignore"):
        got = round_to_grid(values, 0.25, 500.0)
        expected = np.clip(np.rint(np.asarray(values) / 0.25) * 0.25, -500.0, 500.0)
    assert type(got) is type(expected) and np.shape(got) == np.shape(expected)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint64), np.asarray(expected).view(np.uint64))
    np.testing.assert_array_equal(np.asarray(values).view(np.uint64), kept.view(np.uint64))
    assert isinstance(round_to_grid(1.3, 0.5, 10.0), np.floating) and round_to_grid(1.3, 0.5, 10.0) == 1.5


@pytest.mark.parametrize("data", [0.3, np.array([0.0, 0.5, -1.25])], ids=["scalar", "vector"])
@pytest.mark.parametrize("size", [None, 1000])
def test_zcdp_gaussian_draws_are_the_rounded_sums_of_input_and_noise(data, size):
    """``ZCDPGaussian.sample`` adds its noise in the draw's own array: the same draws bit for bit as
    ``round_to_grid(x + N(0, sigma^2))`` from the same generator, of the same type and shape.

    Detects: the input added twice or not at all, the noise drawn in another shape (another stream)."""
    from dpverify.mechanisms.concentrated import ZCDPGaussian

    mechanism = ZCDPGaussian(0.005)
    got = mechanism.sample(data, size, np.random.default_rng(18))
    arr = np.asarray(data, dtype=np.float64)
    noise = np.random.default_rng(18).normal(
        scale=mechanism.sigma, size=arr.shape if size is None else (size,) + arr.shape
    )
    expected = round_to_grid(arr + noise, mechanism.grid, mechanism.bound)
    assert type(got) is type(expected) and np.shape(got) == np.shape(expected)
    np.testing.assert_array_equal(np.asarray(got).view(np.uint64), np.asarray(expected).view(np.uint64))
