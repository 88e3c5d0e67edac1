"""algorithms/graphs/spanning_trees.py: every backend returns a minimum spanning forest, Kruskal on an order."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from algorithms.graphs import (
    MST_BACKENDS,
    as_graph_arrays,
    is_spanning_forest,
    kruskal_order,
    minimum_spanning_tree,
    number_of_components,
    to_networkx,
    tree_weight,
)
from algorithms.graphs.spanning_trees import ALGORITHMS
from algorithms.mst.strategies import graphs

TWO_VERTICES = as_graph_arrays((2, [[0, 1]], [0.0]))
ZERO_NEGATIVE_TIES = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], [0.0, 0.0, -1.0, 0.0, -1.0]))
DISCONNECTED = as_graph_arrays((5, [[0, 1], [1, 2], [0, 2]], [3.0, -2.0, 0.0]))  # 3, 4 isolated


def test_the_dispatch_table_names_every_backend():
    assert tuple(ALGORITHMS) == MST_BACKENDS == ("scipy", "networkx", "kruskal", "prim")


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
        assert np.array_equal(tree, np.sort(tree)), backend
        # equal up to float summation order (the sets may differ only under ties)
        assert tree_weight(g, tree) == pytest.approx(reference, rel=1e-12, abs=1e-9), backend


@given(graphs(allow_ties=False))
def test_backends_return_the_same_tree_without_ties(g):
    # With distinct weights the minimum spanning forest is unique.
    if len(np.unique(g.weights)) < g.m:
        return
    trees = {tuple(minimum_spanning_tree(g, backend=b)) for b in MST_BACKENDS}
    assert len(trees) == 1


@given(graphs(), st.randoms(use_true_random=False))
def test_given_weights_replace_the_graphs_own(g, random):
    w = np.array([random.uniform(-5, 5) for _ in range(g.m)])
    for backend in MST_BACKENDS:
        tree = minimum_spanning_tree(g, w, backend=backend)
        assert np.array_equal(tree, minimum_spanning_tree(g.with_weights(w), backend=backend)), backend


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


def test_an_unknown_backend_is_refused_by_name():
    with pytest.raises(ValueError, match="backend"):
        minimum_spanning_tree(TWO_VERTICES, backend="boruvka")


@given(graphs(), st.randoms(use_true_random=False))
@example(ZERO_NEGATIVE_TIES, None)
def test_kruskal_order_keeps_the_edges_that_close_no_cycle_in_order(g, random):
    order = list(range(g.m))
    if random is not None:
        random.shuffle(order)
    kept = kruskal_order(g.n, g.edges, np.array(order, dtype=np.int64))
    # reference: grow a networkx forest edge by edge in the same order
    forest = nx.Graph()
    forest.add_nodes_from(range(g.n))
    expected = []
    for e in order:
        a, b = map(int, g.edges[e])
        if not nx.has_path(forest, a, b):
            forest.add_edge(a, b)
            expected.append(e)
    assert kept.tolist() == expected
