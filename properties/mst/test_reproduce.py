"""The Appendix H reproductions of Pagh et al. 2025 run at their quick size and write sane files.

Deterministic checks only (fixed seeds): files exist, CSV columns are the
documented ones, values are in the ranges the mathematics forces (a private
tree of a positive-weight graph weighs at least the MST: ratio >= 1; with the
negated mutual informations the ratio lies in [0, 1]), and the mutual
information formula of Claim H.4 matches a direct computation from the joint
distribution of two bits of the chain.
"""

import csv
import math

import numpy as np
import pytest

from algorithms.mst import experiments as ex
from algorithms.mst.reproduce import reproductions
from dpverify.reproduction import registered_reproductions


def _read_csv(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], rows[1:]


def test_both_reproductions_are_registered():
    names = {r.name for r in reproductions()}
    assert names == {"private-mst-density", "private-mst-mutual-information"}
    registered = registered_reproductions()
    assert names <= set(registered)


@pytest.mark.parametrize(
    "name, x_name",
    [("private-mst-density", "p"), ("private-mst-mutual-information", "rho")],
)
def test_quick_run_writes_png_and_csvs(tmp_path, name, x_name):
    reproduction = {r.name: r for r in reproductions()}[name]
    paths = reproduction.run(tmp_path, quick=True, seed=1, progress=False)
    assert sorted(p.name for p in paths) == sorted([f"{name}.png", f"{name}.csv", f"{name}-runs.csv"])
    for p in paths:
        assert p.exists() and p.stat().st_size > 0
    assert (tmp_path / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    header, summary = _read_csv(tmp_path / f"{name}.csv")
    assert header == [x_name, "method", "runs", "ratio_median", "ratio_min", "ratio_max"]
    methods = {"algorithm1", "pamst", "sealfon_gaussian"}
    assert {row[1] for row in summary} == methods
    for row in summary:
        lo, med, hi = float(row[4]), float(row[3]), float(row[5])
        assert lo <= med <= hi

    header, runs = _read_csv(tmp_path / f"{name}-runs.csv")
    assert header == [x_name, "run", "method", "n", "m", "weight_true", "weight_private", "ratio"]
    settings = ex.DensitySettings.quick() if x_name == "p" else ex.MutualInformationSettings.quick()
    n_x = settings.n_densities if x_name == "p" else len(settings.rhos)
    assert len(runs) == n_x * settings.runs * len(methods)
    for row in runs:
        n, m = int(row[3]), int(row[4])
        true, private, ratio = float(row[5]), float(row[6]), float(row[7])
        assert n == settings.n and n - 1 <= m <= n * (n - 1) // 2
        assert math.isclose(ratio, private / true)
        if x_name == "p":
            # positive weights: the MST is lightest, so private / true >= 1
            assert true > 0 and ratio >= 1.0 - 1e-12
        else:
            # negated mutual informations (<= 0): the MST is the most negative tree
            assert true < 0 and -1e-12 <= ratio <= 1.0 + 1e-12
            assert m == n * (n - 1) // 2


def test_quick_figures_have_the_papers_shape(tmp_path):
    """Pagh et al. 2025, App. H, Figure 2 at the quick size (seed 1, deterministic).

    Density figure: input privatization (Sealfon) is the worst method on the densest graphs:
    its smallest ratio exceeds the largest of Algorithm 1 and PAMST at p = 1 (measured 1.41
    against 1.25), and every method's median ratio grows from the sparsest to the densest p.
    Mutual-information figure: the ratio (private / true, both negative) rises with rho and is 1
    at the largest rho for every method.
    """
    by_name = {r.name: r for r in reproductions()}
    by_name["private-mst-density"].run(tmp_path, quick=True, seed=1, progress=False)
    _, rows = _read_csv(tmp_path / "private-mst-density.csv")
    ps = sorted({float(r[0]) for r in rows})
    at = {(float(r[0]), r[1]): (float(r[3]), float(r[4]), float(r[5])) for r in rows}
    dense = ps[-1]
    assert at[(dense, "sealfon_gaussian")][1] > max(at[(dense, "algorithm1")][2], at[(dense, "pamst")][2])
    for method in ("algorithm1", "pamst", "sealfon_gaussian"):
        assert at[(dense, method)][0] > at[(ps[0], method)][0]

    by_name["private-mst-mutual-information"].run(tmp_path, quick=True, seed=1, progress=False)
    _, rows = _read_csv(tmp_path / "private-mst-mutual-information.csv")
    rhos = sorted({float(r[0]) for r in rows})
    med = {(float(r[0]), r[1]): float(r[3]) for r in rows}
    for method in ("algorithm1", "pamst", "sealfon_gaussian"):
        series = [med[(rho, method)] for rho in rhos]
        assert all(b >= a - 1e-12 for a, b in zip(series, series[1:]))
        assert series[-1] >= 0.99 and series[0] < 0.5


def test_quick_run_is_deterministic_given_the_seed(tmp_path):
    settings = ex.MutualInformationSettings.quick()
    a = ex.mutual_information_experiment(settings, 7)
    b = ex.mutual_information_experiment(settings, 7)
    c = ex.mutual_information_experiment(settings, 8)
    assert a == b
    assert a != c


def test_density_sweep_matches_the_paper():
    p = ex.DensitySettings.paper().densities()
    assert len(p) == 50
    assert math.isclose(p[0], 2 * math.log(1000) / 1000) and math.isclose(p[-1], 1.0)
    assert np.allclose(np.diff(np.log(p)), np.log(p[1] / p[0]))
    assert math.isclose(ex.MutualInformationSettings.paper().sensitivity, math.log2(10_000) / 10_000)


@pytest.mark.parametrize("flip", [0.05, 0.2, 0.5])
@pytest.mark.parametrize("k", [1, 2, 7, 40])
def test_chain_mutual_information_matches_the_joint_distribution(flip, k):
    # X_j = X_i xor B with P[B = 1] = q = (1 - (1 - 2 flip)^k) / 2 (parity of k flips, Lemma H.3);
    # X_i uniform, so I(X_i; X_j) = 1 - H(q) bits.
    q = (1 - (1 - 2 * flip) ** k) / 2
    entropy = 0.0 if q in (0.0, 1.0) else -(q * math.log2(q) + (1 - q) * math.log2(1 - q))
    assert math.isclose(float(ex.chain_mutual_information(k, flip)), 1 - entropy, rel_tol=1e-9, abs_tol=1e-15)


def test_chow_liu_graph_mst_is_the_chain():
    from algorithms.graphs import minimum_spanning_tree

    n, edges, weights = ex.chow_liu_chain_graph(30, 0.05)
    tree = minimum_spanning_tree((n, edges, weights))
    assert sorted(map(tuple, edges[tree])) == [(i, i + 1) for i in range(n - 1)]


@pytest.mark.parametrize("name", ["private-mst-density", "private-mst-mutual-information"])
def test_quick_files_do_not_depend_on_the_workers(tmp_path, name):
    from concurrent.futures import ThreadPoolExecutor

    reproduction = {r.name: r for r in reproductions()}[name]
    one = reproduction.run(tmp_path / "one", quick=True, seed=2, progress=False)
    with ThreadPoolExecutor(2) as pool:
        two = reproduction.run(tmp_path / "two", quick=True, seed=2, progress=False, executor=pool)
    for a, b in zip(one, two):
        if a.suffix == ".csv":
            assert a.read_bytes() == b.read_bytes(), a.name
