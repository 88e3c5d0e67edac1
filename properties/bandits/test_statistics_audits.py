"""Searched audits of the CUCB family's compiled statistics, held to their exact losses.

On short horizons the CUCB family's indices are clipped at 1, so audits of the played super arms
certify ~0 and cannot see a wrong noise scale (``test_privacy_audits.py``). The played arms are
post-processing of the statistics the indices read, so these audits run the compiled policy's own
update on a fixed super arm (:class:`algorithms.bandits.statistics_audits.PolicyStatistics`) and
search observation tables over {0, 1} that differ in one round (``reward_tables``; 8 candidates):
CUCB-LDP1's and CUCB-LDP2's one-round reports (exact loss eps between any two observation
vectors, from :class:`algorithms.bandits.audits.LaplaceLocalRandomizer`), CUCB-DP's tree-based
releases over rounds 1..2 with tree depth 2 (exact loss eps / 2; Chen et al. 2020, Algorithm 3), and
DPUCB-MAT's and DPTS-MAT's released batch estimates over rounds 1..3 (K = 1: batches of 1 and 2) or round 1
(K = 2, 3): exact loss eps, the claim itself, since each observation enters exactly one release (Chandak 2023,
Algorithms 2 and 5). Every audit is held to the exact loss with a power floor of 0.8 of it.
"""

import numpy as np
import pytest

import dpverify
from algorithms.bandits import policies as P
from algorithms.bandits.audits import reward_tables
from algorithms.bandits.statistics_audits import (
    PolicyStatistics,
    batch_release_loss,
    local_report_loss,
    tree_release_loss,
)

EDGES = np.arange(-2.0, 3.01, 0.5)
#: Power floor of every case, as a fraction of the exact loss (issue 39: at least 0.8). It is above 1/1.3 = 0.77
#: times the share certified on correct code (measured at seed 11 in the order of ``CASES``: 0.92, 0.90, 0.95,
#: 0.92, 0.84, 0.92; 0.95, 0.90, 0.95, 0.92), so a noise scale 1.3x too large, whose true loss is 0.77 of the
#: reference, falls below it.
POWER_SHARE = 0.8

#: (policy, rank K, rounds, exact loss of the design); the known horizon is the policy's.
CASES = [
    (P.cucb_ldp1(2.0), 2, 1, local_report_loss(P.cucb_ldp1(2.0), 2, EDGES)),
    (P.cucb_ldp1(3.0), 3, 1, local_report_loss(P.cucb_ldp1(3.0), 3, EDGES)),
    (P.cucb_ldp2(2.0), 2, 1, local_report_loss(P.cucb_ldp2(2.0), 2, EDGES)),
    (P.cucb_ldp2(1.0), 3, 1, local_report_loss(P.cucb_ldp2(1.0), 3, EDGES)),
    (P.cucb_dp(4.0, horizon=2), 2, 2, tree_release_loss(4.0)),
    (P.cucb_dp(3.0, horizon=3), 1, 2, tree_release_loss(3.0)),
    (P.dpts_mat(4.0), 1, 3, batch_release_loss(4.0, 1, EDGES, 3)),
    (P.dpts_mat(3.0), 3, 1, batch_release_loss(3.0, 3, EDGES, 1)),
    (P.dpucb_mat(4.0), 1, 3, batch_release_loss(4.0, 1, EDGES, 3)),
    (P.dpucb_mat(2.0), 2, 1, batch_release_loss(2.0, 2, EDGES, 1)),
]
IDS = [
    "LDP1-eps2-K2",
    "LDP1-eps3-K3",
    "LDP2-eps2-K2",
    "LDP2-eps1-K3",
    "DP-eps4-K2-T2",
    "DP-eps3-K1-T3",
    "DPTS-eps4-K1-T3",
    "DPTS-eps3-K3-T1",
    "DPUCB-eps4-K1-T3",
    "DPUCB-eps2-K2-T1",
]


