"""asv benchmarks for private minimum spanning trees (Pagh et al. 2025), against non-private MSTs.

Graphs are Erdos-Renyi G(n, p) with m ~ 1e3 .. 1e6 edges (average degree 20: n = m / 10,
p = 2 m / (n (n - 1)); connected, U(0, 100) weights), built in ``setup`` from fixed seeds.
The speed targets are ratios of these timings:

- ``Algorithm1.time_algorithm1_scipy`` / ``Algorithm1.time_scipy_mst`` <= 1.25 at m = 1e6;
  ``Algorithm1.time_algorithm1_networkx`` / ``Algorithm1.time_algorithm1_scipy`` >= 10;
- ``PrivateKruskal.time_algorithm2`` at 1e5 / at 1e4 <= 15 (m log m growth);
- ``PamstComplete300.time_pamst_naive`` / ``PamstComplete300.time_pamst_fast`` >= 50;
- ``BatchedSampler.time_batched`` >= 2e5 trees/s and >= 30x ``time_networkx_loop`` per tree.

``track_`` benchmarks report the relative excess weight (w(T~) - w(T*)) / w(T*) of each
private tree at a fixed seed (Pagh et al. 2025's error measure, Appendix H).
"""

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree as csgraph_mst

from algorithms.graphs import (
    GraphArrays,
    as_graph_arrays,
    minimum_spanning_tree,
    to_networkx,
    tree_weight,
)
from algorithms.mst.accounting import epsilon0_from_rho
from algorithms.mst.kruskal import one_pass_kruskal, private_kruskal
from algorithms.mst.pamst import pamst_fast, pamst_naive
from algorithms.mst.perturbation import batched_perturbed_trees, perturbed_mst
from algorithms.mst.privatization import gaussian_privatized_mst, laplace_privatized_mst

from ._common import gnp_with_edges

EDGE_COUNTS = [1_000, 10_000, 100_000, 1_000_000]
RHO = 1.0
SENSITIVITY = 0.1
GRAPH_SEED = 20240604
NOISE_SEED = 7


def complete_graph(n: int, seed: int = GRAPH_SEED) -> GraphArrays:
    i, j = np.triu_indices(n, k=1)
    weights = np.random.default_rng([seed, n, 1]).uniform(0.0, 100.0, size=i.size)
    return as_graph_arrays((n, np.stack([i, j], axis=1), weights))


def per_step_epsilon(g: GraphArrays) -> float:
    """epsilon0 for rho = 1 over the n - 1 steps (generic conversion), as in Appendix H."""
    return epsilon0_from_rho(RHO, g.n - 1)


def warm_up_compiled_code() -> None:
    """Run every benchmarked mechanism once on a tiny graph so numba's cached machine code is
    loaded (or compiled) in ``setup``, not inside the first timed call (``asv --quick`` times a
    single call)."""
    g = complete_graph(5)
    for backend in ("scipy", "kruskal", "prim"):
        perturbed_mst(g, 1.0, 0, backend=backend)
    private_kruskal(g, 1.0, 0)
    one_pass_kruskal(g, 1.0, 0)
    pamst_fast(g, 1.0, 0)
    pamst_naive(g, 1.0, 0)
    batched_perturbed_trees(g, 1.0, 4, 0)
    minimum_spanning_tree(g)


def relative_excess(g: GraphArrays, tree) -> float:
    best = tree_weight(g, minimum_spanning_tree(g))
    return (tree_weight(g, tree) - best) / best


class _GnpGraphs:
    """Shared data: every class inheriting this ``setup_cache`` shares one cache (asv keys the
    cache by the function's module and line), so the four G(n, p) graphs are built once per run.
    Benchmarks then receive ``graphs`` (dict m -> GraphArrays) as their first argument, and run over
    every edge count ``m`` unless a class narrows ``params``."""

    params = EDGE_COUNTS
    param_names = ["m"]
    timeout = 300

    def setup_cache(self):
        return {m: gnp_with_edges(m, GRAPH_SEED) for m in EDGE_COUNTS}

    setup_cache.timeout = 600

    def setup(self, graphs, m):
        warm_up_compiled_code()
        self.g = graphs[m]
        self.epsilon0 = per_step_epsilon(self.g)


class Algorithm1(_GnpGraphs):
    """Algorithm 1 (Gumbel input perturbation + MST) against the non-private MST."""

    def time_scipy_mst(self, graphs, m):
        """The project's non-private scipy MST (validation + csgraph on weight ranks)."""
        minimum_spanning_tree(self.g, backend="scipy")

    def time_scipy_csgraph_raw(self, graphs, m):
        """scipy's csgraph MST on the raw positive weights (CSR built from the edge arrays)."""
        n, edges, w = self.g
        csgraph_mst(sp.csr_matrix((w, (edges[:, 0], edges[:, 1])), shape=(n, n)))

    def time_algorithm1_scipy(self, graphs, m):
        perturbed_mst(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY, backend="scipy")

    def time_algorithm1_networkx(self, graphs, m):
        """Algorithm 1 through networkx (graph built per call, as the authors' public code does)."""
        perturbed_mst(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY, backend="networkx")

    def time_algorithm1_kruskal(self, graphs, m):
        perturbed_mst(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY, backend="kruskal")

    def time_algorithm1_prim(self, graphs, m):
        perturbed_mst(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY, backend="prim")

    def track_relative_error_algorithm1(self, graphs, m):
        return relative_excess(self.g, perturbed_mst(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY))


