"""Numba kernels on CSR adjacency arrays for the spanning-tree samplers.

Internal module: the public, validated entry points are in
:mod:`algorithms.random_trees.samplers`. Every kernel takes a ``seed`` and seeds
numba's own generator with it, so a kernel call is a deterministic function of
its arguments. Adjacency is CSR over the *usable* edges (weight > 0):
``indptr`` (n + 1), ``nbr`` (2m') neighbour vertices, ``eid`` (2m') edge ids,
``cumw`` (2m') running sums of the weights within each row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from algorithms.graphs.union_find import reset, union

__all__ = [
    "wilson_batch",
    "aldous_broder_batch",
    "exchange_chain_batch",
    "trees_for_weight_rows",
    "row_running_sums",
]


@njit(cache=True)
def row_running_sums(indptr, values):
    """Running sums of ``values`` restarted at every CSR row (exact per row, no cancellation)."""
    out = np.empty_like(values)
    for u in range(indptr.shape[0] - 1):
        acc = 0.0
        for j in range(indptr[u], indptr[u + 1]):
            acc += values[j]
            out[j] = acc
    return out


@njit(cache=True, inline="always")
def _step(u, indptr, nbr, eid, cumw):
    """One random-walk step from u: neighbour chosen with probability proportional to weight."""
    lo = indptr[u]
    hi = indptr[u + 1]
    r = np.random.random() * cumw[hi - 1]
    # first j in [lo, hi) with cumw[j] > r
    a = lo
    b = hi - 1
    while a < b:
        mid = (a + b) >> 1
        if cumw[mid] > r:
            b = mid
        else:
            a = mid + 1
    return nbr[a], eid[a]


@njit(cache=True)
def _wilson_one(n, indptr, nbr, eid, cumw, in_tree, next_v, next_e, out_row):
    """One tree by Wilson's algorithm into ``out_row`` (root: vertex 0)."""
    in_tree[:] = False
    in_tree[0] = True
    count = 0
    for start in range(n):
        u = start
        while not in_tree[u]:
            v, e = _step(u, indptr, nbr, eid, cumw)
            next_v[u] = v
            next_e[u] = e
            u = v
        u = start
        while not in_tree[u]:
            in_tree[u] = True
            out_row[count] = next_e[u]
            count += 1
            u = next_v[u]


@njit(cache=True)
def _aldous_broder_one(n, indptr, nbr, eid, cumw, visited, out_row):
    """One tree by the Aldous-Broder first-entrance walk from a uniform random start."""
    visited[:] = False
    u = np.random.randint(0, n)
    visited[u] = True
    count = 0
    while count < n - 1:
        v, e = _step(u, indptr, nbr, eid, cumw)
        if not visited[v]:
            visited[v] = True
            out_row[count] = e
            count += 1
        u = v


@njit(cache=True)
def wilson_batch(n, indptr, nbr, eid, cumw, size, seed):
    """``size`` trees by Wilson's algorithm (loop-erased walks to a tree rooted at vertex 0).

    Returns an int64 array ``(size, n - 1)`` of edge ids (unsorted within a row).
    """
    np.random.seed(seed)
    out = np.empty((size, n - 1), dtype=np.int64)
    in_tree = np.zeros(n, dtype=np.bool_)
    next_v = np.empty(n, dtype=np.int64)
    next_e = np.empty(n, dtype=np.int64)
    for s in range(size):
        _wilson_one(n, indptr, nbr, eid, cumw, in_tree, next_v, next_e, out[s])
    return out


@njit(cache=True)
def aldous_broder_batch(n, indptr, nbr, eid, cumw, size, seed):
    """``size`` trees by the Aldous-Broder first-entrance walk from a uniform random start.

    Returns an int64 array ``(size, n - 1)`` of edge ids.
    """
    np.random.seed(seed)
    out = np.empty((size, n - 1), dtype=np.int64)
    visited = np.zeros(n, dtype=np.bool_)
    for s in range(size):
        _aldous_broder_one(n, indptr, nbr, eid, cumw, visited, out[s])
    return out


