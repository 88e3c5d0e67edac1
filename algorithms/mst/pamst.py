"""PAMST (Pinot 2018): private Prim, the baseline of seed 004's experiments.

Prim from a public root (vertex 0): at each of the ``n - 1`` steps the candidates are the edges
crossing the cut (one endpoint reached, one not) and one is selected by the exponential-mechanism
step ``P[e] ~ exp(-eps0 w_e / (2D))`` (notes/algorithms.md section 1). Every step is eps0-DP, so
PAMST has the same privacy claim as Algorithm 2; its output distribution differs in general
(already on a triangle).

Two implementations, which must have the same distribution:

- :func:`pamst_naive`: fresh exponential-mechanism draw over the current cut, O(n m);
- :func:`pamst_fast`: *exponential clocks* (a derivation in the notes, not from the papers; it is
  verified against the naive form by a distribution-equality test). A candidate edge gets a clock
  ``key = t_now + E_e / p_e`` when it enters the cut, ``t_now`` being the key of the last
  selected edge (0 at the start); the smallest live key wins. By memorylessness each step is
  then a draw proportional to ``p_e`` over the cut, independent of the past. Keys are kept in
  log space: ``log key = logaddexp(log t_now, ln E_e - ln p_e)``. A binary heap gives
  O(m log m).

**Choice** for disconnected graphs (not covered by the papers): when the cut is empty and
vertices remain, Prim restarts from the smallest unreached vertex; the output is a spanning
forest with ``n - c`` edges and ``n - c`` steps.
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.graphs import _heap_pop as _pop
from algorithms.graphs import _heap_push as _push
from algorithms.graphs import as_graph_arrays, incidence_lists, number_of_components
from algorithms.mst.exponential import selection_log_weights

__all__ = ["pamst_naive", "pamst_fast", "pamst_fast_batch"]


def pamst_naive(
    data,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    return_order: bool = False,
) -> np.ndarray:
    """PAMST with a fresh exponential-mechanism step over the cut at every step, O(n m).

    Parameters
    ----------
    data : networkx.Graph, (n, edges, weights) or GraphArrays
    epsilon0 : float > 0
    rng : None, int, SeedSequence or Generator
    sensitivity : float > 0
    return_order : bool
        Return edges in selection order instead of sorted.

    Returns
    -------
    int64 array of edge indices (a spanning forest; a spanning tree if connected).
    """
    g = as_graph_arrays(data)
    logw = selection_log_weights(g.weights, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    reached = np.zeros(g.n, dtype=bool)
    order: list[int] = []
    u, v = g.edges[:, 0], g.edges[:, 1]
    for root in range(g.n):
        if reached[root]:
            continue
        reached[root] = True
        while True:
            cut = np.flatnonzero(reached[u] != reached[v])
            if cut.size == 0:
                break
            # exponential-mechanism step over the cut, fresh randomness: Gumbel-max on log weights
            e = int(cut[np.argmax(logw[cut] + rng.gumbel(size=cut.size))])
            order.append(e)
            reached[u[e]] = True
            reached[v[e]] = True
    out = np.asarray(order, dtype=np.int64)
    return out if return_order else np.sort(out)


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
def _pamst_fast(n, clock_offsets, indptr, nbr, eid):
    # clock_offsets[e] = ln E_e - ln p_e: edge e's clock, started when it enters the cut at
    # log time log_t, rings at logaddexp(log_t, clock_offsets[e]). Only the earliest clock
    # into each unreached vertex can ring first there, so we keep one best key per vertex
    # (best_key, best_edge) and a lazy heap of (key, vertex) entries pushed on improvement.
    # The selected edge is the smallest live clock over the whole cut, as with one heap
    # entry per edge, in O(m + (pushes) log n).
    reached = np.zeros(n, dtype=np.bool_)
    best_key = np.full(n, np.inf)
    best_edge = np.full(n, -1, dtype=np.int64)
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    taken = 0
    cap = indptr[n] + 1
    hkey = np.empty(cap, dtype=np.float64)
    hedge = np.empty(cap, dtype=np.int64)  # the edge that set the key (ties in keys broken by it)
    hvert = np.empty(cap, dtype=np.int64)
    for root in range(n):
        if reached[root]:
            continue
        reached[root] = True
        log_t = -np.inf
        size = 0
        x = root
        while True:
            for p in range(indptr[x], indptr[x + 1]):
                v = nbr[p]
                if reached[v]:
                    continue
                e = eid[p]
                c = clock_offsets[e]
                if c >= best_key[v]:
                    continue  # key >= max(log_t, c) >= best: no improvement (cheap test)
                key = _logaddexp(log_t, c)
                if key < best_key[v]:
                    best_key[v] = key
                    best_edge[v] = e
                    size = _push(hkey, hedge, hvert, size, key, e, v)
            found = False
            while size > 0:
                key, e, v, size = _pop(hkey, hedge, hvert, size)
                if reached[v] or best_edge[v] != e:
                    continue  # stale entry
                found = True
                break
            if not found:
                break
            reached[v] = True
            out[taken] = best_edge[v]
            taken += 1
            log_t = best_key[v]
            x = v
    return out[:taken]



def pamst_fast(
    data,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    return_order: bool = False,
) -> np.ndarray:
    """PAMST by exponential clocks in log space with a heap, O(m log m); same output as :func:`pamst_naive`.

    Each edge receives a clock when it first enters the cut (when its first endpoint is
    reached); its clock is kept until it is selected or leaves the cut. Only the earliest clock
    into each unreached vertex matters, so one key per vertex is kept (lazy heap of vertices). Same parameters and
    output as :func:`pamst_naive`.
    """
    g = as_graph_arrays(data)
    logw = selection_log_weights(g.weights, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    # One Exp(1) per edge: an edge's clock is started at most once, so drawing them upfront
    # (indexed by edge) gives the same joint law as drawing each when its edge enters the cut.
    clock_offsets = np.log(rng.standard_exponential(size=g.m)) - logw
    indptr, nbr, eid = incidence_lists(g.n, g.edges)
    out = _pamst_fast(g.n, clock_offsets, indptr, nbr, eid)
    return out if return_order else np.sort(out)



@numba.njit(cache=True, nogil=True)
def _pamst_fast_batch(n, clock_offsets, indptr, nbr, eid, k):
    size = clock_offsets.shape[0]
    out = np.empty((size, k), dtype=np.int64)
    for s in range(size):
        out[s] = np.sort(_pamst_fast(n, clock_offsets[s], indptr, nbr, eid))
    return out


def pamst_fast_batch(data, epsilon0: float, size: int, rng=None, *, sensitivity: float = 1.0) -> np.ndarray:
    """``size`` independent runs of :func:`pamst_fast` as a ``(size, n - c)`` array (rows sorted).

    Row ``s`` uses the ``s``-th row of one ``(size, m)`` Exp(1) matrix, i.e. the same draws as
    ``size`` successive calls of :func:`pamst_fast` with one Generator.
    """
    g = as_graph_arrays(data)
    logw = selection_log_weights(g.weights, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    offsets = np.log(rng.standard_exponential(size=(int(size), g.m))) - logw[None, :]
    indptr, nbr, eid = incidence_lists(g.n, g.edges)
    return _pamst_fast_batch(g.n, offsets, indptr, nbr, eid, g.n - number_of_components(g))
