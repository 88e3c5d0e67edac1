"""Figure reproductions this family registers with ``dpverify reproduce``.

- ``private-mst-density``: Pagh et al. 2025, Appendix H, Figure 2b (effect of density).
- ``private-mst-mutual-information``: Pagh et al. 2025, Appendix H, Figure 2a (Chow-Liu tree).

Each writes a PNG (median and min-max band of weight(private)/weight(true MST)
per method), a summary CSV (one line per x value and method) and a CSV of every
run, at the paper's size or, with ``quick=True``, at a size a test runs in
seconds. The experiments themselves live in :mod:`algorithms.mst.experiments`.

With ``executor=`` (a ``concurrent.futures.Executor``) the density figure runs
one task per density and the mutual-information figure one task per (rho, run),
each with the stream :mod:`algorithms.mst.experiments` spawns for it, so the
files are the same as with ``executor=None`` (the experiment functions, in order).
"""

from __future__ import annotations

from pathlib import Path

from dpverify.reproduction import Reproduction

__all__ = ["reproductions", "run_density", "run_mutual_information"]


def _density_rows(settings, seed, *, executor, progress: bool):
    """:func:`~algorithms.mst.experiments.density_experiment`, one task per density on ``executor``."""
    from algorithms.mst import experiments as ex
    from dpverify.reproduction import map_tasks

    if executor is None:
        return ex.density_experiment(settings, seed, progress=progress)
    densities = settings.densities()
    tasks = [
        (
            settings.n,
            float(p),
            settings.runs,
            p_seed,
            settings.rho,
            settings.sensitivity,
            settings.methods,
            settings.weight_low,
            settings.weight_high,
        )
        for p, p_seed in zip(densities, ex._seed_sequence(seed).spawn(len(densities)))
    ]
    parts = map_tasks(
        _gnp_task,
        tasks,
        executor=executor,
        progress=progress,
        desc=f"private-mst-density ({len(tasks)} densities x {settings.runs} runs)",
    )
    return [row for part in parts for row in part]


def _gnp_task(n, p, runs, seed, rho, sensitivity, methods, low, high):
    from algorithms.mst.experiments import gnp_runs

    return gnp_runs(
        n, p, runs, seed, rho=rho, sensitivity=sensitivity, methods=methods, weight_low=low, weight_high=high
    )


def _mutual_information_rows(settings, seed, *, executor, progress: bool):
    """:func:`~algorithms.mst.experiments.mutual_information_experiment`, one task per (rho, run)."""
    from algorithms.mst import experiments as ex
    from dpverify.reproduction import map_tasks

    if executor is None:
        return ex.mutual_information_experiment(settings, seed, progress=progress)
    tasks = ex.mutual_information_tasks(settings, seed)
    parts = map_tasks(
        ex._run_methods,
        tasks,
        executor=executor,
        progress=progress,
        desc=f"private-mst-mutual-information ({len(tasks)} runs)",
    )
    return [row for part in parts for row in part]


def run_density(
    out_dir: Path, *, quick: bool = False, seed: int = 0, progress: bool = True, executor=None
) -> list[Path]:
    """Regenerate Figure 2b of Pagh et al. 2025 (Appendix H, "the effect of the density").

    G(n, p) with n = 1000, 50 log-spaced p from 2 ln(n)/n to 1, U(0, 100)
    weights, rho = 1, D = 0.1, 10 runs per p (``quick``: n = 60, 6 values of p,
    3 runs). Files: ``private-mst-density.png``, ``private-mst-density.csv``
    (columns p, method, runs, ratio_median, ratio_min, ratio_max) and
    ``private-mst-density-runs.csv`` (p, run, method, n, m, weight_true,
    weight_private, ratio).
    """
    from algorithms.mst import experiments as ex

    settings = ex.DensitySettings.quick() if quick else ex.DensitySettings.paper()
    rows = _density_rows(settings, seed, executor=executor, progress=progress)
    return _write_figure(
        rows,
        out_dir,
        "private-mst-density",
        "p",
        x_label="edge probability p",
        title=(
            f"G(n={settings.n}, p), U({settings.weight_low:g}, {settings.weight_high:g}) weights, "
            f"rho={settings.rho:g}, D={settings.sensitivity:g}; median of {settings.runs} runs"
        ),
        log_x=True,
    )


def run_mutual_information(
    out_dir: Path, *, quick: bool = False, seed: int = 0, progress: bool = True, executor=None
) -> list[Path]:
    """Regenerate Figure 2a of Pagh et al. 2025 (Appendix H, mutual information / Chow-Liu tree).

    The complete graph of negated mutual informations of the flip chain with
    n = 1000 variables, flip probability 0.05, V = 10000 rows (D = log2(V)/V),
    rho in {0.001, 1.001, 2.001, 3.001, 4.001}, 10 runs per rho (``quick``:
    n = 60, 3 runs). The weights are negative, so the ratio
    weight(private)/weight(MST) is the fraction of the optimal tree's mutual
    information the private tree keeps (1 is best). Files:
    ``private-mst-mutual-information.png``, ``.csv`` (rho, method, runs,
    ratio_median, ratio_min, ratio_max) and ``-runs.csv``.
    """
    from algorithms.mst import experiments as ex

    settings = ex.MutualInformationSettings.quick() if quick else ex.MutualInformationSettings.paper()
    rows = _mutual_information_rows(settings, seed, executor=executor, progress=progress)
    return _write_figure(
        rows,
        out_dir,
        "private-mst-mutual-information",
        "rho",
        x_label="rho (zCDP budget of the whole tree)",
        title=(
            f"Chow-Liu chain, n={settings.n}, flip={settings.flip:g}, V={settings.rows} "
            f"(D={settings.sensitivity:.3g}); median of {settings.runs} runs"
        ),
        log_x=False,
    )


def _write_figure(rows, out_dir, stem: str, x_column: str, *, x_label: str, title: str, log_x: bool) -> list[Path]:
    """The PNG (median and min-max band per method), the summary CSV and the per-run CSV."""
    from algorithms.mst import experiments as ex

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = ex.summarize_rows(rows)
    return [
        ex.plot_summary(
            summary,
            out_dir / f"{stem}.png",
            x_label=x_label,
            y_label="weight(private tree) / weight(MST)",
            title=title,
            log_x=log_x,
        ),
        ex.write_summary_csv(summary, out_dir / f"{stem}.csv", x_column),
        ex.write_rows_csv(rows, out_dir / f"{stem}-runs.csv", x_column),
    ]


def reproductions():
    """Return the list of :class:`dpverify.reproduction.Reproduction` of this family."""
    return [
        Reproduction(
            name="private-mst-density",
            description=(
                "Pagh et al. 2025, Appendix H, Figure 2b: weight(private tree)/weight(MST) on connected "
                "G(1000, p), 50 log-spaced p in [2 ln(n)/n, 1], U(0,100) weights, rho=1, D=0.1, "
                "10 runs per p; Algorithm 1, PAMST (fast exact form), Sealfon Gaussian."
            ),
            run=run_density,
        ),
        Reproduction(
            name="private-mst-mutual-information",
            description=(
                "Pagh et al. 2025, Appendix H, Figure 2a: Chow-Liu tree of the flip chain (n=1000, flip 0.05, "
                "V=10000 rows, D=log2(V)/V), rho in {0.001, 1.001, 2.001, 3.001, 4.001}, 10 runs; "
                "Algorithm 1, PAMST (fast exact form), Sealfon Gaussian."
            ),
            run=run_mutual_information,
        ),
    ]
