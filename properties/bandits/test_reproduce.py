"""Quick sizes of this family's figure reproductions run end to end (contract of dpverify.reproduce)."""

import csv

import numpy as np
import pytest

from dpverify.reproduce import registered_reproductions


def _rows(path):
    with open(path) as fh:
        return list(csv.DictReader(fh))


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


def test_thesis_synthetic_quick(tmp_path):
    rep = registered_reproductions()["thesis-synthetic"]
    paths = rep.run(tmp_path, quick=True, seed=1, progress=False)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    rows = _rows(tmp_path / "thesis_synthetic.csv")
    assert {r["figure"] for r in rows} == {"6.1", "6.2", "6.3a", "6.3b"}
    returns = [float(r["mean"]) for r in rows if r["quantity"] == "expected_per_round_return"]
    # per-round return never exceeds the optimal 0.80 + 0.75 + 0.60 = 2.15
    assert max(returns) <= 2.15 + 1e-9 and min(returns) >= 0
