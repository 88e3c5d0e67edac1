"""Thresholded counts and the planted glue bugs around them: calibration, and certified audits that catch
each bug under the (epsilon, delta) claim and never the correct mechanism.

False alarms: every audit runs at ``alpha = suite_alpha`` (1e-6), so an audit flags the correct
mechanism with probability at most 1e-6 (the audit's own guarantee, certified on fresh samples); the
calibration tests are two-sided binomial tests at ``suite_alpha``.

Power (normal approximations to the binomial counts behind the certified bounds, at the sizes used):
a key of count 1 in x and absent from x' is released from x with chance delta = 0.02 by the correct
mechanism and ``e^eps delta`` = 0.054 by the threshold without its offset; ``1 - (1 - delta)^2`` = 0.040
keys counted beyond x' by two releases charged once. With 20,000 certification samples per input the
1e-6 lower confidence bound of a probability p sits within 5.3 standard errors, about
``5.3 sqrt(p / 20000)``: 0.0087 at p = 0.054 and 0.0075 at p = 0.040, and the upper bound of a count of
0 under x' at about ``ln(1e6) / 20000`` = 0.0007 (times ``e^eps`` in the delta bound); the certified delta
bounds therefore sit near 0.043 and 0.031, above 0.02, except with probability far below 1e-6. The
presence leak releases the key always (bound near 1), the noise drawn only above the true threshold
with chance 0.77 against 0 (bound near 0.75), and the sensitivity declared too small shifts the value by
two scales (``P[v >= 12]`` = 0.5 under x', ``e^eps`` times 0.068 under x: a delta of 0.32 at eps = 1).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.mechanisms.thresholded import PLANTED_BUGS, SensitivityTooSmall, ThresholdedCounts

pytestmark = pytest.mark.privacy_audit

EPSILON, DELTA = 1.0, 0.02
SAMPLES = 40_000  # 20,000 choose the event, 20,000 certify it
#: The released-key families alone: the classifier's fit, which also runs by default, costs most of an
#: audit's time here and the bugs are found without it.
KEY_FAMILIES = ("key-presence", "key-value", "key-count")


def _audit(mechanism, x, x_prime, suite_alpha, seed):
    return dpverify.audit(
        mechanism, x, x_prime, n_samples=SAMPLES, alpha=suite_alpha, seed=seed, event_families=KEY_FAMILIES
    )


@pytest.mark.parametrize(("epsilon", "delta", "sensitivity"), [(0.5, 0.05, 1.0), (1.0, 0.01, 1.0), (2.0, 0.1, 2.0)])
def test_the_threshold_releases_a_minimal_key_with_chance_delta(epsilon, delta, sensitivity, suite_alpha):
    """tau = s (1 + ln(1 / (2 delta)) / eps) releases a key of count s with chance exactly delta, at three
    budgets and two sensitivities (formula and sampler).

    Detects: the threshold's offset or log miscomputed (``e^eps delta`` without the offset: 0.082, 0.027,
    0.74 against 0.05, 0.01, 0.1), a noise scale not ``s / eps``, or keys of count 0 treated as present.
    Power: 5e4 draws put a release rate of 0.027 against 0.01 at 38 standard errors.
    """
    mechanism = ThresholdedCounts(epsilon, delta, sensitivity)
    assert mechanism.release_probability(sensitivity) == pytest.approx(delta, rel=1e-12)
    n = 50_000
    outputs = mechanism.sample({"a": sensitivity, "zero": 0}, n, np.random.default_rng([5, int(10 * epsilon)]))
    released = sum("a" in o for o in outputs)
    assert not any("zero" in o for o in outputs)
    assert stats.binomtest(released, n, delta).pvalue > suite_alpha, (released, n * delta)


def test_the_correct_thresholded_count_is_not_flagged_and_its_delta_is_seen(suite_alpha):
    """The correct mechanism attains its delta on the pair (key ``a`` of count 1 against no ``a``).

    Detects: an auditor that flags a correct released-key pipeline (false alarm at most 1e-6), or one
    blind to the presence event (a certified delta bound of 0: the correct mechanism's is near 0.016).
    """
    result = _audit(ThresholdedCounts(EPSILON, DELTA), {"a": 1, "b": 50}, {"b": 50}, suite_alpha, 11)
    assert not result.violation
    assert DELTA / 2 < result.delta_lower_bound <= DELTA


def _planted(name, suite_alpha, seed):
    cls, fields, x, x_prime = PLANTED_BUGS[name]
    return _audit(cls(EPSILON, DELTA, **fields), x, x_prime, suite_alpha, seed)


def test_threshold_delta_miscomputed_is_found(suite_alpha):
    """Detects: a threshold ``ln(1 / (2 delta)) / eps`` without the offset a present key holds (true delta
    ``e^eps delta``), through the event "key 'a' released"."""
    result = _planted("threshold-delta-miscomputed", suite_alpha, 12)
    assert result.violation and result.event.family == "key-presence" and result.delta_lower_bound > DELTA


def test_released_keys_leaking_presence_are_found(suite_alpha):
    """Detects: every key in the data released, no threshold (true delta 1)."""
    result = _planted("released-keys-leak-presence", suite_alpha, 13)
    assert result.violation and result.event.family == "key-presence" and result.delta_lower_bound > 0.9


def test_sensitivity_declared_too_small_is_found_by_presence_and_by_value(suite_alpha):
    """Detects: noise and threshold calibrated to a contribution of 1 under a claim of 2, through the key
    released too often (pair: count 2 against absent) and through its value (pair: 10 against 12)."""
    result = _planted("sensitivity-declared-too-small", suite_alpha, 14)
    assert result.violation and result.event.family == "key-presence"
    by_value = _audit(SensitivityTooSmall(EPSILON, DELTA, 2.0), {"a": 10}, {"a": 12}, suite_alpha, 15)
    assert by_value.violation and by_value.event.family == "key-value"


def test_budget_charged_once_for_two_releases_is_found(suite_alpha):
    """Detects: two thresholded releases of the same counts, each at the whole (eps, delta), charged once
    (about 2 delta): no single key shows it, the released-key count does."""
    result = _planted("budget-charged-once", suite_alpha, 16)
    assert result.violation and result.event.family == "key-count"
    assert result.delta_lower_bound > DELTA and math.isfinite(result.delta_lower_bound)


def test_noise_drawn_only_above_the_true_threshold_is_found(suite_alpha):
    """Detects: noise drawn only for the keys whose true count reaches the threshold (a key of count 5 is
    released with chance 0.77 from x, one of count 4 never from x'), through the event "key 'a' released"."""
    result = _planted("noise-only-above-the-true-threshold", suite_alpha, 17)
    assert result.violation and result.event.family == "key-presence" and result.delta_lower_bound > 0.5


def test_audits_of_the_correct_thresholded_count_flag_it_at_most_at_their_level(thorough, suite_alpha):
    """Audits at alpha = 0.05 of the correct mechanism, which attains its delta on the pair, flag it at most
    at that rate: the flags of 10 audits (200 in the thorough profile) stay below the binomial(n, 0.05)
    quantile at 1 - suite_alpha.

    Detects: a key book or event fitted on certification samples (the bound biased upwards: on a pair whose
    delta is attained exactly, about half the audits would flag), or value events that count absent keys.
    Power: the default profile's 10 audits (at most 6 flags) catch a flag rate of 0.9 with probability 0.99
    and one of 0.5 with 0.17 only; the thorough profile's 200 (at most 27) catch 0.5 with probability
    about 1.
    """
    n_audits = 200 if thorough else 10
    seeds = np.random.SeedSequence(42).spawn(n_audits)
    mechanism = ThresholdedCounts(EPSILON, 0.05)
    flags = sum(
        dpverify.audit(
            mechanism, {"a": 1, "b": 5}, {"b": 5}, n_samples=4_000, alpha=0.05, seed=s, event_families=KEY_FAMILIES
        ).violation
        for s in seeds
    )
    assert flags <= stats.binom.ppf(1 - suite_alpha, n_audits, 0.05), f"{flags} of {n_audits} audits flagged"
