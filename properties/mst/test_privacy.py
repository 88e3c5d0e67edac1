"""Privacy of the private spanning trees (Pagh et al. 2025, Fact 2.7 and Theorem 3.2), exactly and by sampling.

Neighbours: l_inf with D = 1, worst case searched over the sign patterns w + D s, s in {-1,+1}^m
(the vertices of the l_inf ball), exhaustively on the catalogue (m <= 10).

- one exponential-mechanism step: exact loss <= epsilon0, and approaches epsilon0 when the selected edge
  is much heavier than its rivals;
- the whole tree: exact pure loss <= basic composition (n - c) epsilon0, exact delta(eps) curve <= the
  claim from zCDP accounting (generic and bounded-range conversions);
- searched audits of Algorithm 1 (dpverify.search_audit over the weight relation, not handed the
  worst pair) agree with the exact loss, and variants with a noise scale off by 1.5x or 2x are caught.
"""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import dpverify
from algorithms.graphs import as_graph_arrays
from algorithms.mst.accounting import accounting_from_epsilon0
from algorithms.mst.audits import PrivatizedWeightBits, TreeOfWeights, privatized_bits_loss, weight_neighbours
from algorithms.mst.broken import BrokenGumbelPerturbationMechanism
from algorithms.mst.catalogue import catalogue, catalogue_graph, random_small_graph
from algorithms.mst.exact import (
    exact_pamst_distribution,
    exact_step_distribution,
    exact_tree_distribution,
    worst_case_step_loss,
    worst_case_tree_loss,
)
from algorithms.mst.perturbation import GumbelPerturbationMechanism
from algorithms.mst.privatization import gaussian_privatized_mst
from algorithms.mst.samplers import MechanismOnGraph

CATALOGUE = catalogue()
DELTA = 1e-6


@pytest.mark.privacy_audit
@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda c: c.name)
def test_exact_step_loss_is_at_most_eps0(entry):
    """Detects: an exponential-mechanism step that loses more than epsilon0 (a Gumbel scale below 2D/epsilon0)."""
    g, epsilon0 = entry.graph, entry.epsilon0
    loss = worst_case_step_loss(g, epsilon0)
    assert loss.loss <= epsilon0 * (1 + 1e-12)
    # cross-check the worst pattern with dpverify's exact loss on the two step pmfs
    p = exact_step_distribution(g.weights, np.arange(g.m), epsilon0)
    q = exact_step_distribution(g.weights + np.array(loss.pattern, float), np.arange(g.m), epsilon0)
    assert dpverify.exact_privacy_loss(p, q).epsilon == pytest.approx(loss.loss, rel=1e-9)


@pytest.mark.privacy_audit
def test_exact_step_loss_reaches_eps0():
    """Detects: a step noisier than claimed (its loss would stay below epsilon0: the claim would be loose, not
    tight)."""
    # The heavy edge (w = 40, rivals 0 and 0.5): P[heavy] = pi ~ e^{-20 epsilon0}, and moving it down by
    # D and the rivals up by D gives the exact loss epsilon0 - ln(1 + (e^{epsilon0} - 1) pi) -> epsilon0.
    entry = catalogue_graph("triangle-heavy-edge")
    for epsilon0 in (1.0, 2.0, 5.0):
        loss = worst_case_step_loss(entry.graph, epsilon0)
        assert loss.edge == 2 and loss.pattern in {(1, 1, -1), (-1, -1, 1)}  # either direction
        assert loss.loss == pytest.approx(epsilon0, abs=1e-6)


