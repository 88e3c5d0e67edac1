"""Hypothesis strategies for neighbouring inputs (dpverify.testing.strategies) and the search over pairs.

The strategy tests are deterministic invariants under ``@given``. The two
search tests audit pairs with a multiple-testing correction:

- correct mechanism: family-wise false-alarm rate <= suite_alpha (Holm, or
  Bonferroni over the examples under ``@given``);
- broken mechanism (sensitivity 1 assumed, l1 distance 2 allowed, so the true
  loss is 2 eps = 2 on pairs whose sums differ by 2): each such pair's audit at
  20_000 samples has a p-value below 1e-100, so power ~1 after Holm over 12 pairs.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, find, given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.mechanisms.textbook import GeometricMechanism
from dpverify.testing import assert_dp, audit_pairs, per_example_alpha
from dpverify.testing.strategies import (
    GraphPair,
    WeightedGraph,
    draw_pairs,
    edge_weights,
    neighbouring_graphs,
    neighbouring_streams,
    neighbouring_vectors,
    vector_distance,
    weighted_graphs,
)


@given(
    pair=neighbouring_vectors(norm="l1", distance=1.0),
)
def test_l1_vectors_are_distinct_neighbours(pair):
    x, x_prime = pair
    assert x.shape == x_prime.shape and x.ndim == 1 and x.dtype == np.float64
    assert 0 < vector_distance(x, x_prime, "l1") <= 1.0


@given(pair=neighbouring_vectors(4, norm="linf", distance=0.5))
def test_linf_vectors_are_distinct_neighbours(pair):
    x, x_prime = pair
    assert x.shape == (4,)
    assert 0 < vector_distance(x, x_prime, "linf") <= 0.5


@given(pair=neighbouring_vectors(norm="l1", distance=2, integer=True))
def test_integer_vectors_are_distinct_neighbours(pair):
    x, x_prime = pair
    assert x.dtype == np.int64 and x_prime.dtype == np.int64
    assert 0 < np.abs(x - x_prime).sum() <= 2


@given(pair=neighbouring_vectors(3, norm="l1", distance=1.0, min_distance=1.0))
def test_min_distance_puts_pairs_on_the_sphere(pair):
    assert math.isclose(vector_distance(*pair, "l1"), 1.0, rel_tol=1e-9)


# ----------------------------------------------------------------------------- weighted graphs


@st.composite
def graph_options(draw):
    """Keyword arguments of weighted_graphs that some graph satisfies (every option, any mix)."""
    lo_n = draw(st.integers(1, 5))
    hi_n = draw(st.integers(lo_n, 8))
    connected = draw(st.booleans())
    kwargs = dict(
        min_vertices=lo_n,
        max_vertices=hi_n,
        connected=connected,
        ties=draw(st.booleans()),
        integer_weights=draw(st.booleans()),
        shuffle_edges=draw(st.booleans()),
    )
    kwargs["min_edges"] = draw(st.integers(0, lo_n * (lo_n - 1) // 2))
    if draw(st.booleans()):
        kwargs["max_edges"] = draw(st.integers(max(kwargs["min_edges"], hi_n - 1 if connected else 0), 30))
    if draw(st.booleans()):
        forest = lo_n - 1 if connected else 0
        least = max(0, kwargs["min_edges"] - forest)
        kwargs["max_extra_edges"] = draw(st.integers(least, least + 6))
    lo_w = draw(st.integers(-60, 5))
    kwargs["min_weight"], kwargs["max_weight"] = float(lo_w), float(lo_w + draw(st.integers(0, 40)))
    if connected and draw(st.booleans()):
        kwargs["min_tree_weight"] = float(draw(st.integers(lo_w, int(kwargs["max_weight"]))))
    if kwargs["integer_weights"] and not kwargs["ties"]:
        kwargs["max_weight"] = kwargs["min_weight"] + 100  # room for distinct integers
    return kwargs


def _assert_graph_within(graph, kw):
    n, edges, weights = graph
    assert isinstance(graph, WeightedGraph)
    assert kw["min_vertices"] <= n <= kw["max_vertices"]
    assert edges.dtype == np.int64 and edges.shape == (len(weights), 2) and weights.dtype == np.float64
    assert np.all(edges[:, 0] < edges[:, 1]) and np.all(edges >= 0) and np.all(edges < n)  # no self-loop
    assert len({tuple(e) for e in edges.tolist()}) == len(edges)  # no multi-edge
    assert kw["min_edges"] <= len(edges) <= kw.get("max_edges", len(edges))
    g = graph.to_networkx()
    forest = n - nx.number_connected_components(g)
    if "max_extra_edges" in kw:
        assert len(edges) <= forest + kw["max_extra_edges"]
    if kw["connected"]:
        assert nx.is_connected(g)
    assert np.all(np.isfinite(weights)) and np.all(kw["min_weight"] <= weights)
    assert np.all(weights <= kw["max_weight"])
    if kw["integer_weights"]:
        assert np.all(weights == np.round(weights))
    if not kw["ties"]:
        assert len(np.unique(weights)) == len(weights)
    if not kw["shuffle_edges"]:
        assert edges.tolist() == sorted(edges.tolist())
    if "min_tree_weight" in kw:  # the edges of weight >= min_tree_weight alone connect the graph
        heavy = nx.Graph()
        heavy.add_nodes_from(range(n))
        heavy.add_edges_from(e for e, w in zip(edges.tolist(), weights) if w >= kw["min_tree_weight"])
        assert nx.is_connected(heavy)


@given(st.data(), graph_options())
def test_weighted_graphs_are_simple_and_respect_every_bound(data, kw):
    _assert_graph_within(data.draw(weighted_graphs(**kw)), kw)


@given(weighted_graphs(max_vertices=6))
@example(WeightedGraph(2, np.zeros((0, 2), dtype=np.int64), np.zeros(0)))
def test_weighted_graph_converts_to_the_same_networkx_graph(graph):
    g = graph.to_networkx()
    assert g.number_of_nodes() == graph.n and g.number_of_edges() == len(graph.edges)
    for (u, v), w in zip(graph.edges.tolist(), graph.weights):
        assert g.edges[u, v]["weight"] == w


def test_weighted_graphs_cover_the_corner_cases():
    """Default draws include trees, K_n (n >= 5), several components, ties, zero and negative weights."""
    graphs = draw_pairs(weighted_graphs(), 200, seed=0)
    components = [nx.number_connected_components(g.to_networkx()) for g in graphs]
    assert any(len(g.edges) == g.n - 1 and c == 1 for g, c in zip(graphs, components))
    assert any(g.n >= 5 and len(g.edges) == g.n * (g.n - 1) // 2 for g in graphs)
    assert any(c >= 3 for c in components)
    assert any(len(np.unique(g.weights)) < len(g.weights) for g in graphs)
    assert any((g.weights == 0).any() for g in graphs) and any((g.weights < 0).any() for g in graphs)


def _smallest(strategy, condition):
    return find(strategy, condition, settings=settings(database=None, max_examples=2000))


def test_weighted_graphs_shrink_to_the_smallest_graph():
    n, edges, weights = _smallest(weighted_graphs(), lambda g: True)
    assert n == 2 and edges.shape == (0, 2)  # two vertices, no edge
    n, edges, weights = _smallest(weighted_graphs(connected=True), lambda g: True)
    assert n == 2 and edges.tolist() == [[0, 1]] and weights.tolist() == [0.0]
    n, edges, weights = _smallest(
        weighted_graphs(min_weight=1.0, max_weight=5.0, integer_weights=True), lambda g: len(g.edges) > 0
    )
    assert n == 2 and edges.tolist() == [[0, 1]] and weights.tolist() == [1.0]  # the bound nearest zero
    # a weight tie: two edges of weight 0 (a path on three vertices)
    n, edges, weights = _smallest(
        weighted_graphs(shuffle_edges=True), lambda g: len(np.unique(g.weights)) < len(g.weights)
    )
    assert n == 3 and len(edges) == 2 and weights.tolist() == [0.0, 0.0]
    # a cycle: a triangle of zero weights (the shrinker may leave isolated vertices beside it)
    graph = _smallest(weighted_graphs(), lambda g: len(nx.cycle_basis(g.to_networkx())) > 0)
    assert len(graph.edges) == 3 and graph.weights.tolist() == [0.0, 0.0, 0.0]
    assert len(nx.cycle_basis(graph.to_networkx())) == 1
    # a disconnected graph with an edge: one edge and an isolated vertex
    n, edges, weights = _smallest(
        weighted_graphs(), lambda g: len(g.edges) > 0 and not nx.is_connected(g.to_networkx())
    )
    assert n == 3 and len(edges) == 1 and weights.tolist() == [0.0]


def test_edge_weights_respect_the_options():
    w = draw_pairs(edge_weights(30, min_weight=-3, max_weight=40, integer_weights=True, ties=False), 20, seed=2)
    assert all(a.shape == (30,) and len(np.unique(a)) == 30 and np.all(a == np.round(a)) for a in w)
    assert all(np.all((-3 <= a) & (a <= 40)) for a in w)
    assert find(edge_weights(3), lambda a: True).tolist() == [0.0, 0.0, 0.0]


def test_impossible_graph_bounds_raise_named_errors():
    with pytest.raises(InvalidParameterError, match="min_vertices"):
        weighted_graphs(min_vertices=0)
    with pytest.raises(InvalidParameterError, match="max_vertices"):
        weighted_graphs(min_vertices=4, max_vertices=3)
    with pytest.raises(InvalidParameterError, match="max_edges"):
        weighted_graphs(max_vertices=5, connected=True, max_edges=3)
    with pytest.raises(InvalidParameterError, match="min_edges"):
        weighted_graphs(min_vertices=3, min_edges=4)
    with pytest.raises(InvalidParameterError, match="max_extra_edges"):
        weighted_graphs(min_edges=2, max_extra_edges=1)
    with pytest.raises(InvalidParameterError, match="min_weight"):
        weighted_graphs(min_weight=2.5, max_weight=2.7, integer_weights=True)
    with pytest.raises(InvalidParameterError, match="distinct integer"):
        weighted_graphs(max_vertices=9, min_weight=0, max_weight=5, integer_weights=True, ties=False)
    with pytest.raises(InvalidParameterError, match="max_weight"):
        weighted_graphs(connected=True, min_tree_weight=60.0)
    with pytest.raises(InvalidParameterError, match="connected"):
        weighted_graphs(min_tree_weight=1.0)
    with pytest.raises(InvalidParameterError, match="distinct integer"):
        edge_weights(4, min_weight=0, max_weight=2, integer_weights=True, ties=False)


# ----------------------------------------------------------------------------- neighbouring pairs


@given(pair=neighbouring_graphs(max_vertices=8, max_shift=0.5))
@example(pair=GraphPair(2, np.array([[0, 1]]), np.array([0.0]), np.array([0.5])))
def test_graph_pairs_share_topology_and_shift_weights_by_at_most_d(pair):
    n, edges, w, w_prime = pair
    assert edges.shape == (len(w), 2) and w.shape == w_prime.shape
    assert np.all(edges[:, 0] < edges[:, 1]) and np.all(edges < n)
    assert len({tuple(e) for e in edges.tolist()}) == len(edges)  # no multi-edges
    assert 0 < np.max(np.abs(w - w_prime)) <= 0.5
    g, g_prime = pair.to_networkx()
    assert nx.is_connected(g) and g.number_of_nodes() == n
    assert sorted(g.edges) == sorted(g_prime.edges)


@given(pair=neighbouring_graphs(max_vertices=6, shift="one", as_networkx=True))
def test_graph_pairs_shifting_one_edge(pair):
    g, g_prime = pair
    changed = [e for e in g.edges if g.edges[e]["weight"] != g_prime.edges[e]["weight"]]
    assert len(changed) == 1
    e = changed[0]
    assert abs(g.edges[e]["weight"] - g_prime.edges[e]["weight"]) <= 1.0


@given(pair=neighbouring_streams(st.integers(0, 3), max_length=12))
def test_substituted_streams_differ_in_exactly_one_position(pair):
    s, s_prime = pair
    assert len(s) == len(s_prime) >= 1
    assert sum(a != b for a, b in zip(s, s_prime)) == 1


@given(pair=neighbouring_streams(relation="add-remove", min_length=0, max_length=12))
def test_add_remove_streams_differ_by_one_insertion(pair):
    s, s_prime = pair
    short, long_ = (s, s_prime) if len(s) < len(s_prime) else (s_prime, s)
    assert len(long_) == len(short) + 1
    assert any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def test_draw_pairs_is_reproducible_and_distinct():
    strategy = neighbouring_vectors(3, norm="l1", integer=True)
    a = draw_pairs(strategy, 15, seed=4)
    b = draw_pairs(strategy, 15, seed=4)
    assert len(a) == 15
    assert all(np.array_equal(p[0], q[0]) and np.array_equal(p[1], q[1]) for p, q in zip(a, b))
    assert len({repr(p) for p in a}) == 15


def test_bad_parameters_raise_named_errors():
    with pytest.raises(InvalidParameterError, match="norm"):
        draw_pairs(neighbouring_vectors(norm="l2"), 1)
    with pytest.raises(InvalidParameterError, match="distance"):
        draw_pairs(neighbouring_vectors(distance=0), 1)
    with pytest.raises(InvalidParameterError, match="integer distance"):
        draw_pairs(neighbouring_vectors(integer=True, distance=0.5), 1)
    with pytest.raises(InvalidParameterError, match="relation"):
        draw_pairs(neighbouring_streams(relation="swap"), 1)
    with pytest.raises(InvalidParameterError, match="min_vertices"):
        draw_pairs(neighbouring_graphs(min_vertices=1), 1)


class GeometricSum:
    """Integer sum of a count vector plus two-sided geometric noise calibrated to sensitivity 1."""

    def __init__(self, epsilon):
        self.noise = GeometricMechanism(epsilon)

    def __call__(self, data, rng):
        return self.noise(int(np.sum(data)), rng)

    def sample(self, data, size, rng):
        return self.noise.sample(int(np.sum(data)), size, rng)


def test_holm_search_over_pairs_passes_correct_and_flags_broken(suite_alpha):
    """Correct: l1-distance-1 pairs. Broken: the same mechanism on l1-distance-2 pairs."""
    mechanism = GeometricSum(1.0)
    correct_pairs = draw_pairs(neighbouring_vectors(3, norm="l1", distance=1, integer=True), 12, seed=1)
    ok = audit_pairs(mechanism, correct_pairs, epsilon=1.0, n_samples=20_000, alpha=suite_alpha, seed=2)
    assert not ok.violation, ok.worst_result
    assert all(a >= r.pvalue for a, r in zip(ok.adjusted_pvalues, ok.results))

    wide_pairs = draw_pairs(neighbouring_vectors(3, norm="l1", distance=2, integer=True), 12, seed=3)
    shifts = [abs(int(np.sum(x_prime)) - int(np.sum(x))) for x, x_prime in wide_pairs]
    assert 2 in shifts  # the search space contains the breaking pairs
    broken = audit_pairs(mechanism, wide_pairs, epsilon=1.0, n_samples=20_000, alpha=suite_alpha, seed=4)
    assert broken.violation
    flagged = {i for i, v in enumerate(broken.violations) if v}
    assert flagged == {i for i, s in enumerate(shifts) if s == 2}
    assert shifts[broken.worst] == 2 and broken.worst_result.epsilon_lower_bound > 1.0


N_EXAMPLES = 6


@settings(max_examples=N_EXAMPLES)
@given(pair=neighbouring_vectors(2, norm="l1", distance=1, integer=True))
def test_assert_dp_inside_given_with_bonferroni(pair, suite_alpha):
    """Bonferroni over the examples: family-wise false-alarm rate <= suite_alpha."""
    x, x_prime = pair
    assert_dp(
        GeometricSum(1.0),
        x,
        x_prime,
        epsilon=1.0,
        n_samples=10_000,
        seed=0,
        alpha=per_example_alpha(suite_alpha, N_EXAMPLES),
    )


def test_audit_pairs_rejects_bad_input():
    with pytest.raises(InvalidParameterError, match="at least one"):
        audit_pairs(GeometricSum(1.0), [], epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="pair"):
        audit_pairs(GeometricSum(1.0), [(1, 2, 3)], epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="family-wise"):
        audit_pairs(GeometricSum(1.0), [(0, 1)], epsilon=1.0, method="fdr_bh")
