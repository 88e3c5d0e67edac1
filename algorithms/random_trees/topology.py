"""The public topology (V, E) the random-spanning-tree code works on.

A :class:`Topology` is ``n`` vertices ``0..n-1`` and an ``(m, 2)`` int64 array of
edges; an edge is named by its row index, and a tree by the sorted tuple of its
edge indices. :func:`as_topology` accepts a networkx graph or ``(n, edges)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from algorithms.errors import InvalidGraphError

__all__ = ["Topology", "as_topology"]


@dataclass(frozen=True, eq=False)
class Topology:
    """Vertices ``0..n-1`` and edges ``edges[i] = (u, v)``, simple and undirected.

    ``nodes`` holds the original node labels (``nodes[i]`` is vertex i) when the
    topology came from a networkx graph.
    """

    n: int
    edges: np.ndarray
    nodes: tuple = ()

    @property
    def m(self) -> int:
        return int(self.edges.shape[0])


def as_topology(graph, edges=None) -> Topology:
    """Validate and convert a topology.

    Parameters
    ----------
    graph : Topology, networkx.Graph or int
        A networkx graph (vertex i is the i-th node of ``G.nodes``, edge j the j-th
        of ``G.edges``), or the vertex count ``n`` with ``edges``.
    edges : array_like of shape (m, 2), optional

    Raises
    ------
    InvalidGraphError
        Directed graphs or multigraphs, self-loops, repeated edges, endpoints out of
        range, fewer than 2 vertices.
    """
    if isinstance(graph, Topology):
        return graph
    try:
        import networkx as nx
    except ImportError:  # pragma: no cover - networkx is a dependency
        nx = None
    if nx is not None and isinstance(graph, nx.Graph):
        if graph.is_directed() or graph.is_multigraph():
            raise InvalidGraphError("the graph must be a simple undirected networkx Graph")
        nodes = tuple(graph.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        arr = np.array([(index[u], index[v]) for u, v in graph.edges], dtype=np.int64).reshape(-1, 2)
        return _checked(len(nodes), arr, nodes)
    if edges is None:
        raise InvalidGraphError("give a networkx Graph, or the vertex count n together with an (m, 2) edge array")
    if isinstance(graph, bool) or not isinstance(graph, (int, np.integer)):
        raise InvalidGraphError(f"n must be an integer vertex count, got {graph!r}")
    arr = np.asarray(edges)
    if arr.size == 0:
        arr = arr.reshape(0, 2)
    if arr.ndim != 2 or arr.shape[1] != 2 or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidGraphError(f"edges must be an (m, 2) integer array, got shape {arr.shape}, dtype {arr.dtype}")
    return _checked(int(graph), arr.astype(np.int64), tuple(range(int(graph))))


def _checked(n: int, edges: np.ndarray, nodes: tuple) -> Topology:
    if n < 2:
        raise InvalidGraphError(f"a spanning tree needs at least 2 vertices, got n = {n}")
    if edges.size and (edges.min() < 0 or edges.max() >= n):
        raise InvalidGraphError(f"edge endpoints must lie in 0..{n - 1}")
    if np.any(edges[:, 0] == edges[:, 1]):
        i = int(np.flatnonzero(edges[:, 0] == edges[:, 1])[0])
        raise InvalidGraphError(f"self-loop at edge {i}: {tuple(edges[i])}; the graph must be simple")
    key = np.sort(edges, axis=1)
    if np.unique(key, axis=0).shape[0] != key.shape[0]:
        raise InvalidGraphError("repeated edge; the graph must be simple (no multi-edges)")
    edges = edges.copy()
    edges.setflags(write=False)
    return Topology(n=n, edges=edges, nodes=nodes)
