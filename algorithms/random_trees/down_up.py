"""The down-up random walk on spanning trees (DP-RST, Definition 3.2 / Algorithm 2).

DP-RST (Definition 3.2, after Anari, Liu, Oveis Gharan and Vinzant 2019) defines, for a
distribution mu on k-subsets, the Markov chain

1. drop one element of S_t uniformly at random, leaving T_t (k - 1 elements);
2. S_{t+1} = T_t + {e} with e chosen with probability proportional to mu(T_t + {e}).

For spanning trees mu(S) = prod_{e in S} w(e) when S is a spanning tree and 0 otherwise, and
k = n - 1. After dropping edge f the forest T_t has two components; T_t + {e} is a tree exactly
when e crosses the cut, and mu(T_t + {e}) = mu(T_t) w(e), so step 2 picks a crossing edge with
probability proportional to its weight (f itself included: a lazy step).

- :func:`down_up_transition_matrix` -- the exact transition matrix over all trees of positive
  weight (small graphs, by enumeration);
- :func:`down_up_spectral_gap` -- 1 - (second largest eigenvalue); Anari et al. (2019) prove
  the gap is at least 1/k for every matroid (spanning trees included) with any product weights;
- :func:`down_up_mixing_time` -- the exact number of steps until the worst start is within
  total variation ``tolerance`` of mu, and the bound k (ln(1/mu_min) + ln(1/tolerance)) that
  the gap and the standard spectral argument give;
- :func:`down_up_spanning_trees` -- a numba sampler running the walk for ``steps`` steps,
  O(n + m) per step (component labelling of the tree minus f, then a scan of the edges).

Trees are sorted tuples of edge indices, as everywhere in :mod:`algorithms.random_trees`.
Edges of weight 0 are never added (mu(T + e) = 0).

References
----------
Anonymous. "Differentially Private Random Spanning Tree Generation." Manuscript, 2025
(DP-RST), Definition 3.2, Algorithm 2, Definition 3.3, Section 6.

N. Anari, K. Liu, S. Oveis Gharan, C. Vinzant. "Log-Concave Polynomials II: High-Dimensional
Walks and an FPRAS for Counting Bases of a Matroid." STOC 2019.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from algorithms.graphs import incidence_lists
from algorithms.random_trees.exact import enumerate_spanning_trees, exact_tree_distribution, total_variation
from algorithms.random_trees.samplers import (
    _prepare,
    as_weighted_graph,
    canonical_tree,
    check_usable_edges_span,
    run_tree_chains,
    validate_tree_weights,
)

__all__ = [
    "down_up_transition_matrix",
    "down_up_spectral_gap",
    "down_up_mixing_time",
    "down_up_total_variation",
    "down_up_spanning_trees",
    "DownUpSampler",
]


def _components_without(n, edges, tree, f):
    """Label vertices by component of the forest ``tree - {f}`` (0 or 1); vertex of edge f's first end is 0."""
    adj = [[] for _ in range(n)]
    for e in tree:
        if e != f:
            a, b = int(edges[e, 0]), int(edges[e, 1])
            adj[a].append(b)
            adj[b].append(a)
    side = [1] * n
    stack = [int(edges[f, 0])]
    side[stack[0]] = 0
    while stack:
        u = stack.pop()
        for v in adj[u]:
            if side[v]:
                side[v] = 0
                stack.append(v)
    return side


def down_up_transition_matrix(graph, weights=None):
    """Exact transition matrix of the down-up walk (DP-RST, Algorithm 2) on the trees of positive weight.

    Returns
    -------
    trees : list of tuple
        The state space, lexicographic order.
    matrix : ndarray (len(trees), len(trees))
        Row-stochastic; ``matrix[i, j]`` = sum over the dropped edge f of
        (1 / (n - 1)) w(e) / sum_{crossing g} w(g), for the edge e with trees[j] = trees[i] - f + e.
    """
    topo = as_weighted_graph(graph)
    w = validate_tree_weights(topo.weights if weights is None else weights, topo.m)
    check_usable_edges_span(topo, w)
    trees = [t for t in enumerate_spanning_trees(topo) if all(w[e] > 0 for e in t)]
    index = {t: i for i, t in enumerate(trees)}
    k = topo.n - 1
    matrix = np.zeros((len(trees), len(trees)))
    for i, tree in enumerate(trees):
        for f in tree:
            side = _components_without(topo.n, topo.edges, tree, f)
            crossing = [
                e for e in range(topo.m) if w[e] > 0 and side[int(topo.edges[e, 0])] != side[int(topo.edges[e, 1])]
            ]
            total = sum(w[e] for e in crossing)
            rest = set(tree) - {f}
            for e in crossing:
                matrix[i, index[tuple(sorted(rest | {e}))]] += w[e] / total / k
    return trees, matrix


def _target_vector(topo, weights, trees):
    target = exact_tree_distribution(topo, weights)
    return np.array([target.get(t, 0.0) for t in trees])


def down_up_spectral_gap(graph, weights=None) -> float:
    """1 - lambda_2 of the down-up walk (its eigenvalues are real and in [0, 1]: it is reversible and PSD).

    Computed from the symmetrised matrix D^{1/2} P D^{-1/2} (D = diag(mu)).
    """
    topo = as_weighted_graph(graph)
    trees, matrix = down_up_transition_matrix(topo, weights)
    if len(trees) == 1:
        return 1.0
    pi = _target_vector(topo, weights, trees)
    s = np.sqrt(pi)
    sym = s[:, None] * matrix / s[None, :]
    eig = np.sort(np.linalg.eigvalsh(0.5 * (sym + sym.T)))
    return float(1.0 - eig[-2])


