"""Weighted spanning tree samplers against the exact product measure (DP-RST 2025, Section 3.2, Algorithm 3)."""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dpverify
from algorithms.errors import InvalidGraphError, InvalidWeightsError, NoSpanningTreeError
from algorithms.graphs import as_graph_arrays, is_spanning_forest
from algorithms.random_trees import exact, samplers
from algorithms.random_trees.catalogue import catalogue
from algorithms.random_trees.strategies import connected_graphs

CATALOGUE = {entry.name: entry for entry in catalogue()}


def _is_usable_tree(graph, tree):
    return (
        len(tree) == graph.n - 1
        and is_spanning_forest(graph.with_weights(np.ones(graph.m)), list(tree))
        and all(graph.weights[e] > 0 for e in tree)
    )


# ----------------------------------------------------------------------------- invariants


@given(connected_graphs(), st.integers(0, 2**32 - 1))
@example(as_graph_arrays((2, np.array([[0, 1]]), np.array([3.0]))), 0)
@example(as_graph_arrays((3, np.array([[0, 1], [1, 2], [0, 2]]), np.array([1.0, 1.0, 0.0]))), 5)
def test_every_sampler_returns_a_spanning_tree_of_usable_edges(graph, seed):
    trees = [
        *samplers.wilson_spanning_trees(graph, size=5, rng=seed).tolist(),
        *samplers.aldous_broder_spanning_trees(graph, size=5, rng=seed).tolist(),
        *samplers.exchange_chain_spanning_trees(graph, steps=7, size=5, rng=seed).tolist(),
    ]
    for tree in trees:
        assert tree == sorted(tree)
        assert _is_usable_tree(graph, tree)


@given(connected_graphs(), st.integers(0, 2**32 - 1))
def test_same_seed_same_trees(graph, seed):
    for draw in (samplers.wilson_spanning_trees, samplers.aldous_broder_spanning_trees):
        np.testing.assert_array_equal(draw(graph, size=4, rng=seed), draw(graph, size=4, rng=seed))
    a = samplers.exchange_chain_spanning_trees(graph, steps=5, size=4, rng=seed)
    np.testing.assert_array_equal(a, samplers.exchange_chain_spanning_trees(graph, steps=5, size=4, rng=seed))


@given(connected_graphs(max_vertices=6, max_extra=5))
def test_enumeration_matches_the_matrix_tree_theorem(graph):
    trees = exact.enumerate_spanning_trees(graph)
    products = [math.prod(graph.weights[list(t)]) for t in trees]
    assert math.isclose(sum(products), exact.matrix_tree_total_weight(graph), rel_tol=1e-9, abs_tol=1e-9)
    assert len(trees) == exact.spanning_tree_count(graph)
    unit = graph.with_weights(np.ones(graph.m))
    assert len(set(trees)) == len(trees) and all(_is_usable_tree(unit, t) for t in trees)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6, 7])
def test_cayley_formula(n):
    assert exact.spanning_tree_count(nx.complete_graph(n)) == n ** (n - 2)


@given(connected_graphs(max_vertices=5, max_extra=4))
def test_chain_is_reversible_for_the_product_measure(graph):
    """Detailed balance pi(T) P(T, T') = pi(T') P(T', T) exactly, rows stochastic (DP-RST 2025, Algorithm 3).

    Detects: an exchange chain (Algorithm 3) whose drop rule is not proportional to 1/w (it would not be
    reversible for mu).
    """
    trees, matrix = exact.chain_transition_matrix(graph)
    target = exact.exact_tree_distribution(graph)
    pi = np.array([target[t] for t in trees])
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    flow = pi[:, None] * matrix
    np.testing.assert_allclose(flow, flow.T, atol=1e-12)
    np.testing.assert_allclose(pi @ matrix, pi, atol=1e-12)


