"""Compiled layouts of an edge array: rows by first endpoint, incidence lists, repeated pairs.

Internal module: every kernel takes validated ``int64`` edges (``edges[e, 0] < edges[e, 1]``
for the checks of :mod:`.validation`, any orientation for :func:`incidence_lists_of`) and runs
in O(n + m) by counting sort, so the order within a vertex is the edge-index order.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = ["order_by_first_endpoint", "first_repeated_pair", "incidence_lists_of", "csr_by_row", "lookup_edge_ids"]


@numba.njit(cache=True, nogil=True)
def order_by_first_endpoint(n, edges):
    """Counting sort of the edges by first endpoint: ``(indptr, order)``.

    The edges whose first endpoint is ``a`` are ``order[indptr[a]:indptr[a + 1]]``, in index order.
    """
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
def first_repeated_pair(n, edges):
    """Index of the first edge whose pair ``(edges[e, 0], edges[e, 1])`` appeared before, or -1.

    Bucket the edges by first endpoint, then mark second endpoints per bucket: O(n + m).
    The pairs must be ordered (``edges[e, 0] < edges[e, 1]``) for reversed repeats to be found.
    """
    indptr, bucket = order_by_first_endpoint(n, edges)
    mark = np.full(n, -1, dtype=np.int64)
    for a in range(n):
        for p in range(indptr[a], indptr[a + 1]):
            e = bucket[p]
            b = edges[e, 1]
            if mark[b] == a:
                return e
            mark[b] = a
    return -1


@numba.njit(cache=True, nogil=True)
def incidence_lists_of(n, edges):
    """Incidence lists in CSR form: ``(indptr, neighbour, edge_index)``, each edge at both ends."""
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
def csr_by_row(n, edges, data):
    """CSR arrays ``(indptr, indices, values, eid)`` of the edges by first endpoint.

    ``eid[p]`` is the edge index of stored entry ``p`` (the upper triangle, one entry per edge).
    """
    indptr, eid = order_by_first_endpoint(n, edges)
    m = eid.shape[0]
    indices = np.empty(m, dtype=np.int32)
    values = np.empty(m, dtype=np.float64)
    for p in range(m):
        indices[p] = edges[eid[p], 1]
        values[p] = data[eid[p]]
    return indptr, indices, values, eid


@numba.njit(cache=True, nogil=True)
def lookup_edge_ids(tree_indptr, tree_indices, indptr, indices, eid):
    """Edge index of every stored entry ``(i, j)`` of a CSR subgraph (either orientation).

    ``indptr, indices, eid`` are :func:`csr_by_row` of the whole graph; each entry costs a scan
    of row ``min(i, j)``.
    """
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