@pytest.mark.privacy_audit
@settings(max_examples=30)
@given(st.integers(0, 2**32 - 1), st.floats(0.05, 5.0), st.data())
def test_exact_step_loss_is_at_most_eps0_over_any_candidate_set(seed, epsilon0, data):
    """Detects: a step that loses more than epsilon0 on some candidate set (Fact 2.7 broken by the candidate rule)."""
    # Later steps of Algorithm 2 / PAMST select among a subset of the edges (cycle edges removed,
    # or the cut): the same bound holds for every candidate set.
    g = random_small_graph(seed, n_max=6, max_edges=10)
    cand = data.draw(st.lists(st.integers(0, g.m - 1), min_size=1, max_size=g.m, unique=True))
    assert worst_case_step_loss(g, epsilon0, candidates=cand).loss <= epsilon0 * (1 + 1e-12)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda c: c.name)
def test_exact_tree_loss_is_within_the_claims(entry):
    """Exact loss of the whole tree vs basic composition and the zCDP (eps, delta) claims.

    For both conversions the exact delta at the claimed eps is <= the claimed delta (the claim
    holds) and the exact eps at the claimed delta is <= the claimed eps; how loose the claim is
    (claimed eps / exact eps at delta = 1e-6) is reported by algorithms/mst/verifications.py.

    Detects: an accounting whose claimed (eps, delta) is below the exact loss (mutants mst-acc-*).
    """
    g, epsilon0 = entry.graph, entry.epsilon0
    claims = [
        accounting_from_epsilon0(epsilon0, max(g.n - 1, 1), DELTA, conversion=c) for c in ("generic", "bounded-range")
    ]
    loss = worst_case_tree_loss(g, epsilon0, epsilons=[c.epsilon for c in claims], deltas=[DELTA])
    assert loss.epsilon <= loss.basic_composition * (1 + 1e-12)
    for claim in claims:
        assert claim.steps >= loss.steps
        assert loss.delta_at[claim.epsilon] <= DELTA
        assert loss.epsilon_for_delta[DELTA] <= claim.epsilon
    # cross-check the worst pattern with dpverify
    pattern = np.array(loss.pattern_for_epsilon, float)
    p = exact_tree_distribution(g, epsilon0)
    q = exact_tree_distribution(g, epsilon0, weights=g.weights + pattern)
    assert dpverify.exact_privacy_loss(p, q).epsilon == pytest.approx(loss.epsilon, rel=1e-9, abs=1e-12)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name", ["triangle", "K4"])
def test_pamst_tree_loss_is_within_basic_composition(name):
    """Detects: a PAMST step that loses more than epsilon0 (its tree then exceeds (n - 1) epsilon0)."""
    entry = catalogue_graph(name)
    loss = worst_case_tree_loss(entry.graph, entry.epsilon0, mechanism="pamst")
    assert loss.epsilon <= loss.basic_composition * (1 + 1e-12)
    pattern = np.array(loss.pattern_for_epsilon, float)
    p = exact_pamst_distribution(entry.graph, entry.epsilon0)
    q = exact_pamst_distribution(entry.graph, entry.epsilon0, weights=entry.graph.weights + pattern)
    assert dpverify.exact_privacy_loss(p, q).epsilon == pytest.approx(loss.epsilon, rel=1e-9)


# Searched audits: the auditor gets the relation, not the worst pair -- every sign pattern
# w -> w + D s around the catalogue weights plus the l_inf moves of dpverify.neighbours.graph_weights
# (algorithms.mst.audits.weight_neighbours: 17 pairs on the triangle, 41 on the 4-cycle+chord).
# The claim audited is the largest exact loss over those candidates (the tightest true claim on
# them; it equals worst_case_tree_loss). Margins: with 2e5 / 4e5 samples per input the certified
# bound at alpha = 1e-6 was 1.36 of 1.44 (triangle) and 2.08 of 2.25 (4-cycle+chord); noise 1.5x
# too large drops the exact loss to 0.84 and 1.34, below the margins (1.19 and 1.65). The exact losses
# come from the same Gumbel scale as the sampler (algorithms.mst.exponential), so the bound is also
# held to the paper's claim (n - 1) epsilon0 (2 and 3), which no code computes: at most the claim,
# and at least POWER_FRACTION of it (1.2 and 1.65; noise 1.5x too large: 0.84 and 1.34).
AUDIT_CASES = [("triangle", 0.25, 200_000, 0.6), ("four-cycle-chord", 0.6, 400_000, 0.55)]


