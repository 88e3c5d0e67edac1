"""Non-private minimum spanning trees (forests) of validated graphs, with four backends.

:func:`minimum_spanning_tree` dispatches on ``backend=`` through :data:`ALGORITHMS`, as
networkx's ``minimum_spanning_edges`` does:

- ``"scipy"`` (default): :func:`scipy.sparse.csgraph.minimum_spanning_tree` on
  order-equivalent weights (csgraph reads a stored 0 as "no edge");
- ``"networkx"``: networkx's Kruskal;
- ``"kruskal"``: Kruskal's scan [1]_ of the stable weight order with the project's
  union-find (:mod:`algorithms.graphs.union_find`);
- ``"prim"``: lazy binary-heap Prim [2]_, compiled, from every vertex not yet reached.

Every backend returns a minimum spanning *forest* of a disconnected graph (``n - c``
edges for ``c`` components). With ties every backend returns *a* minimum spanning tree;
which one may differ between backends.

References
----------
.. [1] J. B. Kruskal, "On the Shortest Spanning Subtree of a Graph and the Traveling
   Salesman Problem", Proceedings of the AMS 7(1), 1956.
.. [2] R. C. Prim, "Shortest Connection Networks and Some Generalizations", Bell System
   Technical Journal 36(6), 1957.
"""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree as _csgraph_mst

from algorithms.errors import AlgorithmInputError
from algorithms.graphs._csr import csr_by_row, incidence_lists_of, lookup_edge_ids
from algorithms.graphs.union_find import greedy_forest
from algorithms.graphs.validation import _networkx_graph, _validate_weights, as_graph_arrays

__all__ = ["ALGORITHMS", "MST_BACKENDS", "minimum_spanning_tree", "kruskal_order"]


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

    Notes
    -----
    The forest depends only on ``order`` (Kruskal [1]_), so every caller that shares an order
    shares the tree. Runs :func:`algorithms.graphs.union_find.greedy_forest`.
    """
    edges = np.asarray(edges)
    return greedy_forest(int(n), edges[:, 0], edges[:, 1], order)


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
    indptr, indices, values, eid = csr_by_row(n, edges, _csgraph_safe_weights(weights))
    mat = sp.csr_matrix((values, indices, indptr), shape=(n, n))
    tree = _csgraph_mst(mat, overwrite=False)
    return lookup_edge_ids(tree.indptr.astype(np.int64), tree.indices.astype(np.int64), indptr, indices, eid)


def _mst_networkx(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    g = _networkx_graph(n, edges, weights)
    chosen = nx.minimum_spanning_edges(g, algorithm="kruskal", weight="weight", data=True)
    return np.fromiter((d["index"] for _, _, d in chosen), dtype=np.int64)


def _mst_kruskal(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return kruskal_order(n, edges, np.argsort(weights, kind="stable"))


def _mst_prim(n: int, edges: np.ndarray, weights: np.ndarray) -> np.ndarray:
    indptr, nbr, eid = incidence_lists_of(n, edges)
    return _prim(n, indptr, nbr, eid, weights)


#: Backend name -> function ``(n, edges, weights) -> edge indices`` (any order).
ALGORITHMS = {
    "scipy": _mst_scipy,
    "networkx": _mst_networkx,
    "kruskal": _mst_kruskal,
    "prim": _mst_prim,
}

#: Names accepted by ``backend=`` in :func:`minimum_spanning_tree`.
MST_BACKENDS = tuple(ALGORITHMS)


def minimum_spanning_tree(data, weights=None, *, backend: str = "scipy") -> np.ndarray:
    """Edge indices of a (non-private) minimum spanning tree, or forest if disconnected.

    Parameters
    ----------
    data : networkx.Graph, (n, edges, weights) or GraphArrays
    weights : array-like, optional
        Weights to use instead of the graph's own (e.g. noisy weights).
    backend : {"scipy", "networkx", "kruskal", "prim"}
        ``"scipy"`` (default) runs :func:`scipy.sparse.csgraph.minimum_spanning_tree`
        on order-equivalent weights (csgraph would drop zero weights); ``"networkx"`` runs
        networkx's Kruskal; ``"kruskal"`` and ``"prim"`` are this module's compiled
        implementations (see the module docstring).

    Returns
    -------
    int64 array of edge indices, sorted ascending.

    Examples
    --------
    >>> minimum_spanning_tree((3, [[0, 1], [1, 2], [0, 2]], [0.0, 5.0, -1.0])).tolist()
    [0, 2]
    """
    g = as_graph_arrays(data)
    w = g.weights if weights is None else _validate_weights(weights, g.m)
    return _mst_of_arrays(g.n, g.edges, w, backend)


def _mst_of_arrays(n: int, edges: np.ndarray, weights: np.ndarray, backend: str) -> np.ndarray:
    """The chosen backend on validated arrays (no checks but the backend's name)."""
    try:
        fn = ALGORITHMS[backend]
    except KeyError:
        raise AlgorithmInputError(f"unknown backend {backend!r}; choose one of {MST_BACKENDS}") from None
    return np.sort(fn(n, edges, weights))


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


# A binary min-heap of (key, edge, vertex) in three parallel arrays, ordered by (key, edge):
# the edge index breaks weight ties, so Prim's output is a function of the input.


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
