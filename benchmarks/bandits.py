"""asv benchmarks: matroid-bandit simulator throughput on RocketFuel AS1755 (Tao et al. 2025, Figure 1).

``PolicyRounds``: 100 runs of each policy for a short horizon, the unit of the Figure 1
reproduction (161 arms, rank 86); ``track_run_rounds_per_second`` reports run-rounds per
second on the current machine (2 worker threads). ``GreedyBasis``: the greedy maximum-weight
basis of the AS1755 graphic matroid alone (the simulator's compiled union-find greedy, and the
Python-level call of ``algorithms.matroids.GraphicMatroid`` for comparison). Benchmarks skip
(``NotImplementedError`` in setup) where the RocketFuel data is absent.
"""

import time

import numpy as np

POLICIES = ["OMM", "DP-OMM", "LDP-OMM", "DPUCB-MAT", "DPTS-MAT", "CTS", "CUCB", "CUCB-LDP1", "CUCB-LDP2", "CUCB-DP"]


def _instance():
    from algorithms.bandits.environments import rocketfuel_instance
    from algorithms.errors import DatasetNotFoundError

    try:
        return rocketfuel_instance("AS1755")
    except DatasetNotFoundError as exc:
        raise NotImplementedError(str(exc)) from exc


class PolicyRounds:
    params = (POLICIES,)
    param_names = ["policy"]
    timeout = 300
    horizon = 500
    n_runs = 100

    def setup(self, policy):
        from algorithms.bandits.policies import POLICY_FACTORIES
        from algorithms.bandits.simulator import simulate

        self.instance = _instance()
        self.policy = POLICY_FACTORIES[policy](1.0)
        self.simulate = simulate
        simulate(self.instance, policy=self.policy, horizon=5, n_runs=1, seed=0)  # compile / load cache

    def _run(self):
        return self.simulate(
            self.instance,
            policy=self.policy,
            horizon=self.horizon,
            n_runs=self.n_runs,
            seed=1,
            checkpoints=[self.horizon],
            n_workers=2,
        )

    def time_100_runs(self, policy):
        self._run()

    def track_run_rounds_per_second(self, policy):
        start = time.perf_counter()
        self._run()
        return self.horizon * self.n_runs / (time.perf_counter() - start)

    track_run_rounds_per_second.unit = "run-rounds/s"

    def peakmem_100_runs(self, policy):
        self._run()


class GreedyBasis:
    def setup(self):
        from algorithms.bandits._kernel_matroids import greedy_order_basis
        from algorithms.matroids import GraphicMatroid

        inst = _instance()
        self.kernel = inst.matroid
        self.graphic = GraphicMatroid(inst.matroid.n_vertices, inst.matroid.edges[:, 0], inst.matroid.edges[:, 1])
        self.order = np.argsort(-np.random.default_rng(0).random(inst.matroid.n_elements)).astype(np.int64)
        self.weights = np.random.default_rng(0).random(inst.matroid.n_elements)
        self.greedy_order_basis = greedy_order_basis
        greedy_order_basis(self.kernel, self.order)

    def time_kernel_greedy_in_order(self):
        self.greedy_order_basis(self.kernel, self.order)

    def time_matroids_greedy_max_basis(self):
        self.graphic.greedy_max_basis(self.weights)
