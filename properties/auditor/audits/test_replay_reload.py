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
TRADEOFF_POINTS = dpverify.PrivacyClaim.tradeoff([(0.0, 1.0), (0.2, 0.4), (1.0, 0.0)])


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


# -- claims through JSON -----------------------------------------------------------------


def gaussian_tradeoff_one(a):
    """The trade-off function of 1-Gaussian DP (Dong, Roth and Su 2022, eq. 2.3), importable by name."""
    from scipy import stats

    return stats.norm.cdf(stats.norm.ppf(1 - np.asarray(a, dtype=float)) - 1.0)


def test_a_tradeoff_function_importable_by_name_round_trips_exactly():
    """Detects: a trade-off callable that comes back as points although its name imports it (the claim
    the replay audits would be weaker), or a claim that no longer equals itself after a reload."""
    claim = dpverify.PrivacyClaim.tradeoff(gaussian_tradeoff_one)
    back = dpverify.PrivacyClaim.from_dict(json.loads(json.dumps(claim.to_dict())))
    assert back.tradeoff_curve is gaussian_tradeoff_one and not back.approximated and back == claim
    for claim in (dpverify.PrivacyClaim(1.0, 1e-6), RR.claims[1], dpverify.PrivacyClaim.renyi([2, 4], [0.5, 1.0])):
        assert dpverify.PrivacyClaim.from_dict(json.loads(json.dumps(claim.to_dict()))) == claim


def test_an_approximated_tradeoff_claim_says_so_compares_unequal_and_does_not_replay():
    """A lambda trade-off function reloads as points, flagged ``approximated`` on the claim and in the
    result's summary; neither compares equal to what was saved, and the replay refuses.

    Detects: the reload that compared equal and whose replay lowered the bound and flipped a verdict
    (issue 38), or an approximation the reload does not mention.
    """
    claim = dpverify.PrivacyClaim.tradeoff(lambda a: gaussian_tradeoff_one(a))
    back = dpverify.PrivacyClaim.from_dict(json.loads(json.dumps(claim.to_dict())))
    assert "step function" in back.approximated and back != claim and "approximated" in str(back)
    result = dpverify.audit(RR, 0, 1, claim=claim, n_samples=4_000, seed=1)
    reloaded = dpverify.AuditResult.from_json(result.to_json())
    assert reloaded != result and "approximated" in reloaded.summary()
    assert result.replay(RR, 0, 1) == result  # the claim as stated replays
    with pytest.raises(dpverify.errors.NotReplayableError, match="approximated"):
        reloaded.replay(RR, 0, 1)


# -- loaded JSON is validated ----------------------------------------------------------------


@pytest.fixture(scope="module")
def saved():
    """Saved data of a violation, a zCDP audit, a pair audit and a curve, as to_dict() writes them."""
    return {
        "violation": dpverify.audit(RR, 0, 1, epsilon=0.5, n_samples=4_000, seed=1).to_dict(),
        "zcdp": dpverify.audit(RR, 0, 1, claim=RR.claims[1], n_samples=4_000, seed=2).to_dict(),
        "pairs": dpverify.audit_pairs(RR, [(0, 1), (1, 0)], epsilon=0.5, n_samples=3_000, seed=3).to_dict(),
        "curve": dpverify.delta_lower_bound_curve(
            LaplaceMechanism(1.0), 0.0, 1.0, epsilons=[0.5], n_samples=4_000, seed=5
        ).to_dict(),
        "pure": dpverify.audit(RR, 0, 1, epsilon=1.0, n_samples=4_000, seed=1).to_dict(),
        "tradeoff": dpverify.audit(RR, 0, 1, claim=TRADEOFF_POINTS, n_samples=4_000, seed=1).to_dict(),
        "exact": dpverify.exact_privacy_loss(*PMFS).to_dict(),
        "onerun": dpverify.one_run_audit(np.arange(200.0), seed=1, claim=dpverify.PrivacyClaim(1.0)).to_dict(),
    }


def _edited(data, **changes):
    out = json.loads(json.dumps(data))
    for path, value in changes.items():
        target = out
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key) if isinstance(target, list) else key]
        if value is _DROP:
            del target[last]
        else:
            target[last] = value
    return out


_DROP = object()


