"""DP-RST 2025, Section 6: the running time of the bit-level randomized response (Lemma 6.1, O(m l)) and of the
whole pipeline, as fitted exponents: of counted operations, and of measured CPU time.

**Counted draws.** Every random number the perturbation draws (one Bernoulli per edge-bit, Algorithm 4 lines
5-8) is counted through a generator that counts what it is asked for, on the public entry points
(``perturb_weights``, one draw and batched, and the whole pipeline ``dp_random_spanning_tree``). The
least-squares slope of ln(count) on ln(m) at k = 16, and on ln(l) at m = 2,000, is compared with the paper's
bound O(m l): exponent 1 in each. Deterministic (counts do not depend on the seed), no false alarm. It cannot
see work that draws no random numbers.

**Measured CPU time.** The whole algorithm (``dp_random_spanning_tree``, and the mechanism's batched path
``DPRandomSpanningTree(...).sample``: validation, perturbation, connectivity check, sampler) is timed on
connected G(n, p) graphs of average degree 20 (n = m / 10, k = 16, epsilon0 = 4) at m = 8e3 to 1.28e5 edges,
with ``algorithms.growth_laws.fit_growth_exponent``: CPU time of this process, 20 rounds (thorough: 40), each
timing every size once in a shuffled order; one slope of ln(time) on ln(m) per round; the exponent is the
median round slope, and the test fails when the distribution-free lower confidence bound on that median
(an order statistic, the smallest of 20) exceeds the paper's order plus a margin. The paper's order is
Lemma 6.1's O(m l) (fixed l here) plus Definition 3.3's O(m log m log(m / Delta)) for the tree sampler: over
this sweep the factor m ln(m)^2 has exponent 1.19 (``claimed_exponent``), which the test allows plus a margin
of 0.15 (``MARGIN``; bound 1.34) for the memory hierarchy: the arrays at 1.28e5 edges no longer fit the L2
cache, and time per edge rises on correct code (whose median round slope stays below the paper's 1.19 here,
and whose lower bound stays far below 1.34). A warm-up round stops at the first call over 0.5 s of CPU (15-25
times the largest size's time on correct code here), so a much steeper step fails in seconds.

Detects: an O(m^2) step anywhere in the whole algorithm that costs, at m = 1.28e5, more than a few times the
rest (a quadratic term r times the linear work at the largest size gives exponent 1.35 at r = 2, 1.55 at
r = 5 over this sweep); any interpreted or compiled loop over pairs of edges, or a vectorized one over pairs
of vertices, is far above that. Tried (``properties/mutation.py``): a connectivity check that merges
components by relabelling (``labels[labels == labels[v]] = labels[u]`` per edge, O(m n); its per-edge call
overhead is linear, so its exponent over the sweep is about 1.6) fails the exponent bound and the call limit,
and a perturbation that grows its output with ``np.append`` per edge (O(m^2) copying) fails the call limit.
It does not detect a quadratic step below that size (invisible at these m by construction), nor an
O(m log^2 m) one.

False alarm: the lower bound exceeds the median round slope with probability at most 2^-20 < suite_alpha
whatever the distribution of the round slopes, if the rounds are independent; a loaded machine moves the
bound only by distorting every one of the 20 rounds (interleaving puts load on all sizes of a round alike).

References
----------
Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript, 2025. Algorithm 4,
Definition 3.3, Lemma 6.1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from algorithms.bandits.growth import claimed_exponent
from algorithms.errors import AlgorithmInputError
from algorithms.graphs import connected_gnp_graph
from algorithms.growth_laws import fit_growth_exponent, growth_exponent_from_table, median_interval, round_slopes
from algorithms.random_trees import DPRandomSpanningTree, bits, dp_random_spanning_tree
from algorithms.random_trees.bits import perturb_weights

EDGES = (250, 1_000, 4_000, 16_000)
BOUNDS = (4, 16, 256, 65_536)  # l = 2, 4, 8, 16 bits
EPS0 = 1.0


class CountingGenerator(np.random.Generator):
    """A numpy Generator that counts the random numbers asked of it and of the generators it spawns."""

    def __init__(self, seed, tally=None):
        super().__init__(seed if isinstance(seed, np.random.BitGenerator) else np.random.PCG64(seed))
        self.tally = [0] if tally is None else tally

    @property
    def drawn(self) -> int:
        return self.tally[0]

    def _count(self, size):
        self.tally[0] += 1 if size is None else int(np.prod(size))

    def random(self, size=None, *args, **kwargs):
        self._count(size)
        return super().random(size, *args, **kwargs)

    def integers(self, low, high=None, size=None, *args, **kwargs):
        self._count(size)
        return super().integers(low, high, size, *args, **kwargs)

    def spawn(self, n_children):
        return [
            CountingGenerator(type(self.bit_generator)(s), self.tally)
            for s in self.bit_generator.seed_seq.spawn(n_children)
        ]


def _slope(x, y) -> float:
    return float(round_slopes(x, [y])[0])


def _perturbation_count(m: int, k: int, size=None) -> int:
    w = np.random.default_rng(m).integers(1, k, size=m)
    rng = CountingGenerator(0)
    perturb_weights(w, k, EPS0, rng=rng) if size is None else bits.perturb_weights_batch(w, k, EPS0, size, rng=rng)
    return rng.drawn


def test_perturbation_does_m_l_operations():
    """One draw: exactly m l Bernoulli draws, so the fitted exponents are 1 in m and in l (Lemma 6.1: O(m l))."""
    counts_m = [_perturbation_count(m, 16) for m in EDGES]
    assert counts_m == [4 * m for m in EDGES]
    counts_l = [_perturbation_count(2_000, k) for k in BOUNDS]
    ls = [bits.bit_count(k) for k in BOUNDS]
    assert counts_l == [2_000 * l for l in ls]
    assert _slope(EDGES, counts_m) == pytest.approx(1.0, abs=0.02)
    assert _slope(ls, counts_l) == pytest.approx(1.0, abs=0.02)


def test_batched_perturbation_does_m_l_operations_per_draw():
    """The batched sampler: m l draws per output, whatever the batch."""
    for size in (1, 7):
        counts = [_perturbation_count(m, 16, size=size) for m in EDGES]
        assert counts == [size * 4 * m for m in EDGES]


def test_pipeline_counts_fit_the_paper_exponent_in_m():
    """The whole pipeline (perturbation, then Wilson's sampler seeded from the same generator) on G(n, p) graphs of
    growing size: the counted draws fit exponent 1 in m (the sampler's own walk is compiled and takes one seed)."""
    counts, ms = [], []
    for n in (30, 60, 120, 240):
        g = _dense_graph(n)
        w = np.random.default_rng(n).integers(1, 16, size=g.number_of_edges())
        rng = CountingGenerator(1)
        tree = dp_random_spanning_tree(g, w, k=16, epsilon0=EPS0, rng=rng)
        assert len(tree) == n - 1
        counts.append(rng.drawn)
        ms.append(g.number_of_edges())
    slope = _slope(ms, counts)
    print("pipeline draws", dict(zip(ms, counts)), "exponent", round(slope, 3))
    assert math.isclose(slope, 1.0, abs_tol=0.02)


def _dense_graph(n: int):
    import networkx as nx

    g = nx.gnp_random_graph(n, 0.5, seed=n)
    for v in range(1, n):  # a path keeps it connected
        g.add_edge(v - 1, v)
    return g


# ---- measured CPU time of the whole algorithm ----------------------------------------------------------------

TIMED_EDGES = (8_000, 16_000, 32_000, 64_000, 128_000)
#: the paper's order over the sweep: O(m l) + O(m log m log(m / Delta)) at fixed l and Delta -> m ln(m)^2
PAPER_EXPONENT = claimed_exponent(TIMED_EDGES, lambda m: m * math.log(m) ** 2)
#: allowance above the paper's order for the memory hierarchy (see the module docstring)
MARGIN = 0.15


@pytest.fixture(scope="module")
def timed_graphs():
    """Connected G(n, p), n = m / 10, average degree 20, integer weights 1..15 (fixed seeds)."""
    out = {}
    for m in TIMED_EDGES:
        n = m // 10
        g = connected_gnp_graph(n, 2.0 * m / (n * (n - 1)), np.random.default_rng([61, m]))
        out[m] = (g, np.random.default_rng([61, m, 1]).integers(1, 16, size=g.m))
    return out


def _pipeline(graphs):
    def run(m, seed):
        g, w = graphs[m]
        dp_random_spanning_tree(g, w, k=16, epsilon0=4.0, rng=seed)

    return run


def _mechanism(graphs):
    def run(m, seed):
        g, w = graphs[m]
        DPRandomSpanningTree(g, k=16, epsilon0=4.0).sample(w, 1, rng=seed)

    return run


@pytest.mark.parametrize("entry", [_pipeline, _mechanism], ids=["dp_random_spanning_tree", "mechanism_sample"])
def test_whole_algorithm_cpu_time_grows_no_faster_than_the_paper_order(entry, timed_graphs, suite_alpha, thorough):
    """The lower confidence bound on the median CPU-time exponent in m stays at or below the paper's order + MARGIN.

    Detects an O(m^2) step anywhere in the algorithm (see the module docstring for the size it needs and the
    mutants tried); about 1.5 s per entry point on an idle machine.
    """
    fit = fit_growth_exponent(
        entry(timed_graphs), TIMED_EDGES, rounds=40 if thorough else 20, alpha=suite_alpha, call_limit=0.5, seed=62
    )
    print(entry.__name__, fit.summary(), "paper", round(PAPER_EXPONENT, 3))
    assert fit.abandoned is None, fit.summary()
    assert fit.lower <= PAPER_EXPONENT + MARGIN, fit.summary()


def test_paper_exponent_over_the_sweep():
    """m ln(m)^2 over m = 8e3 to 1.28e5 fits exponent 1 + about 2 / ln(m): 1.194."""
    assert PAPER_EXPONENT == pytest.approx(1.1938, abs=1e-4)


def test_round_slopes_recover_power_laws_exactly():
    sizes = np.array(TIMED_EDGES, dtype=float)
    table = np.stack([3.0 * sizes, 1e-9 * sizes**2, 5.0 * sizes**1.5])
    assert round_slopes(sizes, table) == pytest.approx([1.0, 2.0, 1.5], rel=1e-12)
    with pytest.raises(AlgorithmInputError, match="positive"):
        round_slopes(sizes, [[1.0, 0.0, 1.0, 1.0, 1.0]])


def test_median_interval_is_the_sign_test_order_statistic():
    """2^-20 <= 1e-6 < 21 * 2^-20: with 20 values at 1e-6 the bounds are the extremes; with 30, the third
    (P[Bin(30, 1/2) <= 2] = 4.3e-7 <= 1e-6 < P[<= 3]); with 19 values no bound exists at 1e-6."""
    values = np.arange(30.0)
    assert median_interval(values[:20], 1e-6) == (0.0, 19.0)
    assert median_interval(values, 1e-6) == (2.0, 27.0)
    with pytest.raises(AlgorithmInputError, match="2\\^-r"):
        median_interval(values[:19], 1e-6)


def test_median_interval_covers_at_its_stated_rate():
    """Coverage of the lower bound at alpha = 0.05 over 4 000 sets of 30 skewed values: the miss rate is
    P[Bin(30, 1/2) <= j - 1] for the j chosen (0.049), within 5 standard errors."""
    rng = np.random.default_rng(63)
    draws = rng.lognormal(0.0, 1.0, size=(4_000, 30))  # median 1
    lower = np.array([median_interval(row, 0.05)[0] for row in draws])
    j = 11  # P[Bin(30, 1/2) <= 10] = 0.0494 <= 0.05 < P[<= 11] = 0.100
    expected = float(np.sum([math.comb(30, i) for i in range(j)]) / 2**30)
    miss = float(np.mean(lower > 1.0))
    assert abs(miss - expected) < 5 * math.sqrt(expected * (1 - expected) / draws.shape[0]), (miss, expected)


def test_growth_table_fit_and_abandoned_fit():
    """The table fit's exponent is the median round slope; a call over the limit abandons the fit at once."""
    sizes = (10, 20, 40)
    table = np.array([[1.0, 2.0, 4.0]] * 19 + [[1.0, 4.0, 16.0]])
    fit = growth_exponent_from_table(sizes, table, 1e-6)
    assert (fit.exponent, fit.lower, fit.upper) == pytest.approx((1.0, 1.0, 2.0))
    calls = []

    def run(size, seed):
        calls.append(size)
        sum(range(size * 20_000))

    slow = fit_growth_exponent(run, sizes, alpha=1e-6, call_limit=1e-3)
    assert slow.abandoned is not None and "size 10" in slow.abandoned and calls == [10, 10]  # compile, warm-up
