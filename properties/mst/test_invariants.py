"""Deterministic invariants of the private spanning-tree mechanisms (Pagh et al. 2025), under Hypothesis.

Every statement here holds for every draw, so Hypothesis searches graphs (including disconnected
ones, ties, two vertices, complete graphs) and seeds freely.
"""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from algorithms.graphs import (
    MST_BACKENDS,
    as_graph_arrays,
    is_spanning_forest,
    kruskal_order,
    minimum_spanning_tree,
    tree_weight,
)
from algorithms.matroids import GraphicMatroid
from algorithms.mst.catalogue import complete_graph
from algorithms.mst.exponential import selection_log_weights
from algorithms.mst.kruskal import (
    one_pass_kruskal,
    one_pass_kruskal_batch,
    one_pass_kruskal_keys,
    private_kruskal,
    private_kruskal_batch,
)
from algorithms.mst.matroid_extension import private_matroid_basis
from algorithms.mst.pamst import pamst_fast, pamst_fast_batch, pamst_naive
from algorithms.mst.perturbation import GumbelPerturbationMechanism, batched_perturbed_trees, perturbed_mst
from algorithms.mst.ppsacr import (
    FixedRemovalRule,
    GraphicRemovalRule,
    HashedRemovalRule,
    one_shot_ppsacr,
    ppsacr,
    ppsacr_sequence_log_probability,
)
from algorithms.mst.privatization import gaussian_privatized_mst, laplace_privatized_mst
from algorithms.mst.strategies import graphs

TWO_VERTICES = as_graph_arrays((2, [[0, 1]], [3.0]))
TIES = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], [1.0, 1.0, 1.0, 1.0, 1.0]))
DISCONNECTED = as_graph_arrays((6, [[0, 1], [1, 2], [0, 2], [3, 4]], [0.0, -1.0, 2.0, 5.0]))
K6 = complete_graph(6, np.linspace(-3, 3, 15))
HUGE = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], [1e3, -1e3, -999.0, 0.0, 1e3]))
seeds = st.integers(0, 2**63 - 1)
eps0s = st.sampled_from([0.1, 1.0, 10.0])

ALGORITHMS = {
    "algorithm1-scipy": lambda g, e, r: perturbed_mst(g, e, r),
    "algorithm1-prim": lambda g, e, r: perturbed_mst(g, e, r, backend="prim"),
    "algorithm1-batched": lambda g, e, r: batched_perturbed_trees(g, e, 1, r)[0],
    "algorithm2": lambda g, e, r: private_kruskal(g, e, r),
    "algorithm3": lambda g, e, r: one_pass_kruskal(g, e, r),
    "pamst-naive": lambda g, e, r: pamst_naive(g, e, r),
    "pamst-fast": lambda g, e, r: pamst_fast(g, e, r),
    "laplace": lambda g, e, r: laplace_privatized_mst(g, e, r),
    "gaussian": lambda g, e, r: gaussian_privatized_mst(g, e, r),
    "matroid": lambda g, e, r: private_matroid_basis(
        GraphicMatroid.from_edges(g.n, g.edges) if g.m else GraphicMatroid(g.n, [], []), g.weights, e, r, maximize=False
    ),
}


@pytest.mark.parametrize("name", sorted(ALGORITHMS))
@given(g=graphs(), epsilon0=eps0s, seed=seeds)
@example(g=TWO_VERTICES, epsilon0=1.0, seed=0)
@example(g=TIES, epsilon0=1.0, seed=1)
@example(g=DISCONNECTED, epsilon0=1.0, seed=2)
@example(g=K6, epsilon0=0.1, seed=3)
@example(g=HUGE, epsilon0=10.0, seed=4)
def test_output_is_a_spanning_forest_and_the_same_seed_gives_the_same_tree(name, g, epsilon0, seed):
    algorithm = ALGORITHMS[name]
    tree = algorithm(g, epsilon0, seed)
    assert is_spanning_forest(g, tree)
    assert np.array_equal(tree, algorithm(g, epsilon0, seed))


@given(g=graphs(), epsilon0=eps0s, seed=seeds)
@example(g=HUGE, epsilon0=10.0, seed=0)
@example(g=TIES, epsilon0=1.0, seed=0)
def test_algorithm3_is_kruskal_on_the_same_keys_and_algorithm1_uses_them(g, epsilon0, seed):
    keys = one_pass_kruskal_keys(g, epsilon0, seed)
    order = one_pass_kruskal(g, epsilon0, seed, return_order=True)
    assert np.array_equal(order, kruskal_order(g.n, g.edges, np.argsort(keys, kind="stable")))
    # Algorithm 1 draws the very same noisy weights, so any backend returns a minimum spanning
    # forest of these keys (the same set when keys are distinct, which holds almost surely).
    tree1, noisy = perturbed_mst(g, epsilon0, seed, return_noisy_weights=True)
    assert np.array_equal(noisy, keys)
    assert tree_weight(g, tree1, keys) == pytest.approx(tree_weight(g, order, keys), rel=1e-12, abs=1e-9)
    if len(np.unique(keys)) == g.m:
        assert np.array_equal(tree1, np.sort(order))


