"""Quick sizes of this family's figure reproductions run end to end, and their figures have the papers' shape.

Shape checks (fixed seed 1; each is a gap of several band widths at the quick size, so a
different seed would not change the verdict; the margins are stated at each assertion):

- Tao et al. 2025, Figure 1: the non-private OMM's regret ends far below every private
  policy's 95% band, and OMM is sublinear, R(T)/R(T/2) < 1.7 (linear growth gives 2), while
  the private policies are close to linear at this horizon (the README's finding).
- Chandak 2023, Figure 6.2: per-round return ordered by epsilon (1e5 > 2 > 1e-4) with
  disjoint 95% bands, for DPUCB-MAT and DPTS-MAT, and at eps = 1e5 closer to the non-private
  OMM / CTS than at eps = 2 (gap below 0.6 of it; measured 0.48 and 0.19), but not closed: its
  band ends below the non-private one.
- Figure 6.3a: R_n sublinear, R(T)/R(T/8) < 0.5 * 8.
- Figure 6.3b: regret at eps = 0.5 above the whole band of every eps >= 20.
"""

import csv

import numpy as np
import pytest

from dpverify.reproduction import registered_reproductions


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


def _curves(rows, keys, value):
    """{key tuple: (rounds, mean, band_low, band_high)} sorted by round."""
    out = {}
    for r in rows:
        out.setdefault(tuple(r[k] for k in keys), []).append(
            (int(r["round"]), float(r[value]), float(r["band_low"]), float(r["band_high"]))
        )
    return {k: tuple(np.array(c) for c in zip(*sorted(v))) for k, v in out.items()}


def _growth_ratio(rounds, regret, factor=2):
    """R(T) / R(h) with h the recorded round nearest T/factor, and T / h (what linear growth gives)."""
    h = int(np.argmin(np.abs(rounds - rounds[-1] / factor)))
    return regret[-1] / regret[h], rounds[-1] / rounds[h]


@pytest.mark.dataset
def test_rocketfuel_figure1_quick(tmp_path, rocketfuel_dir, monkeypatch):
    monkeypatch.setenv("DPVERIFY_ROCKETFUEL", str(rocketfuel_dir))
    rep = registered_reproductions()["matroid-bandits-rocketfuel"]
    paths = rep.run(tmp_path, quick=True, seed=1, progress=False)
    assert {p.suffix for p in paths} == {".png", ".csv"}
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    rows = _rows(tmp_path / "matroid_bandits_rocketfuel.csv")
    configs = {(r["network"], r["policy"], r["epsilon"]) for r in rows}
    assert len(configs) == 2 * 9  # two networks x (OMM + 4 DP-OMM + 4 LDP-OMM)
    assert {r["network"] for r in rows} == {"AS1221", "AS1755"}
    mean = np.array([float(r["mean_regret"]) for r in rows])
    lo = np.array([float(r["band_low"]) for r in rows])
    hi = np.array([float(r["band_high"]) for r in rows])
    assert np.all(mean >= 0) and np.all(lo <= mean + 1e-9) and np.all(mean <= hi + 1e-9)
    timing = _rows(tmp_path / "matroid_bandits_rocketfuel_timing.csv")
    assert timing[-1]["network"] == "all" and float(timing[-1]["seconds"]) > 0

    # shape: OMM ends below every private policy's band (gap >= 5x at the quick size) and is sublinear
    curves = _curves(rows, ("network", "policy", "epsilon"), "mean_regret")
    for network in ("AS1221", "AS1755"):
        rounds, omm, _, omm_hi = curves[(network, "OMM", "")]
        omm_ratio, linear = _growth_ratio(rounds, omm)
        assert omm_ratio < 0.85 * linear  # measured 1.52 and 1.44 against ~2.0
        private = [v for k, v in curves.items() if k[0] == network and k[1] != "OMM"]
        assert len(private) == 8
        for p_rounds, p_mean, p_lo, _ in private:
            assert omm_hi[-1] < p_lo[-1]
            assert _growth_ratio(p_rounds, p_mean)[0] > omm_ratio


