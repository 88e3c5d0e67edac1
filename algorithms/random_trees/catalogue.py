"""A small catalogue of graphs with integer weights for exact checks of DP-RST (DP-RST 2025).

Each entry is a :class:`CatalogueGraph`: a name, :class:`~algorithms.graphs.GraphArrays`
with integer weights ``0 < w < k`` and the bound ``k``. The graphs are small enough
for exact enumeration of trees and of noisy weight vectors.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from algorithms.graphs import GraphArrays, as_graph_arrays

__all__ = ["CatalogueGraph", "catalogue", "catalogue_entry"]


@dataclass(frozen=True)
class CatalogueGraph:
    """A named small graph with integer weights below ``k``."""

    name: str
    graph: GraphArrays
    k: int

    @property
    def weights(self) -> np.ndarray:
        return self.graph.weights.astype(np.int64)


def _entry(name, n, edges, weights, k) -> CatalogueGraph:
    return CatalogueGraph(name, as_graph_arrays((n, np.array(edges), np.array(weights, dtype=float))), k)


def catalogue() -> list[CatalogueGraph]:
    """The catalogue, smallest first.

    - ``triangle``: K3, weights 1, 2, 3, k = 4.
    - ``four-cycle-chord``: the 4-cycle 0-1-2-3 with chord 0-2, weights 1..3, k = 4.
    - ``k4``: K4, weights 1..3, k = 4 (16 trees).
    - ``k5-minus-two``: K5 without edges 1-3 and 2-4, weights 1..3, k = 4.
    - ``bridge``: two triangles joined by the bridge 2-3 (weight 1), k = 4.
    - ``triangle-k8``: the triangle with 3 bits (weights 1, 3, 6, k = 8).
    """
    return [
        _entry("triangle", 3, [(0, 1), (1, 2), (0, 2)], [1, 2, 3], 4),
        _entry("four-cycle-chord", 4, [(0, 1), (1, 2), (2, 3), (0, 3), (0, 2)], [1, 2, 3, 1, 2], 4),
        _entry("k4", 4, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)], [1, 2, 3, 3, 2, 1], 4),
        _entry(
            "k5-minus-two",
            5,
            [(0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 4), (2, 3), (3, 4)],
            [1, 2, 3, 1, 2, 3, 1, 2],
            4,
        ),
        _entry("bridge", 6, [(0, 1), (1, 2), (0, 2), (2, 3), (3, 4), (4, 5), (3, 5)], [2, 3, 1, 1, 3, 2, 1], 4),
        _entry("triangle-k8", 3, [(0, 1), (1, 2), (0, 2)], [1, 3, 6], 8),
    ]


def catalogue_entry(name: str) -> CatalogueGraph:
    """The catalogue entry called ``name``."""
    for entry in catalogue():
        if entry.name == name:
            return entry
    raise KeyError(f"no catalogue graph named {name!r}; have {[e.name for e in catalogue()]}")
