"""Argument checks of the neighbour generators (each raises :class:`~dpverify.errors.InvalidNeighboursError`)."""

from __future__ import annotations

import math
import numbers

from ..errors import InvalidNeighboursError

NORMS = ("l1", "linf")


def positive_int(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise InvalidNeighboursError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def positive_real(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (math.isfinite(value) and value > 0):
        raise InvalidNeighboursError(f"{name} must be a finite real number > 0, got {value!r}")
    return float(value)


def norm(value) -> str:
    if value not in NORMS:
        raise InvalidNeighboursError(f"norm must be one of {NORMS}, got {value!r}")
    return value
