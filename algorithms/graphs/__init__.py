"""Weighted undirected graphs as validated arrays, and non-private minimum spanning trees.

Every spanning-tree algorithm of the project takes its graph through
:func:`as_graph_arrays`, which accepts a :class:`networkx.Graph` or a triple
``(n, edges, weights)`` and returns a :class:`GraphArrays` of

- ``n`` -- the number of vertices, labelled ``0 .. n-1``;
- ``edges`` -- an ``int64`` array of shape ``(m, 2)`` with ``edges[i, 0] < edges[i, 1]``;
- ``weights`` -- a ``float64`` array of shape ``(m,)``, all finite.

Edge *indices* (positions ``0 .. m-1`` in ``edges``) are the currency of every
tree-valued result: a spanning tree is an ``int64`` array of edge indices, and
:func:`tree_key` turns one into a canonical hashable value (a sorted tuple)
for exact distributions and audits.

Valid and invalid input (Pagh et al. 2025, Section 2: the topology is public, the
weights are private and arbitrary reals):

- negative and zero weights are valid;
- a disconnected graph is valid: every "spanning tree" routine then returns a
  minimum spanning *forest* (one tree per connected component, ``n - c`` edges
  for ``c`` components);
- NaN or infinite weights raise :class:`~algorithms.errors.InvalidWeightsError`;
- directed graphs, self-loops, multi-edges (a :class:`networkx.MultiGraph` or a
  repeated vertex pair in the arrays, in either orientation) and fewer than
  ``min_vertices`` (default 2) vertices raise
  :class:`~algorithms.errors.InvalidGraphError`.

Backends for the non-private minimum spanning tree (:func:`minimum_spanning_tree`):
``"scipy"`` (default, :func:`scipy.sparse.csgraph.minimum_spanning_tree`),
``"networkx"``, ``"kruskal"`` (this module's union-find Kruskal, numba) and
``"prim"`` (this module's binary-heap Prim, numba). With ties every backend
returns *a* minimum spanning tree; which one may differ between backends.
"""

from __future__ import annotations

import weakref
from typing import NamedTuple

import networkx as nx
import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import minimum_spanning_tree as _csgraph_mst

from algorithms.errors import InvalidGraphError, InvalidWeightsError

__all__ = [
    "GraphArrays",
    "MST_BACKENDS",
    "as_graph_arrays",
    "to_networkx",
    "minimum_spanning_tree",
    "mst_of_validated",
    "kruskal_order",
    "tree_weight",
    "tree_key",
    "is_spanning_forest",
    "number_of_components",
    "connected_gnp_graph",
    "incidence_lists",
]

#: Names accepted by ``backend=`` in :func:`minimum_spanning_tree`.
MST_BACKENDS = ("scipy", "networkx", "kruskal", "prim")


class GraphArrays(NamedTuple):
    """A validated weighted undirected simple graph (see the module docstring).

    Unpacks as ``n, edges, weights = graph``.
    """

    n: int
    edges: np.ndarray
    weights: np.ndarray

    @property
    def m(self) -> int:
        """Number of edges."""
        return int(self.edges.shape[0])

    def with_weights(self, weights) -> GraphArrays:
        """The same topology with new (validated) weights."""
        return GraphArrays(self.n, self.edges, _validate_weights(weights, self.m))


