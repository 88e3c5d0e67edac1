"""A third-party claim kind with a parameter of its own (``kappa``), through every driver, JSON and the CLI.

The kind is mu-Gaussian DP stated by half its mu, ``kappa = mu / 2`` (Dong, Roth and Su 2022): it
certifies ``(Phi^-1(p_lo) - Phi^-1(q_hi)) / 2``, so its bound is the built-in Gaussian DP kind's
halved, a value known exactly. Randomized response at eps = 1 answers truthfully with probability
``p = e / (1 + e) = 0.731``; it is ``Phi^-1(p) - Phi^-1(1 - p) = 1.23``-GDP, so ``kappa = 0.615``.
Every audit below is seeded and decided far from its threshold (see each docstring), so no test
here fails by chance at more than the suite's per-test rate.

References
----------
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
"""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from scipy.stats import norm

import dpverify
from dpverify import InvalidClaimError, PrivacyClaim
from dpverify.claims import ClaimKind, claim_kind, register_claim_kind
from dpverify.claims.approximate import APPROXIMATE_DP
from dpverify.claims.gaussian import probit_bound
from dpverify.claims.kinds import one_parameter_kind
from dpverify.cli.commands import main
from dpverify.mechanisms import RandomizedResponse
from dpverify.testing import check_claim_kind

#: kappa of randomized response at eps = 1: half its mu.
TRUE_KAPPA = float(norm.ppf(np.e / (1 + np.e)) - norm.ppf(1 / (1 + np.e))) / 2
#: Claims far below and far above the truth: a violation, and none.
OVERCLAIM, SOUND = 0.3, 1.0
RR = RandomizedResponse(1.0)


def _check_kappa(claim) -> dict:
    kappa = float(claim.kappa)  # text raises ValueError: the claim names it as an InvalidClaimError
    if not 0.0 <= kappa < np.inf:
        raise InvalidClaimError(f"kappa must be finite and >= 0, got {claim.kappa!r}")
    return {"kappa": kappa}


#: A kind of one parameter of its own, declared as the built-in zCDP and Gaussian DP are (its own check, which
#: takes 0, and no audit check).
KAPPA_GDP = one_parameter_kind(
    "kappa-gdp",
    "mu-GDP stated as kappa = mu / 2",
    "kappa",
    "mu/2-GDP",
    reads="events",
    check=_check_kappa,
    audit_check=None,
    event_bound=lambda claim, p_lo, q_hi: probit_bound(p_lo, q_hi) / 2,
)


@pytest.fixture
def kappa_kind(fresh_registries):
    """The kind registered in fresh registries (restored after the test)."""
    return register_claim_kind(KAPPA_GDP)


