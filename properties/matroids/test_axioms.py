"""algorithms.matroids.axioms: the axioms hold on every kind of matroid, and bad oracles are refused.

All checks are deterministic invariants (Hypothesis over constructively built matroids of the
four kinds, ``algorithms.matroids.strategies``); no statistical assertions here.
"""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from algorithms.errors import MatroidAxiomError
from algorithms.matroids import (
    GraphicMatroid,
    LinearMatroid,
    OracleMatroid,
    UniformMatroid,
    check_matroid_axioms,
    check_matroid_axioms_exhaustive,
)
from algorithms.matroids.strategies import any_matroid


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
