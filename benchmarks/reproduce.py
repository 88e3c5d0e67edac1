"""asv benchmarks: the figure reproductions' per-run throughput and their scaling with workers.

``Figure1Runs`` times the simulations of the RocketFuel Figure 1 reproduction
(``algorithms.bandits.reproduce.figure1_simulations``: 2 networks x 9 policies,
one task per run) at a reduced size, 4 runs of 10,000 rounds per configuration
(72 runs; the full figure is 100 runs of 100,000 rounds), on 1 and 2 local
worker threads. ``track_runs_per_second`` is the throughput, and
``ScalingFigure1.track_two_worker_time_ratio`` the 2-worker / 1-worker time
(ideal 0.5; the target is at most 0.55). Plotting is left out. Benchmarks skip
(``NotImplementedError`` in setup) where the RocketFuel data is absent.
"""

import time

from ._common import OverWorkers, WholeRun

N_RUNS = 4
HORIZON = 10_000


def _check_data():
    from algorithms.bandits.rocketfuel import rocketfuel_dir
    from algorithms.errors import DatasetNotFoundError

    try:
        rocketfuel_dir(None)
    except DatasetNotFoundError as exc:
        raise NotImplementedError(str(exc)) from exc


def _figure1(workers: int) -> float:
    from algorithms.bandits.reproduce import figure1_simulations
    from dpverify.reproduction import open_executor

    with open_executor(workers) as executor:
        start = time.perf_counter()
        figure1_simulations(seed=0, n_runs=N_RUNS, horizon=HORIZON, executor=executor)
        return time.perf_counter() - start


def _warm():
    from algorithms.bandits.reproduce import figure1_simulations

    figure1_simulations(seed=0, n_runs=1, horizon=10)  # compile or load the numba cache


class Figure1Runs(OverWorkers):
    repeat = 3

    def setup(self, workers):
        _check_data()
        _warm()

    def time_figure1_simulations(self, workers):
        _figure1(workers)

    def track_runs_per_second(self, workers):
        return 18 * N_RUNS / _figure1(workers)

    track_runs_per_second.unit = "runs/s"


class ScalingFigure1(WholeRun):
    timeout = 900

    def setup(self):
        _check_data()
        _warm()

    def track_two_worker_time_ratio(self):
        """Time with 2 workers / time with 1 worker (each the minimum of 2 tries)."""
        one = min(_figure1(1) for _ in range(2))
        two = min(_figure1(2) for _ in range(2))
        return two / one

    track_two_worker_time_ratio.unit = "ratio"


class ThesisSynthetic:
    """The quick thesis-synthetic reproduction end to end (simulations, plot, CSV) on 1 and 2 workers."""

    params = ([1, 2],)
    param_names = ["workers"]
    timeout = 600
    number = 1

    def setup(self, workers):
        import tempfile

        from algorithms.bandits.reproduce import run_thesis_synthetic

        self.run = run_thesis_synthetic
        self.tmp = tempfile.TemporaryDirectory()
        run_thesis_synthetic(self.tmp.name, quick=True, seed=0, progress=False)  # warm the caches

    def teardown(self, workers):
        self.tmp.cleanup()

    def time_quick(self, workers):
        from dpverify.reproduction import open_executor

        with open_executor(workers) as executor:
            self.run(self.tmp.name, quick=True, seed=0, progress=False, executor=executor)
