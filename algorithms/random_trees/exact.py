"""Exact distributions on small graphs: spanning trees, the exchange chain, the DP-RST pipeline.

Everything here enumerates: the spanning trees (all (n-1)-subsets of edges that
are acyclic), the normalizer sum_T prod w(e) (checked against the matrix-tree
theorem), the exchange chain's transition matrix on the tree space (DP-RST 2025,
Algorithm 3), and the output distribution of the whole DP-RST pipeline (DP-RST 2025,
Algorithm 4 with an exact sampler) by summing over every noisy weight vector.
Intended for graphs with at most ~10 edges and ``l <= 3`` bits.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from algorithms.graphs import GraphArrays
from algorithms.graphs.union_find import kruskal_scan
from algorithms.random_trees import bits as _bits
from algorithms.random_trees.samplers import (
    NO_SPANNING_TREE,
    as_weighted_graph,
    check_usable_edges_span,
    validate_tree_weights,
)

__all__ = [
    "MAX_ENUMERATED_SUBSETS",
    "MAX_NOISY_VECTORS",
    "enumerate_spanning_trees",
    "tree_incidence",
    "matrix_tree_total_weight",
    "spanning_tree_count",
    "bareiss_determinant",
    "tree_weight_products",
    "exact_tree_distribution",
    "chain_transition_matrix",
    "chain_distributions",
    "chain_total_variation",
    "steps_for_total_variation",
    "dp_rst_conditional_distributions",
    "exact_dp_rst_distribution",
    "exact_dp_rst_pair",
    "total_variation",
    "Theorem53Evaluation",
    "theorem_5_3_bound",
    "evaluate_theorem_5_3",
]

#: Largest number of (n-1)-edge subsets :func:`enumerate_spanning_trees` will scan.
MAX_ENUMERATED_SUBSETS = 2_000_000
#: Largest number of noisy weight vectors the pipeline enumeration will sum over.
MAX_NOISY_VECTORS = 2**22
_CHUNK_ENTRIES = 2**21  # floats per chunk of tree products


def enumerate_spanning_trees(graph) -> list[tuple[int, ...]]:
    """All spanning trees of the topology, as sorted tuples of edge indices, in lexicographic order.

    Scans the (n-1)-subsets of edges with a union-find acyclicity check.

    Raises
    ------
    ValueError
        If more than :data:`MAX_ENUMERATED_SUBSETS` subsets would be scanned.
    """
    topo = as_weighted_graph(graph)
    n, m = topo.n, topo.m
    if m < n - 1:
        return []
    if math.comb(m, n - 1) > MAX_ENUMERATED_SUBSETS:
        raise ValueError(
            f"enumerating C({m}, {n - 1}) = {math.comb(m, n - 1)} edge subsets is too many "
            f"(limit {MAX_ENUMERATED_SUBSETS}); exact methods are for small graphs"
        )
    # an (n-1)-subset is a spanning tree iff Kruskal's scan of it keeps every edge
    u, v = np.ascontiguousarray(topo.edges[:, 0]), np.ascontiguousarray(topo.edges[:, 1])
    parent, size, kept = (np.empty(n, dtype=np.int64) for _ in range(3))
    return [
        subset
        for subset in itertools.combinations(range(m), n - 1)
        if kruskal_scan(np.array(subset, dtype=np.int64), u, v, parent, size, n - 1, kept) == n - 1
    ]


def tree_incidence(trees, m: int) -> np.ndarray:
    """Boolean matrix ``(len(trees), m)``: entry ``[i, e]`` is whether tree i contains edge e."""
    out = np.zeros((len(trees), m), dtype=bool)
    for i, t in enumerate(trees):
        out[i, list(t)] = True
    return out


def _reduced_laplacian(topo: GraphArrays, weights: np.ndarray) -> np.ndarray:
    lap = np.zeros((topo.n, topo.n), dtype=np.float64)
    u, v = topo.edges[:, 0], topo.edges[:, 1]
    np.add.at(lap, (u, v), -weights)
    np.add.at(lap, (v, u), -weights)
    np.add.at(lap, (u, u), weights)
    np.add.at(lap, (v, v), weights)
    return lap[1:, 1:]


def matrix_tree_total_weight(graph, weights=None) -> float:
    """``sum_T prod_{e in T} w(e)`` by Kirchhoff's matrix-tree theorem (determinant of a reduced Laplacian)."""
    topo = as_weighted_graph(graph)
    w = validate_tree_weights(topo.weights if weights is None else weights, topo.m)
    return float(np.linalg.det(_reduced_laplacian(topo, w)))


