"""Environments and the RocketFuel loader (Tao et al. 2025, Section 5; thesis Table 6.1)."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats

from algorithms.bandits._kernel_matroids import greedy_basis
from algorithms.bandits.environments import (
    DEFAULT_LATENCY_MARGIN,
    BernoulliEnvironment,
    LatencyEnvironment,
    TableEnvironment,
    latency_reward_means,
    rocketfuel_instance,
    thesis_table61_instance,
)
from algorithms.bandits.rocketfuel import load_rocketfuel, rocketfuel_dir
from algorithms.errors import DatasetNotFoundError, InvalidRewardError, InvalidWeightsError
from algorithms.matroids import GraphicMatroid, LinearMatroid


@pytest.mark.dataset
@pytest.mark.parametrize("name, nodes, edges, rank", [("AS1221", 108, 153, 105), ("AS1755", 87, 161, 86)])
def test_rocketfuel_sizes_and_rank(rocketfuel_dir, name, nodes, edges, rank):
    """The two Figure 1 networks have the sizes of the data README; AS1221 is a forest of 3 trees."""
    net = load_rocketfuel(name, path=rocketfuel_dir)
    assert (net.n_nodes, net.n_edges) == (nodes, edges)
    assert np.all(net.edges[:, 0] < net.edges[:, 1])
    assert len({tuple(e) for e in net.edges.tolist()}) == edges  # simple graph
    assert net.latencies.min() >= 1
    inst = rocketfuel_instance(name, path=rocketfuel_dir)
    basis = greedy_basis(inst.matroid, inst.environment.means)
    assert basis.size == rank
    # cross-check with the matroid package's independence oracle
    gm = GraphicMatroid.from_edges(net.n_nodes, net.edges)
    assert gm.rank == rank and gm.is_independent(basis)


@pytest.mark.dataset
def test_rocketfuel_optimal_basis_is_min_latency_forest(rocketfuel_dir):
    """The reward map is decreasing in latency, so A* is the minimum-latency spanning forest."""
    import networkx as nx

    net = load_rocketfuel("AS1755", path=rocketfuel_dir)
    inst = rocketfuel_instance("AS1755", path=rocketfuel_dir)
    basis = greedy_basis(inst.matroid, inst.environment.means)
    g = nx.Graph()
    for (u, v), lat in zip(net.edges.tolist(), net.latencies):
        g.add_edge(u, v, weight=lat)
    mst_weight = sum(d["weight"] for _, _, d in nx.minimum_spanning_tree(g).edges(data=True))
    assert math.isclose(net.latencies[basis].sum(), mst_weight)


@pytest.mark.dataset
@pytest.mark.parametrize("name, max_mu, cap", [("AS1221", 17.0, 21.0), ("AS1755", 31.0, 35.0)])
def test_default_latency_cap_is_the_privacy_cost_of_raw_latencies(rocketfuel_dir, name, max_mu, cap):
    """L_max = max mu + 4 ms on the Figure 1 maps: noise calibrated for rewards in [0, 1] is only (L_max eps)-DP on
    latencies clipped at L_max, a factor 21 (AS1221) and 35 (AS1755) (``docs/papers/figures.md``)."""
    inst = rocketfuel_instance(name, path=rocketfuel_dir)
    assert max(inst.environment.latencies) == pytest.approx(max_mu)
    assert inst.environment.latency_cap == pytest.approx(cap)


def test_missing_dataset_names_the_path(tmp_path, monkeypatch):
    missing = tmp_path / "nowhere"
    with pytest.raises(DatasetNotFoundError, match="nowhere"):
        load_rocketfuel("AS1755", path=missing)
    monkeypatch.setenv("DPVERIFY_ROCKETFUEL", str(missing))
    with pytest.raises(DatasetNotFoundError, match="DPVERIFY_ROCKETFUEL"):
        rocketfuel_dir()
    (tmp_path / "empty").mkdir()
    with pytest.raises(DatasetNotFoundError, match="AS9999"):
        load_rocketfuel("AS9999", path=tmp_path / "empty")


def test_env_var_and_path_override(tmp_path, monkeypatch):
    folder = tmp_path / "rf" / "AS1"
    folder.mkdir(parents=True)
    (folder / "latencies.intra").write_text("a b 3\nb a 3\nb c 5\nc b 5\na c 2\n")
    monkeypatch.setenv("DPVERIFY_ROCKETFUEL", str(tmp_path / "rf"))
    net = load_rocketfuel("AS1")
    assert net.nodes == ("a", "b", "c") and net.edges.tolist() == [[0, 1], [0, 2], [1, 2]]
    assert net.latencies.tolist() == [3.0, 2.0, 5.0]
    (folder / "latencies.intra").write_text("a b 3\nb a 4\n")
    from algorithms.errors import InvalidGraphError

    with pytest.raises(InvalidGraphError, match="latencies"):
        load_rocketfuel("AS1", path=tmp_path / "rf")


@given(mu=st.lists(st.floats(1.0, 64.0), min_size=1, max_size=6), margin=st.floats(0.0, 20.0))
@example(mu=[1.0], margin=0.0)
@example(mu=[64.0, 1.0], margin=DEFAULT_LATENCY_MARGIN)
def test_latency_means_formula_is_decreasing_and_in_unit_interval(mu, margin):
    """Deterministic: exact mean 1 - (mu - exp(-(L - mu + 1)))/L lies in [0, 1], decreases in mu."""
    mu = np.sort(np.array(mu))
    cap = mu.max() + margin
    means = latency_reward_means(mu, cap)
    assert np.all((means >= 0) & (means <= 1))
    assert np.all(np.diff(means) <= 1e-15)
    env = LatencyEnvironment(mu, cap)
    # relative tolerance: L_max = mu + margin is rounded to double spacing (~7e-15 at 32 ms)
    assert np.all(env.clip_probabilities <= np.exp(-(margin + 1)) * (1 + 1e-12))


def test_latency_rewards_match_exact_means():
    """Monte Carlo means agree with the exact formula (z-test, Bonferroni over 4 arms at 1e-6 total).

    False alarm <= 1e-6 (normal approximation with n = 2e5 draws per arm); power: a mean error
    of 0.005 (e.g. forgetting the clipping correction at margin 0) is 0.005 / (0.29/sqrt(2e5))
    = 7.7 standard errors, caught with probability ~1.
    """
    env = LatencyEnvironment([1.0, 3.0, 10.0, 17.0], latency_cap=17.0)  # margin 0: clipping matters
    x = env.sample(200_000, rng=11)
    assert x.min() >= 0 and x.max() <= 1
    z = (x.mean(0) - env.means) / (x.std(0, ddof=1) / np.sqrt(x.shape[0]))
    assert np.all(np.abs(z) < stats.norm.isf(1e-6 / 8))


def test_bad_environments():
    with pytest.raises(InvalidRewardError, match=r"\[0, 1\]"):
        BernoulliEnvironment([0.5, 1.2])
    with pytest.raises(InvalidRewardError):
        BernoulliEnvironment([np.nan])
    with pytest.raises(InvalidWeightsError):
        LatencyEnvironment([0.5, 2.0])
    with pytest.raises(InvalidWeightsError):
        LatencyEnvironment([3.0, 10.0], latency_cap=5.0)
    with pytest.raises(InvalidRewardError, match="clip=True"):
        TableEnvironment([[0.0, 1.5]])
    with pytest.raises(InvalidRewardError):
        TableEnvironment([[0.0, -0.1]])
    with pytest.raises(InvalidRewardError, match="NaN"):
        TableEnvironment([[np.nan, 0.5]], clip=True)
    clipped = TableEnvironment([[-1.0, 0.5, 2.0]], clip=True)
    assert clipped.table.tolist() == [[0.0, 0.5, 1.0]]


def test_thesis_table61():
    """Table 6.1: rank 3, A* = {e1, e2, e3}; e7 = 0 is a loop; cross-checked with LinearMatroid."""
    inst = thesis_table61_instance()
    basis = greedy_basis(inst.matroid, inst.environment.means)
    assert sorted(basis.tolist()) == [0, 1, 2]
    lm = LinearMatroid(inst.matroid.vectors)
    assert lm.rank == 3 and not lm.is_independent([6]) and not lm.is_independent([0, 5])
