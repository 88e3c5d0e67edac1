"""The simulator: every round plays a greedy basis of J_t; bookkeeping; seeding; bad input.

Deterministic invariants (Hypothesis over the four matroid kinds of
``algorithms.matroids.strategies``, all ten policies, random means and seeds): each played
super arm is a basis (checked with the matroid package's own oracle, an independent
implementation), it is the greedy basis of the recorded indices, the recorded pseudo-regret
equals the recomputation from the super arms, and the regret decomposition of the permutation
pi_t (Chandak 2023, Section 4.1.3, ``algorithms.bandits.permutation``) holds on simulated rounds.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from algorithms.bandits import policies as P
from algorithms.bandits._kernel_matroids import as_kernel_matroid, greedy_basis
from algorithms.bandits.broken import BrokenFullBudgetPolicy, broken_full_budget_per_arm
from algorithms.bandits.environments import BernoulliEnvironment, TableEnvironment, thesis_table61_instance
from algorithms.bandits.permutation import check_regret_permutation, regret_decomposition, regret_permutation
from algorithms.bandits.simulator import simulate
from algorithms.errors import (
    AlgorithmInputError,
    InvalidBudgetSplitError,
    InvalidHorizonError,
    InvalidPrivacyParameterError,
    ZeroRankMatroidError,
)
from algorithms.matroids import GraphicMatroid, LinearMatroid, PartitionMatroid, UniformMatroid
from algorithms.matroids.strategies import any_matroid

ALL_POLICIES = [
    lambda: P.omm(),
    lambda: P.dp_omm(1.0),
    lambda: P.ldp_omm(2.0),
    lambda: P.dpucb_mat(1.0),
    lambda: P.dpts_mat(1.0),
    lambda: P.cts(),
    lambda: P.cucb(),
    lambda: P.cucb_ldp1(3.0),
    lambda: P.cucb_ldp2(3.0),
    lambda: P.cucb_dp(3.0),
]


def _check_round(matroid, played_in_order, J, rank):
    """Played set is a basis and is greedy for J: J non-increasing along the acceptance order, and
    every other arm e is dependent on the played arms whose index is >= J[e]."""
    assert len(played_in_order) == rank
    assert matroid.is_independent(played_in_order)
    Jp = J[played_in_order]
    assert np.all(Jp[:-1] >= Jp[1:])
    chosen = set(played_in_order.tolist())
    for e in range(J.size):
        if e in chosen:
            continue
        before = [a for a in played_in_order if J[a] >= J[e]]
        assert not matroid.is_independent(before + [e]), (e, before)


@settings(max_examples=60)
@given(
    matroid=any_matroid(max_elements=8),
    which=st.integers(0, len(ALL_POLICIES) - 1),
    means_seed=st.integers(0, 2**32 - 1),
    seed=st.integers(0, 2**32 - 1),
)
@example(matroid=UniformMatroid(3, 1), which=0, means_seed=0, seed=0)
@example(matroid=GraphicMatroid(3, np.array([0, 1, 0]), np.array([1, 2, 2])), which=1, means_seed=1, seed=1)
def test_rounds_play_greedy_bases_and_regret_is_consistent(matroid, which, means_seed, seed):
    m = matroid.n_elements
    policy = ALL_POLICIES[which]()
    if m == 0:
        with pytest.raises(AlgorithmInputError):
            simulate(matroid, BernoulliEnvironment(np.zeros(0)), policy, 5)
        return
    means = np.random.default_rng(means_seed).random(m)
    env = BernoulliEnvironment(means)
    if matroid.rank == 0:
        with pytest.raises(ZeroRankMatroidError):
            simulate(matroid, env, policy, 5)
        return
    T = 12
    res = simulate(
        matroid, env, policy, T, n_runs=2, seed=seed, record_super_arms=True, record_indices_at=range(1, T + 1)
    )
    K = matroid.rank
    assert res.rank == K and res.super_arms.shape == (2, T, K)
    opt = means[greedy_basis(matroid, means)].sum()
    assert np.isclose(opt, means[res.optimal_basis].sum())
    for r in range(2):
        per_round = opt - means[res.super_arms[r]].sum(axis=1)
        assert np.all(per_round >= -1e-12)
        assert np.allclose(res.cumulative_regret[r], np.cumsum(per_round))
        for i, t in enumerate(res.index_rounds):
            assert np.array_equal(res.index_orders[r, i], res.super_arms[r, t - 1])
            _check_round(matroid, res.super_arms[r, t - 1], res.indices[r, i], K)
            # pi_t (Bandits-A's module) on a simulated round: the decomposition identity
            played, optimal = res.super_arms[r, t - 1], res.optimal_basis
            pi = regret_permutation(matroid, played, optimal)
            total, terms = regret_decomposition(played, optimal, pi, means)
            assert np.isclose(total, per_round[t - 1]) and np.isclose(terms.sum(), total)
            if np.all(np.isfinite(res.indices[r, i])):
                check_regret_permutation(matroid, played, optimal, pi, res.indices[r, i])


def test_same_seed_same_result_for_any_worker_count_and_prefix():
    inst = thesis_table61_instance()
    a = simulate(inst, policy=P.dpts_mat(1.0), horizon=300, n_runs=6, seed=42, record_super_arms=True)
    b = simulate(inst, policy=P.dpts_mat(1.0), horizon=300, n_runs=6, seed=42, record_super_arms=True, n_workers=2)
    c = simulate(inst, policy=P.dpts_mat(1.0), horizon=300, n_runs=3, seed=42, record_super_arms=True)
    assert np.array_equal(a.super_arms, b.super_arms)
    assert np.array_equal(a.cumulative_regret, b.cumulative_regret)
    assert np.array_equal(a.super_arms[:3], c.super_arms)
    d = simulate(inst, policy=P.dpts_mat(1.0), horizon=300, n_runs=6, seed=43, record_super_arms=True)
    assert not np.array_equal(a.super_arms, d.super_arms)
    # a Generator seed is accepted too, and runs differ from each other
    e = simulate(inst, policy=P.omm(), horizon=50, n_runs=2, seed=np.random.default_rng(5), record_super_arms=True)
    assert e.super_arms.shape == (2, 50, 3)


def test_checkpoints_and_rewards():
    inst = thesis_table61_instance()
    full = simulate(inst, policy=P.omm(), horizon=200, n_runs=2, seed=3)
    some = simulate(inst, policy=P.omm(), horizon=200, n_runs=2, seed=3, checkpoints=[1, 50, 200])
    assert np.array_equal(some.cumulative_regret, full.cumulative_regret[:, [0, 49, 199]])
    assert np.all(np.diff(full.cumulative_reward, axis=1) >= 0)
    assert np.all(full.cumulative_reward[:, -1] <= 200 * 3)
    lo, hi = full.regret_band()
    assert np.all(lo <= full.mean_regret() + 1e-12) and np.all(full.mean_regret() <= hi + 1e-12)


def test_table_environment_reveals_the_table():
    """With a 0/1 table the realized reward is the table's sum over the played arms."""
    table = np.random.default_rng(0).integers(0, 2, size=(40, 7)).astype(float)
    inst = thesis_table61_instance()
    res = simulate(
        inst.matroid, TableEnvironment(table), P.dpucb_mat(2.0), 40, n_runs=1, seed=0, record_super_arms=True
    )
    realized = np.array([table[t, res.super_arms[0, t]].sum() for t in range(40)])
    assert np.allclose(res.cumulative_reward[0], np.cumsum(realized))


