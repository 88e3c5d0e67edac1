"""Figure reproductions this family registers with ``dpverify reproduce``.

``matroid-bandits-rocketfuel``
    Tao et al. 2025, Figure 1: cumulative (pseudo-)regret of DP-OMM (central DP,
    eps in {0.25, 0.5, 1, 2}; left column) and LDP-OMM (local DP, eps in
    {0.5, 1, 2, 4}; right column) with the OMM baseline dashed, on AS1221
    (top row) and AS1755 (bottom row). Full size: 100 runs, horizon 1e5;
    mean over runs with a pointwise 95% Student-t band. Rewards are the
    documented latency map of :class:`~algorithms.bandits.environments.LatencyEnvironment`
    (regret in reward units; times ``L_max`` it is in clipped ms).
``thesis-synthetic``
    Chandak's thesis (2023) Figures 6.1-6.3 on the Table 6.1 linear matroid
    (Bernoulli arms): 6.1a/b expected per-round return
    ``(1/s) sum_{t<=s} sum_{e in A_t} mu_e`` of DPUCB-MAT vs OMM vs the optimal
    policy and DPTS-MAT vs CTS vs optimal at eps = 2, n = 1e4; 6.2a/b the same
    for eps in {1e5, 2, 1e-4}; 6.3a ``R_n / ln n`` for n up to 1e6; 6.3b ``R_n``
    at n = 1e4 against ``1/eps`` for 50 eps evenly spaced in [0.5, 50]. The
    thesis does not state its number of runs; 50 (Fig. 6.1, 6.2) and 20
    (Fig. 6.3) are used here.

Each writes PNG and CSV files (plus a ``*_timing.csv`` with the seconds each
configuration's runs took, summed over the workers) and returns their paths.

Every run is one task (``executor=``: ``None`` runs them in order here; a thread
pool, since the compiled runs release the GIL; or a Dask cluster's executor).
Run ``r`` of a configuration is the r-th child spawned from that configuration's
``SeedSequence`` (see :func:`algorithms.bandits.simulator.simulate`), so the
figures are the same, bit for bit, whatever the executor and the number of workers.
"""

from __future__ import annotations

import csv
import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from algorithms.bandits import policies as P
from algorithms.bandits.environments import rocketfuel_instance, thesis_table61_instance
from algorithms.bandits.rocketfuel import FIGURE1_NETWORKS
from algorithms.bandits.simulator import SimulationResult, simulate
from dpverify.reproduction import map_tasks

__all__ = [
    "reproductions",
    "figure1_simulations",
    "run_rocketfuel_figure1",
    "run_thesis_synthetic",
    "FIGURE1_CENTRAL_EPSILONS",
    "FIGURE1_LOCAL_EPSILONS",
]

FIGURE1_CENTRAL_EPSILONS = (0.25, 0.5, 1.0, 2.0)
FIGURE1_LOCAL_EPSILONS = (0.5, 1.0, 2.0, 4.0)


def _checkpoints(horizon: int, n_linear: int = 400) -> np.ndarray:
    lin = np.linspace(1, horizon, n_linear).round().astype(np.int64)
    log = np.geomspace(1, horizon, 200).round().astype(np.int64)
    return np.unique(np.concatenate([lin, log, [horizon]]))


def _write_csv(path: Path, header, rows) -> Path:
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        w.writerows(rows)
    return path


#: The columns of a figure's timing table after its first (the key column of the figure's own table).
_TIMING_COLUMNS = ("policy", "epsilon", "n_runs", "horizon", "seconds")
_ROCKETFUEL_COLUMNS = (
    "network",
    "model",
    "policy",
    "epsilon",
    "round",
    "mean_regret",
    "band_low",
    "band_high",
    "n_runs",
)
_THESIS_COLUMNS = ("figure", "policy", "epsilon", "quantity", "round", "mean", "band_low", "band_high", "n_runs")


