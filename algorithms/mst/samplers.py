"""Tree samplers for distribution tests: each mechanism of Pagh et al. 2025 as ``sampler(rng) -> tree``.

A sampler (dpverify's contract) is a picklable callable ``sampler(rng)`` returning a hashable
output -- here the sorted tuple of the tree's edge indices (:func:`algorithms.graphs.tree_key`),
the same keys as the exact distributions of :mod:`.exact` -- and optionally
``sample(size, rng)``. :class:`MechanismOnGraph` is the dpverify *mechanism* form
``mechanism(data, rng)`` of the same algorithms.
"""

from __future__ import annotations

import numpy as np

from algorithms.errors import AlgorithmInputError
from algorithms.graphs import as_graph_arrays, tree_key
from algorithms.mst.accounting import spanning_forest_accounting
from algorithms.mst.exponential import selection_log_weights
from algorithms.mst.kruskal import one_pass_kruskal, one_pass_kruskal_batch, private_kruskal, private_kruskal_batch
from algorithms.mst.pamst import pamst_fast, pamst_fast_batch, pamst_naive
from algorithms.mst.perturbation import GumbelPerturbationMechanism, batched_perturbed_trees, perturbed_mst
from algorithms.mst.ppsacr import GraphicRemovalRule, one_shot_ppsacr, ppsacr

__all__ = ["ALGORITHMS", "tree_of", "TreeSampler", "MechanismOnGraph"]

#: Names accepted by :func:`tree_of` / :class:`TreeSampler`.
ALGORITHMS = (
    "algorithm1",  # batched numba sampler of Algorithm 1
    "algorithm1-scipy",
    "algorithm1-networkx",
    "algorithm1-prim",
    "algorithm2",
    "algorithm3",
    "ppsacr",
    "one-shot-ppsacr",
    "pamst-naive",
    "pamst-fast",
)


def tree_of(algorithm: str, data, epsilon0: float, rng, *, sensitivity: float = 1.0) -> tuple:
    """One tree (sorted tuple) drawn by the named algorithm."""
    g = as_graph_arrays(data)
    if algorithm == "algorithm1":
        return GumbelPerturbationMechanism(epsilon0, sensitivity=sensitivity)(g, rng)
    if algorithm.startswith("algorithm1-"):
        return tree_key(perturbed_mst(g, epsilon0, rng, sensitivity=sensitivity, backend=algorithm.split("-", 1)[1]))
    if algorithm == "algorithm2":
        return tree_key(private_kruskal(g, epsilon0, rng, sensitivity=sensitivity))
    if algorithm == "algorithm3":
        return tree_key(one_pass_kruskal(g, epsilon0, rng, sensitivity=sensitivity))
    if algorithm in ("ppsacr", "one-shot-ppsacr"):
        fn = ppsacr if algorithm == "ppsacr" else one_shot_ppsacr
        q = selection_log_weights(g.weights, epsilon0, sensitivity)
        return tree_key(fn(q, g.n - 1, GraphicRemovalRule(g), rng))
    if algorithm == "pamst-naive":
        return tree_key(pamst_naive(g, epsilon0, rng, sensitivity=sensitivity))
    if algorithm == "pamst-fast":
        return tree_key(pamst_fast(g, epsilon0, rng, sensitivity=sensitivity))
    raise AlgorithmInputError(f"unknown algorithm {algorithm!r}; choose one of {ALGORITHMS}")


def _rows_as_tuples(rows: np.ndarray) -> list:
    """Rows of a 2-D int array as tuples of Python ints (zip over columns: fast)."""
    if rows.shape[1] == 0:
        return [()] * rows.shape[0]
    return list(zip(*rows.T.tolist()))


_BATCHED = {
    "algorithm1": batched_perturbed_trees,
    "algorithm2": private_kruskal_batch,
    "algorithm3": one_pass_kruskal_batch,
    "pamst-fast": pamst_fast_batch,
}


class TreeSampler:
    """``sampler(rng) -> tree`` for one algorithm on one fixed graph (dpverify sampler)."""

    def __init__(self, algorithm: str, data, epsilon0: float, *, sensitivity: float = 1.0):
        if algorithm not in ALGORITHMS:
            raise AlgorithmInputError(f"unknown algorithm {algorithm!r}; choose one of {ALGORITHMS}")
        self.algorithm = algorithm
        self.graph = as_graph_arrays(data)
        self.epsilon0 = float(epsilon0)
        self.sensitivity = float(sensitivity)

    def __repr__(self) -> str:
        return f"TreeSampler({self.algorithm!r}, n={self.graph.n}, m={self.graph.m}, epsilon0={self.epsilon0})"

    def __call__(self, rng=None) -> tuple:
        return tree_of(self.algorithm, self.graph, self.epsilon0, rng, sensitivity=self.sensitivity)

    def sample(self, size: int, rng=None) -> list:
        """``size`` trees; batched (numba) for algorithm1/2/3 and pamst-fast, a loop otherwise."""
        rng = np.random.default_rng(rng)
        batch = _BATCHED.get(self.algorithm)
        if batch is None:
            return [self(rng) for _ in range(int(size))]
        rows = batch(self.graph, self.epsilon0, int(size), rng, sensitivity=self.sensitivity)
        return _rows_as_tuples(rows)


class MechanismOnGraph:
    """``mechanism(data, rng) -> tree`` (dpverify mechanism) for a named algorithm."""

    def __init__(self, algorithm: str, epsilon0: float, *, sensitivity: float = 1.0):
        if algorithm not in ALGORITHMS:
            raise AlgorithmInputError(f"unknown algorithm {algorithm!r}; choose one of {ALGORITHMS}")
        self.algorithm = algorithm
        self.epsilon0 = float(epsilon0)
        self.sensitivity = float(sensitivity)

    def __call__(self, data, rng=None) -> tuple:
        return tree_of(self.algorithm, data, self.epsilon0, rng, sensitivity=self.sensitivity)

    def sample(self, data, size: int, rng=None) -> list:
        """``size`` trees on ``data`` (:meth:`TreeSampler.sample`: batched where a batched sampler exists)."""
        return TreeSampler(self.algorithm, data, self.epsilon0, sensitivity=self.sensitivity).sample(size, rng)

    def privacy_accounting(self, data, delta: float, *, conversion: str = "generic"):
        """:func:`algorithms.mst.accounting.spanning_forest_accounting` on ``data``'s topology."""
        return spanning_forest_accounting(
            data, self.epsilon0, delta, conversion=conversion, sensitivity=self.sensitivity
        )
