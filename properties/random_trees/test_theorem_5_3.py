"""DP-RST 2025, Theorem 5.3: P[T~ = T*] >= t^(l(|V|-1)), evaluated exactly.

Readings (see :class:`algorithms.random_trees.exact.Theorem53Evaluation`):

A. literal (Definition 5.1): T* drawn from the true product measure, independently
   of the DP-RST output T~.
B. pointwise: for every tree T, P[T~ = T] >= t^(l(n-1)) mu_w(T).
C. mode: T* the most likely tree under the true weights.

Findings asserted here:

- every reading holds on graphs with a single spanning tree (tree graphs);
- A and C fail; the smallest counterexample is the triangle with k = 2 (unit
  weights), where P[T~ = T*] = t^2 - (2/3) t^3 < t^2 for every epsilon0 > 0; on the
  catalogue, A and C hold for small epsilon0 (0.1) and fail for large epsilon0 (4), because
  P[T~ = T*] tends to sum_T mu_w(T)^2 < 1 while the bound tends to 1;
- B held on every graph and parameter tried (no counterexample found; not a proof).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms.graphs import as_graph_arrays
from algorithms.random_trees import bits, exact
from algorithms.random_trees.catalogue import catalogue
from dpverify.testing.strategies import weighted_graphs

TRIANGLE = np.array([[0, 1], [1, 2], [0, 2]])


@st.composite
def tree_graphs(draw):
    """A random tree on 2..5 vertices with integer weights below k (k in 2..8)."""
    k = draw(st.integers(2, 8))
    tree = draw(
        weighted_graphs(
            min_vertices=2,
            max_vertices=5,
            connected=True,
            max_extra_edges=0,
            min_weight=1,
            max_weight=k - 1,
            integer_weights=True,
        )
    )
    return as_graph_arrays(tree), k


@given(tree_graphs(), st.floats(0.01, 10.0))
def test_all_readings_hold_on_graphs_with_one_spanning_tree(graph_k, epsilon0):
    """With one tree, P[T~ = T] = prod_e P[w~(e) > 0] >= prod_e P[w~(e) = w(e)] = t^(l(n-1))."""
    graph, k = graph_k
    result = exact.evaluate_theorem_5_3(graph, k=k, epsilon0=epsilon0)
    closed_form = np.prod([1 - bits.noisy_weight_pmf(int(w), k, epsilon0)[0] for w in graph.weights])
    assert result.literal == pytest.approx(closed_form, rel=1e-12)
    assert result.literal_holds and result.pointwise_holds and result.mode_holds


@given(st.floats(0.001, 30.0))
def test_smallest_counterexample_triangle_with_k_2(epsilon0):
    """Triangle, k = 2, unit weights: each edge survives with probability t, T~ is uniform on the survivors'
    trees, T* uniform on the 3 trees, so P[T~ = T*] = t^3/3 + t^2 (1 - t) = t^2 - (2/3) t^3 < t^2 = bound.
    The triangle is the smallest graph with two spanning trees and k = 2 the smallest bound, so this is the
    smallest counterexample to readings A and C (reading B holds here: ratio 3 P[T~ = T] = t^2 (3 - 2t) >= t^2)."""
    graph = as_graph_arrays((3, TRIANGLE, np.ones(3)))
    result = exact.evaluate_theorem_5_3(graph, k=2, epsilon0=epsilon0)
    t = bits.keep_probability(epsilon0)
    assert result.bound == pytest.approx(t**2, rel=1e-12)
    assert result.literal == pytest.approx(t**2 - 2 * t**3 / 3, rel=1e-12)
    assert result.mode_probability == pytest.approx(result.literal, rel=1e-12)
    assert not result.literal_holds and not result.mode_holds
    assert result.pointwise_holds


@pytest.mark.parametrize("entry", catalogue(), ids=lambda e: e.name)
def test_catalogue_findings(entry):
    """A and C hold at epsilon0 = 0.1 and fail at epsilon0 = 4 on every catalogue graph; B holds at both."""
    small = exact.evaluate_theorem_5_3(entry.graph, k=entry.k, epsilon0=0.1)
    large = exact.evaluate_theorem_5_3(entry.graph, k=entry.k, epsilon0=4.0)
    assert small.literal_holds and small.mode_holds and small.pointwise_holds
    assert not large.literal_holds and not large.mode_holds and large.pointwise_holds
    # the limit of reading A as epsilon0 grows: sum_T mu_w(T)^2 < 1
    mu = exact.exact_tree_distribution(entry.graph)
    assert large.literal < sum(p * p for p in mu.values()) + 0.05 < large.bound


def test_pointwise_reading_search(thorough):
    """Reading B on every weighting of the triangle (k <= 5; thorough: k <= 8, and the paw and 4-cycle) and
    an epsilon0 grid: no counterexample (the search that backs the report's "B held everywhere tried")."""
    eps_grid = [0.05, 0.5, 2.0, 8.0] if thorough else [0.5, 4.0]
    cases = [("triangle", 3, TRIANGLE, k) for k in ((2, 3, 4, 5, 8) if thorough else (3, 4, 5))]
    if thorough:
        paw = np.array([[0, 1], [1, 2], [0, 2], [2, 3]])
        cycle = np.array([[0, 1], [1, 2], [2, 3], [0, 3]])
        cases += [("paw", 4, paw, k) for k in (3, 4)] + [("c4", 4, cycle, k) for k in (3, 4)]
    for _, n, edges, k in cases:
        for w in np.array(np.meshgrid(*[np.arange(1, k)] * len(edges))).reshape(len(edges), -1).T:
            graph = as_graph_arrays((n, edges, w.astype(float)))
            for epsilon0 in eps_grid:
                result = exact.evaluate_theorem_5_3(graph, k=k, epsilon0=epsilon0)
                assert result.pointwise_holds, (n, edges.tolist(), w.tolist(), k, epsilon0, result)