@given(g=graphs(), epsilon0=eps0s, seed=seeds, backend=st.sampled_from(MST_BACKENDS))
@example(g=TIES, epsilon0=1.0, seed=0, backend="scipy")
@example(g=HUGE, epsilon0=0.1, seed=0, backend="prim")
def test_deterministic_utility_inequality_holds_for_every_draw(g, epsilon0, seed, backend):
    # Pagh et al. 2025, proof of Theorem 1.1: w(T~) - w(T*) <= N(T*) - N(T~) <= (n-1)(max N - min N).
    tree, noisy = perturbed_mst(g, epsilon0, seed, backend=backend, return_noisy_weights=True)
    best = minimum_spanning_tree(g, backend=backend)
    noise = noisy - g.weights
    lhs = tree_weight(g, tree) - tree_weight(g, best)
    middle = noise[best].sum() - noise[tree].sum()
    tol = 1e-9 * (1.0 + np.abs(g.weights).sum() + np.abs(noise).sum())
    assert lhs <= middle + tol
    if g.m:
        assert middle <= (g.n - 1) * (noise.max() - noise.min()) + tol


@given(g=graphs(), epsilon0=eps0s, seed=seeds)
def test_batched_samplers_replay_their_sequential_forms(g, epsilon0, seed):
    rng = np.random.default_rng(seed)
    batch = private_kruskal_batch(g, epsilon0, 3, rng)
    rng = np.random.default_rng(seed)
    assert all(np.array_equal(batch[i], private_kruskal(g, epsilon0, rng)) for i in range(3))
    rng = np.random.default_rng(seed)
    batch = one_pass_kruskal_batch(g, epsilon0, 3, rng)
    rng = np.random.default_rng(seed)
    assert all(np.array_equal(batch[i], one_pass_kruskal(g, epsilon0, rng)) for i in range(3))
    rng = np.random.default_rng(seed)
    batch = pamst_fast_batch(g, epsilon0, 3, rng)
    rng = np.random.default_rng(seed)
    assert all(np.array_equal(batch[i], pamst_fast(g, epsilon0, rng)) for i in range(3))
    # the batched Algorithm 1 sampler does not depend on its chunking
    a = batched_perturbed_trees(g, epsilon0, 7, seed, chunk_rows=2)
    b = batched_perturbed_trees(g, epsilon0, 7, seed)
    assert np.array_equal(a, b)
    mech = GumbelPerturbationMechanism(epsilon0)
    assert mech.sample(g, 7, seed) == [tuple(r) for r in b.tolist()]


def test_batched_sampler_log_space_path_for_huge_weight_spread():
    # epsilon0 = 10, weights +-1e3: w/beta spans 1e4 >> 709, the linear-space keys would overflow.
    rows = batched_perturbed_trees(HUGE, 10.0, 200, 0)
    assert all(is_spanning_forest(HUGE, r) for r in rows)
    # edges 1, 2, 3 (weights -1e3, -999, 0) are always chosen: every rival is 1e3 heavier, e^-5000 less likely
    assert np.all(rows == np.array([1, 2, 3]))


@given(
    n_items=st.integers(1, 8),
    k=st.integers(0, 8),
    seed=seeds,
    rule_kind=st.sampled_from(["none", "fixed", "hashed"]),
    data=st.data(),
)
def test_ppsacr_outputs_respect_removals(n_items, k, seed, rule_kind, data):
    log_sizes = np.array(data.draw(st.lists(st.floats(-30, 30), min_size=n_items, max_size=n_items)))
    if rule_kind == "none":
        rule = None
    elif rule_kind == "fixed":
        table = {i: data.draw(st.lists(st.integers(0, n_items - 1), max_size=n_items)) for i in range(n_items)}
        rule = FixedRemovalRule(table)
    else:
        rule = HashedRemovalRule(n_items, seed % 1000, drop_probability=0.3)
    for sampler in (ppsacr, one_shot_ppsacr):
        out = sampler(log_sizes, k, rule, seed)
        assert len(set(out)) == len(out) <= k
        for j in range(1, len(out)):
            removed = set(rule(out[:j])) if rule else set()
            assert not removed & set(out[j:]), "a removed item was selected later"
        # stops only at the budget or with no candidate left
        if len(out) < k:
            left = set(range(n_items)) - set(out)
            for j in range(1, len(out) + 1):
                left -= set(rule(out[:j])) if rule else set()
            assert not left
        assert ppsacr_sequence_log_probability(log_sizes, out, k, rule) > -np.inf


@given(g=graphs(), epsilon0=eps0s, seed=seeds)
def test_ppsacr_with_the_graphic_rule_returns_spanning_forests(g, epsilon0, seed):
    q = selection_log_weights(g.weights, epsilon0)
    rule = GraphicRemovalRule(g)
    for sampler in (ppsacr, one_shot_ppsacr):
        out = sampler(q, g.n - 1, rule, seed) if g.m else ()
        assert is_spanning_forest(g, list(out))