@pytest.mark.parametrize("name", ["four-cycle-chord", "k4", "k5-minus-two", "bridge"])
def test_chain_total_variation_falls_with_steps(name):
    """The exact distance to the target never rises, and falls below 1e-3 (DP-RST 2025, Algorithm 3).

    Detects: a chain that does not approach mu.
    """
    entry = CATALOGUE[name]
    tv = exact.chain_total_variation(entry.graph, steps=60)
    assert np.all(np.diff(tv) <= 1e-15)
    assert tv[0] > 0.2 and tv[10] < tv[0] / 2 and tv[-1] < 1e-3
    s = exact.steps_for_total_variation(entry.graph, tolerance=1e-3)
    assert tv[s] <= 1e-3 < tv[s - 1]


def test_chain_on_the_triangle_mixes_in_one_step():
    """On a triangle the only cycle is the whole graph: dropping f with probability proportional to 1/w(f) is exact."""
    tv = exact.chain_total_variation(CATALOGUE["triangle"].graph, steps=3)
    assert tv[0] > 0.1 and np.all(tv[1:] < 1e-12)


# ----------------------------------------------------------------------------- distributions


def _gof(sampler, pmf, n, seed):
    return dpverify.goodness_of_fit(sampler, pmf, n_samples=n, seed=seed).pvalue


@pytest.mark.parametrize("entry", catalogue(), ids=lambda e: e.name)
def test_wilson_matches_the_product_measure(entry, suite_alpha):
    """Wilson's trees follow P[T] proportional to prod w(e) (catalogue). False alarm <= suite_alpha per graph.

    Power: the bug that matters (weights ignored) is rejected at this sample size,
    see :func:`test_power_wilson_ignoring_weights_is_rejected`.
    """
    pmf = exact.exact_tree_distribution(entry.graph)
    assert _gof(samplers.WilsonSampler(entry.graph), pmf, 60_000, 201) > suite_alpha


@pytest.mark.parametrize("name", ["k4", "bridge", "k5-minus-two"])
def test_aldous_broder_matches_uniform_and_weighted(name, suite_alpha):
    """Aldous-Broder with unit weights is uniform (DP-RST 2025, Algorithm 1); with weights, the product measure.

    Two tests per graph at suite_alpha / 2 each (false alarm <= suite_alpha per graph).
    Power: uniform and weighted laws differ on these graphs (TV >= 0.1), and the
    sampler run with the other law's weights is rejected like Wilson's in
    :func:`test_power_wilson_ignoring_weights_is_rejected`.
    """
    graph = CATALOGUE[name].graph
    ones = np.ones(graph.m)
    uniform = exact.exact_tree_distribution(graph, ones)
    assert len(set(uniform.values())) == 1 or np.ptp(list(uniform.values())) < 1e-12
    assert _gof(samplers.AldousBroderSampler(graph, ones), uniform, 60_000, 202) > suite_alpha / 2
    weighted = exact.exact_tree_distribution(graph)
    assert _gof(samplers.AldousBroderSampler(graph), weighted, 60_000, 203) > suite_alpha / 2


@pytest.mark.parametrize("name, steps", [("k4", 2), ("k4", 6), ("bridge", 3), ("four-cycle-chord", 25)])
def test_chain_matches_its_exact_law_after_s_steps(name, steps, suite_alpha):
    """The sampled chain after s steps follows the exact law (uniform start) P^s (DP-RST 2025, Algorithm 3).

    This checks the implementation step by step (not only its limit). False alarm
    <= suite_alpha per case. Power: one step too few on K4 (TV 0.08) is rejected, see
    :func:`test_power_chain_with_too_few_steps_is_rejected`.
    """
    graph = CATALOGUE[name].graph
    trees, dists = exact.chain_distributions(graph, steps=steps)
    pmf = {t: p for t, p in zip(trees, dists[-1]) if p > 0}
    sampler = samplers.ExchangeChainSampler(graph, steps=steps)
    assert _gof(sampler, pmf, 40_000, 204 + steps) > suite_alpha


