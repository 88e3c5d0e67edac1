"""DP-RST: differentially private random spanning trees (DP-RST 2025, Algorithm 4).

Pipeline: integer weights ``0 < w(e) < k`` -> ``l = ceil(log2 k)`` bits -> each bit
kept with probability ``e^epsilon0/(e^epsilon0+1)`` -> noisy weights ``w~`` -> a spanning
tree with P[T] proportional to ``prod_{e in T} w~(e)`` (edges with ``w~ = 0`` unusable).

Privacy is carried as data (OpenDP style), for neighbours that change one edge's
weight by at most 1 (DP-RST 2025, Definition 3.5):

- :func:`lemma_4_4_claimed_epsilon` -- the paper's claim (Lemma 4.4):
  ``(epsilon0 * sqrt(8 k ln(1/delta)), delta)``-DP.
- :func:`exact_weight_release_epsilon` -- the exact pure loss of the noisy weight
  release: ``epsilon0`` times the largest Hamming distance between the bit patterns of
  ``w`` and ``w + 1`` with both in ``(0, k)``, which is ``l * epsilon0`` for ``k >= 3``
  (``2^(l-1) - 1 -> 2^(l-1)`` flips all ``l`` bits) and 0 for ``k = 2`` (the only
  allowed weight is 1, so no two inputs are neighbours). The tree release is a
  post-processing of it, so it is at most as large.
"""

from __future__ import annotations

import math

import numpy as np

from algorithms.errors import AlgorithmInputError, InvalidPrivacyParameterError, NoSpanningTreeError
from algorithms.random_trees import _kernels
from algorithms.random_trees import bits as _bits
from algorithms.random_trees.samplers import (
    NO_SPANNING_TREE,
    as_weighted_graph,
    canonical_tree,
    check_usable_edges_span,
    exchange_chain_spanning_trees,
    usable_csr,
)
from dpverify.claims import PrivacyClaim

__all__ = [
    "SAMPLERS",
    "lemma_4_4_claimed_epsilon",
    "max_neighbour_hamming_distance",
    "worst_case_neighbours",
    "exact_weight_release_epsilon",
    "dp_random_spanning_tree",
    "DPRandomSpanningTree",
    "WeightRelease",
    "SingleWeightRelease",
]

#: Tree samplers the pipeline can use for its last step.
SAMPLERS = ("wilson", "aldous-broder", "chain")


#: The neighbouring relation of the DP-RST claims.
NEIGHBOURING = "one edge weight changes by 1 (integer weights in [1, k))"


def lemma_4_4_claimed_epsilon(epsilon0, k, delta) -> float:
    """The paper's claimed epsilon ``epsilon0 * sqrt(8 k ln(1/delta))`` (DP-RST 2025, Lemma 4.4 / A.2).

    **choice**: ``log`` in the paper is the natural logarithm (it comes from the
    advanced-composition Lemma 3.8 of Dwork, Rothblum, Vadhan 2010). Note the paper
    writes ``k`` (the weight bound) where the composition has ``l`` bit mechanisms.

    References
    ----------
    .. [1] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Lemma 4.4.
    """
    epsilon0 = _bits.validate_bit_epsilon(epsilon0)
    k = _bits.validate_weight_bound(k)
    delta = float(delta)
    if not (0.0 < delta < 1.0):
        raise InvalidPrivacyParameterError(f"delta must lie in (0, 1), got {delta}")
    return epsilon0 * math.sqrt(8.0 * k * math.log(1.0 / delta))


def max_neighbour_hamming_distance(k) -> int:
    """Largest number of bits in which ``w`` and ``w + 1`` differ, over ``0 < w < w + 1 < k``.

    ``w = 2^j - 1 -> 2^j`` flips ``j + 1`` bits; the largest such pair inside the
    range has ``j + 1 = l = ceil(log2 k)`` for ``k >= 3``; for ``k = 2`` there is no pair (0).
    """
    k = _bits.validate_weight_bound(k)
    if k == 2:
        return 0
    return _bits.bit_count(k)


def worst_case_neighbours(k) -> tuple[int, int]:
    """The neighbouring weights ``(2^(l-1) - 1, 2^(l-1))`` whose bit patterns differ in all ``l`` bits (``k >= 3``)."""
    k = _bits.validate_weight_bound(k)
    if k == 2:
        raise AlgorithmInputError("with k = 2 the only weight is 1: there are no neighbouring weights")
    top = 2 ** (_bits.bit_count(k) - 1)
    return top - 1, top


