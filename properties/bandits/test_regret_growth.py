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
every round). With the measured regret at K = 1, 2 kept, the steepest slope any policy could give
is ``algorithms.bandits.growth.reachable_slope``: 2.9 for CUCB-LDP1 at T = 1e5 against its claimed 4,
so Theorem 2's K^4 cannot be contradicted by this fit (R(8)/R(1) would have to reach 4096 while the
cap allows about 190) and is not fitted (``test_cucb_ldp1_k_claim_is_out_of_reach`` pins why). Every
fitted claim asserts first that its reachable slope exceeds the claim by the test's own margin.

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
from algorithms.bandits.growth import claimed_exponent, reachable_slope, uniform_family_regret_cap
from algorithms.bandits.simulator import simulate

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
#: claims this family can contradict (reachable slope above the claim): all but CUCB-LDP1's K^4
FITTED_K = sorted(set(POLICIES) - {"CUCB-LDP1"})
HORIZON = 100_000
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
        variances.append(r.var(ddof=1) / r.size / r.mean() ** 2)  # var of ln(mean), delta method
    x = np.log(KS) - np.log(KS).mean()
    y = np.log(means)
    slope = float((x * y).sum() / (x * x).sum())
    se = float(math.sqrt((x**2 * np.array(variances)).sum()) / (x * x).sum())
    return slope, se, np.array(means)


def _reach(means, horizon):
    caps = [uniform_family_regret_cap(k, suboptimal=4, gap=0.2, horizon=horizon) for k in KS]
    return reachable_slope(np.log(KS), means, caps)


@pytest.mark.parametrize("name", FITTED_K)
def test_regret_grows_in_k_no_faster_than_claimed(name, suite_alpha, thorough):
    """Fitted K exponent <= claimed, T = 1e5 and 10 runs per K (thorough: 40 runs).

    Detects: an implementation whose regret grows faster in K than the theorem allows, e.g. a
    budget split eps/K^2 instead of eps/K, or noise scaled by K twice (the mutants
    ``bandits-omm-growth-k-squared`` and ``bandits-ldp-omm-growth-k-squared`` of
    ``properties/mutation.py``). Observed (default profile): CUCB-LDP2 0.23 (claimed 2),
    CUCB-DP 0.72 (1.42), DPUCB-MAT 0.33 (2), DPTS-MAT 0.45 (2), DP-OMM 0.71 (2), LDP-OMM 1.09 (2);
    reachable slopes 3.0, 1.7, 2.2, 2.7, 2.3, 2.3. Every bound is loose in K on this family.
    False alarm <= suite_alpha (normal approximation of the slope); the standard errors are
    0.003 to 0.03, so a policy whose regret grew like K^(claimed + 0.2) inside the reachable
    range would exceed the line by many standard errors.
    """
    factory, eps, claimed, _, _ = POLICIES[name]
    n_runs = 40 if thorough else 10
    slope, se, means = fitted_k_exponent(factory, eps, horizon=HORIZON, n_runs=n_runs, seed=500)
    z = stats.norm.isf(suite_alpha)
    reach = _reach(means, HORIZON)
    print(
        name, "K", KS, "regret", means.round(0), "slope", round(slope, 2), "+-", round(se, 3), "reach", round(reach, 2)
    )
    assert reach - z * se > claimed, ("the fit cannot exceed the claim: it tests nothing", name, reach, claimed)
    assert slope - z * se <= claimed, (name, slope, se)
    assert means[-1] > means[0]  # more suboptimal swaps cost more: the fit sees a real signal


def test_cucb_ldp1_k_claim_is_out_of_reach():
    """Why Chen et al. 2020 Theorem 2's K^4 (CUCB-LDP1) is not fitted: no policy could exceed it here.

    With R(1) and R(2) as measured (T = 1e5, 10 runs), even linear regret at K = 4 and 8 gives a
    slope of about 2.9 < 4: the claim is not checkable on this family at any feasible horizon (the
    reachable slope grows like 0.58 ln T). Deterministic (fixed seed): this pins the README's verdict.
    """
    factory, eps, claimed, _, _ = POLICIES["CUCB-LDP1"]
    slope, _, means = fitted_k_exponent(factory, eps, horizon=HORIZON, n_runs=10, seed=500)
    assert claimed == pytest.approx(4.0)
    assert slope < _reach(means, HORIZON) < claimed - 1.0


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