def test_power_wilson_ignoring_weights_is_rejected(suite_alpha):
    """Power check: Wilson run with unit weights (a 'weights ignored' bug) fails the weighted goodness of fit.

    On K4 with weights 1..3 the noncentral chi-square power at 60,000 samples and
    alpha = suite_alpha is ~1 (asserted), and the observed p-value is below suite_alpha.
    """
    graph = CATALOGUE["k4"].graph
    pmf = exact.exact_tree_distribution(graph)
    uniform = exact.exact_tree_distribution(graph, np.ones(graph.m))
    assert dpverify.chi_square_power(pmf, uniform, 60_000, suite_alpha) > 0.999
    assert _gof(samplers.WilsonSampler(graph, np.ones(graph.m)), pmf, 60_000, 205) < suite_alpha


def test_power_chain_with_too_few_steps_is_rejected(suite_alpha):
    """Power check: 1 chain step on K4 is far from the target (TV ~ 0.08) and the test sees it."""
    graph = CATALOGUE["k4"].graph
    pmf = exact.exact_tree_distribution(graph)
    tv = exact.chain_total_variation(graph, steps=1)[1]
    assert tv > 0.05
    assert _gof(samplers.ExchangeChainSampler(graph, steps=1), pmf, 40_000, 206) < suite_alpha


# ----------------------------------------------------------------------------- bad input


def test_no_spanning_tree_names_the_cut_off_vertices():
    graph = CATALOGUE["bridge"].graph  # bridge 2-3 is edge 3
    w = graph.weights.copy()
    w[3] = 0
    for draw in (samplers.wilson_spanning_trees, samplers.aldous_broder_spanning_trees):
        with pytest.raises(NoSpanningTreeError, match=r"cut off from vertex 0: \[3, 4, 5\]"):
            draw(graph, w, rng=0)
    with pytest.raises(NoSpanningTreeError, match=r"\[3, 4, 5\]"):
        samplers.exchange_chain_spanning_trees(graph, w, steps=3, rng=0)
    with pytest.raises(NoSpanningTreeError, match=r"\[3, 4, 5\]"):
        exact.exact_tree_distribution(graph, w)


def test_disconnected_topology_is_no_spanning_tree():
    with pytest.raises(NoSpanningTreeError, match=r"\[2, 3\]"):
        samplers.wilson_spanning_tree((4, np.array([[0, 1], [2, 3]]), np.ones(2)))


@pytest.mark.parametrize("weights", [[1.0, -1.0, 1.0], [1.0, np.nan, 1.0], [1.0, np.inf, 1.0], [1.0, 1.0]])
def test_bad_sampling_weights_are_rejected(weights):
    graph = CATALOGUE["triangle"].graph
    with pytest.raises(InvalidWeightsError):
        samplers.wilson_spanning_tree(graph, np.array(weights), rng=0)


def test_bad_graphs_are_rejected():
    with pytest.raises(InvalidGraphError):
        samplers.wilson_spanning_tree(nx.DiGraph([(0, 1)]))
    with pytest.raises(InvalidGraphError):
        samplers.wilson_spanning_tree((1, np.empty((0, 2), dtype=int), np.empty(0)))
    with pytest.raises(InvalidGraphError):
        samplers.wilson_spanning_tree((3, np.array([[0, 1], [1, 0]]), np.ones(2)))


def test_networkx_input_edges_keep_networkx_order():
    g = nx.Graph()
    g.add_edge("a", "b", weight=2.0)
    g.add_edge("b", "c", weight=0.0)  # unusable
    g.add_edge("a", "c", weight=1.0)
    usable = tuple(i for i, (u, v) in enumerate(g.edges) if {u, v} != {"b", "c"})  # edge i = i-th of G.edges
    assert samplers.wilson_spanning_tree(g, rng=0) == usable


def test_chain_rejects_a_bad_initial_tree():
    graph = CATALOGUE["k4"].graph
    with pytest.raises(ValueError, match="spanning tree"):
        samplers.exchange_chain_spanning_trees(graph, steps=1, initial=[0, 1, 3])  # 0-1, 0-2, 1-2: a cycle
    with pytest.raises(ValueError, match="steps"):
        samplers.exchange_chain_spanning_trees(graph, steps=-1)
