"""Search audits: the false-alarm rate stays alpha however many pairs are screened; the search finds the pair.

Validity (:func:`dpverify.search_audit`): the chosen pair and its events come
from the candidate and screening streams only; certification counts fresh
samples from independent seeds, so a mechanism that keeps its claim on every
pair is flagged with probability at most ``alpha``, whatever was screened.

- ``test_false_alarm_rate_at_the_exact_claim``: mechanisms attaining their
  claim exactly on every candidate (geometric and grid Laplace on 50 scalar and
  vector pairs; randomized response on its only two pairs), search audits at
  alpha = 0.1 with spawned seeds; the number of violations must not exceed the
  ``1 - suite_alpha`` quantile of Bin(N, 0.1) (false failure <= 1e-6). Default
  profile: 55 audits pooled (limit 18); thorough: 200 per case (limit 43). Power:
  it fails with probability >= 0.99 when the search's false-alarm rate is 0.5 or
  more (default; 0.83 at 0.4), 0.3 or more (thorough) -- a gross failure such as certifying every screened pair and
  keeping the best without correction (50 pairs at the exact claim). A subtle
  one is below its reach: certifying on the chosen pair's screening samples
  (tried) flagged randomized response in 16 of 200 audits against 4 of 200 for
  the correct code, both below alpha, and the pooled test passed.
- ``test_certification_cannot_change_the_choice``: a mechanism that turns
  adversarial once certification starts yields the same pair and events; it
  detects any path from certification samples to the choice (tried: certifying
  the runner-up too and keeping the pair with the larger certified count gap
  makes it fail).

Power (``test_every_broken_zoo_mechanism_is_caught_from_its_domain``): every
broken mechanism of :func:`dpverify.mechanisms.zoo_entries` is flagged at
alpha = 1e-6 by a search over its input domain
(:func:`dpverify.mechanisms.domains.zoo_domain`), never given its worst pair,
and no correct one is (false failure <= 1e-6 each). Sizes give bounds far above
the claim (README, catch table), so power is ~1 at these seeds.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
import types

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from dpverify.audits import search as search_module
from dpverify.mechanisms import GeometricMechanism, GridLaplace, RandomizedResponse, zoo_entries
from dpverify.mechanisms.domains import zoo_domain
from dpverify.neighbours import query_vectors

ALPHA = 0.1

#: (mechanism, neighbours, n_candidates, search audits in the default profile); thorough: 200 each.
VALIDITY_CASES = {
    "geometric, 50 scalar pairs": (GeometricMechanism(1.0), query_vectors(None), 50, 12),
    "grid Laplace, 3-vectors l1, 50 pairs": (GridLaplace(1.0), query_vectors(3, norm="l1"), 50, 3),
    "randomized response, both pairs": (RandomizedResponse(1.0), [(0, 1), (1, 0)], None, 40),
}


def _search(name, seed):
    """One seeded search audit of validity case ``name`` at ``ALPHA``."""
    mechanism, neighbours, n_candidates, _ = VALIDITY_CASES[name]
    result = dpverify.search_audit(
        mechanism,
        neighbours,
        epsilon=mechanism.epsilon,
        n_samples=4_000 if n_candidates is None else 70_000,  # 50 pairs screen 50,500 per input of the budget
        n_candidates=n_candidates,
        alpha=ALPHA,
        seed=seed,
    )
    assert n_candidates is None or len(result.candidates) >= 50
    return result


@pytest.mark.privacy_audit
def test_false_alarm_rate_at_the_exact_claim(check_false_alarms):
    """Default profile: the three cases pooled (each audit flags with probability <= alpha, so the
    pooled count is stochastically below Bin(N, alpha)); thorough: each case on its own, N = 200."""
    check_false_alarms(_search, {name: case[3] for name, case in VALIDITY_CASES.items()}, ALPHA, key=19)


class _TurnsAdversarial:
    """Geometric mechanism until ``adversarial`` is set; then outputs depend on the input only (loss infinite)."""

    def __init__(self):
        self.inner = GeometricMechanism(1.0)
        self.epsilon = 1.0
        self.adversarial = False

    def sample(self, data, size, rng):
        if self.adversarial:
            rng.random()
            return np.full(size, 1000 * int(data))
        return self.inner.sample(data, size, rng)

    def __call__(self, data, rng):
        return int(self.sample(data, 1, rng)[0])


@pytest.mark.privacy_audit
@pytest.mark.parametrize("n_refining", [0, 4_000])
def test_certification_cannot_change_the_choice(monkeypatch, n_refining):
    """Structural: the mechanism turns adversarial when certification starts; the chosen pair, every
    candidate (refinements included) and the event must not change. Detects: certification samples
    that feed the choice of the pair, of its refinements or of its events."""
    mechanism = _TurnsAdversarial()
    kwargs = dict(epsilon=1.0, n_samples=20_000, n_candidates=16, seed=5, n_refining=n_refining)
    honest = dpverify.search_audit(mechanism, query_vectors(None), **kwargs)
    original = search_module.certified_result

    def adversarial_certification(plan, mech, *args, **kw):
        mech.adversarial = True
        return original(plan, mech, *args, **kw)

    monkeypatch.setattr(search_module, "certified_result", adversarial_certification)
    mechanism.adversarial = False
    attacked = dpverify.search_audit(mechanism, query_vectors(None), **kwargs)
    assert (attacked.x, attacked.x_prime, attacked.candidates) == (honest.x, honest.x_prime, honest.candidates)
    assert attacked.event.description == honest.event.description
    assert attacked.event.count_x != honest.event.count_x  # the certification did see other samples


def test_result_round_trips_through_json_and_replays():
    mechanism = GeometricMechanism(1.0)
    result = dpverify.search_audit(mechanism, query_vectors(None), epsilon=1.0, n_samples=20_000, seed=3)
    again = dpverify.SearchAuditResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again == result
    assert dpverify.replay(result, mechanism, query_vectors(None)) == result
    assert "chosen pair" in result.summary()


def test_refinement_tries_moves_of_the_winner_and_replays():
    """With n_refining, local moves of the first winner join the candidates; the result replays.

    Detects: refinement that never runs, moves that are not of the winner, a result that does not
    record n_refining (its replay would differ)."""
    mechanism = GridLaplace(1.0)
    kwargs = dict(epsilon=1.0, n_samples=20_000, n_candidates=7, seed=8)
    plain = dpverify.search_audit(mechanism, query_vectors(3), **kwargs)
    refined = dpverify.search_audit(mechanism, query_vectors(3), n_refining=3_000, **kwargs)
    assert len(plain.candidates) == 7 and len(refined.candidates) > 7
    assert refined.n_refining == 3_000 and plain.n_refining == 0
    assert dpverify.replay(refined, mechanism, query_vectors(3)) == refined
    again = dpverify.SearchAuditResult.from_dict(json.loads(json.dumps(refined.to_dict())))
    assert again == refined
    first = max(refined.candidates[:7], key=lambda c: (c.rounds, c.n_screened))  # the first screening's winner
    gaps = sorted(np.abs(np.subtract(first.x_prime, first.x)))
    for move in refined.candidates[7:]:
        assert np.allclose(sorted(np.abs(np.subtract(move.x_prime, move.x))), gaps, rtol=0, atol=1e-12)
    with pytest.raises(dpverify.InvalidParameterError):
        dpverify.search_audit(mechanism, query_vectors(3), n_refining=20_000, **kwargs)
    with pytest.raises(dpverify.InvalidParameterError, match="local moves"):  # a list has no moves to try
        dpverify.search_audit(mechanism, [(0.0, 1.0), (1.0, 0.0)], n_refining=3_000, **kwargs)


@given(
    st.sampled_from([None, 1, 2, 6]),
    st.sampled_from(["l1", "linf"]),
    st.sampled_from([0.5, 1.0, 3.0]),
    st.integers(0, 2**32 - 1),
)
def test_refinements_stay_in_the_relation(length, norm, sensitivity, seed):
    """Every local move keeps the difference's absolute entries (up to order), so its l1 and l_inf
    size; and moves are distinct pairs of differing inputs. Detects: a move that leaves the relation."""
    generator = query_vectors(length, sensitivity, norm)
    rng = np.random.default_rng(seed)
    x, x_prime = generator.draw(rng)
    gaps = sorted(np.abs(np.subtract(x_prime, x)).ravel())
    moves = generator.refinements(x, x_prime, 100, rng)
    assert moves and len({json.dumps(m) for m in moves}) == len(moves)
    for a, b in moves:
        assert np.allclose(sorted(np.abs(np.subtract(b, a)).ravel()), gaps, rtol=0, atol=1e-12)
        assert isinstance(a, float) if length is None else len(a) == length


def test_same_seed_same_result_on_a_process_pool():
    mechanism = GridLaplace(1.0)
    kwargs = dict(epsilon=1.0, n_samples=20_000, n_candidates=3, seed=11)
    serial = dpverify.search_audit(mechanism, query_vectors(3), **kwargs)
    pooled = dpverify.search_audit(mechanism, query_vectors(3), executor=2, **kwargs)
    assert pooled == serial


def test_neighbours_as_callable_list_and_hypothesis_strategy():
    mechanism = GeometricMechanism(1.0)
    kwargs = dict(epsilon=0.5, n_samples=20_000, n_candidates=8, seed=2, alpha=1e-6)
    as_list = dpverify.search_audit(mechanism, [(0, 1), (3, 4)], **kwargs)
    as_callable = dpverify.search_audit(mechanism, lambda rng: (int(b := rng.integers(9)), int(b) + 1), **kwargs)
    strategy = st.integers(-5, 5).map(lambda b: (b, b + 1))
    as_strategy = dpverify.search_audit(mechanism, strategy, **kwargs)
    again = dpverify.search_audit(mechanism, strategy, **kwargs)
    for result in (as_list, as_callable, as_strategy):
        assert result.violation  # true loss 1 > claim 0.5
    assert again == as_strategy  # the strategy's draws are seeded by the audit


def test_bad_neighbours_are_named_errors():
    mechanism = GeometricMechanism(1.0)
    with pytest.raises(dpverify.InvalidNeighboursError, match="equal inputs"):
        dpverify.search_audit(mechanism, [(1, 1)], epsilon=1.0, n_samples=5_000)
    with pytest.raises(dpverify.InvalidNeighboursError, match="pair"):
        dpverify.search_audit(mechanism, [(1, 2, 3)], epsilon=1.0, n_samples=5_000)
    with pytest.raises(dpverify.InvalidNeighboursError, match="no neighbouring pair"):
        dpverify.search_audit(mechanism, [], epsilon=1.0, n_samples=5_000)
    with pytest.raises(dpverify.InvalidNeighboursError, match="neighbours must be"):
        dpverify.search_audit(mechanism, 7, epsilon=1.0, n_samples=5_000)
    with pytest.raises(dpverify.InvalidNeighboursError, match="norm"):
        query_vectors(3, norm="l2")


ZOO = {e.name: e for e in zoo_entries()}
#: As for the plain audits of the zoo (test_zoo.py): the noisy max returning its value needs 1e6
#: samples per input for a bound above 0.1 at alpha = 1e-6 on its worst pair (true loss 0.25).
BROKEN_SAMPLES = {"BROKEN noisy max returning the value, Laplace": 1_000_000}


@pytest.mark.privacy_audit
@pytest.mark.parametrize("name", sorted(ZOO))
def test_every_broken_zoo_mechanism_is_caught_from_its_domain(name, suite_alpha):
    entry = ZOO[name]
    result = dpverify.search_audit(
        entry.mechanism,
        zoo_domain(entry),
        epsilon=entry.epsilon,
        delta=entry.delta,
        n_samples=BROKEN_SAMPLES.get(name, 100_000),
        n_candidates=8,
        alpha=suite_alpha,
        seed=43,
    )
    assert result.violation == entry.broken, result.summary()


def test_assert_dp_searches_the_neighbours():
    """assert_dp(neighbours=...) fails on the noisy max returning its value (true loss 0.25 on the
    all-above pattern, claim 0.1) and names the pair it found; passes on report noisy max."""
    from dpverify.mechanisms import NoisyMaxValue, ReportNoisyMax
    from dpverify.testing import assert_dp

    patterns = query_vectors(5).fixed_pairs()  # StatDP's seven patterns, as a list
    with pytest.raises(AssertionError, match=r"on x=\("):
        assert_dp(NoisyMaxValue(0.1), neighbours=patterns, epsilon=0.1, n_samples=1_000_000, seed=44)
    assert_dp(ReportNoisyMax(0.1), neighbours=patterns, epsilon=0.1, n_samples=50_000, seed=1)
    with pytest.raises(dpverify.InvalidParameterError):
        assert_dp(ReportNoisyMax(0.1), (1.0,), neighbours=patterns, epsilon=0.1)


def test_report_shows_the_chosen_pair_and_every_candidate(tmp_path):
    from dpverify.extras.report import write_report

    mechanism = GeometricMechanism(1.0)
    result = dpverify.search_audit(
        mechanism, query_vectors(None), epsilon=1.0, n_samples=20_000, n_candidates=6, seed=4
    )
    text = write_report(result, tmp_path / "r.md", mechanism=mechanism, x=result.x, x_prime=result.x_prime).read_text()
    assert f"candidate {result.chosen} (chosen)" in text
    assert sum(line.startswith("| candidate ") for line in text.splitlines()) == len(result.candidates)


def test_cli_search_and_pairs(tmp_path, monkeypatch, capsys):
    """``dpverify audit --search``/``--pairs``: exit 1 on a violation (geometric eps = 1 against a claim
    of 0.5), 0 when the claim holds, 2 when the inputs are given twice; --help names the flags."""
    from dpverify.cli.commands import build_parser, main

    (tmp_path / "geo_mech.py").write_text(
        "from dpverify.mechanisms import GeometricMechanism\nmechanism = GeometricMechanism(1.0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    common = ["--samples", "20000", "--seed", "1", "--quiet", "--candidates", "6"]
    assert main(["audit", "geo_mech:mechanism", "--search", "scalars", "--epsilon", "0.5", *common]) == 1
    assert "chosen pair" in capsys.readouterr().out
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps([[0, 1], [5, 6]]))
    assert main(["audit", "geo_mech:mechanism", "--pairs", str(pairs), "--epsilon", "1.0", *common]) == 0
    assert (
        main(["audit", "geo_mech:mechanism", "--pairs", str(pairs), "--x", "0", "--x-prime", "1", "--epsilon", "1.0"])
        == 2
    )
    help_text = build_parser()._subparsers._group_actions[0].choices["audit"].format_help()
    assert "--search" in help_text and "--pairs" in help_text


def _global_noise(x, rng):
    """Touches its rng but draws its noise from numpy's global state: the seed cannot replay it."""
    rng.random()
    return float(x[0]) + float(np.random.laplace(scale=1.0))