def _candidate_losses(g, epsilon0, candidates, mechanism="kruskal"):
    """Exact loss of every candidate pair: Algorithms 1/2/3 (``"kruskal"``) or PAMST (``"pamst"``)."""

    def pmf(weights):
        g_w = g.with_weights(np.asarray(weights, float))
        return (exact_tree_distribution if mechanism == "kruskal" else exact_pamst_distribution)(g_w, epsilon0)

    return [dpverify.exact_privacy_loss(pmf(x), pmf(xp)).epsilon for x, xp in candidates]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name, margin, n_samples, power_fraction", AUDIT_CASES)
def test_searched_audit_of_algorithm1_agrees_with_the_exact_loss(name, margin, n_samples, power_fraction, suite_alpha):
    """dpverify.search_audit of Algorithm 1 over the weight relation, at the exact worst loss.

    False alarm: violation at suite_alpha (the claim is the largest exact loss of any candidate,
    which every candidate keeps); the power check (bound >= exact - margin) fails on correct code
    only if screening misses the worst pairs or the bound falls > margin below them (measured
    well inside, see AUDIT_CASES). Detects: a Gumbel scale 1.5x too small (exact loss 2.45 > 1.44,
    3.77 > 2.25: a violation) or 1.5x too large (0.84, 1.34: below the margin).
    """
    entry = catalogue_graph(name)
    g, epsilon0 = entry.graph, entry.epsilon0
    candidates = weight_neighbours(g)
    worst = max(_candidate_losses(g, epsilon0, candidates))
    assert worst == pytest.approx(worst_case_tree_loss(g, epsilon0).epsilon, rel=1e-9)
    mech = TreeOfWeights(GumbelPerturbationMechanism(epsilon0), g)
    res = dpverify.search_audit(mech, candidates, epsilon=worst, n_samples=n_samples, alpha=suite_alpha, seed=31)
    print(f"{name}: certified {res.epsilon_lower_bound:.3f} of exact {worst:.3f} (pair {res.chosen})")
    assert not res.violation
    assert worst - margin <= res.epsilon_lower_bound <= worst
    basic = (g.n - 1) * epsilon0
    assert power_fraction * basic <= res.epsilon_lower_bound <= basic


# Private Kruskal (Algorithm 2) and PAMST, searched like Algorithm 1 and held to their exact worst loss
# (exact_tree_distribution, exact_pamst_distribution) with a power floor of 0.8 of it. Measured on
# the triangle (2e5 samples, alpha = 1e-6, seed 51): 1.33 of 1.44 (Kruskal) and 1.42 of 1.58 (PAMST);
# on the 4-cycle+chord (thorough profile, 8e5 samples): 2.10 of 2.25 and 2.09 of 2.44. The 4-cycle's
# budget is 8e5 since n_samples became the whole budget of a search (it had drawn several times
# n_samples there): at 2e5 it certifies 1.67 of both, at 4e5 1.91 and 1.72. Exact losses with the
# noise 1.5x too large / too small: 0.84 / 2.45 (Kruskal) and 0.95 / 2.60 (PAMST) on the triangle.
TREE_ALGORITHMS = [("algorithm2", "kruskal"), ("pamst-fast", "pamst")]
TREE_POWER_FRACTION = 0.8
#: Samples per input of each graph's search (the thorough profile adds the 4-cycle+chord).
TREE_SEARCH_SAMPLES = {"triangle": 200_000, "four-cycle-chord": 800_000}


