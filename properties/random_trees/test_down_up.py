"""The down-up walk of DP-RST (Definition 3.2 / Algorithm 2) on spanning trees.

Exact checks (deterministic; Hypothesis over small connected graphs, weights 0..5):

- the transition matrix over all spanning trees is row-stochastic, reversible for
  mu(T) proportional to prod w(e) (detailed balance), hence mu is stationary;
- its eigenvalues lie in [0, 1] (the walk is a product D D*, positive semi-definite) and its
  spectral gap is at least 1/(n - 1), the bound of Anari, Liu, Oveis Gharan and Vinzant (2019)
  for matroids with product weights (the gap measured on the catalogue is printed);
- the worst-start total variation never rises, and the exact mixing time is within the spectral
  bound ln(1/(tolerance mu_min)) / gap.

Sampler checks (fixed seeds, alpha = suite_alpha = 1e-6 per test):

- invariants: sorted spanning trees of usable edges, reproducible per seed (Hypothesis);
- after s steps from a fixed start the sampled trees follow the exact s-step law (row of P^s),
  a chi-square goodness of fit; the power against the bug that matters (the added edge chosen
  uniformly instead of proportionally to its weight) is computed and asserted >= 0.999, and
  the buggy law is rejected on samples (test_power_unweighted_add_step_is_rejected).
"""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dpverify
from algorithms.graphs import as_graph_arrays, is_spanning_forest
from algorithms.random_trees import down_up, exact
from algorithms.random_trees.catalogue import catalogue
from algorithms.random_trees.strategies import connected_graphs

CATALOGUE = {entry.name: entry for entry in catalogue()}


_K4 = CATALOGUE["k4"].graph


@given(connected_graphs(max_vertices=6, max_extra=5))
@example(as_graph_arrays((2, np.array([[0, 1]]), np.array([3.0]))))
@example(_K4)
def test_down_up_matrix_is_reversible_for_the_product_measure(graph):
    """Detects: a down-up transition matrix that is not reversible for mu (e.g. an up step that ignores the
    weights)."""
    trees, matrix = down_up.down_up_transition_matrix(graph)
    target = exact.exact_tree_distribution(graph)
    assert set(trees) == set(target)
    pi = np.array([target[t] for t in trees])
    np.testing.assert_allclose(matrix.sum(axis=1), 1.0, atol=1e-12)
    flow = pi[:, None] * matrix
    np.testing.assert_allclose(flow, flow.T, atol=1e-12)
    np.testing.assert_allclose(pi @ matrix, pi, atol=1e-12)


@given(connected_graphs(max_vertices=6, max_extra=5))
@example(_K4)
def test_down_up_spectral_gap_is_at_least_one_over_k(graph):
    """Detects: a chain whose spectral gap falls below 1/k, the bound of Anari et al. (2019)."""
    trees, matrix = down_up.down_up_transition_matrix(graph)
    pi = np.array([exact.exact_tree_distribution(graph)[t] for t in trees])
    s = np.sqrt(pi)
    eig = np.linalg.eigvalsh(0.5 * ((s[:, None] * matrix / s[None, :]) + (s[:, None] * matrix / s[None, :]).T))
    assert eig.min() >= -1e-10 and eig.max() <= 1 + 1e-10
    assert down_up.down_up_spectral_gap(graph) >= 1.0 / (graph.n - 1) - 1e-10


def test_spectral_gap_and_mixing_on_the_catalogue():
    """Detects: a change in the pinned gaps and mixing times of the catalogue chains."""
    rows = []
    for entry in catalogue():
        gap = down_up.down_up_spectral_gap(entry.graph)
        steps, bound = down_up.down_up_mixing_time(entry.graph, tolerance=0.25)
        tv = down_up.down_up_total_variation(entry.graph, steps=steps + 5)
        assert np.all(np.diff(tv) <= 1e-12)  # worst-start distance never rises
        assert tv[steps] <= 0.25 < tv[steps - 1]
        assert gap >= 1.0 / (entry.graph.n - 1) - 1e-12
        assert steps <= bound
        rows.append((entry.name, entry.graph.n - 1, round(gap, 4), steps, round(bound, 1)))
    print("down-up walk: (graph, k = n-1, spectral gap, t_mix(1/4) exact, spectral bound)", rows)


# ----------------------------------------------------------------------------- sampler