def test_a_search_audit_decides_replayability_where_every_driver_does():
    """Detects: a search audit that marks replayable a mechanism whose noise ignores the audit's seed.

    The search used to trust the mechanism's own declaration; like every driver it now asks
    dpverify.protocols.check_replayable, which draws the first outputs twice from one seed.
    """
    result = dpverify.search_audit(
        _global_noise, [((0.0,), (1.0,)), ((1.0,), (0.0,))], epsilon=1.0, n_samples=20_000, seed=2
    )
    assert not result.replayable
    assert any("replay" in note for note in result.notes)


class _TwoLeaks:
    """Below 5: the textbook float Laplace (value loss = the claim; its low bits leak, Mironov 2012).
    From 5 on: half the claimed Laplace noise on a 1/64 grid (value loss twice the claim, no float leak)."""

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def sample(self, x, size, rng):
        noise = rng.laplace(scale=1.0 / self.epsilon, size=size)
        if x < 5:
            return x + noise
        return np.round((x + noise / 2.0) * 64.0) / 64.0

    def __call__(self, x, rng):
        return float(self.sample(x, 1, rng)[0])


def test_value_verdict_is_a_values_only_search():
    """With float events on, a float leak on one pair decides the verdict; the value verdict must be what a
    search with float_events=False chooses (its pair, on the same screening samples: the value track screens
    with the same budget and seeds), not the value events of the float pair. The bounds differ: within one
    ``n_samples`` the value track's pair is certified on half of what the screenings leave.

    Detects: screening that ranks pairs by the largest bound of any family and certifies the value events on
    the float winner only (noisy max returning its value, Lyu, Su and Li 2017: 0.113 instead of 0.238). Without the
    value track the value verdict here is on (0, 1), about the claim; it fails. Deterministic at its seed.
    """
    pairs = [(0.0, 1.0), (10.0, 11.0)]
    floats = dpverify.search_audit(_TwoLeaks(1.0), pairs, epsilon=1.0, n_samples=200_000, seed=3)
    values = dpverify.search_audit(_TwoLeaks(1.0), pairs, epsilon=1.0, n_samples=200_000, seed=3, float_events=False)
    assert floats.finding in ("rounding", "value") and floats.x == 0.0
    assert values.x == 10.0 and values.violation
    assert (floats.value_x, floats.value_x_prime) == (10.0, 11.0)
    assert (
        floats.value_verdict.violation
        and floats.value_verdict.event.n_certification == floats.draws["value certification"]
    )
    again = dpverify.SearchAuditResult.from_json(floats.to_json())
    assert (again.value_x, again.value_x_prime) == (10.0, 11.0)


