"""Pagh et al. 2025, Algorithms 2 and 3: private Kruskal and one-pass Kruskal.

**Algorithm 2 (private Kruskal).** C = E, F = {}. Until F spans every component: draw e from C
by the exponential-mechanism step ``P[e] ~ exp(-epsilon0 w_e / (2D))`` (:mod:`.exponential`), add e to
F, and drop from C every edge that now closes a cycle with F. Implemented as in Pagh et al. 2025,
Appendix E:

- a complete binary *sum tree* over the m sampling weights (leaves padded to a power of two
  with weight 0): O(log m) per draw and per removal. **Choice**: the tree stores *log* sums
  (``logaddexp`` of the children, recomputed from the children on every update, never
  subtracted) and a draw descends with one uniform per level, going left with probability
  ``exp(left - node)``; weights up to 1e3 with epsilon0 = 10 (log weights -5000) neither overflow nor
  lose the remaining candidates to underflow;
- union-find with explicit member lists; when two components merge, the vertices of the
  smaller one are scanned and every live edge into the larger one is removed (it now closes a
  cycle). Each vertex is scanned O(log n) times: O(m log n) in total, O(m log m) overall.

Every step is epsilon0-DP; the ``n - c`` steps compose by zCDP (Theorem 3.2, :mod:`.accounting`).

**Algorithm 3 (one-pass Kruskal).** Draw the keys of Algorithm 1, ``w_e - (2D/epsilon0) G_e``, once
and run Kruskal on them. By Theorem 3.5 (PPSACR with One-Shot-PPSACR) Algorithms 1, 2 and 3
have the same output distribution.

A disconnected graph is valid: the output is a spanning forest. Outputs are int64 arrays of
edge indices, sorted, or in selection order with ``return_order=True``.
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.graphs import as_graph_arrays, incidence_lists, kruskal_order, number_of_components
from algorithms.graphs.union_find import kruskal_scan
from algorithms.mst.exponential import gumbel_scale, selection_log_weights

__all__ = [
    "private_kruskal",
    "private_kruskal_batch",
    "one_pass_kruskal",
    "one_pass_kruskal_batch",
    "one_pass_kruskal_keys",
]

_NEG_INF = -np.inf


@numba.njit(cache=True, nogil=True, inline="always")
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a > b:
        return a + np.log1p(np.exp(b - a))
    return b + np.log1p(np.exp(a - b))


@numba.njit(cache=True, nogil=True)
def _build_sum_tree(logw, leaves):
    tree = np.full(2 * leaves, -np.inf)
    for e in range(logw.shape[0]):
        tree[leaves + e] = logw[e]
    for i in range(leaves - 1, 0, -1):
        tree[i] = _logaddexp(tree[2 * i], tree[2 * i + 1])
    return tree


@numba.njit(cache=True, nogil=True)
def _remove_leaf(tree, leaves, e):
    i = leaves + e
    tree[i] = -np.inf
    i //= 2
    while i >= 1:
        tree[i] = _logaddexp(tree[2 * i], tree[2 * i + 1])
        i //= 2


@numba.njit(cache=True, nogil=True)
def _draw_leaf(tree, leaves, rng):
    node = 1
    while node < leaves:
        left = tree[2 * node]
        right = tree[2 * node + 1]
        if left == -np.inf:
            node = 2 * node + 1
        elif right == -np.inf:
            node = 2 * node
        else:
            # P[left] = e^left / (e^left + e^right), evaluated without overflow.
            p_left = 1.0 / (1.0 + np.exp(right - left))
            if rng.random() < p_left:
                node = 2 * node
            else:
                node = 2 * node + 1
    return node - leaves


@numba.njit(cache=True, nogil=True)
def _private_kruskal(n, edges, logw, indptr, nbr, eid, rng):
    m = edges.shape[0]
    leaves = 1
    while leaves < max(m, 1):
        leaves *= 2
    tree = _build_sum_tree(logw, leaves)
    alive = np.ones(m, dtype=np.bool_)
    label = np.arange(n)
    head = np.arange(n)
    tail = np.arange(n)
    nxt = np.full(n, -1, dtype=np.int64)
    csize = np.ones(n, dtype=np.int64)
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    taken = 0
    while tree[1] != -np.inf:
        e = _draw_leaf(tree, leaves, rng)
        alive[e] = False
        _remove_leaf(tree, leaves, e)
        out[taken] = e
        taken += 1
        a = label[edges[e, 0]]
        b = label[edges[e, 1]]
        if csize[a] > csize[b]:
            a, b = b, a
        # a is the smaller component: drop its live edges into b, then relabel a as b.
        x = head[a]
        while x != -1:
            for p in range(indptr[x], indptr[x + 1]):
                f = eid[p]
                if alive[f] and label[nbr[p]] == b:
                    alive[f] = False
                    _remove_leaf(tree, leaves, f)
            x = nxt[x]
        x = head[a]
        while x != -1:
            label[x] = b
            x = nxt[x]
        nxt[tail[b]] = head[a]
        tail[b] = tail[a]
        csize[b] += csize[a]
    return out[:taken]


def private_kruskal(
    data,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    return_order: bool = False,
) -> np.ndarray:
    """Pagh et al. 2025, Algorithm 2 (private Kruskal) with the Appendix E sum tree, O(m log m).

    Parameters
    ----------
    data : networkx.Graph, (n, edges, weights) or GraphArrays
    epsilon0 : float > 0
        Budget of each exponential-mechanism step.
    rng : None, int, SeedSequence or Generator
    sensitivity : float > 0
        D of the l_inf neighbouring relation.
    return_order : bool
        Return the edges in selection order instead of sorted.

    Returns
    -------
    int64 array of edge indices (``n - c`` of them: a spanning forest).

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Algorithm 2 and Appendix E.
    """
    g = as_graph_arrays(data)
    logw = selection_log_weights(g.weights, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    indptr, nbr, eid = incidence_lists(g)
    order = _private_kruskal(g.n, g.edges, logw, indptr, nbr, eid, rng)
    return order if return_order else np.sort(order)


def one_pass_kruskal_keys(data, epsilon0: float, rng=None, *, sensitivity: float = 1.0) -> np.ndarray:
    """Algorithm 3's keys ``w_e - (2D/epsilon0) G_e`` (the same draws as Algorithm 1 for the same rng)."""
    from algorithms.mst.perturbation import gumbel_perturbed_weights

    return gumbel_perturbed_weights(data, epsilon0, rng, sensitivity=sensitivity)


