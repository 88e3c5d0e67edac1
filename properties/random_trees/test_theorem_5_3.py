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
- B also fails. On K_n with a path tree weighted 2^l - 1, every other edge weighted 1,
  k = 2^l and large epsilon0, a rigorous upper bound on P[T~ = T] (exact pmf of the bit flips:
  no flip and each single flip exact, with tree measures from the matrix-tree theorem in exact
  integers; two or more flips bounded by 1; t in interval arithmetic) falls below
  t^(l(n-1)) mu_w(T): n = 16, l = 10, epsilon0 = 14 (ratio 0.99994) and n = 20, l = 10,
  epsilon0 = 12 (0.99907); the smallest n at which this bound refutes it on this family (l <= 10,
  epsilon0 <= 30) is 12 (l = 8, epsilon0 = 12). The small
  graphs searched below (triangle, paw, 4-cycle) have no counterexample: the bound's loss there is
  too small for the first-order effect of a flip to beat it. So no reading of Theorem 5.3 holds in
  general; it holds on graphs with a single spanning tree.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms.graphs import as_graph_arrays
from algorithms.random_trees import bits, exact
from algorithms.random_trees.catalogue import catalogue
from algorithms.random_trees.exact import bareiss_determinant
from algorithms.random_trees.pointwise_bound import (
    complete_graph_path_instance,
    pointwise_upper_bound,
    tree_measure,
)
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
    """With one tree, P[T~ = T] = prod_e P[w~(e) > 0] >= prod_e P[w~(e) = w(e)] = t^(l(n-1)).

    Detects: a wrong exact DP-RST law on tree graphs (against the closed form prod_e P[w~(e) > 0]).
    """
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
    smallest counterexample to readings A and C (reading B holds here: ratio 3 P[T~ = T] = t^2 (3 - 2t) >= t^2).

    Detects: a weaker bound that the triangle no longer refutes (mutant claims-theorem53-bound-n: t^(l n)) or a
    wrong exact law on the triangle.
    """
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
    """A and C hold at epsilon0 = 0.1 and fail at epsilon0 = 4 on every catalogue graph; B holds at both.

    Detects: an evaluation whose verdicts change on the catalogue (readings A and C failing at epsilon0 = 4).
    """
    small = exact.evaluate_theorem_5_3(entry.graph, k=entry.k, epsilon0=0.1)
    large = exact.evaluate_theorem_5_3(entry.graph, k=entry.k, epsilon0=4.0)
    assert small.literal_holds and small.mode_holds and small.pointwise_holds
    assert not large.literal_holds and not large.mode_holds and large.pointwise_holds
    # the limit of reading A as epsilon0 grows: sum_T mu_w(T)^2 < 1
    mu = exact.exact_tree_distribution(entry.graph)
    assert large.literal < sum(p * p for p in mu.values()) + 0.05 < large.bound


def test_pointwise_reading_search(thorough):
    """Reading B on every weighting of the triangle (k <= 5; thorough: k <= 8, and the paw and 4-cycle) and
    an epsilon0 grid: no counterexample on these small graphs (reading B fails on larger ones: see
    ``test_pointwise_reading_fails_on_complete_graphs_with_a_heavy_path``).

    Detects: a pointwise counterexample on small graphs (none exists there; the refutation needs larger graphs).
    """
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


@pytest.mark.parametrize(
    "n, l, epsilon0, ratio",
    [(16, 10, "14", 0.9999432), (20, 10, "12", 0.9990697), (12, 8, "12", 0.9999648)],
)
def test_pointwise_reading_fails_on_complete_graphs_with_a_heavy_path(n, l, epsilon0, ratio):
    """Reading B is false: P[T~ = T] < t^(l(n-1)) mu_w(T) for the heavy path T of K_n (a proof).

    K_n, path 0-1-...-(n-1) weighted 2^l - 1, all other edges weighted 1, k = 2^l. Upper bound on
    P[T~ = T]: t^(lm) mu_w(T) + t^(lm-1) (1-t) sum over the lm single flips of mu_{w'}(T) + P[>= 2
    flips]; tree measures exact (integer matrix-tree determinants), t and the probabilities in
    interval arithmetic at 60 digits, so ``refuted`` means the upper end of the upper bound's
    interval lies below the lower end of the claim's. Why it fails: to first order in 1 - t the
    claim needs the single flips to cost T at most l(n - 1) mu_w(T) in total, which is what
    the tree's own bits would cost if each flip destroyed T. A tree bit flip only lowers a path
    weight, so the tree's bits cost less; but on K_n the (m - n + 1)(l - 1) off-tree flips that
    raise a weight 1 to 1 + 2^i (up to 513, against 1023 on the path) cost T more than that shortfall.
    Detects: a claim check that evaluates only small graphs (no counterexample exists there).
    """
    edges, weights, path, k = complete_graph_path_instance(n, l)
    assert bits.bit_count(k) == l
    check = pointwise_upper_bound(n, edges, weights, path, l=l, epsilon0=epsilon0)
    assert check.refuted
    assert check.ratio == pytest.approx(ratio, abs=2e-7)


@pytest.mark.parametrize("epsilon0", [0.7, 3.0, 8.0])
def test_pointwise_upper_bound_brackets_the_exact_probability(epsilon0):
    """The decomposition behind the upper bound, checked against exact enumeration on K4 (k = 4).

    With the two-or-more-flip term dropped, the bound is a lower bound on P[T~ = T]; with it, an
    upper bound. Both bracket the exact probability from ``exact.exact_dp_rst_distribution`` (every
    one of the 4^6 noisy weight vectors, independent code). Detects a wrong single-flip term
    (e.g. flipped bits not XOR-ed, or the flip probability t instead of 1 - t).
    """
    n, l = 4, 2
    edges, weights, path, k = complete_graph_path_instance(n, l)
    graph = as_graph_arrays((n, np.array(edges), np.array(weights, dtype=float)))
    assert [tuple(e) for e in graph.edges.tolist()] == edges
    exact_p = exact.exact_dp_rst_distribution(graph, np.array(weights), k=k, epsilon0=epsilon0)[path]
    check = pointwise_upper_bound(n, edges, weights, path, l=l, epsilon0=epsilon0)
    t = bits.keep_probability(epsilon0)
    two_or_more = 1 - t ** (l * len(edges)) - l * len(edges) * t ** (l * len(edges) - 1) * (1 - t)
    assert float(check.upper.b) - two_or_more - 1e-12 <= exact_p <= float(check.upper.b) + 1e-12
    assert float(check.mu) == pytest.approx(exact.exact_tree_distribution(graph)[path], rel=1e-12)


def test_exact_tree_measures_and_determinants():
    """Bareiss determinants equal numpy's on random integer matrices; exact tree measures equal the
    enumeration's on every catalogue graph (the matrix-tree theorem, two ways).

    Detects: a wrong integer determinant or tree measure in the rigorous bound.
    """
    rng = np.random.default_rng(7)
    for size in (1, 2, 3, 5, 8):
        a = rng.integers(-5, 6, size=(size, size))
        assert bareiss_determinant(a) == round(np.linalg.det(a))
    assert bareiss_determinant([[0, 1], [1, 0]]) == -1
    for entry in catalogue():
        g = entry.graph
        edges = [tuple(e) for e in g.edges.tolist()]
        w = [int(x) for x in g.weights]
        for tree, p in exact.exact_tree_distribution(g).items():
            assert float(tree_measure(g.n, edges, w, tree)) == pytest.approx(p, rel=1e-12)
