"""Hypothesis strategies for weighted graphs as :class:`GraphArrays` (for ``properties/mst``).

Imports :mod:`hypothesis` (a test dependency); only the test suite imports this module.
The graphs come from the project's one graph strategy, :func:`dpverify.testing.strategies.weighted_graphs`
(built constructively: a random spanning forest, extra distinct pairs, then weights that may tie,
be negative or zero); this module only fixes the options the spanning-tree tests use and
validates the result.
"""

from __future__ import annotations

from algorithms.graphs import as_graph_arrays
from dpverify.testing.strategies import weighted_graphs

__all__ = ["graphs", "connected_graphs"]

# closed range of the weights the spanning-tree tests draw
_WEIGHT_RANGE = (-50.0, 50.0)


def graphs(*, min_vertices: int = 2, max_vertices: int = 9, connected: bool = False, allow_ties: bool = True):
    """A simple undirected weighted graph as validated :class:`GraphArrays`.

    Parameters
    ----------
    min_vertices, max_vertices : int
        Range of the vertex count.
    connected : bool, default False
        Connected graphs only; otherwise also forests, several components and isolated vertices.
    allow_ties : bool, default True
        Equal weights are common; ``False``: all weights distinct (the minimum spanning
        forest is then unique).

    Returns
    -------
    SearchStrategy of GraphArrays

    Notes
    -----
    Includes two-vertex graphs, bare trees, complete graphs and (unless ``connected``)
    disconnected graphs and isolated vertices. Edges come in random order, since the
    samplers break ties by edge index.
    """
    low, high = _WEIGHT_RANGE
    return weighted_graphs(
        min_vertices=min_vertices,
        max_vertices=max_vertices,
        connected=connected,
        min_weight=low,
        max_weight=high,
        ties=allow_ties,
        shuffle_edges=True,
    ).map(as_graph_arrays)


def connected_graphs(**kwargs):
    """Connected graphs (a spanning tree exists); keyword arguments as :func:`graphs`."""
    return graphs(connected=True, **kwargs)