@pytest.mark.parametrize(
    "which, changes, message",
    [
        ("violation", {"violation": False}, "violation=False but pvalue"),
        ("violation", {"violation": False, "pvalue": 0.5}, "certified bound .* is above the claimed"),
        ("violation", {"epsilon_lower_bound": float("nan")}, "epsilon_lower_bound is NaN"),
        ("violation", {"claim_lower_bound": float("nan")}, "claim_lower_bound is NaN"),
        ("violation", {"pvalue": _DROP}, "lacks the fields"),
        ("zcdp", {"claim__kind": "no-such-kind"}, "unknown claim kind 'no-such-kind'"),
        ("zcdp", {"claim_lower_bound": 10.0}, "certified bound .* is above the claimed"),
        ("pairs", {"violations": [False, False]}, "adjusted p-values"),
        ("pairs", {"results__0__violation": False}, "violation=False but pvalue"),
        ("curve", {"delta_lower_bounds": [float("nan")]}, "not one value in"),
    ],
)
def test_hand_edited_json_that_contradicts_itself_is_refused(saved, which, changes, message):
    """One validation path (Result.from_dict) refuses, by name, data no result could hold.

    Detects: a reload that accepts a summary contradicting its own bound, a NaN bound (which reads
    as "no violation"), a missing field, an unknown kind, or a nested result read without the check.
    """
    from dpverify.errors import ResultFormatError

    data = saved[which]
    cls = {"pairs": dpverify.PairAuditResult, "curve": dpverify.DeltaCurve}.get(which, dpverify.AuditResult)
    assert cls.from_dict(data).to_dict() == data  # unedited, it reloads
    with pytest.raises(ResultFormatError, match=message):
        cls.from_dict(_edited(data, **changes))


@pytest.mark.parametrize(
    "which, changes, message",
    [
        ("tradeoff", {"claim": {"kind": "dp", "epsilon": 0.1, "delta": 0.0}}, "states \\(0.1, 0.0\\)"),
        ("pure", {"claim": {"kind": "zcdp", "rho": 5.0}}, "states no \\(epsilon, delta\\) pair"),
        ("zcdp", {"claim": _DROP}, "no claim"),
        ("pure", {"epsilon_lower_bound": 50.0}, "epsilon_lower_bound 50.0 is above the claimed 1.0"),
        ("violation", {"pvalue": "0.5"}, "pvalue='0.5' is not a number"),
        ("violation", {"pvalue": 2.0}, "pvalue=2.0 is not a probability"),
        ("violation", {"alpha": 0.0}, "alpha=0.0 is not a level"),
        ("zcdp", {"n_samples": "many"}, "n_samples='many' is not an integer"),
        ("zcdp", {"violation": "no"}, "violation='no' is not true or false"),
        ("pure", {"event__count_x": 10**9}, "event counted 1000000000 of"),
        ("pairs", {"results__0__event__n_certification": 2.5}, "event.n_certification=2.5 is not an integer"),
        ("pure", {"delta_lower_bound": None}, "delta_lower_bound null, but a .* result records it"),
        ("pairs", {"alpha": "x"}, "alpha='x' is not a number"),
        ("pairs", {"alpha": -1.0}, "alpha=-1.0 is not a level"),
        ("pairs", {"worst": 5}, "worst=5 is not one of the 2 pairs"),
        ("pairs", {"method": 3}, "method=3 is not a string"),
        ("curve", {"draws": "x"}, "draws='x' is not a mapping"),
        ("exact", {"p": []}, "not two pmfs"),
        ("exact", {"p": "x"}, "p and q must be lists of probabilities"),
        ("onerun", {"pvalue": None}, "a claim is tested by its p-value"),
        ("onerun", {"n_correct": 10**6}, "is not a count of guesses"),
        ("onerun", {"delta": 2.5}, "delta=2.5 is not in"),
    ],
)
def test_hand_edited_json_of_wrong_types_or_another_claim_is_refused(saved, which, changes, message):
    """Loaded JSON is checked for the types its fields hold and for a claim that agrees with the rest.

    Detects: a reload that accepts a trade-off result relabelled as an (epsilon, delta) claim (its
    summary then crashes on the missing delta bound), an (epsilon, delta) result whose summary states
    "no violation" beside an epsilon bound above the claim, a result with no claim at all, a p-value
    outside [0, 1] or a level outside (0, 1), a string where a number is recorded (a raw TypeError
    on reload, or a summary that formats it), or an event counted more often than it was drawn; and for
    the other result types a missing recorded bound, a worst pair that is not one of the pairs, pmfs of
    different lengths, a one-run claim without its p-value or more correct guesses than guesses (each a raw
    TypeError, ValueError or AttributeError when its summary was printed).
    """
    from dpverify.errors import ResultFormatError

    data = saved[which]
    cls = {
        "pairs": dpverify.PairAuditResult,
        "curve": dpverify.DeltaCurve,
        "exact": dpverify.ExactPrivacyLoss,
        "onerun": dpverify.OneRunAuditResult,
    }.get(which, dpverify.AuditResult)
    assert cls.from_dict(data).to_dict() == data  # unedited, it reloads
    with pytest.raises(ResultFormatError, match=message):
        cls.from_dict(_edited(data, **changes))


# -- kinds' bounds and impossible claims ------------------------------------------------------