def one_pass_kruskal(
    data,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    return_order: bool = False,
) -> np.ndarray:
    """Pagh et al. 2025, Algorithm 3: Kruskal on keys drawn once (One-Shot-PPSACR for spanning trees).

    Same parameters and output as :func:`private_kruskal`. With the same ``rng`` the keys are
    those of :func:`one_pass_kruskal_keys` and of Algorithm 1 (:func:`.perturbed_mst`).

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Algorithm 3.
    """
    g = as_graph_arrays(data)
    keys = one_pass_kruskal_keys(g, epsilon0, rng, sensitivity=sensitivity)
    order = kruskal_order(g.n, g.edges, np.argsort(keys, kind="stable"))
    return order if return_order else np.sort(order)


@numba.njit(cache=True, nogil=True)
def _private_kruskal_batch(n, edges, logw, indptr, nbr, eid, rng, size, k):
    out = np.empty((size, k), dtype=np.int64)
    for s in range(size):
        out[s] = np.sort(_private_kruskal(n, edges, logw, indptr, nbr, eid, rng))
    return out


def private_kruskal_batch(data, epsilon0: float, size: int, rng=None, *, sensitivity: float = 1.0) -> np.ndarray:
    """``size`` independent runs of :func:`private_kruskal` as a ``(size, n - c)`` array (rows sorted).

    Same draws as ``size`` successive calls of :func:`private_kruskal` with one Generator.
    """
    g = as_graph_arrays(data)
    logw = selection_log_weights(g.weights, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    indptr, nbr, eid = incidence_lists(g)
    k = g.n - number_of_components(g)
    return _private_kruskal_batch(g.n, g.edges, logw, indptr, nbr, eid, rng, int(size), k)


@numba.njit(cache=True, nogil=True)
def _one_pass_kruskal_batch(n, u, v, keys, k):
    size = keys.shape[0]
    out = np.empty((size, k), dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    set_size = np.empty(n, dtype=np.int64)
    for s in range(size):
        order = np.argsort(keys[s], kind="mergesort")
        kruskal_scan(order, u, v, parent, set_size, k, out[s])
        out[s].sort()
    return out


def one_pass_kruskal_batch(data, epsilon0: float, size: int, rng=None, *, sensitivity: float = 1.0) -> np.ndarray:
    """``size`` independent runs of :func:`one_pass_kruskal` as a ``(size, n - c)`` array (rows sorted).

    Keys are drawn as one ``(size, m)`` Gumbel matrix; row ``s`` equals the keys of the
    ``s``-th call of :func:`one_pass_kruskal_keys` with the same Generator.
    """
    g = as_graph_arrays(data)
    beta = gumbel_scale(epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    # w + beta ln E with E iid Exp(1): the form of one_pass_kruskal_keys, row by row
    exps = np.maximum(rng.standard_exponential(size=(int(size), g.m)), np.finfo(np.float64).tiny)
    keys = g.weights[None, :] + beta * np.log(exps)
    k = g.n - number_of_components(g)
    u, v = np.ascontiguousarray(g.edges[:, 0]), np.ascontiguousarray(g.edges[:, 1])
    return _one_pass_kruskal_batch(g.n, u, v, keys, k)
