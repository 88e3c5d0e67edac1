"""Validated graphs: the :class:`GraphArrays` type, its one constructor and read-only queries.

A :class:`GraphArrays` is obtained only from :func:`as_graph_arrays` (or
:meth:`GraphArrays.with_weights`), which validates its input, so holding one is the proof
that its graph is valid: its arrays are read-only, and :func:`as_graph_arrays` returns a
:class:`GraphArrays` unchanged instead of checking it again. The incidence lists of a
validated graph (:func:`incidence_lists`) are computed once and shared by every graph of
the same topology (``with_weights`` keeps them).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from algorithms.errors import InvalidGraphError, InvalidWeightsError
from algorithms.graphs._csr import first_repeated_pair, incidence_lists_of
from algorithms.graphs.union_find import greedy_forest

__all__ = [
    "GraphArrays",
    "as_graph_arrays",
    "incidence_lists",
    "to_networkx",
    "tree_key",
    "tree_weight",
    "number_of_components",
    "is_spanning_forest",
]

#: Largest number of edges :meth:`GraphArrays.__repr__` writes out in full.
_REPR_EDGES = 100


class GraphArrays:
    """A validated weighted undirected simple graph (see :mod:`algorithms.graphs`).

    Made by :func:`as_graph_arrays` only; ``n``, ``edges`` and ``weights`` are read-only.
    Unpacks as ``n, edges, weights = graph``.

    Attributes
    ----------
    n : int
        Number of vertices, labelled ``0 .. n-1``.
    edges : numpy.ndarray
        ``int64`` array (m, 2), ``edges[i, 0] < edges[i, 1]``, no pair twice (read-only).
    weights : numpy.ndarray
        ``float64`` array (m,), all finite (read-only).
    """

    __slots__ = ("_n", "_edges", "_weights", "_topology")

    def __init__(self, *args, **kwargs):
        raise TypeError(
            "GraphArrays are made by as_graph_arrays(...), which validates the graph; "
            "use graph.with_weights(w) for new weights on a validated topology"
        )

    @classmethod
    def _validated(cls, n: int, edges: np.ndarray, weights: np.ndarray, topology: dict | None = None):
        # The only way in: callers have validated n, edges and weights, and own the arrays.
        self = object.__new__(cls)
        edges.flags.writeable = False
        weights.flags.writeable = False
        object.__setattr__(self, "_n", n)
        object.__setattr__(self, "_edges", edges)
        object.__setattr__(self, "_weights", weights)
        object.__setattr__(self, "_topology", {} if topology is None else topology)
        return self

    def __setattr__(self, name, value):
        raise AttributeError("GraphArrays are immutable; use with_weights(w) for new weights")

    @property
    def n(self) -> int:
        """Number of vertices."""
        return self._n

    @property
    def edges(self) -> np.ndarray:
        """``int64`` array (m, 2) of vertex pairs, smaller endpoint first (read-only)."""
        return self._edges.view()  # a view of a read-only owner cannot be made writeable

    @property
    def weights(self) -> np.ndarray:
        """``float64`` array (m,) of finite weights (read-only)."""
        return self._weights.view()

    @property
    def m(self) -> int:
        """Number of edges."""
        return int(self._edges.shape[0])

    def __iter__(self):
        return iter((self._n, self.edges, self.weights))

    def with_weights(self, weights) -> GraphArrays:
        """The same topology with new weights; only the weights are validated.

        Raises
        ------
        InvalidWeightsError
            NaN or infinite weight, or a shape other than ``(m,)``.
        """
        w = _owned(_validate_weights(weights, self.m), weights)
        return GraphArrays._validated(self._n, self._edges, w, self._topology)

    def __reduce__(self):
        return _unpickle, (self._n, self._edges, self._weights)

    def __repr__(self) -> str:
        if self.m <= _REPR_EDGES:
            return f"as_graph_arrays(({self._n}, {self._edges.tolist()}, {self._weights.tolist()}))"
        return f"<GraphArrays n={self._n} m={self.m}>"


def _unpickle(n, edges, weights):
    # A pickle of a GraphArrays holds validated arrays; unpickled arrays are new and owned.
    return GraphArrays._validated(n, np.array(edges), np.array(weights))


def as_graph_arrays(
    data,
    *,
    weight: str = "weight",
    default_weight: float | None = None,
    min_vertices: int = 2,
) -> GraphArrays:
    """Convert a networkx graph or ``(n, edges, weights)`` into validated :class:`GraphArrays`.

    Parameters
    ----------
    data : networkx.Graph or tuple (n, edges, weights) or GraphArrays
        For a networkx graph, vertices are relabelled ``0 .. n-1`` in the order of
        ``data.nodes`` and edges keep the order of ``data.edges``. ``edges`` may be any
        integer array-like of shape ``(m, 2)`` (orientation is ignored; each row is
        stored as ``(min, max)``); ``weights`` any real array-like of shape ``(m,)``.
        A :class:`GraphArrays` is returned as it is (it was validated when made); only
        ``min_vertices`` is checked.
    weight : str
        Edge attribute holding the weight (networkx input only).
    default_weight : float or None
        Weight of a networkx edge without the attribute; ``None`` (default) raises
        :class:`InvalidWeightsError` instead of guessing.
    min_vertices : int
        Smallest accepted number of vertices (2: a spanning tree needs an edge).

    Returns
    -------
    GraphArrays
        With new read-only arrays (the caller's arrays are never frozen or kept).

    Raises
    ------
    InvalidGraphError
        Directed graph, multigraph, self-loop, repeated pair, vertex out of range,
        bad edge array shape, fewer than ``min_vertices`` vertices.
    InvalidWeightsError
        NaN or infinite weight, wrong weight shape, missing weight attribute.

    Examples
    --------
    >>> g = as_graph_arrays((3, [[1, 0], [1, 2]], [0.5, -2.0]))
    >>> g.n, g.edges.tolist(), g.weights.tolist()
    (3, [[0, 1], [1, 2]], [0.5, -2.0])
    >>> as_graph_arrays(g) is g
    True
    """
    if isinstance(data, GraphArrays):
        _validate_n(data.n, min_vertices)
        return data
    if isinstance(data, nx.Graph):
        n, edges, weights = _from_networkx(data, weight, default_weight)
    elif isinstance(data, (tuple, list)) and len(data) == 3:
        n, edges, weights = data
    else:
        raise InvalidGraphError(f"expected a networkx.Graph or a triple (n, edges, weights), got {type(data).__name__}")
    n = _validate_n(n, min_vertices)
    edges = _validate_edges(edges, n)  # always a new array
    w = _owned(_validate_weights(weights, edges.shape[0]), weights)
    return GraphArrays._validated(n, edges, w)


def _owned(validated: np.ndarray, given) -> np.ndarray:
    """``validated`` itself if validation made it anew, else a copy (the caller's array is never frozen)."""
    if validated is given or validated.base is not None or not validated.flags.owndata:
        return validated.copy()
    return validated


def _from_networkx(graph: nx.Graph, weight: str, default_weight):
    if graph.is_directed():
        raise InvalidGraphError(
            "directed graphs are not allowed: spanning trees here are of undirected graphs "
            "(convert with graph.to_undirected() if that is what you mean)"
        )
    if graph.is_multigraph():
        raise InvalidGraphError(
            "multigraphs are not allowed: pass a simple nx.Graph (keep the lightest of parallel edges "
            "if that is what you mean)"
        )
    index = {node: i for i, node in enumerate(graph.nodes)}
    m = graph.number_of_edges()
    edges = np.empty((m, 2), dtype=np.int64)
    weights = np.empty(m, dtype=np.float64)
    for k, (u, v, attrs) in enumerate(graph.edges(data=True)):
        if u == v:
            raise InvalidGraphError(f"self-loop at vertex {u!r}: only simple graphs are allowed")
        edges[k] = index[u], index[v]
        if weight in attrs:
            value = attrs[weight]
        elif default_weight is not None:
            value = default_weight
        else:
            raise InvalidWeightsError(
                f"edge ({u!r}, {v!r}) has no {weight!r} attribute; give every edge a finite real "
                f"weight or pass default_weight="
            )
        try:
            weights[k] = float(value)
        except (TypeError, ValueError):
            raise InvalidWeightsError(
                f"edge ({u!r}, {v!r}) has non-numeric weight {value!r}; weights must be finite reals"
            ) from None
    return graph.number_of_nodes(), edges, weights


def _validate_n(n, min_vertices: int) -> int:
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise InvalidGraphError(f"n must be an integer number of vertices, got {n!r}")
    n = int(n)
    if n < min_vertices:
        raise InvalidGraphError(
            f"the graph has {n} vertices; at least {min_vertices} are needed (a spanning tree needs an edge)"
        )
    return n


def _validate_edges(edges, n: int) -> np.ndarray:
    """A new ``int64`` array (m, 2) of the pairs, smaller endpoint first; raises on anything invalid."""
    arr = np.asarray(edges)
    if arr.size == 0:
        return np.empty((0, 2), dtype=np.int64)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidGraphError(f"edges must have shape (m, 2), got shape {arr.shape}")
    if not (np.issubdtype(arr.dtype, np.integer)):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.int64)
        else:
            raise InvalidGraphError(f"edges must hold integer vertex labels 0..n-1, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=False)
    if arr.min() < 0 or arr.max() >= n:
        bad = arr[(arr < 0) | (arr >= n)][0]
        raise InvalidGraphError(f"edge endpoint {int(bad)} is outside the vertex range 0..{n - 1}")
    loops = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if loops.size:
        raise InvalidGraphError(
            f"self-loop at vertex {int(arr[loops[0], 0])} (edge {int(loops[0])}): only simple graphs are allowed"
        )
    out = np.empty(arr.shape, dtype=np.int64)
    np.minimum(arr[:, 0], arr[:, 1], out=out[:, 0])
    np.maximum(arr[:, 0], arr[:, 1], out=out[:, 1])
    dup = first_repeated_pair(n, out)
    if dup >= 0:
        raise InvalidGraphError(
            f"multi-edge: the pair ({out[dup, 0]}, {out[dup, 1]}) appears more than once (in either "
            "orientation); only simple graphs are allowed"
        )
    return out


def _validate_weights(weights, m: int) -> np.ndarray:
    try:
        w = np.asarray(weights, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidWeightsError("weights must be an array of finite reals") from None
    if w.shape == (0,) and m == 0:
        return w
    if w.shape != (m,):
        raise InvalidWeightsError(f"weights must have shape ({m},) to match the edges, got shape {w.shape}")
    bad = ~np.isfinite(w)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidWeightsError(
            f"weight of edge {i} is {float(w[i])!r}; weights must be finite reals (negative and zero are allowed)"
        )
    return np.ascontiguousarray(w)


def incidence_lists(graph, edges=None):
    """Incidence lists in CSR form: ``(indptr, neighbour, edge_index)``, each edge listed at both ends.

    The entries of vertex v are ``indptr[v]:indptr[v+1]``, in edge-index order;
    ``neighbour[p]`` is the other endpoint of edge ``edge_index[p]``.

    Parameters
    ----------
    graph : GraphArrays or int
        A validated graph: its lists are computed once and kept with its topology (later
        calls, also on ``graph.with_weights(...)``, return the same arrays; do not write to
        them). Or the number of vertices, with ``edges``.
    edges : int array (m, 2), optional
        Only with a number of vertices: the lists are computed afresh (O(n + m)).
    """
    if isinstance(graph, GraphArrays):
        if edges is not None:
            raise TypeError("incidence_lists(graph) takes no edges: the graph has its own")
        cached = graph._topology.get("incidence")
        if cached is None:
            cached = graph._topology["incidence"] = incidence_lists_of(graph.n, graph.edges)
        return cached
    return incidence_lists_of(int(graph), np.ascontiguousarray(edges, dtype=np.int64))


def _networkx_graph(n: int, edges: np.ndarray, weights: np.ndarray) -> nx.Graph:
    out = nx.Graph()
    out.add_nodes_from(range(n))
    out.add_edges_from(
        (int(u), int(v), {"weight": float(x), "index": i}) for i, ((u, v), x) in enumerate(zip(edges, weights))
    )
    return out


def to_networkx(graph: GraphArrays, weights=None) -> nx.Graph:
    """Return an :class:`networkx.Graph` with attributes ``weight`` and ``index`` (edge index)."""
    g = as_graph_arrays(graph, min_vertices=0)
    w = g.weights if weights is None else _validate_weights(weights, g.m)
    return _networkx_graph(g.n, g.edges, w)


def tree_key(edge_indices) -> tuple:
    """Canonical hashable form of a set of edge indices: the sorted tuple of Python ints."""
    return tuple(sorted(int(i) for i in edge_indices))


def tree_weight(graph, edge_indices, weights=None) -> float:
    """Sum of ``weights`` (default the graph's, else validated like them) over ``edge_indices``.

    ``graph`` is anything :func:`as_graph_arrays` accepts (free for a :class:`GraphArrays`).
    """
    g = as_graph_arrays(graph, min_vertices=0)
    w = g.weights if weights is None else _validate_weights(weights, g.m)
    return float(np.sum(w[np.asarray(edge_indices, dtype=np.int64)]))


def number_of_components(graph) -> int:
    """Number of connected components (isolated vertices count) of anything :func:`as_graph_arrays` accepts."""
    n, edges, _ = as_graph_arrays(graph, min_vertices=0)
    if n == 0:
        return 0
    adj = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    return int(connected_components(adj, directed=False)[0])


def is_spanning_forest(graph, edge_indices) -> bool:
    """True iff ``edge_indices`` are distinct valid indices forming a maximal acyclic subgraph.

    For a connected graph this means a spanning tree (``n - 1`` edges, no cycle). The
    acyclicity check is Kruskal's scan (:func:`~algorithms.graphs.union_find.greedy_forest`)
    of the given edges: they form a forest iff the scan keeps all of them.
    """
    graph = as_graph_arrays(graph, min_vertices=0)
    idx = np.asarray(edge_indices, dtype=np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= graph.m):
        return False
    if _sorted_unique(idx).size != idx.size:
        return False
    if idx.size != graph.n - number_of_components(graph):
        return False
    return greedy_forest(graph.n, graph.edges[:, 0], graph.edges[:, 1], idx).size == idx.size


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique`` by sorting: numpy 2.x's default (hash-based) path is ~10x slower on wide int64."""
    values = np.sort(np.asarray(values).ravel())
    if values.size == 0:
        return values
    return values[np.r_[True, values[1:] != values[:-1]]]