def test_a_claim_holds_its_kinds_own_parameter(kappa_kind):
    """``PrivacyClaim.of`` and ``from_text`` hold ``kappa`` in ``params``, read it as ``claim.kappa``, save it
    beside ``kind`` and reload (from JSON text, and through pickle) equal with an equal hash.

    Detects: an own parameter dropped or renamed in ``to_dict`` (the reload then misses it), a reload that
    keeps a JSON list where the claim holds a tuple, a kind's check whose normalised value is not stored
    (``kappa=1`` must read back as the float 1.0), and a built-in claim's saved form changed by the new field.
    """
    claim = PrivacyClaim.of("kappa-gdp", kappa=1, source="a paper")
    assert claim.kappa == 1.0 and isinstance(claim.kappa, float) and dict(claim.params) == {"kappa": 1.0}
    assert (
        claim.to_dict()["kappa"] == 1.0 and claim.to_dict()["kind"] == "kappa-gdp" and "params" not in claim.to_dict()
    )
    reloaded = PrivacyClaim.from_dict(json.loads(json.dumps(claim.to_dict())))
    assert reloaded == claim and hash(reloaded) == hash(claim) and pickle.loads(pickle.dumps(claim)) == claim
    assert PrivacyClaim.from_text('kappa-gdp:kappa=1,source="a paper"') == claim
    assert eval(repr(claim), {"PrivacyClaim": PrivacyClaim}) == claim
    assert str(claim) == "kappa=1 (mu/2-GDP) (a paper)" and claim.parameter_name == "kappa"
    assert PrivacyClaim.of("kappa-gdp", kappa=0.3) != PrivacyClaim.of("kappa-gdp", kappa=0.4)
    assert PrivacyClaim.of("zcdp", rho=0.5) == PrivacyClaim.zcdp(0.5) == PrivacyClaim.from_text("zcdp:rho=0.5")
    assert PrivacyClaim.zcdp(0.5).to_dict() == dict(
        epsilon=None, delta=0.0, neighbouring="", source="", model="central", stated_epsilon=None, kind="zcdp", rho=0.5
    )
    assert PrivacyClaim.from_text("renyi:orders=[2,4],renyi_epsilons=[0.5,1]") == PrivacyClaim.renyi((2, 4), (0.5, 1))
    check_claim_kind(claim_kind("kappa-gdp"), claim)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: PrivacyClaim.of("kappa-gdp", kapa=0.3), r"states \['kappa'\]; it cannot also state \['kapa'\]"),
        (lambda: PrivacyClaim.of("kappa-gdp"), r"states \['kappa'\]; missing \['kappa'\]"),
        (lambda: PrivacyClaim.of("kappa-gdp", kappa=-1.0), r"kappa must be finite and >= 0, got -1.0"),
        (lambda: PrivacyClaim.of("kappa-gdp", kappa="abc"), r"claim kind 'kappa-gdp' refuses .*'abc'.*ValueError"),
        (lambda: PrivacyClaim.of("kappa-gdp", kappa=lambda: 1), r"'kappa' must be plain data"),
        (lambda: PrivacyClaim.of("kappa-gdp", kappa=0.3, mu=0.3), r"it cannot also state \['mu'\]"),
        (lambda: PrivacyClaim.from_dict({"kind": "zcdp", "rho": 0.5, "rh0": 1}), r"cannot also state \['rh0'\]"),
        (lambda: PrivacyClaim.of("kappa-gbp", kappa=0.3), r"unknown claim kind 'kappa-gbp'; registered kinds: \["),
        (lambda: PrivacyClaim.from_text(":kappa=0.3"), r"KIND:NAME=VALUE.*names no kind"),
        (lambda: PrivacyClaim.from_text("kappa-gdp:kappa"), r"'kappa' in 'kappa-gdp:kappa', which is not NAME=VALUE"),
        (lambda: PrivacyClaim.from_text("kappa-gdp:kappa=1,kappa=2"), r"'kappa' is given twice"),
        (lambda: replace_fields(fields=("margin",)), r"names its parameters \['margin'\], which PrivacyClaim has"),
        (lambda: replace_fields(fields=("source",)), r"names its parameters \['source'\], which PrivacyClaim has"),
        (lambda: replace_fields(fields=("kappa", "kappa")), r"fields must be a tuple of distinct parameter names"),
        (lambda: replace_fields(check=lambda claim: {"kappa": 1.0, "rho": 1.0}), r"must give a dict of its fields"),
    ],
)
def test_a_wrong_parameter_is_refused_by_name(kappa_kind, make, message):
    """Detects: an unknown, missing, invalid or unsaveable parameter accepted (each check removed), a kind's
    check raising ValueError escaping as a raw error, a parameter named like a PrivacyClaim attribute or
    meta field (it could never be read as ``claim.NAME``), a check that sets a field the kind does not
    declare, and a message that does not name what is wrong."""
    with pytest.raises(InvalidClaimError, match=message):
        make()


def replace_fields(**changes):
    """A claim of a kind like KAPPA_GDP with ``changes`` to its record (registered under another name)."""
    kind = ClaimKind(**{**KAPPA_GDP.__dict__, "name": "other-kind", **changes})
    register_claim_kind(kind)
    return PrivacyClaim.of("other-kind", **{name: 0.3 for name in kind.fields})


