"""The down-up walk of DP-RST (Definition 3.2 / Algorithm 2) on spanning trees.

Exact checks (deterministic; Hypothesis over small connected graphs, weights 0..5):

- the transition matrix over all spanning trees is row-stochastic, reversible for
  mu(T) proportional to prod w(e) (detailed balance), hence mu is stationary;
- its eigenvalues lie in [0, 1] (the walk is a product D D*, positive semi-definite) and its
  spectral gap is at least 1/(n - 1), the bound of Anari, Liu, Oveis Gharan and Vinzant (2019)
  for matroids with product weights; on the catalogue the gaps are pinned to closed forms (triangles, the
  bridge) or to the exact matrix's eigendecomposition, and the mixing times to their exact integers;
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


#: exact spectral gaps of the catalogue chains. The triangle's walk has three states (the tree misses one
#: edge x); from state x it moves to state a != x with probability (1/2) w_x / (w_a + w_x) (drop a, then add
#: x rather than a), and its eigenvalues are 1 and 1/4 -+ r: r = sqrt(5)/20 for weights (1, 2, 3), sqrt(21)/28
#: for (1, 3, 6) (``test_triangle_walk_matches_its_hand_derived_matrix``). The bridge graph's walk drops the
#: bridge with probability 1/5 (and must add it back) and otherwise runs one triangle's walk, so
#: P = I/5 + (2/5)(P_A (x) I) + (2/5)(I (x) P_B) and its gap is 2/5 of a triangle's (weights (2, 3, 1) and
#: (1, 3, 2), permutations of (1, 2, 3)). The other three have no closed form here: pinned to the dense
#: eigendecomposition of the exact matrix (a symmetric eigenproblem: error about 1e-16 times the spectrum).
EXACT_GAPS = {
    "triangle": (15 - np.sqrt(5)) / 20,
    "four-cycle-chord": 0.4108896931768945,
    "k4": 0.3651117489825647,
    "k5-minus-two": 0.2833739816942733,
    "bridge": (15 - np.sqrt(5)) / 50,
    "triangle-k8": 3 / 4 - np.sqrt(21) / 28,
}
#: exact worst-start mixing times to total variation 1/4 (integers: the first step at or below 1/4)
EXACT_MIXING_STEPS = {"triangle": 1, "four-cycle-chord": 3, "k4": 3, "k5-minus-two": 5, "bridge": 5, "triangle-k8": 2}


def test_spectral_gap_and_mixing_on_the_catalogue():
    """The catalogue chains' spectral gaps (``EXACT_GAPS``, to 1e-12) and exact mixing times to 1/4 (exactly).

    Detects: a change in the down-up transition matrix, its symmetrisation or the eigenvalue chosen as lambda_2
    (any of them moves a gap by far more than 1e-12), or in the mixing-time scan (an integer off by one).
    """
    rows = []
    for entry in catalogue():
        gap = down_up.down_up_spectral_gap(entry.graph)
        steps, bound = down_up.down_up_mixing_time(entry.graph, tolerance=0.25)
        tv = down_up.down_up_total_variation(entry.graph, steps=steps + 5)
        assert np.all(np.diff(tv) <= 1e-12)  # worst-start distance never rises
        assert tv[steps] <= 0.25 < tv[steps - 1]
        assert gap == pytest.approx(EXACT_GAPS[entry.name], abs=1e-12), entry.name
        assert steps == EXACT_MIXING_STEPS[entry.name], entry.name
        assert gap >= 1.0 / (entry.graph.n - 1) - 1e-12
        assert steps <= bound
        rows.append((entry.name, entry.graph.n - 1, round(gap, 4), steps, round(bound, 1)))
    print("down-up walk: (graph, k = n-1, spectral gap, t_mix(1/4) exact, spectral bound)", rows)


@pytest.mark.parametrize("name", ["triangle", "triangle-k8"])
def test_triangle_walk_matches_its_hand_derived_matrix(name):
    """The triangle's down-up matrix equals the hand-derived one (states: the edge the tree misses), whose
    eigenvalues are 1 and 1/4 -+ r (``EXACT_GAPS``)."""
    graph = CATALOGUE[name].graph
    trees, matrix = down_up.down_up_transition_matrix(graph)
    w = graph.weights
    missing = [({0, 1, 2} - set(t)).pop() for t in trees]
    hand = np.zeros((3, 3))
    for i, x in enumerate(missing):
        for j, a in enumerate(missing):
            if a != x:
                hand[i, j] = 0.5 * w[x] / (w[a] + w[x])
        hand[i, i] = 1.0 - hand[i].sum()
    np.testing.assert_allclose(matrix, hand, atol=1e-15)
    eig = np.sort(np.linalg.eigvals(hand).real)
    r = 0.75 - EXACT_GAPS[name]  # eigenvalues 1/4 - r, 1/4 + r = 1 - gap, 1
    assert eig == pytest.approx([0.25 - r, 0.25 + r, 1.0], abs=1e-12)


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