@pytest.mark.privacy_audit
@pytest.mark.parametrize("algorithm, family", TREE_ALGORITHMS)
def test_searched_audit_of_private_kruskal_and_pamst_holds_the_exact_loss(algorithm, family, suite_alpha, thorough):
    """dpverify.search_audit of private Kruskal or PAMST over the weight relation, at the exact worst loss.

    False alarm: a violation at suite_alpha (the claim is the largest exact loss of any candidate);
    the power floor (bound >= 0.8 x exact) fails on correct code only if the search misses the
    worst pairs or the bound falls > 20% below them (measured 0.93 and 0.91 of it on the triangle).
    Power: a noise scale 1.5x too large brings the exact loss to 0.58-0.60 of it (below the floor:
    caught with probability >= 1 - suite_alpha); one 1.5x too small to 1.65-1.71 of it (a violation
    unless the bound falls 40% short). Detects: private Kruskal's or PAMST's exponential-mechanism
    scale (epsilon0 in the log weights) off by 1.5x in either direction.
    """
    names = ["triangle", "four-cycle-chord"] if thorough else ["triangle"]
    for name in names:
        entry = catalogue_graph(name)
        g, epsilon0 = entry.graph, entry.epsilon0
        candidates = weight_neighbours(g)
        worst = max(_candidate_losses(g, epsilon0, candidates, family))
        assert worst == pytest.approx(worst_case_tree_loss(g, epsilon0, mechanism=family).epsilon, rel=1e-9)
        mech = TreeOfWeights(MechanismOnGraph(algorithm, epsilon0), g)
        res = dpverify.search_audit(
            mech, candidates, epsilon=worst, n_samples=TREE_SEARCH_SAMPLES[name], alpha=suite_alpha, seed=51
        )
        print(f"{algorithm} on {name}: certified {res.epsilon_lower_bound:.3f} of exact {worst:.3f}")
        assert not res.violation
        assert res.epsilon_lower_bound >= TREE_POWER_FRACTION * worst


SEALFON_EPSILON = 1.0
SEALFON_POWER_FRACTION = 0.75


@pytest.mark.privacy_audit
def test_searched_audit_of_sealfon_privatization_holds_the_exact_loss(suite_alpha):
    """dpverify.search_audit of Sealfon's Laplace privatization (its noisy weights, as per-edge bits).

    ``PrivatizedWeightBits`` thresholds the noisy weights that ``laplace_privatized_mst`` releases at
    the fixed ``w + D`` (a post-processing); over the 8 sign patterns around the triangle's weights
    its exact loss (``privatized_bits_loss``) is the privatization's whole budget, eps = 1. False
    alarm: a violation at suite_alpha (the claim is the exact loss). The power floor (bound >=
    0.75 eps) fails on correct code only if the bound falls > 25% short (measured 0.86 and 0.90 at
    seeds 71 and 72, 2e5 samples). Power: a Laplace scale 1.5x too large gives the exact loss 2/3
    (below the floor: caught with probability >= 1 - suite_alpha; measured 0.55); one 1.5x too small
    1.5 (measured 1.43: a violation). Detects: the privatization's Laplace scale m D / eps off by 1.5x
    in either direction.
    """
    g = catalogue_graph("triangle").graph
    w = np.asarray(g.weights, dtype=float)
    threshold = w + 1.0
    pairs = [(tuple(w.tolist()), tuple((w + np.array(s)).tolist())) for s in itertools.product((-1.0, 1.0), repeat=g.m)]
    scale = g.m * 1.0 / SEALFON_EPSILON  # the paper's l_inf scale m D / eps, not the code's
    exact = max(privatized_bits_loss(x, xp, threshold, scale) for x, xp in pairs)
    assert exact == pytest.approx(SEALFON_EPSILON)
    mech = PrivatizedWeightBits(SEALFON_EPSILON, g, threshold)
    res = dpverify.search_audit(mech, pairs, epsilon=exact, n_samples=200_000, alpha=suite_alpha, seed=71)
    print(f"Sealfon privatization: certified {res.epsilon_lower_bound:.3f} of exact {exact:.3f}")
    assert not res.violation
    assert res.epsilon_lower_bound >= SEALFON_POWER_FRACTION * exact


