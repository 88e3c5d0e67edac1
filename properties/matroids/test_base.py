"""algorithms.matroids.base: greedy bases are optimal, batched greedy equals single, trackers agree.

All checks are deterministic invariants (Hypothesis over constructively built matroids of the
four kinds, ``algorithms.matroids.strategies``); no statistical assertions here.
"""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from algorithms.errors import AlgorithmInputError, InvalidGraphError, InvalidWeightsError
from algorithms.matroids import (
    DependentElementError,
    GraphicMatroid,
    LinearMatroid,
    MatroidElementError,
    PartitionMatroid,
    UniformMatroid,
    independence_table,
)
from algorithms.matroids.strategies import any_matroid


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
    with pytest.raises(AlgorithmInputError, match="block labels"):
        PartitionMatroid([0, 3], [1, 1])
    with pytest.raises(AlgorithmInputError, match="finite"):
        LinearMatroid([[np.inf, 0.0]])
    with pytest.raises(AlgorithmInputError, match="n_elements"):
        UniformMatroid(-1, 0)
