"""The hard instances behind the private-MST lower bound, and the connectivity facts it rests on.

Pagh, Retschmeier, Wu and Zhang, "Optimal Bounds for Private Minimum Spanning Trees via Input
Perturbation" (2025), Section 4 and Appendix F:

- **Definition 4.3 (hard distribution).** The complete graph K_n with m = n(n-1)/2 edges; for each
  edge an unknown mean P_e ~ Beta(b, b), then a data set of N rows whose entry for e is
  Bernoulli(P_e), and w_e = the number of ones, so w_e ~ Binomial(N, P_e). Changing one row moves
  every weight by at most 1, so the rows' neighbouring relation is the l_inf relation with D = 1
  (Definition 4.4). The lower bound is stated for *maximum* spanning trees (negate the weights).
  :func:`hard_instance` draws it.
- **Lemma 4.5.** With high probability there is a spanning tree whose edges all have large
  weight. Its proof: the edges with P_e >= tau form an Erdos-Renyi graph G(n, p) with
  p = P[Beta(b, b) >= tau]; if it is connected it has a spanning tree, and every edge keeps
  w_e >= N tau - t by Hoeffding. :func:`lemma_4_5_threshold` is that chain with explicit
  parameters, and :func:`bottleneck_weight` the largest t for which such a tree exists.
- **Lemma F.1.** G(n, p) with p >= (1 + eps) ln n / n is connected with high probability. Its
  proof bounds the expected number of components of size k by
  C(n, k) k^(k-2) p^(k-1) (1-p)^(k(n-k)) and sums over k <= n/2: :func:`component_union_bound`.
  :func:`gnp_disconnection_probability` is the exact probability (a recurrence over the size of
  the component holding vertex 0), so the constants can be compared with the truth.
- **Lemma 4.1.** An (eps, delta)-DP algorithm A (eps <= 1) gives a (1, delta')-DP algorithm
  A'(G) = A on the weights scaled by k = floor(1/eps), by group privacy over k steps; the error
  of A' is that of A on the scaled graph divided by k: :func:`lemma_4_1_lift`.

The extracted text of the paper lost the formulas of Theorems 1.2 and 4.6, of Lemmas 4.1 and
4.5, of Lemma F.1's "in particular" clause and of Corollary F.5 (their parameters b, N, the
accuracy alpha, the delta range and every explicit constant). What survives is the structure
above; ``properties/mst/test_lower_bounds.py`` checks what that structure allows.
"""

from __future__ import annotations

import decimal
import math

import numpy as np
from scipy import special, stats
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from algorithms.graphs import GraphArrays, as_graph_arrays, minimum_spanning_tree
from algorithms.mst.accounting import check_delta, check_epsilon, epsilon0_from_rho, rho_from_epsilon
from algorithms.mst.kruskal import private_kruskal
from algorithms.mst.pamst import pamst_fast
from algorithms.mst.perturbation import perturbed_mst
from algorithms.mst.privatization import gaussian_privatized_mst

__all__ = [
    "complete_graph_edges",
    "hard_instance",
    "maximum_spanning_tree",
    "bottleneck_weight",
    "PRIVATE_TREE_METHODS",
    "private_maximum_spanning_tree",
    "hard_instance_errors",
    "algorithm1_upper_bound",
    "gnp_disconnection_probability",
    "component_union_bound",
    "simulate_gnp_disconnected",
    "lemma_4_5_threshold",
    "lemma_4_1_lift",
    "lemma_4_1_privacy",
]


def complete_graph_edges(n: int) -> np.ndarray:
    """The ``(m, 2)`` edge array of K_n, rows ``(i, j)`` with ``i < j`` in lexicographic order."""
    i, j = np.triu_indices(int(n), k=1)
    return np.stack([i, j], axis=1).astype(np.int64)


