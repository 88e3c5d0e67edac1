"""Privacy audits of the bandit policies (dpverify.search_audit) and exact losses of the local randomizers.

Central claims are audited on the map reward table -> played super arms
(:class:`algorithms.bandits.audits.PlayedSuperArms`) on the two-block design of
:mod:`algorithms.bandits.audits` (K = 2, horizon 3). The auditor is not handed a pair: it
searches the neighbouring relation itself (``dpverify.search_audit`` over
:class:`algorithms.bandits.audits.RewardTables`: 3 x 4 tables over {0, 1} differing in one
round, the six fixed pairs "one round all ones against all zeros" on the all-zeros and all-ones
tables, then random tables; 8 candidates). Every "no violation" assertion has false-alarm rate
<= suite_alpha however many pairs were screened (search_audit certifies the chosen pair on fresh
samples). On this design the exact loss of DPUCB-MAT and LDP-OMM over *all* pairs of the relation
is the event loss 2 (e - ln(1 + e/2)) of "round 3 replays round 2" with the per-arm budget
e = eps/K (2.61 at eps = 4; :func:`algorithms.bandits.audits.two_block_event_loss`), and DP-OMM's
is the same with e/2 (1.19: its hybrid counter releases a first item with Lap(2K/eps)), and DPTS-MAT's
is ``2 ln(1 / (2 F(-1)))`` with ``F`` the cdf of the Laplace difference plus its two N(0, 1) Thompson samples
(1.17; quadrature, :func:`algorithms.bandits.audits.block_event_loss`). Every played-arm audit is held to that
exact loss, at eps = 4 and 2, with a power floor of 0.8 of it: a per-arm budget 1.5x too large (e = 3: loss 4.17)
is a violation, and one 1.5x too small (e = 4/3: loss 1.65) fails the power check. DPTS-MAT's and DPUCB-MAT's
released batch estimates are held to their exact loss (= eps) in ``test_statistics_audits.py``, and a fixed pair
that differs only in an unreleased observation (exact loss 0) catches an index that reads open batches. On one
block of two arms over 5 rounds DPUCB-MAT's searched audit certifies 3.74 of eps = 4: the claim eps is nearly
attained (Chandak 2023, Theorem 8 states 2 eps).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from algorithms.bandits import policies as P
from algorithms.bandits.audits import (
    DPTS_SAMPLING_SD,
    LaplaceLocalRandomizer,
    PlayedSuperArms,
    block_event_loss,
    discretized_report_pmf,
    one_block_instance,
    reward_tables,
    two_block_event_loss,
    two_block_instance,
    unreleased_round_instance,
)
from algorithms.bandits.broken import broken_full_budget_per_arm
from algorithms.bandits.indices import omm as omm_kernels
from algorithms.counters import hybrid_structure
from algorithms.counters.audits import NodeThresholds
from dpverify.neighbours import streams

EPS = 4.0
MATROID, X, X_PRIME, HORIZON = two_block_instance()
#: Exact loss of DPUCB-MAT and LDP-OMM (per-arm budget eps/K = 2) over every pair of the relation on the design.
DESIGN_LOSS = two_block_event_loss(EPS / 2)
N_CANDIDATES = 8


def _audit(policy, claim, n, seed, alpha, thorough=False):
    """Search audit of ``policy``'s played super arms over the design's neighbouring reward tables.

    Under the thorough profile: 32 candidates (more random tables) and twice the samples (measured:
    2.48 DPUCB-MAT, 2.49 LDP-OMM, 1.13 DP-OMM at their exact design losses).
    """
    mech = PlayedSuperArms(MATROID, policy, HORIZON)
    neighbours = reward_tables(HORIZON, X.shape[1])
    return dpverify.search_audit(
        mech,
        neighbours,
        epsilon=claim,
        n_samples=2 * n if thorough else n,
        n_candidates=32 if thorough else N_CANDIDATES,
        alpha=alpha,
        seed=seed,
    )


@pytest.mark.privacy_audit
def test_event_loss_formula():
    assert math.isclose(two_block_event_loss(2.0), 2 * (2 - math.log(2)))
    assert two_block_event_loss(EPS / 2) < EPS < two_block_event_loss(EPS)


#: Power floor of every audit held to an exact loss: this share of the exact loss (issue 39: at least 0.8).
POWER_SHARE = 0.8

#: (policy, eps, exact loss of the relation on the design): DPUCB-MAT and LDP-OMM observe with Lap(K/eps),
#: DP-OMM's hybrid counter releases its first item with Lap(2K/eps) (its logarithmic part spends eps'/2), i.e.
#: the per-arm budget e/2, and DPTS-MAT compares Thompson samples N(w~, 1) (two_block_event_loss's sampling_sd).
DESIGN_CASES = [
    (P.dpucb_mat, EPS, two_block_event_loss(EPS / 2)),
    (P.dpucb_mat, EPS / 2, two_block_event_loss(EPS / 4)),
    (P.ldp_omm, EPS, two_block_event_loss(EPS / 2)),
    (P.ldp_omm, EPS / 2, two_block_event_loss(EPS / 4)),
    (P.dp_omm, EPS, two_block_event_loss(EPS / 4)),
    (P.dp_omm, EPS / 2, two_block_event_loss(EPS / 8)),
    (P.dpts_mat, EPS, two_block_event_loss(EPS / 2, DPTS_SAMPLING_SD)),
    (P.dpts_mat, EPS / 2, two_block_event_loss(EPS / 4, DPTS_SAMPLING_SD)),
]
DESIGN_IDS = [f"{name}-eps{eps:g}" for name in ("DPUCB-MAT", "LDP-OMM", "DP-OMM", "DPTS-MAT") for eps in (EPS, EPS / 2)]


@pytest.mark.privacy_audit
def test_dpts_design_loss_quadrature_matches_the_closed_form_limit():
    """The quadrature of ``block_event_loss`` (DPTS-MAT's Gaussian sampling) meets the closed form as the sampling
    noise vanishes, and sampling noise lowers the loss (post-processing by independent noise).

    Detects: a wrong Laplace-difference density or integration range in the reference loss DPTS-MAT is held to.
    """
    for e in (0.5, 1.0, 2.0):
        assert block_event_loss(e, 1e-4) == pytest.approx(e - math.log1p(e / 2), rel=1e-4)
        assert 0 < block_event_loss(e, DPTS_SAMPLING_SD) < block_event_loss(e)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("factory, eps, design_loss", DESIGN_CASES, ids=DESIGN_IDS)
def test_searched_audit_holds_the_exact_design_loss(factory, eps, design_loss, suite_alpha, thorough):
    """DPUCB-MAT, DPTS-MAT (Chandak 2023, Algs. 2 and 5), LDP-OMM and DP-OMM (Tao et al. 2025, Algs. 2 and 1),
    eps' = eps/K, at eps = 4 and 2, on their played super arms.

    Claim audited: the exact loss of the relation on the two-block design (module docstring; for DPTS-MAT the
    quadrature of :func:`block_event_loss` with its N(w~, 1) samples): at eps = 4 / 2, 2.61 / 1.19 for DPUCB-MAT
    and LDP-OMM, 1.19 / 0.55 for DP-OMM, 1.17 / 0.83 for DPTS-MAT, all below eps and Theorems 8 and 10's 2 eps, so
    no violation of it is none of eps or 2 eps either. False alarm <= suite_alpha (search_audit certifies the
    chosen pair on fresh samples). Power check: the certified lower bound exceeds ``POWER_SHARE`` = 0.8 of the
    exact loss (measured at 100,000 samples, seed 11, eps = 4 / 2: DPUCB-MAT 0.93 / 0.92, LDP-OMM 0.94 / 0.93,
    DP-OMM 0.93 / 0.88, DPTS-MAT 0.93 / 0.89 of it; the chosen pair changes round 1 or 2), so failing it on correct
    code at this fixed seed is not a chance event.
    Detects: a per-arm budget (or Laplace scale) off by 1.5x either way for DPUCB-MAT, LDP-OMM and DP-OMM (too
    large: a violation, e.g. DPUCB-MAT e = 3 certifies 3.81 > 2.61; too small: below the floor, e.g. 1.52 < 2.09);
    for DPTS-MAT, whose Gaussian sampling hides most of the Laplace noise on this design, errors of 2x and more in
    the budget (K eps = 2 eps at K = 2: true loss 1.37 and 1.17, certified 1.27 > 1.17 at eps = 4 and 1.08 > 0.83
    at eps = 2, tried on the compiled code) -- its noise line is held to the exact loss of its released
    statistics (``test_statistics_audits.py``) and its use of unreleased data by
    ``test_unreleased_observation_does_not_move_the_played_arms``.
    Theorem 8: this audit cannot separate eps from 2 eps -- no audit can, since DPUCB-MAT's loss is
    at most eps on every design (README, "Searched audits in the suite").
    """
    policy = factory(eps)
    res = _audit(policy, design_loss, 100_000, 11, suite_alpha, thorough)
    bound = res.epsilon_lower_bound
    print(f"{policy.name} eps {eps}: certified {bound:.3f} (exact {design_loss:.3f}), pair {res.chosen}")
    assert not res.violation
    assert res.epsilon_lower_bound > POWER_SHARE * design_loss


#: (policy, floor as a share of its stated claim, seed): measured certified bound at 200,000 samples on one block
#: at eps = 4: DPUCB-MAT 3.74 and 3.77 (seeds 5, 6). DPTS-MAT's stated claim is attained by its released statistics
#: (``test_statistics_audits.py``, held to its exact loss = its claim, floor 0.8).
STATED_CASES = [(P.dpucb_mat, 0.875, 5)]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("factory, share, seed", STATED_CASES, ids=["DPUCB-MAT"])
def test_stated_claim_is_kept_and_nearly_attained_on_one_block(factory, share, seed, suite_alpha):
    """DPUCB-MAT (Chandak 2023, Alg. 2) with K = 1 (one block of two arms, horizon 5, 2 x 5 tables; 10 fixed
    candidates), audited at the claim the policy *states* (``policy.claim``, not a constant).

    No violation of the stated claim (false alarm <= suite_alpha), and the certified bound exceeds ``share`` of it
    (3.5 of eps = 4; measured 3.74): the stated eps is nearly attained, so Theorem 8's 2 eps is loose by almost
    exactly a factor 2.
    Detects: a policy stating 2 eps (the thesis' form; tried: the floor becomes 7.0, above the true loss <= 4),
    a per-arm budget 1.5x too large (certified 5.44 > 4, a violation of eps itself) or 1.5x too small
    (2.49 < 3.5).
    """
    matroid, horizon = one_block_instance()
    policy = factory(EPS)
    mech = PlayedSuperArms(matroid, policy, horizon)
    res = dpverify.search_audit(
        mech, reward_tables(horizon, 2), n_samples=200_000, n_candidates=10, alpha=suite_alpha, seed=seed
    )
    print(f"{policy.name}, one block: certified {res.epsilon_lower_bound:.3f} against its claim {res.claimed_epsilon}")
    assert res.claimed_epsilon == policy.claim.epsilon
    assert not res.violation
    assert res.epsilon_lower_bound > share * policy.claim.epsilon


#: (policy, eps, K): the batch policies on the unreleased-round pair.
UNRELEASED_CASES = [(P.dpts_mat, EPS, 1), (P.dpts_mat, EPS / 2, 2), (P.dpucb_mat, EPS, 1), (P.dpucb_mat, EPS / 2, 2)]


@pytest.mark.privacy_audit
@pytest.mark.parametrize(
    "factory, eps, rank",
    UNRELEASED_CASES,
    ids=["DPTS-MAT-eps4-K1", "DPTS-MAT-eps2-K2", "DPUCB-MAT-eps4-K1", "DPUCB-MAT-eps2-K2"],
)
def test_unreleased_observation_does_not_move_the_played_arms(factory, eps, rank, suite_alpha, thorough):
    """DPTS-MAT and DPUCB-MAT (Chandak 2023, Algs. 5 and 2) read released batches only: on a pair of reward tables
    that differ only in an observation still in an open batch, the played super arms have equal laws.

    Design (:func:`algorithms.bandits.audits.unreleased_round_instance`): K blocks of two arms, horizon 4, all
    zeros against round 3 all ones. Rounds 1 and 2 release every arm's first batch; round 3's observation opens the
    played arm's second batch (two items), unreleased through round 4, whose choice is the output where a leak
    shows: the pair's exact loss is 0. The audit (``dpverify.audit`` on this fixed pair, every event of the played
    arms) is held to it: its certified lower bound must be 0. False alarm: P[certified > 0] <= suite_alpha (the
    lower bound is valid at that level and the true loss is 0). Power: measured at 40,000 samples, seed 7, a
    DPTS-MAT whose posterior pools the open batch (mean ``(w~ T_e + buffer sum) / (T_e + buffer size)``) certifies
    0.30 (eps = 4, K = 1) and 0.53 (eps = 2, K = 2); a DPUCB-MAT index pooling it likewise (see the mutation table).
    Under the thorough profile: four times the samples.
    Detects: an index (Thompson posterior or UCB) that uses observations of the batch not yet released.
    """
    matroid, x, x_prime, horizon = unreleased_round_instance(rank)
    policy = factory(eps)
    res = dpverify.audit(
        PlayedSuperArms(matroid, policy, horizon),
        x,
        x_prime,
        claim=policy.claim,
        n_samples=160_000 if thorough else 40_000,
        alpha=suite_alpha,
        seed=7,
    )
    print(f"{policy.name} eps {eps} K {rank}: certified {res.epsilon_lower_bound:.3f} on the unreleased pair (exact 0)")
    assert res.epsilon_lower_bound <= 0.0


@pytest.mark.privacy_audit
@pytest.mark.parametrize("factory", [P.dpucb_mat, P.ldp_omm], ids=["DPUCB-MAT", "LDP-OMM"])
def test_full_budget_per_arm_is_caught(factory, suite_alpha):
    """Every arm given the whole eps instead of eps/K is flagged at the unchanged claim (power ~1).

    Detects: the forgotten budget split (event loss 5.80 against the claim 4). False alarm: the
    assertion is that a violation *is* found, so it cannot fail on correct code by chance.
    """
    broken = broken_full_budget_per_arm(factory(EPS))
    res = _audit(broken, EPS, 100_000, 21, suite_alpha)
    assert res.violation and res.epsilon_lower_bound > EPS


@pytest.mark.privacy_audit
@pytest.mark.parametrize(
    "factory",
    [P.dp_omm, P.cucb_ldp1, P.cucb_ldp2, P.cucb_dp],
    ids=["DP-OMM", "CUCB-LDP1", "CUCB-LDP2", "CUCB-DP"],
)
def test_no_violation_at_claim(factory, suite_alpha):
    """DP-OMM and the CUCB family keep their claim eps on the searched design (false alarm <= suite_alpha).

    DP-OMM is also held to its exact design loss above; the exact loss of the others on the design is
    not known in closed form, so they are audited at eps itself. At eps DP-OMM's audit detects its
    counters run at 4 eps (noise 4x too small; see the next test).
    Informativeness: the CUCB-family indices are clipped at 1 on a horizon this short, so their played arms
    barely depend on the data (lower bounds ~0) -- their noise lines are audited on their compiled statistics
    instead (``test_statistics_audits.py``: reports and tree releases held to their exact losses at a floor of
    0.8 of it, which catch 1.3x either way). Detects: nothing short of a gross error for the CUCB family on this
    design. (DPTS-MAT, audited here at eps before, is held to its exact design loss above.)
    """
    res = _audit(factory(EPS), EPS, 30_000, 31, suite_alpha)
    assert not res.violation


@pytest.mark.privacy_audit
def test_dp_omm_audit_detects_noise_four_times_too_small(suite_alpha):
    """What DP-OMM's audit can detect: its counters run at 4 eps (noise 4x too small) violate eps = 4.

    Measured on the searched design (30,000 samples, alpha = 1e-6): correct DP-OMM certifies ~1;
    every arm given the full eps (2x) ~2.3 -- not a violation *of eps*, so at the claim eps a 2x
    error is invisible; held to its exact design loss 1.19
    (``test_searched_audit_holds_the_exact_design_loss``) a 1.5x error already is a violation; 4x
    certifies > 4. False alarm: none by chance (the assertion is that a violation is found); the
    certified bound's spread over seeds is a few hundredths.
    """
    res = _audit(P.dp_omm(4 * EPS), EPS, 30_000, 31, suite_alpha)
    assert res.violation and res.epsilon_lower_bound > EPS
    full = _audit(broken_full_budget_per_arm(P.dp_omm(EPS)), EPS, 30_000, 31, suite_alpha)
    assert not full.violation  # the documented blind spot: a 2x error is below this design's reach


@pytest.mark.privacy_audit
@pytest.mark.parametrize(
    "factory, rank, n_reports",
    [(P.ldp_omm, 3, 3), (P.cucb_ldp1, 3, 3), (P.cucb_ldp2, 3, 1)],
    ids=["LDP-OMM", "CUCB-LDP1", "CUCB-LDP2"],
)
def test_local_randomizer_is_exactly_eps_ldp(factory, rank, n_reports):
    """Exact loss of the binned report: = eps on the extreme pair (tail bins attain it), <= eps on
    random pairs; the broken full-per-arm budget has loss K * eps. Exact, no sampling.

    Detects: any wrong Laplace scale of the reports (loss != eps exactly), e.g. Lap(1/eps) where
    K reports share eps, or CUCB-LDP2 splitting eps it need not split."""
    eps = 2.0
    edges = np.linspace(-4.0, 5.0, 10)
    rnd = LaplaceLocalRandomizer(factory(eps), rank)
    assert rnd.n_reports == n_reports
    zero, one = np.zeros(n_reports), np.ones(n_reports)
    loss = dpverify.exact_privacy_loss(
        discretized_report_pmf(rnd, zero, edges), discretized_report_pmf(rnd, one, edges)
    )
    assert math.isclose(loss.epsilon, eps, rel_tol=1e-9)
    rng = np.random.default_rng(5)
    for _ in range(5):
        a, b = rng.random(n_reports), rng.random(n_reports)
        pair = dpverify.exact_privacy_loss(discretized_report_pmf(rnd, a, edges), discretized_report_pmf(rnd, b, edges))
        assert pair.epsilon <= eps + 1e-9
    if n_reports > 1:
        broken = LaplaceLocalRandomizer(broken_full_budget_per_arm(factory(eps)), rank)
        bl = dpverify.exact_privacy_loss(
            discretized_report_pmf(broken, zero, edges), discretized_report_pmf(broken, one, edges)
        )
        assert math.isclose(bl.epsilon, rank * eps, rel_tol=1e-9)


def test_local_randomizer_sampler_matches_its_pmf(suite_alpha):
    """The sampled reports, binned, follow the exact pmf (chi-square goodness of fit at suite_alpha;
    power: a Laplace scale off by 20% shifts the tail bins' mass by > 10%, caught at 40k samples)."""
    rnd = LaplaceLocalRandomizer(P.ldp_omm(2.0), 2)
    edges = np.linspace(-3.0, 4.0, 8)
    x = np.array([0.2, 0.9])
    pmf = discretized_report_pmf(rnd, x, edges)

    class Binned:
        def sample(self, size, rng):
            reports = rnd.sample(x, size, rng)
            bins = np.searchsorted(edges, reports, side="left")
            return [tuple(row) for row in bins.tolist()]

        def __call__(self, rng):
            return self.sample(1, rng)[0]

    res = dpverify.goodness_of_fit(Binned(), pmf, n_samples=40_000, seed=3)
    assert res.pvalue > suite_alpha


class _HybridCounterOfKernel:
    """DP-OMM's per-arm counter as compiled in the simulator, as a dpverify mechanism."""

    def __init__(self, eps):
        self.epsilon = eps

    def sample(self, stream, size, rng):
        return omm_kernels.hybrid_counter_batch(
            np.asarray(stream, dtype=float), self.epsilon, int(size), np.random.default_rng(rng)
        )

    def __call__(self, stream, rng):
        return self.sample(stream, 1, rng)[0]


def test_simulator_hybrid_counter_releases_prefix_sums():
    """The hybrid counter inside the simulator releases exact prefix sums without noise.

    Detects: a counter that is not a prefix sum (wrong noiseless output)."""
    stream = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 0], dtype=float)
    noiseless = omm_kernels.hybrid_counter_outputs(stream, 1e15, np.random.default_rng(0))
    assert np.allclose(noiseless, np.cumsum(stream), atol=1e-9)


