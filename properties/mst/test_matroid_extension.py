"""Pagh et al. 2025, Appendix A: perturb once, run greedy, on any matroid (algorithms/mst/matroid_extension.py).

On the graphic matroid the minimum-weight version is Algorithm 1; on the uniform matroid U(N, K)
the maximum-weight version selects the top K of w + beta G, i.e. PPSACR with sizes
exp(+epsilon0 w / 2D) and no removals (sampling K items without replacement), whose exact
distribution is enumerated.
"""

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from algorithms.graphs import is_spanning_forest
from algorithms.matroids import GraphicMatroid, LinearMatroid, PartitionMatroid, UniformMatroid
from algorithms.mst.catalogue import catalogue_graph
from algorithms.mst.exact import exact_tree_distribution
from algorithms.mst.matroid_extension import (
    PerturbedMatroidBasisMechanism,
    matroid_basis_accounting,
    private_matroid_basis,
)
from algorithms.mst.ppsacr import ppsacr_set_distribution
from algorithms.mst.strategies import graphs


@given(graphs(), st.integers(0, 2**63 - 1), st.sampled_from([0.1, 1.0, 10.0]))
def test_graphic_matroid_extension_returns_spanning_forests_and_is_seeded(g, seed, epsilon0):
    if g.m == 0:
        return
    M = GraphicMatroid.from_edges(g.n, g.edges)
    basis = private_matroid_basis(M, g.weights, epsilon0, seed, maximize=False)
    assert is_spanning_forest(g, basis)
    assert np.array_equal(basis, private_matroid_basis(M, g.weights, epsilon0, seed, maximize=False))


@given(st.integers(0, 2**63 - 1))
def test_bases_of_other_matroids_are_independent_and_of_full_rank(seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(size=7)
    vectors = rng.integers(-1, 2, size=(7, 3)).astype(float)
    matroids = [
        UniformMatroid(7, 3),
        PartitionMatroid([0, 0, 1, 1, 1, 2, 2], [1, 2, 1]),
        LinearMatroid(vectors),
    ]
    for M in matroids:
        for maximize in (True, False):
            b = private_matroid_basis(M, w, 1.0, seed, maximize=maximize)
            assert M.is_independent(b) and len(b) == M.rank


def test_graphic_extension_fits_the_exact_tree_distribution(suite_alpha, at_input):
    """Minimum-weight graphic version == Algorithm 1's exact distribution (K4, 50k samples).

    False alarm <= suite_alpha; power > 0.999 against epsilon0 -> 1.5 epsilon0 (asserted).
    """
    entry = catalogue_graph("K4")
    M = GraphicMatroid.from_edges(entry.graph.n, entry.graph.edges)
    mech = PerturbedMatroidBasisMechanism(M, entry.epsilon0, maximize=False)
    pmf = exact_tree_distribution(entry.graph, entry.epsilon0)
    res = dpverify.goodness_of_fit(at_input(mech, entry.graph.weights), pmf, n_samples=50_000, seed=5)
    assert res.pvalue > suite_alpha
    bug = exact_tree_distribution(entry.graph, 1.5 * entry.epsilon0)
    assert dpverify.chi_square_power(pmf, bug, 50_000, suite_alpha) > 0.999


def test_uniform_extension_is_top_k_ppsacr(suite_alpha, at_input):
    """U(6, 3), max-weight: the basis is PPSACR(sizes exp(epsilon0 w / 2), k = 3, no removals); 50k
    samples. False alarm <= suite_alpha; power > 0.999 against epsilon0 -> 1.5 epsilon0 (asserted)."""
    w = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 3.5])
    M = UniformMatroid(6, 3)
    mech = PerturbedMatroidBasisMechanism(M, 1.0, maximize=True)
    pmf = ppsacr_set_distribution(1.0 * w / 2.0, 3, None)
    res = dpverify.goodness_of_fit(at_input(mech, w), pmf, n_samples=50_000, seed=6)
    assert res.pvalue > suite_alpha
    bug = ppsacr_set_distribution(1.5 * w / 2.0, 3, None)
    assert dpverify.chi_square_power(pmf, bug, 50_000, suite_alpha) > 0.999
    assert matroid_basis_accounting(M, 1.0, 1e-6).steps == 3


# Searched audit of the extension on U(6, 3), max-weight: every sign pattern w -> w + s, s in {-1, +1}^6
# (the vertices of the l_inf ball, 64 pairs), held to the largest exact loss among them (2.67, from
# the PPSACR enumeration). Measured (4e5 samples, alpha = 1e-6, seeds 61-63): 2.05-2.16. Exact losses
# with epsilon0 / 1.5 or 1.5 epsilon0 in the Gumbel scale: 1.65 and 4.26.
UNIFORM_WEIGHTS = np.array([0.0, 0.5, 1.0, 2.0, 3.0, 3.5])
UNIFORM_POWER_FRACTION = 0.7


@pytest.mark.privacy_audit
def test_searched_audit_of_the_uniform_extension_holds_the_exact_loss(suite_alpha):
    """dpverify.search_audit of the max-weight extension on U(6, 3) over the sign patterns, at the exact loss.

    False alarm: a violation at suite_alpha (the claim is the largest exact loss of any candidate).
    The power floor (bound >= 0.7 x exact = 1.87) fails on correct code only if the search misses the
    worst pairs or the bound falls > 30% below (measured 0.77-0.81 of it). Power: a Gumbel scale 1.5x
    too large gives an exact loss of 1.65 (below the floor: caught with probability >= 1 - suite_alpha;
    measured 1.23); one 1.5x too small 4.26 (measured 3.22: a violation). Detects: the extension's
    noise scale off by 1.5x either way.
    """
    w = UNIFORM_WEIGHTS
    pairs = [(tuple(w.tolist()), tuple((w + np.array(s)).tolist())) for s in itertools.product((-1.0, 1.0), repeat=6)]

    def pmf(weights):
        return ppsacr_set_distribution(1.0 * np.asarray(weights) / 2.0, 3, None)

    worst = max(dpverify.exact_privacy_loss(pmf(x), pmf(xp)).epsilon for x, xp in pairs)
    mech = PerturbedMatroidBasisMechanism(UniformMatroid(6, 3), 1.0, maximize=True)
    res = dpverify.search_audit(mech, pairs, epsilon=worst, n_samples=400_000, alpha=suite_alpha, seed=61)
    print(f"U(6, 3): certified {res.epsilon_lower_bound:.3f} of exact {worst:.3f} on {res.x_prime}")
    assert not res.violation
    assert res.epsilon_lower_bound >= UNIFORM_POWER_FRACTION * worst
