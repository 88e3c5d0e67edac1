"""Weighted graphs whose edge weights differ by at most the sensitivity.

Edge privacy for weighted graphs (Sealfon 2016): the topology is public and
neighbouring weight vectors differ by at most ``sensitivity`` in l1 (one edge
moves by the sensitivity) or in l_inf (every edge may move by it). An input is
the tuple of weights aligned with :attr:`GraphWeights.edges`; a mechanism on
graphs builds its graph from the two.

Fixed pairs, on three weightings of the edges (distinct increasing weights, so
the minimum spanning tree is unique; all equal, so every tree ties; decreasing):
l1 moves the first, the middle and the last edge up and down; l_inf moves every
edge up, every edge down, and the two halves of the edge list in opposite
directions (which reorders edges across the halves).

References
----------
A. Sealfon, "Shortest Paths and Distances with Differential Privacy", PODS 2016
(weight neighbouring relation).
"""

from __future__ import annotations

import itertools

import numpy as np

from .._validation import check_choice, check_positive_int, check_positive_real
from ..errors import InvalidNeighboursError
from ._base import NeighbourGenerator
from .vectors import NORMS

__all__ = ["GraphWeights", "graph_weights"]


class GraphWeights(NeighbourGenerator):
    """Weight vectors on a fixed edge list that differ by at most ``sensitivity`` (l1 or l_inf).

    Parameters
    ----------
    edges : sequence of (u, v) or int
        The edge list, or a vertex count for the complete graph on ``range(n)``.
    sensitivity : float, default 1
    norm : {"l1", "linf"}, default "l1"
        ``"l1"``: one edge moves; ``"linf"``: every edge may move.
    max_weight : float, default ``2 * len(edges)``
        Random weights are drawn in ``[0, max_weight]``.
    """

    def __init__(self, edges, sensitivity=1.0, norm="l1", max_weight=None):
        if isinstance(edges, int) and not isinstance(edges, bool):
            n = check_positive_int(edges, "the vertex count", minimum=2, error=InvalidNeighboursError)
            edges = list(itertools.combinations(range(n), 2))
        self.edges = tuple(tuple(e) for e in edges)
        if not self.edges or any(len(e) != 2 for e in self.edges):
            raise InvalidNeighboursError(f"edges must be a non-empty list of (u, v) pairs, got {edges!r}")
        self.sensitivity = check_positive_real(sensitivity, "sensitivity", error=InvalidNeighboursError)
        self.norm = check_choice(norm, "norm", NORMS, error=InvalidNeighboursError)
        m = len(self.edges)
        self.max_weight = (
            float(2 * m)
            if max_weight is None
            else check_positive_real(max_weight, "max_weight", error=InvalidNeighboursError)
        )
        self.relation = f"weights on {m} edges, {self.norm} distance <= {self.sensitivity:g}"

    def _bases(self) -> list[np.ndarray]:
        m = len(self.edges)
        increasing = self.sensitivity * (1.0 + np.arange(m))
        return [increasing, np.full(m, self.sensitivity), increasing[::-1].copy()]

    def _moves(self) -> list[np.ndarray]:
        m, s = len(self.edges), self.sensitivity
        moves = []
        if self.norm == "l1":
            for i in sorted({0, m // 2, m - 1}):
                for sign in (1.0, -1.0):
                    d = np.zeros(m)
                    d[i] = sign * s
                    moves.append(d)
        else:
            moves = [np.full(m, s), np.full(m, -s)]
            if m > 1:
                d = np.full(m, s)
                d[: m // 2] = -s
                moves.append(d)
        return moves

    def fixed_pairs(self) -> list:
        """Each move of :meth:`_moves` on each base weighting."""
        return [(tuple(b.tolist()), tuple((b + d).tolist())) for b in self._bases() for d in self._moves()]

    def draw(self, rng: np.random.Generator) -> tuple:
        """Random integer weights in ``[0, max_weight]``; one random edge (l1) or every edge (l_inf) moved."""
        m, s = len(self.edges), self.sensitivity
        base = np.floor(rng.uniform(0, self.max_weight, size=m) / s) * s
        if self.norm == "l1":
            d = np.zeros(m)
            d[rng.integers(m)] = s * rng.choice((-1.0, 1.0))
        else:
            d = s * rng.choice((-1.0, 0.0, 1.0), size=m)
            if not d.any():
                d[rng.integers(m)] = s
        return tuple(base.tolist()), tuple((base + d).tolist())


def graph_weights(edges, sensitivity=1.0, norm="l1", max_weight=None) -> GraphWeights:
    """Neighbouring edge weights (see :class:`GraphWeights`)."""
    return GraphWeights(edges, sensitivity, norm, max_weight)