@pytest.mark.privacy_audit
def test_exact_losses_are_the_stated_ones():
    """The references: eps for the local reports (the tail bin attains it), eps / 2 for the tree."""
    for policy, _rank, _rounds, loss in CASES[:4]:
        assert loss == pytest.approx(policy.epsilon, rel=1e-9)
    assert tree_release_loss(4.0) == 2.0
    for policy, _rank, _rounds, loss in CASES[6:]:
        assert loss == pytest.approx(policy.claim.epsilon, rel=1e-9)


@pytest.mark.privacy_audit
def test_batch_release_loss_counts_each_release():
    """The batch policies' reference loss: eps whatever the rounds (each observation in one release), below eps
    when the bins do not reach the tail (post-processing loses), and no release before a batch is full.

    Detects: a reference that adds the releases' losses (an observation counted in two batches) or ignores the
    batch size's 1/n scaling of the released mean."""
    assert batch_release_loss(2.0, 2, EDGES, 7) == pytest.approx(2.0, rel=1e-9)
    assert batch_release_loss(2.0, 2, [0.25, 0.5, 0.75], 1) < 2.0
    assert batch_release_loss(2.0, 2, EDGES, 0) == 0.0


@pytest.mark.privacy_audit
@pytest.mark.parametrize("policy, rank, rounds, exact_loss", CASES, ids=IDS)
def test_searched_audit_of_policy_statistics_holds_the_exact_loss(
    policy, rank, rounds, exact_loss, suite_alpha, thorough
):
    """CUCB-LDP1, CUCB-LDP2 (Chen et al. 2020, Algorithms 1 and 2; Theorems 1 and 3: eps-LDP),
    CUCB-DP (Algorithm 3; Theorem 7: eps-DP), DPTS-MAT and DPUCB-MAT (Chandak 2023, Algorithms 5 and 2; the
    released batch estimates, whose played arms are post-processing of them), at two parameter settings each.

    Claim audited: the exact loss of the design (module docstring), computed from the stated noise scales, not
    the compiled code; for DPTS-MAT and DPUCB-MAT it equals the policy's claim eps. False alarm <= suite_alpha
    (search_audit certifies the chosen pair on fresh samples). Power check: the certified lower bound exceeds
    ``POWER_SHARE`` = 0.8 x the exact loss (measured at 60,000 samples, seed 11: 0.84-0.95 of it), so failing
    it on correct code at this fixed seed is not a chance event.
    Detects: the Laplace scale of the reports (CUCB-LDP1, CUCB-LDP2) or of the tree nodes (CUCB-DP)
    off by 1.3x either way (tried on the compiled code, first failing case: 1.3x too large certifies
    0.68, 0.72 and 0.61 x, below the floor; 1.3x too small is a violation), and 1.5x: too small,
    certified 1.35, 1.29, 1.43, 1.41, 1.19, 1.38 x (a violation); too large, true loss 0.67 x the
    reference, certified 0.59, 0.59, 0.62, 0.61, 0.53, 0.60 x. CUCB-DP's K = 2 case also
    catches its per-arm budget eps/K off by 1.5x (the reference eps/2 does not share it): certified
    2.38 (a violation) and 1.06 < 1.6. DPTS-MAT and DPUCB-MAT (tried on the compiled code): batch noise at twice
    the budget (2 eps) certifies 1.57-1.78 x, a violation in every case; the whole eps per arm (K eps) 1.95 x at
    K = 3; an open batch not emptied after its release (each observation in two releases over 3 rounds: 2 eps)
    1.51 x at K = 1. A policy stating 2 eps fails ``test_exact_losses_are_the_stated_ones`` (the exact loss is its
    claim). Under the thorough profile: four
    times the samples and 32 candidates (random tables too).
    """
    mech = PolicyStatistics(policy, rank, rounds, EDGES)
    tables = reward_tables(rounds, rank)
    res = dpverify.search_audit(
        mech,
        tables,
        epsilon=exact_loss,
        n_samples=600_000 if thorough else 150_000,
        n_candidates=32 if thorough else 8,
        alpha=suite_alpha,
        seed=11,
    )
    print(f"{policy.name}: certified {res.epsilon_lower_bound:.3f} (exact {exact_loss:.3f}), pair {res.chosen}")
    assert not res.violation
    assert res.epsilon_lower_bound > POWER_SHARE * exact_loss
