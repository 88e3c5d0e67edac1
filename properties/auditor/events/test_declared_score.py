"""The ``"declared-score"`` event family (dpverify.events.declared): a score a mechanism declares is a hint.

The false-alarm argument every test here leans on: the family's events are thresholds on
``mechanism.audit_score(outputs, x, x_prime)``, chosen on the selection samples alone; the score is
a fixed function of an output and the pair, so each chosen event is fixed before the certification
samples are drawn, and the Clopper-Pearson bounds on its two probabilities, computed on those fresh
samples, hold with probability ``1 - alpha`` whatever the score computes. A wrong score can only
propose poor events (power), never make a true claim look broken more often than ``alpha``.

Statistical checks use fixed seeds and alpha = suite_alpha (1e-6) each; the thorough check counts
false alarms over 200 audits at alpha 0.05 against Binomial(200, 0.05)'s upper 1e-6 quantile.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.errors import InvalidParameterError
from dpverify.events import event_family
from dpverify.mechanisms.textbook import LaplaceMechanism
from dpverify.protocols import DeclaresScore, declared_score
from dpverify.testing import check_event_family


class _WrongScore(LaplaceMechanism):
    """The (snapped) Laplace mechanism, eps-DP on |x - x'| <= 1, declaring a score that is wrong for it."""

    def __init__(self, epsilon, how):
        super().__init__(epsilon)
        self.how = how

    def audit_score(self, outputs, x, x_prime):
        y = outputs[:, 0]
        if self.how == "reversed":  # the true log ratio's sign flipped
            return -(np.abs(y - x_prime) - np.abs(y - x))
        if self.how == "noise":  # unrelated to the inputs: a fast-oscillating function of the output
            return np.sin(997.0 * y)
        return (y > 0.5 * (x + x_prime)) * 50.0  # "overconfident": a step as if the noise were tiny


class _BadShape(LaplaceMechanism):
    def audit_score(self, outputs, x, x_prime):
        return outputs  # (n, 1), not (n,)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("how", ["reversed", "noise", "overconfident"])
def test_a_wrong_declared_score_never_flags_a_mechanism_that_keeps_its_claim(how, suite_alpha):
    """The Laplace mechanism at eps = 1 against its own (tight) eps = 1 claim, audited on a declared
    score that is wrong three ways (reversed, noise, overconfident), with only the declared-score family:
    no violation (false alarm <= suite_alpha by the argument of the module docstring).

    Detects: a family or pipeline that trusts the score (reports it, or counts the certification on the
    samples that chose the thresholds: on a tight claim the winner's curse over the deep-tail thresholds
    then lifts the bound above 1)."""
    m = _WrongScore(1.0, how)
    result = dpverify.audit(
        m, 0.0, 1.0, n_samples=100_000, seed=31, alpha=suite_alpha, event_families=("declared-score",)
    )
    assert not result.violation, result.summary()
    assert result.claim_lower_bound <= 1.0


@pytest.mark.privacy_audit
@pytest.mark.slow
def test_a_wrong_declared_score_flags_at_most_alpha_of_audits_thorough(thorough):
    """200 audits (seeds 0-199, 40,000 samples) of the Laplace mechanism against its tight eps = 1 claim on
    each wrong score, each at alpha = 0.05: at most Binomial(200, 0.05)'s upper 1e-6 quantile (27) flag it
    (thorough profile only). Measured: 0, 0 and 1 flagged (noise, overconfident, reversed); the reversed
    score's level sets are the true ratio's, so its audits come within a few hundredths of the claim.

    Detects: false alarms above alpha from a declared score (a score read as evidence)."""
    if not thorough:
        pytest.skip("thorough profile: 600 audits of 40,000 samples per input")
    for how in ("noise", "overconfident", "reversed"):
        m = _WrongScore(1.0, how)
        flagged = sum(
            dpverify.audit(
                m, 0.0, 1.0, n_samples=40_000, seed=s, alpha=0.05, event_families=("declared-score",)
            ).violation
            for s in range(200)
        )
        assert flagged <= stats.binom.isf(1e-6, 200, 0.05), (how, flagged)


def test_the_family_reads_the_mechanisms_declaration_and_proposes_nothing_without_one():
    """The family is in the default set, passed the mechanism and the pair; a mechanism that declares no
    ``audit_score`` gets no declared-score events and no note (its seeded results are unchanged).

    Detects: the family missing from the defaults, or a note on every audit of a mechanism without a score."""
    record = event_family("declared-score")
    assert record.uses_mechanism and record.uses_inputs and not record.opt_in
    assert declared_score(LaplaceMechanism(1.0)) is None
    assert isinstance(_WrongScore(1.0, "noise"), DeclaresScore)
    plain = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, n_samples=20_000, seed=3)
    assert not any("declared-score" in note for note in plain.notes)
    named = dpverify.audit(
        LaplaceMechanism(1.0), 0.0, 1.0, n_samples=20_000, seed=3, event_families=("declared-score", "threshold")
    )
    assert named.event is not None and named.event.family == "threshold"


class _SumScore:
    """Declares the sum of the coordinates, oriented by the pair: a score for the contract's real samples."""

    def __call__(self, data, rng):
        return rng.normal()

    def audit_score(self, outputs, x, x_prime):
        return np.sign(np.sum(x) - np.sum(x_prime)) * outputs.sum(axis=1)


def test_the_family_meets_the_event_family_contract_with_and_without_a_declared_score():
    """``dpverify.testing.check_event_family`` on the family, passed a mechanism that declares a score (its
    events are checked) and none (it must answer an empty Candidates). Detects: counts or indicators of the
    declared-score events that disagree with the contract (one bool per output, counts within the sample)."""
    check_event_family(event_family("declared-score"), mechanism=_SumScore())
    check_event_family(event_family("declared-score"))


def test_a_score_of_the_wrong_shape_is_refused_by_name():
    """Detects: a declared score of the wrong shape silently broadcast into wrong events."""
    with pytest.raises(InvalidParameterError, match="one real per output"):
        dpverify.audit(_BadShape(1.0), 0.0, 1.0, n_samples=20_000, seed=3, event_families=("declared-score",))


def test_every_driver_that_knows_the_mechanism_reads_its_score():
    """``sequential_audit``, ``delta_lower_bound_curve`` and ``search_audit`` (over the pairs (0, 1) and
    (0, -1)) of the Laplace mechanism with a declared score, named as the only family, choose declared-score
    events; given samples (no mechanism) get none.

    Detects: a driver that does not hand its mechanism to the selection (its audits then find no candidate
    or fall back to other families)."""
    m = _WrongScore(1.0, "reversed")
    only = dict(event_families=("declared-score",), seed=5)
    sequential = dpverify.sequential_audit(m, 0.0, 1.0, epsilon=1.0, n_samples=40_000, **only)
    assert sequential.event.family == "declared-score"
    curve = dpverify.delta_lower_bound_curve(m, 0.0, 1.0, epsilons=[0.5], n_samples=40_000, **only)
    assert {e.family for e in curve.events} == {"declared-score"}
    searched = dpverify.search_audit(m, [(0.0, 1.0), (0.0, -1.0)], epsilon=1.0, n_samples=40_000, **only)
    assert searched.event.family == "declared-score"
    assert all("[declared-score]" in c.event for c in searched.candidates)  # the screening ranked on it too
    rng = np.random.default_rng(5)
    samples = (rng.laplace(0.0, 1.0, 20_000), rng.laplace(1.0, 1.0, 20_000))
    given = dpverify.audit_samples(*samples, epsilon=1.0, event_families=("declared-score",))
    assert given.event is None or given.event.family != "declared-score"
