"""Family properties the drivers read from the :class:`~dpverify.events.EventFamily` record, never from a name.

- ``extreme``: events placed at the samples' own extremes are ranked at the winner's curse by a search's
  screening (:func:`dpverify.audits.choosing.rank_pair`);
- ``grows_selection``: a fit that sharpens with the selection rows tops the chosen pair's selection up
  (:func:`dpverify.search_audit`).

A third-party family that declares one is treated as the built-in that declares it. Deterministic (fixed
seeds, no statistical decision): no false alarm.
"""

from __future__ import annotations

import types
from dataclasses import replace

import numpy as np
import pytest

import dpverify
from dpverify.audits import search as search_module
from dpverify.audits.choosing import rank_pair
from dpverify.errors import InvalidParameterError
from dpverify.events import EventFamily, event_family, register_event_family, unregister_event_family
from dpverify.events.learned import count_events_apply
from dpverify.events.real import support_edge_events
from dpverify.testing import check_event_family


def _renamed(name):
    """The support-edge builder, its events carrying ``name`` (a third party's family of the same events)."""

    def build(sel_x, sel_x_prime, outputs):
        found = support_edge_events(sel_x, sel_x_prime, outputs)
        return replace(found, events=[replace(e, family=name) for e in found.events])

    return build


@pytest.fixture
def registered():
    """Register records for one test, and unregister them after it."""
    names = []

    def register(record):
        names.append(register_event_family(record).name)
        return record

    yield register
    for name in names:
        unregister_event_family(name)


def _score(samples_x, samples_x_prime, families):
    pair = types.SimpleNamespace(x=0.0, x_prime=1.0, samples_x=samples_x, samples_x_prime=samples_x_prime)
    pair.n = len(samples_x)
    plan = types.SimpleNamespace(delta=0.0, alpha=1e-6, claim=None, n_certification=6_390_000)
    return rank_pair(pair, plan, families)[0]


def test_the_built_in_records_declare_the_properties():
    """Detects: the support-edge or count-and-level family losing its declaration (the drivers would then
    rank chance tails at 1 SE, or leave Alg. 3's selection small)."""
    assert event_family("support-edge").extreme
    assert event_family("learned-counts").grows_selection is count_events_apply
    others = [event_family(n) for n in ("threshold", "mantissa", "classifier")]
    assert not any(r.extreme or r.grows_selection for r in others)


def test_a_third_party_extreme_family_is_ranked_as_the_built_in(registered):
    """Chance tails of identical Laplace vectors (10 coordinates, 1e5 samples per input, seed 0): a third
    party's copy of the support-edge events declared ``extreme`` scores exactly as the built-in (about 0.01);
    the same copy not declared extreme scores at 1 SE (about 0.6), so the declaration, not the name, decides.
    Detects: a driver that reads a hard-coded name (the copy would score 0.6)."""
    rng = np.random.default_rng(0)
    samples = rng.laplace(size=(100_000, 10)), rng.laplace(size=(100_000, 10))
    registered(EventFamily("edge-copy", "real", _renamed("edge-copy"), extreme=True))
    registered(EventFamily("edge-plain", "real", _renamed("edge-plain")))
    built_in = _score(*samples, ["support-edge"])
    assert _score(*samples, ["edge-copy"]) == built_in
    assert built_in < 0.1 < _score(*samples, ["edge-plain"])


def test_a_third_party_family_that_grows_the_selection_grows_it(registered):
    """A search's chosen pair on real vectors without markers (where the count-and-level family fits nothing):
    its selection stays as planned, unless a family used declares ``grows_selection`` true on them, as the
    built-in count-and-level family does on Alg. 3's outputs. Detects: the top-up tied to the name
    ``"learned-counts"``."""
    registered(EventFamily("grows", "real", _renamed("grows"), grows_selection=lambda sx, sxp: sx.ndim == 2))
    rng = np.random.default_rng(0)
    pair = search_module._Pair(0, 0.0, 1.0, np.random.SeedSequence(0))
    pair.samples_x, pair.samples_x_prime = rng.laplace(size=(5_000, 10)), 1 + rng.laplace(size=(5_000, 10))
    pair.n = 5_000

    def grown(families):
        options = dpverify.AuditOptions(event_families=families)
        plan = types.SimpleNamespace(n_samples=100_000, n_selection=10_000, options=options)
        return search_module._grown_winner_selection(pair, 10_000, types.SimpleNamespace(plan=plan))

    assert grown(["threshold", "learned-counts"]) == 10_000
    assert grown(["threshold", "grows"]) == int(search_module.WINNER_GROWN_SHARE * 100_000)


@pytest.mark.parametrize("fields", [dict(extreme=1), dict(grows_selection="yes")])
def test_a_malformed_declaration_is_refused_by_name(fields):
    """Detects: a record that accepts a non-boolean ``extreme`` or a non-callable ``grows_selection``."""
    with pytest.raises(InvalidParameterError, match="event family 'bad'"):
        EventFamily("bad", "real", support_edge_events, **fields)


def test_the_family_contract_checks_the_declarations():
    """``dpverify.testing.check_event_family`` passes the built-in declarations and a faithful copy, and fails
    a family declared extreme whose events carry another name (a search would not recognise them) and a
    ``grows_selection`` that answers something else than a bool. Detects: a contract check that lets a
    declaration the drivers cannot honour through."""
    check_event_family(event_family("support-edge"))
    check_event_family(event_family("learned-counts"))
    check_event_family(EventFamily("edge-copy", "real", _renamed("edge-copy"), extreme=True))
    with pytest.raises(AssertionError, match="declares extreme"):
        check_event_family(EventFamily("edge-unnamed", "real", support_edge_events, extreme=True))
    with pytest.raises(AssertionError, match="grows_selection returned"):
        check_event_family(EventFamily("grows-badly", "real", support_edge_events, grows_selection=lambda a, b: 1))
