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

Tao et al. (2025), Figure 1 (RocketFuel maps; the tests skip where the maps are absent), each text claim with
its own test: "DP-OMM below LDP-OMM" holds at each common eps (AS1221, thorough; AS6461 at eps = 0.5 and 2,
default). "The gap narrows as eps grows" is refuted under this project's reading (eps split over the K = 78-314
arms of a round, rewards scaled into [0, 1]): the gap widens on the decisive map AS6461 (default profile, z = 8.8
at 10 runs), and over the six maps together (Stouffer, thorough); it narrows significantly on none. "The curves
are sublinear" holds for OMM only: each private curve's R(T)/R(T/2) at T = 1e4 (2 is linear) is shown above 1.6 on
AS6461 and is nowhere significantly below it, each curve checked (README, "Reproducing the papers' figures").

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

pytestmark = pytest.mark.paper_claim

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
#: Figure 1's curves: (policy factory, eps) for the private ones; OMM (non-private, dashed) has eps None
TAO_CURVES = {"DP-OMM": (P.dp_omm, (0.25, 0.5, 1.0, 2.0)), "LDP-OMM": (P.ldp_omm, (0.5, 1.0, 2.0, 4.0))}
#: a private curve is "close to linear" when R(T)/R(T/2) > this (2 is linear; R ~ T^0.68 gives 1.6), and the
#: non-private one "sublinear" when below OMM_SUBLINEAR (R ~ T^0.77)
CLOSE_TO_LINEAR, OMM_SUBLINEAR = 1.6, 1.7


