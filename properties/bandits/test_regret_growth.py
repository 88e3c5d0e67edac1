"""Regret growth in K and in ln T against the orders of the papers' upper bounds.

Family: the uniform matroid of rank K on m = K + 4 Bernoulli arms, K optimal arms at 0.6 and
four at 0.4 (every gap Delta = 0.2, four suboptimal base arms whatever K). The reward is linear,
so B_1 = 1 and B_inf = K (Chen et al. 2020, Assumption 2).

Claimed K-orders (the K factor of each bound on this family, written as the least-squares slope of
ln factor(K) on ln K over K = 1, 2, 4, 8, so that a factor that is not a pure power is compared on
the same footing as the fit):

- Chen, Zheng, Zhou, Yang, Chen, Wang (ICML 2020), Theorem 2 (CUCB-LDP1): K^2 B_inf^2 -> 4;
  Theorem 4 (CUCB-LDP2): B_inf^2 -> 2; Theorem 8 (CUCB-DP): K B_1^2 plus m K B_1 ln^3 T (...)/eps
  -> at most the slope of (K + 4) K, 1.42.
- Chandak (2023), Theorems 9 (DPUCB-MAT) and 11 (DPTS-MAT): the private term
  min{K, log(Kn)} ln(Kn) / (eps/K) per suboptimal arm -> 2 (plus logarithms).
- Tao, Li et al. (2025), Theorem 1 (DP-OMM): sum_a ln T / Delta_a + (N - K) K min{K, ln T} ln T / eps
  -> K min{K, ln T} = K^2 here (ln T > 8) -> 2; Theorem 2 (LDP-OMM): K^2 / eps^2 sum_a ln T / Delta_a
  -> 2 (N - K = 4 suboptimal arms whatever K).

Claimed ln T order: all are O(ln T) except Theorem 8's private term, O(ln^3 T ln ln T).

Can the fits fail? Regret on this family is at most 0.2 min(K, 4) T (every suboptimal slot filled
every round). A regret that grew like R(1) K^c with c above the claim would hit that cap before
K = 8 unless R(1) 8^c < 0.8 T; the largest such c (``algorithms.bandits.growth.power_law_room``)
must exceed the claim, or the fit tests nothing. At eps = 4, T = 1e5 it does not for DP-OMM,
LDP-OMM and DPUCB-MAT (R(1) near 1500: room 1.9), so those fits run at eps = 16, 32 or T = 4e5
(``K_FIT``); for CUCB-LDP1 the room is 2.5 against the claimed 4, so Theorem 2's K^4 cannot be
contradicted here at any feasible horizon and is not fitted (``test_cucb_ldp1_k_claim_is_out_of_reach``).

Statistics: K exponent = least-squares slope of ln(mean regret) on ln K (K = 1, 2, 4, 8), with a
delta-method standard error from the independent runs; the test fails when the slope exceeds
the claimed exponent by more than z(alpha) standard errors (false-alarm rate <= suite_alpha per
policy under the normal approximation). The ln T test compares the regret increment per unit
ln T over the last two doublings with that over the first two (R = a + b ln T gives 1, linear
regret 8); it fails when the run-level difference late - c * early is significantly positive.
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.bandits import policies as P
from algorithms.bandits._kernel_matroids import uniform_matroid
from algorithms.bandits.environments import BanditInstance, BernoulliEnvironment
from algorithms.bandits.growth import (
    claimed_exponent,
    log_mean_standard_error,
    power_law_room,
    uniform_family_regret_cap,
)
from algorithms.bandits.simulator import simulate

pytestmark = pytest.mark.paper_claim

KS = (1, 2, 4, 8)


def instance(k: int) -> BanditInstance:
    return BanditInstance(f"uniform-{k}", uniform_matroid(k + 4, k), BernoulliEnvironment([0.6] * k + [0.4] * 4))


#: name -> (factory, eps, claimed K exponent, claimed ln T increment ratio, reference)
POLICIES = {
    "CUCB-LDP1": (P.cucb_ldp1, 4.0, claimed_exponent(KS, lambda k: k**4), 1.0, "Chen et al. 2020, Theorem 2"),
    "CUCB-LDP2": (P.cucb_ldp2, 4.0, claimed_exponent(KS, lambda k: k**2), 1.0, "Chen et al. 2020, Theorem 4"),
    "CUCB-DP": (P.cucb_dp, 32.0, claimed_exponent(KS, lambda k: (k + 4) * k), 1.6, "Chen et al. 2020, Theorem 8"),
    "DPUCB-MAT": (P.dpucb_mat, 4.0, claimed_exponent(KS, lambda k: k**2), 1.0, "Chandak 2023, Theorem 9"),
    "DPTS-MAT": (P.dpts_mat, 4.0, claimed_exponent(KS, lambda k: k**2), 1.0, "Chandak 2023, Theorem 11"),
    "DP-OMM": (P.dp_omm, 4.0, claimed_exponent(KS, lambda k: k * min(k, 11.5)), 1.0, "Tao et al. 2025, Theorem 1"),
    "LDP-OMM": (P.ldp_omm, 4.0, claimed_exponent(KS, lambda k: k**2), 1.0, "Tao et al. 2025, Theorem 2"),
}
#: claims this family can contradict: all but CUCB-LDP1's K^4 (see the module docstring)
FITTED_K = sorted(set(POLICIES) - {"CUCB-LDP1"})
HORIZON = 100_000
#: (eps, horizon) of the K fit where it differs from (the policy's eps, HORIZON): at eps = 4 and T = 1e5
#: DP-OMM's, LDP-OMM's and DPUCB-MAT's R(1) (1577, 1355, 1679) is so large that even R = R(1) K^2 would
#: pass the cap 0.8 T at K = 8, so no power-law violation of K^2 could show; at eps = 16 (DP-OMM), 32
#: (LDP-OMM) or T = 4e5 (DPUCB-MAT, whose doubling batches keep R(1) near 1700 whatever eps) the room
#: is 2.2-2.5. LDP-OMM runs at 32 so that a split eps/K^3 stays under the cap and shows (slope 2.24).
K_FIT = {"DP-OMM": (16.0, HORIZON), "LDP-OMM": (32.0, HORIZON), "DPUCB-MAT": (4.0, 400_000)}
#: K fits too long for the default profile (about 8 s): run under the thorough profile only
THOROUGH_ONLY_K = {"DPUCB-MAT"}
#: the ln T test plays LDP-OMM at eps = 16: at eps = 4 its Laplace term (4K/eps) ln(2 t^4)/n still
#: dominates at T = 1e5 and regret per unit ln T is still rising (ratio 1.37; 1.10 at T = 2e5), so
#: the asymptotic O(ln T) order is not yet observable there; at eps = 16 the curve has bent (0.97).
LN_T_EPS = {"LDP-OMM": 16.0}


def fitted_k_exponent(factory, eps, *, horizon, n_runs, seed):
    """(slope, standard error, mean regrets) of ln R(T) on ln K over KS."""
    means, variances = [], []
    for i, k in enumerate(KS):
        r = simulate(
            instance(k), policy=factory(eps), horizon=horizon, n_runs=n_runs, seed=seed + i, checkpoints=[horizon]
        ).cumulative_regret[:, -1]
        means.append(r.mean())
        variances.append(log_mean_standard_error(r) ** 2)  # var of ln(mean), delta method
    x = np.log(KS) - np.log(KS).mean()
    y = np.log(means)
    slope = float((x * y).sum() / (x * x).sum())
    se = float(math.sqrt((x**2 * np.array(variances)).sum()) / (x * x).sum())
    return slope, se, np.array(means)


def _room(means, horizon):
    """The steepest power law through R(1) that stays under the cap at K = 8 (growth.power_law_room)."""
    return power_law_room(
        KS[0], means[0], KS[-1], uniform_family_regret_cap(KS[-1], suboptimal=4, gap=0.2, horizon=horizon)
    )


@pytest.mark.parametrize("name", FITTED_K)
def test_regret_grows_in_k_no_faster_than_claimed(name, suite_alpha, thorough):
    """Fitted K exponent <= claimed, 6 runs per K (thorough: 40), T = 1e5 unless ``K_FIT`` says otherwise.

    Detects: regret that grows faster in K than the theorem allows while staying under the regret
    cap: LDP-OMM with its budget split eps/K^3 instead of eps/K fits 2.24 > 2 (mutant
    ``claims-split-rank-cubed`` of ``properties/mutation.py``). It does not detect eps/K^2 (LDP-OMM
    1.83 at eps = 16, DPTS-MAT 1.15, DP-OMM 1.04, CUCB-DP 1.27 < 1.42), nor over-noising that
    saturates at the cap and flattens the fit: those are the calibration tests' to catch.
    Observed (default profile): CUCB-LDP2 0.25 (claimed 2), CUCB-DP 0.72 (1.42), DPTS-MAT 0.44 (2),
    DP-OMM 0.40 (2, eps = 16), LDP-OMM 0.51 (2, eps = 32); thorough: DPUCB-MAT 0.28 (2, T = 4e5).
    Every bound is loose in K on this family.

    Can it fail? Regret is at most 0.2 min(K, 4) T. The test first asserts that the steepest power
    law through the measured R(1) that stays under the cap at K = 8 (``growth.power_law_room``:
    2.54, 1.47, 2.32, 2.2, 2.44, 2.47) exceeds the claim; a step-shaped violation could reach
    further.
    False alarm <= suite_alpha (normal approximation of the slope, delta-method standard errors
    0.003 to 0.03).

    Reading of the O(.) bound checked: the fitted exponent of K, one-sided. Smallest error detected: an
    exponent above the claim by (z + 1.28) se (power 0.9), i.e. a fitted slope above claim + 0.04 to
    0.2. A regret K times too large raises the slope by exactly 1 (until the cap), which stays under the
    claim for CUCB-LDP2, DPUCB-MAT, DPTS-MAT, DP-OMM and LDP-OMM (fitted 0.25-0.51 against 2), so a
    K-fold constant error passes there; only CUCB-DP's (0.72 + 1 against 1.42, its room 1.47) could
    show it. A constant that does not depend on K passes every K fit. ``test_regret_constants.py``
    sees both.
    """
    if name in THOROUGH_ONLY_K and not thorough:
        pytest.skip("thorough profile: T = 4e5 (about 8 s)")
    factory, eps, claimed, _, _ = POLICIES[name]
    eps, horizon = K_FIT.get(name, (eps, HORIZON))
    n_runs = 40 if thorough else 6
    slope, se, means = fitted_k_exponent(factory, eps, horizon=horizon, n_runs=n_runs, seed=500)
    z = stats.norm.isf(suite_alpha)
    room = _room(means, horizon)
    print(name, "K", KS, "regret", means.round(0), "slope", round(slope, 2), "+-", round(se, 3), "room", round(room, 2))
    assert room > claimed, ("no power-law violation of the claim fits under the cap: the fit tests nothing", room)
    assert slope - z * se <= claimed, (name, slope, se)
    assert means[-1] > means[0]  # more suboptimal swaps cost more: the fit sees a real signal


def test_cucb_ldp1_k_claim_is_out_of_reach():
    """Why Chen et al. 2020 Theorem 2's K^4 (CUCB-LDP1) is not fitted: no power law that steep fits here.

    With R(1) = 413 as measured (T = 1e5, 10 runs), R(1) K^4 passes the cap 0.8 T before K = 8: the
    steepest power law under the cap is 2.5 < 4, so the claim is not checkable on this family at any
    feasible horizon (the room grows like ln T / ln 8). Deterministic (fixed seed): pins README's verdict.

    Detects: nothing about the implementation: it pins why the claim is not fitted (a design check).
    """
    factory, eps, claimed, _, _ = POLICIES["CUCB-LDP1"]
    r1 = simulate(instance(1), policy=factory(eps), horizon=HORIZON, n_runs=10, seed=500, checkpoints=[HORIZON])
    room = _room(r1.cumulative_regret[:, -1].mean(keepdims=True), HORIZON)
    assert claimed == pytest.approx(4.0)
    assert room < claimed - 1.0, room


CHECKPOINTS = (3_125, 6_250, 12_500, 25_000, 50_000, 100_000)


@pytest.mark.parametrize("name", sorted(POLICIES))
def test_regret_slope_in_ln_t_does_not_grow_faster_than_claimed(name, suite_alpha, thorough):
    """Regret per unit ln T over T in [2.5e4, 1e5] <= claimed ratio x that over [3.1e3, 1.25e4].

    K = 2, T = 1e5, 20 runs (thorough: 60). Observed ratios (10 runs): CUCB-LDP1 0.75, CUCB-LDP2
    0.62, CUCB-DP 1.16 (eps = 32; its private term is ln^3 T: claimed ratio 1.6), DPUCB-MAT 0.15,
    DPTS-MAT 0.76; Tao et al. 2025, Theorems 1 and 2 (O(ln T)): DP-OMM (eps = 4) 0.0, LDP-OMM
    (eps = 16, see ``LN_T_EPS``) 0.97. DP-OMM's and DPUCB-MAT's regret is a staircase in ln T (their
    noise bounds change when a count crosses a power of two), so their ratios say little beyond
    "not linear". Linear regret gives a ratio of about 8, so the power against it is ~1. A ratio
    above the claim at finite T cannot tell a false O(ln T) claim from a curve that has not yet bent.

    Detects: a policy that stops exploiting (linear regret), e.g. an index whose noise term never
    shrinks with the number of observations (mutant ``bandits-omm-bound-not-divided-by-count``).
    Reading of the O(ln T) bound checked: the ratio of late to early regret per unit ln T. Smallest
    error detected: a late slope above claimed x early by z(alpha) + 1.28 standard errors of the run
    differences (power 0.9); scale-free, so a constant error of any size passes.
    """
    factory, eps, _, claimed_ratio, _ = POLICIES[name]
    eps = LN_T_EPS.get(name, eps)
    n_runs = 60 if thorough else 20
    r = simulate(
        instance(2),
        policy=factory(eps),
        horizon=CHECKPOINTS[-1],
        n_runs=n_runs,
        seed=520,
        checkpoints=list(CHECKPOINTS),
    ).cumulative_regret
    early = (r[:, 2] - r[:, 0]) / math.log(4)
    late = (r[:, 5] - r[:, 3]) / math.log(4)
    d = late - claimed_ratio * early
    lower = d.mean() - stats.norm.isf(suite_alpha) * d.std(ddof=1) / math.sqrt(d.size)
    print(
        name,
        "dR/dlnT early",
        early.mean().round(1),
        "late",
        late.mean().round(1),
        "ratio",
        round(late.mean() / early.mean(), 2),
    )
    assert lower <= 0, (name, early.mean(), late.mean())
