"""PAMST (Pinot 2018): private Prim, the baseline of Pagh et al. 2025's experiments.

Prim from a public root (vertex 0): at each of the ``n - 1`` steps the candidates are the edges
crossing the cut (one endpoint reached, one not) and one is selected by the exponential-mechanism
step ``P[e] ~ exp(-epsilon0 w_e / (2D))`` (Pinot 2018). Every step is epsilon0-DP, so
PAMST has the same privacy claim as Algorithm 2; its output distribution differs in general
(already on a triangle).

Two implementations, which must have the same distribution:

- :func:`pamst_naive`: fresh exponential-mechanism draw over the current cut, O(n m);
- :func:`pamst_fast`: O(m log n). A step's draw over the cut is split into the unreached
  endpoint ``v``, chosen with probability ``mass(v) / total`` (``mass(v)`` = sum of ``p_e`` over
  cut edges into ``v``), then the edge into ``v``, chosen proportionally to ``p_e``. The masses
  sit in a sum tree over the vertices, descended with one fresh uniform per level; the edge into
  each vertex is kept by weighted reservoir sampling (M. T. Chao, "A general purpose unequal
  probability sampling plan", Biometrika 1982), which is exact because each edge joins its
  vertex's set once. Both factorisations are exact, so each step has the naive law.

  A mass is stored as the pair (largest log weight in it, log of the sum relative to it), so
  probabilities come from differences of log weights and stay exact at any scale. An earlier
  version used exponential clocks ``t_now + E_e / p_e`` in log space: once
  ``epsilon0 * |w| / (2D)`` reached about 20 on both sides of the weight range, new clocks were
  rounded onto ``t_now`` and ties were broken by edge index, a silently wrong law
  (``properties/mst/test_pamst_stability.py``).

**Choice** for disconnected graphs (not covered by the papers): when the cut is empty and
vertices remain, Prim restarts from the smallest unreached vertex; the output is a spanning
forest with ``n - c`` edges and ``n - c`` steps.
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.errors import InvalidWeightsError
from algorithms.graphs import as_graph_arrays, incidence_lists, number_of_components
from algorithms.mst.exponential import selection_log_weights

__all__ = ["pamst_naive", "pamst_fast", "pamst_fast_batch"]


def _log_weights(g, epsilon0, sensitivity) -> np.ndarray:
    with np.errstate(over="ignore"):
        logw = selection_log_weights(g.weights, epsilon0, sensitivity)
    if not np.isfinite(logw).all():
        i = int(np.flatnonzero(~np.isfinite(logw))[0])
        raise InvalidWeightsError(
            f"PAMST needs finite log sampling weights epsilon0 * w / (2 D); edge {i} with weight "
            f"{g.weights[i]!r} gives {logw[i]!r} at epsilon0 = {epsilon0!r}, D = {sensitivity!r}. "
            "Allowed: |epsilon0 * w / (2 D)| <= 1.7e308 for every edge (rescale the weights or epsilon0)"
        )
    return logw


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

    References
    ----------
    .. [1] R. Pinot, "Minimum spanning tree release under differential privacy constraints", MSc
       thesis, arXiv:1801.06423, 2018.
    .. [2] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Appendix H (PAMST as a baseline).
    """
    g = as_graph_arrays(data)
    logw = _log_weights(g, epsilon0, sensitivity)
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
            # exponential-mechanism step over the cut, fresh randomness: Gumbel-max on log
            # weights shifted so that the largest is 0 (at |log w| ~ 1e16 an unshifted O(1)
            # Gumbel draw would be rounded away and ties broken by position)
            lw = logw[cut]
            e = int(cut[np.argmax((lw - lw.max()) + rng.gumbel(size=cut.size))])
            order.append(e)
            reached[u[e]] = True
            reached[v[e]] = True
    out = np.asarray(order, dtype=np.int64)
    return out if return_order else np.sort(out)


@numba.njit(cache=True, nogil=True, inline="always")
def _combine(h1, s1, h2, s2):
    # A positive mass is a pair (h, s) with mass = s * exp(h): h is the largest log weight in it
    # (an exact double from the input) and s = sum exp(log w - h) lies in [1, m]. Sums are
    # formed from differences of the h's, which are exact or relatively precise, so a tie or a
    # factor 2 between masses near exp(1e17) is as exact as between masses near 1.
    if s1 == 0.0:
        return h2, s2
    if s2 == 0.0:
        return h1, s1
    if h1 >= h2:
        return h1, s1 + s2 * np.exp(h2 - h1)
    return h2, s2 + s1 * np.exp(h1 - h2)


