"""dpverify.testing.assert_dp: passes correct mechanisms, fails broken ones with a telling message.

Error rates: ``assert_dp`` runs at ``suite_alpha`` (1e-6) on correct
mechanisms (false failure <= 1e-6 per test). The broken mechanisms violate
their claims by a factor >= 2 on a two- or few-output distribution; at 20_000
samples their p-values are below 1e-50, so the AssertionError is raised with
power ~1.
"""

from __future__ import annotations

import re

import pytest

from dpverify import AuditResult
from dpverify.audits.sequential import SequentialAuditResult
from dpverify.mechanisms.textbook import GeometricMechanism, RandomizedResponse
from dpverify.testing import assert_dp, per_example_alpha, violation_message


def test_assert_dp_returns_the_audit_on_a_correct_mechanism(suite_alpha):
    result = assert_dp(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=20_000, alpha=suite_alpha, seed=1)
    assert isinstance(result, AuditResult)
    assert not result.violation and result.alpha == suite_alpha
    assert result.n_samples == 20_000


def test_assert_dp_names_event_probabilities_and_bound(suite_alpha):
    mechanism = RandomizedResponse(2.0)  # true eps 2 against a claim of 0.5
    with pytest.raises(AssertionError) as info:
        assert_dp(mechanism, 0, 1, epsilon=0.5, n_samples=20_000, alpha=suite_alpha, seed=7)
    message = str(info.value)
    assert "(epsilon=0.5)-DP" in message and "x=0, x'=1" in message
    assert re.search(r"event S: output (==|in) ", message)
    probabilities = [float(v) for v in re.findall(r"P\[M\(x'?\) in S\] ~ ([0-9.e-]+)", message)]
    assert len(probabilities) == 2
    # randomized response keeps a bit with probability e^2/(1+e^2) = 0.881
    assert sorted(probabilities) == pytest.approx([0.119, 0.881], abs=0.01)
    bound = float(re.search(r"epsilon >= ([0-9.e-]+) > claimed 0.5", message).group(1))
    assert 1.8 < bound <= 2.0
    assert "replay: seed=7" in message


def test_message_matches_the_audit_that_raised(suite_alpha):
    from dpverify import audit

    kwargs = dict(epsilon=0.3, n_samples=20_000, alpha=suite_alpha, seed=3)
    result = audit(GeometricMechanism(1.0), 0, 1, **kwargs)
    with pytest.raises(AssertionError) as info:
        assert_dp(GeometricMechanism(1.0), 0, 1, **kwargs)
    assert str(info.value) == violation_message(result, 0, 1)
    assert result.event.description in str(info.value)


def test_assert_dp_sequential_stops_early_on_a_violation(suite_alpha):
    with pytest.raises(AssertionError, match="1000 samples per input"):
        assert_dp(
            GeometricMechanism(1.0), 0, 1, epsilon=0.1, n_samples=10**6, alpha=suite_alpha, seed=2, sequential=True
        )
    result = assert_dp(
        GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=8_000, alpha=suite_alpha, seed=2, sequential=True
    )
    assert isinstance(result, SequentialAuditResult) and result.n_samples == 8_000


def test_per_example_alpha_is_bonferroni():
    assert per_example_alpha(1e-6, 40) == pytest.approx(2.5e-8)
    with pytest.raises(ValueError):
        per_example_alpha(1e-6, 0)
