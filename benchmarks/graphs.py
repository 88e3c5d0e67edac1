"""asv benchmarks for algorithms.graphs: validation, the MST backends and the union-find scan.

Graphs are connected Erdos-Renyi G(n, p) with average degree 20 (n = m / 10), built in ``setup``
from fixed seeds. Ratios to read:

- ``Validation.time_as_graph_arrays_of_validated`` is O(1) (a validated graph is not checked
  again) against ``time_as_graph_arrays_of_arrays`` (O(m));
- ``SpanningTrees.time_kruskal`` / ``time_scipy`` and ``time_prim`` / ``time_scipy``;
- ``KruskalScan.time_kruskal_scan`` is the union-find alone on a fixed order (no sort).
"""

import numpy as np

from algorithms.graphs import as_graph_arrays, connected_gnp_graph, minimum_spanning_tree
from algorithms.graphs.union_find import kruskal_scan

EDGE_COUNTS = [1_000, 100_000]
GRAPH_SEED = 20240604


def _graph(m):
    n = m // 10
    return connected_gnp_graph(n, 2 * m / (n * (n - 1)), GRAPH_SEED)


class Validation:
    params = [EDGE_COUNTS]
    param_names = ["m"]

    def setup(self, m):
        self.g = _graph(m)
        self.arrays = (self.g.n, np.array(self.g.edges), np.array(self.g.weights))

    def time_as_graph_arrays_of_arrays(self, m):
        as_graph_arrays(self.arrays)

    def time_as_graph_arrays_of_validated(self, m):
        as_graph_arrays(self.g)

    def time_with_weights(self, m):
        self.g.with_weights(self.arrays[2])


class SpanningTrees:
    params = [EDGE_COUNTS]
    param_names = ["m"]

    def setup(self, m):
        self.g = _graph(m)
        for backend in ("scipy", "kruskal", "prim"):
            minimum_spanning_tree(self.g, backend=backend)  # compile

    def time_scipy(self, m):
        minimum_spanning_tree(self.g, backend="scipy")

    def time_kruskal(self, m):
        minimum_spanning_tree(self.g, backend="kruskal")

    def time_prim(self, m):
        minimum_spanning_tree(self.g, backend="prim")


class KruskalScan:
    params = [EDGE_COUNTS]
    param_names = ["m"]

    def setup(self, m):
        g = _graph(m)
        self.order = np.argsort(g.weights, kind="stable").astype(np.int64)
        self.u = np.ascontiguousarray(g.edges[:, 0])
        self.v = np.ascontiguousarray(g.edges[:, 1])
        self.parent = np.empty(g.n, dtype=np.int64)
        self.size = np.empty(g.n, dtype=np.int64)
        self.out = np.empty(g.n - 1, dtype=np.int64)
        self.limit = g.n - 1
        self.time_kruskal_scan(m)  # compile

    def time_kruskal_scan(self, m):
        kruskal_scan(self.order, self.u, self.v, self.parent, self.size, self.limit, self.out)