@numba.njit(cache=True, nogil=True)
def _pamst_fast(n, logw, uniforms, indptr, nbr, eid):
    # Each step selects an edge of the cut with probability proportional to p_e = exp(logw[e]).
    # Split into two independent choices: the unreached endpoint v with probability
    # proportional to mass(v) = sum of p_e over cut edges into v, then the edge into v with
    # probability proportional to p_e. The masses live in a sum tree over the vertices (in
    # the (h, s) form of _combine; s = 0 is an empty mass), descended with a fresh uniform per
    # level; the edge into v is kept by weighted reservoir sampling (Chao 1982): an edge
    # entering v's set replaces the kept one with probability p_e / (new mass). Uniforms:
    # uniforms[e] for edge e's reservoir test (each edge enters a set once), then depth per
    # step for the descents.
    m = logw.shape[0]
    size = 1
    depth = 0
    while size < n:
        size *= 2
        depth += 1
    th = np.zeros(2 * size)
    ts = np.zeros(2 * size)
    kept = np.full(n, -1, dtype=np.int64)
    reached = np.zeros(n, dtype=np.bool_)
    stamp = np.zeros(2 * size, dtype=np.int64)
    cur = np.empty(n + 1, dtype=np.int64)
    nxt = np.empty(n + 1, dtype=np.int64)
    tick = 0
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    taken = 0
    for root in range(n):
        if reached[root]:
            continue
        x = root
        while True:
            reached[x] = True
            n_cur = 0
            leaf = size + x
            if ts[leaf] != 0.0:
                ts[leaf] = 0.0
                cur[n_cur] = leaf
                n_cur += 1
            for p in range(indptr[x], indptr[x + 1]):
                v = nbr[p]
                if reached[v]:
                    continue
                e = eid[p]
                leaf = size + v
                if ts[leaf] == 0.0:
                    th[leaf] = logw[e]
                    ts[leaf] = 1.0
                    kept[v] = e
                else:
                    h, s = _combine(th[leaf], ts[leaf], logw[e], 1.0)
                    if uniforms[e] * s < np.exp(logw[e] - h):
                        kept[v] = e
                    th[leaf] = h
                    ts[leaf] = s
                cur[n_cur] = leaf  # a leaf may be listed twice; parents are deduplicated below
                n_cur += 1
            # recompute the changed nodes level by level, each parent once
            for _level in range(depth):
                tick += 1
                n_nxt = 0
                for j in range(n_cur):
                    q = cur[j] // 2
                    if stamp[q] != tick:
                        stamp[q] = tick
                        nxt[n_nxt] = q
                        n_nxt += 1
                for j in range(n_nxt):
                    q = nxt[j]
                    th[q], ts[q] = _combine(th[2 * q], ts[2 * q], th[2 * q + 1], ts[2 * q + 1])
                cur, nxt = nxt, cur
                n_cur = n_nxt
            if ts[1] == 0.0:
                break  # empty cut: this component is spanned
            i = 1
            base = m + taken * depth
            for level in range(depth):
                a = 2 * i
                b = a + 1
                if ts[b] == 0.0:
                    i = a
                elif ts[a] == 0.0:
                    i = b
                else:
                    # P[a] = mass(a) / (mass(a) + mass(b)), from the exact difference of the h's
                    pa = 1.0 / (1.0 + (ts[b] / ts[a]) * np.exp(th[b] - th[a]))
                    i = a if uniforms[base + level] < pa else b
            x = i - size
            out[taken] = kept[x]
            taken += 1
    return out[:taken]


def _uniform_count(g) -> int:
    """Uniforms one run consumes: one per edge (reservoir tests), ``depth`` per step (descents)."""
    depth = max(int(g.n - 1).bit_length(), 0)
    return g.m + max(g.n - 1, 0) * depth


def pamst_fast(
    data,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    return_order: bool = False,
) -> np.ndarray:
    """PAMST with a log-space sum tree over the unreached vertices, O(m log n); same law as :func:`pamst_naive`.

    Each step picks the unreached endpoint with probability proportional to the total sampling
    weight of the cut edges into it, then one of those edges proportionally to its weight
    (kept incrementally by weighted reservoir sampling). Weights are handled as (largest log
    weight, log of the relative sum) pairs, so the step probabilities are accurate whatever
    the scale of ``epsilon0 * |w| / (2D)``. Same parameters and output as :func:`pamst_naive`.

    References
    ----------
    .. [1] R. Pinot, "Minimum spanning tree release under differential privacy constraints", MSc
       thesis, arXiv:1801.06423, 2018.
    .. [2] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Appendix H (PAMST as a baseline).
    """
    g = as_graph_arrays(data)
    logw = _log_weights(g, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    uniforms = rng.random(_uniform_count(g))
    indptr, nbr, eid = incidence_lists(g)
    out = _pamst_fast(g.n, logw, uniforms, indptr, nbr, eid)
    return out if return_order else np.sort(out)


@numba.njit(cache=True, nogil=True)
def _pamst_fast_batch(n, logw, uniforms, indptr, nbr, eid, k):
    size = uniforms.shape[0]
    out = np.empty((size, k), dtype=np.int64)
    for s in range(size):
        out[s] = np.sort(_pamst_fast(n, logw, uniforms[s], indptr, nbr, eid))
    return out


def pamst_fast_batch(data, epsilon0: float, size: int, rng=None, *, sensitivity: float = 1.0) -> np.ndarray:
    """``size`` independent runs of :func:`pamst_fast` as a ``(size, n - c)`` array (rows sorted).

    Row ``s`` uses the ``s``-th row of one ``(size, u)`` uniform matrix, i.e. the same draws as
    ``size`` successive calls of :func:`pamst_fast` with one Generator.
    """
    g = as_graph_arrays(data)
    logw = _log_weights(g, epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    uniforms = rng.random((int(size), _uniform_count(g)))
    indptr, nbr, eid = incidence_lists(g)
    return _pamst_fast_batch(g.n, logw, uniforms, indptr, nbr, eid, g.n - number_of_components(g))
