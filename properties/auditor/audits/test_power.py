"""What a certification budget could have seen (dpverify.support.power, dpverify.audits.power): the floor is
the smallest excess that randomized response, the most detectable mechanism at a given true loss, certifies at
its expected counts; a result that finds nothing says when a violation of the claim's size was below it.

Deterministic (fixed seeds, exact Clopper-Pearson arithmetic): no false alarm on correct code.
"""

from __future__ import annotations

import math

import numpy as np

import dpverify
from dpverify.audits.power import power_note
from dpverify.mechanisms import RandomizedResponse
from dpverify.support.bounds import clopper_pearson_epsilon_bound
from dpverify.support.power import samples_to_resolve, smallest_delta_excess, smallest_epsilon_excess


def _rr_bound(n, true_epsilon, alpha=0.05):
    q = 1 / (1 + math.exp(true_epsilon))
    return float(clopper_pearson_epsilon_bound(n * (1 - q), n, n * q, n, alpha))


def test_the_floor_is_where_randomized_response_starts_to_certify():
    """Detects a floor off its definition: just above it randomized response's expected counts certify
    more than the claim, just below they do not."""
    for n, epsilon in ((2_000, 0.1), (40_000, 1.0), (10**6, 0.5)):
        floor = smallest_epsilon_excess(n, epsilon)
        assert _rr_bound(n, epsilon + floor * 1.001) > epsilon >= _rr_bound(n, epsilon + floor * 0.999)
    assert smallest_epsilon_excess(40_000, 1.0) < smallest_epsilon_excess(2_000, 1.0)
    needed = samples_to_resolve(0.1, 0.1)
    assert smallest_epsilon_excess(needed, 0.1) <= 0.1 < smallest_epsilon_excess(needed - 1, 0.1)
    assert 0 < smallest_delta_excess(10_000, 1.0, 1e-3) < 0.01


def test_a_small_budget_says_it_could_not_have_seen_a_doubled_epsilon():
    """Detects the silent miss of a misuse at a small budget: randomized response at twice its claim
    (0.2 against 0.1) audited at 2,000 samples (1,000 certify) is missed at this seed, and the result's
    note says that a violation of the claim's size was below what the budget resolves; a budget that
    resolves it says no such thing, and a violation carries no power note."""
    missed = dpverify.audit(RandomizedResponse(0.2), 0, 1, epsilon=0.1, n_samples=2_000, seed=3)
    assert not missed.violation
    note = power_note(missed)
    assert note is not None and "could not have been seen" in note
    large = dpverify.audit(RandomizedResponse(0.1), 0, 1, epsilon=0.1, n_samples=200_000, seed=3)
    assert "could not have been seen" not in power_note(large)
    caught = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=0.1, n_samples=20_000, seed=3)
    assert caught.violation and power_note(caught) is None


def test_below_the_floor_randomized_response_is_mostly_missed():
    """The floor's meaning, by simulation: randomized response at claim + half the floor is certified in
    at most half of 40 seeded audits (it is 0.45 or less at the floor's definition; fixed seeds)."""
    n = 8_000
    result = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=n, seed=1)
    floor = smallest_epsilon_excess(result.event.n_certification, 1.0)
    mech = RandomizedResponse(1.0 + floor / 2)
    caught = sum(
        dpverify.audit(mech, 0, 1, epsilon=1.0, n_samples=n, seed=s).violation
        for s in np.random.SeedSequence(9).spawn(40)
    )
    assert caught <= 20