class NetworkxMST(_GnpGraphs):
    """networkx's own non-private MST on a prebuilt nx.Graph (conversion not timed); up to 1e5
    edges (at 1e6 it takes tens of seconds and adds nothing to the targets)."""

    params = EDGE_COUNTS[:-1]

    def setup(self, graphs, m):
        self.nxg = to_networkx(graphs[m])

    def time_networkx_mst_prebuilt(self, graphs, m):
        for _ in nx.minimum_spanning_edges(self.nxg, algorithm="kruskal", data=False):
            pass


class PrivateKruskal(_GnpGraphs):
    """Algorithm 2 (private Kruskal, Appendix E sum tree) and Algorithm 3 (one-pass Kruskal)."""

    def time_algorithm2(self, graphs, m):
        private_kruskal(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def time_algorithm3(self, graphs, m):
        one_pass_kruskal(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def track_relative_error_algorithm2(self, graphs, m):
        return relative_excess(self.g, private_kruskal(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY))

    def track_relative_error_algorithm3(self, graphs, m):
        return relative_excess(self.g, one_pass_kruskal(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY))


class Pamst(_GnpGraphs):
    """PAMST (Pinot 2018), fast exact form (exponential clocks) at every size."""

    def time_pamst_fast(self, graphs, m):
        pamst_fast(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def track_relative_error_pamst(self, graphs, m):
        return relative_excess(self.g, pamst_fast(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY))


class PamstNaiveSmall(_GnpGraphs):
    """Naive PAMST (fresh exponential-mechanism step over the cut, O(n m)): small sizes only."""

    params = [1_000, 10_000]

    def time_pamst_naive(self, graphs, m):
        pamst_naive(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)


class PamstComplete300:
    """Naive against fast PAMST on the complete graph K_300 (m = 44850): target ratio >= 50."""

    timeout = 300

    def setup(self):
        warm_up_compiled_code()
        self.g = complete_graph(300)
        self.epsilon0 = per_step_epsilon(self.g)

    def time_pamst_naive(self):
        pamst_naive(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def time_pamst_fast(self):
        pamst_fast(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)


class InputPrivatization(_GnpGraphs):
    """Sealfon's input privatization (l_inf neighbouring): Laplace (eps = 1) and Gaussian (rho = 1)."""

    params = EDGE_COUNTS
    param_names = ["m"]
    timeout = 300

    def time_laplace(self, graphs, m):
        laplace_privatized_mst(self.g, 1.0, NOISE_SEED, sensitivity=SENSITIVITY)

    def time_gaussian(self, graphs, m):
        gaussian_privatized_mst(self.g, RHO, NOISE_SEED, sensitivity=SENSITIVITY)

    def track_relative_error_gaussian(self, graphs, m):
        return relative_excess(self.g, gaussian_privatized_mst(self.g, RHO, NOISE_SEED, sensitivity=SENSITIVITY))


class LargestSizeMemory(_GnpGraphs):
    """Peak memory at m = 1e6 (asv reports the whole process's peak, which includes the cached
    graphs of all four sizes, about 30 MB, loaded in setup)."""

    params = [EDGE_COUNTS[-1]]
    param_names = ["m"]
    timeout = 300

    def peakmem_scipy_mst(self, graphs, m):
        minimum_spanning_tree(self.g, backend="scipy")

    def peakmem_algorithm1_scipy(self, graphs, m):
        perturbed_mst(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY, backend="scipy")

    def peakmem_algorithm2(self, graphs, m):
        private_kruskal(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def peakmem_algorithm3(self, graphs, m):
        one_pass_kruskal(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def peakmem_pamst_fast(self, graphs, m):
        pamst_fast(self.g, self.epsilon0, NOISE_SEED, sensitivity=SENSITIVITY)

    def peakmem_gaussian_privatization(self, graphs, m):
        gaussian_privatized_mst(self.g, RHO, NOISE_SEED, sensitivity=SENSITIVITY)


class BatchedSampler:
    """Many Algorithm 1 trees of one small graph (audits): batched numba sampler vs a networkx loop.

    ``time_batched`` draws ``BATCH`` trees; ``time_networkx_loop`` draws ``LOOP`` trees one at a
    time (Gumbel noise, weights written into a prebuilt nx.Graph, networkx Kruskal). Trees per
    second = count / time.
    """

    params = [4, 8, 12]
    param_names = ["n"]
    BATCH = 100_000
    LOOP = 1_000
    timeout = 300

    def setup(self, n):
        self.g = complete_graph(n)
        self.epsilon0 = 0.5
        self.beta = 2.0 * SENSITIVITY / self.epsilon0
        self.nxg = to_networkx(self.g)
        self.edge_list = [tuple(map(int, e)) for e in self.g.edges]
        warm_up_compiled_code()

    def time_batched(self, n):
        batched_perturbed_trees(self.g, self.epsilon0, self.BATCH, NOISE_SEED, sensitivity=SENSITIVITY)

    def time_networkx_loop(self, n):
        rng = np.random.default_rng(NOISE_SEED)
        g, weights, beta, edge_list = self.nxg, self.g.weights, self.beta, self.edge_list
        for _ in range(self.LOOP):
            noisy = weights - beta * rng.gumbel(size=weights.size)
            for (u, v), x in zip(edge_list, noisy):
                g[u][v]["weight"] = x
            tuple(sorted(d["index"] for _, _, d in nx.minimum_spanning_edges(g, algorithm="kruskal")))
