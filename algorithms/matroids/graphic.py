"""Graphic matroids: the edges of an undirected graph, independent iff they form a forest.

Elements are the edges ``0..m-1`` of a graph on vertices ``0..n_vertices-1`` (edge e joins
``u[e]`` and ``v[e]``). A basis is a spanning forest (a spanning tree when the graph is
connected); the rank is ``n_vertices - (number of connected components)``. Self-loops are
valid elements of the matroid (loops: in no independent set) and parallel edges are valid
(parallel elements); graph-level checks such as "no self-loops" belong to the MST mechanisms.

Independence is tested with the project's union-find (:mod:`algorithms.graphs.union_find`: path
halving, union by size), and the greedy basis is its Kruskal scan on the edge arrays: for the
161-edge AS1755 graph of Tao et al. 2025 it takes a few microseconds per call, and
:meth:`GraphicMatroid.greedy_max_basis_batch` handles R parallel runs in one compiled loop (Tao et
al. 2025, Alg. 1-2 and Chandak 2023, Alg. 2 play the greedy basis of the index vector each round).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from algorithms.errors import InvalidGraphError
from algorithms.graphs.union_find import find, kruskal_scan
from algorithms.matroids.base import IndependenceTracker, Matroid

__all__ = ["GraphicMatroid"]


@njit(cache=True, nogil=True)
def _greedy_forest_batch(orders, u, v, n_vertices, out):
    """Kruskal's scan of every row of ``orders``; row r's kept edges go to ``out[r]``."""
    parent = np.empty(n_vertices, dtype=np.int64)
    size = np.empty(n_vertices, dtype=np.int64)
    for r in range(orders.shape[0]):
        kruskal_scan(orders[r], u, v, parent, size, out.shape[1], out[r])


#: The project's ``find``, run by the interpreter: a tracker is driven one element at a time from
#: Python, where calling the compiled function costs more than it saves (the greedy bases are
#: compiled). ``py_func`` is the same source, so there is still one union-find.
_find_in_python = find.py_func


class _ForestTracker(IndependenceTracker):
    def __init__(self, matroid: GraphicMatroid):
        super().__init__(matroid)
        self._parent = list(range(matroid.n_vertices))

    def _root(self, x: int) -> int:
        return _find_in_python(self._parent, x)

    def _can_add(self, e: int) -> bool:
        m = self.matroid
        return self._root(int(m.u[e])) != self._root(int(m.v[e]))

    def _add(self, e: int) -> None:
        m = self.matroid
        a, b = self._root(int(m.u[e])), self._root(int(m.v[e]))
        self._parent[b] = a

    def _reset(self) -> None:
        self._parent = list(range(self.matroid.n_vertices))


class GraphicMatroid(Matroid):
    """The graphic (cycle) matroid of an undirected graph given as edge arrays.

    Parameters
    ----------
    n_vertices : int
        Number of vertices (labelled ``0..n_vertices-1``); isolated vertices are allowed.
    u, v : integer arrays of shape (m,)
        Endpoints of edge e (element e of the matroid).

    Raises
    ------
    InvalidGraphError
        Endpoints outside ``range(n_vertices)``, mismatched shapes, non-integer endpoints or
        ``n_vertices < 1``.

    Notes
    -----
    Tao et al. 2025 (Section 5) and Pagh et al. 2025 (Appendix A). A disconnected graph's bases are its
    spanning forests. Use :meth:`from_networkx` for a networkx graph and :meth:`from_edges`
    for an ``(m, 2)`` array.
    """

    def __init__(self, n_vertices: int, u, v):
        if isinstance(n_vertices, bool) or not isinstance(n_vertices, (int, np.integer)) or n_vertices < 1:
            raise InvalidGraphError(f"n_vertices must be an integer >= 1, got {n_vertices!r}")
        u = np.asarray(u)
        v = np.asarray(v)
        if u.ndim != 1 or u.shape != v.shape:
            raise InvalidGraphError(f"u and v must be 1-D arrays of equal length, got shapes {u.shape}, {v.shape}")
        if u.size and (u.dtype.kind not in "iu" or v.dtype.kind not in "iu"):
            raise InvalidGraphError(f"edge endpoints must be integers, got dtypes {u.dtype}, {v.dtype}")
        u = u.astype(np.int64)
        v = v.astype(np.int64)
        if u.size and (min(u.min(), v.min()) < 0 or max(u.max(), v.max()) >= n_vertices):
            raise InvalidGraphError(f"edge endpoints must lie in range({n_vertices})")
        self.n_vertices = int(n_vertices)
        self.u = np.ascontiguousarray(u)
        self.v = np.ascontiguousarray(v)
        self.n_elements = int(u.size)
        self.nodes = list(range(self.n_vertices))
        self._parent = np.empty(self.n_vertices, dtype=np.int64)
        self._size = np.empty(self.n_vertices, dtype=np.int64)

    @classmethod
    def from_edges(cls, n_vertices: int, edges) -> GraphicMatroid:
        """From an integer array of shape (m, 2) (row e = the endpoints of edge e)."""
        edges = np.asarray(edges)
        if edges.size == 0:
            edges = edges.reshape(0, 2).astype(np.int64)
        if edges.ndim != 2 or edges.shape[1] != 2:
            raise InvalidGraphError(f"edges must have shape (m, 2), got {edges.shape}")
        return cls(n_vertices, edges[:, 0], edges[:, 1])

    @classmethod
    def from_networkx(cls, graph) -> GraphicMatroid:
        """From an undirected networkx Graph/MultiGraph; element e is ``list(graph.edges())[e]``.

        The node order is ``list(graph.nodes())`` (kept in ``.nodes``); ``.edge_list`` keeps
        the original edge tuples.
        """
        if graph.is_directed():
            raise InvalidGraphError("a graphic matroid needs an undirected graph; got a directed graph")
        nodes = list(graph.nodes())
        if not nodes:
            raise InvalidGraphError("a graphic matroid needs at least one vertex")
        index = {node: i for i, node in enumerate(nodes)}
        edge_list = list(graph.edges())
        uv = np.array([(index[a], index[b]) for a, b in edge_list], dtype=np.int64).reshape(-1, 2)
        m = cls(len(nodes), uv[:, 0], uv[:, 1])
        m.nodes = nodes
        m.edge_list = edge_list
        return m

    def tracker(self) -> IndependenceTracker:
        return _ForestTracker(self)

    @property
    def rank(self) -> int:
        cached = getattr(self, "_rank_cache", None)
        if cached is None:
            out = np.empty(self.n_vertices, dtype=np.int64)
            cached = int(
                kruskal_scan(
                    np.arange(self.n_elements, dtype=np.int64),
                    self.u,
                    self.v,
                    self._parent,
                    self._size,
                    out.shape[0],
                    out,
                )
            )
            self._rank_cache = cached
        return cached

    def _greedy_in_order(self, order: np.ndarray) -> np.ndarray:
        out = np.empty(min(self.rank, order.size), dtype=np.int64)
        k = kruskal_scan(
            np.ascontiguousarray(order, dtype=np.int64), self.u, self.v, self._parent, self._size, out.shape[0], out
        )
        return out[:k]

    def _greedy_batch_in_order(self, orders: np.ndarray) -> np.ndarray:
        out = np.empty((orders.shape[0], self.rank), dtype=np.int64)
        _greedy_forest_batch(np.ascontiguousarray(orders, dtype=np.int64), self.u, self.v, self.n_vertices, out)
        return out

    def __repr__(self) -> str:  # pragma: no cover - cosmetic
        return f"GraphicMatroid(n_vertices={self.n_vertices}, n_edges={self.n_elements})"
