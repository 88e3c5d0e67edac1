"""Hypothesis strategies for weighted graphs, built constructively (for ``properties/mst``).

Imports :mod:`hypothesis` (a test dependency); only the test suite imports this module.
Graphs are built, never filtered: a random spanning forest (each new vertex attached to an
earlier one, or starting a new component), then extra distinct pairs, then weights that may tie,
be negative or zero.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from algorithms.graphs import GraphArrays, as_graph_arrays

__all__ = ["weights_strategy", "graphs", "connected_graphs"]


def weights_strategy(m: int, *, allow_ties: bool = True):
    """``m`` finite weights in [-50, 50]; with ties drawn from a small pool when allowed."""
    real = st.floats(-50.0, 50.0, allow_nan=False, allow_infinity=False)
    pool = st.sampled_from([-1.0, 0.0, 1.0, 2.0])
    element = st.one_of(real, pool) if allow_ties else real
    return st.lists(element, min_size=m, max_size=m)


@st.composite
def graphs(
    draw, *, min_vertices: int = 2, max_vertices: int = 9, connected: bool = False, allow_ties: bool = True
) -> GraphArrays:
    """A simple undirected weighted graph as validated :class:`GraphArrays`.

    Includes two-vertex graphs, bare trees, complete graphs and (unless ``connected``)
    disconnected graphs and isolated vertices.
    """
    n = draw(st.integers(min_vertices, max_vertices))
    pairs: set = set()
    for v in range(1, n):
        # attach v to an earlier vertex, or (disconnected graphs) leave it as a new component root
        if connected or draw(st.integers(0, 4)) > 0:
            u = draw(st.integers(0, v - 1))
            pairs.add((u, v))
    all_pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    if draw(st.booleans()) and draw(st.integers(0, 5)) == 0:
        extra = all_pairs  # complete graph
    else:
        extra = draw(st.lists(st.sampled_from(all_pairs), max_size=2 * n)) if all_pairs else []
    if connected or draw(st.booleans()):
        pairs |= set(extra)
    edges = sorted(pairs)
    perm = draw(st.permutations(range(len(edges)))) if edges else []
    edges = [edges[i] for i in perm]
    flip = draw(st.lists(st.booleans(), min_size=len(edges), max_size=len(edges)))
    edges = [(b, a) if f else (a, b) for (a, b), f in zip(edges, flip)]
    w = draw(weights_strategy(len(edges), allow_ties=allow_ties))
    arr = np.array(edges, dtype=np.int64).reshape(-1, 2)
    return as_graph_arrays((n, arr, np.array(w, dtype=np.float64)))


def connected_graphs(**kwargs):
    """Connected graphs (a spanning tree exists)."""
    return graphs(connected=True, **kwargs)
