"""Hypothesis strategies for neighbouring inputs (dpverify.strategies) and the search over pairs.

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
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dpverify.errors import InvalidParameterError
from dpverify.strategies import (
    GraphPair,
    draw_pairs,
    neighbouring_graphs,
    neighbouring_streams,
    neighbouring_vectors,
    vector_distance,
)
from dpverify.testing import assert_dp, audit_pairs, per_example_alpha
from dpverify.zoo import GeometricMechanism


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
    assert any(long_[:i] + long_[i + 1:] == short for i in range(len(long_)))


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
    assert_dp(GeometricSum(1.0), x, x_prime, epsilon=1.0, n_samples=10_000, seed=0,
              alpha=per_example_alpha(suite_alpha, N_EXAMPLES))


def test_audit_pairs_rejects_bad_input():
    with pytest.raises(InvalidParameterError, match="at least one"):
        audit_pairs(GeometricSum(1.0), [], epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="pair"):
        audit_pairs(GeometricSum(1.0), [(1, 2, 3)], epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="family-wise"):
        audit_pairs(GeometricSum(1.0), [(0, 1)], epsilon=1.0, method="fdr_bh")
