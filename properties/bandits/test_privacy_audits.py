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
is the same with e/2 (1.19: its hybrid counter releases a first item with Lap(2K/eps)), so their
audits are held to that exact loss: a per-arm budget 1.5x too large (e = 3: loss 4.17) is a
violation, and one 1.5x too small (e = 4/3: loss 1.65) fails the power check (certified bound
> 2.0; measured 2.42-2.47). On one block of two arms over 5 rounds DPUCB-MAT's searched audit
certifies 3.74 of eps = 4: the claim eps is nearly attained (Chandak 2023, Theorem 8 states 2 eps).
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from algorithms.bandits import policies as P
from algorithms.bandits.audits import (
    LaplaceLocalRandomizer,
    PlayedSuperArms,
    discretized_report_pmf,
    one_block_instance,
    reward_tables,
    two_block_event_loss,
    two_block_instance,
)
from algorithms.bandits.broken import broken_full_budget_per_arm
from algorithms.bandits.indices import omm as omm_kernels

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


#: (policy, exact loss of the relation on the design, power-check floor): DPUCB-MAT and LDP-OMM
#: observe with Lap(K/eps), DP-OMM's hybrid counter releases its first item with Lap(2K/eps) (its
#: logarithmic part spends eps'/2), i.e. the per-arm budget e/2 in two_block_event_loss.
DESIGN_CASES = [
    (P.dpucb_mat, two_block_event_loss(EPS / 2), 2.0),
    (P.ldp_omm, two_block_event_loss(EPS / 2), 2.0),
    (P.dp_omm, two_block_event_loss(EPS / 4), 0.8),
]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("factory, design_loss, floor", DESIGN_CASES, ids=["DPUCB-MAT", "LDP-OMM", "DP-OMM"])
def test_searched_audit_holds_the_exact_design_loss(factory, design_loss, floor, suite_alpha, thorough):
    """DPUCB-MAT (Chandak 2023, Alg. 2), LDP-OMM and DP-OMM (Tao et al. 2025, Algs. 2 and 1), eps' = eps/K.

    Claim audited: the exact loss of the relation on the design (module docstring): 2.61 for DPUCB-MAT
    and LDP-OMM, 2 (1 - ln 1.5) = 1.19 for DP-OMM, all below eps = 4 and Theorem 8's 2 eps = 8, so no
    violation of it is none of eps or 2 eps either. False alarm <= suite_alpha. Power check: the
    certified lower bound must exceed ``floor`` (measured 2.42-2.47 DPUCB-MAT, 2.42-2.45 LDP-OMM,
    1.09-1.11 DP-OMM at 100,000 samples over two versions of the search driver; DP-OMM 0.95-1.02 at
    30,000 on three seeds; the chosen pair changes round 1 or 2 of an all-zeros or all-ones table),
    so failing it on correct code is negligible.
    Detects: a per-arm budget (or Laplace scale) off by 1.5x either way: DPUCB-MAT e = 3 (loss 4.17)
    certifies 3.81 > 2.61, e = 4/3 (loss 1.65) certifies 1.52 < 2.0; LDP-OMM 3.83 and 1.52; DP-OMM's
    counters at 1.5 eps' (loss 1.88) certify 1.74 > 1.19, at eps'/1.5 (loss 0.67) 0.56-0.68 < 0.8.
    Theorem 8: this audit cannot separate eps from 2 eps -- no audit can, since DPUCB-MAT's loss is
    at most eps on every design (README, "Searched audits in the suite").
    """
    res = _audit(factory(EPS), design_loss, 100_000, 11, suite_alpha, thorough)
    print(f"{factory(EPS).name}: certified {res.epsilon_lower_bound:.3f} (exact {design_loss:.3f}), pair {res.chosen}")
    assert not res.violation
    assert res.epsilon_lower_bound > floor