DRIVERS = {
    "audit": lambda claim: dpverify.audit(RR, 0, 1, claim=claim, n_samples=20_000, seed=1),
    "sequential_audit": lambda claim: dpverify.sequential_audit(RR, 0, 1, claim=claim, n_samples=20_000, seed=1),
    "search_audit": lambda claim: dpverify.search_audit(RR, [(0, 1), (1, 0)], claim=claim, n_samples=20_000, seed=1),
    "audit_pairs": lambda claim: dpverify.audit_pairs(RR, [(0, 1), (1, 0)], claim=claim, n_samples=20_000, seed=1),
}
REPLAY_INPUTS = {
    "audit": (RR, 0, 1),
    "sequential_audit": (RR, 0, 1),
    "search_audit": (RR, [(0, 1), (1, 0)]),
    "audit_pairs": (RR, [(0, 1), (1, 0)]),
}


@pytest.mark.parametrize("driver", DRIVERS)
def test_every_driver_audits_the_own_parameter(kappa_kind, driver):
    """kappa = 0.3 (half the truth 0.615) is a violation, kappa = 1.0 is not; the results reload from JSON
    equal and replay to equal results.

    At 20000 samples per input (half to certify, or the sequential audit's looks) the truthful answer's
    probabilities 0.731 and 0.269 are resolved to about 0.005 (one standard error), so the certified kappa
    lies near 0.6: over 0.3 by more than 20 standard errors, and a certified bound over 1.0 would need the
    counts 25 standard errors off. Each verdict holds at the fixed seed with room far beyond the suite's
    per-test rate.

    Detects: a driver that reads another field for the claimed value (a None mu, a default 1), drops the
    own parameter from its result's claim or JSON, or replays with a claim that lost it.
    """
    over = DRIVERS[driver](PrivacyClaim.of("kappa-gdp", kappa=OVERCLAIM))
    worst = _audit_of(over)
    assert over.violation and worst.claim == PrivacyClaim.of("kappa-gdp", kappa=OVERCLAIM)
    assert 0.4 < worst.claim_lower_bound <= TRUE_KAPPA + 0.02
    reloaded = type(over).from_json(over.to_json())
    assert reloaded == over and '"kind": "kappa-gdp"' in over.to_json() and f'"kappa": {OVERCLAIM}' in over.to_json()
    assert dpverify.replay(reloaded, *REPLAY_INPUTS[driver]) == over
    sound = DRIVERS[driver](PrivacyClaim.of("kappa-gdp", kappa=SOUND))
    assert not sound.violation and _audit_of(sound).claim.kappa == SOUND


def _audit_of(result):
    """The audit that decided ``result``: a pair audit's worst pair (its index ``worst``), else the result."""
    return result.results[result.worst] if isinstance(result, dpverify.PairAuditResult) else result


