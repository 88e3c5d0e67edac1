"""One rule for every claim kind: every event family runs, or the result says why it did not.

The floating-point families (Mironov 2012; :mod:`dpverify.events.floating`) find outputs reachable
from one input only. Under a claim that reads events ((epsilon, delta)-DP, Gaussian DP, trade-off
curves) such an event is certified as it is; under a claim that reads cells (zCDP, Rényi DP) it is
certified as the two-cell partition ``{S, not S}`` (:mod:`dpverify.pipeline.partition`), whose
Rényi divergence is infinite where ``S`` has probability 0 under the other input. Every other
family that did not run is named in the notes with the reason, for every kind.

The audits use fixed seeds at the suite's level (``suite_alpha``, 1e-6): each outcome is fixed, and
a correct auditor fails a "not flagged" assertion with probability below 1e-6. The flagged cases
have p-values far below it (a rounding event of probability about 0.4 under one input and 0 under
the other), so their power at these sizes is 1 to many decimals.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest

import dpverify
from dpverify import PrivacyClaim
from dpverify.claims import ClaimKind, register_claim_kind, unregister_claim_kind
from dpverify.claims.registry import claim_kind
from dpverify.events import default_families, event_family, families_of_role
from dpverify.mechanisms import FloatGaussianMechanism, RandomizedResponse
from dpverify.mechanisms.concentrated import ZCDPGaussian

pytestmark = pytest.mark.privacy_audit

REPO_ROOT = Path(__file__).resolve().parents[2]

#: Claims of the kinds that read cells, at budgets the float Gaussian below keeps in exact arithmetic
#: (its sigma = 1 on inputs 0 and 1 is 0.5-zCDP, and D_2 = 1).
CELLS_CLAIMS = {
    "zcdp": PrivacyClaim.zcdp(0.5),
    "renyi at one order": PrivacyClaim.renyi(2.0, 1.0),
    "renyi curve": PrivacyClaim.renyi([2.0, 8.0], [1.0, 4.0]),
}


def _float_gaussian():
    return FloatGaussianMechanism(1.0, 1e-5, sigma=1.0)


@pytest.mark.parametrize("name", list(CELLS_CLAIMS))
def test_the_float_gaussian_is_flagged_under_zcdp_and_renyi_claims(name, suite_alpha):
    """The textbook ``x + rng.normal(0, sigma)`` on doubles keeps its zCDP and Rényi budgets in exact
    arithmetic and leaks through its rounding (its true rho is infinite).

    Detects: the floating-point families skipped under a claim that reads cells (the gate before this
    rule: a pass with no word), or their events certified with the value cells' counts.
    """
    result = dpverify.audit(
        _float_gaussian(), 0.0, 1.0, claim=CELLS_CLAIMS[name], n_samples=20_000, seed=1, alpha=suite_alpha
    )
    assert result.violation and result.pvalue <= suite_alpha
    assert result.event.family in families_of_role("implementation")
    assert result.finding == "rounding"  # the value cells certify no violation on the same samples
    assert result.value_verdict is not None and not result.value_verdict.violation
    # no claimed epsilon, so no delta bound at it: None, not a 0 that reads as "no delta needed"
    assert result.delta_lower_bound is None and result.value_verdict.delta_lower_bound is None
    assert result.claim_lower_bound > 2 * result.claim.parameter
    assert result.partition.counts_x_prime[0] == 0 or result.partition.counts_x[0] == 0  # reachable from one input
    assert "rounding" in result.summary()


@pytest.mark.parametrize("claim", [PrivacyClaim.zcdp(0.5), PrivacyClaim.renyi(2.0, 1.0)], ids=["zcdp", "renyi"])
def test_diffprivlibs_gaussian_is_flagged_under_zcdp_and_renyi_claims(claim, suite_alpha):
    """diffprivlib's ``GaussianAnalytic`` (epsilon = 1, delta = 1e-5: sigma about 3.7, rho about 0.04 in exact
    arithmetic, well inside both claims) adds its noise on doubles: flagged through its rounding.

    Detects: the floating-point families skipped under a claim that reads cells.
    """
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    from diffprivlib.mechanisms import GaussianAnalytic

    from dpverify.extras.adapters.diffprivlib import DiffprivlibMechanism

    mechanism = DiffprivlibMechanism(GaussianAnalytic, epsilon=1.0, delta=1e-5, sensitivity=1.0)
    result = dpverify.audit(mechanism, 0.0, 1.0, claim=claim, n_samples=20_000, seed=4, alpha=suite_alpha)
    assert result.violation and result.event.family in families_of_role("implementation")
    assert result.finding == "rounding"


@pytest.mark.parametrize("claim", [PrivacyClaim.zcdp(0.5), PrivacyClaim.renyi(2.0, 1.0)], ids=["zcdp", "renyi"])
def test_python_dps_gaussian_is_flagged_under_zcdp_and_renyi_claims(claim, suite_alpha):
    """python-dp's ``GaussianMechanism`` (epsilon = 1, delta = 1e-5) adds its noise on doubles: flagged
    through its rounding under both claims that read cells. python-dp draws from its own generator, so
    the seed does not fix the outcome; the rounding event's p-value is below 1e-30 at this size, so a
    miss has probability far below ``suite_alpha``.

    Detects: the floating-point families skipped under a claim that reads cells.
    """
    pytest.importorskip("pydp", reason="python-dp is in the 'pydp' extra, not in 'test'")
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism

    from dpverify.extras.adapters.pydp import PyDPMechanism

    mechanism = PyDPMechanism(GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0))
    result = dpverify.audit(
        mechanism, 0.0, 1.0, claim=claim, n_samples=20_000, seed=4, alpha=suite_alpha, executor=None
    )
    assert result.violation and result.event.family in families_of_role("implementation")
    assert result.finding == "rounding"


def test_a_correct_grid_gaussian_is_not_flagged_and_its_float_check_ran(suite_alpha):
    """The zCDP Gaussian rounds its output to a power-of-two grid (no float leak): audited at its own exact
    rho, the floating-point families run and find nothing (seeds 0-2).

    Detects: a float event certified where it was chosen (on the selection samples) or compared at a
    winner's-curse estimate that beats the value cells on a correct mechanism; and a float family that
    stops running under zCDP (the notes would name it).
    """
    for seed in range(3):
        result = dpverify.audit(ZCDPGaussian(0.5), 0.0, 1.0, n_samples=30_000, seed=seed, alpha=suite_alpha)
        assert not result.violation, result.summary()
        assert "'mantissa'" not in " ".join(result.notes)  # it ran: only the families that did not are named


def _not_run(result) -> set:
    """The families the notes name as not used."""
    named = set()
    for note in result.notes:
        if " not used: " in note:
            named |= set(re.findall(r"'([^']+)'", note.split(" not used: ")[0]))
    return named


@pytest.mark.parametrize(
    "claim",
    [
        PrivacyClaim(5.0),
        PrivacyClaim.zcdp(0.5),
        PrivacyClaim.renyi(2.0, 1.0),
        PrivacyClaim.gdp(1.0),
        PrivacyClaim.tradeoff([(0.1, 0.5)]),
    ],
    ids=["dp", "zcdp", "renyi", "gdp", "tradeoff"],
)
@pytest.mark.parametrize("outputs", ["real", "discrete"])
def test_every_family_that_did_not_run_is_named_for_every_kind(claim, outputs):
    """Each default family either runs or is named in the notes with its reason, under every kind and output
    type: a real-output family on discrete outputs, a discrete one on doubles, and under a claim that reads
    cells every family but the floating-point ones.

    Detects: a family dropped without a word (the default families that do not fit the outputs were silent,
    and so was every family under zCDP and Rényi claims).
    """
    if outputs == "real":
        mechanism, x, x_prime = _float_gaussian(), 0.0, 1.0
    else:
        mechanism, x, x_prime = RandomizedResponse(1.0), 0, 1
    result = dpverify.audit(mechanism, x, x_prime, claim=claim, n_samples=4_000, seed=2)
    cells = claim.kind_record.reads == "cells"
    implementation = set(families_of_role("implementation"))
    expected = {
        name
        for name in default_families()
        if event_family(name).kind not in (outputs, "any") or (cells and name not in implementation)
    }
    named = _not_run(result)
    assert expected <= named, f"not named: {expected - named}"


def test_float_events_off_is_named_under_every_kind():
    """Detects: ``float_events=False`` leaving the floating-point families out without a word."""
    for claim in (PrivacyClaim(5.0), PrivacyClaim.zcdp(0.5)):
        result = dpverify.audit(_float_gaussian(), 0.0, 1.0, claim=claim, n_samples=4_000, seed=3, float_events=False)
        assert set(families_of_role("implementation")) <= _not_run(result)
        assert "float_events=False" in result.summary()


def test_a_third_party_kind_gets_the_float_rule_as_a_built_in_does():
    """A kind registered by a third party, reading cells like zCDP but under its own name, audits the float
    Gaussian exactly as the built-in does (the same bound, the same rounding finding).

    Detects: a driver that branches on a built-in kind's name (``kind == "zcdp"``) and so treats a
    third-party kind differently, or the float rule tied to the built-in kinds.
    """
    builtin = claim_kind("zcdp")
    mine = ClaimKind(**{**builtin.__dict__, "name": "my-zcdp", "title": "my rho-zCDP"})
    register_claim_kind(mine)
    try:
        theirs = dpverify.audit(
            _float_gaussian(), 0.0, 1.0, claim=PrivacyClaim(kind="my-zcdp", rho=0.5), n_samples=20_000, seed=1
        )
        ours = dpverify.audit(_float_gaussian(), 0.0, 1.0, claim=PrivacyClaim.zcdp(0.5), n_samples=20_000, seed=1)
    finally:
        unregister_claim_kind("my-zcdp")
    assert theirs.violation and theirs.finding == "rounding"
    assert (theirs.claim_lower_bound, theirs.pvalue, theirs.event) == (ours.claim_lower_bound, ours.pvalue, ours.event)


#: The built-in claim kinds' names: no module outside ``dpverify/claims/`` compares anything with them.
KIND_NAMES = {"dp", "zcdp", "renyi", "gdp", "tradeoff"}


def _kind_name_branches(path: Path) -> list:
    """``file:line`` of each comparison (``==``, ``!=``, ``in``, ``not in``) or ``match`` case with a string
    constant that is a built-in claim kind's name, and of each dict literal keyed by one."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        constants = []
        if isinstance(node, ast.Compare):
            for operand in [node.left, *node.comparators]:
                elements = operand.elts if isinstance(operand, ast.Tuple | ast.List | ast.Set) else [operand]
                constants += elements
        elif isinstance(node, ast.MatchValue):
            constants.append(node.value)
        elif isinstance(node, ast.Dict):
            constants += [k for k in node.keys if k is not None]
        if any(isinstance(c, ast.Constant) and c.value in KIND_NAMES for c in constants):
            found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    return found


