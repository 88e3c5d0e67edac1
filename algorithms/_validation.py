"""The argument checks every algorithm shares: one function per kind of parameter.

Each returns the value as the type the algorithms compute with, or raises the named error of
:mod:`algorithms.errors` with a message that says what was given and what is allowed. Booleans and
strings are never numbers here (``True`` is not an epsilon of 1, ``"2"`` not an epsilon of 2).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from algorithms.errors import AlgorithmInputError, InvalidHorizonError, InvalidPrivacyParameterError

__all__ = ["as_real", "check_epsilon", "check_delta", "check_horizon", "check_count"]


def as_real(value) -> float | None:
    """``float(value)`` for a real number, else None (bools, strings and arrays are not reals)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        return None
    return float(value)


def check_epsilon(epsilon, name: str = "epsilon") -> float:
    """A privacy parameter: a finite real number > 0.

    Raises
    ------
    InvalidPrivacyParameterError
        Not a real number, not finite, or <= 0.
    """
    value = as_real(epsilon)
    if value is None or not math.isfinite(value) or value <= 0:
        raise InvalidPrivacyParameterError(f"{name} must be a finite real number > 0, got {epsilon!r}")
    return value


def check_delta(delta, name: str = "delta") -> float:
    """A failure probability: a real number in the open interval (0, 1).

    Raises
    ------
    InvalidPrivacyParameterError
        Not a real number, or outside (0, 1).
    """
    value = as_real(delta)
    if value is None or not (0.0 < value < 1.0):
        raise InvalidPrivacyParameterError(f"{name} must be a real number in the open interval (0, 1), got {delta!r}")
    return value


def check_horizon(horizon, name: str = "horizon") -> int:
    """A number of rounds or stream items: an integer >= 1.

    Raises
    ------
    InvalidHorizonError
        Not an integer (bools are not), or < 1.
    """
    if isinstance(horizon, (bool, np.bool_)) or not isinstance(horizon, (numbers.Integral, np.integer)):
        raise InvalidHorizonError(f"{name} must be an integer >= 1, got {horizon!r}")
    if horizon < 1:
        raise InvalidHorizonError(f"{name} must be an integer >= 1, got {horizon!r}")
    return int(horizon)


def check_count(value, name: str, minimum: int = 0) -> int:
    """A count (a rank, a number of elements): an integer >= ``minimum``.

    Raises
    ------
    AlgorithmInputError
        Not an integer (bools are not), or below ``minimum``.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral, np.integer)) or value < minimum:
        raise AlgorithmInputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
