"""One options object and one claim type: every driver takes them, every result records its options.

Deterministic checks (no statistical assertion): a result reloaded from JSON replays
bit-identically from itself; keyword shortcuts and an options object are the same audit; a
mechanism's stated claim is what is audited when no epsilon is given, and a different claim is
never audited in silence.
"""

from __future__ import annotations

import pytest

import dpverify
import dpverify.testing
from dpverify import AuditOptions, PrivacyClaim
from dpverify.claims import claim_of, resolve_claim
from dpverify.errors import InvalidClaimError, InvalidParameterError
from dpverify.mechanisms import GaussianMechanism, LaplaceMechanism, RandomizedResponse


class StatedLaplace(LaplaceMechanism):
    """A Laplace mechanism that states its claim as data."""

    @property
    def claim(self):
        return PrivacyClaim(self.epsilon, neighbouring="|x - x'| <= 1", source="Dwork and Roth 2014, Theorem 3.6")


def test_keywords_and_an_options_object_are_the_same_audit():
    options = AuditOptions(alpha=0.01, n_selection=4_000, float_events=False)
    by_object = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=3, options=options)
    by_keywords = dpverify.audit(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=3, alpha=0.01, n_selection=4_000,
        float_events=False,
    )  # fmt: skip
    assert by_object == by_keywords
    assert by_object.options == options
    # a keyword beside options replaces that field only
    mixed = dpverify.audit(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=3, options=options, alpha=0.05
    )
    assert mixed.options == AuditOptions(alpha=0.05, n_selection=4_000, float_events=False)
    # an unset alpha is recorded as the level the audit ran at
    assert dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=3).options.alpha == 0.05


@pytest.mark.parametrize("driver", ["audit", "sequential_audit"])
def test_a_result_replays_from_itself_after_a_json_round_trip(driver):
    """Detects: options not recorded (a replay with defaults gives other events and bounds)."""
    run = getattr(dpverify, driver)
    options = AuditOptions(alpha=0.02, n_selection=3_000, event_families=("threshold", "real-value"), n_chunks=5)
    result = run(LaplaceMechanism(0.5), 0.0, 1.0, epsilon=0.5, n_samples=30_000, seed=11, options=options)
    reloaded = type(result).from_json(result.to_json())
    assert reloaded == result
    assert reloaded.options == options
    assert dpverify.replay(reloaded, LaplaceMechanism(0.5), 0.0, 1.0) == result
    assert (
        dpverify.replay(reloaded, LaplaceMechanism(0.5), 0.0, 1.0, executor=2) == result
    )  # where it runs changes nothing


def test_the_delta_curve_and_the_given_samples_record_their_options():
    curve = dpverify.delta_lower_bound_curve(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilons=[0.5], n_samples=20_000, seed=1, alpha=0.1
    )
    assert curve.options == AuditOptions(alpha=0.1)
    samples = dpverify.audit_samples([0, 1] * 10_000, [1, 0] * 10_000, epsilon=1.0, n_selection=2_000)
    assert samples.options == AuditOptions(alpha=0.05, n_selection=2_000)
    with pytest.raises(InvalidParameterError, match="executor and n_chunks do not apply"):
        dpverify.audit_samples([0, 1] * 10_000, [1, 0] * 10_000, epsilon=1.0, executor=2)


def test_float_events_false_is_honoured_by_the_delta_curve():
    """Detects: the curve silently ignoring float_events (it had no such option before)."""
    curve = dpverify.delta_lower_bound_curve(
        lambda x, rng: x + rng.laplace(), 0.0, 1.0, epsilons=[0.5, 1.0], n_samples=20_000, seed=2, float_events=False
    )
    assert all(e.family not in ("mantissa", "reachability") for e in curve.events)


def test_unknown_options_and_bad_values_are_named():
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['alpah'\]; options are"):
        dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, alpah=0.1)
    with pytest.raises(InvalidParameterError, match="options must be a dpverify.AuditOptions"):
        dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, options={"alpha": 0.1})
    with pytest.raises(InvalidParameterError, match="event_families must be a list"):
        AuditOptions(event_families="threshold")
    with pytest.raises(InvalidParameterError, match="alpha"):
        AuditOptions(alpha=1.5)