def _save_figure_and_tables(fig, stem: Path, dpi: int, header, rows, timing) -> list[Path]:
    """Write ``fig`` to ``<stem>.png``, ``rows`` to ``<stem>.csv`` and ``timing`` to ``<stem>_timing.csv``.

    The timing table's columns are ``header[0]`` then :data:`_TIMING_COLUMNS`.
    """
    import matplotlib.pyplot as plt

    fig.tight_layout()
    png = stem.with_suffix(".png")
    fig.savefig(png, dpi=dpi)
    plt.close(fig)
    csv_path = _write_csv(stem.with_suffix(".csv"), header, rows)
    time_path = _write_csv(stem.with_name(stem.name + "_timing.csv"), (header[0], *_TIMING_COLUMNS), timing)
    return [png, csv_path, time_path]


def _runs(
    instance, policy, horizon: int, checkpoints, seed: np.random.SeedSequence, start: int, stop: int
) -> SimulationResult:
    """Runs ``start, ..., stop - 1`` of ``simulate(instance, policy=policy, seed=seed, n_runs=N)``, N >= stop.

    Run ``r`` of :func:`simulate` uses the r-th child spawned from ``seed``;
    a copy of ``seed`` that has already spawned ``start`` children spawns
    exactly those runs' children next, so the runs are the same bit for bit.
    """
    offset = np.random.SeedSequence(
        seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size, n_children_spawned=start
    )
    return simulate(instance, policy=policy, horizon=horizon, n_runs=stop - start, seed=offset, checkpoints=checkpoints)


def _simulate_jobs(jobs, *, executor, progress: bool, desc: str) -> list[SimulationResult]:
    """One :class:`SimulationResult` per job ``(instance, policy, horizon, n_runs, checkpoints, seed)``.

    Each run is a task on ``executor``; the result of a job equals
    ``simulate(instance, policy=policy, horizon=horizon, n_runs=n_runs, seed=seed,
    checkpoints=checkpoints)`` except ``seconds``, the sum of its runs' times.
    """
    tasks, owners = [], []
    for j, (instance, policy, horizon, n_runs, checkpoints, seed) in enumerate(jobs):
        checkpoints = np.asarray(checkpoints, dtype=np.int64)
        for r in range(int(n_runs)):
            tasks.append((instance, policy, horizon, checkpoints, seed, r, r + 1))
            owners.append(j)
    parts = map_tasks(_runs, tasks, executor=executor, progress=progress, desc=desc)
    grouped: list[list[SimulationResult]] = [[] for _ in jobs]
    for owner, part in zip(owners, parts):
        grouped[owner].append(part)
    return [
        dataclasses.replace(
            chunk[0],
            n_runs=sum(c.n_runs for c in chunk),
            cumulative_regret=np.concatenate([c.cumulative_regret for c in chunk]),
            cumulative_reward=np.concatenate([c.cumulative_reward for c in chunk]),
            seconds=float(sum(c.seconds for c in chunk)),
        )
        for chunk in grouped
    ]


def _figure1_configs():
    yield "baseline", P.omm()
    for eps in FIGURE1_CENTRAL_EPSILONS:
        yield "central", P.dp_omm(eps)
    for eps in FIGURE1_LOCAL_EPSILONS:
        yield "local", P.ldp_omm(eps)


def figure1_simulations(
    *, seed, n_runs: int, horizon: int, executor=None, progress: bool = False, rocketfuel_path=None, latency_cap=None
) -> list[tuple[str, str, SimulationResult]]:
    """The simulations behind Figure 1: ``(network, model, result)`` per configuration, in figure order.

    ``model`` is ``"baseline"`` (OMM), ``"central"`` (DP-OMM) or ``"local"``
    (LDP-OMM). Configuration ``i`` gets the i-th child of ``SeedSequence(seed)``
    and its run ``r`` that child's r-th child, whatever ``executor`` runs them.
    """
    configs = list(_figure1_configs())
    seeds = np.random.SeedSequence(seed).spawn(len(FIGURE1_NETWORKS) * len(configs))
    ck = _checkpoints(horizon)
    jobs, labels = [], []
    for ni, name in enumerate(FIGURE1_NETWORKS):
        instance = rocketfuel_instance(name, path=rocketfuel_path, latency_cap=latency_cap)
        for ci, (model, policy) in enumerate(configs):
            jobs.append((instance, policy, horizon, n_runs, ck, seeds[ni * len(configs) + ci]))
            labels.append((name, model))
    simulated = _simulate_jobs(
        jobs,
        executor=executor,
        progress=progress,
        desc=f"matroid-bandits-rocketfuel ({len(jobs)} configurations x {n_runs} runs)",
    )
    return [(name, model, res) for (name, model), res in zip(labels, simulated)]