# ----------------------------------------------------------------------------- validation


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

    Raises
    ------
    InvalidGraphError
        Directed graph, multigraph, self-loop, repeated pair, vertex out of range,
        bad edge array shape, fewer than ``min_vertices`` vertices.
    InvalidWeightsError
        NaN or infinite weight, wrong weight shape, missing weight attribute.
    """
    if isinstance(data, GraphArrays):
        n, edges, weights = data
    elif isinstance(data, nx.Graph):
        n, edges, weights = _from_networkx(data, weight, default_weight)
    elif isinstance(data, (tuple, list)) and len(data) == 3:
        n, edges, weights = data
    else:
        raise InvalidGraphError(
            f"expected a networkx.Graph or a triple (n, edges, weights), got {type(data).__name__}"
        )
    n = _validate_n(n, min_vertices)
    if not _known_valid_edges(edges, n):
        edges = _validate_edges(edges, n)
        _remember_valid_edges(edges, n)
    weights = _validate_weights(weights, edges.shape[0])
    return GraphArrays(n, edges, weights)


# Validated edge arrays are frozen (read-only) and remembered by identity, so
# passing the same GraphArrays again (as samplers and benchmarks do, many times)
# skips the O(m log m) duplicate check and reuses the incidence lists. Entries
# vanish with their arrays (weak references).
_VALID_EDGES: dict = {}
_INCIDENCE: dict = {}


def _forget(key):
    _VALID_EDGES.pop(key, None)
    _INCIDENCE.pop(key, None)


def _remember_valid_edges(edges: np.ndarray, n: int) -> None:
    edges.flags.writeable = False
    key = id(edges)
    _VALID_EDGES[key] = (weakref.ref(edges, lambda _, key=key: _forget(key)), n)


def _known_valid_edges(edges, n: int) -> bool:
    entry = _VALID_EDGES.get(id(edges))
    return (
        entry is not None
        and entry[0]() is edges
        and entry[1] == n
        and not edges.flags.writeable
    )


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
    dup = _first_repeated_pair(n, out)
    if dup >= 0:
        raise InvalidGraphError(
            f"multi-edge: the pair ({out[dup, 0]}, {out[dup, 1]}) appears more than once (in either "
            "orientation); only simple graphs are allowed"
        )
    return out


@numba.njit(cache=True, nogil=True)
def _order_by_first_endpoint(n, edges):
    # Counting sort of the edges by first endpoint, O(n + m): the edges of row a are
    # order[indptr[a]:indptr[a + 1]], in index order.
    m = edges.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        indptr[edges[e, 0] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    order = np.empty(m, dtype=np.int64)
    for e in range(m):
        order[fill[edges[e, 0]]] = e
        fill[edges[e, 0]] += 1
    return indptr, order


@numba.njit(cache=True, nogil=True)
def _first_repeated_pair(n, edges):
    # O(n + m): bucket the edges by smaller endpoint, then mark larger endpoints per bucket.
    indptr, bucket = _order_by_first_endpoint(n, edges)
    mark = np.full(n, -1, dtype=np.int64)
    for a in range(n):
        for p in range(indptr[a], indptr[a + 1]):
            e = bucket[p]
            b = edges[e, 1]
            if mark[b] == a:
                return e
            mark[b] = a
    return -1


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


def to_networkx(graph: GraphArrays, weights=None) -> nx.Graph:
    """Return an :class:`networkx.Graph` with attributes ``weight`` and ``index`` (edge index)."""
    g = as_graph_arrays(graph, min_vertices=0)
    w = g.weights if weights is None else _validate_weights(weights, g.m)
    out = nx.Graph()
    out.add_nodes_from(range(g.n))
    out.add_edges_from(
        (int(u), int(v), {"weight": float(x), "index": i}) for i, ((u, v), x) in enumerate(zip(g.edges, w))
    )
    return out


# ----------------------------------------------------------------------------- trees


def tree_key(edge_indices) -> tuple:
    """Canonical hashable form of a set of edge indices: the sorted tuple of Python ints."""
    return tuple(sorted(int(i) for i in edge_indices))


def tree_weight(graph: GraphArrays, edge_indices, weights=None) -> float:
    """Sum of ``weights`` (default ``graph.weights``) over ``edge_indices``."""
    w = graph.weights if weights is None else np.asarray(weights, dtype=np.float64)
    return float(np.sum(w[np.asarray(edge_indices, dtype=np.int64)]))


def number_of_components(graph: GraphArrays) -> int:
    """Number of connected components (isolated vertices count)."""
    n, edges, _ = graph
    if n == 0:
        return 0
    adj = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n, n)).tocsr()
    return int(connected_components(adj, directed=False)[0])


def is_spanning_forest(graph: GraphArrays, edge_indices) -> bool:
    """True iff ``edge_indices`` are distinct valid indices forming a maximal acyclic subgraph.

    For a connected graph this means a spanning tree (``n - 1`` edges, no cycle).
    """
    idx = np.asarray(edge_indices, dtype=np.int64).ravel()
    if idx.size and (idx.min() < 0 or idx.max() >= graph.m):
        return False
    if _sorted_unique(idx).size != idx.size:
        return False
    if idx.size != graph.n - number_of_components(graph):
        return False
    parent = list(range(graph.n))

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in graph.edges[idx]:
        ru, rv = find(int(u)), find(int(v))
        if ru == rv:
            return False
        parent[ru] = rv
    return True


def kruskal_order(n: int, edges: np.ndarray, order: np.ndarray) -> np.ndarray:
    """Kruskal on a given processing order: the edges of ``order`` that close no cycle.

    Parameters
    ----------
    n : int
    edges : int64 array (m, 2)
    order : int64 array
        Edge indices in the order Kruskal considers them (e.g. ``argsort`` of keys).

    Returns
    -------
    int64 array of the selected edge indices, in selection order.
    """
    return _kruskal_on_order(
        n, np.ascontiguousarray(edges, dtype=np.int64), np.ascontiguousarray(order, dtype=np.int64)
    )


@numba.njit(cache=True, nogil=True)
def _find(parent, x):
    root = x
    while parent[root] != root:
        root = parent[root]
    while parent[x] != root:
        nxt = parent[x]
        parent[x] = root
        x = nxt
    return root


@numba.njit(cache=True, nogil=True)
def _kruskal_on_order(n, edges, order):
    parent = np.arange(n)
    rank = np.zeros(n, dtype=np.int64)
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    for t in range(order.shape[0]):
        if k == n - 1:
            break
        e = order[t]
        ru = _find(parent, edges[e, 0])
        rv = _find(parent, edges[e, 1])
        if ru == rv:
            continue
        if rank[ru] < rank[rv]:
            ru, rv = rv, ru
        parent[rv] = ru
        if rank[ru] == rank[rv]:
            rank[ru] += 1
        out[k] = e
        k += 1
    return out[:k]


@numba.njit(cache=True, nogil=True)
def _prim(n, indptr, nbr, eid, weights):
    # Lazy binary-heap Prim from every not-yet-reached vertex (spanning forest).
    in_tree = np.zeros(n, dtype=np.bool_)
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    cap = 2 * eid.shape[0] + 1
    hkey = np.empty(cap, dtype=np.float64)
    hedge = np.empty(cap, dtype=np.int64)
    hvert = np.empty(cap, dtype=np.int64)
    for root in range(n):
        if in_tree[root]:
            continue
        in_tree[root] = True
        size = 0
        for p in range(indptr[root], indptr[root + 1]):
            size = _heap_push(hkey, hedge, hvert, size, weights[eid[p]], eid[p], nbr[p])
        while size > 0:
            key, e, v, size = _heap_pop(hkey, hedge, hvert, size)
            if in_tree[v]:
                continue
            in_tree[v] = True
            out[k] = e
            k += 1
            for p in range(indptr[v], indptr[v + 1]):
                if not in_tree[nbr[p]]:
                    size = _heap_push(hkey, hedge, hvert, size, weights[eid[p]], eid[p], nbr[p])
    return out[:k]


@numba.njit(cache=True, nogil=True, inline="always")
def _less(ka, ea, kb, eb):
    return ka < kb or (ka == kb and ea < eb)


@numba.njit(cache=True, nogil=True)
def _heap_push(hkey, hedge, hvert, size, key, e, v):
    i = size
    hkey[i] = key
    hedge[i] = e
    hvert[i] = v
    while i > 0:
        p = (i - 1) // 2
        if _less(hkey[i], hedge[i], hkey[p], hedge[p]):
            hkey[i], hkey[p] = hkey[p], hkey[i]
            hedge[i], hedge[p] = hedge[p], hedge[i]
            hvert[i], hvert[p] = hvert[p], hvert[i]
            i = p
        else:
            break
    return size + 1


@numba.njit(cache=True, nogil=True)
def _heap_pop(hkey, hedge, hvert, size):
    key, e, v = hkey[0], hedge[0], hvert[0]
    size -= 1
    hkey[0], hedge[0], hvert[0] = hkey[size], hedge[size], hvert[size]
    i = 0
    while True:
        l = 2 * i + 1
        r = l + 1
        s = i
        if l < size and _less(hkey[l], hedge[l], hkey[s], hedge[s]):
            s = l
        if r < size and _less(hkey[r], hedge[r], hkey[s], hedge[s]):
            s = r
        if s == i:
            break
        hkey[i], hkey[s] = hkey[s], hkey[i]
        hedge[i], hedge[s] = hedge[s], hedge[i]
        hvert[i], hvert[s] = hvert[s], hvert[i]
        i = s
    return key, e, v, size


def incidence_lists(n: int, edges: np.ndarray):
    """Incidence lists in CSR form: ``(indptr, neighbour, edge_index)``, each edge listed at both ends.

    The entries of vertex v are ``indptr[v]:indptr[v+1]``; ``neighbour[p]`` is the other endpoint
    of edge ``edge_index[p]``.
    """
    if _known_valid_edges(edges, int(n)):
        cached = _INCIDENCE.get(id(edges))
        if cached is None:
            cached = _INCIDENCE[id(edges)] = _incidence_lists(int(n), np.ascontiguousarray(edges, dtype=np.int64))
        return cached
    return _incidence_lists(int(n), np.ascontiguousarray(edges, dtype=np.int64))


@numba.njit(cache=True, nogil=True)
def _incidence_lists(n, edges):
    # Counting sort by endpoint, O(n + m); within a vertex, edges appear in index order.
    m = edges.shape[0]
    indptr = np.zeros(n + 1, dtype=np.int64)
    for e in range(m):
        indptr[edges[e, 0] + 1] += 1
        indptr[edges[e, 1] + 1] += 1
    for i in range(n):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    nbr = np.empty(2 * m, dtype=np.int64)
    eid = np.empty(2 * m, dtype=np.int64)
    for e in range(m):
        a = edges[e, 0]
        b = edges[e, 1]
        nbr[fill[a]] = b
        eid[fill[a]] = e
        fill[a] += 1
        nbr[fill[b]] = a
        eid[fill[b]] = e
        fill[b] += 1
    return indptr, nbr, eid


@numba.njit(cache=True, nogil=True)
def _csr_by_row(n, edges, data):
    # CSR arrays of the edges by first endpoint, plus the edge index of every stored entry.
    indptr, eid = _order_by_first_endpoint(n, edges)
    m = eid.shape[0]
    indices = np.empty(m, dtype=np.int32)
    values = np.empty(m, dtype=np.float64)
    for p in range(m):
        indices[p] = edges[eid[p], 1]
        values[p] = data[eid[p]]
    return indptr, indices, values, eid


@numba.njit(cache=True, nogil=True)
def _lookup_edge_ids(tree_indptr, tree_indices, indptr, indices, eid):
    # For every stored entry (i, j) of the tree (csgraph may store either
    # orientation), the index of edge {i, j}: a scan of row min(i, j).
    out = np.empty(tree_indices.shape[0], dtype=np.int64)
    k = 0
    for i in range(tree_indptr.shape[0] - 1):
        for q in range(tree_indptr[i], tree_indptr[i + 1]):
            j = tree_indices[q]
            a = min(i, j)
            b = max(i, j)
            for p in range(indptr[a], indptr[a + 1]):
                if indices[p] == b:
                    out[k] = eid[p]
                    k += 1
                    break
    return out[:k]


_SMALLEST_POSITIVE = np.nextafter(0.0, 1.0)


def _csgraph_safe_weights(weights: np.ndarray) -> np.ndarray:
    """Order-equivalent weights without stored zeros (csgraph reads 0 as "no edge").

    Negative weights are fine for csgraph. Exact zeros become the smallest positive
    double when no weight lies in (0, that double], which keeps the order strictly
    (ties stay ties); otherwise the 1-based ranks (stable argsort) are used.
    """
    zero = weights == 0.0
    if not zero.any():
        return weights
    positive = weights[weights > 0.0]
    if positive.size == 0 or positive.min() > _SMALLEST_POSITIVE:
        out = weights.copy()
        out[zero] = _SMALLEST_POSITIVE
        return out
    order = np.argsort(weights, kind="stable")
    ranks = np.empty(weights.size, dtype=np.float64)
    ranks[order] = np.arange(1, weights.size + 1, dtype=np.float64)
    return ranks


def _mst_scipy(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    # The edges are simple (validated) and stored once each (upper triangle), so no
    # duplicate entries are summed; zero weights are remapped order-equivalently
    # (see _csgraph_safe_weights). The edge index of each tree entry is recovered
    # from our own CSR layout in O(m).
    if edges.shape[0] == 0:
        return np.empty(0, dtype=np.int64)
    indptr, indices, values, eid = _csr_by_row(n, edges, _csgraph_safe_weights(weights))
    mat = sp.csr_matrix((values, indices, indptr), shape=(n, n))
    tree = _csgraph_mst(mat, overwrite=False)
    return _lookup_edge_ids(
        tree.indptr.astype(np.int64), tree.indices.astype(np.int64), indptr, indices, eid
    )


def _mst_networkx(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    g = to_networkx(GraphArrays(n, edges, weights))
    chosen = nx.minimum_spanning_edges(g, algorithm="kruskal", weight="weight", data=True)
    return np.fromiter((d["index"] for _, _, d in chosen), dtype=np.int64)


def _mst_kruskal(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return _kruskal_on_order(n, edges, np.argsort(weights, kind="stable").astype(np.int64))


def _mst_prim(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    indptr, nbr, eid = incidence_lists(n, edges)
    return _prim(n, indptr, nbr, eid, weights)


_BACKENDS = {
    "scipy": _mst_scipy,
    "networkx": _mst_networkx,
    "kruskal": _mst_kruskal,
    "prim": _mst_prim,
}


def minimum_spanning_tree(data, weights=None, *, backend: str = "scipy") -> np.ndarray:
    """Edge indices of a (non-private) minimum spanning tree, or forest if disconnected.

    Parameters
    ----------
    data : networkx.Graph, (n, edges, weights) or GraphArrays
    weights : array-like, optional
        Weights to use instead of the graph's own (e.g. noisy weights).
    backend : {"scipy", "networkx", "kruskal", "prim"}
        ``"scipy"`` (default) runs :func:`scipy.sparse.csgraph.minimum_spanning_tree`
        on the weight ranks (csgraph would drop zero weights and cannot represent
        negative ones as given); ``"networkx"`` runs networkx's Kruskal; ``"kruskal"``
        and ``"prim"`` are this module's numba implementations.

    Returns
    -------
    int64 array of edge indices, sorted ascending.
    """
    g = as_graph_arrays(data)
    w = g.weights if weights is None else _validate_weights(weights, g.m)
    return mst_of_validated(g.n, g.edges, w, backend)


def mst_of_validated(n: int, edges: np.ndarray, weights: np.ndarray, backend: str = "scipy") -> np.ndarray:
    """:func:`minimum_spanning_tree` on arrays that are already validated (no checks but the backend).

    For callers that validated the graph once and draw many weight vectors (e.g. Algorithm 1).
    """
    try:
        fn = _BACKENDS[backend]
    except KeyError:
        raise ValueError(f"unknown backend {backend!r}; choose one of {MST_BACKENDS}") from None
    return np.sort(fn(n, edges, weights))


# ----------------------------------------------------------------------------- generators


def connected_gnp_graph(
    n: int,
    p: float,
    rng=None,
    *,
    low: float = 0.0,
    high: float = 100.0,
    max_tries: int = 1000,
) -> GraphArrays:
    """A connected Erdos-Renyi G(n, p) graph with iid uniform(low, high) weights.

    Draws G(n, p) (each of the n(n-1)/2 pairs independently with probability p),
    redrawing until connected as in Pagh et al. 2025, Appendix H ("regenerate until connected").
    The edge set is drawn without materializing all pairs: the number of edges is
    Binomial(n(n-1)/2, p) and the pairs are a uniform subset of that size, which has the
    same distribution. Edges are listed in increasing pair order.

    Parameters
    ----------
    n : int, at least 2
    p : float in (0, 1]
    rng : None, int, SeedSequence or Generator
    low, high : float
        Weight range (Pagh et al. 2025, App. H: U(0, 100)).
    max_tries : int
        Give up (InvalidGraphError) after this many disconnected draws.
    """
    n = _validate_n(n, 2)
    if not (0.0 < p <= 1.0):
        raise InvalidGraphError(f"edge probability p must be in (0, 1], got {p!r}")
    if not (np.isfinite(low) and np.isfinite(high) and low <= high):
        raise InvalidWeightsError(f"weight range must be finite with low <= high, got ({low}, {high})")
    rng = np.random.default_rng(rng)
    n_pairs = n * (n - 1) // 2
    rows = np.arange(n, dtype=np.int64)
    row_start = rows * n - rows * (rows + 1) // 2
    for _ in range(max_tries):
        k = int(rng.binomial(n_pairs, p))
        codes = _uniform_subset(n_pairs, k, rng)
        i = np.searchsorted(row_start, codes, side="right") - 1
        j = codes - row_start[i] + i + 1
        edges = np.stack([i, j], axis=1).astype(np.int64)
        g = GraphArrays(n, edges, rng.uniform(low, high, size=k))
        if number_of_components(g) == 1:
            return g
    raise InvalidGraphError(
        f"G({n}, {p}) was disconnected in {max_tries} draws; use p above ln(n)/n ~ {np.log(n) / n:.3g}"
    )


def _sorted_unique(values: np.ndarray) -> np.ndarray:
    """``np.unique`` by sorting: numpy 2.x's default (hash-based) path is ~10x slower on wide int64."""
    values = np.sort(np.asarray(values).ravel())
    if values.size == 0:
        return values
    return values[np.r_[True, values[1:] != values[:-1]]]


def _uniform_subset(population: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted uniform random k-subset of range(population)."""
    if k == 0:
        return np.empty(0, dtype=np.int64)
    if 2 * k > population:
        keep = np.ones(population, dtype=bool)
        keep[_uniform_subset(population, population - k, rng)] = False
        return np.flatnonzero(keep).astype(np.int64)
    chosen = _sorted_unique(rng.integers(0, population, size=k))
    while chosen.size < k:
        extra = rng.integers(0, population, size=int((k - chosen.size) * 1.1) + 8)
        chosen = _sorted_unique(np.concatenate([chosen, extra]))
    if chosen.size > k:
        chosen = np.sort(rng.choice(chosen, size=k, replace=False))
    return chosen.astype(np.int64)
