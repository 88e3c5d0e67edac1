"""algorithms/graphs/generators.py: connected G(n, p) graphs, valid, seeded, with the binomial edge count."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms.errors import InvalidGraphError, InvalidWeightsError
from algorithms.graphs import GraphArrays, as_graph_arrays, connected_gnp_graph, number_of_components


@given(st.integers(2, 40), st.floats(0.05, 1.0), st.integers(0, 2**32 - 1))
def test_connected_gnp_graph_is_connected_simple_and_seeded(n, p, seed):
    p = max(p, min(1.0, 2.5 * np.log(n) / n))  # keep the redraw loop short
    g = connected_gnp_graph(n, p, seed)
    assert number_of_components(g) == 1
    assert isinstance(g, GraphArrays) and not g.edges.flags.writeable and not g.weights.flags.writeable
    # validating the arrays afresh accepts them unchanged (simple, in range, ordered pairs)
    again = as_graph_arrays((g.n, np.array(g.edges), np.array(g.weights)))
    assert np.array_equal(again.edges, g.edges) and np.array_equal(again.weights, g.weights)
    assert np.all((g.weights >= 0) & (g.weights <= 100))
    h = connected_gnp_graph(n, p, seed)
    assert np.array_equal(g.edges, h.edges) and np.array_equal(g.weights, h.weights)


def test_connected_gnp_graph_edge_count_matches_binomial_mean():
    # n = 200, p = 0.3: m ~ Binomial(19900, 0.3), sd ~ 65; |m - mean| <= 6 sd fails w.p. < 2e-9.
    g = connected_gnp_graph(200, 0.3, 7)
    assert abs(g.m - 0.3 * 19900) <= 6 * np.sqrt(19900 * 0.3 * 0.7)


def test_connected_gnp_graph_lists_pairs_in_increasing_order():
    g = connected_gnp_graph(30, 0.5, 3)
    codes = g.edges[:, 0] * 30 + g.edges[:, 1]
    assert np.all(np.diff(codes) > 0)


def test_connected_gnp_graph_refuses_bad_parameters():
    with pytest.raises(InvalidGraphError, match="p must be"):
        connected_gnp_graph(5, 0.0)
    with pytest.raises(InvalidWeightsError, match="low <= high"):
        connected_gnp_graph(5, 0.5, low=2.0, high=1.0)
    with pytest.raises(InvalidGraphError, match="disconnected in 3 draws"):
        connected_gnp_graph(40, 0.001, 1, max_tries=3)
