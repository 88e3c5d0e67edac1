"""algorithms/graphs.py: validation errors, backends agree, G(n, p) generator, tree keys."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from algorithms.errors import InvalidGraphError, InvalidWeightsError
from algorithms.graphs import (
    MST_BACKENDS,
    GraphArrays,
    as_graph_arrays,
    connected_gnp_graph,
    is_spanning_forest,
    minimum_spanning_tree,
    number_of_components,
    to_networkx,
    tree_key,
    tree_weight,
)
from algorithms.mst.strategies import graphs

TWO_VERTICES = as_graph_arrays((2, [[0, 1]], [0.0]))
ZERO_NEGATIVE_TIES = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], [0.0, 0.0, -1.0, 0.0, -1.0]))
DISCONNECTED = as_graph_arrays((5, [[0, 1], [1, 2], [0, 2]], [3.0, -2.0, 0.0]))  # 3, 4 isolated


@given(graphs())
@example(TWO_VERTICES)
@example(ZERO_NEGATIVE_TIES)
@example(DISCONNECTED)
def test_every_backend_returns_a_minimum_spanning_forest_of_the_same_weight(g):
    reference = nx.minimum_spanning_tree(to_networkx(g)).size(weight="weight")
    for backend in MST_BACKENDS:
        tree = minimum_spanning_tree(g, backend=backend)
        assert is_spanning_forest(g, tree), backend
        assert len(tree) == g.n - number_of_components(g)
        # equal up to float summation order (the sets may differ only under ties)
        assert tree_weight(g, tree) == pytest.approx(reference, rel=1e-12, abs=1e-9), backend


@given(graphs(allow_ties=False))
def test_backends_return_the_same_tree_without_ties(g):
    # With distinct weights the minimum spanning forest is unique.
    if len(np.unique(g.weights)) < g.m:
        return
    trees = {tuple(minimum_spanning_tree(g, backend=b)) for b in MST_BACKENDS}
    assert len(trees) == 1


def test_scipy_backend_handles_zero_weights_that_csgraph_would_drop():
    # csgraph treats a stored 0 as "no edge": the zero edge must still be used.
    g = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [0.0, 5.0, 6.0]))
    assert tuple(minimum_spanning_tree(g, backend="scipy")) == (0, 1)
    g = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [0.0, 0.0, 6.0]))
    assert tuple(minimum_spanning_tree(g, backend="scipy")) == (0, 1)
    # the smallest positive double next to zero forces the rank fallback
    tiny = np.nextafter(0.0, 1.0)
    g = as_graph_arrays((3, [[0, 1], [1, 2], [0, 2]], [0.0, tiny, -1.0]))
    assert tuple(minimum_spanning_tree(g, backend="scipy")) == (0, 2)


def test_networkx_input_keeps_node_order_and_edge_order():
    G = nx.Graph()
    G.add_edge("b", "a", weight=2.0)
    G.add_edge("a", "c", weight=-1.0)
    g = as_graph_arrays(G)
    assert g.n == 3 and g.edges.tolist() == [[0, 1], [1, 2]] and g.weights.tolist() == [2.0, -1.0]


@pytest.mark.parametrize(
    "bad, error, words",
    [
        ((1, np.empty((0, 2)), []), InvalidGraphError, "at least 2"),
        ((0, np.empty((0, 2)), []), InvalidGraphError, "at least 2"),
        ((3, [[0, 0]], [1.0]), InvalidGraphError, "self-loop"),
        ((3, [[0, 1], [1, 0]], [1.0, 2.0]), InvalidGraphError, "multi-edge"),
        ((3, [[0, 1], [0, 1]], [1.0, 2.0]), InvalidGraphError, "multi-edge"),
        ((3, [[0, 3]], [1.0]), InvalidGraphError, "outside the vertex range"),
        ((3, [[0, 1, 2]], [1.0]), InvalidGraphError, "shape"),
        ((3, [[0.5, 1]], [1.0]), InvalidGraphError, "integer"),
        ((3, [[0, 1]], [np.nan]), InvalidWeightsError, "finite"),
        ((3, [[0, 1]], [np.inf]), InvalidWeightsError, "finite"),
        ((3, [[0, 1]], [-np.inf]), InvalidWeightsError, "finite"),
        ((3, [[0, 1]], [1.0, 2.0]), InvalidWeightsError, "shape"),
        ((2.0, [[0, 1]], [1.0]), InvalidGraphError, "integer"),
        ("not a graph", InvalidGraphError, "networkx"),
    ],
)
def test_bad_arrays_raise_named_errors(bad, error, words):
    with pytest.raises(error, match=words):
        as_graph_arrays(bad)


def test_bad_networkx_graphs_raise_named_errors():
    with pytest.raises(InvalidGraphError, match="directed"):
        as_graph_arrays(nx.DiGraph([(0, 1)]))
    with pytest.raises(InvalidGraphError, match="multigraph"):
        as_graph_arrays(nx.MultiGraph([(0, 1), (0, 1)]))
    loop = nx.Graph()
    loop.add_edge(0, 1, weight=1.0)
    loop.add_edge(1, 1, weight=1.0)
    with pytest.raises(InvalidGraphError, match="self-loop"):
        as_graph_arrays(loop)
    with pytest.raises(InvalidWeightsError, match="no 'weight'"):
        as_graph_arrays(nx.path_graph(3))
    nan = nx.Graph()
    nan.add_edge(0, 1, weight=float("nan"))
    with pytest.raises(InvalidWeightsError, match="finite"):
        as_graph_arrays(nan)
    one = nx.Graph()
    one.add_node(0)
    with pytest.raises(InvalidGraphError, match="at least 2"):
        as_graph_arrays(one)
    with pytest.raises(ValueError, match="backend"):
        minimum_spanning_tree(TWO_VERTICES, backend="boruvka")


@given(st.integers(2, 40), st.floats(0.05, 1.0), st.integers(0, 2**32 - 1))
def test_connected_gnp_graph_is_connected_simple_and_seeded(n, p, seed):
    p = max(p, min(1.0, 2.5 * np.log(n) / n))  # keep the redraw loop short
    g = connected_gnp_graph(n, p, seed)
    assert number_of_components(g) == 1
    assert isinstance(g, GraphArrays) and as_graph_arrays(g).m == g.m  # re-validates: simple
    assert np.all((g.weights >= 0) & (g.weights <= 100))
    h = connected_gnp_graph(n, p, seed)
    assert np.array_equal(g.edges, h.edges) and np.array_equal(g.weights, h.weights)


def test_connected_gnp_graph_edge_count_matches_binomial_mean():
    # n = 200, p = 0.3: m ~ Binomial(19900, 0.3), sd ~ 65; |m - mean| <= 6 sd fails w.p. < 2e-9.
    g = connected_gnp_graph(200, 0.3, 7)
    assert abs(g.m - 0.3 * 19900) <= 6 * np.sqrt(19900 * 0.3 * 0.7)


def test_tree_key_is_canonical():
    assert tree_key(np.array([3, 1, 2])) == (1, 2, 3) == tree_key([2, 3, 1])
    assert all(type(i) is int for i in tree_key(np.array([2, 1], dtype=np.int32)))


def test_validated_edges_are_frozen_and_not_revalidated():
    """Validated edge arrays are read-only, so remembering them by identity is safe."""
    from algorithms.graphs import as_graph_arrays as _as
    from algorithms.graphs import incidence_lists

    g = _as((3, [[0, 1], [1, 2]], [1.0, 2.0]))
    with pytest.raises(ValueError):
        g.edges[0, 0] = 2
    again = _as(g)
    assert again.edges is g.edges  # no copy: the duplicate check was skipped
    first = incidence_lists(g.n, g.edges)
    assert incidence_lists(g.n, g.edges) is first
    # a writable array with the same content is validated afresh (and duplicates still caught)
    with pytest.raises(InvalidGraphError):
        _as((3, np.array([[0, 1], [1, 0]]), [1.0, 2.0]))
