"""Regret against the papers' bounds: CUCB-LDP1 and CUCB-DP regret, growth in 1/eps.

Instance: the hard instance of Chen, Zheng, Zhou, Yang, Chen and Wang (ICML 2020) behind
Theorem 5, a multi-armed bandit embedded as a combinatorial semi-bandit: the uniform matroid
of rank K = 1 on m = 5 Bernoulli arms, one with mean 0.6 and four with 0.4 (every suboptimal
gap Delta = 0.2, B_inf = 1, Delta / B_inf = 0.2 < 0.35 as the theorem requires).

Statistics: each assertion is a one-sided z-test on independent run totals (normal
approximation) at level suite_alpha divided by the number of assertions in its test.
The observed effects are quoted next to each test.

What is checked: the upper bounds of Chen et al. Theorems 2, 4 and 8, Chandak (2023) Theorems 9
and 11, and Tao, Li et al. (2025) Theorems 1 (DP-OMM) and 2 (LDP-OMM) are stated with O(.) and no
constants, so "simulated regret below the bound" is not checkable; their claimed growth in 1/eps
is (below; K and ln T in ``test_regret_growth.py``). Tao et al.'s gap-dependent bounds, as far as
the text extraction keeps them: Theorem 1, O(sum_{a not in A*} ln T / Delta_a + (N - K) K
min{K, ln T} ln T / eps) (the eps of the private term is lost in the extraction; 1/eps is the only
reading under which the term depends on the budget, and the hybrid counter's noise is linear in
1/eps); Theorem 2, O(K^2 / eps^2 sum_{a not in A*} ln T / Delta_a) (the Laplace reports have
variance 2 K^2 / eps^2). Gap-free forms: O(sqrt((N - K) K T ln T) + the same private term) and
O((K / eps) sqrt((N - K) K T ln T)).

Not tested: Chen et al. Theorem 5 (lower bound, lim inf R(T)/ln T >= (m - 1) / (64 (e^eps - 1)^2
Delta)). Its constant is 1/64 of the rate that the implemented eps-LDP policies' confidence radii
give (about 32 ln T / (eps^2 Delta) per suboptimal arm), so a correct policy sits 30-100 times above
it; only a policy whose noise is some 40 times too small (near-noiseless play) could go below it, at
a horizon where it has stopped exploring. A test at T = 2e4 passed with all three LDP policies given
10x their epsilon; the privacy audits and calibration tests catch such leaks directly. README says so.
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.bandits import policies as P
from algorithms.bandits._kernel_matroids import uniform_matroid
from algorithms.bandits.environments import BanditInstance, BernoulliEnvironment
from algorithms.bandits.growth import least_squares_slope, log_mean_standard_error, power_law_room
from algorithms.bandits.simulator import simulate

pytestmark = pytest.mark.paper_claim

M, DELTA = 5, 0.2
HARD = BanditInstance("cucb-theorem5-hard", uniform_matroid(M, 1), BernoulliEnvironment([0.6] + [0.4] * (M - 1)))


def _upper(x, alpha):
    return x.mean() + stats.norm.isf(alpha) * x.std(ddof=1) / np.sqrt(x.size)


def _lower(x, alpha):
    return x.mean() - stats.norm.isf(alpha) * x.std(ddof=1) / np.sqrt(x.size)


@pytest.mark.parametrize(
    "name, factory, eps_small, eps_large",
    [
        ("CUCB-LDP1", P.cucb_ldp1, 1.0, 4.0),
        ("CUCB-DP", P.cucb_dp, 1.0, 8.0),
    ],
)
def test_cucb_ldp1_and_cucb_dp_regret_falls_with_epsilon(name, factory, eps_small, eps_large, suite_alpha):
    """R(T) at the small eps exceeds R(T) at the large eps (T = 1e5, 20 runs each).

    Observed: CUCB-LDP1 4150 vs 430, CUCB-DP 16000 (uniform play) vs 9080. Detects: noise that
    does not shrink as eps grows (a scale fixed at one epsilon, or eps ignored). False alarm <=
    suite_alpha (z-test on 20 paired run differences); the effects are > 10 standard errors.
    Smallest error detected: a regret that does not fall from the small to the large eps; a constant
    error common to both eps passes (``test_regret_constants.py`` pins the constant).
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
    Detects: an index whose confidence radius never shrinks (linear regret gives a ratio of 1).
    False alarm <= suite_alpha (z-test on 20 runs); the effects are > 10 standard errors.
    Smallest error detected: an order (growth faster than T^0.81 at this horizon); scale-free, so a
    K-fold constant passes.
    """
    T = 100_000
    res = simulate(HARD, policy=policy, horizon=T, n_runs=20, seed=420, checkpoints=[T // 2, T])
    half, full = res.cumulative_regret[:, 0], res.cumulative_regret[:, 1]
    assert _upper((full - half) - 0.75 * half, suite_alpha) < 0, (name, ((full - half) / half).mean())


#: exponent of 1/eps in each upper bound: Chen et al. 2020 Theorems 2 and 4 (1/eps^2),
#: Chandak 2023 Theorem 9 (additive K ln(Kn) / (eps / K): 1/eps), Tao et al. 2025 Theorem 1
#: (DP-OMM, private term (N - K) K min{K, ln T} ln T / eps: 1/eps) and Theorem 2 (LDP-OMM, K^2 / eps^2);
#: Theorem 8's eps dependence is lost in the extraction.
CLAIMED_EXPONENT = {"CUCB-LDP1": 2.0, "CUCB-LDP2": 2.0, "DPUCB-MAT": 1.0, "DP-OMM": 1.0, "LDP-OMM": 2.0}
FACTORIES = {
    "CUCB-LDP1": P.cucb_ldp1,
    "CUCB-LDP2": P.cucb_ldp2,
    "DPUCB-MAT": P.dpucb_mat,
    "DP-OMM": P.dp_omm,
    "LDP-OMM": P.ldp_omm,
}
FIT_EPSILONS = (1.0, 1.5, 2.0, 3.0, 4.0)
#: LDP-OMM's fit runs over eps = 4 to 16: over 1 to 4 its R(4) = 1367 leaves room for a power law
#: of at most 1.94 under the cap 0.2 T, below the claimed 2 (see the test's docstring)
FIT_GRIDS = {"LDP-OMM": (4.0, 5.66, 8.0, 11.3, 16.0)}
FIT_HORIZON = 100_000


def fitted_epsilon_exponent(factory, epsilons=FIT_EPSILONS, *, horizon=FIT_HORIZON, n_runs=20, seed=430):
    """(slope, delta-method standard error, mean regrets) of ln R(T) on ln(1/eps) over ``epsilons``."""
    means, variances = [], []
    for i, e in enumerate(epsilons):
        r = simulate(HARD, policy=factory(e), horizon=horizon, n_runs=n_runs, seed=seed + i, checkpoints=[horizon])
        r = r.cumulative_regret[:, -1]
        means.append(r.mean())
        variances.append(log_mean_standard_error(r) ** 2)  # var of ln(mean)
    x = np.log(1 / np.array(epsilons))
    xc = x - x.mean()
    se = float(math.sqrt((xc**2 * np.array(variances)).sum()) / (xc * xc).sum())
    return least_squares_slope(x, np.log(means)), se, np.array(means)


@pytest.mark.parametrize("name", sorted(CLAIMED_EXPONENT))
def test_regret_grows_in_one_over_epsilon_no_faster_than_claimed(name, suite_alpha, thorough):
    """Fitted exponent of 1/eps <= the bound's, eps = 1 to 4 (LDP-OMM: 4 to 16), T = 1e5, 6 runs per eps
    (thorough: 20).

    Detects: regret growing faster in 1/eps than the theorem allows, e.g. every arm's budget
    eps^2/K instead of eps/K (mutant ``claims-split-eps-squared`` of ``properties/mutation.py``:
    CUCB-LDP1 then fits 3.65 > 2). Measured (6 runs per eps, seeds 430-434): CUCB-LDP1 1.67,
    CUCB-LDP2 1.67 (with K = 1 both report every observation with Lap(1/eps), so they coincide),
    DPUCB-MAT 0.17, DP-OMM 0.60, LDP-OMM 0.58 (eps 4 to 16); the bounds claim 2, 2, 1, 1 and 2.

    Can it fail? Regret is at most 0.2 T here. The test first asserts that the steepest power law
    through the measured regret at the largest eps that stays under the cap at the smallest
    (``algorithms.bandits.growth.power_law_room``) exceeds the claim: 2.8, 2.8, 1.8, 1.9 and 2.5.
    False alarm <= suite_alpha under the normal approximation of the slope (delta-method standard error).

    Reading of the O(.) bound checked: the fitted exponent of 1/eps, one-sided (no faster than claimed).
    Smallest error detected: an exponent above the claim by (z + 1.28) se (power 0.9; se printed, 0.01
    to 0.03 here), where the room allows. A constant factor common to every eps, K-fold or more, leaves
    the slope unchanged and passes: ``test_regret_constants.py`` checks the constant.
    """
    epsilons = FIT_GRIDS.get(name, FIT_EPSILONS)
    slope, se, means = fitted_epsilon_exponent(FACTORIES[name], epsilons, n_runs=20 if thorough else 6)
    z = stats.norm.isf(suite_alpha)
    room = power_law_room(1 / epsilons[-1], means[-1], 1 / epsilons[0], 0.2 * FIT_HORIZON)
    print(name, "regret at eps", epsilons, means.round(0), "slope", round(slope, 2), "+-", round(se, 3), "room", room)
    assert room > CLAIMED_EXPONENT[name], ("no power-law violation of the claim fits under the cap", name, room)
    assert slope - z * se <= CLAIMED_EXPONENT[name], (name, slope, se)
    assert means[0] > means[-1]
