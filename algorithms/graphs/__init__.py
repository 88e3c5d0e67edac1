"""Weighted undirected graphs as validated arrays, and non-private minimum spanning trees.

Every spanning-tree algorithm of the project takes its graph through
:func:`as_graph_arrays`, which accepts a :class:`networkx.Graph` or a triple
``(n, edges, weights)`` and returns a :class:`GraphArrays` of

- ``n`` -- the number of vertices, labelled ``0 .. n-1``;
- ``edges`` -- an ``int64`` array of shape ``(m, 2)`` with ``edges[i, 0] < edges[i, 1]``;
- ``weights`` -- a ``float64`` array of shape ``(m,)``, all finite.

A :class:`GraphArrays` is made only by validation and its arrays are read-only, so a
function given one does not check it again (:func:`as_graph_arrays` returns it as it is,
and :meth:`GraphArrays.with_weights` validates only the new weights).

Edge *indices* (positions ``0 .. m-1`` in ``edges``) are the currency of every
tree-valued result: a spanning tree is an ``int64`` array of edge indices, and
:func:`tree_key` turns one into a canonical hashable value (a sorted tuple)
for exact distributions and audits.

Valid and invalid input (Pagh et al. 2025, Section 2: the topology is public, the
weights are private and arbitrary reals):

- negative and zero weights are valid;
- a disconnected graph is valid: every "spanning tree" routine then returns a
  minimum spanning *forest* (one tree per connected component, ``n - c`` edges
  for ``c`` components);
- NaN or infinite weights raise :class:`~algorithms.errors.InvalidWeightsError`;
- directed graphs, self-loops, multi-edges (a :class:`networkx.MultiGraph` or a
  repeated vertex pair in the arrays, in either orientation) and fewer than
  ``min_vertices`` (default 2) vertices raise
  :class:`~algorithms.errors.InvalidGraphError`.

Modules
-------
- :mod:`.validation` -- :class:`GraphArrays`, :func:`as_graph_arrays`, incidence lists and
  read-only queries (:func:`is_spanning_forest`, :func:`number_of_components`, ...);
- :mod:`.spanning_trees` -- :func:`minimum_spanning_tree` with the backends ``"scipy"``
  (default), ``"networkx"``, ``"kruskal"`` and ``"prim"``, and :func:`kruskal_order`;
- :mod:`.generators` -- :func:`connected_gnp_graph`;
- :mod:`.union_find` -- the project's one compiled union-find and Kruskal scan.
"""

from algorithms.graphs.generators import connected_gnp_graph
from algorithms.graphs.spanning_trees import MST_BACKENDS, kruskal_order, minimum_spanning_tree
from algorithms.graphs.validation import (
    GraphArrays,
    as_graph_arrays,
    incidence_lists,
    is_spanning_forest,
    number_of_components,
    to_networkx,
    tree_key,
    tree_weight,
)

__all__ = [
    "GraphArrays",
    "MST_BACKENDS",
    "as_graph_arrays",
    "to_networkx",
    "minimum_spanning_tree",
    "kruskal_order",
    "tree_weight",
    "tree_key",
    "is_spanning_forest",
    "number_of_components",
    "connected_gnp_graph",
    "incidence_lists",
]