def spanning_tree_count(graph) -> int:
    """Exact number of spanning trees: the reduced Laplacian's determinant by fraction-free Bareiss elimination."""
    topo = as_weighted_graph(graph)
    return bareiss_determinant([[int(round(x)) for x in row] for row in _reduced_laplacian(topo, np.ones(topo.m))])


def bareiss_determinant(matrix) -> int:
    """Exact determinant of a square integer matrix (Bareiss fraction-free elimination, Python ints)."""
    a = [list(map(int, row)) for row in matrix]
    n = len(a)
    if n == 0:
        return 1
    sign, previous = 1, 1
    for k in range(n - 1):
        if a[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if a[r][k] != 0), None)
            if swap is None:
                return 0
            a[k], a[swap] = a[swap], a[k]
            sign = -sign
        pivot = a[k][k]
        for i in range(k + 1, n):
            for j in range(k + 1, n):
                a[i][j] = (a[i][j] * pivot - a[i][k] * a[k][j]) // previous
        previous = pivot
    return sign * a[n - 1][n - 1]


def tree_weight_products(incidence: np.ndarray, weight_vectors: np.ndarray) -> np.ndarray:
    """``prod_{e in T} w(e)`` for every weight vector (rows, shape (N, m)) and tree (rows of ``incidence``).

    Returns shape ``(N, n_trees)``. Exact for integer weights below 2^53 in total product.
    """
    w = np.asarray(weight_vectors, dtype=np.float64)
    idx = np.array([np.flatnonzero(row) for row in incidence], dtype=np.int64)  # (n_trees, n-1)
    return np.prod(w[:, idx], axis=2)


def exact_tree_distribution(graph, weights=None) -> dict[tuple[int, ...], float]:
    """Exact ``P[T] = prod_{e in T} w(e) / sum_T' prod w`` over the trees of positive probability.

    Raises
    ------
    NoSpanningTreeError
        If no spanning tree has positive weight (the message names the cut-off vertices).
    """
    topo = as_weighted_graph(graph)
    w = validate_tree_weights(topo.weights if weights is None else weights, topo.m)
    check_usable_edges_span(topo, w)
    trees = enumerate_spanning_trees(topo)
    prods = tree_weight_products(tree_incidence(trees, topo.m), w[None, :])[0]
    total = prods.sum()
    return {t: float(p / total) for t, p in zip(trees, prods) if p > 0}


def _tree_path(topo: GraphArrays, tree: tuple[int, ...], a: int, b: int) -> list[int]:
    adj: dict[int, list[tuple[int, int]]] = {}
    for e in tree:
        u, v = int(topo.edges[e, 0]), int(topo.edges[e, 1])
        adj.setdefault(u, []).append((v, e))
        adj.setdefault(v, []).append((u, e))
    parent = {a: (None, None)}
    stack = [a]
    while stack:
        u = stack.pop()
        for v, e in adj.get(u, []):
            if v not in parent:
                parent[v] = (u, e)
                stack.append(v)
    path = []
    u = b
    while u != a:
        u, e = parent[u]
        path.append(e)
    return path