def test_bad_input():
    inst = thesis_table61_instance()
    for bad in (0, -1.0, float("nan"), float("inf"), "x"):
        with pytest.raises(InvalidPrivacyParameterError):
            P.dp_omm(bad)
        with pytest.raises(InvalidPrivacyParameterError):
            P.cucb_dp(bad)
    for bad in (0, -3, 2.5):
        with pytest.raises(InvalidHorizonError):
            simulate(inst, policy=P.omm(), horizon=bad)
    with pytest.raises(InvalidHorizonError):
        P.cucb_ldp1(1.0, horizon=0)
    with pytest.raises(InvalidHorizonError, match="horizon 10"):
        simulate(inst, policy=P.cucb_ldp1(1.0, horizon=10), horizon=20)
    with pytest.raises(InvalidHorizonError, match="rounds of the reward table"):
        simulate(inst.matroid, TableEnvironment(np.zeros((5, 7))), P.omm(), 6)
    with pytest.raises(ZeroRankMatroidError, match="rank 0"):
        simulate(UniformMatroid(3, 0), BernoulliEnvironment([0.5] * 3), P.omm(), 5)
    with pytest.raises(ZeroRankMatroidError):
        simulate(PartitionMatroid(np.array([0, 0]), np.array([0])), BernoulliEnvironment([0.1, 0.2]), P.omm(), 5)
    with pytest.raises(AlgorithmInputError, match="arms"):
        simulate(inst.matroid, BernoulliEnvironment([0.5] * 6), P.omm(), 5)
    with pytest.raises(InvalidPrivacyParameterError):
        broken_full_budget_per_arm(P.omm())
    with pytest.raises(AlgorithmInputError):
        as_kernel_matroid(object())