def test_value_track_draws_only_what_the_first_screening_did_not():
    """The value track screens the candidates again on the same per-pair, per-round seeds, so a round both
    screenings run is the same samples: drawn once, kept, and what that saves goes to the certifications.
    Two candidates make one screening round, which both tracks run: the value track draws nothing to screen,
    chooses the pair a values-only search chooses, and each certification gets half of what the one
    screening leaves (70,000 per input of 200,000).

    Detects: a value track that draws its screening again and charges it to the budget (the search before
    the kept draws: 60,000 per input of value screening and 40,000 per certification; tried: ``_kept_draws``
    returning None, the test fails). Deterministic at its seed (no statistical test).
    """
    n, pairs = 200_000, [(0.0, 1.0), (10.0, 11.0)]
    floats = dpverify.search_audit(_TwoLeaks(1.0), pairs, epsilon=1.0, n_samples=n, seed=3)
    values = dpverify.search_audit(_TwoLeaks(1.0), pairs, epsilon=1.0, n_samples=n, seed=3, float_events=False)
    assert "value screening" not in floats.draws and floats.draws["screening"] == values.draws["screening"]
    assert (floats.value_x, floats.value_x_prime) == (values.x, values.x_prime)
    half = (n - floats.draws["screening"]) // 2
    assert floats.draws["certification"] == floats.draws["value certification"] == half
    assert floats.value_verdict.event.n_certification == half