def exact_weight_release_epsilon(epsilon0, k) -> float:
    """Exact pure privacy loss of the noisy weight release, ``epsilon0 * max_neighbour_hamming_distance(k)``.

    For neighbours differing on one edge only that edge's noisy weight changes
    law; the likelihood ratio of an output ``y`` is ``e^(epsilon0 (h(w', y) - h(w, y)))``,
    which reaches ``e^(epsilon0 h(w, w'))`` at ``y = w``.
    """
    return _bits.validate_bit_epsilon(epsilon0) * max_neighbour_hamming_distance(k)


def _tree_from_noisy(topo, noisy, sampler, steps, rng, size=1):
    """``size`` trees (sorted int rows) from one noisy weight vector, or None if no tree exists."""
    w = noisy.astype(np.float64)
    try:
        check_usable_edges_span(topo, w)
    except NoSpanningTreeError:
        return None
    seed = int(np.random.default_rng(rng).integers(0, 2**32))
    if sampler == "chain":
        out = exchange_chain_spanning_trees(topo, w, steps=steps, size=size, rng=seed)
    else:
        indptr, nbr, eid, cumw = usable_csr(topo, w)
        kernel = _kernels.wilson_batch if sampler == "wilson" else _kernels.aldous_broder_batch
        out = kernel(topo.n, indptr, nbr, eid, cumw, int(size), seed)
        out.sort(axis=1)
    return out


def _check_sampler(sampler, steps):
    if sampler not in SAMPLERS:
        raise AlgorithmInputError(f"sampler must be one of {SAMPLERS}, got {sampler!r}")
    if sampler == "chain" and (steps is None or int(steps) < 0):
        raise AlgorithmInputError("the 'chain' sampler needs an explicit number of steps >= 0")


def dp_random_spanning_tree(
    graph, weights=None, *, k, epsilon0, sampler="wilson", steps=None, rng=None
) -> tuple[int, ...]:
    """One DP-RST tree (DP-RST 2025, Algorithm 4).

    Parameters
    ----------
    graph : networkx.Graph, (n, edges, weights) or GraphArrays
        The topology (public) and, unless ``weights`` is given, the private weights
        (see :func:`algorithms.graphs.as_graph_arrays`).
    weights : array_like of int, optional
        Private weights replacing the graph's, integers with ``0 < w < k``.
    k : int
        Weight bound, ``>= 2``.
    epsilon0 : float
        Per-bit randomized-response parameter, ``> 0``.
    sampler : {"wilson", "aldous-broder", "chain"}
        The final sampler. **choice**: the default is Wilson's exact sampler; the
        paper's Algorithm 4 uses the exchange chain with a Delta stopping rule,
        available as ``"chain"`` with an explicit ``steps``.
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    tuple of int
        The tree's sorted edge indices.

    Raises
    ------
    NoSpanningTreeError
        When the edges with noisy weight > 0 do not connect the graph (the message
        names the cut-off vertices). This happens with positive probability (e.g. a
        bridge of weight 1 becomes 0 with probability ``(1 - t) t^(l-1)``);
        :class:`DPRandomSpanningTree` returns ``NO_SPANNING_TREE`` instead.

    References
    ----------
    .. [1] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Algorithm 4.
    """
    topo = as_weighted_graph(graph)
    _check_sampler(sampler, steps)
    noise_rng, tree_rng = np.random.default_rng(rng).spawn(2)
    noisy = _bits.perturb_weights(topo.weights if weights is None else weights, k, epsilon0, noise_rng)
    if noisy.size != topo.m:
        raise AlgorithmInputError(f"weights must have one entry per edge ({topo.m}), got {noisy.size}")
    w = noisy.astype(np.float64)
    check_usable_edges_span(topo, w)
    return canonical_tree(_tree_from_noisy(topo, noisy, sampler, steps, tree_rng)[0])


