"""DP-RST 2025, Section 6 (Lemma 6.1): the bit-level randomized response is O(m l), as a fitted exponent of
counted operations.

The benchmark (``benchmarks/random_trees.py``, ``Section6GrowthExponents``) fits wall time, whose exponent in m
(1.39) measures memory traffic, not the algorithm. Here the operations are counted: every random number the
perturbation draws (one Bernoulli per edge-bit, Algorithm 4 lines 5-8), through a generator that counts what it
is asked for, on the public entry points (``perturb_weights``, one draw and batched, and the whole pipeline
``dp_random_spanning_tree``, whose sampler takes one seed from the same generator). The least-squares slope of
ln(count) on ln(m) at k = 16, and on ln(l) at m = 2,000, is compared with the paper's bound O(m l): exponent 1
in each. Deterministic (counts do not depend on the seed), no false alarm.

Detects: a perturbation whose work grows faster than m l (tried: drawing min(m, 64) Bernoullis per edge-bit and
keeping one fails the count), or one that does not draw a fresh Bernoulli for every edge-bit (a count other than
m l). It cannot see work that draws no random numbers (a quadratic loop over the edges): the count is of draws.

References
----------
Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript, 2025. Algorithm 4,
Lemma 6.1.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from algorithms.random_trees import bits, dp_random_spanning_tree
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
    return float(np.polyfit(np.log(np.asarray(x, float)), np.log(np.asarray(y, float)), 1)[0])


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
