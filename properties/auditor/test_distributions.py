"""equal_distributions and goodness_of_fit: nominal false-alarm rate and power (issue 2, section 4)."""

import numpy as np
import pytest
from scipy import stats

import dpverify


class Categorical:
    """A vectorized sampler over range(len(p))."""

    def __init__(self, p):
        self.p = np.asarray(p, dtype=float)
        self.cdf = np.cumsum(self.p)

    def __call__(self, rng):
        return int(self.sample(1, rng)[0])

    def sample(self, size, rng):
        return np.searchsorted(self.cdf, rng.random(size) * self.cdf[-1], side="right")


UNIFORM10 = [0.1] * 10
SHIFTED10 = [0.12, 0.08] + [0.1] * 8  # 0.02 of probability moved between two categories


def _binomial_ok(hits, trials, rate, suite_alpha):
    return stats.binom.sf(hits - 1, trials, rate) > suite_alpha


def test_equal_distributions_holds_its_false_alarm_rate(thorough, suite_alpha):
    """Rejections at 0.05 among repeated tests of equal samplers, asserted with a binomial bound.

    A correct test rejects with probability 0.05 each time; the assertion fails
    on correct code with probability < suite_alpha. A test that ignored
    pooling (or used a wrong df) would reject far more often.
    """
    trials = 400 if thorough else 60
    hits = sum(
        dpverify.equal_distributions(Categorical(UNIFORM10), Categorical(UNIFORM10), n_samples=5_000,
                                     seed=s).pvalue < 0.05
        for s in range(trials)
    )
    assert _binomial_ok(hits, trials, 0.05, suite_alpha), f"{hits}/{trials} rejections"
    if thorough:
        # a test that never rejects is not calibrated either: P[0 of 400] = 0.95**400 ~ 1e-9
        # (with the 60 trials of the ci profile, P[0] = 0.046 is too likely to assert on)
        assert hits >= 1, "no rejection in 400 tests of equal samplers at 0.05"


def test_equal_distributions_detects_a_two_percent_shift(suite_alpha):
    """Power: with 1e5 samples each the shift has noncentrality ~400 (df 9): power ~1 at 1e-6."""
    result = dpverify.equal_distributions(Categorical(UNIFORM10), Categorical(SHIFTED10), n_samples=100_000,
                                          seed=1)
    assert result.pvalue < suite_alpha
    assert result.df == 9


def test_g_test_and_rare_category_pooling(suite_alpha):
    p = [0.5, 0.3, 0.19] + [0.01 / 20] * 20  # twenty rare categories get pooled
    result = dpverify.equal_distributions(Categorical(p), Categorical(p), n_samples=2_000, seed=2,
                                          method="g-test")
    assert result.n_pooled >= 15
    assert result.pvalue > suite_alpha


def test_goodness_of_fit_accepts_the_true_pmf_and_rejects_a_shift(suite_alpha):
    pmf = {i: 0.1 for i in range(10)}
    assert dpverify.goodness_of_fit(Categorical(UNIFORM10), pmf, n_samples=50_000, seed=3).pvalue > suite_alpha
    # power: chi_square_power says ~1 at 1e5
    shifted = dict(enumerate(SHIFTED10))
    assert dpverify.chi_square_power(pmf, shifted, 100_000, suite_alpha) > 0.999
    assert dpverify.goodness_of_fit(Categorical(SHIFTED10), pmf, n_samples=100_000, seed=3).pvalue < suite_alpha


def test_goodness_of_fit_false_alarm_rate(thorough, suite_alpha):
    pmf = {i: 0.1 for i in range(10)}
    trials = 400 if thorough else 60
    hits = sum(
        dpverify.goodness_of_fit(Categorical(UNIFORM10), pmf, n_samples=2_000, seed=s).pvalue < 0.05
        for s in range(trials)
    )
    assert _binomial_ok(hits, trials, 0.05, suite_alpha), f"{hits}/{trials} rejections"


def test_an_impossible_output_is_decisive():
    result = dpverify.goodness_of_fit(Categorical(UNIFORM10), {i: 1 / 9 for i in range(9)}, n_samples=1_000,
                                      seed=4)
    assert result.pvalue == 0.0 and result.statistic == np.inf
    assert result.unexpected_outputs == (9,)


def test_real_outputs_are_refused():
    with pytest.raises(dpverify.OutputTypeError):
        dpverify.equal_distributions(lambda rng: rng.random(), lambda rng: rng.random(), n_samples=10, seed=1)
