"""One result path for every claim kind: the kind record, not a branch on (epsilon, delta), shapes a result.

Deterministic checks (fixed seeds, no statistical threshold): each test fails only on wrong code.
"""

from __future__ import annotations

import dataclasses

import pytest

import dpverify
from dpverify import PrivacyClaim
from dpverify.claims import claim_kind, register_claim_kind, unregister_claim_kind
from dpverify.mechanisms import LaplaceMechanism, RandomizedResponse


def test_the_dp_summary_states_epsilon_and_the_delta_at_the_claimed_epsilon():
    """Detects: the (epsilon, delta) summary losing its delta bound (its bound lines are the kind record's)."""
    result = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=0.5, delta=1e-3, n_samples=4_000, seed=3)
    lines = result.summary().split("\n")
    assert lines[0].startswith("verdict: ") and "(eps=0.5, delta=0.001)" in lines[0]
    assert lines[1] == (
        f"certified lower bound on epsilon: {result.epsilon_lower_bound:.4g} (95% confidence); "
        f"lower bound on delta at eps=0.5: {result.delta_lower_bound:.3g}"
    )
    assert result.claim_lower_bound == result.epsilon_lower_bound
    assert f"to certify it); seed {result.seed}" in result.summary()


@pytest.mark.parametrize("claim", [PrivacyClaim.zcdp(0.5), PrivacyClaim.gdp(1.0)], ids=str)
def test_another_kind_summary_states_its_parameter_against_the_claim(claim):
    """Detects: a kind's summary printing the epsilon-scale wording, or the cells' samples line out of step."""
    result = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, claim=claim, n_samples=4_000, seed=3)
    lines = result.summary().split("\n")
    assert lines[1].startswith(
        f"certified lower bound on {claim.parameter_name}: {result.claim_lower_bound:.4g} against the claimed "
        f"{claim.parameter:g} (95% confidence)"
    )
    assert result.delta_lower_bound is None and result.claimed_epsilon is None
    them = "them" if result.partition is not None else "it"
    assert f"to certify {them}); seed {result.seed}" in result.summary()


def test_a_kinds_hooks_shape_its_result_and_summary():
    """Detects: a driver or summary that ignores the kind record's event_bounds / bound_lines (a second path)."""
    gdp = claim_kind("gdp")

    def halved(claim, p, n_p, q, n_q, alpha):
        bound, recorded = gdp.event_bounds(claim, p, n_p, q, n_q, alpha)
        return bound / 2, {**recorded, "claim_lower_bound": bound / 2}

    fields = {**gdp.__dict__, "name": "half-gdp", "event_bounds": halved, "event_pvalue": None}
    fields["bound_lines"] = lambda result: [f"half of mu is at least {result.claim_lower_bound:.4g}"]
    register_claim_kind(dataclasses.replace(gdp, **{k: v for k, v in fields.items() if k != "fields"}))
    try:
        claim = PrivacyClaim(kind="half-gdp", mu=1.0)
        result = dpverify.audit(RandomizedResponse(1.0), 0, 1, claim=claim, n_samples=20_000, seed=1)
        full = dpverify.audit(RandomizedResponse(1.0), 0, 1, claim=PrivacyClaim.gdp(1.0), n_samples=20_000, seed=1)
        assert result.claim_lower_bound == pytest.approx(full.claim_lower_bound / 2, rel=1e-12)
        assert result.summary().split("\n")[1] == f"half of mu is at least {result.claim_lower_bound:.4g}"
    finally:
        unregister_claim_kind("half-gdp")


def test_the_report_has_one_shape_for_every_kind():
    """Detects: a report that words a kind by a branch of its own (the (eps, delta) box check lost, another kind's
    box or sequential rows missing): the rows differ only where the kind record's report_rows / allows say."""
    from dpverify.extras.report import _facts

    mechanism = LaplaceMechanism(1.0)
    rows = {}
    for claim in (PrivacyClaim(1.0), PrivacyClaim.gdp(1.0)):
        result = dpverify.sequential_audit(mechanism, 0.0, 1.0, claim=claim, n_samples=8_000, seed=2)
        rows[claim.kind] = dict(_facts(result, "not re-checked", mechanism, 0.0, 1.0))
        assert rows[claim.kind]["claim"] == f"{claim} [{claim.kind_record.title}]"
        assert "sequential audit" in rows[claim.kind]
    dp_box, gdp_box = (rows[k][next(r for r in rows[k] if r.startswith("Clopper-Pearson"))] for k in ("dp", "gdp"))
    assert "the claim allows" in dp_box and "e^eps * " in dp_box
    assert "the claim allows" not in gdp_box and "P[M(x" in gdp_box
    assert "lower bound on delta at the claimed epsilon" in rows["dp"]
    assert (
        "certified lower bound on mu" in rows["gdp"]
        and "lower bound on delta at the claimed epsilon" not in rows["gdp"]
    )


def test_a_value_verdict_records_the_bounds_its_kind_names():
    """Detects: value verdicts that drop or invent a bound (ClaimKind.records): (eps, delta) records epsilon and
    delta, the other kinds the pure-epsilon bound and the parameter's, in a plain audit as in a search's value track;
    and every kind's verdict records the bound in the claim's own parameter (``claim_lower_bound``, the result
    table's field: epsilon at the claimed delta for (eps, delta))."""
    from dpverify.mechanisms import FloatGaussianMechanism

    mechanism = FloatGaussianMechanism(1.0, 1e-5)
    for claim in (PrivacyClaim(1.0), PrivacyClaim.gdp(1.0)):
        result = dpverify.audit(mechanism, 0.0, 1.0, claim=claim, n_samples=20_000, seed=2)
        verdict, records = result.value_verdict, claim.kind_record.records
        assert verdict is not None and set(records) <= {"epsilon_lower_bound", "delta_lower_bound", "claim_lower_bound"}
        assert all(getattr(verdict, name) is not None for name in records)
        assert verdict.claim_lower_bound is not None
    assert PrivacyClaim(1.0).kind_record.records == ("epsilon_lower_bound", "delta_lower_bound")