class DPRandomSpanningTree:
    """DP-RST as a dpverify mechanism: ``mechanism(weights, rng)`` -> tree or ``NO_SPANNING_TREE``.

    The topology, ``k``, ``epsilon0`` and the sampler are public parameters; the data
    is the weight vector. ``sample(weights, size, rng)`` draws ``size`` noisy weight
    vectors at once and runs the sampler once per distinct noisy vector (with the
    number of trees that vector needs), which is much faster on small graphs.
    """

    def __init__(self, graph, *, k, epsilon0, sampler="wilson", steps=None):
        self.topology = as_weighted_graph(graph)
        self.k = _bits.validate_weight_bound(k)
        self.epsilon0 = _bits.validate_bit_epsilon(epsilon0)
        _check_sampler(sampler, steps)
        self.sampler = sampler
        self.steps = None if steps is None else int(steps)

    def claimed_privacy(self, delta) -> PrivacyClaim:
        """The paper's claim (Lemma 4.4) for this ``k`` and ``epsilon0``."""
        return PrivacyClaim(
            lemma_4_4_claimed_epsilon(self.epsilon0, self.k, delta),
            float(delta),
            neighbouring=NEIGHBOURING,
            source="DP-RST 2025, Lemma 4.4",
        )

    def exact_weight_release_privacy(self) -> PrivacyClaim:
        """The exact pure loss of the noisy weights (an upper bound for the tree release)."""
        return PrivacyClaim(
            exact_weight_release_epsilon(self.epsilon0, self.k),
            neighbouring=NEIGHBOURING,
            source="exact loss of the bit-level randomized response",
        )

    def __call__(self, weights, rng=None):
        return self.sample(weights, 1, rng)[0]

    def sample(self, weights, size, rng=None) -> list:
        noise_rng, tree_rng = np.random.default_rng(rng).spawn(2)
        noisy = _bits.perturb_weights_batch(weights, self.k, self.epsilon0, int(size), noise_rng)
        if noisy.shape[1] != self.topology.m:
            raise AlgorithmInputError(f"weights must have one entry per edge ({self.topology.m}), got {noisy.shape[1]}")
        if self.sampler != "chain":
            return self._sample_exact(noisy, tree_rng)
        unique, inverse, counts = np.unique(noisy, axis=0, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        seeds = tree_rng.integers(0, 2**32, size=unique.shape[0])
        out: list = [None] * int(size)
        for j in range(unique.shape[0]):
            trees = _tree_from_noisy(
                self.topology, unique[j], self.sampler, self.steps, int(seeds[j]), size=int(counts[j])
            )
            positions = np.flatnonzero(inverse == j)
            if trees is None:
                for p in positions:
                    out[p] = NO_SPANNING_TREE
            else:
                for p, row in zip(positions, trees.tolist()):
                    out[p] = tuple(row)
        return out

    def _sample_exact(self, noisy, rng) -> list:
        """Wilson / Aldous-Broder for every noisy vector in one numba call."""
        topo = self.topology
        if not hasattr(self, "_csr"):
            self._csr = usable_csr(topo, np.ones(topo.m))
        indptr, nbr, eid, _ = self._csr
        trees, ok = _kernels.trees_for_weight_rows(
            topo.n,
            indptr,
            nbr,
            eid,
            topo.edges[:, 0].copy(),
            topo.edges[:, 1].copy(),
            noisy.astype(np.float64),
            self.sampler == "wilson",
            int(rng.integers(0, 2**32)),
        )
        trees.sort(axis=1)
        return [tuple(row) if good else NO_SPANNING_TREE for row, good in zip(trees.tolist(), ok.tolist())]


class WeightRelease:
    """The noisy weight vector of DP-RST as a mechanism: ``mechanism(weights, rng)`` -> tuple of ints."""

    def __init__(self, *, k, epsilon0):
        self.k = _bits.validate_weight_bound(k)
        self.epsilon0 = _bits.validate_bit_epsilon(epsilon0)

    def __call__(self, weights, rng=None):
        return tuple(int(x) for x in _bits.perturb_weights(weights, self.k, self.epsilon0, rng))

    def sample(self, weights, size, rng=None) -> list:
        arr = _bits.perturb_weights_batch(weights, self.k, self.epsilon0, int(size), rng)
        return [tuple(row) for row in arr.tolist()]


class SingleWeightRelease:
    """The noisy weight of one edge: ``mechanism(w, rng)`` -> int in ``[0, 2^l)``."""

    def __init__(self, *, k, epsilon0):
        self.k = _bits.validate_weight_bound(k)
        self.epsilon0 = _bits.validate_bit_epsilon(epsilon0)

    def __call__(self, w, rng=None):
        return int(_bits.perturb_weights([w], self.k, self.epsilon0, rng)[0])

    def sample(self, w, size, rng=None) -> list:
        return _bits.perturb_weights_batch([w], self.k, self.epsilon0, int(size), rng)[:, 0].tolist()
