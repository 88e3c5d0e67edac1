"""The kind of finding (dpverify.audits.findings): "leaks through its rounding" only when the value events disagree.

Fixed-seed, deterministic checks. A floating-point event (a mantissa code that includes the binade)
can decide an audit of a float-safe mechanism with no violation; the audit must then name the family
and nothing more, in ``summary()``, JSON, the HTML report and the CLI.
"""

from __future__ import annotations

import json
import textwrap

import pytest

import dpverify
from dpverify.audits.findings import ROUNDING_SHARE, classify_finding
from dpverify.audits.results import EventEstimate, ValueVerdict
from dpverify.cli import main
from dpverify.mechanisms.textbook import LaplaceMechanism

LEAK = "leaks through its rounding"


@pytest.fixture(scope="module")
def float_safe_audit():
    """A float-safe Laplace whose certified bound comes from a mantissa event (no violation)."""
    result = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=200_000, seed=2)
    assert result.event.family == "mantissa"  # the situation the check is about
    return result


def test_a_float_event_without_a_violation_is_not_called_a_rounding_leak(float_safe_audit):
    """Detects an audit that calls every verdict decided by a floating-point event a rounding leak
    (the wording before the kind of finding was recorded): the value events on the same samples
    certify 0.986 here, more than the mantissa event's 0.979, and nothing is violated."""
    result = float_safe_audit
    assert not result.violation and result.finding == "none"
    text = result.summary()
    assert LEAK not in text
    assert "the bound comes from the floating-point event family 'mantissa'" in text
    assert result.value_verdict is not None and "value events only (same samples)" in text
    payload = json.loads(result.to_json())
    assert payload["finding"] == "none"
    assert dpverify.AuditResult.from_json(result.to_json()) == result
    del payload["finding"]  # a result saved before the kind of finding was recorded
    assert dpverify.AuditResult.from_dict(payload).finding == "none"


def test_the_html_report_says_the_same(float_safe_audit, tmp_path):
    """Detects a report that keeps its own rounding-leak sentence whatever the kind of finding."""
    from dpverify.extras.report import write_report

    path = write_report(
        float_safe_audit,
        tmp_path / "audit.md",
        mechanism=LaplaceMechanism(1.0),
        x=0.0,
        x_prime=1.0,
        max_replay_samples=10_000,  # the figure only: the text does not depend on it
    )
    text = path.read_text()
    assert LEAK not in text
    assert "kind of finding" in text and "| none" in text


def test_a_textbook_float_laplace_is_a_rounding_leak_in_every_output(tmp_path, monkeypatch, capsys):
    """Detects the opposite mistake: a real rounding leak (Mironov 2012; the value events keep the claim)
    no longer called one. The CLI's text and JSON carry the same kind of finding."""
    (tmp_path / "textbook_mechanisms.py").write_text(
        textwrap.dedent(
            """
            def textbook(x, rng):
                return float(x) + rng.laplace(scale=1.0)
            """
        )
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    args = ["audit", "textbook_mechanisms:textbook", "--x", "0", "--x-prime", "1", "--epsilon", "1"]
    args += ["--samples", "20000", "--seed", "3", "--alpha", "1e-6", "--quiet"]
    assert main(args) == 1
    assert LEAK in capsys.readouterr().out
    assert main(args + ["--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    assert payload["finding"] == "rounding" and payload["value_verdict"]["violation"] is False


def _verdict(epsilon_lower_bound: float, violation: bool) -> ValueVerdict:
    event = EventEstimate("output < 0", "threshold", "x", 0.5, 0.1, 50, 10, 100)
    return ValueVerdict(epsilon_lower_bound, 0.0, 0.01 if violation else 1.0, violation, event, alpha=0.05)


@pytest.mark.parametrize(
    "family, value_verdict, expected",
    [
        ("threshold", None, "value"),
        ("mantissa", None, "floating-point"),
        ("mantissa", _verdict(0.9, False), "rounding"),
        # a wrong noise scale seen by both families alike (mantissa 1.88 vs values 1.90): not a float leak
        ("mantissa", _verdict(1.90, True), "value"),
        ("reachability", _verdict(1.0 + ROUNDING_SHARE * 0.88 - 0.01, True), "rounding"),
        ("reachability", _verdict(1.0 + ROUNDING_SHARE * 0.88 + 0.01, True), "value"),
    ],
)
def test_the_kind_of_finding_follows_the_value_events(family, value_verdict, expected):
    """Detects a rule that ignores the value verdict (a wrong epsilon reported as a float leak)."""
    kind = classify_finding(
        violation=True, family=family, epsilon_lower_bound=1.88, claimed_epsilon=1.0, value_verdict=value_verdict
    )
    assert kind == expected
    no_violation = classify_finding(
        violation=False, family=family, epsilon_lower_bound=0.9, claimed_epsilon=1.0, value_verdict=value_verdict
    )
    assert no_violation == "none"
