"""One convention for every result a public function returns.

Each result class derives from ``dpverify._results.Result``: ``to_dict()`` gives JSON-serialisable
plain data, ``to_json``/``from_json`` round-trip it (one convention for infinity), ``summary()``
reads it, ``replay(...)`` runs it again or refuses by name; statistical results carry their
``alpha``; a verdict is called ``violation`` everywhere (``pvalue <= alpha``); frozen dataclasses
stay frozen; and every returned type is exported from ``dpverify``.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import json
import typing

import numpy as np
import pytest

import dpverify
from dpverify.audits.oracle import oracle_epsilon_bound
from dpverify.cli.suite import Verification, VerificationOutcome, run_suite
from dpverify.mechanisms.textbook import LaplaceMechanism, RandomizedResponse
from dpverify.testing import audit_pairs

#: Modules whose functions users call for results (the engine's building blocks --
#: sampling, selection, outputs, events -- keep their internal types to themselves).
RESULT_MODULES = [
    "audits.pair",
    "audits.given_samples",
    "audits.sequential",
    "audits.delta_curve",
    "audits.exact",
    "audits.distributions",
    "audits.oracle",
    "audits.family_wise",
    "audits.one_run",
    "audits.one_run_fdp",
    "testing.assertions",
    "cli.suite",
]
#: Result types reached through another result's fields rather than a return annotation.
NESTED = [dpverify.EventEstimate, dpverify.ValueVerdict, dpverify.Look, dpverify.CertifiedEvent]
#: Other names a verdict might have been given; none of them may appear.
OTHER_VERDICT_NAMES = {"rejected", "reject", "significant", "violated", "is_violation", "found"}


class Die:
    def __call__(self, rng):
        return int(rng.integers(6))


def _dpverify_classes(annotation):
    """The dpverify classes named by a return annotation (generic arguments included)."""
    if isinstance(annotation, type) and annotation.__module__.startswith("dpverify"):
        yield annotation
    for arg in typing.get_args(annotation):
        yield from _dpverify_classes(arg)


def _returned_types():
    for name in RESULT_MODULES:
        module = importlib.import_module(f"dpverify.{name}")
        for member in module.__all__:
            function = getattr(module, member)
            if inspect.isfunction(function):
                hints = typing.get_type_hints(function)
                assert "return" in hints, f"dpverify.{name}.{member} has no return annotation"
                for cls in _dpverify_classes(hints["return"]):
                    yield f"dpverify.{name}.{member}", cls
    for function in dpverify.__all__:
        obj = getattr(dpverify, function)
        if inspect.isfunction(obj):
            for cls in _dpverify_classes(typing.get_type_hints(obj).get("return")):
                yield f"dpverify.{function}", cls


@pytest.mark.parametrize("where, cls", sorted(set(_returned_types()), key=lambda t: (t[0], t[1].__name__)))
def test_every_returned_type_is_exported(where, cls):
    assert cls.__name__ in dpverify.__all__, f"{where} returns {cls.__name__}, which dpverify does not export"
    assert getattr(dpverify, cls.__name__) is cls


def test_the_walk_finds_the_result_types():
    found = {cls for _, cls in _returned_types()}
    assert {
        dpverify.AuditResult,
        dpverify.PairAuditResult,
        dpverify.SequentialAuditResult,
        dpverify.DeltaCurve,
        dpverify.OracleBound,
        dpverify.VerificationRecord,
        dpverify.DistributionTestResult,
        dpverify.ExactPrivacyLoss,
    } <= found
    for cls in NESTED:
        assert cls.__name__ in dpverify.__all__


@pytest.fixture(scope="module")
def results():
    rr = RandomizedResponse(1.0)
    audit = dpverify.audit(lambda x, rng: x + rng.laplace(), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1)
    assert audit.value_verdict is not None  # a floating-point event decides: the value verdict is set
    sequential = dpverify.sequential_audit(rr, 0, 1, epsilon=0.5, n_samples=40_000, seed=2)
    curve = dpverify.delta_lower_bound_curve(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilons=[0.5, 1.0], n_samples=20_000, seed=3
    )
    keep = np.exp(1.0) / (1 + np.exp(1.0))
    exact = dpverify.exact_privacy_loss({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep})
    equal = dpverify.equal_distributions(Die(), Die(), n_samples=2_000, seed=4)
    fit = dpverify.goodness_of_fit(Die(), {i: 1 / 7 for i in range(7)}, n_samples=2_000, seed=5)
    impossible = dpverify.goodness_of_fit(Die(), {0: 0.5, 1: 0.5}, n_samples=200, seed=5)
    oracle = oracle_epsilon_bound({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep}, 10_000)
    zcdp = dpverify.audit(rr, 0, 1, claim=rr.claims[1], n_samples=20_000, seed=8)
    oracle_claim = dpverify.oracle_claim_bound({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep}, rr.claims[1], 10_000)
    pairs = audit_pairs(rr, [(0, 1), (1, 0)], epsilon=1.0, n_samples=5_000, seed=6)
    search = dpverify.search_audit(rr, [(0, 1), (1, 0)], epsilon=1.0, n_samples=5_000, seed=7)
    outcome = VerificationOutcome(passed=True, certified_lower_bound=float("inf"), details="x")
    bits = np.arange(40) % 2 == 0
    one_run = dpverify.one_run_audit(
        np.where(bits, 1.0, -1.0), bits, claim=dpverify.PrivacyClaim(0.5, 1e-5, source="a test"), grid=[(5, 5), (20, 0)]
    )
    one_run_fdp = dpverify.one_run_fdp_audit(
        np.where(bits, 1.0, -1.0), bits, claim=dpverify.PrivacyClaim.gdp(0.5, source="a test"), grid=[(5, 5), (20, 0)]
    )
    records = run_suite([Verification("test/inf", "statement", lambda seed: outcome, claim=rr.claim)], seed=0)
    return {
        "AuditResult": audit,
        "ValueVerdict": audit.value_verdict,
        "EventEstimate": audit.event,
        "SequentialAuditResult": sequential,
        "Look": sequential.looks[0],
        "DeltaCurve": curve,
        "CertifiedEvent": curve.events[0],
        "ExactPrivacyLoss": exact,
        "DistributionTestResult": equal,
        "DistributionTestResult (fit)": fit,
        "DistributionTestResult (impossible output)": impossible,
        "OracleBound": oracle,
        "AuditResult (zCDP, cells)": zcdp,
        "PartitionEstimate": zcdp.partition,
        "OracleClaimBound": oracle_claim,
        "PairAuditResult": pairs,
        "SearchAuditResult": search,
        "ScreenedCandidate": search.candidates[0],
        "VerificationOutcome": outcome,
        "VerificationRecord": records[0],
        "AuditOptions": audit.options,
        "PrivacyClaim": dpverify.PrivacyClaim(1.0, 1e-6, neighbouring="one record", source="a test"),
        "OneRunAuditResult": one_run,
        "OneRunFdpAuditResult": one_run_fdp,
    }


STATISTICAL = {
    "AuditResult",
    "OracleClaimBound",
    "ValueVerdict",
    "SequentialAuditResult",
    "Look",
    "DeltaCurve",
    "DistributionTestResult",
    "OracleBound",
    "PairAuditResult",
    "SearchAuditResult",
    "OneRunAuditResult",
    "OneRunFdpAuditResult",
}
WITH_VERDICT = {
    "AuditResult",
    "ValueVerdict",
    "SequentialAuditResult",
    "Look",
    "DistributionTestResult",
    "PairAuditResult",
    "SearchAuditResult",
    "OneRunAuditResult",
    "OneRunFdpAuditResult",
}


def test_every_result_has_a_json_serialisable_to_dict(results):
    for name, result in results.items():
        data = result.to_dict()
        assert isinstance(data, dict), name
        text = json.dumps(data)  # plain data only: no numpy scalars, arrays, frozensets or dataclasses
        assert json.loads(text).keys() == data.keys(), name


def test_every_exported_result_class_is_covered(results):
    covered = {type(r).__name__ for r in results.values()}
    for name in dpverify.__all__:
        obj = getattr(dpverify, name)
        if dataclasses.is_dataclass(obj) and name != "Verification":  # Verification holds a callable
            assert name in covered, f"{name} has no to_dict check"


def test_statistical_results_carry_alpha_and_one_verdict_name(results):
    for name, result in results.items():
        kind = name.split(" ")[0]
        if kind in STATISTICAL:
            assert 0 < result.alpha < 1, name
            assert result.to_dict()["alpha"] == result.alpha, name
        if kind in WITH_VERDICT:
            assert isinstance(result.violation, bool), name
            assert result.to_dict()["violation"] is result.violation, name
            if hasattr(result, "pvalue"):
                assert result.violation == (result.pvalue <= result.alpha), name
        names = set(result.to_dict()) | {n for n in dir(result) if not n.startswith("_")}
        assert not names & OTHER_VERDICT_NAMES, (name, names & OTHER_VERDICT_NAMES)


def test_round_trips_and_frozen(results):
    audit, sequential = results["AuditResult"], results["SequentialAuditResult"]
    assert dpverify.AuditResult.from_json(audit.to_json()) == audit
    assert dpverify.SequentialAuditResult.from_dict(json.loads(json.dumps(sequential.to_dict()))) == sequential
    for name, result in results.items():
        if dataclasses.is_dataclass(result):
            field = dataclasses.fields(result)[0].name
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(result, field, None)
            assert dataclasses.replace(result) == result, name


def test_specific_conversions(results):
    assert results["OracleBound"].to_dict()["event"] == [0]
    assert results["DistributionTestResult (impossible output)"].to_dict()["unexpected_outputs"]
    assert results["DistributionTestResult (impossible output)"].violation
    assert results["VerificationRecord"].to_dict()["certified_lower_bound"] == float("inf")
    assert results["VerificationOutcome"].to_dict()["certified_lower_bound"] == float("inf")
    assert len(results["ExactPrivacyLoss"].to_dict()["p"]) == 2


def test_a_verification_carries_its_claim_as_data():
    """A verification states its privacy claim as a PrivacyClaim, and the suite report carries it.

    Detects: a claim given as words (the old ``claim="eps = 1"``) accepted silently, or a report
    row that drops the claim or mixes it up with the statement.
    """
    from dpverify.errors import InvalidParameterError

    claim = dpverify.PrivacyClaim(1.0, neighbouring="|x - x'| <= 1", source="a test")
    with pytest.raises(InvalidParameterError, match="statement"):
        Verification("test/words", "statement", lambda seed: VerificationOutcome(True), claim="eps = 1")
    (record,) = run_suite(
        [Verification("test/claim", "eps = 1", lambda seed: VerificationOutcome(True), claim)], seed=0
    )
    data = json.loads(json.dumps(record.to_dict()))
    assert data["statement"] == "eps = 1" and dpverify.PrivacyClaim(**data["claim"]) == claim


#: The top-level results (the nested parts -- events, looks, candidates -- travel inside them).
TOP_LEVEL = {
    "AuditResult",
    "SequentialAuditResult",
    "SearchAuditResult",
    "DeltaCurve",
    "ExactPrivacyLoss",
    "DistributionTestResult",
    "DistributionTestResult (fit)",
    "DistributionTestResult (impossible output)",
    "OracleBound",
    "PairAuditResult",
    "VerificationOutcome",
    "VerificationRecord",
    "OneRunAuditResult",
    "OneRunFdpAuditResult",
}


def test_every_result_type_derives_from_the_one_base(results):
    from dpverify._results import Result

    for name in TOP_LEVEL:
        assert isinstance(results[name], Result), name
    for name in dpverify.__all__:
        obj = getattr(dpverify, name)
        if isinstance(obj, type) and (name.endswith("Result") or name in {"DeltaCurve", "OracleBound"}):
            assert issubclass(obj, Result), name


@pytest.mark.parametrize("name", sorted(TOP_LEVEL))
def test_every_result_type_round_trips_through_json(results, name):
    """README's idiom ``type(r).from_json(r.to_json()) == r`` holds for every type.

    Detects: a from_dict that loses or mistypes a field (tuples, sets, arrays, nested results, inf), an
    ``==`` that raises on array fields (DeltaCurve's did), or an output saved as its repr that no longer
    equals the output (DistributionTestResult's unexpected outputs did).
    """
    result = results[name]
    text = result.to_json()
    back = type(result).from_json(text)
    assert type(back) is type(result)
    assert back.to_json() == text
    assert back == result and result == back and not back != result, name
    assert isinstance(back.summary(), str) and back.summary() == result.summary(), name


def test_an_impossible_output_reloads_as_its_repr(results):
    result = results["DistributionTestResult (impossible output)"]
    back = dpverify.DistributionTestResult.from_json(result.to_json())
    assert [repr(o) for o in back.unexpected_outputs] == [repr(o) for o in result.unexpected_outputs]


def test_audit_result_from_json_gives_the_drivers_type(results):
    """Detects: AuditResult.from_json of a search or sequential result raising a raw TypeError."""
    for name in ("SearchAuditResult", "SequentialAuditResult", "AuditResult"):
        back = dpverify.AuditResult.from_json(results[name].to_json())
        assert type(back) is type(results[name]) and back == results[name], name


def test_from_json_of_data_it_cannot_hold_raises_a_named_error(results):
    from dpverify.errors import ResultFormatError

    search = results["SearchAuditResult"].to_json()
    with pytest.raises(ResultFormatError, match="SearchAuditResult"):
        dpverify.SequentialAuditResult.from_json(search)
    with pytest.raises(ResultFormatError, match="has no fields"):
        dpverify.DeltaCurve.from_json(search)
    with pytest.raises(ResultFormatError, match="JSON"):
        dpverify.AuditResult.from_json("{not json")
    with pytest.raises(ResultFormatError, match="dict"):
        dpverify.OracleBound.from_json("[1, 2]")
    partial = json.loads(results["OracleBound"].to_json())
    del partial["alpha"]
    with pytest.raises(ResultFormatError, match="lacks"):
        dpverify.OracleBound.from_dict(partial)


def test_one_convention_for_infinity_and_the_old_one_still_reads(results):
    """Non-finite numbers: floats in to_dict, Infinity in to_json; a 0.1 suite report's "inf" reads back."""
    record = results["VerificationRecord"]
    assert "Infinity" in record.to_json() and '"inf"' not in record.to_json()
    old = record.to_dict() | {"certified_lower_bound": "inf", "exact_loss": "-inf"}
    back = dpverify.VerificationRecord.from_dict(old)
    assert back.certified_lower_bound == float("inf") and back.exact_loss == float("-inf")
    infinite = dpverify.exact_privacy_loss({0: 1.0}, {0: 0.5, 1: 0.5})
    assert '"epsilon": Infinity' in infinite.to_json()
    assert dpverify.ExactPrivacyLoss.from_json(infinite.to_json()).epsilon == float("inf")


def test_every_replayable_result_replays_and_the_others_refuse_by_name(results):
    """Detects: a replay that forgets a recorded setting (grid, method, budgets), or a silent non-replay."""
    from dpverify.errors import NotReplayableError

    rr = RandomizedResponse(1.0)
    keep = np.exp(1.0) / (1 + np.exp(1.0))
    pmfs = ({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep})
    inputs = {
        "AuditResult": (lambda x, rng: x + rng.laplace(), 0.0, 1.0),
        "SequentialAuditResult": (rr, 0, 1),
        "DeltaCurve": (LaplaceMechanism(1.0), 0.0, 1.0),
        "PairAuditResult": (rr, [(0, 1), (1, 0)]),
        "SearchAuditResult": (rr, [(0, 1), (1, 0)]),
        "ExactPrivacyLoss": pmfs,
        "OracleBound": pmfs,
    }
    for name, args in inputs.items():
        result = results[name]
        again = type(result).from_json(result.to_json()).replay(*args)
        assert again.to_json() == result.to_json(), name
        assert dpverify.replay(result, *args).to_json() == result.to_json(), name
    for name in ("DistributionTestResult", "VerificationRecord", "VerificationOutcome"):
        with pytest.raises(NotReplayableError, match="cannot be replayed: .{20,}"):
            results[name].replay()
    given = dpverify.audit_samples([0] * 50 + [1] * 50, [1] * 60 + [0] * 40, epsilon=1.0)
    with pytest.raises(NotReplayableError, match="no seed"):
        given.replay(rr, 0, 1)


#: The results of the fixture that are Result types: the top-level ones and the other claim kinds' ones.
CONTRACT_CASES = sorted(TOP_LEVEL | {"AuditResult (zCDP, cells)", "OracleClaimBound"})


@pytest.mark.parametrize("name", CONTRACT_CASES)
def test_every_result_passes_the_public_contract(results, name):
    """``dpverify.testing.check_result`` on every result type: fields of their declared types, equality,
    a JSON round trip to an equal result, a summary. Detects a result type that a third party's check
    would reject (it found three: DeltaCurve's equality raised, outputs saved as reprs reloaded unequal, and
    claimed_epsilon, annotated float, was None under a zCDP claim)."""
    from dpverify._results import Result
    from dpverify.testing import check_result

    assert {n for n, r in results.items() if isinstance(r, Result)} == set(CONTRACT_CASES)
    check_result(results[name])
