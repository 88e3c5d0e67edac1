"""algorithms/graphs/validation.py: named errors, the validated GraphArrays type, forests, tree keys."""

import pickle

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import algorithms.graphs.validation as validation
from algorithms.errors import InvalidGraphError, InvalidWeightsError
from algorithms.graphs import (
    GraphArrays,
    as_graph_arrays,
    incidence_lists,
    is_spanning_forest,
    number_of_components,
    to_networkx,
    tree_key,
)
from algorithms.mst.strategies import graphs

TRIANGLE_AND_EDGE = as_graph_arrays((5, [[0, 1], [1, 2], [0, 2], [3, 4]], [1.0, 2.0, 3.0, 4.0]))


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


def test_tree_key_is_canonical():
    assert tree_key(np.array([3, 1, 2])) == (1, 2, 3) == tree_key([2, 3, 1])
    assert all(type(i) is int for i in tree_key(np.array([2, 1], dtype=np.int32)))


def test_graph_arrays_are_made_only_by_validation():
    with pytest.raises(TypeError, match="as_graph_arrays"):
        GraphArrays(2, np.array([[0, 1]]), np.array([1.0]))
    g = as_graph_arrays((3, [[0, 1], [1, 2]], [1.0, 2.0]))
    with pytest.raises(AttributeError, match="immutable"):
        g.n = 2
    for array in (g.edges, g.weights):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 0


def _same_buffer(a, b) -> bool:
    """The two arrays are views of one buffer (not copies), also when they are empty."""
    return a.shape == b.shape and a.__array_interface__["data"][0] == b.__array_interface__["data"][0]


def test_a_validated_graph_is_not_validated_again(monkeypatch):
    g = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3]], [1.0, 2.0, 3.0]))

    def must_not_run(*args):
        raise AssertionError("the edges of a validated graph were validated again")

    monkeypatch.setattr(validation, "_validate_edges", must_not_run)
    assert as_graph_arrays(g) is g
    h = g.with_weights([5.0, -1.0, 0.0])
    assert (
        _same_buffer(h.edges, g.edges) and h.n == g.n
    )  # the topology is not copied and h.weights.tolist() == [5.0, -1.0, 0.0]
    with pytest.raises(InvalidWeightsError, match="finite"):
        g.with_weights([1.0, np.nan, 2.0])
    with pytest.raises(InvalidWeightsError, match="shape"):
        g.with_weights([1.0, 2.0])
    with pytest.raises(InvalidGraphError, match="at least 5"):
        as_graph_arrays(g, min_vertices=5)
    # arrays from outside are validated (here: by the patched function)
    with pytest.raises(AssertionError, match="validated again"):
        as_graph_arrays((4, np.array(g.edges), g.weights))


def test_the_callers_arrays_are_neither_frozen_nor_shared():
    edges = np.array([[0, 1], [1, 2]])
    weights = np.array([1.0, 2.0])
    g = as_graph_arrays((3, edges, weights))
    assert edges.flags.writeable and weights.flags.writeable
    weights[0] = np.nan  # the caller may change its array; the validated graph keeps its copy
    assert g.weights.tolist() == [1.0, 2.0]
    new = np.array([3.0, 4.0])
    h = g.with_weights(new)
    new[1] = np.inf
    assert new.flags.writeable and h.weights.tolist() == [3.0, 4.0]


@given(graphs())
def test_unpacking_pickling_and_repr_give_the_same_graph(g):
    n, edges, weights = g
    assert n == g.n and _same_buffer(edges, g.edges) and _same_buffer(weights, g.weights)
    for other in (pickle.loads(pickle.dumps(g)), eval(repr(g), {"as_graph_arrays": as_graph_arrays})):
        assert isinstance(other, GraphArrays) and other.n == g.n
        assert np.array_equal(other.edges, g.edges) and np.array_equal(other.weights, g.weights)
        assert not other.edges.flags.writeable and not other.weights.flags.writeable


@given(graphs())
def test_incidence_lists_list_every_edge_at_both_ends_and_are_kept_with_the_topology(g):
    indptr, nbr, eid = incidence_lists(g)
    assert incidence_lists(g) is incidence_lists(g.with_weights(-g.weights)) is incidence_lists(g)
    fresh = incidence_lists(g.n, g.edges)
    assert all(np.array_equal(a, b) for a, b in zip(fresh, (indptr, nbr, eid)))
    for v in range(g.n):
        listed = sorted((int(eid[p]), int(nbr[p])) for p in range(indptr[v], indptr[v + 1]))
        expected = sorted((e, int(a + b - v)) for e, (a, b) in enumerate(g.edges) if v in (a, b))
        assert listed == expected
    with pytest.raises(TypeError):
        incidence_lists(g, g.edges)


@given(graphs(), st.data())
@example(TRIANGLE_AND_EDGE, None)
def test_is_spanning_forest_agrees_with_networkx(g, data):
    if data is None:  # the triangle plus an edge: a cycle of the right size is no forest
        cases = [[0, 1, 2], [0, 1, 3], [0, 0, 3], [0, 1, 4], [0, 3]]
    else:
        cases = [data.draw(st.lists(st.integers(-1, g.m), max_size=g.n))]
    for idx in cases:
        valid = len(set(idx)) == len(idx) and all(0 <= e < g.m for e in idx)
        expected = False
        if valid:
            sub = nx.Graph()
            sub.add_nodes_from(range(g.n))
            sub.add_edges_from(map(tuple, g.edges[idx].tolist()))
            expected = nx.is_forest(sub) and nx.number_connected_components(sub) == number_of_components(g)
        assert is_spanning_forest(g, idx) == expected, idx
    if data is None:
        assert [is_spanning_forest(g, c) for c in cases] == [False, True, False, False, False]


def test_to_networkx_keeps_indices_and_weights():
    h = to_networkx(TRIANGLE_AND_EDGE, weights=[0.0, -1.0, 5.0, 2.0])
    assert sorted(h.nodes) == list(range(5))
    assert {d["index"]: d["weight"] for _, _, d in h.edges(data=True)} == {0: 0.0, 1: -1.0, 2: 5.0, 3: 2.0}


def test_graph_queries_take_any_graph_input_and_validate_weights():
    """The queries accept whatever as_graph_arrays accepts, and validate weights they are given."""
    from algorithms.graphs import is_spanning_forest, number_of_components, tree_weight

    raw = (4, [[0, 1], [1, 2]], [1.0, 2.0])
    assert number_of_components(raw) == 2
    assert is_spanning_forest(raw, [0, 1]) and not is_spanning_forest(raw, [0])
    assert tree_weight(raw, [0, 1]) == 3.0 and tree_weight(raw, [1], [5.0, 7.0]) == 7.0
    with pytest.raises(InvalidWeightsError, match="finite"):
        tree_weight(raw, [0], [np.nan, 1.0])


def test_the_arrays_of_a_validated_graph_cannot_be_made_writeable():
    """Holding a GraphArrays is the proof of validity: its arrays cannot be unlocked and edited."""
    g = as_graph_arrays((3, [[0, 1], [1, 2]], [1.0, 2.0]))
    for array in (g.weights, g.edges, *list(g)[1:]):
        with pytest.raises(ValueError, match="WRITEABLE"):
            array.setflags(write=True)


def test_an_unknown_backend_is_a_named_error():
    from algorithms.errors import AlgorithmInputError
    from algorithms.graphs import minimum_spanning_tree

    with pytest.raises(AlgorithmInputError, match="unknown backend 'boruvka'; choose one of"):
        minimum_spanning_tree((3, [[0, 1], [1, 2]], [1.0, 2.0]), backend="boruvka")
