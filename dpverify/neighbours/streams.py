"""Streams that differ in one element, at every class of position.

Event-level privacy of a stream (counters, bandit rewards) holds for streams
that differ in one element (Dwork, Naor, Pitassi, Rothblum 2010; Chan, Shi,
Song 2011). Where the differing element sits matters to tree-based counters:
the first and last positions, and the positions on either side of a power of
two (where a binary-tree counter's p-sums begin and end), are each tried on
three bases (all low, all high, alternating), the element moved from the lowest
value to the highest and back.

References
----------
T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics",
ACM TISSEC 14(3), 2011 (the binary mechanism).

C. Dwork, M. Naor, T. Pitassi, G. N. Rothblum, "Differential Privacy under
Continual Observation", STOC 2010.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ..errors import InvalidNeighboursError
from ._base import NeighbourGenerator

__all__ = ["Streams", "streams", "position_classes"]


def position_classes(length: int) -> list[int]:
    """Positions 0, 1, the middle, the last, and ``2^k - 1``, ``2^k`` for every power of two below ``length``."""
    n = check_positive_int(length, "length", error=InvalidNeighboursError)
    positions = {0, 1, n // 2, n - 1}
    k = 1
    while k < n:
        positions.update({k - 1, k})
        k *= 2
    return sorted(p for p in positions if 0 <= p < n)


class Streams(NeighbourGenerator):
    """Streams of ``length`` elements from ``values`` that differ in one element.

    Parameters
    ----------
    length : int
        Stream length (the horizon).
    values : sequence, default (0, 1)
        The element domain, at least two distinct values, lowest first (``(0, 1)``
        for bits; ``(0.0, 1.0)`` for rewards in [0, 1]).
    """

    def __init__(self, length, values=(0, 1)):
        self.length = check_positive_int(length, "length", error=InvalidNeighboursError)
        self.values = tuple(values)
        if len(set(self.values)) < 2 or len(set(self.values)) != len(self.values):
            raise InvalidNeighboursError(f"values must hold at least two distinct values, got {values!r}")
        self.relation = f"streams of {self.length} over {self.values!r}, one element differs"

    def _bases(self) -> list[tuple]:
        lo, hi = self.values[0], self.values[-1]
        alternating = tuple(lo if i % 2 == 0 else hi for i in range(self.length))
        return [(lo,) * self.length, (hi,) * self.length, alternating]

    def fixed_pairs(self) -> list:
        """Every position class on every base, the element set to the value farthest from it."""
        lo, hi = self.values[0], self.values[-1]
        pairs = []
        for position in position_classes(self.length):
            for base in self._bases():
                changed = list(base)
                changed[position] = hi if base[position] == lo else lo
                pairs.append((base, tuple(changed)))
        return pairs

    def draw(self, rng: np.random.Generator) -> tuple:
        """A random stream, one random element replaced by another random value."""
        k = len(self.values)
        base = [self.values[i] for i in rng.integers(0, k, size=self.length)]
        position = int(rng.integers(self.length))
        current = self.values.index(base[position])
        other = (current + 1 + int(rng.integers(k - 1))) % k
        changed = list(base)
        changed[position] = self.values[other]
        return tuple(base), tuple(changed)


def streams(length, values=(0, 1)) -> Streams:
    """Streams differing in one element (see :class:`Streams`)."""
    return Streams(length, values)
