"""Regret against the papers' bounds: CUCB-LDP1 and CUCB-DP regret, the LDP lower bound, 1/eps growth.

Instance: the hard instance of Chen, Zheng, Zhou, Yang, Chen and Wang (ICML 2020) behind
Theorem 5, a multi-armed bandit embedded as a combinatorial semi-bandit: the uniform matroid
of rank K = 1 on m = 5 Bernoulli arms, one with mean 0.6 and four with 0.4 (every suboptimal
gap Delta = 0.2, B_inf = 1, Delta / B_inf = 0.2 < 0.35 as the theorem requires).

Statistics: each assertion is a one-sided z-test on independent run totals (normal
approximation; 20 runs) at level suite_alpha divided by the number of assertions in its test.
The observed effects are quoted next to each test; all are more than 10 standard errors from
their thresholds, so the power against the stated alternative is ~1.

What cannot be checked, and why: the upper bounds of Theorems 2, 4 and 8 (CUCB paper) and
Theorems 9 and 11 (Chandak 2023) are stated with O(.) and no constants, so "simulated regret
below the bound" is not checkable; their claimed growth in 1/eps is (thorough profile). The
matroid-bandit paper of Tao et al. (2025) states no regret theorem (its Theorems 1-2 are privacy
claims). Theorem 5 is asymptotic (lim inf over T of R(T)/ln T), so its finite-T check below is
what an asymptotic bound allows: a consistent eps-LDP algorithm whose R(T)/ln T sits far below
the constant at large T would be suspect (it reads its data with less noise than eps allows).
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.bandits import policies as P
from algorithms.bandits._kernel_matroids import uniform_matroid
from algorithms.bandits.environments import BanditInstance, BernoulliEnvironment
from algorithms.bandits.simulator import simulate

M, DELTA = 5, 0.2
HARD = BanditInstance("cucb-theorem5-hard", uniform_matroid(M, 1), BernoulliEnvironment([0.6] + [0.4] * (M - 1)))


def theorem5_constant(epsilon: float, m: int = M, delta: float = DELTA, b_inf: float = 1.0) -> float:
    """(m - 1) B_inf^2 / (64 (e^eps - 1)^2 Delta): Chen et al. 2020, Theorem 5, lim inf R(T) / ln T."""
    return (m - 1) * b_inf**2 / (64.0 * math.expm1(epsilon) ** 2 * delta)


def _upper(x, alpha):
    return x.mean() + stats.norm.isf(alpha) * x.std(ddof=1) / np.sqrt(x.size)


def _lower(x, alpha):
    return x.mean() - stats.norm.isf(alpha) * x.std(ddof=1) / np.sqrt(x.size)


LDP_POLICIES = [("CUCB-LDP1", P.cucb_ldp1), ("CUCB-LDP2", P.cucb_ldp2), ("LDP-OMM", P.ldp_omm)]


def test_no_ldp_policy_beats_theorem5(suite_alpha):
    """R(T)/ln T >= Theorem 5's constant at T = 20000 for every eps-LDP policy, eps in {0.1, 0.3, 1}.

    Constants 28.3, 2.55, 0.11; observed R(T)/ln T: 323 at eps <= 0.3 (uniform play), 194 for
    CUCB-LDP1/2 at eps = 1. For scale, the non-private CUCB reaches 24.5 < 28.3 at this T, so at
    eps = 0.1 the constant is not trivially below every algorithm.
    """
    T = 20_000
    cases = [(eps, name, f) for eps in (0.1, 0.3, 1.0) for name, f in LDP_POLICIES]
    for i, (eps, name, factory) in enumerate(cases):
        res = simulate(HARD, policy=factory(eps), horizon=T, n_runs=20, seed=400 + i, checkpoints=[T])
        per_log = res.cumulative_regret[:, -1] / math.log(T)
        assert _lower(per_log, suite_alpha / len(cases)) > theorem5_constant(eps), (name, eps, per_log.mean())


@pytest.mark.parametrize(
    "name, factory, eps_small, eps_large",
    [
        ("CUCB-LDP1", P.cucb_ldp1, 1.0, 4.0),
        ("CUCB-DP", P.cucb_dp, 1.0, 8.0),
    ],
)
def test_cucb_ldp1_and_cucb_dp_regret_falls_with_epsilon(name, factory, eps_small, eps_large, suite_alpha):
    """R(T) at the small eps exceeds R(T) at the large eps (T = 1e5, 20 runs each).

    Observed: CUCB-LDP1 4150 vs 430, CUCB-DP 16000 (uniform play) vs 9080.
    """
    T = 100_000
    small = simulate(HARD, policy=factory(eps_small), horizon=T, n_runs=20, seed=410, checkpoints=[T])
    large = simulate(HARD, policy=factory(eps_large), horizon=T, n_runs=20, seed=411, checkpoints=[T])
    d = small.cumulative_regret[:, -1] - large.cumulative_regret[:, -1]
    assert _lower(d, suite_alpha) > 0, (name, d.mean())


@pytest.mark.parametrize("name, policy", [("CUCB-LDP1", P.cucb_ldp1(2.0)), ("CUCB-DP", P.cucb_dp(32.0))])
def test_cucb_ldp1_and_cucb_dp_regret_is_sublinear(name, policy, suite_alpha):
    """R(T) - R(T/2) < 0.75 R(T/2) at T = 1e5 (linear regret gives 1).

    Observed ratios: CUCB-LDP1 (eps = 2) 0.14; CUCB-DP 0.14 at eps = 32 (at eps = 8 it is still
    0.45 at this horizon: its tree-aggregation noise 2 K L / eps per node keeps it exploring).
    """
    T = 100_000
    res = simulate(HARD, policy=policy, horizon=T, n_runs=20, seed=420, checkpoints=[T // 2, T])
    half, full = res.cumulative_regret[:, 0], res.cumulative_regret[:, 1]
    assert _upper((full - half) - 0.75 * half, suite_alpha) < 0, (name, ((full - half) / half).mean())


#: exponent of 1/eps in each upper bound: Chen et al. 2020 Theorems 2 and 4 (1/eps^2),
#: Chandak 2023 Theorem 9 (additive K ln(Kn) / (eps / K): 1/eps); LDP-OMM and DP-OMM have no
#: regret theorem in Tao et al. 2025, and Theorem 8's eps dependence is lost in the extraction.
CLAIMED_EXPONENT = {"CUCB-LDP1": 2.0, "CUCB-LDP2": 2.0, "DPUCB-MAT": 1.0}
FIT_EPSILONS = (1.0, 1.5, 2.0, 3.0, 4.0)


def fitted_epsilon_exponent(factory, *, horizon=100_000, n_runs=20, seed=430):
    """Least-squares slope of ln R(T) against ln(1/eps) over FIT_EPSILONS (and the mean regrets)."""
    means = np.array(
        [
            simulate(HARD, policy=factory(e), horizon=horizon, n_runs=n_runs, seed=seed + i, checkpoints=[horizon])
            .cumulative_regret[:, -1]
            .mean()
            for i, e in enumerate(FIT_EPSILONS)
        ]
    )
    return float(np.polyfit(np.log(1 / np.array(FIT_EPSILONS)), np.log(means), 1)[0]), means


@pytest.mark.parametrize("name", sorted(CLAIMED_EXPONENT))
def test_regret_grows_in_one_over_epsilon_no_faster_than_claimed(name, thorough):
    """Fitted exponent of 1/eps <= the bound's (thorough profile; a deterministic fixed-seed fit).

    Measured (T = 1e5, 20 runs per eps, seeds 430-434): CUCB-LDP1 1.71, CUCB-LDP2 1.71 (with
    K = 1 both report every observation with Lap(1/eps), so they coincide), DPUCB-MAT 0.08; the
    bounds claim 2, 2 and 1. Other seeds gave 1.64 for CUCB-LDP1: the margin (about 0.3) is
    several times the seed-to-seed spread.
    """
    if not thorough:
        pytest.skip("thorough profile: 5 epsilons x 20 runs x 1e5 rounds per policy")
    factory = {"CUCB-LDP1": P.cucb_ldp1, "CUCB-LDP2": P.cucb_ldp2, "DPUCB-MAT": P.dpucb_mat}[name]
    slope, means = fitted_epsilon_exponent(factory)
    print(name, "regret at eps", FIT_EPSILONS, means.round(0), "fitted exponent", round(slope, 2))
    assert slope <= CLAIMED_EXPONENT[name]
    assert means[0] > means[-1]
