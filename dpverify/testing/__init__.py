"""Helpers for test suites: privacy assertions for pytest/unittest and Hypothesis strategies.

- :func:`assert_dp`, :func:`per_example_alpha`, :func:`violation_message` (:mod:`.assertions`);
- :func:`audit_pairs`, the family-wise audit of many pairs (:mod:`dpverify.audits.family_wise`),
  re-exported here because test suites reach for it beside :func:`assert_dp`;
- the contract checks of extensions, :func:`check_event_family`, :func:`check_relation`,
  :func:`check_claim_kind`, :func:`check_mechanism`, :func:`check_result` and
  :func:`parametrize_with_checks` (:mod:`.contracts`);
- :mod:`.strategies`: Hypothesis strategies of neighbouring inputs (needs ``hypothesis``, the
  ``test`` extra; imported only when used).
"""

from ..audits.family_wise import PairAuditResult, audit_pairs
from .assertions import DEFAULT_TEST_ALPHA, assert_dp, per_example_alpha, violation_message
from .contracts import (
    check_claim_kind,
    check_event_family,
    check_mechanism,
    check_relation,
    check_result,
    parametrize_with_checks,
)

__all__ = [
    "assert_dp",
    "audit_pairs",
    "PairAuditResult",
    "per_example_alpha",
    "violation_message",
    "DEFAULT_TEST_ALPHA",
    "check_event_family",
    "check_relation",
    "check_claim_kind",
    "check_mechanism",
    "check_result",
    "parametrize_with_checks",
]