@njit(cache=True)
def trees_for_weight_rows(n, indptr, nbr, eid, eu, ev, weight_rows, use_wilson, seed):
    """One tree per weight vector (row of ``weight_rows``, shape (S, m)), on the full CSR.

    Edges of weight 0 are never stepped on. Rows whose positive-weight edges do
    not connect the graph get ``ok[s] = False`` and an all ``-1`` output row.
    Returns ``(out (S, n - 1), ok (S,))``.
    """
    np.random.seed(seed)
    size = weight_rows.shape[0]
    m = weight_rows.shape[1]
    out = np.full((size, n - 1), -1, dtype=np.int64)
    ok = np.zeros(size, dtype=np.bool_)
    parent = np.empty(n, dtype=np.int64)
    set_size = np.empty(n, dtype=np.int64)
    cumw = np.empty(indptr[n], dtype=np.float64)
    in_tree = np.zeros(n, dtype=np.bool_)
    next_v = np.empty(n, dtype=np.int64)
    next_e = np.empty(n, dtype=np.int64)
    for s in range(size):
        reset(parent, set_size)
        components = n
        for e in range(m):
            if weight_rows[s, e] > 0 and union(parent, set_size, eu[e], ev[e]):
                components -= 1
        if components != 1:
            continue
        ok[s] = True
        for u in range(n):
            acc = 0.0
            for j in range(indptr[u], indptr[u + 1]):
                acc += weight_rows[s, eid[j]]
                cumw[j] = acc
        if use_wilson:
            _wilson_one(n, indptr, nbr, eid, cumw, in_tree, next_v, next_e, out[s])
        else:
            _aldous_broder_one(n, indptr, nbr, eid, cumw, in_tree, out[s])
    return out, ok


@njit(cache=True)
def _tree_path_edges(a, b, n, indptr, nbr, eid, in_tree, parent_v, parent_e, queue, seen):
    """Edge ids of the path from a to b inside the current tree (breadth-first search)."""
    seen[:] = False
    seen[a] = True
    head = 0
    tail = 0
    queue[tail] = a
    tail += 1
    while head < tail:
        u = queue[head]
        head += 1
        if u == b:
            break
        for j in range(indptr[u], indptr[u + 1]):
            e = eid[j]
            if in_tree[e]:
                v = nbr[j]
                if not seen[v]:
                    seen[v] = True
                    parent_v[v] = u
                    parent_e[v] = e
                    queue[tail] = v
                    tail += 1
    length = 0
    u = b
    while u != a:
        length += 1
        u = parent_v[u]
    path = np.empty(length, dtype=np.int64)
    u = b
    i = 0
    while u != a:
        path[i] = parent_e[u]
        i += 1
        u = parent_v[u]
    return path


@njit(cache=True)
def exchange_chain_batch(n, m, eu, ev, weights, indptr, nbr, eid, initial, steps, seed):
    """Run the add-edge / drop-from-cycle chain ``steps`` times from each initial tree.

    ``initial`` is ``(size, n - 1)`` edge ids (usable edges only). One step: pick a
    usable non-tree edge e uniformly, then drop f from the cycle of T + e with
    probability proportional to 1 / w(f) (DP-RST 2025, Algorithm 3 lines 5-8).
    Returns ``(size, n - 1)`` edge ids.
    """
    np.random.seed(seed)
    size = initial.shape[0]
    out = np.empty((size, n - 1), dtype=np.int64)
    usable = np.empty(m, dtype=np.int64)
    n_usable = 0
    for e in range(m):
        if weights[e] > 0:
            usable[n_usable] = e
            n_usable += 1
    in_tree = np.zeros(m, dtype=np.bool_)
    non_tree = np.empty(m, dtype=np.int64)
    position = np.full(m, -1, dtype=np.int64)
    parent_v = np.empty(n, dtype=np.int64)
    parent_e = np.empty(n, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    for s in range(size):
        in_tree[:] = False
        for i in range(n - 1):
            in_tree[initial[s, i]] = True
        # non-tree usable edges, with positions for O(1) swap-removal
        n_non = 0
        for i in range(n_usable):
            e = usable[i]
            if not in_tree[e]:
                non_tree[n_non] = e
                position[e] = n_non
                n_non += 1
        if n_non > 0:
            for _ in range(steps):
                e = non_tree[np.random.randint(0, n_non)]
                path = _tree_path_edges(eu[e], ev[e], n, indptr, nbr, eid, in_tree, parent_v, parent_e, queue, seen)
                total = 1.0 / weights[e]
                for f in path:
                    total += 1.0 / weights[f]
                r = np.random.random() * total
                acc = 1.0 / weights[e]
                drop = e
                if r >= acc:
                    for f in path:
                        acc += 1.0 / weights[f]
                        drop = f
                        if r < acc:
                            break
                if drop != e:
                    in_tree[e] = True
                    in_tree[drop] = False
                    p = position[e]
                    non_tree[p] = drop
                    position[drop] = p
                    position[e] = -1
        count = 0
        for i in range(n_usable):
            e = usable[i]
            if in_tree[e]:
                out[s, count] = e
                count += 1
    return out
