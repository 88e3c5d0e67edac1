"""The input domain of each zoo mechanism, as a neighbour generator a search audit can explore.

:func:`zoo_domain` maps a :class:`~dpverify.mechanisms.catalogue.ZooEntry` to the
neighbouring relation its mechanism's claim is about, built from the shape of
its inputs alone (never from the entry's hand-picked pair): scalars for the
additive mechanisms, vectors of query answers (StatDP's patterns, l_inf for
counting queries, l1 for histograms) for the selection, histogram and sparse
vector mechanisms, and the two bits for randomized response.
"""

from __future__ import annotations

import numpy as np

from ..neighbours import query_vectors
from .histogram import NoisyHistogram

__all__ = ["zoo_domain", "bit_pairs"]


def bit_pairs(rng: np.random.Generator) -> tuple:
    """A pair of different bits (randomized response's whole domain), in random order."""
    bit = int(rng.integers(2))
    return bit, 1 - bit


def zoo_domain(entry):
    """The neighbour generator of ``entry``'s input domain (see the module docstring)."""
    x = entry.x
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool) and set((entry.x, entry.x_prime)) == {0, 1}:
        if type(entry.mechanism).__name__ == "RandomizedResponse":
            return bit_pairs
    if np.ndim(x) == 0:
        return query_vectors(None)
    norm = "l1" if isinstance(entry.mechanism, NoisyHistogram) else "linf"
    return query_vectors(len(x), norm=norm)
