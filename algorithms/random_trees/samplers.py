"""Weighted random spanning tree samplers: P[T] proportional to prod_{e in T} w(e).

DP-RST 2025 (Section 3.2, Algorithms 1 and 3) samples its final tree from the
product measure of the noisy weights. Three samplers:

- :func:`wilson_spanning_trees` -- Wilson's algorithm (loop-erased random walks
  with steps proportional to the weights), exact for the weighted product measure;
  numba on CSR arrays.
- :func:`aldous_broder_spanning_trees` -- the first-entrance tree of a random walk
  (DP-RST 2025, Algorithm 1 / Definition 3.1): uniform for unit weights, and the same
  product measure for weighted walks.
- :func:`exchange_chain_spanning_trees` -- the add-an-edge / drop-from-the-cycle
  chain of DP-RST 2025, Algorithm 3 lines 5-8, run for an explicit number of steps.

Trees are canonical hashable values: the sorted tuple of edge indices
(:func:`canonical_tree`). Edges of weight 0 are *unusable*; if the usable edges do
not connect the graph, :class:`~algorithms.errors.NoSpanningTreeError` names the
vertices cut off.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from algorithms.errors import InvalidWeightsError, NoSpanningTreeError
from algorithms.graphs import GraphArrays, as_graph_arrays, incidence_lists, tree_key
from algorithms.random_trees import _kernels

__all__ = [
    "NO_SPANNING_TREE",
    "canonical_tree",
    "validate_tree_weights",
    "as_weighted_graph",
    "usable_csr",
    "check_usable_edges_span",
    "wilson_spanning_trees",
    "wilson_spanning_tree",
    "aldous_broder_spanning_trees",
    "exchange_chain_spanning_trees",
    "WilsonSampler",
    "AldousBroderSampler",
    "ExchangeChainSampler",
]

#: The output of the mechanism form of DP-RST when no spanning tree exists on the
#: usable edges: the empty edge set (a spanning tree of n >= 2 vertices is never empty).
NO_SPANNING_TREE: tuple = ()

_SEED_BOUND = 2**32  # numba seeds its Mersenne Twister with a 32-bit integer


#: The canonical hashable form of a tree: its edge indices as a sorted tuple of ints
#: (:func:`algorithms.graphs.tree_key`).
canonical_tree = tree_key


def validate_tree_weights(weights, m: int) -> np.ndarray:
    """Sampling weights as a float64 array of length ``m``: finite and ``>= 0`` (0 = unusable edge)."""
    arr = np.asarray(weights)
    if arr.shape != (m,):
        raise InvalidWeightsError(f"weights must have shape ({m},) (one per edge), got {arr.shape}")
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.number) or np.iscomplexobj(arr):
        raise InvalidWeightsError(f"weights must be real numbers >= 0, got dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidWeightsError(
            f"sampling weights must be finite and >= 0 (0 marks an unusable edge); edge {i} has weight {arr[i]!r}"
        )
    return arr


def check_usable_edges_span(topo: GraphArrays, weights: np.ndarray) -> None:
    """Raise :class:`NoSpanningTreeError` unless the edges of positive weight connect all vertices.

    The message names the vertices outside the component of vertex 0 (at most 20
    of them, then a count).
    """
    usable = weights > 0
    u = topo.edges[usable, 0]
    v = topo.edges[usable, 1]
    adj = sp.coo_matrix((np.ones(u.size), (u, v)), shape=(topo.n, topo.n)).tocsr()
    n_comp, labels = connected_components(adj, directed=False)
    if n_comp > 1:
        cut = np.flatnonzero(labels != labels[0])
        shown = ", ".join(str(int(x)) for x in cut[:20])
        more = f" and {cut.size - 20} more" if cut.size > 20 else ""
        raise NoSpanningTreeError(
            f"no spanning tree on the usable edges (weight > 0): {n_comp} components; "
            f"vertices cut off from vertex 0: [{shown}]{more} "
            f"({int(usable.sum())} of {topo.m} edges usable)"
        )


def usable_csr(topo: GraphArrays, weights: np.ndarray):
    """CSR adjacency over the usable edges: ``(indptr, nbr, eid, cumw)`` for the numba kernels.

    ``cumw`` holds running sums of the weights within each row, so a walk step
    from u picks a neighbour with probability proportional to the edge weight.
    """
    usable = np.flatnonzero(weights > 0)
    indptr, nbr, local = incidence_lists(topo.n, topo.edges[usable])  # counting sort by vertex
    ids = usable[local].astype(np.int64)
    cumw = _kernels.row_running_sums(indptr, np.ascontiguousarray(weights[ids], dtype=np.float64))
    return indptr, nbr, ids, cumw


def _seed(rng) -> int:
    return int(np.random.default_rng(rng).integers(0, _SEED_BOUND))


def as_weighted_graph(graph) -> GraphArrays:
    """Validated graph arrays (:func:`algorithms.graphs.as_graph_arrays`); networkx edges without a
    ``weight`` attribute weigh 1 (networkx's convention for uniform spanning trees)."""
    return as_graph_arrays(graph, default_weight=1.0)


def _prepare(graph, weights):
    topo = as_weighted_graph(graph)
    w = validate_tree_weights(topo.weights if weights is None else weights, topo.m)
    check_usable_edges_span(topo, w)
    return topo, w


def wilson_spanning_trees(graph, weights=None, *, size: int = 1, rng=None) -> np.ndarray:
    """Draw ``size`` spanning trees with P[T] proportional to prod w(e), by Wilson's algorithm.

    Parameters
    ----------
    graph : networkx.Graph, (n, edges, weights) or GraphArrays
        Validated by :func:`algorithms.graphs.as_graph_arrays` (edge i is the i-th
        edge of ``G.edges``; networkx edges without ``weight`` weigh 1).
    weights : array_like of shape (m,), optional
        Sampling weights replacing the graph's own; finite and ``>= 0``, 0 makes an
        edge unusable.
    size : int
        Number of independent trees.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    ndarray of int64, shape (size, n - 1)
        Each row is a tree's sorted edge indices.

    Notes
    -----
    Wilson (1996): add vertices one by one by a loop-erased random walk that stops
    at the current tree (rooted at vertex 0); a step from u goes to v with
    probability w(uv) / sum_x w(ux). For an undirected graph the output law is the
    weighted product measure for every root. Expected time is the mean hitting
    time of the root, O(m) on typical graphs. Used by DP-RST 2025 as the exact sampler
    its Algorithm 4 approximates.

    Raises
    ------
    NoSpanningTreeError
        If the edges of positive weight do not connect the graph.

    References
    ----------
    .. [1] D. B. Wilson, "Generating random spanning trees more quickly than the cover time", STOC
       1996.
    .. [2] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Section 3.2.
    """
    topo, w = _prepare(graph, weights)
    indptr, nbr, eid, cumw = usable_csr(topo, w)
    out = _kernels.wilson_batch(topo.n, indptr, nbr, eid, cumw, int(size), _seed(rng))
    out.sort(axis=1)
    return out


def wilson_spanning_tree(graph, weights=None, *, rng=None) -> tuple[int, ...]:
    """One tree by :func:`wilson_spanning_trees`, as a canonical sorted tuple of edge indices."""
    return canonical_tree(wilson_spanning_trees(graph, weights, size=1, rng=rng)[0])


def aldous_broder_spanning_trees(graph, weights=None, *, size: int = 1, rng=None) -> np.ndarray:
    """Draw ``size`` trees by the Aldous-Broder walk (DP-RST 2025, Algorithm 1 / Definition 3.1).

    The walk starts at a uniform random vertex and records the edge through which
    it first enters each vertex. With ``weights=None`` (the paper's setting) the tree
    is uniform; with weights the walk steps proportionally to them and the tree
    follows the same product measure as Wilson's algorithm (Broder 1989, Aldous
    1990 for reversible chains). Cover time O(m n) in the worst case.

    Returns
    -------
    ndarray of int64, shape (size, n - 1), rows sorted.

    References
    ----------
    .. [1] A. Z. Broder, "Generating random spanning trees", FOCS 1989; D. J. Aldous, "The random
       walk construction of uniform spanning trees and uniform labelled trees", SIAM J. Discrete
       Math. 3(4), 1990.
    .. [2] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Algorithm 1, Definition 3.1.
    """
    topo, w = _prepare(graph, weights)
    indptr, nbr, eid, cumw = usable_csr(topo, w)
    out = _kernels.aldous_broder_batch(topo.n, indptr, nbr, eid, cumw, int(size), _seed(rng))
    out.sort(axis=1)
    return out


def exchange_chain_spanning_trees(
    graph, weights=None, *, steps: int, size: int = 1, initial=None, rng=None
) -> np.ndarray:
    """Run the paper's add-edge / drop-from-cycle chain for ``steps`` steps (DP-RST 2025, Algorithm 3).

    One step (Algorithm 3 lines 5-8): pick e uniformly among the usable edges not
    in T, add it, and remove f from the cycle of T + e with probability
    proportional to 1 / w(f) (possibly f = e, a lazy step). The chain is reversible
    with respect to P[T] proportional to prod w(e).

    **choice** (two points DP-RST 2025 leaves open). (1) Its stopping rule
    ``while |Pr[T] - mu(T)| > Delta`` cannot be evaluated by a sampler, so the
    number of steps is explicit; :func:`algorithms.random_trees.exact.chain_total_variation`
    gives the exact distance to the target for small graphs. (2) Candidates are the
    *usable* non-tree edges (weight > 0), and the uniform start tree (Algorithm 3
    line 2) is drawn on the usable edges: an edge of weight 0 has 1/w = inf and
    would be dropped at once, so including it only adds lazy steps, and a start
    tree with a weight-0 edge has target probability 0.

    Parameters
    ----------
    steps : int
        Number of exchange steps, ``>= 0``.
    size : int
        Number of independent chains.
    initial : array_like of shape (n - 1,) or (size, n - 1), optional
        Start trees (edge indices of usable edges). Default: uniform spanning trees
        of the usable graph by Aldous-Broder (the paper's ``UNIFORMLYRST(G)``).

    Returns
    -------
    ndarray of int64, shape (size, n - 1), rows sorted.

    References
    ----------
    .. [1] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Algorithm 3.
    """
    return run_tree_chains(_kernels.exchange_chain_batch, _usable_adjacency, graph, weights, steps, size, initial, rng)


def _usable_adjacency(topo: GraphArrays, w: np.ndarray):
    """``(indptr, nbr, eid)`` over the usable edges (the exchange chain's adjacency)."""
    indptr, nbr, eid, _ = usable_csr(topo, w)
    return indptr, nbr, eid


def run_tree_chains(kernel, adjacency, graph, weights, steps, size: int, initial, rng) -> np.ndarray:
    """Run ``size`` Markov chains on spanning trees for ``steps`` steps each; rows of the result sorted.

    The start trees come from :func:`initial_trees` (a stream spawned first from ``rng``), the
    chains' own randomness from a second one. ``kernel(n, m, eu, ev, w, indptr, nbr, eid,
    initial, steps, seed)`` runs the chains (the exchange chain of DP-RST 2025, Algorithm 3, or
    the down-up walk) on the adjacency ``adjacency(topo, w) -> (indptr, nbr, eid)``.
    """
    topo, w = _prepare(graph, weights)
    steps = int(steps)
    if steps < 0:
        raise ValueError(f"steps must be >= 0, got {steps}")
    rng = np.random.default_rng(rng)
    start_rng, chain_rng = rng.spawn(2)
    initial = initial_trees(topo, w, initial, size, start_rng)
    indptr, nbr, eid = adjacency(topo, w)
    eu, ev = topo.edges[:, 0].copy(), topo.edges[:, 1].copy()
    out = kernel(topo.n, topo.m, eu, ev, w, indptr, nbr, eid, np.ascontiguousarray(initial), steps, _seed(chain_rng))
    out.sort(axis=1)
    return out


def initial_trees(topo: GraphArrays, w: np.ndarray, initial, size: int, rng) -> np.ndarray:
    """Start trees of ``size`` Markov chains: given ones (checked), or Aldous-Broder trees.

    ``initial`` is None (uniform spanning trees of the usable graph, drawn from
    ``rng``), one tree (repeated ``size`` times) or one tree per chain, as
    usable edge indices.
    """
    if initial is None:
        return aldous_broder_spanning_trees(topo, (w > 0).astype(float), size=size, rng=rng)
    initial = np.atleast_2d(np.asarray(initial, dtype=np.int64))
    if initial.shape[1] != topo.n - 1:
        raise ValueError(f"initial trees must have n - 1 = {topo.n - 1} edges, got {initial.shape[1]}")
    for row in np.unique(initial, axis=0):
        _check_is_usable_tree(topo, w, row)
    if initial.shape[0] == 1:
        initial = np.repeat(initial, size, axis=0)
    return initial


def _check_is_usable_tree(topo: GraphArrays, w: np.ndarray, edge_ids) -> None:
    ids = np.asarray(edge_ids, dtype=np.int64)
    if ids.min() < 0 or ids.max() >= topo.m or np.unique(ids).size != ids.size:
        raise ValueError(f"initial tree has invalid or repeated edge indices: {ids.tolist()}")
    if np.any(w[ids] <= 0):
        raise ValueError("initial tree uses an edge of weight 0")
    adj = sp.coo_matrix((np.ones(ids.size), (topo.edges[ids, 0], topo.edges[ids, 1])), shape=(topo.n, topo.n))
    if connected_components(adj, directed=False)[0] != 1:
        raise ValueError(f"initial edges {ids.tolist()} do not form a spanning tree")


class _TreeSampler:
    """A dpverify *sampler*: ``sampler(rng)`` one canonical tree; ``sample(size, rng)`` a list."""

    def __init__(self, graph, weights=None):
        self.topology = as_weighted_graph(graph)
        self.weights = validate_tree_weights(self.topology.weights if weights is None else weights, self.topology.m)
        check_usable_edges_span(self.topology, self.weights)

    def _draw(self, size, rng):  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, rng=None):
        return canonical_tree(self._draw(1, rng)[0])

    def sample(self, size, rng=None):
        return [tuple(row) for row in self._draw(size, rng).tolist()]


class WilsonSampler(_TreeSampler):
    """Wilson's algorithm as a dpverify sampler (see :func:`wilson_spanning_trees`)."""

    def _draw(self, size, rng):
        return wilson_spanning_trees(self.topology, self.weights, size=size, rng=rng)


class AldousBroderSampler(_TreeSampler):
    """The Aldous-Broder walk as a dpverify sampler (see :func:`aldous_broder_spanning_trees`)."""

    def _draw(self, size, rng):
        return aldous_broder_spanning_trees(self.topology, self.weights, size=size, rng=rng)


class ExchangeChainSampler(_TreeSampler):
    """The paper's exchange chain with a fixed number of steps as a dpverify sampler."""

    def __init__(self, graph, weights=None, *, steps: int, initial=None):
        super().__init__(graph, weights)
        self.steps = int(steps)
        self.initial = initial

    def _draw(self, size, rng):
        return exchange_chain_spanning_trees(
            self.topology, self.weights, steps=self.steps, size=size, initial=self.initial, rng=rng
        )