def _figure1_runs(instance, curves, *, horizon, runs, seed):
    """{(policy name, eps): regret (runs, 2) at T/2 and T}, OMM under ("OMM", None); seeds seed + i per curve."""
    jobs = [("OMM", None, P.omm())] + [(n, e, TAO_CURVES[n][0](e)) for n, eps in curves for e in eps]
    return {
        (name, eps): simulate(
            instance, policy=policy, horizon=horizon, n_runs=runs, seed=seed + i, checkpoints=[horizon // 2, horizon]
        ).cumulative_regret
        for i, (name, eps, policy) in enumerate(jobs)
    }


def _welch_z(a, b):
    """(mean(a) - mean(b)) / its standard error, independent samples."""
    return (a.mean() - b.mean()) / math.sqrt(a.var(ddof=1) / a.size + b.var(ddof=1) / b.size)


def _check_every_curve(regret, alpha, *, established=True):
    """Every curve's shape; returns the ratios R(T)/R(T/2) (R the mean over runs).

    OMM's curve sublinear: upper confidence bound of the ratio < OMM_SUBLINEAR. Each private curve close to linear:
    with ``established`` its lower confidence bound > CLOSE_TO_LINEAR (shown); without, its upper bound >
    CLOSE_TO_LINEAR (not visibly sublinear: for maps whose runs vary too much to show more). The ratio's standard
    error is the delta method's on the paired run totals, sd(R_T - ratio R_{T/2}) / (sqrt(n) mean(R_{T/2})).
    One-sided z-tests at ``alpha`` / number of curves.
    """
    z = stats.norm.isf(alpha / len(regret))
    ratios = {}
    for key, r in regret.items():
        half_mean = r[:, 0].mean()
        ratio = r[:, 1].mean() / half_mean
        half = z * (r[:, 1] - ratio * r[:, 0]).std(ddof=1) / (math.sqrt(r.shape[0]) * half_mean)
        ratios[key] = (round(float(ratio), 3), round(float(half), 3))
        if key[0] == "OMM":
            assert ratio + half < OMM_SUBLINEAR, ("OMM not sublinear", ratio, half)
        else:
            bound = ratio - half if established else ratio + half
            assert bound > CLOSE_TO_LINEAR, (key, "visibly sublinear", ratio, half)
    return ratios


@pytest.mark.dataset
def test_tao_figure_1_gap_widens_on_as6461_and_every_curve_keeps_its_shape(rocketfuel_dir, suite_alpha):
    """Tao et al. 2025, Figure 1 text, the decisive small version (default profile): on AS6461 (T = 1e4, 10 runs per
    curve, eps = 0.5 and 2 for both private policies, and OMM):

    - "the gap narrows as eps grows" is **refuted**: the gap LDP-OMM - DP-OMM widens, (gap(2) - gap(0.5)) / se > 2
      (Welch z on independent run totals). Power: a gap that does not widen (any narrowing, or none) fails with
      probability >= 0.977, a visible narrowing (z = -2.8) with probability 1 - 1e-16. Margin at the fixed seeds:
      the z printed (8.8 at seed 700: a change of seed would fail with probability below 1e-9).
    - every curve's shape: each private curve is close to linear, R(T)/R(T/2) > 1.6, and OMM's is sublinear,
      < 1.7 (one-sided z-tests on the ratio of mean regrets at suite_alpha / 10 each, 5 curves); a private
      curve that bends to ratio 1.6 + z se, or an OMM curve that does not bend below 1.7 - z se, fails
      (z se, printed with each ratio, is at most 0.08 on this map).
    - "DP-OMM below LDP-OMM" at both eps (one-sided Welch z-tests at suite_alpha / 4).

    Detects: a policy change that makes the gap narrow, a private policy that learns fast enough to bend by T = 1e4
    (tried: DP-OMM's counters and their bound at the whole eps instead of eps/K, mutant
    ``claims-regret-figure1-dp-omm-unsplit``, fails), an OMM that does not learn. Skips where the map is absent.
    """
    from algorithms.bandits.environments import rocketfuel_instance

    instance = rocketfuel_instance("AS6461", path=rocketfuel_dir)
    eps_pair = (0.5, 2.0)
    regret = _figure1_runs(instance, [("DP-OMM", eps_pair), ("LDP-OMM", eps_pair)], horizon=10_000, runs=10, seed=700)
    gaps = {e: regret[("LDP-OMM", e)][:, 1] - regret[("DP-OMM", e)][:, 1] for e in eps_pair}
    widening = _welch_z(gaps[2.0], gaps[0.5])
    below = {e: _welch_z(regret[("LDP-OMM", e)][:, 1], regret[("DP-OMM", e)][:, 1]) for e in eps_pair}
    ratios = _check_every_curve(regret, suite_alpha / 2)
    print("AS6461 gap", {e: round(float(g.mean())) for e, g in gaps.items()}, "z widening", round(widening, 2))
    print("below z", {e: round(v, 2) for e, v in below.items()}, "R(T)/R(T/2)", ratios)
    assert widening > 2.0, ("the gap does not widen", gaps)
    assert all(v > stats.norm.isf(suite_alpha / 4) for v in below.values()), below


@pytest.mark.dataset
@pytest.mark.parametrize("name", sorted(TAO_MAPS))
def test_tao_figure_1_gap_does_not_narrow_and_curves_are_close_to_linear(name, thorough, rocketfuel_dir, suite_alpha):
    """Tao et al. 2025, Figure 1 text on every map and every curve (thorough profile: the 8 private curves and OMM,
    T = 1e4, 10 runs each, about 1-30 s per map). Verdict (``TAO_MAPS``): "the gap narrows as eps grows" is
    **refuted** under this project's reading (eps split over the K arms of a round, rewards in [0, 1]); "the curves
    are sublinear" holds for OMM only, the private curves staying close to linear at the figure's horizon.

    Asserted per map: the gap LDP-OMM - DP-OMM from eps = 0.5 to 2 does not narrow, (gap(0.5) - gap(2)) / se
    < z(suite_alpha / 2) (Welch z); OMM's curve sublinear and no private curve visibly sublinear
    (``_check_every_curve`` at suite_alpha / 2: the upper bound of each ratio above 1.6; on AS1221 the runs vary so
    much that z se reaches 0.4, so only the decisive map shows "close to linear" as such). The per-map narrowing
    check alone has little power on maps without a trend (a narrowing of z = 2.8 would pass it); the power comes
    from the combined test over the maps
    (``test_tao_figure_1_gap_widens_over_all_maps``) and from the decisive map of the default profile.
    Detects: a change that makes the gap narrow significantly or a curve change its shape. Maps absent from the data
    folder skip with the reason.
    """
    if not thorough:
        pytest.skip("thorough profile: 9 RocketFuel simulations of 10 runs per map")
    gaps, _ = _tao_map(name, rocketfuel_dir, suite_alpha / 2)
    narrowing = _welch_z(gaps[0.5], gaps[2.0])
    assert narrowing < stats.norm.isf(suite_alpha / 2), (name, "the gap narrows", narrowing)


_TAO_MAP_CACHE: dict = {}


def _tao_map(name, rocketfuel_dir, alpha):
    """The gaps at eps = 0.5 and 2 on map ``name`` (every curve's shape checked at ``alpha``), once per session."""
    if name not in _TAO_MAP_CACHE:
        if not (rocketfuel_dir / name).is_dir():
            pytest.skip(f"RocketFuel map {name} not found in {rocketfuel_dir}")
        from algorithms.bandits.environments import rocketfuel_instance

        instance = rocketfuel_instance(name, path=rocketfuel_dir)
        curves = [(policy, eps) for policy, (_, eps) in TAO_CURVES.items()]
        regret = _figure1_runs(instance, curves, horizon=10_000, runs=10, seed=720)
        ratios = _check_every_curve(regret, alpha, established=False)
        gaps = {e: regret[("LDP-OMM", e)][:, 1] - regret[("DP-OMM", e)][:, 1] for e in (0.5, 2.0)}
        print(name, "gap", {e: round(float(g.mean())) for e, g in gaps.items()}, "R(T)/R(T/2)", ratios)
        _TAO_MAP_CACHE[name] = (gaps, ratios)
    return _TAO_MAP_CACHE[name]


@pytest.mark.dataset
def test_tao_figure_1_gap_widens_over_all_maps(thorough, rocketfuel_dir, suite_alpha):
    """Tao et al. 2025, Figure 1's "the gap narrows as eps grows", refuted over all six maps together (thorough).

    Stouffer's combination of the per-map widening z-scores (gap(2) - gap(0.5), Welch, 10 runs per curve), over the
    maps present (at least four): asserted Z > 2 (measured 5.6 at these seeds, the per-map z from -0.9 on AS1755 to
    5.0 on AS6461: a margin of 3.6 standard errors). Power: if the gap did not widen on average, Z <= 2 with
    probability >= 0.977; a visible narrowing on the maps fails surely. Detects what the per-map check cannot: a
    moderate narrowing spread over the maps.
    """
    if not thorough:
        pytest.skip("thorough profile: uses every map's simulations")
    present = [n for n in sorted(TAO_MAPS) if (rocketfuel_dir / n).is_dir()]
    if len(present) < 4:
        pytest.skip(f"fewer than four RocketFuel maps in {rocketfuel_dir}")
    scores = []
    for name in present:
        gaps, _ = _tao_map(name, rocketfuel_dir, suite_alpha / 2)
        scores.append(_welch_z(gaps[2.0], gaps[0.5]))
    combined = sum(scores) / math.sqrt(len(scores))
    print("widening z per map", dict(zip(present, [round(z, 2) for z in scores])), "combined", round(combined, 2))
    assert combined > 2.0, (dict(zip(present, scores)), combined)