def test_no_module_outside_claims_branches_on_a_claim_kinds_name():
    """A claim kind's behaviour lives on its :class:`~dpverify.claims.ClaimKind` record (``epsilon_delta``,
    ``audit_check``, ``reads``...), so a third-party kind behaves like a built-in.

    Detects: ``if claim.kind == "dp"`` (or ``!= "dp"``, ``in ("zcdp", "renyi")``, a ``match`` on the name,
    a table keyed by it) anywhere in ``dpverify/`` outside ``dpverify/claims/``.
    """
    root = REPO_ROOT / "dpverify"
    claims = root / "claims"
    branches = [
        b for path in sorted(root.rglob("*.py")) if claims not in path.parents for b in _kind_name_branches(path)
    ]
    assert branches == []


def _epsilon_delta_none_tests(path: Path) -> list:
    """``file:line`` of each test of a kind record's ``epsilon_delta`` against None (``is None``, ``is not None``,
    ``==``, ``!=``): a path chosen by the kind's shape instead of by a hook of the kind."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            attribute = any(isinstance(o, ast.Attribute) and o.attr == "epsilon_delta" for o in operands)
            none = any(isinstance(o, ast.Constant) and o.value is None for o in operands)
            if attribute and none:
                found.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    return found


def test_no_module_outside_claims_chooses_a_path_by_whether_a_kind_is_an_epsilon_delta_pair():
    """What differs between a kind whose claim is an (epsilon, delta) pair and the others (how events are ranked,
    the power note, the assertion message, the bound a value verdict records) is decided by the kind's record
    (:meth:`~dpverify.claims.ClaimKind.ranking_claim`, ``power_note``, ``violation_lines``,
    :meth:`~dpverify.claims.ClaimKind.as_epsilon_delta`), so a third-party kind decides it for itself.

    Detects: ``if claim.kind_record.epsilon_delta is None`` (or ``is not None``) anywhere in ``dpverify/``
    outside ``dpverify/claims/``.
    """
    root = REPO_ROOT / "dpverify"
    claims = root / "claims"
    tests = [
        t for path in sorted(root.rglob("*.py")) if claims not in path.parents for t in _epsilon_delta_none_tests(path)
    ]
    assert tests == []


@pytest.mark.parametrize(
    "claim", [PrivacyClaim(5.0, 1e-5), PrivacyClaim.zcdp(0.5), PrivacyClaim.gdp(1.5)], ids=["dp", "zcdp", "gdp"]
)
def test_a_value_verdict_carries_the_certified_bound_in_the_claims_parameter_for_every_kind(claim, suite_alpha):
    """A floating-point event decides on the float Gaussian; the value verdict beside it records, like the result,
    the certified bound in the claim's own parameter (``claim_lower_bound``): for (epsilon, delta) the epsilon
    bound at the claimed delta, which its ``epsilon_lower_bound`` also holds.

    Detects: an (epsilon, delta) value verdict that records ``claim_lower_bound=None`` (the one kind whose value
    verdict left the result table's field empty), or one that records another bound than the result's field.
    """
    result = dpverify.audit(_float_gaussian(), 0.0, 1.0, claim=claim, n_samples=20_000, seed=1, alpha=suite_alpha)
    verdict = result.value_verdict
    assert result.event.family in families_of_role("implementation") and verdict is not None
    assert verdict.claim_lower_bound is not None and verdict.claim_lower_bound >= 0
    if claim.kind == "dp":
        assert verdict.claim_lower_bound == verdict.epsilon_lower_bound
        assert result.claim_lower_bound == result.epsilon_lower_bound
    back = dpverify.AuditResult.from_json(result.to_json())
    assert back.value_verdict.claim_lower_bound == verdict.claim_lower_bound


def test_a_kind_copied_from_epsilon_delta_under_another_name_audits_as_it_does():
    """The (epsilon, delta) kind's record registered under another name audits exactly as the built-in does: the
    same sizing, selection and bounds (decided by the record's hooks, none by the built-in's name or identity), the
    same power note and assertion message, and the result keeps the claim as given (of its own kind); a
    third-party kind with a power note of its own (``ClaimKind.power_note``) gets it. Detects: a
    path chosen by the built-in kind's name, or a power note given only to kinds whose claim is an (epsilon,
    delta) pair (the check this hook replaced)."""
    from dpverify.claims.approximate import APPROXIMATE_DP
    from dpverify.testing import violation_message

    mine = ClaimKind(**{**APPROXIMATE_DP.__dict__, "name": "my-dp", "title": "my (epsilon, delta)-DP"})
    noted = ClaimKind(**{**claim_kind("gdp").__dict__, "name": "my-gdp", "power_note": lambda result: "my note"})
    register_claim_kind(mine)
    register_claim_kind(noted)
    try:
        runs, claims = {}, {"mine": PrivacyClaim.of("my-dp", epsilon=1.0, delta=0.0), "ours": PrivacyClaim(1.0)}
        for name, claim in claims.items():
            passes = dpverify.audit(RandomizedResponse(1.0), 0, 1, claim=claim, n_samples=20_000, seed=2)
            flagged = dpverify.audit(RandomizedResponse(2.0), 0, 1, claim=claim, n_samples=20_000, seed=2)
            assert passes.claim == flagged.claim == claim
            stated = [
                n for n in passes.notes if "differs from the one the mechanism states" not in n
            ]  # its kind's name
            runs[name] = (replace(passes, notes=tuple(stated), claim=None).to_json(), violation_message(flagged, 0, 1))
        gdp = dpverify.audit(
            RandomizedResponse(0.5), 0, 1, claim=PrivacyClaim.of("my-gdp", mu=2.0), n_samples=20_000, seed=3
        )
    finally:
        unregister_claim_kind("my-dp")
        unregister_claim_kind("my-gdp")
    assert runs["mine"] == runs["ours"]
    assert any(note.startswith("power:") for note in dpverify.AuditResult.from_json(runs["ours"][0]).notes)
    assert not gdp.violation and "my note" in gdp.notes