def test_value_track_draws_again_where_keeping_the_screening_does_not_fit(monkeypatch):
    """Where memory holds the screening but not a kept copy of it, the value track draws its screening again
    (the same samples, charged to the budget as before) instead of refusing the search.

    Detects: keeping the screening's draws without checking memory (tried: ``_kept_draws`` without its
    ``require_memory`` check, the test fails: no value screening drawn). Deterministic at its seed.
    """
    memory = sys.modules["dpverify.pipeline.memory"]
    # the screening holds 60,000 per input here and its kept copy as many again: room for 90,000
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: memory.audit_memory_bytes(0.5, 90_000))
    pairs = [(0.0, 1.0), (10.0, 11.0)]
    floats = dpverify.search_audit(_TwoLeaks(1.0), pairs, epsilon=1.0, n_samples=200_000, seed=3)
    assert floats.draws["value screening"] == floats.draws["screening"] == 60_000
    assert (floats.value_x, floats.value_x_prime) == (10.0, 11.0)


_FOUR_PAIRS = [(0.0, 1.0), (10.0, 11.0), (1.0, 2.0), (12.0, 13.0)]  # two float leaks, two value leaks


def test_value_track_room_is_what_its_screening_draws():
    """Where the first screening's draws are kept, the room kept for the value track is the second screening
    less its first round (every candidate runs that round in both screenings, on the same seeds), not a
    whole second screening. Four candidates, two rounds, ``n_screening`` 90,000 of ``n_samples`` 200,000:
    the value track runs, draws what the first screening did not (45,000 per input, its most: it keeps the
    two pairs the first dropped) and the search draws all of ``n_samples``, no more.

    Detects: room for a whole second screening kept where the draws are kept (tried: the search before
    this rule, twice 90,000 does not fit besides the certification's floor of 50,000, so the value track
    does not run and the value verdict is on the float pair (0, 1); the test fails). Deterministic at its
    seed (no statistical test).
    """
    n = 200_000
    floats = dpverify.search_audit(_TwoLeaks(1.0), _FOUR_PAIRS, epsilon=1.0, n_samples=n, n_screening=90_000, seed=3)
    assert not any("value track not run" in note for note in floats.notes), floats.notes
    assert floats.x == 0.0 and floats.value_x in (10.0, 12.0), (floats.x, floats.value_x)
    assert floats.draws["screening"] == 90_000 and floats.draws["value screening"] == 45_000, floats.draws
    assert sum(floats.draws.values()) == n and floats.draws["certification"] >= 0.25 * n / 2, floats.draws


