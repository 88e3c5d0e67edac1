"""equal_distributions and goodness_of_fit: nominal false-alarm rate, power, and what is counted."""

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.errors import InvalidParameterError


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
        dpverify.equal_distributions(Categorical(UNIFORM10), Categorical(UNIFORM10), n_samples=5_000, seed=s).pvalue
        < 0.05
        for s in range(trials)
    )
    assert _binomial_ok(hits, trials, 0.05, suite_alpha), f"{hits}/{trials} rejections"
    if thorough:
        # a test that never rejects is not calibrated either: P[0 of 400] = 0.95**400 ~ 1e-9
        # (with the 60 trials of the ci profile, P[0] = 0.046 is too likely to assert on)
        assert hits >= 1, "no rejection in 400 tests of equal samplers at 0.05"


def test_equal_distributions_detects_a_two_percent_shift(suite_alpha):
    """Power: with 1e5 samples each the shift has noncentrality ~400 (df 9): power ~1 at 1e-6."""
    result = dpverify.equal_distributions(Categorical(UNIFORM10), Categorical(SHIFTED10), n_samples=100_000, seed=1)
    assert result.pvalue < suite_alpha
    assert result.df == 9


def test_rare_categories_are_pooled(suite_alpha):
    """Twenty categories of expected count 1 are pooled into one (expected 20): 3 + 1 categories.

    Deterministic structure; without pooling the table would keep up to 23 columns."""
    p = [0.5, 0.3, 0.19] + [0.01 / 20] * 20
    result = dpverify.equal_distributions(Categorical(p), Categorical(p), n_samples=2_000, seed=2)
    assert result.n_pooled >= 15
    assert result.n_categories == 4 and result.df == 3
    assert result.pvalue > suite_alpha


def test_g_test_is_refused():
    """The G-test was removed: its chi-square approximation is anti-conservative on pooled
    sparse tables (see dpverify.audits.distributions); asking for it is a named error."""
    for call in (
        lambda: dpverify.equal_distributions(
            Categorical(UNIFORM10), Categorical(UNIFORM10), n_samples=100, seed=1, method="g-test"
        ),
        lambda: dpverify.goodness_of_fit(
            Categorical(UNIFORM10), dict(enumerate(UNIFORM10)), n_samples=100, seed=1, method="g-test"
        ),
    ):
        with pytest.raises(dpverify.InvalidParameterError, match="g-test"):
            call()


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, "5", True, None])
def test_a_pooling_threshold_that_is_not_a_count_is_refused(bad):
    """Detects: ``min_expected=nan`` accepted (every comparison with NaN is false, so no category pooled and
    the chi-square ran on sparse cells without a word), or a negative, infinite or non-numeric threshold.
    Deterministic."""
    for call in (
        lambda: dpverify.equal_distributions(
            Categorical(UNIFORM10), Categorical(UNIFORM10), n_samples=100, seed=1, min_expected=bad
        ),
        lambda: dpverify.goodness_of_fit(
            Categorical(UNIFORM10), dict(enumerate(UNIFORM10)), n_samples=100, seed=1, min_expected=bad
        ),
    ):
        with pytest.raises(dpverify.InvalidParameterError, match="min_expected must be a finite real number >= 0"):
            call()


class Recording(Categorical):
    """A categorical sampler that keeps every output it returned (executor=None runs in-process)."""

    def __init__(self, p):
        super().__init__(p)
        self.seen = []

    def sample(self, size, rng):
        out = super().sample(size, rng)
        self.seen.extend(np.asarray(out).tolist())
        return out


def test_statistics_are_pearson_on_the_sampled_counts():
    """The reported statistic is Pearson's chi-square of the counts actually drawn (recomputed
    here from the recorded outputs, categories large enough that nothing is pooled), for both
    tests. Deterministic; fails for a G statistic, a dropped category or a wrong df."""
    p = [0.3, 0.25, 0.2, 0.15, 0.1]
    pmf = dict(enumerate([0.2] * 5))
    a = Recording(p)
    res = dpverify.goodness_of_fit(a, pmf, n_samples=3_000, seed=5)
    counts = np.bincount(a.seen, minlength=5)
    assert counts.sum() == 3_000
    expected = 3_000 * np.array([pmf[i] for i in range(5)])
    assert res.statistic == pytest.approx(float(((counts - expected) ** 2 / expected).sum()), rel=1e-9)
    assert res.df == 4 and res.n_categories == 5
    b, c = Recording(p), Recording(p[::-1])
    res = dpverify.equal_distributions(b, c, n_samples=3_000, seed=6)
    table = np.vstack([np.bincount(b.seen, minlength=5), np.bincount(c.seen, minlength=5)])
    stat, _, df, _ = stats.chi2_contingency(table, correction=False)
    assert res.statistic == pytest.approx(stat, rel=1e-9) and res.df == df == 4


