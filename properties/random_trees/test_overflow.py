"""Weight bounds near the int64 limit: exact noisy weights up to ``k = 2**63``, a named error above.

Noisy weights of DP-RST (DP-RST 2025, Algorithm 4) have ``l = ceil(log2 k)`` bits and are computed
in int64. For ``k > 2**63`` the 64th bit is ``2**63``, which wrapped into negative weights (a
silent wrong answer: the pipeline then saw unusable edges); such ``k`` are now refused.
"""

import networkx as nx
import numpy as np
import pytest

from algorithms.errors import InvalidWeightsError
from algorithms.random_trees import bits, pipeline

LARGEST = 2**63


def test_largest_allowed_bound_gives_nonnegative_63_bit_weights():
    # epsilon0 = 0.1 flips about half of the 63 bits, so the top bit 2**62 is set in about half the rows
    w = [1, 2**62 - 1, 2**62, LARGEST - 1]
    noisy = bits.perturb_weights_batch(w, LARGEST, 0.1, 2000, np.random.default_rng(7))
    assert noisy.dtype == np.int64
    assert noisy.min() >= 0
    assert noisy.max() <= LARGEST - 1
    assert (noisy >= 2**62).any()  # the top allowed bit is exercised, so the bound above can fail
    # the XOR with the flip mask is exact: re-deriving the flips from the bits gives integers back
    assert np.array_equal(bits.reconstruct_weights(bits.decompose_bits(noisy, 63)), noisy)


def test_largest_allowed_bound_runs_the_whole_pipeline():
    g = nx.complete_graph(4)
    w = [1, 2**62, LARGEST - 1, 5, 2**40, 3]
    mech = pipeline.DPRandomSpanningTree(g, k=LARGEST, epsilon0=40.0)  # epsilon0 = 40: bits almost never flip
    trees = mech.sample(w, 50, np.random.default_rng(3))
    assert all(t != pipeline.NO_SPANNING_TREE and len(t) == 3 for t in trees)
    assert pipeline.exact_weight_release_epsilon(1.0, LARGEST) == 63.0


@pytest.mark.parametrize("k", [LARGEST + 1, 2**64, 2**70])
def test_bounds_above_2_63_are_refused_by_name(k):
    g = nx.complete_graph(3)
    calls = [
        lambda: bits.perturb_weights([1, 2, 3], k, 1.0, np.random.default_rng(0)),
        lambda: bits.bit_count(k),
        lambda: pipeline.dp_random_spanning_tree(g, [1, 2, 3], k=k, epsilon0=1.0, rng=1),
        lambda: pipeline.DPRandomSpanningTree(g, k=k, epsilon0=1.0),
        lambda: pipeline.WeightRelease(k=k, epsilon0=1.0),
        lambda: pipeline.lemma_4_4_claimed_epsilon(1.0, k, 1e-6),
    ]
    for call in calls:
        with pytest.raises(InvalidWeightsError, match=r"at most 2\*\*63"):
            call()
