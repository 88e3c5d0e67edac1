"""The fit helpers of ``algorithms.bandits.growth``: slopes, the room under a regret cap, claimed exponents."""

import math

import numpy as np
import pytest

from algorithms.bandits.growth import (
    claimed_exponent,
    least_squares_slope,
    power_law_room,
    reachable_slope,
    uniform_family_regret_cap,
)

KS = (1, 2, 4, 8)


def test_least_squares_slope_recovers_a_power_law():
    x = np.log(KS)
    assert least_squares_slope(x, 3.0 * x + 1.0) == pytest.approx(3.0, rel=1e-12)


def test_claimed_exponent_of_the_bounds_k_factors():
    """K^2 -> 2 exactly; (K + 4) K (Chen et al. 2020, Theorem 8 on the K + 4 family) -> 1.42."""
    assert claimed_exponent(KS, lambda k: k**2) == pytest.approx(2.0, rel=1e-12)
    assert claimed_exponent(KS, lambda k: (k + 4) * k) == pytest.approx(1.4204, abs=1e-4)


def test_power_law_room_is_the_steepest_power_law_under_the_cap():
    """R(1) 8^c = cap exactly at c = room; a steeper power law would pass the cap at K = 8."""
    room = power_law_room(1, 413.0, 8, 80_000.0)
    assert 413.0 * 8**room == pytest.approx(80_000.0, rel=1e-12)
    assert room == pytest.approx(math.log(80_000 / 413) / math.log(8), rel=1e-12)


def test_reachable_slope_bounds_every_curve_with_the_measured_cheap_end():
    """No curve that keeps R(1), R(2) and stays under the caps fits steeper than reachable_slope;
    the power law at the room is one such curve, so the room never exceeds it."""
    rng = np.random.default_rng(3)
    x = np.log(KS)
    caps = [uniform_family_regret_cap(k, suboptimal=4, gap=0.2, horizon=100_000) for k in KS]
    measured = np.array([413.0, 450.0, 509.0, 679.0])
    top = reachable_slope(x, measured, caps)
    for _ in range(200):
        y = np.concatenate([measured[:2], rng.uniform(1.0, caps[2:])])
        assert least_squares_slope(x, np.log(y)) <= top + 1e-12
    room = power_law_room(1, measured[0], 8, caps[-1])
    assert least_squares_slope(x, np.log(measured[0] * np.array(KS, dtype=float) ** room)) <= top + 1e-12


def test_uniform_family_cap():
    assert uniform_family_regret_cap(8, suboptimal=4, gap=0.2, horizon=100_000) == pytest.approx(80_000.0)
    assert uniform_family_regret_cap(2, suboptimal=4, gap=0.2, horizon=100_000) == pytest.approx(40_000.0)