def test_goodness_of_fit_counts_categories_never_sampled(suite_alpha):
    """A pmf category the sampler never produces is a category with observed count 0, not a
    category that does not exist: a sampler uniform on 0..8 tested against the uniform pmf on
    0..9 is rejected (category 9 expects 1000 of 10,000 and gets 0: statistic >= 1000, p ~ 0),
    and all 10 categories are counted. Ignoring unseen categories would rescale the other nine
    and accept it. Likewise a pmf with a 0.3 category the sampler never reaches."""
    res = dpverify.goodness_of_fit(Categorical([1 / 9] * 9), {i: 0.1 for i in range(10)}, n_samples=10_000, seed=7)
    assert res.n_categories == 10 and res.df == 9
    assert res.statistic >= 1_000 and res.pvalue < suite_alpha
    pmf = {0: 0.3, 1: 0.35, 2: 0.35}
    res = dpverify.goodness_of_fit(Categorical([0.0, 0.5, 0.5]), pmf, n_samples=2_000, seed=8)
    assert res.n_categories == 3 and res.pvalue < suite_alpha


SPARSE50 = [1 / 50] * 50  # 300 samples: expected 6 per category, the regime where G failed


@pytest.mark.parametrize("test", ["goodness_of_fit", "equal_distributions"])
def test_size_on_sparse_tables(test, thorough, suite_alpha):
    """Rejections at nominal 0.05 over repeated null tests on 50 categories with 300 samples
    (expected counts ~6, where the removed G-test rejected at 0.076-0.080), asserted with a
    one-sided binomial bound at suite_alpha (false alarm < 1e-6).

    Power: 200 trials (ci) reject a true rate of 0.15 with probability 0.68 and 0.12 with 0.22;
    4000 trials (thorough) reject 0.08 -- the G-test's rate here -- with probability 0.999.
    """
    trials = 4000 if thorough else 200
    pmf = dict(enumerate(SPARSE50))
    if test == "goodness_of_fit":
        pvalues = [
            dpverify.goodness_of_fit(Categorical(SPARSE50), pmf, n_samples=300, seed=10_000 + s).pvalue
            for s in range(trials)
        ]
    else:
        pvalues = [
            dpverify.equal_distributions(
                Categorical(SPARSE50), Categorical(SPARSE50), n_samples=300, seed=20_000 + s
            ).pvalue
            for s in range(trials)
        ]
    hits = int(np.sum(np.array(pvalues) < 0.05))
    assert _binomial_ok(hits, trials, 0.05, suite_alpha), f"{hits}/{trials} rejections"


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
    result = dpverify.goodness_of_fit(Categorical(UNIFORM10), {i: 1 / 9 for i in range(9)}, n_samples=1_000, seed=4)
    assert result.pvalue == 0.0 and result.statistic == np.inf
    assert result.unexpected_outputs == (9,)


def test_real_outputs_are_refused():
    with pytest.raises(dpverify.OutputTypeError):
        dpverify.equal_distributions(lambda rng: rng.random(), lambda rng: rng.random(), n_samples=10, seed=1)


def test_sizes_with_no_power_are_refused_by_name():
    """Detects the silent pass: a uniform on {0, 1, 2} against a constant 5 with 5 samples each pooled
    every category into one and reported p = 1, df = 0, "not different". Deterministic (fixed seeds)."""
    with pytest.raises(dpverify.InsufficientSamplesError, match="no power|cannot tell") as refused:
        dpverify.equal_distributions(Categorical([1 / 3] * 3), lambda rng: 5, n_samples=5, seed=1)
    assert refused.value.required == 10
    with pytest.raises(dpverify.InsufficientSamplesError) as refused:
        dpverify.goodness_of_fit(Categorical([1 / 3] * 3), {0: 1 / 3, 1: 1 / 3, 2: 1 / 3}, n_samples=5, seed=1)
    assert refused.value.required == 15
    enough = dpverify.equal_distributions(Categorical([1 / 3] * 3), lambda rng: 5, n_samples=10, seed=1)
    assert enough.df >= 1 and enough.violation  # the suggested size sees the difference (p ~ 1e-5 at alpha 0.05)
    constant = dpverify.equal_distributions(lambda rng: 5, lambda rng: 5, n_samples=5, seed=1)
    assert constant.pvalue == 1.0  # one output seen at all: the data show no difference, nothing to refuse


def test_distribution_tests_take_the_audit_options_that_apply():
    """The options object works as for the audits; the event options are refused by name.

    Detects: a distribution test that silently ignores ``float_events=False`` or an
    ``output_key`` (a user would believe the outputs were keyed), or that drops ``options``.
    """
    die = Categorical(UNIFORM10)
    by_keyword = dpverify.equal_distributions(die, die, n_samples=2_000, seed=4, alpha=0.2, n_chunks=3)
    by_options = dpverify.equal_distributions(
        die, die, n_samples=2_000, seed=4, options=dpverify.AuditOptions(alpha=0.2, n_chunks=3)
    )
    assert by_keyword == by_options and by_keyword.alpha == 0.2
    for wrong in (dict(float_events=False), dict(n_selection=10), dict(output_key=str)):
        with pytest.raises(InvalidParameterError, match="do not apply"):
            dpverify.goodness_of_fit(die, {i: 0.1 for i in range(10)}, n_samples=2_000, seed=4, **wrong)
    with pytest.raises(TypeError, match="unexpected keyword"):
        dpverify.equal_distributions(die, die, n_samples=2_000, seed=4, chunks=3)
