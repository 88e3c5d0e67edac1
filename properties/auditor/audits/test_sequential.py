"""Sequential audits (dpverify.audits.sequential): early stopping without losing the false-alarm guarantee.

Statistical assertions and their error rates:

- "no violation" on correct mechanisms is asserted at ``suite_alpha`` (1e-6):
  the sequential audit's false-alarm rate is at most its ``alpha`` over all
  looks (module docstring of dpverify.audits.sequential).
- "violation" on broken mechanisms: the violations are 10x (or more) the
  claim, certified by the first look of 1000 samples with p-values below
  1e-20, so the power at ``suite_alpha`` is ~1.
- The calibration test counts false alarms of many audits at alpha = 0.05 and
  compares with a binomial bound at ``suite_alpha`` (see its docstring).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from scipy import stats

from dpverify import IdenticalInputsError, InsufficientSamplesError, InvalidParameterError
from dpverify.audits.sequential import (
    SequentialAuditResult,
    alpha_spending,
    look_schedule,
    sequential_audit,
)
from dpverify.mechanisms.textbook import GeometricMechanism, LaplaceMechanism, RandomizedResponse


@given(
    budget=st.integers(2, 10**8),
    first=st.integers(2, 10**5),
    growth=st.floats(1.1, 10.0),
)
@example(budget=10_000, first=1_000, growth=2.0)
@example(budget=1_000, first=1_000, growth=2.0)
@example(budget=2, first=5, growth=1.5)
def test_look_schedule_is_increasing_and_ends_at_the_budget(budget, first, growth):
    schedule = look_schedule(budget, min(first, budget), growth)
    assert schedule[-1] == budget
    assert all(a < b for a, b in zip(schedule, schedule[1:]))
    assert schedule[0] == min(first, budget) or len(schedule) == 1
    # geometric growth: each look at most `growth` (rounded up) times the previous one,
    # except the final look, which may absorb a merged look (factor <= 1.25 * growth)
    for a, b in zip(schedule[:-1], schedule[1:-1]):
        assert b <= math.ceil(a * growth) + 1


@given(alpha=st.floats(1e-12, 0.5), n_looks=st.integers(1, 60), share=st.floats(0.01, 0.99))
def test_alpha_spending_sums_to_alpha(alpha, n_looks, share):
    levels = alpha_spending(alpha, n_looks, share)
    assert len(levels) == n_looks
    assert all(level > 0 for level in levels)
    assert math.isclose(sum(levels), alpha, rel_tol=1e-12)
    if n_looks > 1:
        assert math.isclose(levels[-1], share * alpha, rel_tol=1e-12)


@pytest.mark.parametrize(
    "mechanism, x, x_prime, claim",
    [
        (GeometricMechanism(1.0), 0, 1, 0.1),  # true eps 1.0 vs claimed 0.1
        (RandomizedResponse(2.0), 0, 1, 0.5),  # true eps 2.0 vs claimed 0.5
        (LaplaceMechanism(1.0), 0.0, 1.0, 0.1),  # true eps 1.0 (plus float leaks) vs 0.1
    ],
    ids=["geometric", "randomized-response", "laplace"],
)
@pytest.mark.privacy_audit
def test_obvious_violation_stops_at_the_first_looks(mechanism, x, x_prime, claim, suite_alpha):
    result = sequential_audit(mechanism, x, x_prime, epsilon=claim, n_samples=10**6, alpha=suite_alpha, seed=11)
    assert isinstance(result, SequentialAuditResult)
    assert result.violation
    assert result.pvalue <= suite_alpha
    assert result.epsilon_lower_bound > claim
    assert result.stopped_early
    # about 1e4 samples should suffice; in fact the first looks do
    assert result.n_samples_used <= 4_000
    assert result.budget == 10**6
    assert result.looks[-1].violation and not any(look.violation for look in result.looks[:-1])


@pytest.mark.privacy_audit
def test_kept_claim_uses_the_whole_budget_and_certifies_tightly(suite_alpha):
    """A claim that holds exactly: no early stop, and the final look certifies close to the truth."""
    mechanism = GeometricMechanism(0.5)
    result = sequential_audit(mechanism, 0, 1, epsilon=0.5, n_samples=200_000, alpha=suite_alpha, seed=5)
    assert not result.violation
    assert not result.stopped_early
    assert result.n_samples == result.budget == 200_000
    assert [look.n_samples for look in result.looks] == list(result.schedule)
    # The pair's true loss is 0.5; at 2e5 samples the 1 - 1e-6 bound lands within 0.1 of it
    # (deterministic given the seed; a broken selection or certification would give ~0).
    assert 0.4 < result.epsilon_lower_bound <= 0.5 + 1e-12


@pytest.mark.privacy_audit
def test_false_alarm_rate_survives_the_stopping(thorough, suite_alpha):
    """Over R sequential audits of a mechanism exactly at its claim, false alarms stay binomial(R, 0.05)-bounded.

    Randomized response at eps = 1 is tight: the events {1} and {0} have
    likelihood ratio exactly e^eps, so every look's test sits on the boundary
    of its null hypothesis. The assertion ``count <= c`` with
    ``c = binom.isf(suite_alpha, R, 0.05)`` fails with probability at most
    suite_alpha when the false-alarm rate is <= 0.05 (the guarantee).
    Power: with R = 60 (ci) it detects a false-alarm rate >= 0.40 with
    probability >= 0.99 (a gross failure of the guarantee); the thorough
    profile (R = 1000) detects a rate >= 0.11 with probability >= 0.99.
    """
    repetitions = 1000 if thorough else 60
    mechanism = RandomizedResponse(1.0)
    seeds = np.random.SeedSequence(20240607).generate_state(repetitions)
    alarms = sum(
        sequential_audit(
            mechanism, 0, 1, epsilon=1.0, n_samples=4000, first_look=500, alpha=0.05, seed=int(s)
        ).violation
        for s in seeds
    )
    critical = stats.binom.isf(suite_alpha, repetitions, 0.05)
    assert alarms <= critical, f"{alarms} false alarms in {repetitions} audits at alpha=0.05"


def test_same_seed_same_result_and_json_roundtrip():
    kwargs = dict(epsilon=0.5, n_samples=20_000, first_look=1_000, alpha=0.05, seed=99)
    a = sequential_audit(GeometricMechanism(0.5), 0, 1, **kwargs)
    b = sequential_audit(GeometricMechanism(0.5), 0, 1, **kwargs)
    assert a == b
    assert SequentialAuditResult.from_json(a.to_json()) == a
    assert "used 20000 of 20000 samples" in a.summary()


def test_overall_pvalue_is_the_bonferroni_adjusted_minimum():
    result = sequential_audit(GeometricMechanism(0.5), 0, 1, epsilon=0.5, n_samples=16_000, alpha=0.05, seed=3)
    expected = min(1.0, min(look.pvalue * 0.05 / look.alpha for look in result.looks))
    assert result.pvalue == pytest.approx(expected, rel=1e-12)
    assert math.isclose(sum(look.alpha for look in result.looks), 0.05, rel_tol=1e-12)


def test_bad_arguments_raise_named_errors():
    with pytest.raises(IdenticalInputsError):
        sequential_audit(GeometricMechanism(1.0), 0, 0, epsilon=1.0, n_samples=10_000)
    with pytest.raises(InsufficientSamplesError) as info:
        sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=5.0, n_samples=100, alpha=1e-6)
    assert info.value.required > 100
    with pytest.raises(InvalidParameterError, match="growth"):
        sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=10_000, growth=1.0)
    with pytest.raises(InvalidParameterError, match="final_share"):
        sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=10_000, final_share=1.0)