def test_value_track_that_would_overdraw_is_not_run(monkeypatch):
    """The room planned for the value track assumes the first round's draws are kept; where they were not (any
    reason: here nothing is kept), the value track's screening would take the certification's floor, so it
    does not run, a note says so, and the certification keeps at least its floor.

    Detects: a value track run on the plan alone (tried: ``_value_track_fits`` counting the planned room
    instead of the draws kept, the value track screens 90,000 more and each certification gets 10,000 per
    input, under the floor of 50,000; the test fails). Deterministic at its seed.
    """
    unmatched = itertools.count()  # every draw is filed under a key of its own: none is found kept again
    monkeypatch.setattr(search_module, "_draw_key", lambda pair, round_index, size: next(unmatched))
    n = 200_000
    floats = dpverify.search_audit(_TwoLeaks(1.0), _FOUR_PAIRS, epsilon=1.0, n_samples=n, n_screening=90_000, seed=3)
    assert floats.value_x is None and "value screening" not in floats.draws, floats.draws
    assert any("value track not run" in note and "90000 more" in note for note in floats.notes), floats.notes
    assert floats.draws["certification"] >= 0.25 * n and sum(floats.draws.values()) <= n, floats.draws


class _Calls:
    """``_TwoLeaks`` without a vectorized ``sample``: its draws are lists of floats, not arrays."""

    def __init__(self, epsilon):
        self.inner = _TwoLeaks(epsilon)

    def __call__(self, x, rng):
        return self.inner(x, rng)


def test_value_track_keeps_draws_that_are_lists():
    """A mechanism without ``sample`` gives lists of outputs; those draws are kept for the value track too
    (the room planned for it assumes they are), so its screening draws only the round the first did not run
    for its pairs: 6,000 per input of the first's 12,000.

    Detects: keeping array draws only (tried: the first round is not kept, so the value track's screening
    would take the certification's floor and does not run; the test fails). Deterministic at its seed.
    """
    n = 40_000
    floats = dpverify.search_audit(_Calls(1.0), _FOUR_PAIRS, epsilon=1.0, n_samples=n, seed=3)
    assert floats.value_x == 12.0 and floats.draws["value screening"] == 6_000, floats.draws
    assert floats.draws["screening"] == 12_000 and sum(floats.draws.values()) <= n, floats.draws


