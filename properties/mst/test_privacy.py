"""Privacy of the private spanning trees (Pagh et al. 2025, Fact 2.7 and Theorem 3.2), exactly and by sampling.

Neighbours: l_inf with D = 1, worst case searched over the sign patterns w + D s, s in {-1,+1}^m
(the vertices of the l_inf ball), exhaustively on the catalogue (m <= 10).

- one exponential-mechanism step: exact loss <= epsilon0, and approaches epsilon0 when the selected edge
  is much heavier than its rivals;
- the whole tree: exact pure loss <= basic composition (n - c) epsilon0, exact delta(eps) curve <= the
  claim from zCDP accounting (generic and bounded-range conversions);
- sampled audits of Algorithm 1 (dpverify.audit) agree with the exact loss, and a variant with
  half the noise scale is caught.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpverify
from algorithms.mst.accounting import claim_from_epsilon0
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

CATALOGUE = catalogue()
DELTA = 1e-6


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


@settings(max_examples=30)
@given(st.integers(0, 2**32 - 1), st.floats(0.05, 5.0), st.data())
def test_exact_step_loss_is_at_most_eps0_over_any_candidate_set(seed, epsilon0, data):
    """Detects: a step that loses more than epsilon0 on some candidate set (Fact 2.7 broken by the candidate rule)."""
    # Later steps of Algorithm 2 / PAMST select among a subset of the edges (cycle edges removed,
    # or the cut): the same bound holds for every candidate set.
    g = random_small_graph(seed, n_max=6, max_edges=10)
    cand = data.draw(st.lists(st.integers(0, g.m - 1), min_size=1, max_size=g.m, unique=True))
    assert worst_case_step_loss(g, epsilon0, candidates=cand).loss <= epsilon0 * (1 + 1e-12)


@pytest.mark.parametrize("entry", CATALOGUE, ids=lambda c: c.name)
def test_exact_tree_loss_is_within_the_claims(entry):
    """Exact loss of the whole tree vs basic composition and the zCDP (eps, delta) claims.

    For both conversions the exact delta at the claimed eps is <= the claimed delta (the claim
    holds) and the exact eps at the claimed delta is <= the claimed eps; how loose the claim is
    (claimed eps / exact eps at delta = 1e-6) is reported by algorithms/mst/verifications.py.

    Detects: an accounting whose claimed (eps, delta) is below the exact loss (mutants mst-acc-*).
    """
    g, epsilon0 = entry.graph, entry.epsilon0
    claims = [claim_from_epsilon0(epsilon0, max(g.n - 1, 1), DELTA, conversion=c) for c in ("generic", "bounded-range")]
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


# Margins for "the audit's lower bound agrees with the exact loss": with 4e5 samples per input
# (10% for selection) the Clopper-Pearson bounds at alpha = 1e-6 (z ~ 4.9) on the worst tree
# (triangle: p ~ 0.13, q ~ 0.030; 4-cycle+chord: p ~ 0.040, q ~ 0.0042) are within ~0.07 and
# ~0.17 of the true log ratio; the margins below are > 3x that, so a correct sampler fails them
# with negligible probability, while a sampler off by a factor 1.3 in one probability would not.
AUDIT_CASES = [("triangle", 0.25), ("four-cycle-chord", 0.5)]


@pytest.mark.parametrize("name, margin", AUDIT_CASES)
def test_sampled_audit_of_algorithm1_agrees_with_the_exact_loss(name, margin, suite_alpha):
    """dpverify.audit of Algorithm 1 on the worst sign-pattern neighbour, pure claim (n-1) epsilon0.

    False alarm: violation at suite_alpha; eps_lb > exact eps has probability <= suite_alpha.

    Detects: an Algorithm 1 whose sampled loss exceeds the exact (n - 1) epsilon0 (noise scaled down; mutants
    mst-alg1-*).
    """
    entry = catalogue_graph(name)
    g, epsilon0 = entry.graph, entry.epsilon0
    loss = worst_case_tree_loss(g, epsilon0)
    g_prime = g.with_weights(g.weights + np.array(loss.pattern_for_epsilon, float))
    mech = GumbelPerturbationMechanism(epsilon0)
    res = dpverify.audit(
        mech, g, g_prime, epsilon=loss.basic_composition, n_samples=400_000, alpha=suite_alpha, seed=31
    )
    assert not res.violation
    assert loss.epsilon - margin <= res.epsilon_lower_bound <= loss.epsilon
    # the tightest true pure claim, the exact loss itself, is not flagged either
    res = dpverify.audit(mech, g, g_prime, epsilon=loss.epsilon, n_samples=400_000, alpha=suite_alpha, seed=32)
    assert not res.violation


@pytest.mark.parametrize("name", ["triangle", "four-cycle-chord"])
def test_half_noise_variant_is_caught(name, suite_alpha):
    """Algorithm 1 with half the Gumbel scale (really 2 epsilon0 per step) but claiming epsilon0.

    Its exact loss (triangle 3.53, 4-cycle+chord 5.37) exceeds the claimed (n-1) epsilon0 (2, 3); with
    4e5 samples the certified bound exceeds the claim by a wide margin (power ~1 at suite_alpha).

    Detects: Algorithm 1 with half its Gumbel scale (power of the audit, shown on the broken variant).
    """
    entry = catalogue_graph(name)
    g, epsilon0 = entry.graph, entry.epsilon0
    loss = worst_case_tree_loss(g, epsilon0)
    broken_loss = worst_case_tree_loss(g, 2 * epsilon0)
    assert broken_loss.epsilon > loss.basic_composition + 1.0  # exact: the claim is false
    g_prime = g.with_weights(g.weights + np.array(broken_loss.pattern_for_epsilon, float))
    broken = BrokenGumbelPerturbationMechanism(epsilon0, noise_multiplier=0.5)
    res = dpverify.audit(
        broken, g, g_prime, epsilon=loss.basic_composition, n_samples=400_000, alpha=suite_alpha, seed=41
    )
    assert res.violation
    assert res.epsilon_lower_bound <= broken_loss.epsilon


def test_zcdp_claim_looseness_is_reported_exactly():
    """Detects: a change in the reported looseness of the zCDP claim (4.1x generic, 1.9x bounded range on K4)."""
    # On K4 (3 steps, epsilon0 = 1) the generic zCDP claim at delta = 1e-6 is eps = 10.6, while the
    # exact worst-case eps at that delta is below 2.6: the claim is > 4x loose on small trees.
    entry = catalogue_graph("K4")
    claim = claim_from_epsilon0(entry.epsilon0, 3, DELTA)
    loss = worst_case_tree_loss(entry.graph, entry.epsilon0, deltas=[DELTA])
    assert claim.epsilon == pytest.approx(3 / 2 + 2 * math.sqrt(3 / 2 * math.log(1e6)))
    assert loss.epsilon_for_delta[DELTA] < loss.epsilon <= 3.0 < claim.epsilon
    assert claim.epsilon / loss.epsilon_for_delta[DELTA] > 4


@pytest.mark.parametrize("multiplier", [0.0, 1.0, 1.5, -0.5])
def test_broken_variant_refuses_a_multiplier_that_is_not_broken(multiplier):
    """Detects: a 'broken' variant that is not broken (multiplier 1), which would make its power check vacuous."""
    from algorithms.errors import InvalidPrivacyParameterError

    with pytest.raises(InvalidPrivacyParameterError, match="noise_multiplier"):
        BrokenGumbelPerturbationMechanism(1.0, noise_multiplier=multiplier)
