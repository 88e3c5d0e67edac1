"""Private spanning trees as dpverify mechanisms of the edge weights, and their neighbouring weights.

Edge privacy (Sealfon 2016; Pagh et al. 2025, Section 2): the topology is public and
neighbouring weight vectors differ by at most ``D`` on every edge (l_inf). A search audit
(:func:`dpverify.search_audit`) proposes weight vectors, not graphs, so
:class:`TreeOfWeights` fixes the topology and takes the weight tuple as its input, and
:func:`weight_neighbours` lists the candidate pairs: the ``2^m`` sign patterns
``w -> w + D s``, ``s in {-1, +1}^m`` (the vertices of the l_inf ball, where the worst
pair of a small graph lies, see :func:`algorithms.mst.exact.worst_case_tree_loss`) around
the given weights, then the fixed pairs of :func:`dpverify.neighbours.graph_weights`
(l_inf moves of every edge on increasing, equal and decreasing weights).

References
----------
.. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
   Trees via Input Perturbation", 2025. Algorithm 1 and Fact 2.7.
.. [2] A. Sealfon, "Shortest Paths and Distances with Differential Privacy", PODS 2016.
"""

from __future__ import annotations

import itertools

import numpy as np

from algorithms.graphs import as_graph_arrays
from dpverify.neighbours import graph_weights

__all__ = ["TreeOfWeights", "weight_neighbours", "PrivatizedWeightBits", "privatized_bits_loss"]


class TreeOfWeights:
    """``weights -> mechanism((n, edges, weights))`` on a fixed topology, as a dpverify mechanism.

    Parameters
    ----------
    mechanism : tree mechanism
        ``sample(data, size, rng)`` on anything :func:`algorithms.graphs.as_graph_arrays` accepts
        (e.g. :class:`~algorithms.mst.perturbation.GumbelPerturbationMechanism`).
    graph : graph data
        Its vertex count and edge list are the fixed topology.
    """

    def __init__(self, mechanism, graph):
        g = as_graph_arrays(graph)
        self.mechanism = mechanism
        self.n = int(g.n)
        self.edges = np.asarray(g.edges)

    def _data(self, weights):
        return (self.n, self.edges, np.asarray(weights, dtype=np.float64))

    def sample(self, weights, size, rng=None):
        return self.mechanism.sample(self._data(weights), size, rng)

    def __call__(self, weights, rng=None):
        return self.sample(weights, 1, rng)[0]


def weight_neighbours(graph, sensitivity: float = 1.0) -> list:
    """Candidate pairs of weight tuples: sign patterns around ``graph``'s weights, then l_inf moves.

    Returns
    -------
    list of (tuple, tuple)
        ``(w, w + D s)`` for every ``s in {-1, +1}^m`` (``m <= 10``), then the fixed pairs of
        ``dpverify.neighbours.graph_weights(edges, D, "linf")``.
    """
    g = as_graph_arrays(graph)
    if g.m > 10:
        raise ValueError(f"2^m sign patterns for m = {g.m} edges: at most 10 edges")
    w = np.asarray(g.weights, dtype=np.float64)
    pairs = [
        (tuple(w.tolist()), tuple((w + sensitivity * np.array(s)).tolist()))
        for s in itertools.product((-1.0, 1.0), repeat=g.m)
    ]
    edges = [tuple(int(v) for v in e) for e in np.asarray(g.edges)]
    return pairs + graph_weights(edges, sensitivity, "linf").fixed_pairs()


class PrivatizedWeightBits:
    """Sealfon's Laplace input privatization, its noisy weights post-processed into per-edge bits.

    ``weights -> [w~_e >= threshold_e]_e`` with ``w~`` the noisy weights that
    :func:`~algorithms.mst.privatization.laplace_privatized_mst` releases
    (``return_noisy_weights=True``), one call per sample. ``threshold`` is fixed and
    the same for every input, so this is a post-processing of the privatization and
    its loss is at most the privatization's; :func:`privatized_bits_loss` gives it
    exactly. With ``threshold = w + D`` and the pair ``(w, w + D s)`` the event "every
    bit is 1" has log ratio ``m D / b = epsilon`` (each noisy weight sits in a Laplace
    tail on both inputs), the privatization's whole budget.

    Parameters
    ----------
    epsilon : float
        The privatization's budget (Laplace scale ``m D / epsilon`` per edge, l_inf).
    graph : graph data
        Its vertex count and edge list are the fixed topology.
    threshold : array_like
        One threshold per edge.
    sensitivity : float, default 1
    """

    def __init__(self, epsilon: float, graph, threshold, sensitivity: float = 1.0):
        g = as_graph_arrays(graph)
        self.epsilon, self.sensitivity = float(epsilon), float(sensitivity)
        self.n, self.edges = int(g.n), np.asarray(g.edges)
        self.threshold = np.asarray(threshold, dtype=np.float64)

    def sample(self, weights, size, rng=None):
        from .privatization import laplace_privatized_mst

        rng = np.random.default_rng(rng)
        data = (self.n, self.edges, np.asarray(weights, dtype=np.float64))
        noisy = np.array(
            [
                laplace_privatized_mst(
                    data, self.epsilon, rng, sensitivity=self.sensitivity, return_noisy_weights=True, backend="prim"
                )[1]
                for _ in range(int(size))
            ]
        ).reshape(int(size), len(self.edges))
        return (noisy >= self.threshold).astype(np.int64)

    def __call__(self, weights, rng=None):
        return self.sample(weights, 1, rng)[0]


def privatized_bits_loss(weights, weights_prime, threshold, scale: float) -> float:
    """Exact loss of :class:`PrivatizedWeightBits` on one pair: independent bits, ``P[bit_e = 1] =
    P[Lap(scale) >= threshold_e - w_e]``, so the largest log ratio of an output is the sum over
    edges of each bit's larger log ratio, in the worse direction."""
    from scipy import stats

    p = stats.laplace.sf(np.asarray(threshold) - np.asarray(weights, dtype=float), scale=scale)
    q = stats.laplace.sf(np.asarray(threshold) - np.asarray(weights_prime, dtype=float), scale=scale)
    up = np.maximum(np.log(p / q), np.log((1 - p) / (1 - q))).sum()
    down = np.maximum(np.log(q / p), np.log((1 - q) / (1 - p))).sum()
    return float(max(up, down))
