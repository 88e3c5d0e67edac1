"""The mechanism zoo (dpverify.mechanisms): exact facts, samplers vs exact pmfs, audits at the claim.

CI sizes. Every audit uses alpha = suite_alpha (1e-6):

- correct entries: "no violation" has false-alarm probability <= 1e-6 each;
- broken entries: sample sizes chosen so the expected certified bound is at
  least ~1.8x the claim at alpha = 1e-6 (noisy max value: true 0.25, 1e6
  samples give ~0.17 +- 0.03 > 0.1; histogram with scale eps: true 10, 1e5 give ~8;
  sparse vector without query noise and the textbook float Laplace: events of
  probability 0.18 / 0.087 impossible under x', 2e4 samples give > 4):
  power ~1.

The 1e7-sample table against the published DP-Sniper/StatDP figures is
``benchmarks/audit_zoo.py`` (and ``test_zoo_table_thorough`` under the
thorough profile).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats
from scipy.optimize import brentq

import dpverify
from dpverify.mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    NoisyMaxValue,
    ReportNoisyMax,
    SparseVector,
    SparseVectorNoQueryNoise,
    interleaved_pair,
    zoo_entries,
)
from dpverify.mechanisms.sparse_vector import answers_from_mask, sparse_vector_pmf

ENTRIES = {e.name: e for e in zoo_entries()}
BROKEN_SAMPLES = {
    "BROKEN noisy max returning the value, Laplace": 1_000_000,
    "BROKEN noisy histogram, scale eps instead of 1/eps": 100_000,
}


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name", [n for n, e in ENTRIES.items() if not e.broken])
def test_correct_zoo_entries_keep_their_claim(name, suite_alpha):
    e = ENTRIES[name]
    result = e.audit(n_samples=100_000, alpha=suite_alpha, seed=41)
    assert not result.violation, result.summary()


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name", [n for n, e in ENTRIES.items() if e.broken])
def test_broken_zoo_entries_are_caught(name, suite_alpha):
    e = ENTRIES[name]
    n = BROKEN_SAMPLES.get(name, 20_000)
    result = e.audit(n_samples=n, alpha=suite_alpha, seed=42)
    assert result.violation, result.summary()
    assert result.epsilon_lower_bound <= e.true_epsilon


@pytest.mark.privacy_audit
@pytest.mark.parametrize("noise, expected", [("laplace", 0.0927), ("exponential", 0.1)])
def test_report_noisy_max_exact_loss_on_the_statdp_pair(noise, expected):
    m = ReportNoisyMax(0.1, noise)
    loss = m.pair_epsilon((1.0,) * 5, (2.0, 0.0, 0.0, 0.0, 0.0))
    assert loss <= 0.1 + 1e-9 and loss == pytest.approx(expected, abs=1e-3)


@pytest.mark.privacy_audit
def test_sparse_vector_exact_loss_is_within_the_claim():
    m = SparseVector(0.1)
    loss = m.pair_epsilon((0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,))
    assert 0.09 < loss <= 0.1


@pytest.mark.parametrize(
    "mechanism, data",
    [
        (ReportNoisyMax(0.5, "laplace"), (1.0, 0.0, 2.0)),
        (ReportNoisyMax(0.5, "exponential"), (1.0, 0.0, 2.0)),
        (SparseVector(0.5, threshold=1.0), (0.0, 2.0, 1.0, 3.0)),
    ],
    ids=["rnm-laplace", "rnm-exponential", "svt"],
)
def test_samplers_match_their_exact_pmf(mechanism, data, suite_alpha, at_input):
    """Goodness of fit, 2e5 samples: false alarm <= 1e-6; a sampler off by 0.01 in any cell would be
    detected (chi-square noncentrality ~ 2e5 * 0.01^2 / 0.2 = 100)."""
    result = dpverify.goodness_of_fit(at_input(mechanism, data), mechanism.pmf(data), n_samples=200_000, seed=43)
    assert result.pvalue > suite_alpha


def test_noisy_max_value_lower_tail_has_the_full_ratio():
    """The event {max < 1} has probability (1/2)^5 under (1,..,1) and (e^-0.05 / 2)^5 under (2,..,2)."""
    m = NoisyMaxValue(0.1)
    assert m.true_epsilon((1.0,) * 5, (2.0,) * 5) == pytest.approx(0.25)
    rng = np.random.default_rng(44)
    y = m.sample((1.0,) * 5, 200_000, rng)
    assert abs(np.mean(y < 1.0) - 0.5**5) < 6 * np.sqrt(0.5**5 / 200_000)  # 6 sigma: false alarm < 1e-8


@given(st.integers(2, 40).map(lambda k: 2 * k))
@example(4)
def test_interleaved_pair_is_neighbouring_and_almost_disjoint(n):
    x, x_prime = interleaved_pair(n)
    assert np.all(np.abs(np.subtract(x, x_prime)) == 1)
    thetas = np.arange(-3.0, n + 1.0, 0.25)
    m = SparseVectorNoQueryNoise(1.0)
    under_x = {tuple(np.asarray(x) >= t) for t in thetas}
    under_xp = {tuple(np.asarray(x_prime) >= t) for t in thetas}
    assert under_x & under_xp == {(True,) * n, (False,) * n}
    assert m.threshold_scale == 2.0


@given(st.lists(st.booleans(), min_size=1, max_size=20), st.integers(1, 4))
@example([True, True, False], 1)
def test_mask_and_answers_encode_the_same_sequence(above, cutoff):
    above = np.array([above])
    answered = (np.cumsum(above, axis=1) - above) < cutoff
    from dpverify.mechanisms.sparse_vector import _finish

    mask = int(_finish(above, answered, "mask")[0])
    answers = tuple(int(v) for v in _finish(above, answered, "answers")[0])
    assert answers_from_mask(mask, above.shape[1], cutoff) == answers


@pytest.mark.privacy_audit
def test_zoo_table_thorough(thorough, suite_alpha):
    """Thorough profile only: the 1e7-sample table rows at alpha = 0.1 meet the targets below.

    Broken entries reach >= 95% of the published figure (or exceed both where the true loss is
    infinite); correct entries show no violation. Runs ~10 minutes.
    """
    if not thorough:
        pytest.skip("1e7-sample zoo table runs under the thorough profile (benchmarks/audit_zoo.py)")
    targets = {
        "BROKEN noisy max returning the value, Laplace": 0.95 * 0.2478,
        "BROKEN sparse vector without query noise (Lyu Alg. 5), 60 queries": 14.31,
        "BROKEN noisy histogram, scale eps instead of 1/eps": 4.6,  # DP-Sniper's ceiling ln(1/0.01)
        "BROKEN textbook float Laplace x + numpy.laplace (Mironov)": 4.6,
    }
    for e in zoo_entries():
        r = e.audit(n_samples=10_000_000, alpha=0.1, seed=20240601)
        assert r.violation == e.broken, (e.name, r.summary())
        if e.name in targets:
            assert r.epsilon_lower_bound >= targets[e.name], (e.name, r.epsilon_lower_bound)


@pytest.mark.parametrize("epsilon", [0.1, 0.5, 2.0])
def test_broken_variants_have_the_stated_noise_and_keep_the_false_claim(epsilon):
    """The broken classes differ from the correct ones only in their noise scale (pinned at three
    epsilons, so a formula that agrees only at eps = 1 fails), and claim what the correct ones do."""
    from dpverify.mechanisms.broken import BrokenLaplaceMechanism, BrokenNoisyHistogram
    from dpverify.mechanisms.histogram import NoisyHistogram
    from dpverify.mechanisms.textbook import LaplaceMechanism

    correct, broken = LaplaceMechanism(epsilon, 2.0), BrokenLaplaceMechanism(epsilon, 2.0, noise_multiplier=0.25)
    assert correct.scale == pytest.approx(2.0 / epsilon) and broken.scale == pytest.approx(0.5 / epsilon)
    assert broken.epsilon == correct.epsilon == epsilon
    assert broken.pair_epsilon(0.0, 2.0) == pytest.approx(4 * epsilon)
    assert NoisyHistogram(epsilon).scale == pytest.approx(1 / epsilon)
    assert BrokenNoisyHistogram(epsilon).scale == pytest.approx(epsilon)
    assert BrokenNoisyHistogram(epsilon).true_epsilon([1.0, 0.0], [0.0, 0.0]) == pytest.approx(1 / epsilon)


@pytest.mark.parametrize("multiplier", [0.0, 1.0, 2.0, "0.5"])
def test_broken_laplace_refuses_a_multiplier_that_is_not_broken(multiplier):
    from dpverify.mechanisms.broken import BrokenLaplaceMechanism

    with pytest.raises(dpverify.InvalidParameterError, match="noise_multiplier"):
        BrokenLaplaceMechanism(1.0, noise_multiplier=multiplier)


@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-5), (1.0, 1e-3), (3.0, 1e-6)])
def test_broken_gaussian_scales_the_analytic_sigma(epsilon, delta):
    from dpverify.mechanisms import GaussianMechanism, analytic_gaussian_sigma
    from dpverify.mechanisms.broken import BrokenGaussianMechanism

    sigma = analytic_gaussian_sigma(epsilon, delta, 2.0)
    assert GaussianMechanism(epsilon, delta, 2.0).sigma == pytest.approx(sigma)
    broken = BrokenGaussianMechanism(epsilon, delta, sigma_multiplier=0.6, sensitivity=2.0)
    assert broken.sigma == pytest.approx(0.6 * sigma) and (broken.epsilon, broken.delta) == (epsilon, delta)
    with pytest.raises(dpverify.InvalidParameterError, match="sigma_multiplier"):
        BrokenGaussianMechanism(epsilon, delta, sigma_multiplier=1.0)


def test_float_laplace_releases_raw_doubles_and_the_correct_one_refuses_no_grid():
    from dpverify.mechanisms.broken import FloatLaplaceMechanism
    from dpverify.mechanisms.textbook import LaplaceMechanism

    rng = np.random.default_rng(0)
    raw = FloatLaplaceMechanism(0.5).sample(0.0, 1000, rng)
    assert np.mean(np.round(raw / 2.0**-20) * 2.0**-20 == raw) < 0.01  # not on the snapping grid
    snapped = LaplaceMechanism(0.5).sample(0.0, 1000, rng)
    assert np.all(np.round(snapped / 2.0**-20) * 2.0**-20 == snapped)
    with pytest.raises(dpverify.InvalidParameterError, match="snap"):
        LaplaceMechanism(0.5, snap=None)


@pytest.mark.parametrize("epsilon, delta", [(0.5, 1e-5), (2.0, 1e-3)])
def test_float_gaussian_releases_raw_doubles_at_the_analytic_sigma(epsilon, delta):
    """Detects a float Gaussian that rounds to the grid or clamps (its leak would be hidden), or one whose
    default sigma is not the analytic sigma of its claim (checked at two claims)."""
    from dpverify.mechanisms import FloatGaussianMechanism, GaussianMechanism

    leaky = FloatGaussianMechanism(epsilon, delta, sensitivity=2.0)
    assert leaky.sigma == GaussianMechanism(epsilon, delta, 2.0).sigma
    assert (leaky.epsilon, leaky.delta) == (epsilon, delta)
    raw = leaky.sample(3.0, 1000, np.random.default_rng(0))
    assert np.array_equal(raw, 3.0 + np.random.default_rng(0).normal(scale=leaky.sigma, size=1000))
    assert np.array_equal(leaky.sample(np.zeros(2), 3, np.random.default_rng(1)).shape, (3, 2))
    one = leaky(1e6, np.random.default_rng(2))  # far beyond GaussianMechanism's clamp: kept, a float
    assert isinstance(one, float) and one == 1e6 + np.random.default_rng(2).normal(scale=leaky.sigma)


def _exponential_mechanism_loss(u, u_prime, eps) -> float:
    """Exact loss of the exponential mechanism on a pair, P[i] ~ exp(eps u_i / 2) written out (Dwork and Roth 2014,
    Theorem 3.10; sensitivity 1), not through the mechanism's own probabilities."""

    def log_p(v):
        logits = eps * np.asarray(v, float) / 2.0
        return logits - np.logaddexp.reduce(logits)

    return float(np.max(np.abs(log_p(u) - log_p(u_prime))))