def test_value_track_leaves_value_decided_searches_alone():
    """A search whose verdict no floating-point event took part in is the search it was before the value
    track (no extra pair, no value verdict): the value track runs only when a float family made a pick."""
    pairs = [(10.0, 11.0), (12.0, 13.0)]
    result = dpverify.search_audit(_TwoLeaks(1.0), pairs, epsilon=1.0, n_samples=200_000, seed=3)
    assert result.value_x is None and result.value_verdict is None


def test_replay_on_other_neighbours_is_refused_by_name():
    """Detects a replay that audits other pairs in silence: a search over 20 scalar pairs replayed on
    ``query_vectors(None, 2.0)`` (other pairs, so another chosen pair and verdict) must raise
    ReplayMismatchError before drawing; a plain dict is refused by name, not an AttributeError."""
    mechanism = GeometricMechanism(1.0)
    kwargs = dict(epsilon=1.0, n_samples=20_000, n_candidates=20, seed=5)
    result = dpverify.search_audit(mechanism, query_vectors(None), **kwargs)
    with pytest.raises(dpverify.ReplayMismatchError, match="candidate 0"):
        dpverify.replay(result, mechanism, query_vectors(None, 2.0))
    with pytest.raises(dpverify.ReplayMismatchError):  # fewer pairs than were searched
        dpverify.replay(result, mechanism, [(result.candidates[0].x, result.candidates[0].x_prime)])
    reloaded = dpverify.SearchAuditResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert dpverify.replay(reloaded, mechanism, query_vectors(None)) == result
    with pytest.raises(dpverify.InvalidParameterError, match="from_dict"):
        dpverify.replay(result.to_dict(), mechanism, query_vectors(None))


class _RareLeak:
    """Randomized response at eps = 1 on {0, 1}, except that input 1 also emits 2 with probability 1e-3
    (so the pair (1, 0) leaks without bound through an output that 1,000 samples rarely see)."""

    def __call__(self, data, rng):
        return int(self.sample(data, 1, rng)[0])

    def sample(self, data, size, rng):
        p = np.e / (1 + np.e)
        out = (rng.random(size) < (p if data == 1 else 1 - p)).astype(np.int64)
        if data == 1:
            out[rng.random(size) < 1e-3] = 2
        return out


def test_the_result_says_what_screening_could_not_have_seen():
    """Detects a search that misses a rare worst pair without a word: 20 pairs at 1e5 (screening 0.3 of it)
    give each 500 screening samples, which resolve event probabilities down to ln(20)/500 = 0.006 only; the
    note says so and names a budget whose first round resolves what the certification resolves."""
    pairs = [(i, i + 1) for i in range(2, 21)] + [(1, 0)]
    result = dpverify.search_audit(_RareLeak(), pairs, epsilon=1.0, n_samples=100_000, seed=1)
    least = min(c.n_screened for c in result.candidates)
    assert least == 500
    note = next(n for n in result.notes if n.startswith("screening resolution"))
    assert "at least 500 samples" in note and "0.006" in note
    assert note in result.summary()
    level = search_module.screening_resolution(result.event.n_certification)
    budget = search_module.screening_budget_for(level, len(pairs))
    assert f"n_screening={budget}" in note
    first = search_module._round_sizes(budget, len(pairs))[0]
    assert search_module.screening_resolution(first) <= level < search_module.screening_resolution(first - 1)
    # enough screening for the certification's level: no note
    assert search_module._resolution_note(10**6, 80_000, 20) is None


def test_the_screening_summary_says_what_was_drawn():
    """Detects "10 per input to screen" when 16 pairs x 500 x rounds were drawn."""
    result = dpverify.search_audit(
        GeometricMechanism(1.0), query_vectors(None), epsilon=1.0, n_samples=20_000, n_screening=10, seed=1
    )
    assert result.n_screening_drawn >= 16 * 500 and result.n_screening == 10
    assert f"{result.n_screening_drawn} per input drawn" in result.summary()
    assert "n_screening=10 asked" in result.summary()
    assert "10 per input to screen" not in result.summary()


def test_a_screening_budget_that_cannot_fit_is_refused_before_drawing(monkeypatch):
    """Detects n_screening=10**9 accepted and grown to gigabytes: with 1 GiB available the search is
    refused after one pilot output, and the budget it names fits."""
    monkeypatch.setattr(sys.modules["dpverify.pipeline.memory"], "available_memory_bytes", lambda: 1 << 30)
    calls = []

    def counted(x, rng):
        calls.append(x)
        return float(x + rng.laplace())

    with pytest.raises(dpverify.InsufficientMemoryError, match=r"n_screening=\d+ or less") as refused:
        dpverify.search_audit(counted, query_vectors(None), epsilon=1.0, n_samples=20_000, n_screening=10**9)
    assert len(calls) == 1  # the pilot only
    fits = int(re.search(r"n_screening=(\d+) or less", str(refused.value)).group(1))
    from dpverify.pipeline.memory import audit_memory_bytes

    held = search_module._held_per_input(fits, 16, 0, 10_000)
    assert (
        audit_memory_bytes(0.0, held)
        <= 1 << 30
        < audit_memory_bytes(0.0, search_module._held_per_input(fits + 1_000, 16, 0, 10_000))
    )