@pytest.fixture
def rr_module(tmp_path, monkeypatch):
    """A module ``rr_module`` holding randomized response at eps = 1 as ``mechanism``, importable by the CLI."""
    (tmp_path / "rr_module.py").write_text(
        "from dpverify.mechanisms import RandomizedResponse\nmechanism = RandomizedResponse(1.0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)


def test_the_command_line_states_the_own_parameter(kappa_kind, rr_module, capsys):
    """``--claim kappa-gdp:kappa=0.3`` audits that claim (exit 1, the JSON's claim holds kappa), ``kappa=1``
    finds nothing (exit 0), ``--help`` lists the kind with its parameter, and an unknown parameter or kind is
    a usage error (exit 2) that names it. The verdicts are the ``audit`` driver's at the same seed and
    sample size (see the test above).

    Detects: a command line that cannot state a registered kind's parameter, ignores ``--claim`` (the
    mechanism's stated eps = 1 would then be audited, and found sound), or answers a misspelt parameter
    with an internal error (exit 3) or silence.
    """
    common = ["audit", "rr_module:mechanism", "--x", "0", "--x-prime", "1", "--samples", "20000", "--seed", "1"]
    assert main([*common, "--json", "--claim", f"kappa-gdp:kappa={OVERCLAIM}"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["claim"]["kind"] == "kappa-gdp" and result["claim"]["kappa"] == OVERCLAIM
    driver = DRIVERS["audit"](PrivacyClaim.of("kappa-gdp", kappa=OVERCLAIM))
    assert (result["claim_lower_bound"], result["event"]) == (driver.claim_lower_bound, driver.to_dict()["event"])
    assert main([*common, "--quiet", "--claim", f"kappa-gdp:kappa={SOUND}"]) == 0
    capsys.readouterr()
    assert main([*common, "--quiet", "--claim", "kappa-gdp:kapa=0.3"]) == 2
    assert (
        "InvalidClaimError: a mu-GDP stated as kappa = mu / 2 claim states ['kappa']; it cannot also state ['kapa']"
        in (capsys.readouterr().err)
    )
    assert main([*common, "--quiet", "--claim", "kappa-gbp:kappa=0.3"]) == 2
    assert "unknown claim kind 'kappa-gbp'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    assert "kappa-gdp: kappa" in " ".join(capsys.readouterr().out.split())


#: ``ln 2``: an epsilon of 1 is ``1 / ln 2`` bits.
LN2 = float(np.log(2.0))

#: A kind whose claim is an (epsilon, delta) pair stated in a parameter of its own: pure DP with epsilon in
#: bits (``(bits * ln 2, 0)``). Its certified bound is the (epsilon, delta) kind's epsilon bound, in bits.
BITS_DP = one_parameter_kind(
    "bits-dp",
    "pure DP with epsilon in bits",
    "bits",
    "DP in bits",
    reads="events",
    event_bound=lambda claim, p_lo, q_hi: APPROXIMATE_DP.event_bound(PrivacyClaim(claim.bits * LN2), p_lo, q_hi) / LN2,
    epsilon_delta=lambda claim: (claim.bits * LN2, 0.0),
)


@pytest.mark.parametrize("driver", DRIVERS)
def test_an_epsilon_delta_kind_of_its_own_keeps_its_claim(fresh_registries, driver):
    """A third-party kind whose claim is an (epsilon, delta) pair in a parameter of its own is certified on that
    pair, and its results keep the claim as given (kind, parameters, wording) through JSON and replay.

    Randomized response at eps = 1 is 1.44 bits; 0.5 bits (eps = 0.35) is a violation and 3 bits is not, each
    decided far from its threshold at 20000 samples per input (see the kappa test above: the certified epsilon
    lies within about 0.05 of 1), so no verdict here fails by chance beyond the suite's per-test rate. The
    ``audit`` driver's event and bounds are those of the built-in claim ``PrivacyClaim(0.5 ln 2)`` at the same
    seed (the same (epsilon, delta) reading), its claim bound that epsilon bound in bits.

    Detects: a result that records the built-in ``dp`` claim ``PrivacyClaim(eps, delta)`` in place of the
    kind's own (``audit_result`` rewriting the pair), and a replay that states the claim again as
    ``epsilon=`` / ``delta=`` (the replayed result then holds a ``dp`` claim and differs from the original).
    """
    register_claim_kind(BITS_DP)
    claim = PrivacyClaim.of("bits-dp", bits=0.5)
    over = DRIVERS[driver](claim)
    worst = _audit_of(over)
    assert over.violation and worst.claim == claim and worst.claim.kind == "bits-dp"
    assert (worst.claimed_epsilon, worst.claimed_delta) == (0.5 * LN2, 0.0)
    assert 0.5 < worst.claim_lower_bound <= 1 / LN2 + 0.05
    assert worst.claim_lower_bound == pytest.approx(worst.epsilon_lower_bound / LN2, rel=1e-9)
    assert "(bits=0.5 (DP in bits))" in worst.summary() and "certified lower bound on bits" in worst.summary()
    text = over.to_json()
    assert '"kind": "bits-dp"' in text and '"bits": 0.5' in text
    reloaded = type(over).from_json(text)
    assert reloaded == over and _audit_of(reloaded).claim == claim
    assert dpverify.replay(reloaded, *REPLAY_INPUTS[driver]) == over
    if driver == "audit":
        builtin = DRIVERS[driver](PrivacyClaim(0.5 * LN2))
        assert (over.event, over.epsilon_lower_bound) == (builtin.event, builtin.epsilon_lower_bound)
    sound = DRIVERS[driver](PrivacyClaim.of("bits-dp", bits=3.0))
    assert not sound.violation and _audit_of(sound).claim.bits == 3.0
