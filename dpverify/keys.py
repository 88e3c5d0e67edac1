"""Ready ``output_key=`` functions: map rich outputs to values an audit can compare.

An audit counts how often outputs fall in an event, so it must be able to
tell when two outputs are *equal*. Objects that compare by identity (a
``networkx.Graph``, most plain class instances) make every output distinct,
and :func:`dpverify.audit` refuses them. Pass one of these (or any picklable
function returning a hashable value or a real number/vector) as
``output_key=``; it is applied to every output before anything else looks at it.

Examples
--------
>>> import networkx as nx, dpverify
>>> from dpverify.keys import weighted_edges
>>> def leak(x, rng):
...     g = nx.Graph()
...     g.add_edge(0, 1, weight=x)
...     return g
>>> r = dpverify.audit(leak, 0, 1, epsilon=1.0, n_samples=2_000, seed=1, output_key=weighted_edges)
>>> r.violation
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["weighted_edges", "edges", "array_tuple"]


def _endpoints(u, v, directed: bool):
    if directed:
        return (u, v)
    try:
        return (u, v) if u <= v else (v, u)
    except TypeError:  # nodes without an order: a frozenset is order-free
        return frozenset((u, v))


def weighted_edges(graph, weight: str = "weight"):
    """``(frozenset of nodes, frozenset of (u, v, weight))`` of a networkx graph.

    Undirected edges are stored with ordered endpoints, so equal graphs give
    equal keys whatever order their edges were added in. Edges without the
    attribute get weight ``None``.
    """
    directed = graph.is_directed()
    return (
        frozenset(graph.nodes),
        frozenset((*_endpoints(u, v, directed), data.get(weight)) for u, v, data in graph.edges(data=True)),
    )


def edges(graph):
    """``frozenset`` of the edges of a networkx graph (endpoints ordered), without weights."""
    directed = graph.is_directed()
    return frozenset(_endpoints(u, v, directed) for u, v in graph.edges())


def array_tuple(array):
    """``(shape, values)`` of an array as nested tuples of Python numbers (hashable)."""
    a = np.asarray(array)
    return (a.shape, tuple(a.ravel().tolist()))
