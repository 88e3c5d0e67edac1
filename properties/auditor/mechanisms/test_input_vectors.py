"""The one check of a mechanism's vector input (:func:`dpverify.mechanisms._base.finite_vector`,
:func:`~dpverify.mechanisms._base.integer_vector`), shared by the utilities of the exponential mechanism and
permute-and-flip, the query answers of noisy max and sparse vector, and the integer data of the prefix-sum
counter and the geometric histogram. Deterministic: no false alarm.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms import ExponentialMechanism, GeometricHistogram, GeometricPrefixSums
from dpverify.mechanisms._base import finite_vector, integer_vector
from dpverify.mechanisms.concentrated import PermuteAndFlip

BAD_REAL = [[], [[1.0, 2.0]], [1.0, np.nan], [np.inf, 0.0]]
BAD_INTEGER = [[], [[1, 2]], [1, 2.5]]


@pytest.mark.parametrize("data", BAD_REAL)
def test_finite_vector_refuses_by_name(data):
    """Detects: an empty, 2-D or non-finite vector let through (a NaN utility makes every probability NaN)."""
    with pytest.raises(InvalidParameterError, match="non-empty 1-D vector of finite utilities"):
        finite_vector(data, "utilities")


@pytest.mark.parametrize("data", BAD_INTEGER)
def test_integer_vector_refuses_by_name(data):
    """Detects: an empty, 2-D or fractional vector let through (it would be truncated silently)."""
    with pytest.raises(InvalidParameterError, match="non-empty 1-D vector of integer counts"):
        integer_vector(data, "counts")


def test_the_vectors_come_back_typed():
    """Detects: a helper that returns the data unconverted (the mechanisms compute on float64 / int64)."""
    assert finite_vector((1, 2), "utilities").dtype == np.float64
    got = integer_vector([1.0, -2.0], "counts")
    assert got.dtype == np.int64 and got.tolist() == [1, -2]


@pytest.mark.parametrize(
    "mechanism, bad",
    [
        (ExponentialMechanism(1.0), [0.0, np.nan]),
        (PermuteAndFlip(1.0), [[0.0, 1.0]]),
        (GeometricHistogram(1.0), [1, 2.5]),
        (GeometricPrefixSums(1.0), []),
    ],
)
def test_the_mechanisms_refuse_bad_vectors_by_name(mechanism, bad):
    """Detects: a mechanism that checks its vector input otherwise (or not at all) than the shared check."""
    with pytest.raises(InvalidParameterError, match="the data must be a non-empty 1-D vector"):
        mechanism.sample(bad, 3, np.random.default_rng(0))