def test_claims_are_data():
    K = 4
    assert P.dp_omm(2.0).claim.epsilon == 2.0 and P.dp_omm(2.0).claim.model == "central"
    assert P.ldp_omm(2.0).claim.model == "local" and P.ldp_omm(2.0).arm_epsilon(K) == 0.5
    assert P.dpucb_mat(2.0).claim.stated_epsilon == 4.0  # thesis Theorem 8 states 2 eps
    assert P.cucb_ldp2(2.0).arm_epsilon(K) == 2.0  # one report per round
    broken = broken_full_budget_per_arm(P.dpucb_mat(2.0))
    assert broken.claim == P.dpucb_mat(2.0).claim and broken.arm_epsilon(K) == 2.0
    assert P.omm().claim is None and P.omm().arm_epsilon(K) == np.inf
    assert isinstance(broken, BrokenFullBudgetPolicy) and broken.budget_split == "per-arm"
    assert type(P.dpucb_mat(2.0)) is P.Policy and set(P.BUDGET_SPLITS) == {"per-arm", "single-report", "none"}
    assert set(P.POLICY_FACTORIES) == {
        "OMM",
        "DP-OMM",
        "LDP-OMM",
        "DPUCB-MAT",
        "DPTS-MAT",
        "CTS",
        "CUCB",
        "CUCB-LDP1",
        "CUCB-LDP2",
        "CUCB-DP",
    }


def _reference_index(name, obs, t, K, m, e, T):
    """Pure-Python index of one arm from its observations before round t (noise-free limit)."""
    n = len(obs)
    mean = float(np.mean(obs)) if n else 0.0
    lt = np.log(t)
    if name == "OMM":
        return np.inf if n == 0 else mean + np.sqrt(2 * lt / n)
    if name == "DP-OMM":
        from algorithms.counters.banks import HybridCounterBank

        if n == 0:
            return np.inf
        bound = float(HybridCounterBank((1,), e).error_bound_at(n, float(t) ** -4))
        return (sum(obs) + bound) / n + np.sqrt(2 * lt / n)
    if name == "LDP-OMM":
        if n == 0:
            return np.inf
        l2 = np.log(2 * float(t) ** 4)
        return mean + np.sqrt(2 * lt / n) + max((2 / e) * np.sqrt(2 * l2 / n), (4 / e) * l2 / n)
    if name == "DPUCB-MAT":
        size, start, last = 1, 0, None
        while start + size <= n:
            last = (obs[start : start + size], size)
            start, size = start + size, 2 * size
        if last is None:
            return np.inf
        batch, te = last
        lk = np.log(K * t)
        return float(np.mean(batch)) + np.sqrt(3 * lk / te) + 3 * lk / (e * te)
    if n == 0:
        return 1.0
    if name == "CUCB":
        v = mean + np.sqrt(1.5 * lt / n)
    elif name in ("CUCB-LDP1", "CUCB-LDP2"):
        v = mean + 4 * np.sqrt(2 * np.log(T) / (e * e * n))
    else:  # CUCB-DP
        v = mean + np.sqrt(4 * np.log(m * T) / n) + 12 * np.log(T) ** 3 / (e * n)
    return min(v, 1.0)