def hard_instance(n: int, rows: int, beta: float = 1.0, rng=None) -> tuple[GraphArrays, np.ndarray]:
    """Draw a graph from the hard distribution (Pagh et al. 2025, Definition 4.3).

    Parameters
    ----------
    n : int >= 2
        Vertices of the complete graph.
    rows : int >= 1
        N, the number of data rows; w_e ~ Binomial(N, P_e).
    beta : float > 0
        Shape of the Beta(beta, beta) prior on the means (the paper's value is lost in the text).
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    graph : GraphArrays on K_n with weights w_e (integers stored as floats)
    means : (m,) array of the P_e
    """
    rng = np.random.default_rng(rng)
    edges = complete_graph_edges(n)
    means = rng.beta(beta, beta, size=edges.shape[0])
    weights = rng.binomial(int(rows), means).astype(np.float64)
    return as_graph_arrays((int(n), edges, weights)), means


def maximum_spanning_tree(graph: GraphArrays) -> np.ndarray:
    """Edge indices of a maximum spanning tree (the minimum spanning tree of the negated weights)."""
    return minimum_spanning_tree(graph, -graph.weights)


def bottleneck_weight(graph: GraphArrays) -> float:
    """The largest t such that some spanning tree has every edge weight >= t.

    A maximum spanning tree maximizes its smallest edge weight too (it is a bottleneck tree), so
    this is the smallest weight on it: Lemma 4.5's event "a spanning tree with every weight >= t"
    holds exactly when ``bottleneck_weight(graph) >= t``.
    """
    return float(graph.weights[maximum_spanning_tree(graph)].min())


def _per_step_epsilon0(epsilon: float, delta: float, steps: int) -> float:
    return epsilon0_from_rho(rho_from_epsilon(epsilon, delta), steps)


def _algorithm1(g, epsilon, delta, rng):
    return perturbed_mst(g, _per_step_epsilon0(epsilon, delta, g.n - 1), rng)


def _private_kruskal(g, epsilon, delta, rng):
    return private_kruskal(g, _per_step_epsilon0(epsilon, delta, g.n - 1), rng)


def _pamst(g, epsilon, delta, rng):
    return pamst_fast(g, _per_step_epsilon0(epsilon, delta, g.n - 1), rng)


def _sealfon(g, epsilon, delta, rng):
    return gaussian_privatized_mst(g, rho_from_epsilon(epsilon, delta), rng)


#: The implemented (eps, delta)-DP spanning-tree algorithms, each run on the negated weights with
#: D = 1 and calibrated to (eps, delta) through zCDP as in ``algorithms.mst.accounting``:
#: Algorithm 1 (Gumbel perturbation), Algorithm 2 (private Kruskal), PAMST, and Sealfon's input
#: privatization with Gaussian noise.
PRIVATE_TREE_METHODS = {
    "Algorithm 1": _algorithm1,
    "private Kruskal": _private_kruskal,
    "PAMST": _pamst,
    "Sealfon (Gaussian)": _sealfon,
}


def private_maximum_spanning_tree(method: str, graph: GraphArrays, epsilon: float, delta: float, rng=None):
    """A private maximum spanning tree of ``graph`` by ``method`` at (eps, delta), l_inf D = 1."""
    g = graph.with_weights(-graph.weights)
    return PRIVATE_TREE_METHODS[method](g, check_epsilon(epsilon), check_delta(delta), np.random.default_rng(rng))


def hard_instance_errors(
    n: int, rows: int, epsilon: float, delta: float, n_graphs: int, *, beta: float = 1.0, methods=None, rng=None
) -> dict:
    """Errors W(T*) - W(T) of each method on ``n_graphs`` independent hard instances.

    One graph per run; the graph and each method's run get their own spawned streams. Returns a
    dict from method name to an ``(n_graphs,)`` array, plus ``"maximum"`` (W(T*), the maximum
    spanning tree weights) and ``"random tree"`` (the error of a uniformly random weight order,
    i.e. Kruskal on a random permutation: a tree chosen without looking at the weights).
    """
    methods = list(PRIVATE_TREE_METHODS) if methods is None else list(methods)
    root = (
        rng
        if isinstance(rng, np.random.SeedSequence)
        else np.random.SeedSequence(np.random.default_rng(rng).integers(2**63))
    )
    out = {name: np.empty(n_graphs) for name in methods + ["maximum", "random tree"]}
    for r, child in enumerate(root.spawn(n_graphs)):
        s_graph, s_random, *s_methods = child.spawn(2 + len(methods))
        g, _ = hard_instance(n, rows, beta, s_graph)
        best = g.weights[maximum_spanning_tree(g)].sum()
        out["maximum"][r] = best
        rand = minimum_spanning_tree(g, np.random.default_rng(s_random).random(g.m))
        out["random tree"][r] = best - g.weights[rand].sum()
        for name, s in zip(methods, s_methods):
            tree = private_maximum_spanning_tree(name, g, epsilon, delta, s)
            out[name][r] = best - g.weights[tree].sum()
    return out