@given(connected_graphs(max_vertices=7, max_extra=5), st.integers(0, 2**32 - 1), st.integers(0, 6))
@example(as_graph_arrays((2, np.array([[0, 1]]), np.array([3.0]))), 0, 3)
@example(as_graph_arrays((3, np.array([[0, 1], [1, 2], [0, 2]]), np.array([1.0, 1.0, 0.0]))), 5, 4)
def test_down_up_sampler_returns_usable_spanning_trees(graph, seed, steps):
    trees = down_up.down_up_spanning_trees(graph, steps=steps, size=5, rng=seed)
    again = down_up.down_up_spanning_trees(graph, steps=steps, size=5, rng=seed)
    np.testing.assert_array_equal(trees, again)
    unit = graph.with_weights(np.ones(graph.m))
    for tree in trees.tolist():
        assert tree == sorted(tree) and len(tree) == graph.n - 1
        assert is_spanning_forest(unit, tree) and all(graph.weights[e] > 0 for e in tree)


def _s_step_law(graph, start, steps, weights=None):
    trees, matrix = down_up.down_up_transition_matrix(graph, weights)
    row = np.zeros(len(trees))
    row[trees.index(tuple(start))] = 1.0
    for _ in range(steps):
        row = row @ matrix
    return {t: p for t, p in zip(trees, row) if p > 1e-15}


def _unweighted_step_law(graph, start, steps):
    """Law of the buggy walk that adds a crossing edge uniformly (the weights ignored in step 2)."""
    trees = [t for t in exact.enumerate_spanning_trees(graph) if all(graph.weights[e] > 0 for e in t)]
    _, matrix = down_up.down_up_transition_matrix(graph, (graph.weights > 0).astype(float))
    row = np.zeros(len(trees))
    row[trees.index(tuple(start))] = 1.0
    for _ in range(steps):
        row = row @ matrix
    return {t: p for t, p in zip(trees, row) if p > 1e-15}


CASES = [("k4", (0, 1, 2), 1), ("k4", (0, 1, 2), 3), ("bridge", (0, 1, 3, 4, 5), 4), ("k5-minus-two", (0, 1, 2, 3), 2)]


@pytest.mark.parametrize("name, start, steps", CASES)
def test_down_up_sampler_matches_its_exact_s_step_law(name, start, steps, suite_alpha):
    """False alarm <= suite_alpha per case; power against the unweighted add step asserted below.

    Detects: a sampler whose up step ignores the weights (mutant claims-down-up-unweighted-add).
    """
    graph = CATALOGUE[name].graph
    pmf = _s_step_law(graph, start, steps)
    sampler = down_up.DownUpSampler(graph, steps=steps, initial=start)
    n = 40_000
    assert dpverify.chi_square_power(pmf, _unweighted_step_law(graph, start, steps), n, suite_alpha) > 0.999
    assert dpverify.goodness_of_fit(sampler, pmf, n_samples=n, seed=310 + steps).pvalue > suite_alpha


def test_power_unweighted_add_step_is_rejected(suite_alpha):
    """The buggy law (uniform add step) is rejected on samples of the correct walk and vice versa."""
    graph = CATALOGUE["k4"].graph
    start, steps = (0, 1, 2), 3
    buggy = _unweighted_step_law(graph, start, steps)
    sampler = down_up.DownUpSampler(graph, steps=steps, initial=start)
    assert dpverify.goodness_of_fit(sampler, buggy, n_samples=40_000, seed=320).pvalue < suite_alpha
    unweighted = down_up.DownUpSampler(graph, (graph.weights > 0).astype(float), steps=steps, initial=start)
    pmf = _s_step_law(graph, start, steps)
    assert dpverify.goodness_of_fit(unweighted, pmf, n_samples=40_000, seed=321).pvalue < suite_alpha


def test_long_walk_matches_the_product_measure(suite_alpha):
    """After 60 steps on K4 the exact worst-start distance is < 1e-6, so the sample fits mu itself."""
    graph = CATALOGUE["k4"].graph
    assert down_up.down_up_total_variation(graph, steps=60)[-1] < 1e-6
    pmf = exact.exact_tree_distribution(graph)
    sampler = down_up.DownUpSampler(graph, steps=60)
    assert dpverify.goodness_of_fit(sampler, pmf, n_samples=40_000, seed=330).pvalue > suite_alpha
