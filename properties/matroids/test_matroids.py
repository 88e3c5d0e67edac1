"""Matroid oracles (algorithms.matroids): axioms, greedy optimality, batched greedy, bad oracles.

All checks are deterministic invariants (Hypothesis over constructively built matroids of the
four kinds, ``algorithms.matroids.strategies``); no statistical assertions here.
"""

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from algorithms.errors import InvalidGraphError, InvalidWeightsError, MatroidAxiomError
from algorithms.matroids import (
    DependentElementError,
    GraphicMatroid,
    LinearMatroid,
    MatroidElementError,
    OracleMatroid,
    PartitionMatroid,
    UniformMatroid,
    check_matroid_axioms,
    check_matroid_axioms_exhaustive,
    independence_table,
)
from algorithms.matroids.strategies import any_matroid, graphic_matroids, linear_matroids


@given(any_matroid(max_elements=8))
@example(GraphicMatroid(1, [0], [0]))  # a single loop
@example(GraphicMatroid(4, [0, 0, 2], [1, 1, 3]))  # parallel edges, two components
@example(UniformMatroid(0, 0))
@example(LinearMatroid(np.zeros((3, 2))))
def test_axioms_hold_exhaustively(matroid):
    check_matroid_axioms_exhaustive(matroid)


@given(any_matroid(max_elements=12), st.integers(0, 2**32 - 1))
def test_random_axiom_check_passes_on_true_matroids(matroid, seed):
    check_matroid_axioms(matroid, rng=seed, n_trials=20)


@given(graphic_matroids(max_vertices=8, max_edges=14))
def test_graphic_rank_is_vertices_minus_components(m):
    g = nx.MultiGraph()
    g.add_nodes_from(range(m.n_vertices))
    g.add_edges_from(zip(m.u.tolist(), m.v.tolist()))
    assert m.rank == m.n_vertices - nx.number_connected_components(g)


@given(linear_matroids(max_elements=10))
def test_linear_rank_matches_numpy(m):
    expected = int(np.linalg.matrix_rank(m.vectors)) if m.n_elements else 0
    assert m.rank == expected


def _brute_force_best(matroid, w, sense):
    table = independence_table(matroid)
    n = matroid.n_elements
    best = None
    for mask in np.flatnonzero(table):
        size = bin(int(mask)).count("1")
        if size != matroid.rank:
            continue
        val = sum(w[i] for i in range(n) if mask >> i & 1)
        if best is None or sense * val > sense * best:
            best = val
    return best


@given(any_matroid(max_elements=8), st.data())
def test_greedy_equals_brute_force(matroid, data):
    n = matroid.n_elements
    w = np.array(data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)), dtype=np.float64)
    for sense, fn in ((1, matroid.greedy_max_basis), (-1, matroid.greedy_min_basis)):
        basis = fn(w)
        assert basis.size == matroid.rank
        assert matroid.is_independent(basis)
        assert w[basis].sum() == _brute_force_best(matroid, w, sense)
        # selection order follows the weight order (ties by lower index)
        keys = [(-sense * w[e], e) for e in basis]
        assert keys == sorted(keys)


@given(any_matroid(max_elements=12), st.integers(1, 6), st.data())
def test_batched_greedy_equals_single(matroid, R, data):
    n = matroid.n_elements
    # values from a small set force ties; +-inf allowed (bandit indices of unplayed arms)
    vals = st.sampled_from([-np.inf, -1.0, 0.0, 0.5, 1.0, 2.0, np.inf])
    W = np.array(
        data.draw(st.lists(st.lists(vals, min_size=n, max_size=n), min_size=R, max_size=R)), dtype=np.float64
    ).reshape(R, n)
    B = matroid.greedy_max_basis_batch(W)
    Bmin = matroid.greedy_min_basis_batch(W)
    assert B.shape == (R, matroid.rank) and Bmin.shape == (R, matroid.rank)
    for r in range(R):
        assert B[r].tolist() == matroid.greedy_max_basis(W[r]).tolist()
        assert Bmin[r].tolist() == matroid.greedy_min_basis(W[r]).tolist()