def chain_transition_matrix(graph, weights=None):
    """Exact transition matrix of the paper's exchange chain on the trees of positive weight.

    From T: pick e uniformly among the usable non-tree edges C (|C| = m' - n + 1,
    m' usable edges); drop f from the cycle of T + e with probability
    ``(1/w(f)) / sum_{g in cycle} 1/w(g)`` (DP-RST 2025, Algorithm 3 lines 5-8; see
    :func:`algorithms.random_trees.samplers.exchange_chain_spanning_trees` for the
    choice on usable edges).

    Returns
    -------
    trees : list of tuple
        The state space (usable trees, lexicographic order).
    matrix : ndarray (len(trees), len(trees))
        Row-stochastic transition matrix.
    """
    topo = as_weighted_graph(graph)
    w = validate_tree_weights(topo.weights if weights is None else weights, topo.m)
    check_usable_edges_span(topo, w)
    usable = [e for e in range(topo.m) if w[e] > 0]
    trees = [t for t in enumerate_spanning_trees(topo) if all(w[e] > 0 for e in t)]
    index = {t: i for i, t in enumerate(trees)}
    matrix = np.zeros((len(trees), len(trees)))
    for i, tree in enumerate(trees):
        candidates = [e for e in usable if e not in tree]
        if not candidates:
            matrix[i, i] = 1.0
            continue
        for e in candidates:
            cycle = [e] + _tree_path(topo, tree, int(topo.edges[e, 0]), int(topo.edges[e, 1]))
            inv = np.array([1.0 / w[f] for f in cycle])
            probs = inv / inv.sum() / len(candidates)
            for f, p in zip(cycle, probs):
                new = tuple(sorted((set(tree) | {e}) - {f}))
                matrix[i, index[new]] += p
    return trees, matrix


def total_variation(p: np.ndarray, q: np.ndarray) -> float:
    """``(1/2) sum |p - q|``."""
    return 0.5 * float(np.abs(np.asarray(p) - np.asarray(q)).sum())


def _initial_vector(trees, initial) -> np.ndarray:
    if initial is None:  # the paper's start: a uniform tree of the usable graph
        return np.full(len(trees), 1.0 / len(trees))
    start = tuple(sorted(int(e) for e in initial))
    vec = np.zeros(len(trees))
    vec[trees.index(start)] = 1.0
    return vec


def chain_distributions(graph, weights=None, *, steps: int, initial=None):
    """Exact law of the chain's state after 0..steps steps.

    Returns ``(trees, dists)`` with ``dists`` of shape ``(steps + 1, len(trees))``.
    ``initial`` is a start tree (edge indices) or None for the uniform start.
    """
    trees, matrix = chain_transition_matrix(graph, weights)
    dist = _initial_vector(trees, initial)
    out = [dist]
    for _ in range(int(steps)):
        dist = dist @ matrix
        out.append(dist)
    return trees, np.array(out)


def chain_total_variation(graph, weights=None, *, steps: int, initial=None) -> np.ndarray:
    """Exact total-variation distance to the product measure after 0..steps chain steps."""
    topo = as_weighted_graph(graph)
    trees, dists = chain_distributions(topo, weights, steps=steps, initial=initial)
    target = exact_tree_distribution(topo, weights)
    pi = np.array([target.get(t, 0.0) for t in trees])
    return np.array([total_variation(d, pi) for d in dists])


def steps_for_total_variation(graph, weights=None, *, tolerance: float, initial=None, max_steps: int = 100_000) -> int:
    """Smallest number of chain steps whose exact distance to the target is ``<= tolerance``.

    This is the paper's ``Delta`` stopping rule (Algorithm 3 line 4) made computable
    for small graphs.
    """
    topo = as_weighted_graph(graph)
    trees, matrix = chain_transition_matrix(topo, weights)
    target = exact_tree_distribution(topo, weights)
    pi = np.array([target.get(t, 0.0) for t in trees])
    dist = _initial_vector(trees, initial)
    for s in range(max_steps + 1):
        if total_variation(dist, pi) <= tolerance:
            return s
        dist = dist @ matrix
    raise ValueError(f"distance still above {tolerance} after {max_steps} steps")


def _noisy_value_pmfs(w: np.ndarray, k: int, epsilon0: float) -> np.ndarray:
    """Row e: exact pmf of the noisy weight of edge e over 0..2^l - 1."""
    return np.array([_bits.noisy_weight_pmf(int(x), k, epsilon0) for x in w])