def test_assert_dp_keeps_its_tiny_default_alpha_unless_told():
    result = dpverify.testing.assert_dp(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=1)
    assert result.alpha == 1e-6
    told = dpverify.testing.assert_dp(
        RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=1, options=AuditOptions(alpha=1e-3)
    )
    assert told.alpha == 1e-3
    # options that leave alpha unset keep the assertion's level (not the audits' 0.05)
    other = dpverify.testing.assert_dp(
        RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=1, options=AuditOptions(n_chunks=4)
    )
    assert other.alpha == 1e-6 and other.options.alpha == 1e-6


def test_the_claim_comes_from_the_mechanism_when_no_epsilon_is_given():
    stated = dpverify.audit(StatedLaplace(0.5), 0.0, 1.0, n_samples=20_000, seed=5)
    explicit = dpverify.audit(StatedLaplace(0.5), 0.0, 1.0, epsilon=0.5, n_samples=20_000, seed=5)
    assert stated == explicit
    assert stated.claimed_epsilon == 0.5
    assert not any("differs" in note for note in stated.notes)


def test_a_claim_other_than_the_stated_one_is_never_audited_in_silence():
    """Detects: an audit at a hand-typed epsilon (or a forgotten delta) that differs from the stated claim."""
    result = dpverify.audit(StatedLaplace(0.5), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=5)
    assert any("differs from the one the mechanism states" in note for note in result.notes)
    gauss = GaussianMechanism(1.0, 1e-5)
    gauss_claim = claim_of(gauss)
    if gauss_claim is not None:  # the zoo states its claims: delta is taken from it, not set to 0
        claim, notes = resolve_claim(gauss, epsilon=gauss_claim.epsilon)
        assert claim.delta == gauss_claim.delta and notes == ()
        claim, notes = resolve_claim(gauss, epsilon=gauss_claim.epsilon, delta=0.0)
        assert notes and "differs" in notes[0]


def test_no_epsilon_and_no_stated_claim_is_a_named_error():
    with pytest.raises(InvalidClaimError, match="the mechanism states no claim"):
        dpverify.audit(lambda x, rng: x + rng.laplace(), 0.0, 1.0, n_samples=20_000)
    with pytest.raises(InvalidClaimError, match="must be a dpverify.claims.PrivacyClaim"):

        class Typed:
            claim = 1.0

            def __call__(self, x, rng):
                return x

        claim_of(Typed())


def test_privacy_claim_validates_and_round_trips():
    claim = PrivacyClaim(0.5, 1e-6, neighbouring="add/remove one record", source="paper", model="local")
    assert PrivacyClaim.from_dict(claim.to_dict()) == claim
    assert str(PrivacyClaim(1.0, source="s")) == "eps=1 (s)"
    with pytest.raises(InvalidClaimError):
        PrivacyClaim(-1.0)
    assert PrivacyClaim(0.0).epsilon == 0.0  # perfect privacy is a claim; an audit refuses it
    with pytest.raises(InvalidClaimError):
        dpverify.audit(lambda x, rng: x, 0, 1, epsilon=0.0)
    with pytest.raises(InvalidClaimError):
        PrivacyClaim(1.0, 1.0)
    with pytest.raises(InvalidClaimError, match="model"):
        PrivacyClaim(1.0, model="federated")


def test_a_result_without_a_seed_is_not_replayed():
    """Detects: a replay of an audit of given samples that silently runs a fresh, unseeded audit."""
    result = dpverify.audit_samples([0, 1] * 10_000, [1, 0] * 10_000, epsilon=1.0)
    with pytest.raises(InvalidParameterError, match="no seed"):
        dpverify.replay(result, lambda x, rng: x, 0, 1)


def test_an_adapter_states_its_claim_and_the_audit_reads_it():
    """Detects: an adapter whose claim must be typed again by hand (an approximate claim audited at delta 0)."""
    from dpverify.extras.adapters import RandomStateMechanism

    adapter = RandomStateMechanism(lambda x, state: x + state.laplace(), epsilon=1.0, delta=1e-6)
    assert adapter.claim == PrivacyClaim(1.0, 1e-6, source="stated to the adapter")
    result = dpverify.audit(adapter, 0.0, 1.0, n_samples=20_000, seed=4)
    assert (result.claimed_epsilon, result.claimed_delta) == (1.0, 1e-6)