def test_thesis_synthetic_quick(tmp_path):
    rep = registered_reproductions()["thesis-synthetic"]
    paths = rep.run(tmp_path, quick=True, seed=1, progress=False)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    rows = _rows(tmp_path / "thesis_synthetic.csv")
    assert {r["figure"] for r in rows} == {"6.1", "6.2", "6.3a", "6.3b"}
    returns = [float(r["mean"]) for r in rows if r["quantity"] == "expected_per_round_return"]
    # per-round return never exceeds the optimal 0.80 + 0.75 + 0.60 = 2.15
    assert max(returns) <= 2.15 + 1e-9 and min(returns) >= 0

    # Figure 6.2: return at the last round ordered by epsilon, disjoint bands (gaps >= 0.07 measured)
    fig62 = _curves([r for r in rows if r["figure"] == "6.2"], ("policy", "epsilon"), "mean")
    for policy in ("DPUCB-MAT", "DPTS-MAT"):
        ends = {float(eps): (c[2][-1], c[3][-1]) for (p, eps), c in fig62.items() if p == policy}
        assert sorted(ends) == [1e-4, 2.0, 1e5]
        assert ends[1e5][0] > ends[2.0][1] and ends[2.0][0] > ends[1e-4][1]
    # ...and "as eps increases ... approaches the non-private" policy (OMM for DPUCB-MAT, CTS for DPTS-MAT): the gap
    # to the non-private return at eps = 1e5 is below 0.6 of the gap at eps = 2 (measured 0.48 and 0.19; it does
    # not close: at n = 1e3 the eps = 1e5 band stays below the non-private one). Detects an eps ignored above
    # some value, or a large-eps policy that does not approach its non-private counterpart.
    for policy, baseline in (("DPUCB-MAT", "OMM"), ("DPTS-MAT", "CTS")):
        reference = fig62[(baseline, "")][1][-1]
        means = {float(eps): c[1][-1] for (p, eps), c in fig62.items() if p == policy}
        assert reference - means[1e5] < 0.6 * (reference - means[2.0]), (policy, reference, means)
    # ...but "does not close" by n = 1e3 (docs/papers/claims.md): at eps = 1e5 the private 95% band ends below the
    # non-private one (margins 0.099 for DPUCB-MAT against OMM, 0.027 for DPTS-MAT against CTS, i.e. 4.6 and 2.6
    # band half-widths of the private curve). Power: were the gap closed (equal means), the two 95% bands would be
    # disjoint in this order with probability below 0.025 (0.012 and 0.004 at these band widths), so a closed gap
    # fails with probability > 0.975.
    for policy, baseline in (("DPUCB-MAT", "OMM"), ("DPTS-MAT", "CTS")):
        private_high = {float(eps): c for (p, eps), c in fig62.items() if p == policy}[1e5][3][-1]
        assert private_high < fig62[(baseline, "")][2][-1], (policy, private_high, fig62[(baseline, "")][2][-1])
    # Figure 6.3a: R_n = (R_n / ln n) ln n is sublinear: R(T)/R(T/8) below half of linear growth's 8
    # (seeds 1-6 measured: DPUCB-MAT 2.6-3.4, DPTS-MAT 1.9-2.1; DPUCB-MAT's lazy batches make the
    # T/2 ratio jump between 1.4 and 1.8 at this size, so the longer span is used)
    fig63a = _curves([r for r in rows if r["figure"] == "6.3a"], ("policy",), "mean")
    for (policy,), (rounds, over_ln, _, _) in fig63a.items():
        ratio, linear = _growth_ratio(rounds, over_ln * np.log(rounds), factor=8)
        assert ratio < 0.5 * linear, (policy, ratio)
    # Figure 6.3b: regret falls with epsilon: eps = 0.5 above the whole band of every eps >= 20
    fig63b = [r for r in rows if r["figure"] == "6.3b"]
    for policy in ("DPUCB-MAT", "DPTS-MAT"):
        by_eps = {float(r["epsilon"]): r for r in fig63b if r["policy"] == policy}
        smallest = by_eps[min(by_eps)]
        assert all(float(smallest["band_low"]) > float(r["band_high"]) for e, r in by_eps.items() if e >= 20)


def test_thesis_synthetic_files_do_not_depend_on_the_workers(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    rep = registered_reproductions()["thesis-synthetic"]
    rep.run(tmp_path / "one", quick=True, seed=4, progress=False)
    with ThreadPoolExecutor(2) as pool:
        rep.run(tmp_path / "two", quick=True, seed=4, progress=False, executor=pool)
    one = (tmp_path / "one" / "thesis_synthetic.csv").read_bytes()
    assert one == (tmp_path / "two" / "thesis_synthetic.csv").read_bytes()
    rep.run(tmp_path / "other", quick=True, seed=5, progress=False)
    assert one != (tmp_path / "other" / "thesis_synthetic.csv").read_bytes()  # the seed matters


def _jobs():
    from algorithms.bandits import policies as P
    from algorithms.bandits.environments import thesis_table61_instance

    inst = thesis_table61_instance()
    seeds = np.random.SeedSequence(11).spawn(2)
    return [(inst, P.dpucb_mat(1.0), 300, 5, [100, 300], seeds[0]), (inst, P.cts(), 200, 3, [200], seeds[1])]


def _expected():
    from algorithms.bandits.simulator import simulate

    return [
        simulate(inst, policy=pol, horizon=h, n_runs=n, seed=s, checkpoints=ck) for inst, pol, h, n, ck, s in _jobs()
    ]


def test_one_task_per_run_equals_one_simulation_on_any_executor():
    """Run r of a split simulation is run r of the whole one: seeds per run, never per worker."""
    from concurrent.futures import ThreadPoolExecutor

    from algorithms.bandits.reproduce import _simulate_jobs

    expected = _expected()
    with ThreadPoolExecutor(2) as pool:
        for executor in (None, pool):
            got = _simulate_jobs(_jobs(), executor=executor, progress=False, desc="")
            for g, e in zip(got, expected):
                assert g.n_runs == e.n_runs
                np.testing.assert_array_equal(g.cumulative_regret, e.cumulative_regret)
                np.testing.assert_array_equal(g.cumulative_reward, e.cumulative_reward)
    assert not np.array_equal(expected[0].cumulative_regret[0], expected[0].cumulative_regret[1])


def test_one_task_per_run_on_a_dask_cluster_equals_one_simulation():
    distributed = pytest.importorskip("distributed", reason="dask.distributed is in the test and dask extras")
    from algorithms.bandits.reproduce import _simulate_jobs
    from dpverify.reproduction import open_executor

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with open_executor(scheduler=cluster.scheduler_address) as executor:
            got = _simulate_jobs(_jobs(), executor=executor, progress=False, desc="")
    for g, e in zip(got, _expected()):
        np.testing.assert_array_equal(g.cumulative_regret, e.cumulative_regret)
