"""The oracle bound (dpverify.audits.oracle) and the exact pmfs the oracle benchmark relies on.

Deterministic invariants run under Hypothesis: the oracle equals brute force
over every event of small output spaces, never exceeds the exact loss, and
grows with the number of certification samples. The samplers added for the
benchmark are checked against their exact pmfs by chi-square goodness of fit
with fixed seeds at SUITE_ALPHA.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from dpverify.audits.exact import exact_privacy_loss
from dpverify.audits.oracle import oracle_epsilon_bound
from dpverify.errors import InvalidDistributionError, InvalidParameterError
from dpverify.mechanisms import NoisyMaxValue, SparseVector, SparseVectorNoQueryNoise, interleaved_pair
from dpverify.mechanisms.counter import GeometricBinaryCounter
from dpverify.mechanisms.histogram import GeometricHistogram
from dpverify.mechanisms.sparse_vector import SparseVectorLeeClifton, SparseVectorNoCutoff, sparse_vector_pmf
from dpverify.support.bounds import clopper_pearson_epsilon_bound, clopper_pearson_lower

SUITE_ALPHA = 1e-6


def _pmf(weights):
    w = np.asarray(weights, dtype=float)
    return {i: float(v) for i, v in enumerate(w / w.sum())}


# masses with zeros (outputs impossible under one input) and very uneven sizes
pairs = st.integers(2, 6).flatmap(
    lambda k: st.tuples(
        st.lists(st.one_of(st.just(0.0), st.floats(1e-4, 1.0)), min_size=k, max_size=k).filter(lambda w: sum(w) > 0),
        st.lists(st.one_of(st.just(0.0), st.floats(1e-4, 1.0)), min_size=k, max_size=k).filter(lambda w: sum(w) > 0),
    )
)
sizes = st.sampled_from([5, 37, 1000, 10**5, 10**7])


def _brute_force(p, q, n, alpha, delta):
    """Max of the bound over all 2^k - 1 non-empty events, both directions."""
    keys = list(p)
    members = np.array(list(itertools.product([0, 1], repeat=len(keys)))[1:], dtype=float)
    ps = members @ np.array([p[k] for k in keys])
    qs = members @ np.array([q[k] for k in keys])
    forward = clopper_pearson_epsilon_bound(n * ps, n, n * qs, n, alpha, delta)
    backward = clopper_pearson_epsilon_bound(n * qs, n, n * ps, n, alpha, delta)
    return float(max(forward.max(), backward.max()))


@given(pairs, sizes, st.sampled_from([0.0, 0.02]), st.sampled_from([0.05, 1e-3]))
def test_equals_brute_force_over_all_events(pair, n, delta, alpha):
    p, q = _pmf(pair[0]), _pmf(pair[1])
    best = oracle_epsilon_bound(p, q, n, alpha=alpha, delta=delta)
    assert best.epsilon_lower_bound == pytest.approx(_brute_force(p, q, n, alpha, delta), abs=1e-12, rel=1e-12)
    # the reported event and probabilities are the ones that attain the bound
    assert best.probability_x == pytest.approx(sum(p[o] for o in best.event), abs=1e-12)
    assert best.probability_x_prime == pytest.approx(sum(q[o] for o in best.event), abs=1e-12)
    a, b = best.probability_x, best.probability_x_prime
    if best.direction == "x_prime":
        a, b = b, a
    again = float(clopper_pearson_epsilon_bound(n * a, n, n * b, n, alpha, delta))
    assert best.epsilon_lower_bound == pytest.approx(again, abs=1e-12)


@given(pairs, sizes)
def test_never_exceeds_the_exact_loss(pair, n):
    p, q = _pmf(pair[0]), _pmf(pair[1])
    best = oracle_epsilon_bound(p, q, n)
    assert best.epsilon_lower_bound <= exact_privacy_loss(p, q).epsilon
    assert best.epsilon_lower_bound >= 0.0


@given(pairs, st.sampled_from([0.0, 0.02]))
def test_monotone_in_the_number_of_samples(pair, delta):
    p, q = _pmf(pair[0]), _pmf(pair[1])
    values = [
        oracle_epsilon_bound(p, q, n, delta=delta).epsilon_lower_bound
        for n in (3, 10, 31, 100, 1000, 10**4, 10**6, 10**8)
    ]
    assert all(b >= a - 1e-12 for a, b in zip(values, values[1:])), values


def test_randomized_response_picks_one_output():
    keep = math.exp(1.0) / (1 + math.exp(1.0))
    best = oracle_epsilon_bound({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep}, 10**5, alpha=0.05)
    expected = float(clopper_pearson_epsilon_bound(1e5 * keep, 10**5, 1e5 * (1 - keep), 10**5, 0.05))
    assert len(best.event) == 1
    assert best.epsilon_lower_bound == pytest.approx(expected, rel=1e-12)
    assert 0.95 < best.epsilon_lower_bound < 1.0


def test_impossible_outputs_give_the_support_bound():
    """Sparse vector without query noise: the outputs impossible under the other input form the best event."""
    x, xp = interleaved_pair(10)
    mech = SparseVectorNoQueryNoise(0.1, threshold=4.0)
    p, q = mech.pmf(x), mech.pmf(xp)
    n, alpha = 10**6, 0.05
    best = oracle_epsilon_bound(p, q, n, alpha=alpha)
    a, b = (p, q) if best.direction == "x" else (q, p)
    impossible = {o for o in a if a[o] > 0 and b.get(o, 0.0) == 0}
    assert len(impossible) >= 4 and best.event == impossible
    mass = sum(a[o] for o in impossible)
    assert mass > 0.2
    expected = math.log(float(clopper_pearson_lower(n * mass, n, alpha)) / (1 - (alpha / 2) ** (1 / n)))
    assert best.epsilon_lower_bound == pytest.approx(expected, rel=1e-9)
    # either direction's impossible set is a candidate: the other one is no better
    other = {o for o in b if b[o] > 0 and a.get(o, 0.0) == 0}
    assert sum(b[o] for o in other) <= mass


def test_simulated_bounds_center_on_the_oracle():
    keep = math.exp(0.5) / (1 + math.exp(0.5))
    best = oracle_epsilon_bound({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep}, 10**6)
    draws = best.simulated_bounds(201, seed=3)
    # the draws' spread is about 2 * sqrt(2 / (n p)) ~ 0.004: their median is within 0.002 of the oracle
    assert abs(np.median(draws) - best.epsilon_lower_bound) < 0.002
    # each draw exceeds the true loss with probability <= alpha = 0.05 (Clopper-Pearson coverage)
    above = int(np.sum(draws > 0.5))
    assert above <= stats.binom.isf(SUITE_ALPHA, len(draws), 0.05)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True])
def test_rejects_bad_sample_sizes(bad):
    with pytest.raises(InvalidParameterError):
        oracle_epsilon_bound({0: 1.0}, {1: 1.0}, bad)


def test_rejects_bad_alpha_delta_and_pmfs():
    with pytest.raises(InvalidParameterError):
        oracle_epsilon_bound({0: 1.0}, {1: 1.0}, 10, alpha=1.5)
    with pytest.raises(InvalidParameterError):
        oracle_epsilon_bound({0: 1.0}, {1: 1.0}, 10, delta=1.0)
    with pytest.raises(InvalidDistributionError):
        oracle_epsilon_bound({0: 0.5}, {1: 1.0}, 10)


# ----------------------------------------------------------------------------
# exact pmfs of the benchmark's mechanisms against their samplers
# ----------------------------------------------------------------------------


def _goodness_of_fit_pvalue(samples, pmf):
    """Chi-square of sampled outputs against a pmf; cells with expected count < 5 pooled."""
    values, counts = np.unique(np.asarray(samples), return_counts=True)
    observed = dict(zip(values.tolist(), counts.tolist()))
    assert set(observed) <= {o for o, m in pmf.items() if m > 0}, "sampled an output of probability 0"
    n = len(samples)
    keys = sorted(pmf, key=lambda o: pmf[o])
    expected = np.array([n * pmf[o] for o in keys])
    obs = np.array([observed.get(o, 0) for o in keys], dtype=float)
    small = np.cumsum(expected) < 5  # pool the rarest outputs into one cell
    cells_e = np.concatenate([[expected[small].sum()], expected[~small]]) if small.any() else expected
    cells_o = np.concatenate([[obs[small].sum()], obs[~small]]) if small.any() else obs
    return stats.chisquare(cells_o, cells_e * cells_o.sum() / cells_e.sum()).pvalue


SVT_PAIR = ((0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,))


@pytest.mark.parametrize(
    "mechanism", [SparseVectorLeeClifton(0.5, cutoff=2), SparseVectorNoCutoff(0.5)], ids=["alg4-c2", "alg6"]
)
def test_sparse_vector_samplers_match_their_pmfs(mechanism):
    rng = np.random.default_rng(11)
    for data in SVT_PAIR:
        assert _goodness_of_fit_pvalue(mechanism.sample(data, 200_000, rng), mechanism.pmf(data)) > SUITE_ALPHA


def test_quadrature_pmf_agrees_with_the_adaptive_one():
    mech = SparseVector(0.3, threshold=0.5)
    data = (0.0, 2.0, 1.0)
    adaptive = mech.pmf(data)
    quadrature = sparse_vector_pmf(data, mech.threshold, mech.threshold_scale, mech.query_scale, cutoff=1)
    assert set(adaptive) == set(quadrature)
    for key, value in adaptive.items():
        assert quadrature[key] == pytest.approx(value, rel=1e-9)


def test_sparse_vector_alg4_loss_attains_its_proven_bound_at_cutoff_one():
    """Lyu et al. prove ((1 + 6c)/4) eps for Alg. 4; at c = 1 the zoo pair attains 7/4 eps (to 1e-3)."""
    eps = SparseVectorLeeClifton(0.1).pair_epsilon(*SVT_PAIR)
    assert eps == pytest.approx(0.175, rel=1e-3)


def test_sparse_vector_without_query_noise_matches_its_pmf():
    x, _ = interleaved_pair(10)
    mech = SparseVectorNoQueryNoise(0.5, threshold=4.0)
    samples = mech.sample(x, 100_000, np.random.default_rng(12))
    assert _goodness_of_fit_pvalue(samples, mech.pmf(x)) > SUITE_ALPHA


def test_geometric_histogram_coordinate_matches_its_pmf():
    mech = GeometricHistogram(0.5)
    x, xp = (3, 1, 1), (3, 2, 1)
    pmf_x, pmf_xp = mech.coordinate_pmfs(x, xp)
    assert sum(pmf_x.values()) == pytest.approx(1.0) and set(pmf_x) == set(pmf_xp)
    assert exact_privacy_loss(pmf_x, pmf_xp).epsilon == pytest.approx(0.5, rel=1e-9)
    rng = np.random.default_rng(13)
    assert _goodness_of_fit_pvalue(mech.sample(x, 100_000, rng)[:, 1], pmf_x) > SUITE_ALPHA
    assert _goodness_of_fit_pvalue(mech.sample(xp, 100_000, rng)[:, 1], pmf_xp) > SUITE_ALPHA


def test_binary_counter_statistic_matches_its_pmf():
    """K = number of nodes holding item 1 whose noise is >= 1 (under x, x_1 = 0), read back from the outputs."""
    T = 8
    mech = GeometricBinaryCounter(1.0)
    x, xp = (0,) * T, (1,) + (0,) * (T - 1)
    pmf_x, pmf_xp = mech.statistic_pmfs(x, xp)
    assert mech.pair_epsilon(x, xp) == pytest.approx(1.0, rel=1e-9)
    rng = np.random.default_rng(14)
    for data, pmf in ((x, pmf_x), (xp, pmf_xp)):
        out = mech.sample(data, 100_000, rng)
        prev = np.concatenate([np.zeros((len(out), 1), dtype=out.dtype), out], axis=1)
        ends = np.array([1, 2, 4, 8])  # the nodes containing item 1
        nodes = out[:, ends - 1] - prev[:, ends - (ends & -ends)]
        k = (nodes >= 1).sum(axis=1)  # true node sums are 0 under x; under x' node - 1 >= 0 is the same event
        assert _goodness_of_fit_pvalue(k, pmf) > SUITE_ALPHA


@pytest.mark.parametrize("noise", ["laplace", "exponential"])
def test_noisy_max_value_pmf_matches_its_sampler(noise):
    mech = NoisyMaxValue(0.5, noise)
    data = (1.0, 1.0, 2.0)
    pmf = mech.pmf(data)
    assert sum(pmf.values()) == pytest.approx(1.0)
    samples = mech.sample(data, 100_000, np.random.default_rng(15))
    # compare on 40 cells between sample quantiles (the grid has ~10^4 points)
    edges = np.quantile(samples, np.linspace(0, 1, 41)[1:-1])
    cells = np.searchsorted(edges, samples, side="right")
    keys = np.array(list(pmf))
    cell_of_key = np.searchsorted(edges, keys, side="right")
    cell_pmf = {}
    for c, m in zip(cell_of_key.tolist(), pmf.values()):
        cell_pmf[c] = cell_pmf.get(c, 0.0) + m
    assert _goodness_of_fit_pvalue(cells, cell_pmf) > SUITE_ALPHA
