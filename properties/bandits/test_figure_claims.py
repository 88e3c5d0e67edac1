"""What the papers' bandit figures claim in their text, asserted where it holds under the documented reading.

Chandak (2023), Chapter 6, on the linear matroid of Table 6.1 (seven Bernoulli arms, optimal basis
{e1, e2, e3}, optimal per-round return 2.15), n = 1e4 rounds:

- Figure 6.1: at eps = 2 the private policies are close to the non-private ones. Operationally here:
  the private per-round regret at n is within 10% of the optimal per-round return (measured 4.9% for
  DPUCB-MAT, 2.9% for DPTS-MAT; OMM 0.6%, CTS 0.4%). The privacy cost is real: 8x the regret.
- Figure 6.3a: DPTS-MAT beats DPUCB-MAT (regret 628 against 1050 at eps = 2). Its other claim,
  R_n / ln n converging, is not established by n = 1e6: DPUCB-MAT's still rises 23% from 1e5 to
  1e6; what holds (thorough profile) is that it is far from linear growth.
- Figure 6.3b: Thompson sampling beats UCB at every eps, and regret rises with 1/eps. "Linear in
  1/eps" holds only roughly: a least-squares line R = a + b/eps over eps in {0.5, ..., 50} misses
  DPUCB-MAT's regret by up to 14% and DPTS-MAT's by up to 33% (its regret flattens towards the
  non-private one at large eps), so the tests assert the ordering and the rise, not the line.

Tao et al. (2025), Figure 1 (RocketFuel AS1221, thorough profile, needs the maps): DP-OMM's regret
is below LDP-OMM's at each common eps (0.5, 1, 2). Their other claims do not hold under this
project's reading (eps split over the K = 86-105 arms of a round, rewards scaled into [0, 1]): the gap
does not narrow as eps grows (AS1221 at T = 1e4: 1205, 1676, 2363), and the private curves are not
sublinear by T = 1e5 (README, "Reproducing the papers' figures"); on every map present the gap widens or
shows no trend, and R(T)/R(T/2) stays near 2 (``test_tao_figure_1_gap_does_not_narrow_and_curves_are_close_to_linear``).

Statistics: one-sided Welch z-tests on independent run totals (normal approximation) at
suite_alpha divided by the number of assertions in the test; every effect is quoted with its size
in standard errors, all above 6 where the level needs 4.75-5.2.
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.bandits import policies as P
from algorithms.bandits.reproduce import thesis_table61_instance
from algorithms.bandits.simulator import simulate

N = 10_000
TABLE61 = thesis_table61_instance()
OPTIMAL_RETURN = 0.8 + 0.75 + 0.6  # e1 + e2 + e3 of Table 6.1


def _final_regret(policy, *, n_runs, seed, horizon=N, instance=TABLE61):
    return simulate(
        instance, policy=policy, horizon=horizon, n_runs=n_runs, seed=seed, checkpoints=[horizon]
    ).cumulative_regret[:, -1]


def _below(a, b, alpha) -> bool:
    """One-sided Welch z-test that mean(a) < mean(b) at level alpha."""
    se = math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)
    return (b.mean() - a.mean()) / se > stats.norm.isf(alpha)


def test_thesis_figure_6_1_private_close_to_non_private(suite_alpha):
    """Figure 6.1 (eps = 2, n = 1e4, 20 runs): private per-round regret < 10% of the optimal return.

    Measured per-round regret / optimal return: DPUCB-MAT 4.9%, DPTS-MAT 2.9% (OMM 0.6%, CTS 0.4%).
    One-sided z-tests at suite_alpha / 2: the margins to 10% are 11 and 40 standard errors.
    Detects: a private policy whose noise drowns the signal at eps = 2 (e.g. the batch noise K times
    too large, or a confidence term that never shrinks).
    """
    for i, policy in enumerate((P.dpucb_mat(2.0), P.dpts_mat(2.0))):
        per_round = _final_regret(policy, n_runs=20, seed=600 + i) / N / OPTIMAL_RETURN
        upper = per_round.mean() + stats.norm.isf(suite_alpha / 2) * per_round.std(ddof=1) / math.sqrt(per_round.size)
        assert upper < 0.10, (policy.name, per_round.mean())


def test_thesis_figure_6_3a_thompson_sampling_beats_ucb_at_eps_2(suite_alpha):
    """Figure 6.3a: DPTS-MAT's regret below DPUCB-MAT's (eps = 2, n = 1e4, 20 runs each).

    Measured 628 against 1050 (16 standard errors). Detects: a DPTS-MAT whose sampling shift is too large
    (it would explore like UCB or worse).
    """
    ts = _final_regret(P.dpts_mat(2.0), n_runs=20, seed=610)
    ucb = _final_regret(P.dpucb_mat(2.0), n_runs=20, seed=611)
    assert _below(ts, ucb, suite_alpha), (ts.mean(), ucb.mean())


def test_thesis_figure_6_3b_thompson_beats_ucb_and_regret_rises_with_one_over_eps(suite_alpha):
    """Figure 6.3b (n = 1e4, 30 runs per point): TS below UCB at eps in {0.5, 2, 10, 50}, and for both
    policies regret at eps = 0.5 > at 2 > at 10.

    Measured (20 runs): UCB 2063, 1069, 623, 534; TS 1499, 631, 285, 183: the ordering margins are 9 to 19
    standard errors, the rises 8 to 40. Eight assertions at suite_alpha / 8. Detects: a privacy cost that
    does not grow with 1/eps (noise ignoring eps) or a Thompson sampler no better than UCB.
    """
    eps_grid = (0.5, 2.0, 10.0, 50.0)
    alpha = suite_alpha / 8
    ucb = [_final_regret(P.dpucb_mat(e), n_runs=30, seed=620 + i) for i, e in enumerate(eps_grid)]
    ts = [_final_regret(P.dpts_mat(e), n_runs=30, seed=630 + i) for i, e in enumerate(eps_grid)]
    for e, a, b in zip(eps_grid, ts, ucb):
        assert _below(a, b, alpha), ("TS not below UCB", e, a.mean(), b.mean())
    for r in (ucb, ts):
        assert _below(r[1], r[0], alpha) and _below(r[2], r[1], alpha), [x.mean() for x in r]


def test_thesis_figure_6_3a_regret_over_ln_n_levels_off(thorough, suite_alpha):
    """Figure 6.3a: R_n / ln n far from linear growth (thorough profile: n = 1e6, eps = 2, 10 runs each).

    Asserted: R_n / ln n at n = 1e6 is less than twice its value at 1e5 (linear regret multiplies it by
    8.3; R = c ln n leaves it unchanged). Convergence itself is *not* established: DPUCB-MAT's
    R_n / ln n still rises from 127 to 156 (+23%) over that decade (DPTS-MAT's from 76 to 84, +10%),
    the doubling batches making the curves staircases. Detects: regret that does not settle to a
    logarithmic order (e.g. a confidence term that never shrinks).
    """
    if not thorough:
        pytest.skip("thorough profile: 1e6 rounds")
    checkpoints = [100_000, 1_000_000]
    for i, policy in enumerate((P.dpucb_mat(2.0), P.dpts_mat(2.0))):
        r = simulate(TABLE61, policy=policy, horizon=checkpoints[-1], n_runs=10, seed=640 + i, checkpoints=checkpoints)
        ratio = r.cumulative_regret / np.log(checkpoints)[None, :]
        growth = ratio[:, 1] - 2.0 * ratio[:, 0]
        upper = growth.mean() + stats.norm.isf(suite_alpha / 2) * growth.std(ddof=1) / math.sqrt(growth.size)
        print(policy.name, "R/ln n at 1e5, 1e6:", ratio.mean(0).round(1))
        assert upper < 0, (policy.name, ratio.mean(0))


@pytest.mark.dataset
def test_tao_figure_1_dp_omm_below_ldp_omm(thorough, rocketfuel_dir, suite_alpha):
    """Tao et al. 2025, Figure 1 text: DP-OMM's regret is below LDP-OMM's at each common eps (AS1221).

    Thorough profile (T = 1e4, 40 runs per policy, about 20 s). Measured with 10 runs: 6846 vs 8051,
    5772 vs 7449, 5021 vs 7384 at eps = 0.5, 1, 2 (2.5 to 6 standard errors at 10 runs, so 5 to 12 at
    40). Three assertions at suite_alpha / 3. Detects: a central policy that does not benefit from the
    trusted curator (e.g. DP-OMM's counters calibrated like the local reports).
    """
    if not thorough:
        pytest.skip("thorough profile: 6 RocketFuel simulations x 40 runs")
    from algorithms.bandits.environments import rocketfuel_instance

    instance = rocketfuel_instance("AS1221", path=rocketfuel_dir)
    for i, eps in enumerate((0.5, 1.0, 2.0)):
        central = _final_regret(P.dp_omm(eps), n_runs=40, seed=650 + i, instance=instance)
        local = _final_regret(P.ldp_omm(eps), n_runs=40, seed=660 + i, instance=instance)
        assert _below(central, local, suite_alpha / 3), (eps, central.mean(), local.mean())


#: Tao et al. 2025, Figure 1's other claims, measured on every RocketFuel map (T = 1e4, 4 runs per policy and eps,
#: eps = 0.5, 1, 2): the gap LDP-OMM - DP-OMM in final regret, and R(T) / R(T/2) (2 for linear growth).
TAO_MAPS = {
    "AS1221": ((1632, 1695, 3028), "widens", (1.65, 1.76), (1.89, 1.98)),
    "AS1239": ((2284, 2127, 6955), "widens", (1.93, 1.95), (2.01, 2.02)),
    "AS1755": ((1033, 1420, 2149), "widens", (1.90, 1.92), (1.93, 1.97)),
    "AS3257": ((57, 631, 2899), "widens", (1.93, 1.97), (1.99, 2.00)),
    "AS3967": ((3803, 4669, 3983), "no trend", (1.85, 1.87), (1.92, 2.02)),
    "AS6461": ((6194, 10500, 16999), "widens", (1.85, 1.94), (1.95, 1.99)),
}


@pytest.mark.dataset
@pytest.mark.parametrize("name", sorted(TAO_MAPS))
def test_tao_figure_1_gap_does_not_narrow_and_curves_are_close_to_linear(name, thorough, rocketfuel_dir, suite_alpha):
    """Tao et al. 2025, Figure 1 text: "the gap [between DP-OMM and LDP-OMM] narrows as eps grows" and the regret
    curves are sublinear. Verdict on every map present (``TAO_MAPS``: measured gaps and growth ratios): **refuted**
    under this project's reading (eps split over the K arms of a round, rewards in [0, 1]). The gap widens from
    eps = 0.5 to 2 on five maps and shows no trend on AS3967; it narrows on none. R(T)/R(T/2) at T = 1e4 is 1.65-1.97
    for DP-OMM and 1.89-2.02 for LDP-OMM (2 is linear): no visible sublinearity at the horizon of the figure.

    Thorough profile (6 maps x 4 simulations x 6 runs, about 1.5 minutes). Assertions per map, each at suite_alpha / 12
    (Welch z on run totals): the gap at eps = 0.5 does not exceed the gap at eps = 2 significantly (narrowing not
    shown), and LDP-OMM's mean R(T)/R(T/2) exceeds 1.8 (close to linear; measured >= 1.89). Maps absent from the data
    folder skip with the reason. Detects: a change that makes the gap narrow significantly or the curves bend
    (tried: with the eps labels swapped, i.e. the measured widening read as narrowing, AS6461 fails; on the other
    maps a change of that size is below what 6 runs resolve at this level).
    """
    if not thorough:
        pytest.skip("thorough profile: 4 RocketFuel simulations of 6 runs per map")
    if not (rocketfuel_dir / name).is_dir():
        pytest.skip(f"RocketFuel map {name} not found in {rocketfuel_dir}")
    from algorithms.bandits.environments import rocketfuel_instance

    instance = rocketfuel_instance(name, path=rocketfuel_dir)
    horizon, runs, level = 10_000, 6, suite_alpha / 12
    gaps, ratios = {}, []
    for i, eps in enumerate((0.5, 2.0)):
        central, local = (
            simulate(
                instance,
                policy=f(eps),
                horizon=horizon,
                n_runs=runs,
                seed=700 + 10 * j + i,
                checkpoints=[horizon // 2, horizon],
            ).cumulative_regret
            for j, f in enumerate((P.dp_omm, P.ldp_omm))
        )
        gaps[eps] = local[:, -1] - central[:, -1]  # independent runs: a difference of independent totals
        ratios.append(float((local[:, -1] / local[:, 0]).mean()))
    diff = gaps[0.5].mean() - gaps[2.0].mean()
    se = math.sqrt(gaps[0.5].var(ddof=1) / runs + gaps[2.0].var(ddof=1) / runs)
    print(name, "gap", {e: round(float(g.mean())) for e, g in gaps.items()}, "z narrowing", round(diff / se, 2), ratios)
    assert diff / se < stats.norm.isf(level), (name, "the gap narrows", gaps)
    assert min(ratios) > 1.8, (name, "LDP-OMM visibly sublinear", ratios)