def test_more_candidates_than_memory_holds_are_refused_before_drawing(monkeypatch):
    """Detects a callable asked for ``n_candidates=10**9`` pairs drawn into a list until a raw MemoryError:
    with 1 GiB available, 10**8 pairs (at least 6.4 GB) are refused before the callable is called once; a
    sequence of pairs, to which n_candidates does not apply, is not. Deterministic."""
    monkeypatch.setattr(sys.modules["dpverify.pipeline.memory"], "available_memory_bytes", lambda: 1 << 30)
    calls = []

    def pairs(rng):
        calls.append(1)
        return (0, 1)

    mechanism = GeometricMechanism(1.0)
    with pytest.raises(dpverify.InsufficientMemoryError, match=r"n_candidates=10+ pairs would take at least"):
        dpverify.search_audit(mechanism, pairs, epsilon=1.0, n_samples=20_000, seed=1, n_candidates=10**8)
    assert not calls
    result = dpverify.search_audit(mechanism, [(0, 1)], epsilon=1.0, n_samples=20_000, seed=1, n_candidates=10**8)
    assert (result.x, result.x_prime) == (0, 1)


def test_the_progress_line_advances_within_the_first_round(monkeypatch):
    """Detects a progress line that moves only after a whole round (no time estimate for half a
    5,000-candidate search): the bar advances once per pair."""
    updates = []

    class Recorder:
        def __init__(self, *args, **kwargs):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def update(self, k=1):
            updates.append(k)

    monkeypatch.setattr(search_module, "progress_bar", Recorder)
    result = dpverify.search_audit(
        GeometricMechanism(1.0),
        query_vectors(None),
        epsilon=1.0,
        n_samples=20_000,
        n_candidates=8,
        seed=1,
        progress=True,
    )
    first_round = sum(c.rounds >= 1 for c in result.candidates)
    assert len(updates) >= first_round + 4 + 2  # 8 + 4 + 2 pairs over three rounds


def test_the_chosen_pair_of_many_repeating_outputs_gets_a_larger_selection():
    """Sparse vector Alg. 6 (Lyu et al. 2017; 1,024 outputs, each seen many times): the chosen pair's selection
    is topped up to WINNER_GROWN_SHARE of n_samples from the budget, and the certification gets what is left
    (n_samples is the whole budget); real outputs are not grown. Power floor at 3e6 samples per input, seed 3:
    0.1995 (0.123 without the top-up, the certification then getting its samples). Deterministic at its seed.
    Detects: a search that selects the chosen pair's level sets on what screening left it (tried: the top-up
    removed, 0.123 < 0.18, the test fails)."""
    from dpverify.mechanisms.sparse_vector import SparseVectorNoCutoff

    n = 3_000_000
    result = dpverify.search_audit(SparseVectorNoCutoff(0.1), query_vectors(10), epsilon=0.1, n_samples=n, seed=3)
    assert result.n_selection == int(search_module.WINNER_GROWN_SHARE * n)
    assert result.event.n_certification == n - sum(v for k, v in result.draws.items() if k != "certification")
    assert result.epsilon_lower_bound >= 0.18
    pair = search_module._Pair(0, 0.0, 1.0, np.random.SeedSequence(0))
    rng = np.random.default_rng(0)
    pair.samples_x, pair.samples_x_prime, pair.n = rng.laplace(size=5_000), 1 + rng.laplace(size=5_000), 5_000
    screening = types.SimpleNamespace(
        plan=types.SimpleNamespace(n_samples=100_000, n_selection=10_000, options=dpverify.AuditOptions())
    )
    assert search_module._grown_winner_selection(pair, 10_000, screening) == 10_000  # real outputs: not grown


@pytest.mark.privacy_audit
def test_the_larger_selection_over_seeds(thorough):
    """Thorough profile: sparse vector Alg. 6 searches at 3e6 samples per input (the whole budget), seeds 1-6:
    mean bound at least 0.155 (0.159 measured; 0.169 before the value track's room became what its screening
    draws and none was kept on integer outputs, where seed 1's screening chose another pair: 0.182 -> 0.118; 0.127
    without the top-up). Deterministic at its seeds."""
    if not thorough:
        pytest.skip(
            "six 3e6-sample searches (about a minute) run under the thorough profile: DPVERIFY_PROFILE=thorough"
        )
    from dpverify.mechanisms.sparse_vector import SparseVectorNoCutoff

    bounds = [
        dpverify.search_audit(
            SparseVectorNoCutoff(0.1), query_vectors(10), epsilon=0.1, n_samples=3_000_000, seed=s
        ).epsilon_lower_bound
        for s in range(1, 7)
    ]
    assert np.mean(bounds) >= 0.155, bounds


