"""Bit decomposition, randomized response per bit and reconstruction (DP-RST 2025, Sections 4.1-4.3, Lemma 5.2)."""

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats

import dpverify
from algorithms.errors import InvalidPrivacyParameterError, InvalidWeightsError
from algorithms.random_trees import bits


@st.composite
def bound_and_weight(draw, max_bits: int = 12):
    k = draw(st.integers(2, 2**max_bits))
    w = draw(st.integers(1, k - 1))
    return k, w


eps_values = st.floats(0.01, 20.0, allow_nan=False)


@given(k=st.integers(2, 2**60))
@example(k=2)
@example(k=3)
@example(k=4)
@example(k=5)
@example(k=2**40)
@example(k=2**40 + 1)
def test_bit_count_is_ceil_log2(k):
    l = bits.bit_count(k)
    assert 2 ** (l - 1) < k <= 2**l  # the definition of ceil(log2 k), in integers


@given(bound_and_weight())
@example((2, 1))
@example((8, 7))
@example((9, 8))
def test_decompose_then_reconstruct_is_identity(kw):
    k, w = kw
    l = bits.bit_count(k)
    b = bits.decompose_bits([w], l)
    assert b.shape == (1, l) and set(np.unique(b)) <= {0, 1}
    assert bits.reconstruct_weights(b)[0] == w


@given(bound_and_weight(max_bits=8), eps_values)
@example((2, 1), 1.0)
@example((8, 3), 0.5)
def test_lemma_5_2_exact_reconstruction_probability(kw, epsilon0):
    """Lemma 5.2 exactly: P[w~ = w] = t^l, and the pmf is a distribution on 0..2^l-1.

    Detects: a false Lemma 5.2 (e.g. t^(l + 1), mutant claims-lemma52-formula) or a noisy-weight pmf that is not
    a distribution.
    """
    k, w = kw
    pmf = bits.noisy_weight_pmf(w, k, epsilon0)
    t = bits.keep_probability(epsilon0)
    l = bits.bit_count(k)
    assert pmf.shape == (2**l,)
    assert math.isclose(pmf.sum(), 1.0, rel_tol=1e-12)
    assert math.isclose(pmf[w], t**l, rel_tol=1e-12)
    assert math.isclose(bits.probability_exact_reconstruction(k, epsilon0), t**l, rel_tol=1e-12)
    # the most likely output is w itself (t > 1/2)
    assert int(np.argmax(pmf)) == w


def test_randomized_response_keeps_each_bit_with_probability_t(suite_alpha):
    """Each bit is kept with probability t = e^epsilon0/(e^epsilon0+1): two-sided binomial test per bit.

    Under correct code the family of 3 tests falsely fails with probability <= 3e-6.
    Power: with 200,000 draws per bit the standard error of the keep rate is ~0.001,
    so a wrong rate such as 1/(1+e^-epsilon0/2) (0.5622 vs 0.6225 at epsilon0=0.5) is rejected
    with probability ~1.
    """
    epsilon0 = 0.5
    t = bits.keep_probability(epsilon0)
    noisy = bits.perturb_weights_batch([3], 8, epsilon0, 200_000, rng=101)[:, 0]
    kept = bits.decompose_bits(noisy, 3) == bits.decompose_bits([3], 3)[0]
    for i in range(3):
        pvalue = stats.binomtest(int(kept[:, i].sum()), kept.shape[0], t).pvalue
        assert pvalue > suite_alpha / 3


def test_noisy_weight_sampler_matches_exact_pmf(suite_alpha):
    """Goodness of fit of sampled noisy weights to the exact pmf t^(l-h) (1-t)^h (k = 8, w = 3).

    False alarm <= suite_alpha. Power: the bug "flip with probability t" gives the
    pmf of the complement pattern, and even the mild bug "epsilon0/2 per bit" has
    power ~1 at 100,000 samples (dpverify.chi_square_power, asserted below).
    """
    k, w, epsilon0 = 8, 3, 0.5
    pmf = bits.noisy_weight_pmf_dict(w, k, epsilon0)
    mild_bug = bits.noisy_weight_pmf_dict(w, k, epsilon0 / 2)
    assert dpverify.chi_square_power(pmf, mild_bug, 100_000, suite_alpha) > 0.999

    class Sampler:
        def __call__(self, rng):
            return int(bits.perturb_weights([w], k, epsilon0, rng)[0])

        def sample(self, size, rng):
            return bits.perturb_weights_batch([w], k, epsilon0, size, rng)[:, 0].tolist()

    result = dpverify.goodness_of_fit(Sampler(), pmf, n_samples=100_000, seed=102)
    assert result.pvalue > suite_alpha


def test_edges_are_perturbed_independently(suite_alpha):
    """The joint law of two edges' noisy weights is the product of the exact pmfs (k = 4).

    False alarm <= suite_alpha. Power: sharing the flips between edges (one mask
    for all edges) puts mass 0 on most of the 16 pairs and is rejected outright.
    """
    k, epsilon0, w = 4, 0.7, (1, 2)
    p0, p1 = (bits.noisy_weight_pmf_dict(x, k, epsilon0) for x in w)
    joint = {(a, b): p0[a] * p1[b] for a in p0 for b in p1}

    class Sampler:
        def __call__(self, rng):
            return tuple(int(x) for x in bits.perturb_weights(w, k, epsilon0, rng))

        def sample(self, size, rng):
            return [tuple(r) for r in bits.perturb_weights_batch(w, k, epsilon0, size, rng).tolist()]

    assert dpverify.goodness_of_fit(Sampler(), joint, n_samples=100_000, seed=103).pvalue > suite_alpha