def _sparse_vector_loss(x, x_prime, eps) -> float:
    """Exact loss of Lyu et al. Algorithm 1 (c = 1, T = 0) on a pair, with its scales written out: rho ~ Lap(2/eps),
    nu ~ Lap(4c/eps) (eps1 = eps2 = eps/2), through the exact pmf of the mask."""
    return dpverify.exact_privacy_loss(
        sparse_vector_pmf(x, 0.0, 2.0 / eps, 4.0 / eps, 1), sparse_vector_pmf(x_prime, 0.0, 2.0 / eps, 4.0 / eps, 1)
    ).epsilon


#: (name, mechanism factory, x, x_prime, exact loss, power floor as a share of it, eps values). Measured certified
#: shares at 400,000 samples, seed 7, alpha 1e-6: exponential mechanism 0.90, 0.95, 0.97 at eps = 0.5, 1, 2;
#: sparse vector 0.72, 0.84 at eps = 1, 2.
EXACT_LOSS_CASES = [
    ("exponential", ExponentialMechanism, (1.0, 0.0, 0.0, 0.0, 0.0), (0.0, 1.0, 1.0, 1.0, 1.0)),
    ("sparse-vector", SparseVector, (0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,)),
]
EXACT_LOSS_SETTINGS = [("exponential", 0.5, 0.85), ("exponential", 1.0, 0.85), ("exponential", 2.0, 0.85)]
EXACT_LOSS_SETTINGS += [("sparse-vector", 1.0, 0.6), ("sparse-vector", 2.0, 0.6)]


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name, eps, floor", EXACT_LOSS_SETTINGS)
def test_zoo_mechanisms_hold_their_exact_loss_at_several_eps(name, eps, floor, suite_alpha):
    """The exponential mechanism and sparse vector audited on their zoo pair at their exact loss (written out from
    the paper's scales, so a wrong scale in the mechanism cannot cancel) at eps in {0.5, 1, 2} / {1, 2}, not only at
    the zoo's 0.1, where a factor 2 is within the noise. No violation (false alarm <= suite_alpha each), and the
    certified bound exceeds ``floor`` of the exact loss (measured shares in ``EXACT_LOSS_CASES``'s comment).

    Detects: the exponential mechanism without its factor 2 (loss 2x: violation), or its scale 1.3x off (loss 1.30x:
    violation; 0.77x: below the 0.85 floor); sparse vector's query noise halved, the monotone-query scale used for
    any queries (loss 1.51x and 1.49x at eps = 1, 2: violation; tried). Sparse vector's query noise 1.3x off (loss
    0.875x or 1.15x) is caught at these seeds with a small margin only (tried: x1.3 certifies 0.57 of the exact at
    eps = 1, under the 0.6 floor; / 1.3 is a violation at eps = 2). All the exponential-mechanism lines were tried.
    """
    _, factory, x, x_prime = next(c for c in EXACT_LOSS_CASES if c[0] == name)
    exact = (_exponential_mechanism_loss if name == "exponential" else _sparse_vector_loss)(x, x_prime, eps)
    result = dpverify.audit(factory(eps), x, x_prime, epsilon=exact, n_samples=400_000, alpha=suite_alpha, seed=7)
    print(f"{name} eps={eps}: certified {result.epsilon_lower_bound:.3f} of the exact {exact:.3f}")
    assert not result.violation, result.summary()
    assert result.epsilon_lower_bound > floor * exact


