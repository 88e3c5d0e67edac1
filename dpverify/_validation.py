"""Argument checks shared by the public functions."""

from __future__ import annotations

import math
import numbers

from .errors import InvalidClaimError, InvalidParameterError


def check_epsilon(epsilon) -> float:
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise InvalidClaimError(f"epsilon must be a finite real number > 0, got {epsilon!r}")
    value = float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise InvalidClaimError(f"epsilon must be a finite real number > 0, got {epsilon!r}")
    return value


def check_delta(delta) -> float:
    if isinstance(delta, bool) or not isinstance(delta, numbers.Real):
        raise InvalidClaimError(f"delta must be a real number in [0, 1), got {delta!r}")
    value = float(delta)
    if not (0.0 <= value < 1.0):
        raise InvalidClaimError(f"delta must be a real number in [0, 1), got {delta!r}")
    return value


def check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not (0.0 < float(alpha) < 1.0):
        raise InvalidParameterError(f"alpha must be a real number in (0, 1), got {alpha!r}")
    return float(alpha)


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_fraction(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (0.0 < float(value) < 1.0):
        raise InvalidParameterError(f"{name} must be a real number in (0, 1), got {value!r}")
    return float(value)
