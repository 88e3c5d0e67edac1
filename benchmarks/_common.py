"""What the benchmark modules share: asv settings, per-case figures, Markdown tables, fixed-seed graphs.

Every benchmark module is also a script (``python benchmarks/NAME.py`` or ``python -m
benchmarks.NAME``). asv imports it as ``benchmarks.NAME`` (``benchmark_dir`` in
``asv.conf.json``), where this module is ``benchmarks._common``. A script run puts only
``benchmarks/`` on ``sys.path``, so a module that imports this one first puts the repository
root there (nothing shared can do it before it is importable)::

    if not __package__:  # run as a script
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

__all__ = ["WholeRun", "OverWorkers", "case_figure", "fmt", "select_cases", "markdown_table", "gnp_with_edges"]


class WholeRun:
    """asv settings of a benchmark whose one call is a whole audit or experiment: one call per sample
    (``number = 1``), one sample, and a timeout that fits an audit. A subclass sets ``params`` and
    ``param_names``, and ``repeat`` or ``timeout`` where it needs more."""

    number = 1
    repeat = 1
    timeout = 600


class OverWorkers(WholeRun):
    """A :class:`WholeRun` on 1 and 2 workers, the project's 2-core machine (the benchmark takes ``workers``)."""

    params = [[1, 2]]
    param_names = ["workers"]


def case_figure(key: str, unit: str):
    """An asv ``track_`` method of a class over a module's cases (``param_names = ["case"]``) whose
    ``setup_cache`` gives one row (a dict) per case: the row's ``key``, in ``unit``."""

    def track(self, rows, name):
        return rows[name][key]

    track.unit = unit
    return track


def fmt(value, digits: int = 4) -> str:
    """A table cell: ``-`` for None or NaN, ``inf``, a float to ``digits`` significant digits, else ``str``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return "inf" if math.isinf(value) else f"{value:.{digits}g}"
    return str(value)


def select_cases(cases: Iterable[str], patterns) -> list[str]:
    """The names among ``cases`` that contain one of ``patterns`` (case-insensitive; none given: all of them).

    Raises
    ------
    SystemExit
        No case matches (a script's usage error, naming the cases).
    """
    names = list(cases)
    if not patterns:
        return names
    chosen = [name for name in names if any(p.lower() in name.lower() for p in patterns)]
    if not chosen:
        raise SystemExit(f"no case matches {patterns}; cases: {names}")
    return chosen


def markdown_table(head: list[str], rows: Iterable[str], *, progress: bool = True) -> str:
    """The Markdown text of ``head`` (lines: a caption, the header row, its rule) and ``rows`` (lines, made
    as they are read); with ``progress`` each line is printed as it comes, so a long run shows its rows."""
    lines = list(head)
    if progress:
        print("\n".join(lines), flush=True)
    for line in rows:
        lines.append(line)
        if progress:
            print(line, flush=True)
    return "\n".join(lines) + "\n"


def gnp_with_edges(m: int, seed: int, *, min_nodes: int = 2):
    """A connected G(n, p) with n = max(m / 10, ``min_nodes``) and E[edges] = m, U(0, 100) weights, drawn
    from the generator of ``[seed, m]`` (:func:`algorithms.graphs.connected_gnp_graph`)."""
    from algorithms.graphs import connected_gnp_graph

    n = max(m // 10, min_nodes)
    p = min(1.0, 2.0 * m / (n * (n - 1)))
    return connected_gnp_graph(n, p, np.random.default_rng([seed, m]))