def _balle_wang_delta(eps, sigma) -> float:
    """delta(eps) of x + N(0, sigma^2) at sensitivity 1 (Balle and Wang 2018, Theorem 8), written out."""
    return float(stats.norm.cdf(0.5 / sigma - eps * sigma) - np.exp(eps) * stats.norm.cdf(-0.5 / sigma - eps * sigma))


@pytest.mark.privacy_audit
@pytest.mark.parametrize("claimed_eps", [9.0, 12.0])
def test_gaussian_above_eps_8_holds_its_exact_privacy_profile(claimed_eps, suite_alpha):
    """The analytic Gaussian mechanism calibrated at (eps, 1e-5) with eps = 9 or 12, where a direct audit of delta =
    1e-5 would need ~1e8 samples, audited at another point of its exact privacy profile: sigma* solved here from the
    Balle-Wang delta(eps, sigma) written out (not the package's calibration), then the audit holds the mechanism to
    (1, delta(1, sigma*)) = (1, 0.450) and (1, 0.614) on (0, 1) (100,000 samples). No violation (false alarm <=
    suite_alpha), and the certified delta lower bound exceeds 0.8 of delta(1, sigma*) (measured 0.95, 0.96).

    Detects: a sigma 1.3x off at these eps (e.g. a calibration that is wrong only above eps = 8.4): too small, delta(1)
    is 0.635 / 0.790 (a violation); too large, 0.285 / 0.430 (below the floor; tried, both directions).
    """
    sigma = float(np.exp(brentq(lambda s: _balle_wang_delta(claimed_eps, np.exp(s)) - 1e-5, -20.0, 20.0)))
    probe = _balle_wang_delta(1.0, sigma)
    result = dpverify.audit(
        GaussianMechanism(claimed_eps, 1e-5),
        0.0,
        1.0,
        epsilon=1.0,
        delta=probe,
        n_samples=100_000,
        alpha=suite_alpha,
        seed=8,
    )
    print(
        f"Gaussian at eps={claimed_eps}: certified delta(1) >= {result.delta_lower_bound:.4f} of the exact {probe:.4f}"
    )
    assert not result.violation, result.summary()
    assert result.delta_lower_bound > 0.8 * probe


def test_snapped_laplace_single_call_rounds_as_its_sample():
    """A single call of the snapped Laplace mechanism (its scalar rounding path) gives the double its
    vectorized ``sample`` gives for the same noise, ties to even included. Detects a scalar path that
    rounds half away from zero, or that skips the snap."""
    from dpverify.mechanisms.textbook import LaplaceMechanism

    mechanism = LaplaceMechanism(1.0)
    noise = np.random.default_rng(9).laplace(size=2_000) * 10.0 ** np.arange(-3, 5).repeat(250)
    values = np.concatenate([noise, (np.arange(-8, 9) + 0.5) * mechanism.snap])  # ties between grid points
    single = np.array([mechanism._round(float(v)) for v in values])
    assert np.array_equal(single.view(np.uint64), mechanism._round(values).view(np.uint64))