class _GaussianPrivatizedBits:
    """Sealfon's Gaussian input privatization (rho-zCDP), its noisy weights thresholded per edge (a post-processing)."""

    def __init__(self, rho, graph, threshold):
        g = as_graph_arrays(graph)
        self.rho, self.n, self.edges = float(rho), int(g.n), np.asarray(g.edges)
        self.threshold = np.asarray(threshold, dtype=np.float64)

    def sample(self, weights, size, rng=None):
        rng = np.random.default_rng(rng)
        data = (self.n, self.edges, np.asarray(weights, dtype=np.float64))
        noisy = [
            gaussian_privatized_mst(data, self.rho, rng, return_noisy_weights=True, backend="prim")[1]
            for _ in range(int(size))
        ]
        return (np.array(noisy).reshape(int(size), len(self.edges)) >= self.threshold).astype(np.int64)

    def __call__(self, weights, rng=None):
        return self.sample(weights, 1, rng)[0]


def _gaussian_bits_loss(weights, weights_prime, threshold, sigma) -> float:
    """Exact loss of independent bits [w_e + N(0, sigma^2) >= t_e]: the sum of each bit's larger log ratio."""
    p = stats.norm.sf(np.asarray(threshold) - np.asarray(weights, dtype=float), scale=sigma)
    q = stats.norm.sf(np.asarray(threshold) - np.asarray(weights_prime, dtype=float), scale=sigma)
    up = np.maximum(np.log(p / q), np.log((1 - p) / (1 - q))).sum()
    down = np.maximum(np.log(q / p), np.log((1 - q) / (1 - p))).sum()
    return float(max(up, down))


@pytest.mark.privacy_audit
@pytest.mark.parametrize("rho", [0.25, 0.5])
def test_searched_audit_of_sealfon_gaussian_privatization_holds_the_exact_loss(rho, suite_alpha):
    """dpverify.search_audit of Sealfon's Gaussian privatization (Sealfon 2016; Pagh et al. 2025, Appendix H), a
    rho-zCDP claim, through a pure-eps post-processing: its noisy weights thresholded at w + D on the triangle, over
    the 8 sign patterns (l_inf, D = 1). The exact loss of the bits follows from the paper's sigma = D sqrt(m / (2
    rho)) (l2 sensitivity D sqrt(m)), written out here: 1.50 at rho = 0.25 and 2.46 at rho = 0.5.

    No violation (false alarm <= suite_alpha each), and the certified bound exceeds 0.75 of the exact loss (measured
    0.86 and 0.84 at 200,000 samples per input, the search's whole budget, seed 73; 0.73 and 0.72 at 100,000; at
    rho = 0.1 only 0.71 with the former search, which drew about 190,000, too little to separate a 1.3x error). Detects:
    the Gaussian's l2 sensitivity or its sigma from rho off by 1.3x either way (sigma 1.3x too large: exact loss
    0.70 and 0.69 x, below the floor; too small: 1.45 and 1.49 x, a violation), e.g. the l2 sensitivity taken as D
    instead of D sqrt(m).
    """
    g = catalogue_graph("triangle").graph
    w = np.asarray(g.weights, dtype=float)
    threshold = w + 1.0
    pairs = [(tuple(w.tolist()), tuple((w + np.array(s)).tolist())) for s in itertools.product((-1.0, 1.0), repeat=g.m)]
    sigma = 1.0 * math.sqrt(g.m) / math.sqrt(2.0 * rho)  # the paper's sigma, not the code's
    exact = max(_gaussian_bits_loss(x, xp, threshold, sigma) for x, xp in pairs)
    mech = _GaussianPrivatizedBits(rho, g, threshold)
    res = dpverify.search_audit(mech, pairs, epsilon=exact, n_samples=200_000, alpha=suite_alpha, seed=73)
    print(f"Sealfon Gaussian rho={rho}: certified {res.epsilon_lower_bound:.3f} of exact {exact:.3f}")
    assert not res.violation
    assert res.epsilon_lower_bound > 0.75 * exact


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name", ["triangle", "four-cycle-chord"])
def test_half_noise_variant_is_caught(name, suite_alpha):
    """Algorithm 1 with half the Gumbel scale (really 2 epsilon0 per step) but claiming epsilon0.

    Its exact loss (triangle 3.53, 4-cycle+chord 5.37) exceeds the claimed (n-1) epsilon0 (2, 3); the
    searched audit (same candidates as above) certifies a bound above the claim by a wide margin
    (power ~1 at suite_alpha). False alarm: none by chance (the assertion is that a violation is found).
    """
    entry = catalogue_graph(name)
    g, epsilon0 = entry.graph, entry.epsilon0
    loss = worst_case_tree_loss(g, epsilon0)
    broken_loss = worst_case_tree_loss(g, 2 * epsilon0)
    assert broken_loss.epsilon > loss.basic_composition + 1.0  # exact: the claim is false
    broken = TreeOfWeights(BrokenGumbelPerturbationMechanism(epsilon0, noise_multiplier=0.5), g)
    res = dpverify.search_audit(
        broken, weight_neighbours(g), epsilon=loss.basic_composition, n_samples=200_000, alpha=suite_alpha, seed=41
    )
    assert res.violation
    assert res.epsilon_lower_bound <= broken_loss.epsilon