def run_rocketfuel_figure1(
    out_dir: Path,
    *,
    quick: bool,
    seed: int,
    progress: bool,
    n_runs: int | None = None,
    horizon: int | None = None,
    executor=None,
    rocketfuel_path=None,
    latency_cap=None,
) -> list[Path]:
    """Tao et al. 2025, Figure 1 (see module docstring). Quick: 6 runs, horizon 2000.

    ``latency_cap``: the reward scaling L_max of
    :class:`~algorithms.bandits.environments.LatencyEnvironment` (rewards
    1 - min(latency / L_max, 1)); ``None`` keeps the default max(mu) + 4 ms. The
    figure's outcome depends on it: a larger L_max shrinks every reward gap by the
    same factor while the privacy noise stays calibrated to rewards in [0, 1].

    ``executor``: ``None`` (runs in order) or a ``concurrent.futures.Executor``
    running one task per run; the files do not depend on it.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    n_runs = n_runs or (6 if quick else 100)
    horizon = horizon or (2000 if quick else 100_000)
    ck = _checkpoints(horizon)
    rows, timing = [], []
    results = {}
    start_all = time.perf_counter()
    for name, model, res in figure1_simulations(
        seed=seed,
        n_runs=n_runs,
        horizon=horizon,
        executor=executor,
        progress=progress,
        rocketfuel_path=rocketfuel_path,
        latency_cap=latency_cap,
    ):
        policy = res.policy
        lo, hi = res.regret_band(0.95)
        mean = res.mean_regret()
        results[(name, model, policy.epsilon)] = (mean, lo, hi)
        eps = "" if policy.epsilon is None else policy.epsilon
        for j, t in enumerate(ck):
            rows.append((name, model, policy.name, eps, int(t), mean[j], lo[j], hi[j], n_runs))
        timing.append((name, policy.name, eps, n_runs, horizon, round(res.seconds, 3)))
    total = time.perf_counter() - start_all
    timing.append(("all", "all", "", n_runs, horizon, round(total, 3)))

    fig, axes = plt.subplots(2, 2, figsize=(11, 8), squeeze=False)
    for ni, name in enumerate(FIGURE1_NETWORKS):
        inst_desc = {"AS1221": "AS1221 (108 nodes, 153 edges)", "AS1755": "AS1755 (87 nodes, 161 edges)"}[name]
        for col, (model, epsilons, label) in enumerate(
            [("central", FIGURE1_CENTRAL_EPSILONS, "DP-OMM"), ("local", FIGURE1_LOCAL_EPSILONS, "LDP-OMM")]
        ):
            ax = axes[ni][col]
            for eps in epsilons:
                mean, lo, hi = results[(name, model, eps)]
                (line,) = ax.plot(ck, mean, label=f"{label} eps={eps:g}")
                ax.fill_between(ck, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
            mean, lo, hi = results[(name, "baseline", None)]
            ax.plot(ck, mean, "k--", label="OMM")
            ax.fill_between(ck, lo, hi, color="k", alpha=0.15, linewidth=0)
            ax.set_title(f"{label} on {inst_desc}", fontsize=9)
            ax.set_xlabel("round t")
            ax.set_ylabel("cumulative pseudo-regret (reward units)")
            ax.legend(fontsize=7)
    fig.suptitle(f"Tao et al. 2025, Figure 1: {n_runs} runs, horizon {horizon}, mean and 95% band", fontsize=10)
    return _save_figure_and_tables(fig, out_dir / "matroid_bandits_rocketfuel", 120, _ROCKETFUEL_COLUMNS, rows, timing)


def run_thesis_synthetic(out_dir: Path, *, quick: bool, seed: int, progress: bool, executor=None) -> list[Path]:
    """Thesis Figures 6.1-6.3 on Table 6.1 (see module docstring). Quick: small sizes.

    ``executor``: ``None`` (runs in order) or a ``concurrent.futures.Executor``
    running one task per run; the files do not depend on it.
    """
    import matplotlib

    matplotlib.use("Agg")

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    sizes = _ThesisSizes.of(quick)
    jobs, meta = _thesis_jobs(thesis_table61_instance(), sizes, iter(np.random.SeedSequence(seed).spawn(10_000)))
    simulated = _simulate_jobs(
        jobs, executor=executor, progress=progress, desc=f"thesis-synthetic ({len(jobs)} simulations)"
    )
    timing = [
        (
            figure,
            res.policy.name,
            "" if res.policy.epsilon is None else res.policy.epsilon,
            res.n_runs,
            res.horizon,
            round(res.seconds, 3),
        )
        for (figure, _), res in zip(meta, simulated)
    ]
    figures = _thesis_figures(meta, simulated, sizes)
    fig = _plot_thesis(figures, sizes)
    return _save_figure_and_tables(fig, out_dir / "thesis_synthetic", 110, _THESIS_COLUMNS, figures.rows, timing)


@dataclass(frozen=True)
class _ThesisSizes:
    """Horizons, run counts and the eps grid of the thesis figures (quick: small sizes)."""

    n: int
    runs: int
    n_long: int
    runs_long: int
    eps_grid: np.ndarray

    @classmethod
    def of(cls, quick: bool) -> _ThesisSizes:
        if quick:
            return cls(1000, 5, 10_000, 3, np.linspace(0.5, 50, 6))
        return cls(10_000, 50, 1_000_000, 20, np.linspace(0.5, 50, 50))

    @property
    def checkpoints_long(self) -> np.ndarray:
        return np.unique(np.geomspace(10, self.n_long, 200).round().astype(np.int64))


def _thesis_jobs(inst, sizes: _ThesisSizes, ss):
    """Every simulation of the figures, declared in the order that takes the seeds, with its (figure, eps)."""
    jobs, meta = [], []

    def job(policy, horizon, n_runs, checkpoints, figure, key):
        jobs.append((inst, policy, horizon, n_runs, checkpoints, next(ss)))
        meta.append((figure, key))

    ck = _checkpoints(sizes.n)
    for fig_id, eps_list in (("6.1", (2.0,)), ("6.2", (1e5, 2.0, 1e-4))):
        for base, private in ((P.omm, P.dpucb_mat), (P.cts, P.dpts_mat)):
            job(base(), sizes.n, sizes.runs, ck, fig_id, "")
            for eps in eps_list:
                job(private(eps), sizes.n, sizes.runs, ck, fig_id, eps)
    for private in (P.dpucb_mat, P.dpts_mat):
        job(private(2.0), sizes.n_long, sizes.runs_long, sizes.checkpoints_long, "6.3a", 2.0)
    for private in (P.dpucb_mat, P.dpts_mat):
        for eps in sizes.eps_grid:
            job(private(float(eps)), sizes.n, sizes.runs_long, [sizes.n], "6.3b", float(eps))
    return jobs, meta


@dataclass
class _ThesisFigures:
    """What the figures plot: the return curves (6.1, 6.2), R_n / ln n (6.3a), the eps sweep (6.3b), the rows."""

    optimum: float
    curves: dict = field(default_factory=dict)
    long: dict = field(default_factory=dict)
    sweep: dict = field(default_factory=dict)
    rows: list = field(default_factory=list)


def _thesis_figures(meta, simulated, sizes: _ThesisSizes) -> _ThesisFigures:
    figures = _ThesisFigures(float(simulated[0].means[simulated[0].optimal_basis].sum()))
    rows, sweep_vals = [], {}
    for (fig_id, eps), res in zip(meta, simulated):
        if fig_id in ("6.1", "6.2"):
            figures.curves[(fig_id, res.policy.name, eps)] = res
        elif fig_id == "6.3a":
            ratio = res.cumulative_regret / np.log(res.checkpoints)[None, :]
            figures.long[res.policy.name] = ratio
            half = 1.96 * ratio.std(0, ddof=1) / np.sqrt(sizes.runs_long)
            mean = ratio.mean(0)
            rows.extend(
                (
                    "6.3a",
                    res.policy.name,
                    2.0,
                    "regret_over_ln_n",
                    int(t),
                    mean[j],
                    (mean - half)[j],
                    (mean + half)[j],
                    sizes.runs_long,
                )
                for j, t in enumerate(sizes.checkpoints_long)
            )
        else:
            r = res.cumulative_regret[:, -1]
            half = 1.96 * r.std(ddof=1) / np.sqrt(r.size)
            sweep_vals.setdefault(res.policy.name, []).append((1.0 / eps, r.mean(), r.mean() - half, r.mean() + half))
            rows.append(
                (
                    "6.3b",
                    res.policy.name,
                    eps,
                    "regret_at_n",
                    sizes.n,
                    r.mean(),
                    r.mean() - half,
                    r.mean() + half,
                    sizes.runs_long,
                )
            )
    for (fig_id, name, eps), res in figures.curves.items():
        ret = figures.optimum - res.cumulative_regret / res.checkpoints[None, :]
        mean = ret.mean(axis=0)
        lo, hi = res.regret_band(0.95)
        lo_ret, hi_ret = figures.optimum - hi / res.checkpoints, figures.optimum - lo / res.checkpoints
        figures.rows.extend(
            (fig_id, name, eps, "expected_per_round_return", int(t), mean[j], lo_ret[j], hi_ret[j], res.n_runs)
            for j, t in enumerate(res.checkpoints)
        )
    figures.rows.extend(rows)
    figures.sweep.update({name: np.array(vals) for name, vals in sweep_vals.items()})
    return figures


def _plot_thesis(figures: _ThesisFigures, sizes: _ThesisSizes):
    import matplotlib.pyplot as plt

    opt = figures.optimum
    fig, axes = plt.subplots(3, 2, figsize=(11, 12))
    for col, (base, private) in enumerate((("OMM", "DPUCB-MAT"), ("CTS", "DPTS-MAT"))):
        for row, fig_id in enumerate(("6.1", "6.2")):
            ax = axes[row][col]
            for (fid, name, eps), res in figures.curves.items():
                if fid != fig_id or name not in (base, private):
                    continue
                ret = (opt - res.cumulative_regret / res.checkpoints[None, :]).mean(0)
                label = name if eps == "" else f"{name} eps={eps:g}"
                ax.plot(res.checkpoints, ret, "--" if eps == "" else "-", label=label)
            ax.axhline(opt, color="k", linestyle=":", label="Optimal policy")
            ax.set_title(f"Figure {fig_id}{'ab'[col]}: {private} vs {base} (Table 6.1)", fontsize=9)
            ax.set_xlabel("round s")
            ax.set_ylabel("expected per-round return")
            ax.legend(fontsize=7)
    ax = axes[2][0]
    for name, ratio in figures.long.items():
        ax.plot(sizes.checkpoints_long, ratio.mean(0), label=name)
    ax.set_xscale("log")
    ax.set_title("Figure 6.3a: R_n / ln n (eps = 2)", fontsize=9)
    ax.set_xlabel("n")
    ax.legend(fontsize=7)
    ax = axes[2][1]
    for name, vals in figures.sweep.items():
        ax.errorbar(
            vals[:, 0], vals[:, 1], yerr=[vals[:, 1] - vals[:, 2], vals[:, 3] - vals[:, 1]], fmt="o-", ms=3, label=name
        )
    ax.set_title(f"Figure 6.3b: R_n at n = {sizes.n} vs 1/eps", fontsize=9)
    ax.set_xlabel("1 / eps")
    ax.set_ylabel("cumulative regret")
    ax.legend(fontsize=7)
    return fig


def reproductions():
    """Return the list of :class:`dpverify.reproduction.Reproduction` of this family."""
    from dpverify.reproduction import Reproduction

    return [
        Reproduction(
            "matroid-bandits-rocketfuel",
            "Tao et al. 2025, Figure 1: DP-OMM (eps 0.25-2) and LDP-OMM (eps 0.5-4) vs OMM on RocketFuel AS1221 and "
            "AS1755; 100 runs, horizon 1e5 (quick: 6 runs, 2000 rounds)",
            run_rocketfuel_figure1,
        ),
        Reproduction(
            "thesis-synthetic",
            "Chandak's thesis (2023) Figures 6.1-6.3 on the Table 6.1 linear matroid: DPUCB-MAT/DPTS-MAT vs OMM/CTS, "
            "eps sweep, R_n/ln n to 1e6, R_n vs 1/eps",
            run_thesis_synthetic,
        ),
    ]