def dp_rst_conditional_distributions(graph, weights=None, *, k, epsilon0, edge: int):
    """Exact law of the DP-RST output given each noisy value of one edge.

    The pipeline (DP-RST 2025, Algorithm 4, with an exact sampler of the product
    measure in place of the approximate chain): noisy weights by bit-level
    randomized response, then T with P[T] proportional to prod w~(e); if the usable
    edges (w~ > 0) do not connect the graph the output is
    :data:`~algorithms.random_trees.samplers.NO_SPANNING_TREE`.

    Returns
    -------
    outcomes : list
        The spanning trees of the topology (lexicographic) followed by ``NO_SPANNING_TREE``.
    table : ndarray (2^l, len(outcomes))
        Row y: the output law given ``w~(edge) = y``, summing over the noisy values
        of all other edges.
    """
    topo = as_weighted_graph(graph)
    w = _bits.validate_integer_weights(topo.weights if weights is None else weights, k)
    if w.size != topo.m:
        raise ValueError(f"weights must have one entry per edge ({topo.m}), got {w.size}")
    epsilon0 = _bits.validate_bit_epsilon(epsilon0)
    l = _bits.bit_count(k)
    base = 2**l
    others = [e for e in range(topo.m) if e != edge]
    n_vectors = base ** len(others)
    if n_vectors * base > MAX_NOISY_VECTORS:
        raise ValueError(
            f"{base}^{topo.m} noisy weight vectors exceed the limit {MAX_NOISY_VECTORS}; "
            "use a smaller graph or fewer bits"
        )
    trees = enumerate_spanning_trees(topo)
    incidence = tree_incidence(trees, topo.m)
    pmfs = _noisy_value_pmfs(w, k, epsilon0)
    # all noisy vectors of the other edges, by mixed radix, in chunks
    table = np.zeros((base, len(trees) + 1))
    powers = base ** np.arange(len(others), dtype=np.int64)
    chunk = max(1, _CHUNK_ENTRIES // max(1, len(trees) * (topo.n - 1)))
    for lo in range(0, n_vectors, chunk):
        codes = np.arange(lo, min(n_vectors, lo + chunk), dtype=np.int64)
        digits = (codes[:, None] // powers) % base  # (N, m - 1)
        log_prob = np.zeros(codes.size)
        for j, e in enumerate(others):
            log_prob += np.log(pmfs[e][digits[:, j]])
        prob = np.exp(log_prob)
        vectors = np.empty((codes.size, topo.m), dtype=np.float64)
        vectors[:, others] = digits
        for y in range(base):
            vectors[:, edge] = y
            prods = tree_weight_products(incidence, vectors)
            z = prods.sum(axis=1)
            ok = z > 0
            table[y, :-1] += (prob[ok, None] * prods[ok] / z[ok, None]).sum(axis=0)
            table[y, -1] += prob[~ok].sum()
    return trees + [NO_SPANNING_TREE], table


def exact_dp_rst_distribution(graph, weights=None, *, k, epsilon0) -> dict:
    """Exact output law of DP-RST: ``{tree or NO_SPANNING_TREE: probability}`` (zero entries dropped)."""
    topo = as_weighted_graph(graph)
    w = _bits.validate_integer_weights(topo.weights if weights is None else weights, k)
    outcomes, table = dp_rst_conditional_distributions(topo, w, k=k, epsilon0=epsilon0, edge=0)
    mix = _bits.noisy_weight_pmf(int(w[0]), k, epsilon0) @ table
    return {o: float(p) for o, p in zip(outcomes, mix) if p > 0}


def exact_dp_rst_pair(graph, weights, neighbour_weights, *, k, epsilon0):
    """Exact output laws of DP-RST on two weight vectors that differ on at most one edge.

    Returns ``(pmf, pmf_neighbour)`` as dicts over the same outcomes (trees and
    ``NO_SPANNING_TREE``, zero entries kept so both dicts share keys), ready for
    ``dpverify.exact_privacy_loss``.
    """
    topo = as_weighted_graph(graph)
    w = _bits.validate_integer_weights(topo.weights if weights is None else weights, k)
    w2 = _bits.validate_integer_weights(neighbour_weights, k)
    diff = np.flatnonzero(w != w2)
    if diff.size > 1:
        raise ValueError(f"the two weight vectors differ on {diff.size} edges; neighbours differ on at most one")
    edge = int(diff[0]) if diff.size else 0
    outcomes, table = dp_rst_conditional_distributions(topo, w, k=k, epsilon0=epsilon0, edge=edge)
    p = _bits.noisy_weight_pmf(int(w[edge]), k, epsilon0) @ table
    q = _bits.noisy_weight_pmf(int(w2[edge]), k, epsilon0) @ table
    return (
        {o: float(x) for o, x in zip(outcomes, p)},
        {o: float(x) for o, x in zip(outcomes, q)},
    )


@dataclass(frozen=True)
class Theorem53Evaluation:
    """DP-RST 2025, Theorem 5.3 (``P[T~ = T*] >= t^(l(|V|-1))``) evaluated exactly under three readings.

    Attributes
    ----------
    bound : float
        ``t^(l (n - 1))``.
    literal : float
        Reading A (Definition 5.1 taken literally): ``T*`` is drawn from the true
        product measure independently of the DP-RST output ``T~``;
        ``P[T~ = T*] = sum_T mu_w(T) P[T~ = T]``.
    min_ratio : float
        Reading B (the proof's "for any fixed tree T"): the smallest
        ``P[T~ = T] / mu_w(T)`` over trees T with ``mu_w(T) > 0``; the statement
        ``P[T~ = T] >= t^(l(n-1)) mu_w(T)`` for every T holds iff ``min_ratio >= bound``.
    min_ratio_tree : tuple
        A tree attaining ``min_ratio``.
    mode_probability : float
        Reading C (T* the most likely tree under the true weights, i.e. the
        maximum-product tree; ties broken lexicographically): ``P[T~ = T_mode]``.
    mode_tree : tuple
    no_tree_probability : float
        ``P[no spanning tree on the usable noisy edges]``.
    """

    bound: float
    literal: float
    min_ratio: float
    min_ratio_tree: tuple
    mode_probability: float
    mode_tree: tuple
    no_tree_probability: float

    #: Relative rounding tolerance of the ``*_holds`` checks (equality cases, e.g. tree
    #: graphs with k = 2, are computed by different float routes on the two sides).
    tolerance = 1e-12

    @property
    def literal_holds(self) -> bool:
        return self.literal >= self.bound * (1 - self.tolerance)

    @property
    def pointwise_holds(self) -> bool:
        return self.min_ratio >= self.bound * (1 - self.tolerance)

    @property
    def mode_holds(self) -> bool:
        return self.mode_probability >= self.bound * (1 - self.tolerance)


def theorem_5_3_bound(k, epsilon0, n: int) -> float:
    """``t^(l (n - 1))`` with ``t = e^epsilon0/(e^epsilon0+1)``, ``l = ceil(log2 k)`` (DP-RST 2025, Theorem 5.3)."""
    return _bits.keep_probability(epsilon0) ** (_bits.bit_count(k) * (int(n) - 1))


def evaluate_theorem_5_3(graph, weights=None, *, k, epsilon0) -> Theorem53Evaluation:
    """Evaluate DP-RST 2025's Theorem 5.3 exactly on a small graph (see :class:`Theorem53Evaluation`).

    The DP-RST output law is :func:`exact_dp_rst_distribution` (exact sampler; the
    "no spanning tree" outcome counts as ``T~ != T`` for every T).
    """
    topo = as_weighted_graph(graph)
    w = _bits.validate_integer_weights(topo.weights if weights is None else weights, k)
    truth = exact_tree_distribution(topo, w.astype(float))
    noisy = exact_dp_rst_distribution(topo, w, k=k, epsilon0=epsilon0)
    literal = sum(p * noisy.get(t, 0.0) for t, p in truth.items())
    ratios = {t: noisy.get(t, 0.0) / p for t, p in truth.items()}
    worst = min(ratios, key=lambda t: (ratios[t], t))
    mode = min(truth, key=lambda t: (-truth[t], t))
    return Theorem53Evaluation(
        bound=theorem_5_3_bound(k, epsilon0, topo.n),
        literal=float(literal),
        min_ratio=float(ratios[worst]),
        min_ratio_tree=worst,
        mode_probability=float(noisy.get(mode, 0.0)),
        mode_tree=mode,
        no_tree_probability=float(noisy.get(NO_SPANNING_TREE, 0.0)),
    )