def algorithm1_upper_bound(
    n: int, epsilon: float, delta: float, gamma: float = 0.05, sensitivity: float = 1.0
) -> float:
    """Theorem 1.1's explicit high-probability bound on the error of Algorithm 1 (and 2, 3).

    With Gumbel noise of scale beta = 2D/epsilon0 on m = n(n-1)/2 edges, with probability >= 1 - gamma
    the error is at most (n - 1) beta (ln(2m/gamma) + ln ln(2m/gamma)) (Pagh et al. 2025,
    proof of Theorem 1.1: the error is at most (n - 1)(max noise - min noise)); epsilon0 from (eps, delta) by zCDP.
    """
    m = n * (n - 1) // 2
    epsilon0 = _per_step_epsilon0(epsilon, delta, n - 1)
    x = math.log(2 * m / gamma)
    return (n - 1) * (2 * sensitivity / epsilon0) * (x + math.log(x))


# ----------------------------------------------------------------------------- Erdos-Renyi


def gnp_disconnection_probability(n: int, p: float) -> float:
    """Exact P[G(n, p) is disconnected].

    With D_k = P[G(k, p) disconnected] and q = 1 - p, conditioning on the size j of the component
    of vertex 0: D_k = sum_{j=1}^{k-1} C(k-1, j-1) (1 - D_j) q^{j (k - j)}. All terms are positive,
    computed in 60-digit arithmetic (O(n^2) terms).
    """
    n = int(n)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}")
    if n <= 1:
        return 0.0
    if p == 0.0:
        return 1.0
    if p == 1.0:
        return 0.0
    # Exact in 60-digit arithmetic: D_k is within 1e-16 of 1 for small k when p is small, and
    # 1 - D_k (needed for larger k) would be lost in double precision.
    with decimal.localcontext() as context:
        context.prec = 60
        one = decimal.Decimal(1)
        q = one - decimal.Decimal(p)  # the float p converted exactly
        conn = [decimal.Decimal(0), one]  # P[G(k, p) connected], k = 0, 1
        for k in range(2, n + 1):
            disc = sum(decimal.Decimal(math.comb(k - 1, j - 1)) * conn[j] * q ** (j * (k - j)) for j in range(1, k))
            conn.append(one - disc)
        return float(1 - conn[n])


