"""A catalogue of small weighted graphs on which the exact output distributions are computed.

Pagh et al. 2025 (Theorem 3.5, Appendix H) verifications need graphs small enough to enumerate every
spanning tree and every sign-pattern neighbour (``2**m`` of them, m <= 10 here), yet rich enough
that the mechanisms differ (PAMST vs private Kruskal), that ties and disconnected graphs occur,
and that the one-step loss comes close to epsilon0 (an edge much heavier than the rest).

Every entry is deterministic (weights from fixed seeds); :func:`random_small_graph` draws more.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from algorithms.graphs import GraphArrays, as_graph_arrays, number_of_components

__all__ = ["CatalogueGraph", "catalogue", "catalogue_graph", "random_small_graph", "complete_graph"]


@dataclass(frozen=True)
class CatalogueGraph:
    """A named small graph with the epsilon0 it is studied at."""

    name: str
    graph: GraphArrays
    epsilon0: float = 1.0

    @property
    def connected(self) -> bool:
        return number_of_components(self.graph) == 1


def complete_graph(n: int, weights) -> GraphArrays:
    """K_n with edges in networkx order and the given weights."""
    edges = np.array(list(nx.complete_graph(n).edges()), dtype=np.int64)
    return as_graph_arrays((n, edges, weights))


def random_small_graph(
    rng=None, *, n_min: int = 3, n_max: int = 6, max_edges: int = 10, connected: bool = True
) -> GraphArrays:
    """A random graph on n_min..n_max vertices with at most ``max_edges`` edges, weights U(0, 4).

    Built constructively: a uniformly random labelled tree (Pruefer sequence) when ``connected``,
    then extra random pairs up to a random total.
    """
    rng = np.random.default_rng(rng)
    n = int(rng.integers(n_min, n_max + 1))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen: set = set()
    if connected:
        tree = nx.from_prufer_sequence(rng.integers(0, n, size=n - 2).tolist()) if n > 2 else nx.path_graph(2)
        chosen |= {tuple(sorted(e)) for e in tree.edges()}
    limit = min(max_edges, len(pairs))
    target = int(rng.integers(len(chosen) if chosen else 1, limit + 1))
    order = rng.permutation(len(pairs))
    for k in order:
        if len(chosen) >= target:
            break
        chosen.add(pairs[k])
    edges = np.array(sorted(chosen), dtype=np.int64)
    return as_graph_arrays((n, edges, rng.uniform(0.0, 4.0, size=len(edges))))


def catalogue() -> list[CatalogueGraph]:
    """The fixed catalogue (names are stable; weights come from fixed seeds)."""
    rng = np.random.default_rng(20240004)
    tri = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [0.0, 1.0, 2.5]))
    tri_heavy = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [0.0, 0.5, 40.0]))
    tri_ties = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [1.0, 1.0, 1.0]))
    c4_chord = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], [0.5, 2.0, 1.0, 3.0, 1.5]))
    k4 = complete_graph(4, rng.uniform(0, 4, 6))
    k5 = complete_graph(5, rng.uniform(0, 4, 10))
    two_triangles = as_graph_arrays(
        (6, [[0, 1], [1, 2], [0, 2], [3, 4], [4, 5], [3, 5]], [0.0, 1.0, 2.0, -1.0, 0.5, 0.5])
    )
    out = [
        CatalogueGraph("triangle", tri),
        CatalogueGraph("triangle-heavy-edge", tri_heavy),
        CatalogueGraph("triangle-ties", tri_ties),
        CatalogueGraph("four-cycle-chord", c4_chord),
        CatalogueGraph("K4", k4),
        CatalogueGraph("K5", k5, epsilon0=0.5),
        CatalogueGraph("two-disjoint-triangles", two_triangles),
    ]
    for i, seed in enumerate((11, 12, 13)):
        out.append(CatalogueGraph(f"random-{i}", random_small_graph(seed)))
    return out


def catalogue_graph(name: str) -> CatalogueGraph:
    """The catalogue entry called ``name``."""
    for entry in catalogue():
        if entry.name == name:
            return entry
    raise KeyError(f"no catalogue graph named {name!r}; names: {[c.name for c in catalogue()]}")