def down_up_total_variation(graph, weights=None, *, steps: int, initial=None) -> np.ndarray:
    """Exact total variation to mu after 0..steps steps.

    ``initial`` is a start tree; None gives the *worst* start: entry t is the maximum over all
    start trees of the distance after t steps.
    """
    topo = as_weighted_graph(graph)
    trees, matrix = down_up_transition_matrix(topo, weights)
    pi = _target_vector(topo, weights, trees)
    if initial is None:
        dist = np.eye(len(trees))
    else:
        dist = np.zeros((1, len(trees)))
        dist[0, trees.index(canonical_tree(initial))] = 1.0
    out = []
    for _ in range(int(steps) + 1):
        out.append(max(total_variation(row, pi) for row in dist))
        dist = dist @ matrix
    return np.array(out)


def down_up_mixing_time(graph, weights=None, *, tolerance: float = 0.25, max_steps: int = 10_000):
    """Exact worst-start mixing time and the spectral bound for it.

    Returns
    -------
    (steps, bound) : (int, float)
        ``steps``: the smallest t with max over start trees of TV(P^t(T, .), mu) <= tolerance.
        ``bound``: ln(1 / (tolerance mu_min)) / gap with the exact gap, the standard bound for a
        reversible chain (Levin, Peres and Wilmer, Theorem 12.4); with gap >= 1/(n-1) it is at
        most (n - 1) ln(1 / (tolerance mu_min)).
    """
    topo = as_weighted_graph(graph)
    trees, matrix = down_up_transition_matrix(topo, weights)
    pi = _target_vector(topo, weights, trees)
    dist = np.eye(len(trees))
    steps = None
    for t in range(int(max_steps) + 1):
        if max(total_variation(row, pi) for row in dist) <= tolerance:
            steps = t
            break
        dist = dist @ matrix
    if steps is None:
        raise ValueError(f"not within {tolerance} after {max_steps} steps")
    gap = down_up_spectral_gap(topo, weights)
    return steps, math.log(1.0 / (tolerance * pi.min())) / gap


# ----------------------------------------------------------------------------- sampler


@njit(cache=True)
def _down_up_batch(n, m, eu, ev, weights, indptr, nbr, eid, initial, steps, seed):
    """Run the down-up walk ``steps`` times from each initial tree (rows of ``initial``)."""
    np.random.seed(seed)
    size = initial.shape[0]
    k = n - 1
    out = np.empty((size, k), dtype=np.int64)
    in_tree = np.zeros(m, dtype=np.bool_)
    side = np.zeros(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    mark = 1
    for r in range(size):
        tree = initial[r].copy()
        in_tree[:] = False
        for i in range(k):
            in_tree[tree[i]] = True
        for _ in range(steps):
            i = np.random.randint(0, k)
            f = tree[i]
            in_tree[f] = False
            # label the component of eu[f] in the forest tree - f
            mark += 1
            top = 0
            stack[0] = eu[f]
            side[eu[f]] = mark
            top = 1
            while top > 0:
                top -= 1
                u = stack[top]
                for j in range(indptr[u], indptr[u + 1]):
                    e = eid[j]
                    if in_tree[e]:
                        v = nbr[j]
                        if side[v] != mark:
                            side[v] = mark
                            stack[top] = v
                            top += 1
            total = 0.0
            for e in range(m):
                if weights[e] > 0 and (side[eu[e]] == mark) != (side[ev[e]] == mark):
                    total += weights[e]
            x = np.random.random() * total
            acc = 0.0
            chosen = f
            for e in range(m):
                if weights[e] > 0 and (side[eu[e]] == mark) != (side[ev[e]] == mark):
                    acc += weights[e]
                    chosen = e
                    if acc > x:
                        break
            tree[i] = chosen
            in_tree[chosen] = True
        out[r] = tree
    return out


def down_up_spanning_trees(graph, weights=None, *, steps: int, size: int = 1, initial=None, rng=None) -> np.ndarray:
    """Run the down-up walk (DP-RST, Algorithm 2) for ``steps`` steps from ``size`` start trees.

    Parameters
    ----------
    graph : networkx.Graph, (n, edges, weights) or GraphArrays
    weights : array_like of shape (m,), optional
        Sampling weights (finite, >= 0; 0 marks an unusable edge).
    steps : int
        Number of down-up steps, >= 0.
    size : int
        Number of independent walks.
    initial : array_like of shape (n - 1,) or (size, n - 1), optional
        Start trees (usable edge indices). Default: uniform spanning trees of the usable graph
        (Aldous-Broder), as for the exchange chain.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    ndarray of int64, shape (size, n - 1), rows sorted.
    """
    return run_tree_chains(_down_up_batch, _all_edges_adjacency, graph, weights, steps, size, initial, rng)


def _all_edges_adjacency(topo, w):
    """``(indptr, nbr, eid)`` over every edge (the down-up walk's adjacency)."""
    indptr, nbr, local = incidence_lists(topo)
    return indptr, nbr, np.ascontiguousarray(local, dtype=np.int64)


class DownUpSampler:
    """The down-up walk with a fixed number of steps as a dpverify sampler."""

    def __init__(self, graph, weights=None, *, steps: int, initial=None):
        self.topology, self.weights = _prepare(graph, weights)
        self.steps = int(steps)
        self.initial = initial

    def _draw(self, size, rng):
        return down_up_spanning_trees(
            self.topology, self.weights, steps=self.steps, size=size, initial=self.initial, rng=rng
        )

    def __call__(self, rng=None):
        return canonical_tree(self._draw(1, rng)[0])

    def sample(self, size, rng=None):
        return [tuple(row) for row in self._draw(size, rng).tolist()]