def component_union_bound(n: int, p: float) -> float:
    """Lemma F.1's first-moment bound: sum_{k=1}^{floor(n/2)} C(n, k) k^(k-2) p^(k-1) (1-p)^(k(n-k)).

    A disconnected graph has a component of size k <= n/2, and a component of size k needs a
    spanning tree on it (k^(k-2) of them, Cayley) and no edge leaving it, so this sum bounds
    P[G(n, p) disconnected] from above.
    """
    if p >= 1.0:
        return 0.0
    k = np.arange(1, int(n) // 2 + 1)
    logs = (
        special.gammaln(n + 1)
        - special.gammaln(k + 1)
        - special.gammaln(n - k + 1)
        + (k - 2) * np.log(k)
        + (k - 1) * math.log(p)
        + k * (n - k) * math.log1p(-p)
    )
    return float(np.exp(special.logsumexp(logs)))


def simulate_gnp_disconnected(n: int, p: float, n_graphs: int, rng=None) -> int:
    """How many of ``n_graphs`` independent G(n, p) graphs are disconnected."""
    rng = np.random.default_rng(rng)
    edges = complete_graph_edges(n)
    if n <= 64:  # batched reachability from vertex 0 by repeated boolean products
        count = 0
        for start in range(0, int(n_graphs), 1000):
            b = min(1000, int(n_graphs) - start)
            present = rng.random((b, edges.shape[0])) < p
            adj = np.zeros((b, n, n), dtype=np.float32)
            adj[:, edges[:, 0], edges[:, 1]] = present
            adj += adj.transpose(0, 2, 1) + np.eye(n, dtype=np.float32)
            reach = adj[:, 0, :] > 0
            for _ in range(n):
                new = np.einsum("bi,bij->bj", reach.astype(np.float32), adj) > 0
                if np.array_equal(new, reach):
                    break
                reach = new
            count += int((~reach.all(axis=1)).sum())
        return count
    count = 0
    for _ in range(int(n_graphs)):
        keep = edges[rng.random(edges.shape[0]) < p]
        a = coo_matrix((np.ones(keep.shape[0]), (keep[:, 0], keep[:, 1])), shape=(n, n))
        count += connected_components(a, directed=False, return_labels=False) > 1
    return int(count)


def lemma_4_5_threshold(n: int, rows: int, beta: float, c: float, gamma: float) -> tuple[float, float]:
    """Lemma 4.5's proof chain with explicit parameters: (weight threshold, failure bound).

    tau = the Beta(beta, beta) upper quantile with P[P_e >= tau] = c ln n / n, so the edges with
    P_e >= tau form G(n, c ln n / n). If that graph is connected it has a spanning tree, and by
    Hoeffding and a union bound over the m edges, w_e >= N tau - sqrt(N ln(m / gamma) / 2) for
    every such edge except with probability gamma. Hence

        P[a spanning tree with every weight >= threshold] >= 1 - D(n, c ln n / n) - gamma,

    with D the exact disconnection probability. Returns (threshold, D + gamma).
    """
    m = n * (n - 1) // 2
    p = min(c * math.log(n) / n, 1.0)
    tau = float(stats.beta(beta, beta).isf(p))
    threshold = rows * tau - math.sqrt(rows * math.log(m / gamma) / 2.0)
    return threshold, gnp_disconnection_probability(n, p) + gamma


# ----------------------------------------------------------------------------- Lemma 4.1


def _lemma_4_1_k(epsilon: float) -> int:
    eps = check_epsilon(epsilon)
    if eps > 1.0:
        raise ValueError(f"Lemma 4.1 assumes eps <= 1, got {epsilon}")
    return math.floor(1.0 / eps)


def lemma_4_1_lift(algorithm, epsilon: float):
    """Lemma 4.1's reduction: A'(G) = A(G with weights scaled by k), k = floor(1/eps), eps <= 1.

    ``algorithm(graph, rng) -> edge indices`` is (eps, delta)-DP for l_inf neighbours at distance
    D, hence also (1/k, delta)-DP (1/k >= eps: the paper's "replace eps by 1/floor(1/eps)" when
    1/eps is not an integer). Neighbours of G at distance D become graphs at distance k D after
    scaling, so by group privacy A' is (1, k e^{1 - 1/k} delta)-DP (:func:`lemma_4_1_privacy`), and
    its error is the error of A on the scaled graph divided by k.
    """
    k = _lemma_4_1_k(epsilon)

    def lifted(data, rng=None):
        g = as_graph_arrays(data)
        return algorithm(g.with_weights(g.weights * k), rng)

    lifted.scale = k
    return lifted


def lemma_4_1_privacy(epsilon: float, delta: float) -> tuple[float, float]:
    """(eps, delta) of A' by group privacy over k = floor(1/eps) steps of a (1/k, delta)-DP algorithm.

    (k (1/k), k e^{(k-1)/k} delta) = (1, k e^{1 - 1/k} delta): the standard group-privacy
    statement (the paper's Fact 2.6, whose formula is lost in the text extraction).
    """
    k = _lemma_4_1_k(epsilon)
    return 1.0, k * math.exp(1.0 - 1.0 / k) * check_delta(delta)
