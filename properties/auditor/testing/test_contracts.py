"""The public contract checks (``dpverify.testing``) pass on every built-in and name what a broken one breaks.

Every built-in event family, neighbouring relation, claim kind (through a claim of it) and zoo
mechanism goes through ``parametrize_with_checks``, the one line a third party writes; the
results are checked in ``properties/auditor/audits/test_results.py`` on its fixture of every
result type. Each check then meets one wrong extension and must fail naming it. The checks
draw fixed seeded samples and make no statistical decision (the sampler check of
``check_mechanism`` aside, at the audits' false-alarm rate 1e-9): nothing here can fail by chance.
"""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import numpy as np
import pytest

from dpverify import AuditResult, PrivacyClaim
from dpverify._results import Result
from dpverify.claims import BUILTIN_KINDS
from dpverify.events import BUILTIN_FAMILIES, Candidates, event_family
from dpverify.mechanisms import GeometricMechanism
from dpverify.mechanisms.catalogue import zoo_entries
from dpverify.neighbours import BUILTIN_RELATIONS, relation
from dpverify.testing import (
    check_claim_kind,
    check_event_family,
    check_mechanism,
    check_relation,
    check_result,
    parametrize_with_checks,
)

#: One claim of each built-in kind (two forms where a kind has two: with delta, a Rényi curve).
KIND_CLAIMS = [
    PrivacyClaim(1.0),
    PrivacyClaim(1.0, 1e-6),
    PrivacyClaim.zcdp(0.5),
    PrivacyClaim.renyi(2.0, 1.0),
    PrivacyClaim.renyi([2.0, 4.0], [1.0, 2.0]),
    PrivacyClaim.gdp(1.5),
    PrivacyClaim.tradeoff([(0.0, 0.9), (0.5, 0.2), (1.0, 0.0)]),
]
#: The boosted-trees family fits a model per build: its check runs in the thorough profile.
SLOW_FAMILIES = {"learned-trees"}


def test_every_builtin_kind_has_a_claim_in_the_contract():
    """Detects a built-in kind added without a claim to check it through (the families, relations and
    mechanisms are read from their tuples and the zoo, so a new one is checked without an edit here)."""
    assert {claim.kind for claim in KIND_CLAIMS} == {kind.name for kind in BUILTIN_KINDS}


@parametrize_with_checks(
    [
        *(record for record in BUILTIN_FAMILIES if record.name not in SLOW_FAMILIES),
        *BUILTIN_RELATIONS,
        *KIND_CLAIMS,
        *((entry.mechanism, entry.x, entry.x_prime) for entry in zoo_entries()),
    ]
)
def test_builtins_pass_the_contract(check):
    check()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SLOW_FAMILIES))
def test_slow_families_pass_the_contract(name, thorough):
    if not thorough:
        pytest.skip("the boosted-trees family's check fits 8 models: thorough profile")
    check_event_family(event_family(name))


# --------------------------------------------------------------------------------------
# each check fails on a wrong extension, naming it
# --------------------------------------------------------------------------------------


def test_a_family_with_unseeded_or_ill_shaped_candidates_fails():
    """Detects: a family whose answer depends on earlier calls (state or unseeded randomness: a second
    build differs), one count fewer than events, and an indicator that marks codes instead of booleans."""
    singleton = event_family("singleton")
    calls = []

    def noisy(sel_x, sel_x_prime, outputs):
        found = singleton.build(sel_x, sel_x_prime, outputs)
        calls.append(1)
        return Candidates(found.events, found.counts_x + len(calls), found.counts_x_prime)

    def short(sel_x, sel_x_prime, outputs):
        found = singleton.build(sel_x, sel_x_prime, outputs)
        return Candidates(found.events, found.counts_x[:-1], found.counts_x_prime[:-1])

    def codes(sel_x, sel_x_prime, outputs):
        found = singleton.build(sel_x, sel_x_prime, outputs)
        found.events[0] = replace(found.events[0], indicator=lambda group: group)
        return found

    for build, problem in ((noisy, "second build"), (short, "counts_x has shape"), (codes, "one bool per output")):
        with pytest.raises(AssertionError, match=f"event family 'singleton' on integer outputs: .*{problem}"):
            check_event_family(replace(singleton, build=build))