@given(any_matroid(max_elements=10), st.data())
def test_tracker_agrees_with_is_independent(matroid, data):
    order = data.draw(st.permutations(range(matroid.n_elements)))
    tr = matroid.tracker()
    for e in order:
        expected = matroid.is_independent(tr.elements + [e])
        assert tr.can_add(e) == expected
        if expected:
            tr.add(e)
        else:
            with pytest.raises(DependentElementError):
                tr.add(e)
    assert len(tr.elements) == matroid.rank
    tr.reset()
    assert tr.elements == [] and (
        matroid.n_elements == 0 or matroid.rank == 0 or tr.can_add(tr.matroid.greedy_in_order(order)[0])
    )


def test_graphic_from_networkx_disconnected_gives_spanning_forest():
    g = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4)])
    g.add_node(5)
    m = GraphicMatroid.from_networkx(g)
    basis = m.greedy_min_basis(np.arange(m.n_elements, dtype=float))
    forest = nx.Graph([m.edge_list[e] for e in basis])
    assert m.rank == 3 and nx.is_forest(forest) and forest.number_of_edges() == 3


# ---- bad oracles and bad input -------------------------------------------------------------


def _not_hereditary(s):  # {0,1,2} independent but {0,1} not
    return len(s) <= 1 or s == frozenset({0, 1, 2})


def _no_exchange(s):  # independent: subsets of {0,1} and of {2}: A={2}, B={0,1} cannot augment
    return s <= frozenset({0, 1}) or s <= frozenset({2})


def _empty_dependent(s):
    return False


@pytest.mark.parametrize(
    "oracle,axiom", [(_not_hereditary, "(I2)"), (_no_exchange, "(I3)"), (_empty_dependent, "(I1)")]
)
def test_bad_oracles_are_rejected(oracle, axiom):
    with pytest.raises(MatroidAxiomError, match=axiom.replace("(", r"\(").replace(")", r"\)")):
        OracleMatroid(3, oracle)
    with pytest.raises(MatroidAxiomError):
        OracleMatroid(3, oracle, check="random", rng=0)


def _bases_of_two_sizes(s):
    return len(s) <= 1 or s <= frozenset({0, 1, 2, 3}) or s == frozenset({5, 6})


def test_bad_oracle_in_a_larger_ground_set_is_caught_by_random_check():
    # 15 elements (too many for "auto" exhaustive): {5, 6} is a maximal independent set of size
    # 2 while {0, 1, 2, 3} has size 4, so (I3) fails; the random check meets both kinds of bases
    with pytest.raises(MatroidAxiomError):
        OracleMatroid(15, _bases_of_two_sizes, rng=1)


def test_valid_oracle_is_accepted():
    m = OracleMatroid(6, lambda s: len(s) <= 3)
    assert m.rank == 3 and m.greedy_max_basis(np.arange(6.0)).tolist() == [5, 4, 3]


def test_bad_input_raises_named_errors():
    m = GraphicMatroid(3, [0, 1], [1, 2])
    with pytest.raises(InvalidWeightsError, match="NaN"):
        m.greedy_max_basis([np.nan, 1.0])
    with pytest.raises(InvalidWeightsError, match="shape"):
        m.greedy_max_basis([1.0])
    with pytest.raises(MatroidElementError, match="range"):
        m.is_independent([0, 5])
    with pytest.raises(MatroidElementError, match="repeat"):
        m.is_independent([0, 0])
    with pytest.raises(InvalidGraphError):
        GraphicMatroid(2, [0], [2])
    with pytest.raises(InvalidGraphError, match="undirected"):
        GraphicMatroid.from_networkx(nx.DiGraph([(0, 1)]))
    with pytest.raises(Exception):  # noqa: B017 - any named error will do here
        PartitionMatroid([0, 3], [1, 1])
    with pytest.raises(Exception):  # noqa: B017 - any named error will do here
        LinearMatroid([[np.inf, 0.0]])
    with pytest.raises(Exception):  # noqa: B017 - any named error will do here
        UniformMatroid(-1, 0)


def test_graphic_kernel_matches_networkx_on_a_larger_graph():
    rng = np.random.default_rng(12345)
    g = nx.gnm_random_graph(120, 161, seed=7)
    m = GraphicMatroid.from_networkx(g)
    for _ in range(20):
        w = rng.random(m.n_elements)
        h = nx.Graph()
        h.add_nodes_from(g)
        h.add_weighted_edges_from((a, b, w[i]) for i, (a, b) in enumerate(m.edge_list))
        expected = sum(d["weight"] for _, _, d in nx.maximum_spanning_edges(h, data=True))
        assert np.isclose(w[m.greedy_max_basis(w)].sum(), expected, rtol=0, atol=1e-12)