@given(bound_and_weight(max_bits=6), st.integers(0, 2**32 - 1))
def test_noisy_weights_are_l_bit_integers_and_seeded(kw, seed):
    k, w = kw
    a = bits.perturb_weights_batch([w, 1], k, 1.0, 50, rng=seed)
    b = bits.perturb_weights_batch([w, 1], k, 1.0, 50, rng=seed)
    assert a.dtype == np.int64 and a.shape == (50, 2)
    assert a.min() >= 0 and a.max() < 2 ** bits.bit_count(k)
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "weights, k",
    [
        ([1.5, 2], 4),  # non-integer
        ([-1, 2], 4),  # negative
        ([0, 2], 4),  # zero is outside 0 < w < k
        ([4, 2], 4),  # w >= k
        ([np.nan, 2], 4),
        ([np.inf, 2], 4),
        ([[1, 2]], 4),  # not 1-D
        (["a", "b"], 4),
        ([True, True], 4),
    ],
)
def test_bad_weights_are_rejected(weights, k):
    with pytest.raises(InvalidWeightsError, match="0 < w < k|1-D|integers"):
        bits.perturb_weights(weights, k, 1.0, rng=0)


@pytest.mark.parametrize("k", [1, 0, -3, 2.5, "4", True, None])
def test_bad_bound_is_rejected(k):
    with pytest.raises(InvalidWeightsError, match="k must be an integer >= 2"):
        bits.bit_count(k)


@pytest.mark.parametrize("epsilon0", [0.0, -1.0, float("nan"), float("inf"), "1", None, True])
def test_bad_eps0_is_rejected(epsilon0):
    with pytest.raises(InvalidPrivacyParameterError, match="epsilon0 must be a finite real number > 0"):
        bits.perturb_weights([1], 4, epsilon0, rng=0)


# epsilon0 and k where no usual wrong formula coincides with the right one (epsilon0 = 0.5 makes
# 2 epsilon0^2 = epsilon0; powers of two make ceil(log2 k) and floor(log2 k) + 1 differ)
CALIBRATION_CASES = [(5, 2, 0.3), (16, 9, 1.3), (9, 4, 3.0)]  # (k, w, epsilon0)


def _stated_pmf(w, k, epsilon0):
    """P[w~ = y] = t^(l-h) (1-t)^h, t = e^epsilon0/(e^epsilon0+1), l = ceil(log2 k): written out from
    DP-RST (Definition 3.10, Algorithm 4), independently of the module's helpers."""
    l = math.ceil(math.log2(k))
    t = math.exp(epsilon0) / (math.exp(epsilon0) + 1)
    return {y: t ** (l - bin(w ^ y).count("1")) * (1 - t) ** bin(w ^ y).count("1") for y in range(2**l)}


@pytest.mark.parametrize("k, w, epsilon0", CALIBRATION_CASES)
def test_noisy_weights_follow_the_stated_law_at_several_eps0(k, w, epsilon0, suite_alpha):
    """Bit randomized response at three (k, epsilon0), batched and single-draw samplers, against the
    law written out in the test. 3 x 2 tests at suite_alpha / 6 each (false alarm <= 1e-6).
    Power against the keep probability of 1.5 epsilon0 or epsilon0 / 1.5 (asserted from the exact pmfs)
    and against a wrong bit count (mass outside the support: p-value 0)."""
    pmf = _stated_pmf(w, k, epsilon0)
    assert bits.noisy_weight_pmf_dict(w, k, epsilon0) == pytest.approx(pmf, rel=1e-12)
    n = 20_000
    for r in (1.5, 1 / 1.5):
        assert dpverify.chi_square_power(pmf, _stated_pmf(w, k, r * epsilon0), n, suite_alpha / 6) > 0.999

    class Batched:
        def __call__(self, rng):
            return int(bits.perturb_weights([w], k, epsilon0, rng)[0])

        def sample(self, size, rng):
            return bits.perturb_weights_batch([w], k, epsilon0, size, rng)[:, 0].tolist()

    def single(rng):
        noisy_bits = bits.randomized_response_bits(bits.decompose_bits([w], bits.bit_count(k)), epsilon0, rng)
        return int(bits.reconstruct_weights(noisy_bits)[0])

    seed = int(epsilon0 * 100) + k
    assert dpverify.goodness_of_fit(Batched(), pmf, n_samples=n, seed=seed).pvalue > suite_alpha / 6
    assert dpverify.goodness_of_fit(single, pmf, n_samples=n, seed=seed + 1).pvalue > suite_alpha / 6


@pytest.mark.parametrize("epsilon0", [20.0, 30.0, 40.0, 700.0])
def test_noisy_weight_pmf_is_accurate_for_large_epsilon0(epsilon0):
    """P[w~ = y] = t^(l - h) (1 - t)^h against 50-digit arithmetic, where t is within 1e-13 of 1 or rounds to 1.

    Detects: forming 1 - t from t (0.1% off at epsilon0 = 30, a math domain error from 37 on)."""
    import mpmath

    with mpmath.workdps(50):
        t = 1 / (1 + mpmath.exp(-mpmath.mpf(epsilon0)))
        pmf = bits.noisy_weight_pmf(5, 8, epsilon0)
        for y, p in enumerate(pmf):
            h = bin(5 ^ y).count("1")
            exact = t ** (3 - h) * (1 / (1 + mpmath.exp(mpmath.mpf(epsilon0)))) ** h  # 1 - t, formed exactly
            assert float(p) == pytest.approx(float(exact), rel=1e-12, abs=0.0)
