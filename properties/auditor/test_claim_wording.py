"""Every message about a claim speaks in the claim's own form: its errors, its summaries and its labels.

A claim of another kind than (epsilon, delta)-DP is sized, and a search's pairs ranked, on an epsilon scale;
the messages must still name the claim audited (``rho=0.5 (zCDP)``), and say which scale a figure is on.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpverify
from dpverify import PrivacyClaim
from dpverify.errors import InsufficientSamplesError
from dpverify.mechanisms import LaplaceMechanism

CLAIMS = [
    PrivacyClaim.zcdp(0.5),
    PrivacyClaim.gdp(1.0),
    PrivacyClaim.renyi(2.0, 0.5),
    PrivacyClaim.renyi([2.0, 4.0], [0.5, 1.0]),
    PrivacyClaim.tradeoff([(0.0, 0.9), (0.5, 0.3), (1.0, 0.0)]),
]
DRIVERS = {
    "audit": lambda c: dpverify.audit(LaplaceMechanism(1.0), 0, 1, claim=c, n_samples=6, seed=1),
    "sequential_audit": lambda c: dpverify.sequential_audit(LaplaceMechanism(1.0), 0, 1, claim=c, n_samples=8, seed=1),
    "search_audit": lambda c: dpverify.search_audit(LaplaceMechanism(1.0), [(0, 1)], claim=c, n_samples=6, seed=1),
    "audit_samples": lambda c: dpverify.audit_samples(np.zeros(12), np.ones(12), claim=c, n_selection=6),
}


@pytest.mark.parametrize("driver", DRIVERS)
@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.kind_record.describe(c))
def test_too_few_samples_names_the_claim_in_its_own_form(driver, claim):
    """Detects: an error that names the (eps = 1, delta = 0) claim that sizes the certification instead of the
    claim audited (tried: the old ``eps={epsilon:g}, delta={delta:g}`` wording fails every case)."""
    with pytest.raises(InsufficientSamplesError) as info:
        DRIVERS[driver](claim)
    message = str(info.value)
    assert claim.kind_record.describe(claim) in message, message
    assert "eps=1, delta=0" not in message


def test_too_few_samples_under_eps_delta_keeps_its_wording():
    with pytest.raises(InsufficientSamplesError, match=r"eps=1, delta=1e-06 at alpha=0.05"):
        dpverify.audit(LaplaceMechanism(1.0), 0, 1, epsilon=1.0, delta=1e-6, n_samples=6, seed=1)


def test_renyi_label_is_the_one_of_the_claim_at_hand():
    """One order: the Rényi epsilon at that order; a curve: its scale. A summary prints the one at hand.

    Detects: one label for both forms (the old "Rényi epsilon (one order) or curve scale (a curve)")."""
    one, curve = PrivacyClaim.renyi(2.0, 0.5), PrivacyClaim.renyi([2.0, 4.0], [0.5, 1.0])
    assert one.parameter_name == "Rényi epsilon at order 2"
    assert curve.parameter_name.startswith("the Rényi curve's scale")
    assert PrivacyClaim.zcdp(0.5).parameter_name == "rho" and PrivacyClaim(1.0).parameter_name == "epsilon"
    result = dpverify.audit(LaplaceMechanism(1.0), 0, 1, claim=one, n_samples=20_000, seed=1)
    assert "certified lower bound on Rényi epsilon at order 2:" in result.summary()
    assert " or " not in one.parameter_name + curve.parameter_name


@pytest.mark.parametrize(
    "claim, scale",
    [
        (PrivacyClaim.zcdp(0.5), "(on pure epsilon, the scale pairs are ranked on; rho is certified"),
        (PrivacyClaim.gdp(1.0), "(on mu)"),
        (PrivacyClaim(1.0), "(on epsilon)"),
    ],
    ids=["zcdp", "gdp", "dp"],
)
def test_search_summary_says_the_scale_of_its_predicted_bounds(claim, scale):
    """A zCDP search ranks pairs on pure epsilon (cells are chosen for the chosen pair only); its summary says
    so, and a kind ranked on its own parameter names it.

    Detects: epsilon-scale predicted bounds printed beside a rho claim without a word (the old line)."""
    result = dpverify.search_audit(LaplaceMechanism(1.0), [(0, 1), (0, 0.5)], claim=claim, n_samples=20_000, seed=1)
    line = next(line for line in result.summary().split("\n") if line.startswith("top predicted bounds"))
    assert line.startswith(f"top predicted bounds in screening {scale}"), line
    from dpverify.extras.report import _search_rows  # the report's search row says the same

    row = _search_rows(result)[0][1]
    assert row.endswith(f"predicted bounds {result.predicted_bound_scale}") and scale[1:].rstrip(")") in row, row


@pytest.mark.parametrize("claim", [PrivacyClaim(1.0), *CLAIMS], ids=lambda c: c.kind_record.describe(c))
def test_pair_audit_lines_state_the_bound_the_worst_pair_is_chosen_by(claim):
    """Each pair's line of an ``audit_pairs`` summary states its certified bound on the claim's own parameter,
    the one the worst pair is chosen by. Detects: every pair's line reading "epsilon lower bound" with the
    pure-epsilon bound under a zCDP, Rényi, Gaussian DP or trade-off claim, beside a worst pair chosen by
    another figure. Deterministic (fixed seed)."""
    result = dpverify.audit_pairs(LaplaceMechanism(1.0), [(0, 1), (1, 3)], claim=claim, n_samples=4_000, seed=1)
    lines = [line for line in result.summary().splitlines() if line.startswith("pair ")]
    assert len(lines) == 2
    for line, pair in zip(lines, result.results):
        assert f"lower bound on {claim.parameter_name} {pair.claim_lower_bound:.4g}" in line, line
