"""The two experiments of Appendix H of Pagh et al. 2025 (private minimum spanning trees).

Pagh et al. 2025, Appendix H (parameters as stated there):

(a) *Mutual information* (Chow-Liu). Bits X_1 ~ Bernoulli(1/2) and X_i = X_{i-1}
    flipped with probability ``flip``; the mutual information of X_i and X_j
    (k = |i - j|, c = (1 - 2 flip)^k) is
    W(k) = (1/2 + c/2) log2(1 + c) + (1/2 - c/2) log2(1 - c) bits
    (Claim H.4). The complete graph on n variables weighs each edge -W(|i-j|);
    its minimum spanning tree is the path 1-2-...-n. Sensitivity D = log2(V)/V
    for a data set of V rows; n = 1000, flip = 0.05, V = 10000,
    rho in {0.001, 1.001, 2.001, 3.001, 4.001}.
(b) *Density*. Erdos-Renyi G(n, p), n = 1000, 50 log-spaced p from 2 ln(n)/n to
    1, weights U(0, 100), rho = 1, D = 0.1, 10 runs per p, a graph redrawn
    until it is connected.

Both report weight(private tree) / weight(true MST) for Algorithm 1 (input
perturbation), PAMST (the fast exact form) and Sealfon's input privatization
(Gaussian, zCDP), as the median and the min-max band over the runs.

This module holds the data generation, the experiment loops and the CSV/PNG
writers; ``algorithms/mst/reproduce.py`` registers them with
``dpverify reproduce``.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from algorithms.errors import InvalidGraphError
from algorithms.graphs import connected_gnp_graph, minimum_spanning_tree
from algorithms.mst.accounting import check_rho, epsilon0_from_rho
from algorithms.mst.pamst import pamst_fast
from algorithms.mst.perturbation import perturbed_mst
from algorithms.mst.privatization import gaussian_privatized_mst

__all__ = [
    "DensitySettings",
    "MutualInformationSettings",
    "ExperimentRow",
    "SummaryRow",
    "chain_mutual_information",
    "chow_liu_chain_graph",
    "private_tree_methods",
    "gnp_runs",
    "density_experiment",
    "mutual_information_tasks",
    "mutual_information_experiment",
    "summarize_rows",
    "write_rows_csv",
    "write_summary_csv",
    "plot_summary",
]

#: Private-tree method: ``method(n, edges, weights, rho, sensitivity, rng) -> edge indices``.
PrivateTreeMethod = Callable[[int, np.ndarray, np.ndarray, float, float, np.random.Generator], np.ndarray]

METHOD_LABELS = {
    "algorithm1": "Algorithm 1 (input perturbation, Gumbel keys)",
    "pamst": "PAMST (Pinot 2018; fast exact form)",
    "sealfon_gaussian": "Input privatization (Sealfon 2016; Gaussian)",
}


@dataclass(frozen=True)
class DensitySettings:
    """Parameters of the density experiment (Pagh et al. 2025, Appendix H, Figure 2b).

    ``paper()`` gives the paper's size; ``quick()`` a size a test runs in seconds.
    """

    n: int = 1000
    n_densities: int = 50
    p_max: float = 1.0
    runs: int = 10
    rho: float = 1.0
    sensitivity: float = 0.1
    weight_low: float = 0.0
    weight_high: float = 100.0
    methods: tuple[str, ...] = ("algorithm1", "pamst", "sealfon_gaussian")

    @classmethod
    def paper(cls) -> DensitySettings:
        return cls()

    @classmethod
    def quick(cls) -> DensitySettings:
        return cls(n=60, n_densities=6, runs=3)

    def densities(self) -> np.ndarray:
        """``n_densities`` log-spaced edge probabilities from 2 ln(n)/n to ``p_max``."""
        p_min = 2.0 * math.log(self.n) / self.n
        if not 0.0 < p_min < self.p_max <= 1.0:
            raise InvalidGraphError(
                f"the density sweep needs 2 ln(n)/n < p_max <= 1; got n={self.n}, p_max={self.p_max}"
            )
        return np.geomspace(p_min, self.p_max, self.n_densities)


@dataclass(frozen=True)
class MutualInformationSettings:
    """Parameters of the mutual-information experiment (Pagh et al. 2025, Appendix H, Figure 2a)."""

    n: int = 1000
    flip: float = 0.05
    rows: int = 10_000
    rhos: tuple[float, ...] = (0.001, 1.001, 2.001, 3.001, 4.001)
    runs: int = 10
    methods: tuple[str, ...] = ("algorithm1", "pamst", "sealfon_gaussian")

    @classmethod
    def paper(cls) -> MutualInformationSettings:
        return cls()

    @classmethod
    def quick(cls) -> MutualInformationSettings:
        return cls(n=60, runs=3)

    @property
    def sensitivity(self) -> float:
        """D = log2(V)/V, the sensitivity of one mutual-information score (Appendix H)."""
        return math.log2(self.rows) / self.rows


@dataclass(frozen=True)
class ExperimentRow:
    """One private tree: the x value (p or rho), the run, the method and the weights."""

    x: float
    run: int
    method: str
    n: int
    m: int
    weight_true: float
    weight_private: float

    @property
    def ratio(self) -> float:
        """weight(private tree) / weight(true MST), the quantity Figure 2 plots."""
        return self.weight_private / self.weight_true


def chain_mutual_information(k, flip: float) -> np.ndarray:
    """Mutual information in bits of X_i and X_{i+k} in the flip chain (Pagh et al. 2025, Claim H.4).

    W(k) = (1/2 + c/2) log2(1 + c) + (1/2 - c/2) log2(1 - c) with c = (1 - 2 flip)^k,
    computed with ``log1p`` so that W stays accurate (about c^2 / (2 ln 2)) when c
    is tiny.

    Parameters
    ----------
    k : int or array of int
        Distances |i - j| >= 1.
    flip : float
        Flip probability, in (0, 1/2].
    """
    if not 0.0 < flip <= 0.5:
        raise InvalidGraphError(f"flip probability must lie in (0, 1/2], got {flip}")
    k = np.asarray(k)
    if np.any(k < 1):
        raise InvalidGraphError("distances k must be >= 1")
    c = np.power(1.0 - 2.0 * flip, k.astype(float))
    return ((1.0 + c) * np.log1p(c) + (1.0 - c) * np.log1p(-c)) / (2.0 * math.log(2.0))


def chow_liu_chain_graph(n: int, flip: float) -> tuple[int, np.ndarray, np.ndarray]:
    """The complete graph of negated pairwise mutual informations (Pagh et al. 2025, Appendix H).

    Returns
    -------
    n : int
    edges : (m, 2) int64 array, pairs i < j, m = n (n - 1) / 2
    weights : (m,) float array, -W(j - i); the minimum spanning tree is the path.
    """
    if n < 2:
        raise InvalidGraphError(f"the Chow-Liu graph needs n >= 2 variables, got {n}")
    i, j = np.triu_indices(n, k=1)
    edges = np.stack([i, j], axis=1).astype(np.int64)
    weights = -chain_mutual_information(j - i, flip)
    return n, edges, weights


# --------------------------------------------------------------------------------------
# the three private-tree methods, adapted to one signature
# --------------------------------------------------------------------------------------


def _algorithm1(n, edges, weights, rho, sensitivity, rng):
    epsilon0 = epsilon0_from_rho(rho, n - 1)
    return perturbed_mst((n, edges, weights), epsilon0, rng, sensitivity=sensitivity, backend="scipy")


def _pamst(n, edges, weights, rho, sensitivity, rng):
    epsilon0 = epsilon0_from_rho(rho, n - 1)
    return pamst_fast((n, edges, weights), epsilon0, rng, sensitivity=sensitivity)


def _sealfon_gaussian(n, edges, weights, rho, sensitivity, rng):
    return gaussian_privatized_mst((n, edges, weights), rho, rng, sensitivity=sensitivity, backend="scipy")


_METHODS: dict[str, PrivateTreeMethod] = {
    "algorithm1": _algorithm1,
    "pamst": _pamst,
    "sealfon_gaussian": _sealfon_gaussian,
}


def private_tree_methods() -> dict[str, PrivateTreeMethod]:
    """The methods of Figure 2, each ``(n, edges, weights, rho, D, rng) -> tree edge indices``.

    All three spend a total of ``rho``-zCDP on the whole tree (l_inf neighbouring,
    sensitivity D): Algorithm 1 (:func:`~algorithms.mst.perturbation.perturbed_mst`,
    scipy backend) and PAMST (:func:`~algorithms.mst.pamst.pamst_fast`) use the
    per-step budget epsilon0 = sqrt(2 rho / (n - 1)) (the generic epsilon0-DP =>
    epsilon0^2/2-zCDP conversion, the authors' choice); input
    privatization (:func:`~algorithms.mst.privatization.gaussian_privatized_mst`)
    adds Gaussian noise of sigma = D sqrt(m / (2 rho)).
    """
    return dict(_METHODS)


def _tree_weight(weights: np.ndarray, tree: np.ndarray) -> float:
    return float(np.sum(weights[np.asarray(tree, dtype=np.int64)]))


def _true_mst_weight(n: int, edges: np.ndarray, weights: np.ndarray) -> float:
    return _tree_weight(weights, minimum_spanning_tree((n, edges, weights)))


def _seed_sequence(seed) -> np.random.SeedSequence:
    """The root of an experiment's streams from None, an int, a SeedSequence or a Generator."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator):
        return np.random.SeedSequence(int(seed.integers(2**63)))
    return np.random.SeedSequence(seed)


def _run_methods(x, run, n, edges, weights, rho, sensitivity, methods, seeds, weight_true=None) -> list[ExperimentRow]:
    table = private_tree_methods()
    if weight_true is None:
        weight_true = _true_mst_weight(n, edges, weights)
    rows = []
    for name, seed in zip(methods, seeds):
        tree = table[name](n, edges, weights, rho, sensitivity, np.random.default_rng(seed))
        if len(tree) != n - 1:
            raise RuntimeError(f"{name} returned {len(tree)} edges, a spanning tree has {n - 1}")
        rows.append(
            ExperimentRow(
                x=float(x),
                run=run,
                method=name,
                n=n,
                m=len(edges),
                weight_true=weight_true,
                weight_private=_tree_weight(weights, tree),
            )
        )
    return rows


def gnp_runs(
    n: int,
    p: float,
    runs: int,
    seed=None,
    *,
    rho: float = 1.0,
    sensitivity: float = 0.1,
    methods: Sequence[str] = ("algorithm1", "pamst", "sealfon_gaussian"),
    weight_low: float = 0.0,
    weight_high: float = 100.0,
    on_run: Callable[[], None] | None = None,
) -> list[ExperimentRow]:
    """``runs`` independent runs at one density of the experiment of Figure 2b (Pagh et al. 2025, App. H).

    Each run draws a fresh connected G(n, p) with U(low, high) weights and one private tree per
    method on it (the same graph for every method). Random streams: the seed is split
    (``SeedSequence.spawn``) into one child per run, each split again into the graph's stream
    and one stream per method, so a method's noise never reuses the graph's randomness.
    """
    check_rho(rho)
    rows: list[ExperimentRow] = []
    for run, run_seed in enumerate(_seed_sequence(seed).spawn(runs)):
        graph_seed, *method_seeds = run_seed.spawn(1 + len(methods))
        g = connected_gnp_graph(n, float(p), np.random.default_rng(graph_seed), low=weight_low, high=weight_high)
        rows += _run_methods(p, run, g.n, g.edges, g.weights, rho, sensitivity, methods, method_seeds)
        if on_run is not None:
            on_run()
    return rows


def density_experiment(settings: DensitySettings, seed=None, *, progress: bool = False) -> list[ExperimentRow]:
    """Run the density experiment (Pagh et al. 2025, Appendix H, Figure 2b).

    The seed is split into one child per density, passed to :func:`gnp_runs`.
    """
    from dpverify.support.progress import progress_bar

    check_rho(settings.rho)
    densities = settings.densities()
    root = _seed_sequence(seed)
    rows: list[ExperimentRow] = []
    total = len(densities) * settings.runs
    with progress_bar(total=total, desc="private-mst-density", enabled=progress) as bar:
        for p, p_seed in zip(densities, root.spawn(len(densities))):
            rows += gnp_runs(
                settings.n,
                float(p),
                settings.runs,
                p_seed,
                rho=settings.rho,
                sensitivity=settings.sensitivity,
                methods=settings.methods,
                weight_low=settings.weight_low,
                weight_high=settings.weight_high,
                on_run=lambda: bar.update(1),
            )
    return rows


def mutual_information_tasks(settings: MutualInformationSettings, seed=None) -> list[tuple]:
    """The independent tasks of :func:`mutual_information_experiment`, one per (rho, run).

    Each task is the argument tuple of one call of ``_run_methods`` (all methods of one run), with
    its own spawned seeds, so running the tasks in any order or on any executor gives the same rows.
    """
    for rho in settings.rhos:
        check_rho(rho)
    n, edges, weights = chow_liu_chain_graph(settings.n, settings.flip)
    weight_true = _true_mst_weight(n, edges, weights)
    tasks = []
    for rho, rho_seed in zip(settings.rhos, _seed_sequence(seed).spawn(len(settings.rhos))):
        for run, run_seed in enumerate(rho_seed.spawn(settings.runs)):
            seeds = run_seed.spawn(len(settings.methods))
            tasks.append((rho, run, n, edges, weights, rho, settings.sensitivity, settings.methods, seeds, weight_true))
    return tasks


def mutual_information_experiment(
    settings: MutualInformationSettings, seed=None, *, progress: bool = False
) -> list[ExperimentRow]:
    """Run the mutual-information experiment (Pagh et al. 2025, Appendix H, Figure 2a).

    The graph is deterministic (the Chow-Liu chain graph); only the mechanisms'
    noise is random, one spawned stream per (rho, run, method).
    """
    from dpverify.support.progress import progress_bar

    tasks = mutual_information_tasks(settings, seed)
    rows: list[ExperimentRow] = []
    with progress_bar(total=len(tasks), desc="private-mst-mutual-information", enabled=progress) as bar:
        for task in tasks:
            rows += _run_methods(*task)
            bar.update(1)
    return rows


# --------------------------------------------------------------------------------------
# summaries and output files
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SummaryRow:
    """Median and min-max band of the ratio over the runs at one x for one method."""

    x: float
    method: str
    runs: int
    ratio_median: float
    ratio_min: float
    ratio_max: float


def summarize_rows(rows: Sequence[ExperimentRow]) -> list[SummaryRow]:
    """Group by (x, method) and take the median, min and max of the ratio (Figure 2)."""
    groups: dict[tuple[float, str], list[float]] = {}
    for row in rows:
        groups.setdefault((row.x, row.method), []).append(row.ratio)
    return [
        SummaryRow(x, method, len(r), float(np.median(r)), float(np.min(r)), float(np.max(r)))
        for (x, method), r in sorted(groups.items())
    ]


RUN_COLUMNS = ("x", "run", "method", "n", "m", "weight_true", "weight_private", "ratio")
SUMMARY_COLUMNS = ("x", "method", "runs", "ratio_median", "ratio_min", "ratio_max")


def write_rows_csv(rows: Sequence[ExperimentRow], path: Path, x_name: str) -> Path:
    """One line per private tree; the first column is named ``x_name`` (``p`` or ``rho``)."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow((x_name,) + RUN_COLUMNS[1:])
        for r in rows:
            writer.writerow(
                (repr(r.x), r.run, r.method, r.n, r.m, repr(r.weight_true), repr(r.weight_private), repr(r.ratio))
            )
    return path


def write_summary_csv(summary: Sequence[SummaryRow], path: Path, x_name: str) -> Path:
    """One line per (x, method): runs, median, min and max of the ratio."""
    with open(path, "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow((x_name,) + SUMMARY_COLUMNS[1:])
        for s in summary:
            writer.writerow((repr(s.x), s.method, s.runs, repr(s.ratio_median), repr(s.ratio_min), repr(s.ratio_max)))
    return path


def plot_summary(
    summary: Sequence[SummaryRow],
    path: Path,
    *,
    x_label: str,
    y_label: str,
    title: str,
    log_x: bool,
) -> Path:
    """Median line and min-max band per method, as in Figure 2 (matplotlib, Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for method in dict.fromkeys(s.method for s in summary):
        part = [s for s in summary if s.method == method]
        x = np.array([s.x for s in part])
        (line,) = ax.plot(x, [s.ratio_median for s in part], marker="o", ms=3, label=METHOD_LABELS.get(method, method))
        ax.fill_between(
            x, [s.ratio_min for s in part], [s.ratio_max for s in part], color=line.get_color(), alpha=0.2, linewidth=0
        )
    if log_x:
        ax.set_xscale("log")
    ax.set_xlabel(x_label)
    ax.set_ylabel(y_label)
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)
    return path
