"""asv benchmarks for matroid greedy bases (algorithms.matroids) and counter banks.

The target: the greedy basis of a 161-arm graphic matroid takes microseconds. The graph
is RocketFuel AS1755 (Tao et al. 2025, Figure 1 bottom row: 87 routers, 161 links), read with
``algorithms.bandits.rocketfuel.load_rocketfuel``; the benchmarks skip (NotImplementedError
in setup, asv's skip) when the data is absent. Baselines in the same run: networkx's maximum
spanning tree on the same graph (per call) and the project's pure-Python tracker greedy.

Ratios to read: ``GreedyAS1755.time_networkx_max_spanning_tree / time_greedy_max_basis`` and
``time_greedy_max_basis_batch`` / (100 * ``time_greedy_max_basis``) (batched speed-up per run).
"""

import os
from pathlib import Path

import networkx as nx
import numpy as np

from algorithms.counters import HybridCounterBank
from algorithms.errors import DatasetNotFoundError
from algorithms.matroids import GraphicMatroid, LinearMatroid
from algorithms.matroids.base import Matroid

#: asv runs benchmarks against a copy of the package installed in its own
#: environment, so the data is located from this file (the repository), not
#: from the package; $DPVERIFY_ROCKETFUEL still takes precedence.
ROCKETFUEL_DIR = os.environ.get(
    "DPVERIFY_ROCKETFUEL", str(Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "rocketfuel")
)


def _as1755():
    try:
        from algorithms.bandits.rocketfuel import load_rocketfuel

        net = load_rocketfuel("AS1755", path=ROCKETFUEL_DIR)
    except (ImportError, DatasetNotFoundError) as err:
        raise NotImplementedError(f"RocketFuel AS1755 unavailable: {err}") from err
    return GraphicMatroid.from_edges(net.n_nodes, net.edges)


class GreedyAS1755:
    """Greedy maximum-weight basis on AS1755's graphic matroid (161 arms)."""

    params = [1, 100]
    param_names = ["runs"]

    def setup(self, runs):
        self.m = _as1755()
        rng = np.random.default_rng(1755)
        self.w = rng.random(self.m.n_elements)
        self.W = rng.random((runs, self.m.n_elements))
        self.m.greedy_max_basis(self.w)  # compile / warm caches
        self.m.greedy_max_basis_batch(self.W)
        self.g = nx.Graph()
        self.g.add_weighted_edges_from((int(a), int(b), float(x)) for (a, b), x in zip(zip(self.m.u, self.m.v), self.w))

    def time_greedy_max_basis(self, runs):
        self.m.greedy_max_basis(self.w)

    def time_greedy_max_basis_batch(self, runs):
        self.m.greedy_max_basis_batch(self.W)

    def time_python_tracker_greedy(self, runs):
        Matroid._greedy_in_order(self.m, np.argsort(-self.w, kind="stable"))

    def time_networkx_max_spanning_tree(self, runs):
        nx.maximum_spanning_tree(self.g)

    def track_rank(self, runs):
        return self.m.rank


class GreedyLinearTable61:
    """Linear matroid of thesis Table 6.1 shape (7 vectors in R^3), single and batched (100)."""

    def setup(self):
        v = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], float)
        self.m = LinearMatroid(v)
        rng = np.random.default_rng(61)
        self.w = rng.random(7)
        self.W = rng.random((100, 7))
        self.m.greedy_max_basis(self.w)
        self.m.greedy_max_basis_batch(self.W)

    def time_greedy_max_basis(self):
        self.m.greedy_max_basis(self.w)

    def time_greedy_max_basis_batch(self):
        self.m.greedy_max_basis_batch(self.W)


class HybridBankAdd:
    """One simulator round of DP-OMM bookkeeping: 100 runs x K = 86 arms observed."""

    def setup(self):
        self.bank = HybridCounterBank((100, 161), 1.0, rng=0)
        self.rows = np.repeat(np.arange(100), 86)
        self.cols = np.tile(np.arange(86), 100)
        self.values = np.random.default_rng(0).random(self.rows.size)
        for _ in range(64):
            self.bank.add((self.rows, self.cols), self.values)

    def time_add(self):
        self.bank.add((self.rows, self.cols), self.values)

    def peakmem_bank_1e4_items(self):
        bank = HybridCounterBank((100, 161), 1.0, rng=0)
        for _ in range(100):
            bank.add((self.rows, self.cols), self.values)
