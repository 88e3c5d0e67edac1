"""Datasets that differ by adding or removing one record (unbounded differential privacy).

A dataset is a tuple of records from a finite ``domain``; its neighbours have
one record more or one fewer (Dwork, McSherry, Nissim, Smith 2006; the
add/remove relation of Dwork and Roth 2014, Definition 2.4 with the l1 distance
of histograms 1). Fixed pairs: on the datasets of ``size`` copies of the lowest
record, of the highest, and cycling through the domain, add the lowest and the
highest record, and remove the first record. Random draws take ``size`` random
records and add or remove a random one.

References
----------
C. Dwork, F. McSherry, K. Nissim, A. Smith, "Calibrating Noise to Sensitivity in
Private Data Analysis", TCC 2006.

C. Dwork, A. Roth, "The Algorithmic Foundations of Differential Privacy",
Foundations and Trends in Theoretical Computer Science 9(3-4), 2014.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_positive_int
from ..errors import InvalidNeighboursError
from ._base import NeighbourGenerator

__all__ = ["AddRemoveOne", "add_remove_one"]


class AddRemoveOne(NeighbourGenerator):
    """Datasets of records from ``domain`` that differ by one added or removed record.

    Parameters
    ----------
    domain : sequence
        The possible records (hashable), lowest first where they are ordered.
    size : int
        Records of the base dataset (the neighbour has ``size + 1`` or ``size - 1``).
    """

    def __init__(self, domain, size):
        self.domain = tuple(domain)
        if not self.domain:
            raise InvalidNeighboursError("domain must hold at least one record")
        self.size = check_positive_int(size, "size", minimum=0, error=InvalidNeighboursError)
        self.relation = f"datasets of {self.size} records from {len(self.domain)} values, one added or removed"

    def fixed_pairs(self) -> list:
        lo, hi = self.domain[0], self.domain[-1]
        cycling = tuple(self.domain[i % len(self.domain)] for i in range(self.size))
        pairs = []
        for base in ((lo,) * self.size, (hi,) * self.size, cycling):
            pairs += [(base, base + (lo,)), (base, base + (hi,))]
            if base:
                pairs.append((base, base[1:]))
        return pairs

    def draw(self, rng: np.random.Generator) -> tuple:
        base = tuple(self.domain[i] for i in rng.integers(0, len(self.domain), size=self.size))
        if self.size and rng.random() < 0.5:
            drop = int(rng.integers(self.size))
            return base, base[:drop] + base[drop + 1 :]
        return base, base + (self.domain[int(rng.integers(len(self.domain)))],)


def add_remove_one(domain, size) -> AddRemoveOne:
    """Datasets differing by one record (see :class:`AddRemoveOne`)."""
    return AddRemoveOne(domain, size)