@pytest.mark.parametrize("name", ["OMM", "DP-OMM", "LDP-OMM", "DPUCB-MAT", "CUCB", "CUCB-LDP1", "CUCB-LDP2", "CUCB-DP"])
def test_compiled_indices_match_reference_formulas(name):
    """With eps = 1e12 (noise ~1e-12) the compiled indices equal a pure-Python restatement of each
    policy's formula (module docstring of algorithms.bandits.policies), round by round."""
    inst = thesis_table61_instance()
    T, m = 80, 7
    table = np.random.default_rng(2).integers(0, 2, size=(T, m)).astype(float)
    policy = P.POLICY_FACTORIES[name](1e12)
    res = simulate(
        inst.matroid,
        TableEnvironment(table),
        policy,
        T,
        n_runs=1,
        seed=3,
        record_super_arms=True,
        record_indices_at=range(1, T + 1),
    )
    K = res.rank
    e = policy.arm_epsilon(K)
    obs = [[] for _ in range(m)]
    for t in range(1, T + 1):
        expected = np.array([_reference_index(name, obs[a], t, K, m, e, T) for a in range(m)])
        got = res.indices[0, t - 1]
        assert np.array_equal(np.isinf(got), np.isinf(expected)), (t, got, expected)
        fin = np.isfinite(expected)
        assert np.allclose(got[fin], expected[fin], rtol=1e-9, atol=1e-6), (t, got, expected)
        played = res.super_arms[0, t - 1]
        if name == "CUCB-LDP2":
            least = min(played, key=lambda a: (len(obs[a]), list(played).index(a)))
            obs[least].append(table[t - 1, least])
        else:
            for a in played:
                obs[a].append(table[t - 1, a])


@given(
    values=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, np.inf]) | st.floats(-5, 5), min_size=0, max_size=60),
    perm_seed=st.integers(0, 2**32 - 1),
)
@example(values=list(range(60)), perm_seed=0)  # reversed input: exceeds the shift budget -> merge sort
def test_kernel_sorts_are_correct(values, perm_seed):
    """The simulator's insertion sort (with its merge-sort fallback) and the merge sort both sort
    descending and permute the items (deterministic invariant)."""
    from algorithms.bandits._kernels import _insertion_sort_desc, _merge_sort_desc

    J = np.array(values, dtype=float)
    n = J.size
    items = np.random.default_rng(perm_seed).permutation(n).astype(np.int64)
    for sorter in (_insertion_sort_desc, _merge_sort_desc):
        a = items.copy()
        sorter(a, n, J, np.empty(max(n, 1), dtype=np.int64))
        assert sorted(a.tolist()) == list(range(n))
        assert np.all(J[a][:-1] >= J[a][1:]) if n > 1 else True


