"""Exact output distributions and exact privacy losses of the private spanning-tree mechanisms.

On small graphs the output distribution is computable exactly, which beats any sampled check:

- :func:`exact_tree_distribution` -- the common distribution of Algorithms 1, 2, 3 and
  One-Shot-PPSACR (Pagh et al. 2025, Theorem 3.5): PPSACR with sizes ``exp(-epsilon0 w / (2D))`` and the
  graphic removal rule, computed by dynamic programming over the forests reached (the candidate
  set after a selection depends only on the selected *set*), vectorized over many weight
  vectors at once;
- :func:`exact_pamst_distribution` -- PAMST's distribution (Prim from vertex 0 with the
  exponential-mechanism step over the cut), by the same kind of dynamic programme;
- :func:`exact_step_distribution` -- one exponential-mechanism step.

Privacy: Pagh et al. 2025 uses the l_inf neighbouring relation ``max_e |w_e - w'_e| <= D``. The
*sign-pattern neighbours* ``w + D s``, ``s in {-1, +1}^m`` (the vertices of the l_inf ball), are
searched exhaustively by :func:`worst_case_step_loss` and :func:`worst_case_tree_loss`.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy.special import logsumexp

from algorithms.graphs import as_graph_arrays, number_of_components
from algorithms.graphs.union_find import component_roots
from algorithms.mst.exponential import selection_log_weights

__all__ = [
    "sign_patterns",
    "exact_step_distribution",
    "exact_tree_distribution",
    "exact_tree_distributions",
    "exact_pamst_distribution",
    "exact_pamst_distributions",
    "StepLoss",
    "worst_case_step_loss",
    "TreeLoss",
    "worst_case_tree_loss",
]

MAX_SIGN_PATTERN_EDGES = 16


def sign_patterns(m: int) -> np.ndarray:
    """All ``2**m`` vectors in ``{-1, +1}^m`` as a float array of shape ``(2**m, m)``."""
    if m > MAX_SIGN_PATTERN_EDGES:
        raise ValueError(f"sign-pattern search is exhaustive; m = {m} > {MAX_SIGN_PATTERN_EDGES} edges is too many")
    return np.array(list(itertools.product((-1.0, 1.0), repeat=m))).reshape(2**m, m)


def exact_step_distribution(weights, candidates, epsilon0: float, sensitivity: float = 1.0) -> dict:
    """``{edge index: probability}`` of one exponential-mechanism step over ``candidates``."""
    cand = np.asarray(candidates, dtype=np.int64)
    logw = selection_log_weights(np.asarray(weights, dtype=np.float64)[cand], epsilon0, sensitivity)
    p = np.exp(logw - logsumexp(logw))
    return {int(e): float(q) for e, q in zip(cand, p)}


def _components_mask(n: int, edges: np.ndarray, mask: int) -> np.ndarray:
    # the component root of every vertex in the forest of the edges in ``mask``
    return component_roots(n, edges[:, 0], edges[:, 1], np.array(_mask_to_key(mask), dtype=np.int64))


def _mask_to_key(mask: int) -> tuple:
    out = []
    e = 0
    while mask:
        if mask & 1:
            out.append(e)
        mask >>= 1
        e += 1
    return tuple(out)


def exact_tree_distributions(data, weight_matrix, epsilon0: float, sensitivity: float = 1.0):
    """Exact tree distributions of Algorithms 1/2/3 for many weight vectors on one topology.

    Parameters
    ----------
    data : graph (topology; its weights are ignored)
    weight_matrix : array of shape (P, m)
        One weight vector per row.
    epsilon0, sensitivity : float

    Returns
    -------
    trees : list of sorted tuples (edge indices), the support
    probs : float array of shape (P, len(trees)); rows sum to 1
    """
    g = as_graph_arrays(data)
    W = np.atleast_2d(np.asarray(weight_matrix, dtype=np.float64))
    logp = selection_log_weights(W, epsilon0, sensitivity)  # (P, m)
    k = g.n - number_of_components(g)
    states = {0: np.ones(W.shape[0])}
    for _ in range(k):
        nxt: dict = {}
        for mask, pr in states.items():
            roots = _components_mask(g.n, g.edges, mask)
            cand = np.flatnonzero(roots[g.edges[:, 0]] != roots[g.edges[:, 1]])
            lp = logp[:, cand]
            step = np.exp(lp - logsumexp(lp, axis=1, keepdims=True))  # (P, |cand|)
            for j, e in enumerate(cand):
                key = mask | (1 << int(e))
                add = pr * step[:, j]
                if key in nxt:
                    nxt[key] = nxt[key] + add
                else:
                    nxt[key] = add
        states = nxt
    masks = sorted(states)
    trees = [_mask_to_key(mk) for mk in masks]
    probs = np.stack([states[mk] for mk in masks], axis=1) if masks else np.ones((W.shape[0], 1))
    if not masks:
        trees = [()]
    return trees, probs


def exact_tree_distribution(data, epsilon0: float, sensitivity: float = 1.0, weights=None) -> dict:
    """``{tree (sorted tuple of edge indices): probability}`` of Algorithms 1, 2, 3 (Pagh et al. 2025, Thm 3.5)."""
    return _distribution_at_one_weighting(exact_tree_distributions, data, epsilon0, sensitivity, weights)


def _distribution_at_one_weighting(distributions, data, epsilon0, sensitivity, weights) -> dict:
    """``{tree: probability}`` from ``distributions(g, weight_matrix, epsilon0, sensitivity)`` at one weighting.

    ``weights`` None means the graph's own weights.
    """
    g = as_graph_arrays(data)
    w = g.weights if weights is None else np.asarray(weights, dtype=np.float64)
    trees, probs = distributions(g, w[None, :], epsilon0, sensitivity)
    return {t: float(p) for t, p in zip(trees, probs[0])}


def exact_pamst_distributions(data, weight_matrix, epsilon0: float, sensitivity: float = 1.0):
    """Exact PAMST tree distributions (Prim from vertex 0, restarts at the smallest unreached vertex).

    Same inputs and outputs as :func:`exact_tree_distributions`.
    """
    g = as_graph_arrays(data)
    W = np.atleast_2d(np.asarray(weight_matrix, dtype=np.float64))
    logp = selection_log_weights(W, epsilon0, sensitivity)
    u, v = g.edges[:, 0], g.edges[:, 1]
    full = (1 << g.n) - 1
    # state: (edge mask, reached-vertex mask)
    states = {(0, 1): np.ones(W.shape[0])}
    final: dict = {}
    while states:
        nxt: dict = {}
        for (mask, reached), pr in states.items():
            r = np.array([(reached >> x) & 1 for x in range(g.n)], dtype=bool)
            cut = np.flatnonzero(r[u] != r[v])
            while cut.size == 0 and reached != full:
                first = int(np.flatnonzero(~r)[0])
                reached |= 1 << first
                r[first] = True
                cut = np.flatnonzero(r[u] != r[v])
            if cut.size == 0:
                final[mask] = final[mask] + pr if mask in final else pr
                continue
            lp = logp[:, cut]
            step = np.exp(lp - logsumexp(lp, axis=1, keepdims=True))
            for j, e in enumerate(cut):
                e = int(e)
                key = (mask | (1 << e), reached | (1 << int(u[e])) | (1 << int(v[e])))
                add = pr * step[:, j]
                nxt[key] = nxt[key] + add if key in nxt else add
        states = nxt
    masks = sorted(final)
    trees = [_mask_to_key(mk) for mk in masks]
    probs = np.stack([final[mk] for mk in masks], axis=1)
    return trees, probs


def exact_pamst_distribution(data, epsilon0: float, sensitivity: float = 1.0, weights=None) -> dict:
    """``{tree: probability}`` of PAMST (:mod:`.pamst`)."""
    return _distribution_at_one_weighting(exact_pamst_distributions, data, epsilon0, sensitivity, weights)


@dataclass(frozen=True)
class StepLoss:
    """Worst exact loss of one exponential-mechanism step over sign-pattern neighbours.

    ``loss`` = max over patterns s and candidates e of ``|ln P_w(e) - ln P_{w + D s}(e)|``;
    ``pattern`` and ``edge`` attain it.
    """

    loss: float
    epsilon0: float
    pattern: tuple
    edge: int


def worst_case_step_loss(data, epsilon0: float, sensitivity: float = 1.0, candidates=None) -> StepLoss:
    """Exact worst-case loss of one step (Pagh et al. 2025, Fact 2.7 says <= epsilon0), all sign patterns searched."""
    g = as_graph_arrays(data)
    cand = np.arange(g.m) if candidates is None else np.asarray(candidates, dtype=np.int64)
    S = sign_patterns(cand.size)
    base = selection_log_weights(g.weights[cand], epsilon0, sensitivity)
    lp = base - logsumexp(base)
    shifted = selection_log_weights(g.weights[cand][None, :] + sensitivity * S, epsilon0, sensitivity)
    lq = shifted - logsumexp(shifted, axis=1, keepdims=True)
    diff = np.abs(lq - lp[None, :])
    i, j = np.unravel_index(np.argmax(diff), diff.shape)
    return StepLoss(float(diff[i, j]), float(epsilon0), tuple(int(s) for s in S[i]), int(cand[j]))


@dataclass(frozen=True)
class TreeLoss:
    """Exact privacy loss of the whole output tree, worst case over sign-pattern neighbours.

    Attributes
    ----------
    epsilon : float
        max over patterns of the exact (pure) loss ``max |ln p(T) / q(T)|``.
    pattern_for_epsilon : tuple
        The sign pattern attaining it.
    delta_at : dict
        ``{eps: max over patterns of delta(eps)}`` for the requested eps values (hockey-stick
        divergence, both directions).
    epsilon_for_delta : dict
        ``{delta: max over patterns of the smallest eps with delta(eps) <= delta}``.
    basic_composition : float
        ``steps * epsilon0`` (pure bound by basic composition).
    steps : int
    """

    epsilon: float
    pattern_for_epsilon: tuple
    delta_at: dict
    epsilon_for_delta: dict
    basic_composition: float
    steps: int


def _hockey_stick(p: np.ndarray, q: np.ndarray, eps: float) -> np.ndarray:
    """max over both directions of sum max(0, p - e^eps q), rowwise."""
    a = np.maximum(0.0, p - np.exp(eps) * q).sum(axis=-1)
    b = np.maximum(0.0, q - np.exp(eps) * p).sum(axis=-1)
    return np.maximum(a, b)


def _eps_for_delta(p: np.ndarray, Q: np.ndarray, delta: float, hi: float) -> float:
    """max over rows of Q of the smallest eps >= 0 with hockey-stick(eps) <= delta.

    Bisection (hockey-stick divergence is non-increasing in eps), 100 halvings of [0, hi].
    """
    lo = np.zeros(Q.shape[0])
    up = np.full(Q.shape[0], hi)
    done = _hockey_stick(p[None, :], Q, 0.0) <= delta
    up[done] = 0.0
    for _ in range(100):
        mid = 0.5 * (lo + up)
        h = np.maximum(
            np.maximum(0.0, p[None, :] - np.exp(mid)[:, None] * Q).sum(axis=1),
            np.maximum(0.0, Q - np.exp(mid)[:, None] * p[None, :]).sum(axis=1),
        )
        good = h <= delta
        up = np.where(good, mid, up)
        lo = np.where(good, lo, mid)
    return float(up.max())


def worst_case_tree_loss(
    data,
    epsilon0: float,
    sensitivity: float = 1.0,
    *,
    epsilons=(),
    deltas=(),
    mechanism: str = "kruskal",
) -> TreeLoss:
    """Exact loss of the whole tree over all ``2**m`` sign-pattern neighbours ``w + D s``.

    ``mechanism="kruskal"`` (Algorithms 1/2/3) or ``"pamst"``. The exact epsilon is at most the
    basic-composition bound ``(n - c) epsilon0``; the delta(eps) values are to be compared with the
    (eps, delta) claimed by zCDP accounting (:mod:`.accounting`).
    """
    g = as_graph_arrays(data)
    dist = exact_tree_distributions if mechanism == "kruskal" else exact_pamst_distributions
    S = sign_patterns(g.m)
    W = np.vstack([g.weights[None, :], g.weights[None, :] + sensitivity * S])
    trees, probs = dist(g, W, epsilon0, sensitivity)
    p, Q = probs[0], probs[1:]
    with np.errstate(divide="ignore"):
        ratios = np.abs(np.log(Q) - np.log(p)[None, :])
    ratios = np.where((Q == 0) & (p[None, :] == 0), 0.0, ratios)
    per_pattern = ratios.max(axis=1)
    i = int(np.argmax(per_pattern))
    steps = g.n - number_of_components(g)
    delta_at = {float(e): float(_hockey_stick(p[None, :], Q, float(e)).max()) for e in epsilons}
    hi = max(float(per_pattern.max()), 1e-12) + 1.0
    eps_for = {float(d): _eps_for_delta(p, Q, float(d), hi) for d in deltas}
    return TreeLoss(
        epsilon=float(per_pattern[i]),
        pattern_for_epsilon=tuple(int(s) for s in S[i]),
        delta_at=delta_at,
        epsilon_for_delta=eps_for,
        basic_composition=steps * float(epsilon0),
        steps=steps,
    )