def _screening_score(samples_x, samples_x_prime, families=None):
    """rank_pair's score of a pair with these screening samples, with ``families`` (default: the default value
    families)."""
    from dpverify.audits.choosing import rank_pair, screening_event_families

    n = len(samples_x)
    pair = types.SimpleNamespace(x=0.0, x_prime=1.0, samples_x=samples_x, samples_x_prime=samples_x_prime, n=n)
    plan = types.SimpleNamespace(delta=0.0, alpha=ALPHA, claim=None, n_certification=6_390_000)
    return rank_pair(pair, plan, screening_event_families(None, False) if families is None else families)


def test_screening_ranks_chance_tails_at_the_winners_curse():
    """Support-edge events are placed at the screening samples' own extremes (one input's values beyond every
    value of the other, so the other's count is 0 by construction); on vector outputs (many projections)
    screening ranks them at sqrt(2 ln M) standard errors, so chance tails of identical distributions
    (Laplace, 10 coordinates, 1e5 samples per input, seed 0) do not read as bounds: the best score of the
    default value families is below 0.1 (0.012 measured, an interval event), while a true edge (2 coordinates
    of exponential noise moved by 1: x' never reaches [0, 1)) still scores far above any claim with the
    support-edge family alone (9.4 measured). Deterministic at its seed. Detects: support-edge events of
    vector outputs ranked at the 1 SE of every other family (tried: support-edge not declared extreme, a chance tail
    scores 0.62 [support-edge] and the test fails; on Lyu et al.'s Alg. 3 such tails decided the search's
    screening at seed 1, value bound 0.080 against 0.124)."""
    rng = np.random.default_rng(0)
    n = 100_000
    score, event = _screening_score(rng.laplace(size=(n, 10)), rng.laplace(size=(n, 10)))
    assert score < 0.1, (score, event)
    edge = rng.exponential(size=(n, 2)), 1 + rng.exponential(size=(n, 2))
    score, event = _screening_score(*edge, families=["support-edge"])
    assert score > 5.0 and "[support-edge]" in event, (score, event)


def test_the_chosen_pair_of_count_and_level_outputs_gets_a_larger_selection():
    """Real vectors with markers and values (Lyu et al.'s sparse vector Alg. 3 returning its noisy values): the
    chosen pair's selection is topped up to WINNER_GROWN_SHARE of n_samples, where the count-and-level family
    fits its score and picks its tail threshold; outputs of markers alone, real vectors without markers, or a
    search without that family are not grown this way. Measured on Alg. 3 (c = 2, 10 queries, claim 0.1,
    alpha 0.1, 7.1e6 samples per input, values-only search): 0.1345 -> 0.1534 at seed 20261127, 0.1241 ->
    0.1241 at seed 1. Deterministic. Detects: the top-up missing for these outputs (tried: the
    count-and-level branch removed, the first assertion fails)."""
    from dpverify.mechanisms import SparseVectorValues
    from dpverify.pipeline.sampling import draw

    mechanism = SparseVectorValues(0.1, threshold=1.0, cutoff=2)
    n_sel = 5_000
    outputs = [draw(mechanism, x, n_sel, np.random.SeedSequence(i)) for i, x in enumerate([(1.0,) * 10, (2.0,) * 10])]
    screening = types.SimpleNamespace(
        plan=types.SimpleNamespace(n_samples=100_000, n_selection=10_000, options=dpverify.AuditOptions())
    )

    def grown(samples_x, samples_x_prime, plan_options=None):
        pair = search_module._Pair(0, 0.0, 1.0, np.random.SeedSequence(0))
        pair.samples_x, pair.samples_x_prime, pair.n = samples_x, samples_x_prime, len(samples_x)
        if plan_options is not None:
            screening.plan.options = plan_options
        return search_module._grown_winner_selection(pair, 10_000, screening)

    assert grown(*outputs) == int(search_module.WINNER_GROWN_SHARE * 100_000)
    markers_only = [np.where(np.asarray(o) > -500, 1.0, 0.0) for o in outputs]  # answered or not
    assert grown(*markers_only) == 10_000
    rng = np.random.default_rng(0)
    assert grown(rng.laplace(size=(n_sel, 10)), 1 + rng.laplace(size=(n_sel, 10))) == 10_000
    assert grown(*outputs, plan_options=dpverify.AuditOptions(event_families=["threshold"])) == 10_000
