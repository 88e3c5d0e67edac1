"""RocketFuel ISP maps with inferred link latencies (the networks of Tao et al. 2025's Figure 1).

Tao et al. 2025 (Section 5) learns a minimum expected-latency spanning tree of the
RocketFuel AS1221 (Telstra) and AS1755 (EBONE) router maps. This module reads
``<AS>/latencies.intra`` (lines ``<router> <router> <latency ms>``, every link
listed once per direction) into an undirected simple graph with a fixed vertex
and edge order, so that arm ``e`` means the same link in every run.

The data are not part of the repository. The folder is looked up, in order, in
the ``path=`` argument, the environment variable ``DPVERIFY_ROCKETFUEL``, and
``<repo>/../shared/datasets/rocketfuel`` (found relative to this file). A
missing folder or file raises :class:`~algorithms.errors.DatasetNotFoundError`
naming the path looked at.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from algorithms.errors import DatasetNotFoundError, InvalidGraphError

__all__ = [
    "RocketFuelNetwork",
    "FIGURE1_NETWORKS",
    "default_rocketfuel_dir",
    "rocketfuel_dir",
    "load_rocketfuel",
]

#: The two AS numbers of Tao et al. 2025, Figure 1 (top row AS1221, bottom row AS1755).
FIGURE1_NETWORKS = ("AS1221", "AS1755")


@dataclass(frozen=True)
class RocketFuelNetwork:
    """An undirected RocketFuel router graph with one mean latency per link.

    Attributes
    ----------
    name : str
        The AS folder name, e.g. ``"AS1755"``.
    nodes : tuple of str
        Router names, sorted; vertex ``i`` is ``nodes[i]``.
    edges : ndarray of int64, shape (m, 2)
        Links as vertex pairs ``u < v``, sorted lexicographically; arm ``e`` is
        ``edges[e]``.
    latencies : ndarray of float64, shape (m,)
        The dataset latency of each link in milliseconds (``mu_e`` of Tao et al. 2025).
    source : pathlib.Path
        The file read.
    """

    name: str
    nodes: tuple
    edges: np.ndarray
    latencies: np.ndarray
    source: Path

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)

    @property
    def n_edges(self) -> int:
        return int(self.edges.shape[0])


def default_rocketfuel_dir() -> Path:
    """``<repo>/../shared/datasets/rocketfuel``, located relative to this source file."""
    return Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "rocketfuel"


def rocketfuel_dir(path=None) -> Path:
    """The RocketFuel folder: ``path``, else ``$DPVERIFY_ROCKETFUEL``, else the default.

    Raises
    ------
    DatasetNotFoundError
        If the folder does not exist (the message names the path looked at).
    """
    if path is not None:
        folder, how = Path(path), "the path= argument"
    elif os.environ.get("DPVERIFY_ROCKETFUEL"):
        folder, how = Path(os.environ["DPVERIFY_ROCKETFUEL"]), "DPVERIFY_ROCKETFUEL"
    else:
        folder, how = default_rocketfuel_dir(), "the default location"
    if not folder.is_dir():
        raise DatasetNotFoundError(
            f"RocketFuel data folder not found at {folder} (from {how}); pass path= or set "
            "DPVERIFY_ROCKETFUEL to the folder holding AS1221/, AS1755/, ..."
        )
    return folder


def load_rocketfuel(name: str = "AS1755", path=None) -> RocketFuelNetwork:
    """Read ``<folder>/<name>/latencies.intra`` as an undirected simple graph.

    Parameters
    ----------
    name : str
        AS folder, e.g. ``"AS1221"`` or ``"AS1755"`` (Tao et al. 2025, Figure 1).
    path : str or Path, optional
        The RocketFuel folder (see :func:`rocketfuel_dir` for the lookup order).

    Returns
    -------
    RocketFuelNetwork

    Raises
    ------
    DatasetNotFoundError
        If the folder or the latency file is missing.
    InvalidGraphError
        If a line is malformed, a link is a self-loop, or the two directions of
        a link disagree on the latency.

    Examples
    --------
    >>> net = load_rocketfuel("AS1755")  # doctest: +SKIP
    >>> net.n_nodes, net.n_edges  # doctest: +SKIP
    (87, 161)
    """
    file = rocketfuel_dir(path) / str(name) / "latencies.intra"
    if not file.is_file():
        raise DatasetNotFoundError(f"RocketFuel latency file not found at {file}")
    links: dict[tuple[str, str], float] = {}
    with open(file) as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.split()
            if not parts:
                continue
            if len(parts) != 3:
                raise InvalidGraphError(f"{file}:{lineno}: expected '<router> <router> <latency>'")
            a, b, value = parts[0], parts[1], float(parts[2])
            if a == b:
                raise InvalidGraphError(f"{file}:{lineno}: self-loop at {a}")
            if not np.isfinite(value) or value < 0:
                raise InvalidGraphError(f"{file}:{lineno}: latency {value} is not a finite number >= 0")
            key = (a, b) if a < b else (b, a)
            if key in links and links[key] != value:
                raise InvalidGraphError(f"{file}:{lineno}: link {key} listed with latencies {links[key]} and {value}")
            links[key] = value
    nodes = tuple(sorted({v for key in links for v in key}))
    index = {v: i for i, v in enumerate(nodes)}
    pairs = sorted((index[a], index[b], lat) for (a, b), lat in links.items())
    edges = np.array([(u, v) for u, v, _ in pairs], dtype=np.int64).reshape(-1, 2)
    latencies = np.array([lat for _, _, lat in pairs], dtype=np.float64)
    return RocketFuelNetwork(str(name), nodes, edges, latencies, file)