@pytest.mark.parametrize("rtol", [1e-6, 1e-9])
def test_kernel_linear_matroid_keeps_the_tolerance(rtol):
    # regression: the simulator's greedy ignored LinearMatroid's rtol (fixed 1e-9, one pass) and
    # played [0, 1, 2], a set LinearMatroid(rtol=1e-6) calls dependent; both now use extends_span
    vectors = [[1.0, 0.0, 0.0], [1.0, 1e-7, 0.0], [0.0, 0.0, 1.0]]
    lm = LinearMatroid(vectors, rtol=rtol)
    km = as_kernel_matroid(lm)
    assert km.rtol == rtol
    expected_rank = 2 if rtol == 1e-6 else 3
    assert lm.rank == km.rank == expected_rank
    for weights in ([0.0, 0.0, 0.0], [0.0, 1.0, 0.5], [0.3, 0.2, 0.1]):
        basis = greedy_basis(km, weights)
        np.testing.assert_array_equal(basis, lm.greedy_max_basis(weights))
        assert lm.is_independent(basis) and basis.size == expected_rank
    res = simulate(lm, BernoulliEnvironment([0.9, 0.8, 0.5]), P.omm(), 20, seed=0, record_super_arms=True)
    for arms in res.super_arms[0]:
        assert arms.size == expected_rank and lm.is_independent(arms)


@given(any_matroid(max_elements=7))
@settings(max_examples=60, deadline=None)
def test_kernel_greedy_equals_matroid_greedy(matroid):
    weights = np.random.default_rng(matroid.n_elements).random(matroid.n_elements)
    if matroid.n_elements == 0:
        return
    np.testing.assert_array_equal(greedy_basis(as_kernel_matroid(matroid), weights), matroid.greedy_max_basis(weights))


def test_budget_split_is_validated():
    # regression: "per_arm" (a typo) silently meant "the whole eps per arm"
    import dataclasses

    for bad in ("per_arm", "full-per-arm (broken)", "", None):
        with pytest.raises(InvalidBudgetSplitError, match="budget_split must be one of"):
            dataclasses.replace(P.dp_omm(1.0), budget_split=bad)
    assert dataclasses.replace(P.dp_omm(1.0), horizon=5).arm_epsilon(4) == 0.25
    assert P.cucb_ldp2(1.0).reports_per_round(4) == 1 and P.cucb_ldp1(1.0).reports_per_round(4) == 4


@pytest.mark.parametrize("factory", list(P.PRIVATE_POLICY_FACTORIES.values()))
@pytest.mark.parametrize("bad", ["2", True, np.bool_(True), 0, -1.0, np.inf, np.nan, None, [1.0]])
def test_epsilon_must_be_a_positive_real(factory, bad):
    # regression: float(epsilon) accepted "2" and True
    with pytest.raises(InvalidPrivacyParameterError, match="must be a finite real number > 0"):
        factory(bad)


@pytest.mark.parametrize("good", [2, 2.0, np.float32(2.0), np.int64(2)])
def test_epsilon_accepts_reals(good):
    assert P.dp_omm(good).epsilon == 2.0


def test_rng_keyword_and_seed_alias():
    inst = thesis_table61_instance()
    kw = dict(policy=P.dp_omm(1.0), horizon=30, n_runs=2)
    a = simulate(inst, rng=5, **kw).cumulative_regret
    np.testing.assert_array_equal(a, simulate(inst, seed=5, **kw).cumulative_regret)
    np.testing.assert_array_equal(a, simulate(inst, rng=np.random.SeedSequence(5), **kw).cumulative_regret)
    with pytest.raises(AlgorithmInputError, match="not both"):
        simulate(inst, rng=5, seed=5, **kw)
    # a Generator is advanced by the spawn: the same Generator twice gives two different simulations
    g = np.random.default_rng(5)
    first, second = simulate(inst, rng=g, **kw), simulate(inst, rng=g, **kw)
    np.testing.assert_array_equal(first.cumulative_regret, a)
    assert not np.array_equal(first.cumulative_regret, second.cumulative_regret)


def test_zero_rank_error_is_public_and_re_exported():
    from algorithms.bandits import _kernel_matroids

    assert _kernel_matroids.ZeroRankMatroidError is ZeroRankMatroidError
    assert issubclass(ZeroRankMatroidError, AlgorithmInputError)
