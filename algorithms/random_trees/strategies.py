"""Hypothesis strategies for the random-spanning-tree tests: connected weighted graphs.

Built constructively by :func:`dpverify.testing.strategies.weighted_graphs` (the project's one graph
strategy): a random spanning tree with positive integer weights, then extra edges whose weight
may be 0, so every drawn graph has a spanning tree of usable edges.
"""

from __future__ import annotations

from algorithms.graphs import as_graph_arrays
from dpverify.testing.strategies import weighted_graphs

__all__ = ["connected_graphs"]


def connected_graphs(max_vertices: int = 7, max_extra: int = 6):
    """Connected graphs on 2..``max_vertices`` vertices as validated :class:`GraphArrays`.

    Parameters
    ----------
    max_vertices : int, default 7
        Most vertices.
    max_extra : int, default 6
        Most edges beyond the spanning tree (bounds the number of spanning trees, hence
        the cost of exact enumeration).

    Returns
    -------
    SearchStrategy of GraphArrays
        Tree edges weigh 1..5, extra edges 0..5 (integers; 0 marks an unusable edge).
    """
    return weighted_graphs(
        min_vertices=2,
        max_vertices=max_vertices,
        connected=True,
        max_extra_edges=max_extra,
        min_weight=0,
        max_weight=5,
        min_tree_weight=1,
        integer_weights=True,
    ).map(as_graph_arrays)