def test_a_relation_with_equal_or_unseeded_pairs_fails():
    """Detects: neighbours that propose equal inputs, unseeded draws, and a domain that holds none of
    the relation's own pairs (it could never be picked for them)."""
    scalars = relation("scalars")

    def equal(**_):
        return lambda rng: (1.0, 1.0)

    def unseeded(**_):
        return lambda rng: (float(np.random.default_rng().integers(1000)), 0.5)  # unseeded on purpose

    with pytest.raises(AssertionError, match="relation 'toy': its neighbours do not propose pairs: .*equal"):
        check_relation(replace(scalars, name="toy", build=equal, from_flags=None))
    with pytest.raises(AssertionError, match="relation 'toy': its neighbours propose other pairs for the same seed"):
        check_relation(replace(scalars, name="toy", build=unseeded, from_flags=None))
    with pytest.raises(AssertionError, match="its declared domain holds none"):
        check_relation(replace(scalars, name="toy", domain=lambda x, x_prime: None))


def test_a_kind_that_certifies_without_evidence_fails():
    """Detects: an event bound that grows with the other input's probability (a sign error), one that
    certifies a violation from an event equally likely under both inputs, a zCDP kind certifying a
    violation from zero divergences, a kind not registered under its name, and a claim that does not
    survive its JSON round trip."""
    gdp, zcdp = PrivacyClaim.gdp(1.5), PrivacyClaim.zcdp(0.5)
    kind = gdp.kind_record
    inverted = replace(kind, event_bound=lambda claim, p, q: -kind.event_bound(claim, p, q))
    shifted = replace(kind, event_bound=lambda claim, p, q: kind.event_bound(claim, p, q) + 2.0)
    eager = replace(zcdp.kind_record, cells_bound=lambda claim, orders, d: (1.0, orders[0]))
    for record, claim, problem in (
        (inverted, gdp, "event_bound decreases as p_lo grows"),
        (shifted, gdp, "equally likely under both inputs certifies"),
        (eager, zcdp, "zero divergences certify 1 > the claimed 0.5"),
    ):
        with pytest.raises(AssertionError, match=f"claim kind '{claim.kind}': .*{problem}"):
            _with_kind(record, claim)
    with pytest.raises(AssertionError, match="another record is registered under its name"):
        check_claim_kind(replace(kind), gdp)


def _with_kind(record, claim):
    """``check_claim_kind`` of ``record`` registered in place of the built-in of its name."""
    from dpverify.claims import registry as kind_registry

    registry = kind_registry._registry()
    builtin = registry[record.name]
    registry[record.name] = record
    try:
        check_claim_kind(record, claim)
    finally:
        registry[record.name] = builtin


class _Unseeded:
    """A mechanism that ignores its rng (draws from a fresh generator): audits of it cannot be replayed."""

    def __call__(self, data, rng):
        return int(data) + int(np.random.default_rng().geometric(0.5))  # unseeded on purpose


class _WrongDomain(GeometricMechanism):
    input_relation = ("bits", {})


def test_a_mechanism_that_ignores_its_rng_or_its_relation_fails():
    """Detects: a mechanism that draws from its own unseeded generator, and one that names a relation
    whose domain does not hold the pair it is audited on."""
    check_mechanism(GeometricMechanism(1.0), 0, 1)
    with pytest.raises(AssertionError, match=r"mechanism _Unseeded: two draws from one seed differ"):
        check_mechanism(_Unseeded(), 0, 1)
    with pytest.raises(AssertionError, match=r"input_relation 'bits' does not hold \(3, 4\)"):
        check_mechanism(_WrongDomain(1.0), 3, 4)


@dataclasses.dataclass(frozen=True)
class _Lossy(Result):
    """A result whose JSON drops its tuple (it reloads as a list, so it is not equal)."""

    lossy_values: tuple = (1.0, 2.0)


@dataclasses.dataclass(frozen=True)
class _Mistyped(Result):
    """A result whose float field holds a string."""

    mistyped_bound: float = 0.5


def test_a_result_that_does_not_round_trip_or_is_mistyped_fails():
    """Detects: a result that reloads from its JSON unequal to itself, and a field holding another type
    than it declares."""
    with pytest.raises(AssertionError, match="result _Lossy: reloads from to_json"):
        check_result(_Lossy())
    with pytest.raises(AssertionError, match="_Mistyped: field mistyped_bound = 'half' is not a <class 'float'>"):
        check_result(_Mistyped(mistyped_bound="half"))
    check_result(_Mistyped())
    with pytest.raises(AssertionError, match="is not a dpverify result"):
        check_result(AuditResult)
