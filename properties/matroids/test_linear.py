"""algorithms.matroids.linear: the rank is the linear-algebra rank."""

import numpy as np
from hypothesis import given

from algorithms.matroids.strategies import linear_matroids


@given(linear_matroids(max_elements=10))
def test_linear_rank_matches_numpy(m):
    expected = int(np.linalg.matrix_rank(m.vectors)) if m.n_elements else 0
    assert m.rank == expected