def test_a_custom_kind_whose_bound_is_nan_is_refused_naming_the_kind():
    """Detects: a kind's NaN certified bound read as "no violation" (every comparison with NaN is False)."""
    from dataclasses import replace

    from dpverify.claims import claim_kind, register_claim_kind, unregister_claim_kind

    # the built-in records with a bound that is NaN: one kind reads events, the other cells
    events = replace(claim_kind("gdp"), name="nan-events", event_bound=lambda claim, p, q: np.full(np.shape(p), np.nan))
    cells = replace(
        claim_kind("zcdp"), name="nan-cells", cells_bound=lambda claim, orders, divergences: (float("nan"), 2.0)
    )
    for kind, claim in ((events, dict(mu=0.5)), (cells, dict(rho=0.5))):
        register_claim_kind(kind)
        try:
            with pytest.raises(dpverify.InvalidClaimError, match=f"claim kind '{kind.name}'.*NaN"):
                dpverify.audit(RR, 0, 1, claim=dpverify.PrivacyClaim(kind=kind.name, **claim), n_samples=4_000, seed=1)
        finally:
            unregister_claim_kind(kind.name)


@pytest.mark.parametrize(
    "f, message",
    [
        (lambda a: np.ones_like(np.asarray(a, dtype=float)), "impossible"),
        (lambda a: np.clip(1.05 - np.asarray(a, dtype=float), 0, 1), "impossible"),
        ([(0.0, 1.0), (0.2, 0.9)], "impossible"),
        (lambda a: np.where(np.asarray(a) < 0.5, 0.5 - 0.2 * np.asarray(a), 0.8 - 0.8 * np.asarray(a)), "convex"),
        ([(0.0, 0.9), (0.5, 0.45), (0.6, 0.0)], "convex"),
    ],
)
def test_an_impossible_tradeoff_claim_is_refused_when_made(f, message):
    """A trade-off function is convex with f(a) <= 1 - a (Dong, Roth and Su 2022, Proposition 2.2);
    a claim that breaks either is refused as it is made.

    Detects: ``f = 1`` (no test has power) accepted and then reported as the mechanism's violation.
    """
    with pytest.raises(dpverify.InvalidClaimError, match=message):
        dpverify.PrivacyClaim.tradeoff(f)


# -- one margin for every kind -----------------------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        dpverify.PrivacyClaim(0.5),
        dpverify.PrivacyClaim(2.0),
        RR.claims[1],
        dpverify.PrivacyClaim.zcdp(0.1),
        dpverify.PrivacyClaim.tradeoff([(0.0, 0.9), (0.5, 0.3), (1.0, 0.0)]),
    ],
    ids=str,
)
def test_the_margin_is_one_measure_for_every_kind(claim):
    """``margin`` is ``bound / claimed - 1`` (a trade-off claim's value is 0: its depth), positive exactly
    when the bound exceeds the claim, saved by ``to_dict`` and recomputed (not read) on reload.

    Detects: a margin on another scale for one kind (a difference for eps, a ratio for rho), one whose
    sign disagrees with the bound's side of the claim, or a saved margin read back unchecked.
    """
    result = dpverify.audit(RR, 0, 1, claim=claim, n_samples=4_000, seed=1)
    bound, claimed = result.claim_lower_bound, claim.parameter
    expected = bound / claimed - 1 if claimed > 0 else bound
    assert result.margin == pytest.approx(expected, rel=1e-12) and (result.margin > 0) == (bound > claimed)
    data = result.to_dict()
    assert data["margin"] == result.margin
    assert dpverify.AuditResult.from_dict(data | {"margin": 99.0}).margin == result.margin
    oracle = dpverify.oracle_claim_bound(*PMFS, claim, 4_000)
    assert oracle.margin == pytest.approx(claim.margin(oracle.claim_lower_bound)) and "margin" in oracle.to_dict()


def test_a_result_with_no_seed_says_so_whatever_it_is_given():
    """Detects: a replay of a given-samples result that answers the number of inputs first ("an AuditResult
    replays from mechanism, x, x_prime; got 2 inputs"), sending the user after a mechanism that would not
    make it replayable; and the article of the type's name ("a AuditResult"). Deterministic."""
    samples = np.arange(2_000) % 2
    given = dpverify.audit_samples(samples, 1 - samples, epsilon=1.0)
    for inputs in ((), (samples, 1 - samples), (RR, 0, 1)):
        with pytest.raises(dpverify.errors.NotReplayableError, match="no seed"):
            dpverify.replay(given, *inputs)
    drawn = dpverify.audit(RR, 0, 1, epsilon=1.0, n_samples=4_000, seed=1)
    with pytest.raises(dpverify.InvalidParameterError, match="^an AuditResult replays from mechanism, x, x_prime"):
        drawn.replay(RR, 0)
