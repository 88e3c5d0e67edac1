"""Picklable indicators: how a frozen event decides membership of encoded outputs.

Certification ships each chosen event's ``indicator`` to the workers that draw
the fresh samples, so indicators must be picklable: the built-in families use
the small classes below rather than closures. A third-party family returning
closures works in-process and on Dask (which pickles with cloudpickle), not on
a process pool.

An indicator may declare, in its own class body:

- ``array_ready = True`` and ``on(group, xp)``: the same membership with the
  functions of another array library (:mod:`dpverify.support.arrays`);
- ``counted_as(self)``: what the compiled counter
  (:mod:`dpverify.pipeline.counting`) may count in its place, as a tuple whose
  first entry names the form (``"at-least"``, ``"below"``, ``"within"`` and
  ``"composed"`` for events; ``"coordinate"``, ``"largest"``,
  ``"log-ratio-sum"``, ``"exact-value"``, ``"mantissa"``, ``"reachability"``,
  ``"code-set"`` and ``"code-value"`` for their parts). :func:`counted_as` reads the declaration
  of the indicator's own class only: a subclass that changes membership is
  left to numpy unless it declares again.

The threshold indicators (:class:`AtLeast`, :class:`Below`, :class:`Within`) also
take their projection's values (``of_values``), so that a counter that holds
a block's projection computes it once for every event on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..support import arrays

__all__ = ["counted_as", "CodeSet", "CodeValue", "AtLeast", "Below", "Within", "Composed", "ExactValue", "RowValues"]


def counted_as(indicator):
    """The compiled form ``indicator``'s own class declares (``counted_as``), or None when it declares none."""
    declared = type(indicator).__dict__.get("counted_as")
    return None if declared is None else declared(indicator)


@dataclass(frozen=True, eq=False)
class _CodeLookup:
    """``table[code]`` per code, with a final sentinel entry that code -1 (unseen) reads."""

    table: np.ndarray
    array_ready = True

    def __call__(self, group) -> np.ndarray:
        return self.table[np.asarray(group, dtype=np.int64)]

    def on(self, group, xp):
        """The lookup on an array of another library."""
        table = arrays.asarray_like(self.table, group, xp)
        return xp.take(table, xp.where(group < 0, len(self.table) - 1, group))


class CodeSet(_CodeLookup):
    """Membership of integer codes in a set; code -1 (a value selection never saw) is never in it."""

    @classmethod
    def of(cls, codes, n_codes: int) -> CodeSet:
        table = np.zeros(int(n_codes) + 1, dtype=bool)
        table[np.asarray(codes, dtype=np.int64)] = True
        return cls(table)

    def counted_as(self):
        return ("code-set", self.table)


class CodeValue(_CodeLookup):
    """The numeric value of discrete codes; NaN for code -1, which then meets no threshold."""

    @classmethod
    def of(cls, numeric) -> CodeValue:
        return cls(np.append(np.asarray(numeric, dtype=float), np.nan))

    def counted_as(self):
        return ("code-value", self.table)


@dataclass(frozen=True, eq=False)
class AtLeast:
    """``projection(o) >= threshold``."""

    projection: Callable
    threshold: float

    def __call__(self, group):
        return self.of_values(self.projection(group))

    def of_values(self, values):
        """Membership given the projection's ``values`` (callers that hold them compute them once)."""
        return values >= self.threshold

    @property
    def array_ready(self) -> bool:
        return getattr(self.projection, "array_ready", False)

    def on(self, group, xp):
        return self.projection.on(group, xp) >= self.threshold

    def counted_as(self):
        return ("at-least", self.projection, self.threshold)


@dataclass(frozen=True, eq=False)
class Below:
    """``projection(o) < threshold``."""

    projection: Callable
    threshold: float

    def __call__(self, group):
        return self.of_values(self.projection(group))

    def of_values(self, values):
        """Membership given the projection's ``values`` (callers that hold them compute them once)."""
        return values < self.threshold

    @property
    def array_ready(self) -> bool:
        return getattr(self.projection, "array_ready", False)

    def on(self, group, xp):
        return self.projection.on(group, xp) < self.threshold

    def counted_as(self):
        return ("below", self.projection, self.threshold)


@dataclass(frozen=True, eq=False)
class Within:
    """``low <= projection(o) < high``."""

    projection: Callable
    low: float
    high: float

    def __call__(self, group):
        return self.of_values(self.projection(group))

    def of_values(self, v):
        """Membership given the projection's values ``v`` (callers that hold them compute them once)."""
        return (v >= self.low) & (v < self.high)

    @property
    def array_ready(self) -> bool:
        return getattr(self.projection, "array_ready", False)

    def on(self, group, xp):
        v = self.projection.on(group, xp)
        return (v >= self.low) & (v < self.high)

    def counted_as(self):
        return ("within", self.projection, self.low, self.high)


@dataclass(frozen=True, eq=False)
class Composed:
    """``inner(encoder(group))``: an event over codes that a family derives from outputs."""

    encoder: Callable
    inner: Callable

    def __call__(self, group):
        return self.inner(self.encoder(group))

    @property
    def array_ready(self) -> bool:
        return getattr(self.encoder, "array_ready", False) and getattr(self.inner, "array_ready", False)

    def on(self, group, xp):
        return self.inner.on(self.encoder.on(group, xp), xp)

    def counted_as(self):
        return ("composed", self.encoder, self.inner)


@dataclass(frozen=True, eq=False)
class ExactValue:
    """Code of a scalar real output among ``values`` (sorted), -1 when it is none of them."""

    values: np.ndarray

    def __call__(self, group):
        v = group[:, 0]
        idx = np.clip(np.searchsorted(self.values, v), 0, len(self.values) - 1)
        return np.where(self.values[idx] == v, idx, -1)

    array_ready = True

    def on(self, group, xp):
        values = arrays.asarray_like(self.values, group, xp)
        v = group[:, 0]
        idx = xp.minimum(xp.searchsorted(values, v), len(self.values) - 1)
        return xp.where(xp.take(values, idx) == v, idx, -1)

    def counted_as(self):
        return ("exact-value", self.values)


@dataclass(frozen=True, eq=False)
class RowValues:
    """The integer row of each code as floats (NaN for code -1): (n,) codes -> (n, d) values."""

    table: np.ndarray  # one row per code, a NaN row appended

    @classmethod
    def of(cls, rows) -> RowValues:
        rows = np.asarray(rows, dtype=float)
        return cls(np.vstack([rows, np.full((1, rows.shape[1]), np.nan)]))

    def __call__(self, group):
        return self.table[np.asarray(group, dtype=np.int64)]
