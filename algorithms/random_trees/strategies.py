"""Hypothesis strategies for the random-spanning-tree tests: connected weighted graphs.

Built constructively (a random spanning tree with positive weights, then extra
edges whose weight may be 0), as the house style asks, so every drawn graph has a
spanning tree of usable edges.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from algorithms.graphs import as_graph_arrays

__all__ = ["connected_graphs"]


@st.composite
def connected_graphs(draw, max_vertices=7, max_extra=6):
    """A connected graph built constructively: a random tree (weights 1..5), then extra edges (weights 0..5)."""
    n = draw(st.integers(2, max_vertices))
    edges = [(draw(st.integers(0, v - 1)), v) for v in range(1, n)]
    present = {tuple(sorted(e)) for e in edges}
    missing = [(a, b) for a in range(n) for b in range(a + 1, n) if (a, b) not in present]
    extra = draw(st.lists(st.sampled_from(missing), unique=True, max_size=max_extra)) if missing else []
    weights = [draw(st.integers(1, 5)) for _ in range(n - 1)] + [draw(st.integers(0, 5)) for _ in extra]
    return as_graph_arrays((n, np.array(edges + extra, dtype=np.int64).reshape(-1, 2), np.array(weights, float)))