#: (eps, samples): the simulator's hybrid counter audited like the counters' own (properties/counters).
SIMULATOR_COUNTER_CASES = [(1.0, 200_000), (2.0, 100_000)]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("eps, n_samples", SIMULATOR_COUNTER_CASES, ids=["eps1", "eps2"])
def test_simulator_hybrid_counter_holds_its_exact_loss(eps, n_samples, suite_alpha):
    """DP-OMM's per-arm hybrid counter as the simulator draws it (Tao et al. 2025, Algorithm 1; Chan, Shi, Song
    2011), searched over streams of 8 items over {0, 1} differing in one item (``dpverify.neighbours.streams``,
    18 fixed pairs) through ``algorithms.counters.audits.NodeThresholds`` (a post-processing that keeps the worst
    pair's likelihood-ratio event), held to the hybrid structure's exact loss (eps/2)(1 + 2/3) at T = 8.

    False alarm: "no violation" <= suite_alpha (search_audit's guarantee). Power check: certified > 0.8 of the
    exact loss (measured at seed 115: 0.90 at eps = 1, 0.94 at eps = 2; 0.84-0.90 at eps = 1 over seeds 113-117).
    Replaces a plain audit of the raw outputs on one pair at the claim eps, which certified 0.42 of 1.
    Detects: the simulator's counter noise off by 1.5x either way (loss 1.5x: a violation; 0.67x: below the
    floor), e.g. the kernel handing the counter eps instead of eps' or the logarithmic part's eps/2 split dropped.
    """
    structure = hybrid_structure(8, eps)
    exact = structure.exact_epsilon()
    pairs = streams(8)
    res = dpverify.search_audit(
        NodeThresholds(_HybridCounterOfKernel(eps), structure),
        pairs,
        epsilon=exact,
        n_samples=n_samples,
        n_candidates=len(pairs.fixed_pairs()),
        alpha=suite_alpha,
        seed=115,
    )
    print(f"simulator hybrid counter eps {eps}: certified {res.epsilon_lower_bound:.3f} (exact {exact:.3f})")
    assert not res.violation
    assert res.epsilon_lower_bound > POWER_SHARE * exact


@given(st.integers(1, 6), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_reward_tables_differ_in_exactly_one_round(rounds, arms, seed):
    """Every candidate of RewardTables: two 0/1 tables of the given shape differing in one round only."""
    pairs = reward_tables(rounds, arms).candidates(12, np.random.default_rng(seed))
    assert pairs
    for x, x_prime in pairs:
        a, b = np.array(x), np.array(x_prime)
        assert a.shape == b.shape == (rounds, arms)
        assert set(np.unique(np.concatenate([a.ravel(), b.ravel()]))) <= {0.0, 1.0}
        assert np.count_nonzero((a != b).any(axis=1)) == 1
