"""PAMST keeps its law at any weight scale (Pinot 2018, "Minimum spanning tree release under
differential privacy constraints"; the baseline of Pagh, Retschmeier, Wu and Zhang 2025).

Both samplers of :mod:`algorithms.mst.pamst` must draw each step proportionally to
``exp(-epsilon0 w_e / (2D))`` over the cut, also when ``epsilon0 * |w| / (2D)`` is huge. The exponential
clocks formerly used by ``pamst_fast`` rounded new clocks onto the current time once the log
weights spanned about +-20, so ties were broken by edge index (a deterministic tree where the law
is uniform) and at ``|w| = 1e17`` an edge that is always chosen went missing. ``pamst_naive``
added O(1) Gumbel noise to log weights of size 1e16, where it is rounded away.

Every assertion is a test at level alpha <= 1e-6 with a fixed seed. Power: each law checked here
is far from the broken one (a point mass on one tree where the truth gives it 1/2, or an edge
missing from most trees), which these sample sizes detect with probability 1 - 1e-100 or more.
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.errors import InvalidWeightsError
from algorithms.mst.exact import exact_pamst_distribution
from algorithms.mst.pamst import pamst_fast, pamst_fast_batch, pamst_naive

ALPHA = 1e-6
N = 3000


def _trees(sampler, graph, epsilon0, seed):
    if sampler == "fast":
        return [tuple(r) for r in pamst_fast_batch(graph, epsilon0, N, np.random.default_rng(seed)).tolist()]
    rng = np.random.default_rng(seed)
    return [tuple(pamst_naive(graph, epsilon0, rng).tolist()) for _ in range(N)]


def _assert_fits(trees, law):
    """Chi-square goodness of fit at level ALPHA; trees outside the support fail at once."""
    outside = set(trees) - set(law)
    assert not outside, f"trees of probability 0 were drawn: {sorted(outside)[:5]}"
    keys = sorted(law)
    observed = np.array([sum(t == k for t in trees) for k in keys], dtype=float)
    expected = np.array([law[k] for k in keys]) * len(trees)
    p = stats.chisquare(observed, expected).pvalue
    assert p > ALPHA, f"observed {dict(zip(keys, observed))}, expected {dict(zip(keys, expected))}, p = {p:.2e}"


# A forced heavy edge 0-1, then a triangle 1-2-3 of equal light edges: after edge 0, each of the two
# remaining steps is a fair choice, so P = 1/2, 1/4, 1/4 whatever the scale W.
@pytest.mark.parametrize("sampler", ["fast", "naive"])
@pytest.mark.parametrize("scale", [1.0, 40.0, 1e3, 1e15, 1e17])
def test_ties_after_a_forced_heavy_edge_stay_fair(sampler, scale):
    graph = (4, [[0, 1], [1, 2], [1, 3], [2, 3]], [scale, -scale, -scale, -scale])
    law = {(0, 1, 2): 0.5, (0, 1, 3): 0.25, (0, 2, 3): 0.25}
    _assert_fits(_trees(sampler, graph, 1.0, 11), law)


# Mixed signs: edge 2 (weight -W) is taken as soon as it enters the cut and edge 4 (W/2) always beats
# edge 3 (W) once W is large; the first step is a fair choice between edges 0 and 1.
@pytest.mark.parametrize("sampler", ["fast", "naive"])
@pytest.mark.parametrize("scale", [1e3, 1e15, 1e17])
def test_an_edge_that_must_be_chosen_always_is(sampler, scale):
    graph = (4, [[0, 1], [0, 2], [1, 2], [2, 3], [1, 3]], [scale, scale, -scale, scale, scale / 2])
    _assert_fits(_trees(sampler, graph, 1.0, 5), {(0, 2, 4): 0.5, (1, 2, 4): 0.5})


@pytest.mark.parametrize("sampler", ["fast", "naive"])
def test_exact_law_with_log_weights_spanning_plus_minus_30(sampler):
    # K4 with weights in [-60, 60] at epsilon0 = 1: step probabilities from 1 down to about e^-60.
    # The exact law is computed by logsumexp per step (accurate at this scale); categories
    # expected below 5 are pooled.
    rng = np.random.default_rng(2024)
    edges = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]
    weights = rng.uniform(-60, 60, size=6).round(1)
    graph = (4, edges, weights)
    law = exact_pamst_distribution(graph, 1.0)
    assert math.isclose(sum(law.values()), 1.0, rel_tol=1e-9)
    trees = _trees(sampler, graph, 1.0, 3)
    big = {k: p for k, p in law.items() if p * N >= 5}
    pooled = {k: p for k, p in law.items() if k not in big}
    mapped = [t if t in big else ("rest" if t in pooled else t) for t in trees]
    target = dict(big)
    if pooled:
        target["rest"] = sum(pooled.values())
    outside = set(mapped) - set(target)
    assert not outside
    keys = list(target)
    observed = np.array([sum(t == k for t in mapped) for k in keys], dtype=float)
    expected = np.array([target[k] for k in keys]) * N
    if len(keys) > 1:
        assert stats.chisquare(observed, expected).pvalue > ALPHA


@pytest.mark.parametrize("fn", [pamst_fast, pamst_naive])
def test_infinite_log_weights_are_refused_by_name(fn):
    # epsilon0 * |w| / (2D) = 1e10 * 1e300 / 2 overflows to inf: no law is defined, so refuse.
    graph = (3, [[0, 1], [1, 2], [0, 2]], [1e300, -1e300, 1.0])
    with pytest.raises(InvalidWeightsError, match="finite log sampling weights"):
        fn(graph, 1e10, 0)
