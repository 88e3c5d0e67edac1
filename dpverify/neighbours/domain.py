"""A mechanism's input domain (range, integer or real, a grid step), and pairs fitted into it.

StatDP's patterns and the random draws of :class:`~dpverify.neighbours.QueryVectors`
are real vectors around ``(1, ..., 1)``; a mechanism whose inputs live on a grid
(sums of values on a 2^-10 grid, counts) or in a range may misbehave on an input
outside it, and an audit that flags it there has found nothing about the claim.
DP-Sniper clips its patterns to a declared range and type; here an
:class:`InputDomain` maps every proposed pair into the domain while keeping it
neighbouring (:meth:`InputDomain.fit`), or drops it, so a generator given a
domain never proposes a pair outside it.

A mechanism declares its domain in the attribute ``input_domain``
(:func:`declared_domain`; :func:`dpverify.search_audit` hands it to a generator
that has none); the command line takes it as
``--domain '{"low": 0, "high": 100, "step": 1}'``. Every driver checks the
inputs it is handed against the declared domain before drawing
(:func:`check_in_domain`), whatever their form: one pair, a list of pairs, a
callable or a Hypothesis strategy of pairs; an input outside it is an
:class:`~dpverify.errors.OutsideDomainError`. Only a generator given a domain
moves its pairs into it; pairs given any other way are the caller's, so they are
refused rather than changed.

References
----------
B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box Discovery
of Differential Privacy Violations using Classifiers", IEEE S&P 2021 (input
patterns clipped to the mechanism's input range).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._results import short_repr
from ..errors import InvalidNeighboursError, OutsideDomainError

__all__ = ["InputDomain", "as_domain", "declared_domain", "check_in_domain", "check_declared_domain"]


@dataclass(frozen=True)
class InputDomain:
    """The inputs a mechanism accepts: every entry in ``[low, high]``, on the grid ``step * Z``.

    Attributes
    ----------
    low, high : float
        The range of every entry (default the whole real line).
    integer : bool
        Integer entries (the grid step is then 1, or a whole multiple of 1); pairs are given as ints.
    step : float or None
        The grid step (entries are multiples of it); None: any real (or any integer).
    """

    low: float = -math.inf
    high: float = math.inf
    integer: bool = False
    step: float | None = None

    def __post_init__(self):
        for name in ("low", "high"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
                raise InvalidNeighboursError(f"InputDomain.{name} must be a number, got {value!r}")
            if math.isnan(value):
                raise InvalidNeighboursError(f"InputDomain.{name} must not be NaN")
        if not self.low < self.high:
            raise InvalidNeighboursError(f"InputDomain needs low < high, got low={self.low}, high={self.high}")
        if not isinstance(self.integer, bool):
            raise InvalidNeighboursError(f"InputDomain.integer must be True or False, got {self.integer!r}")
        step = self.step
        if step is not None and (
            isinstance(step, bool)
            or not isinstance(step, (int, float, np.integer, np.floating))
            or not math.isfinite(step)
            or step <= 0
        ):
            raise InvalidNeighboursError(f"InputDomain.step must be a finite number > 0 or None, got {step!r}")
        if self.integer and step is not None and float(step) != round(float(step)):
            raise InvalidNeighboursError(f"an integer InputDomain needs a whole step, got {step!r}")

    @property
    def grid(self) -> float | None:
        """The grid step in force (1 for integers without a step)."""
        if self.step is not None:
            return float(self.step)
        return 1.0 if self.integer else None

    def contains(self, value) -> bool:
        """Whether every entry of ``value`` (a number or a vector) lies in the domain (False for a value
        that is not numbers)."""
        try:
            a = np.atleast_1d(np.asarray(value, dtype=float))
        except (TypeError, ValueError):
            return False
        if not np.all(np.isfinite(a) | np.isinf(a)) or np.any(a < self.low) or np.any(a > self.high):
            return False
        grid = self.grid
        return grid is None or bool(np.all(a / grid == np.round(a / grid)))

    def fit(self, x, x_prime):
        """``(x, x_prime)`` moved into the domain and still neighbouring, or None when it cannot be.

        ``x`` is rounded to the nearest grid point and the difference ``x' - x`` is rounded
        towards zero, entry by entry, so no entry of the difference grows (every norm bound of
        the relation still holds); then both are shifted together by whole grid steps into
        ``[low, high]``. A pair whose difference rounds to zero, or does not fit the range, is
        dropped (None).
        """
        scalar = np.ndim(x) == 0
        a, b = np.atleast_1d(np.asarray(x, dtype=float)), np.atleast_1d(np.asarray(x_prime, dtype=float))
        grid = self.grid
        if grid is not None:
            d = np.trunc((b - a) / grid) * grid
            a = np.round(a / grid) * grid
            b = a + d
        if np.array_equal(a, b):
            return None
        a, b = self._shift_into_range(a, b, grid)
        if a is None or not (self.contains(a) and self.contains(b)):
            return None
        return self._as_pair(a, b, scalar)

    def _shift_into_range(self, a, b, grid):
        low_side, high_side = np.minimum(a, b), np.maximum(a, b)
        if np.any(high_side - low_side > self.high - self.low):
            return None, None
        shift = np.zeros_like(a)
        up, down = low_side < self.low, high_side > self.high
        unit = 1.0 if grid is None else grid
        shift[up] = np.ceil((self.low - low_side[up]) / unit) * unit
        shift[down] = -np.ceil((high_side[down] - self.high) / unit) * unit
        return a + shift, b + shift

    def _as_pair(self, a, b, scalar: bool):
        convert = (lambda v: int(round(v))) if self.integer else float
        fa, fb = [convert(v) for v in a.tolist()], [convert(v) for v in b.tolist()]
        return (fa[0], fb[0]) if scalar else (tuple(fa), tuple(fb))

    def describe(self) -> str:
        kind = "integers" if self.integer else "reals"
        grid = "" if self.step is None else f" on the grid {self.step:g} Z"
        return f"{kind} in [{self.low:g}, {self.high:g}]{grid}"


def as_domain(value) -> InputDomain | None:
    """An :class:`InputDomain` from itself, a dict of its fields (the command line's JSON), or None."""
    if value is None or isinstance(value, InputDomain):
        return value
    if isinstance(value, dict):
        unknown = set(value) - {"low", "high", "integer", "step"}
        if unknown:
            raise InvalidNeighboursError(
                f"unknown input domain fields {sorted(unknown)}; allowed: low, high, integer, step"
            )
        return InputDomain(**value)
    raise InvalidNeighboursError(f"an input domain is an InputDomain or a dict of its fields, got {value!r}")


def declared_domain(mechanism) -> InputDomain | None:
    """The input domain ``mechanism`` declares in its ``input_domain`` attribute (an
    :class:`InputDomain` or a dict of its fields), or None when it declares none.

    Raises
    ------
    InvalidNeighboursError
        An ``input_domain`` of another type, naming the mechanism's type.
    """
    try:
        return as_domain(getattr(mechanism, "input_domain", None))
    except InvalidNeighboursError as exc:
        raise InvalidNeighboursError(f"{type(mechanism).__name__}.input_domain: {exc}") from None


def check_in_domain(domain: InputDomain | None, x, x_prime, *, owner: str, where: str = "") -> None:
    """Raise :class:`~dpverify.errors.OutsideDomainError` when ``x`` or ``x_prime`` lies outside ``domain``.

    Parameters
    ----------
    domain : InputDomain or None
        The domain (None: nothing to check).
    x, x_prime : object
        The pair.
    owner : str
        Who declared the domain, for the message (``"LaplaceMechanism"``, ``"--domain"``).
    where : str
        Where the pair came from, for the message (``" (pair 3 of the pairs given)"``).
    """
    if domain is None:
        return
    for name, value in (("x", x), ("x_prime", x_prime)):
        if not domain.contains(value):
            raise OutsideDomainError(
                f"{name}={short_repr(value, 60)}{where} is outside the input domain that {owner} declares: "
                f"{domain.describe()}; give inputs whose every entry lies in that range"
                f"{'' if domain.grid is None else ' and on that grid'}, or search a dpverify.neighbours "
                "generator, which fits its pairs into the domain"
            )


def check_declared_domain(mechanism, x, x_prime, where: str = "") -> None:
    """:func:`check_in_domain` on the domain ``mechanism`` declares (:func:`declared_domain`), if any."""
    owner = getattr(mechanism, "__qualname__", None) or type(mechanism).__name__
    check_in_domain(declared_domain(mechanism), x, x_prime, owner=owner, where=where)