#: (policy, floor as a share of its stated claim, seed): measured certified bounds at 200,000 samples on one block
#: at eps = 4: DPUCB-MAT 3.74 and 3.77 (seeds 5, 6), DPTS-MAT 2.02 (seed 5; its Gaussian sampling noise hides part
#: of the loss).
STATED_CASES = [(P.dpucb_mat, 0.875, 5), (P.dpts_mat, 0.45, 5)]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("factory, share, seed", STATED_CASES, ids=["DPUCB-MAT", "DPTS-MAT"])
def test_stated_claim_is_kept_and_nearly_attained_on_one_block(factory, share, seed, suite_alpha):
    """DPUCB-MAT and DPTS-MAT (Chandak 2023, Algs. 2 and 5) with K = 1 (one block of two arms, horizon 5, 2 x 5
    tables; 10 fixed candidates), audited at the claim the policy *states* (``policy.claim``, not a constant).

    No violation of the stated claim (false alarm <= suite_alpha), and the certified bound exceeds ``share`` of it
    (DPUCB-MAT 3.5 of eps = 4, DPTS-MAT 1.8; measured 3.74 and 2.02): the stated eps is nearly attained, so
    Theorem 8's (and Theorem 10's) 2 eps is loose by almost exactly a factor 2.
    Detects: a policy stating 2 eps (the thesis' form; tried: the floor becomes 7.0 and 3.6, above the true loss
    <= 4, and both fail), a per-arm budget 1.5x too large (DPUCB-MAT certified 5.44 > 4, a violation of eps
    itself) or 1.5x too small (2.49 < 3.5).
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
    [P.dp_omm, P.dpts_mat, P.cucb_ldp1, P.cucb_ldp2, P.cucb_dp],
    ids=["DP-OMM", "DPTS-MAT", "CUCB-LDP1", "CUCB-LDP2", "CUCB-DP"],
)
def test_no_violation_at_claim(factory, suite_alpha):
    """DP-OMM, DPTS-MAT and the CUCB family keep their claim eps on the searched design (false alarm <= suite_alpha).

    DP-OMM is also held to its exact design loss above; the exact loss of the others on the design is
    not known in closed form, so they are audited at eps itself. At eps DP-OMM's audit detects its
    counters run at 4 eps (noise 4x too small; see the next test).
    Informativeness: DPTS-MAT adds Gaussian sampling noise (lower bound ~1.1); the CUCB-family
    indices are clipped at 1 on a horizon this short, so their played arms barely depend on the
    data (lower bounds ~0) -- their noise lines are audited on their compiled statistics instead
    (``test_statistics_audits.py``: reports and tree releases held to their exact losses, which
    catch 1.5x either way). Detects: nothing short of a gross error for DPTS-MAT (its noise line is
    DPUCB-MAT's, held to the exact design loss above) or for the CUCB family on this design.
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
        self.eps = eps

    def sample(self, stream, size, rng):
        return omm_kernels.hybrid_counter_batch(
            np.asarray(stream, dtype=float), self.eps, int(size), np.random.default_rng(rng)
        )

    def __call__(self, stream, rng):
        return self.sample(stream, 1, rng)[0]


def test_simulator_hybrid_counter(suite_alpha):
    """The hybrid counter inside the simulator: exact sums without noise, and no violation of
    eps' on neighbouring streams (one item changed by 1; false alarm <= suite_alpha).

    Detects: a counter that is not a prefix sum (wrong noiseless output); its privacy power is
    that of dpverify.audit on this pair (weak for scale errors below 2x: the calibration tests
    pin the scale)."""
    stream = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 0], dtype=float)
    noiseless = omm_kernels.hybrid_counter_outputs(stream, 1e15, np.random.default_rng(0))
    assert np.allclose(noiseless, np.cumsum(stream), atol=1e-9)
    neighbour = stream.copy()
    neighbour[2] = 0.0
    res = dpverify.audit(
        _HybridCounterOfKernel(1.0), stream, neighbour, epsilon=1.0, n_samples=40_000, alpha=suite_alpha, seed=4
    )
    assert not res.violation


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