@pytest.mark.privacy_audit
def test_zcdp_claim_looseness_is_reported_exactly():
    """The zCDP claim's looseness on K4 (3 steps, epsilon0 = 1, delta = 1e-6): claimed eps over the exact worst-case
    eps at that delta, 4.1118 with the generic conversion and 1.9105 with the bounded-range one.

    The exact eps comes from the exact output laws by a 100-step bisection (below double precision); the ratios
    are pinned to 1e-6 relative, far above that error. Detects: a change in either conversion of Theorem 3.2's
    rho to (eps, delta), or in the exact loss (the former check, ratio > 4, let the bounded-range ratio and any
    generic one above 4 pass).
    """
    entry = catalogue_graph("K4")
    loss = worst_case_tree_loss(entry.graph, entry.epsilon0, deltas=[DELTA])
    generic = accounting_from_epsilon0(entry.epsilon0, 3, DELTA)
    bounded = accounting_from_epsilon0(entry.epsilon0, 3, DELTA, conversion="bounded-range")
    assert generic.epsilon == pytest.approx(3 / 2 + 2 * math.sqrt(3 / 2 * math.log(1e6)))
    assert loss.epsilon_for_delta[DELTA] < loss.epsilon <= 3.0 < generic.epsilon
    assert generic.epsilon / loss.epsilon_for_delta[DELTA] == pytest.approx(4.1117678, rel=1e-6)
    assert bounded.epsilon / loss.epsilon_for_delta[DELTA] == pytest.approx(1.9104830, rel=1e-6)


@pytest.mark.parametrize("multiplier", [0.0, 1.0, 1.5, -0.5])
def test_broken_variant_refuses_a_multiplier_that_is_not_broken(multiplier):
    """Detects: a 'broken' variant that is not broken (multiplier 1), which would make its power check vacuous."""
    from algorithms.errors import InvalidPrivacyParameterError

    with pytest.raises(InvalidPrivacyParameterError, match="noise_multiplier"):
        BrokenGumbelPerturbationMechanism(1.0, noise_multiplier=multiplier)


@pytest.mark.parametrize("name", ["triangle", "four-cycle-chord"])
def test_weight_neighbours_are_linf_neighbours(name):
    """Every candidate of weight_neighbours: weight tuples on the graph's edges, l_inf distance exactly 1."""
    g = catalogue_graph(name).graph
    candidates = weight_neighbours(g)
    assert len(candidates) == 2**g.m + 9
    for x, x_prime in candidates:
        assert len(x) == len(x_prime) == g.m
        assert np.max(np.abs(np.subtract(x, x_prime))) == 1.0
