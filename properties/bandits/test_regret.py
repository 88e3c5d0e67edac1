"""Regret sanity on the thesis' Table 6.1 instance (fixed seeds; tests stated with their rates).

Every assertion below is a one-sided z-test on run means (independent runs, normal
approximation; the runs are i.i.d., 20-30 per arm of the comparison) at a per-assertion level
of ``suite_alpha / (number of assertions in the test)``. Effect sizes observed while writing
these tests are quoted next to each one so the power is visible: every asserted effect is more
than 10 standard errors from its threshold.
"""

import numpy as np
import pytest
from scipy import stats

from algorithms.bandits import policies as P
from algorithms.bandits.environments import thesis_table61_instance
from algorithms.bandits.simulator import simulate

pytestmark = pytest.mark.paper_claim

INSTANCE = thesis_table61_instance()


def _z(alpha):
    return stats.norm.isf(alpha)


SUBLINEAR = [
    lambda: P.omm(),
    lambda: P.cts(),
    lambda: P.cucb(),
    lambda: P.dpucb_mat(2.0),
    lambda: P.dpts_mat(2.0),
    lambda: P.dp_omm(2.0),
    lambda: P.ldp_omm(2.0),
    lambda: P.cucb_ldp2(2.0),
]


def test_regret_grows_sublinearly(suite_alpha):
    """R(T) - R(T/2) < 0.75 R(T/2) at T = 20000 (linear regret gives ratio 1; log regret ~0.1).

    Per policy, d_i = (R_i(T) - R_i(T/2)) - 0.75 R_i(T/2) over 20 runs; asserted: the upper
    (1 - alpha/8) confidence bound of mean(d) is below 0. Observed ratios 0.09 (CUCB-LDP2) to
    0.48 (LDP-OMM), i.e. mean(d) at least 10 standard errors below 0; a policy with linear
    regret (ratio ~1) fails.

    Smallest error detected: an order, not a constant. The ratio is scale-free, so regret K times too
    large passes (``test_regret_constants.py`` sees that); growth faster than T^0.81 (ratio 0.75) at
    this horizon fails, with power > 0.9 once the ratio exceeds 0.75 by (z + 1.28) standard errors.
    """
    T = 20_000
    for i, make in enumerate(SUBLINEAR):
        policy = make()
        res = simulate(INSTANCE, policy=policy, horizon=T, n_runs=20, seed=100 + i, checkpoints=[T // 2, T])
        half, full = res.cumulative_regret[:, 0], res.cumulative_regret[:, 1]
        d = (full - half) - 0.75 * half
        upper = d.mean() + _z(suite_alpha / len(SUBLINEAR)) * d.std(ddof=1) / np.sqrt(d.size)
        assert upper < 0, (policy.name, (full - half).mean() / half.mean())


MONOTONE = [("DPUCB-MAT", P.dpucb_mat), ("DPTS-MAT", P.dpts_mat), ("DP-OMM", P.dp_omm), ("LDP-OMM", P.ldp_omm)]
EPSILONS = (0.5, 2.0, 8.0, 1e5)


@pytest.mark.parametrize("name, factory", MONOTONE)
def test_larger_epsilon_never_hurts_and_helps_overall(name, factory, suite_alpha):
    """Mean regret at T = 5000 (30 runs) is non-increasing along eps = 0.5, 2, 8, 1e5.

    (a) No consecutive pair shows a significant *increase* (one-sided Welch z-test; false alarm
        <= alpha/4 per pair if larger eps truly never hurts).
    (b) The extreme pair shows a significant decrease (power: observed gaps 800-2400 regret at
        standard errors below 40).

    Smallest error detected: noise that does not shrink as eps grows (an eps ignored or fixed), and a
    rise of mean regret with eps by more than about 5 standard errors (200 regret) between neighbours;
    a constant error common to every eps passes (``test_regret_constants.py``).
    """
    T, runs = 5000, 30
    finals = []
    for j, eps in enumerate(EPSILONS):
        res = simulate(INSTANCE, policy=factory(eps), horizon=T, n_runs=runs, seed=500 + j, checkpoints=[T])
        finals.append(res.cumulative_regret[:, 0])
    z = _z(suite_alpha / 4)

    def se(a, b):
        return np.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)

    for small, large in zip(finals[:-1], finals[1:]):
        assert large.mean() - small.mean() < z * se(small, large), name
    assert finals[0].mean() - finals[-1].mean() > z * se(finals[0], finals[-1]), name


@pytest.mark.parametrize("private, baseline", [(P.dp_omm, P.omm), (P.ldp_omm, P.omm)])
def test_private_policy_tends_to_its_baseline(private, baseline, suite_alpha):
    """At eps = 1e9 the noise and its confidence term vanish: DP-OMM/LDP-OMM regret equals OMM's.

    Two-sided Welch z-test at suite_alpha (false alarm <= 1e-6 if the regrets have the same
    mean); and the gap to the baseline at eps = 0.5 is significantly larger (power: gap ~2400
    with standard error ~40). DPUCB-MAT/DPTS-MAT keep lazy batches and a 3 ln(Kt) radius, so
    they approach a *different* limit; their convergence is covered by the monotonicity test.

    Smallest error detected: at eps = 1e9, any difference from OMM's mean regret above about 5 standard
    errors of the difference (about 5% of OMM's regret), e.g. a privacy term that does not vanish
    with 1/eps; at eps = 0.5 a private policy no worse than OMM.
    """
    T, runs = 5000, 30
    base = simulate(INSTANCE, policy=baseline(), horizon=T, n_runs=runs, seed=900, checkpoints=[T])
    big = simulate(INSTANCE, policy=private(1e9), horizon=T, n_runs=runs, seed=901, checkpoints=[T])
    small = simulate(INSTANCE, policy=private(0.5), horizon=T, n_runs=runs, seed=902, checkpoints=[T])
    b, g, s = (r.cumulative_regret[:, 0] for r in (base, big, small))
    se_bg = np.sqrt(b.var(ddof=1) / runs + g.var(ddof=1) / runs)
    assert abs(g.mean() - b.mean()) < _z(suite_alpha / 4) * se_bg
    se_bs = np.sqrt(b.var(ddof=1) / runs + s.var(ddof=1) / runs)
    assert s.mean() - b.mean() > _z(suite_alpha / 2) * se_bs
