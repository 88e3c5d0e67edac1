"""Union-find (disjoint sets) and Kruskal's scan of a given edge order, compiled.

This is the project's one implementation of union-find: the non-private
Kruskal backend, the graphic matroid's greedy algorithm, the forest checks,
the random spanning-tree kernels and the bandit simulator all call these
functions. They work on caller-owned scratch arrays and allocate nothing, so
they can be called from any compiled loop (``nogil``, no runtime allocation).

The forest Kruskal's scan returns depends only on the edge order, not on the
union rule, so any caller may rely on it being the greedy forest of ``order``.

References
----------
.. [1] R. E. Tarjan, "Efficiency of a Good But Not Linear Set Union Algorithm",
   Journal of the ACM 22(2), 1975.
.. [2] J. B. Kruskal, "On the Shortest Spanning Subtree of a Graph and the
   Traveling Salesman Problem", Proceedings of the AMS 7(1), 1956.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["reset", "find", "union", "kruskal_scan", "greedy_forest", "component_roots"]


@numba.njit(cache=True, nogil=True, _nrt=False)
def reset(parent, size):
    """Make every element its own set: ``parent[i] = i``, ``size[i] = 1``."""
    for i in range(parent.shape[0]):
        parent[i] = i
        size[i] = 1


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def find(parent, x):
    """Root of ``x``'s set, halving the path on the way (Tarjan [1]_)."""
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def union(parent, size, a, b):
    """Merge the sets of ``a`` and ``b`` by size; return False if they were one set already."""
    ra = find(parent, a)
    rb = find(parent, b)
    if ra == rb:
        return False
    if size[ra] < size[rb]:
        ra, rb = rb, ra
    parent[rb] = ra
    size[ra] += size[rb]
    return True


@numba.njit(cache=True, nogil=True, _nrt=False)
def kruskal_scan(order, u, v, parent, size, limit, out):
    """Kruskal's scan [2]_: keep each edge of ``order`` that closes no cycle.

    Parameters
    ----------
    order : int array
        Edge indices in the order they are considered.
    u, v : int arrays (m,)
        Endpoints of every edge.
    parent, size : int arrays (n_vertices,)
        Scratch; reset here.
    limit : int
        Stop after this many kept edges (``n_vertices - 1`` for a spanning tree).
    out : int array (>= limit,)
        Receives the kept edge indices, in the order they were kept.

    Returns
    -------
    int
        The number of kept edges written to ``out``.
    """
    reset(parent, size)
    k = 0
    for i in range(order.shape[0]):
        if k >= limit:
            break
        e = order[i]
        if union(parent, size, u[e], v[e]):
            out[k] = e
            k += 1
    return k


def greedy_forest(n_vertices: int, u, v, order) -> np.ndarray:
    """The forest Kruskal's scan keeps from ``order``: an ``int64`` array of edge indices.

    Parameters
    ----------
    n_vertices : int
    u, v : int arrays (m,)
        Endpoints of every edge.
    order : int array
        Edge indices in the order they are considered (e.g. an ``argsort`` of keys).

    Returns
    -------
    numpy.ndarray
        The kept edge indices, in the order they were kept.
    """
    parent = np.empty(n_vertices, dtype=np.int64)
    size = np.empty(n_vertices, dtype=np.int64)
    out = np.empty(max(n_vertices - 1, 0), dtype=np.int64)
    k = kruskal_scan(
        np.ascontiguousarray(order, dtype=np.int64),
        np.ascontiguousarray(u, dtype=np.int64),
        np.ascontiguousarray(v, dtype=np.int64),
        parent,
        size,
        out.shape[0],
        out,
    )
    return out[:k]


@numba.njit(cache=True, nogil=True, _nrt=False)
def _roots_after(edge_indices, u, v, parent, size, roots):
    reset(parent, size)
    for i in range(edge_indices.shape[0]):
        e = edge_indices[i]
        union(parent, size, u[e], v[e])
    for x in range(parent.shape[0]):
        roots[x] = find(parent, x)


def component_roots(n_vertices: int, u, v, edge_indices) -> np.ndarray:
    """The root of every vertex after uniting the edges ``edge_indices``.

    Two vertices are joined by those edges iff their roots are equal, so
    ``roots[u] == roots[v]`` marks the edges that would close a cycle.

    Parameters
    ----------
    n_vertices : int
    u, v : int arrays (m,)
        Endpoints of every edge.
    edge_indices : int array
        The edges to unite (any order; repeats and cycles are allowed).

    Returns
    -------
    numpy.ndarray
        ``int64`` array (n_vertices,) of root labels.
    """
    parent = np.empty(n_vertices, dtype=np.int64)
    size = np.empty(n_vertices, dtype=np.int64)
    roots = np.empty(n_vertices, dtype=np.int64)
    _roots_after(
        np.ascontiguousarray(edge_indices, dtype=np.int64),
        np.ascontiguousarray(u, dtype=np.int64),
        np.ascontiguousarray(v, dtype=np.int64),
        parent,
        size,
        roots,
    )
    return roots
