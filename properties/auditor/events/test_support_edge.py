"""Support-edge events: the region one input's values reach and the other's never do.

- ``test_the_family_proposes_the_region_the_other_input_never_reaches``: one-sided noise shifted by one;
  the whole lower tail below the shifted input's estimated edge is proposed, tightest first, with no count
  of the other input. Detects a family that closes the region at the other input's extreme instead of its
  own (the region between them holds the other input's mass), or that counts the wrong side.
- ``test_the_region_stops_short_of_the_other_inputs_estimated_edge``: outputs on a grid, where the other
  input's first grid points hold mass its selection sample did not show; the region ends before its
  estimated edge ``2 X(1) - X(2)``, and where too few values lie there, at its smallest value. Detects a
  region that ends at the other input's smallest value (tried: the noisy max returning its value with
  exponential noise then certified a mean of 3.36 against 3.91 over seeds 0-9 at 1e7, the first grid
  point of the other input, probability 2.2e-7, inside the event), or one that drops the fallback.
- ``test_the_family_proposes_nothing_where_the_supports_agree``: two samples of one distribution; nothing
  is proposed, so no seeded result of such an audit moves. Deterministic at its seed.
- ``test_support_edge_events_keep_the_false_alarm_rate``: validity with the family alone on the grid
  Laplace at its exact claim eps = 5 (its tails put many samples of one input beyond the other's, so the
  family proposes in every audit): 40 audits at alpha = 0.1, violations at most the 1 - suite_alpha
  quantile of Bin(40, 0.1) (false failure <= 1e-6). A guard of the rate: no mutation was seen failing it
  (reuse of the selection sample is the next test's).
- ``test_support_edge_flukes_certify_nothing_on_fresh_samples``: validity where the selection sample is
  full of support edges and none is real: 4,000 independent normals per output, whatever the input, with
  200 selection rows per input. The mean-difference direction fitted on those rows splits them (each
  row's own square norm moves it by d / n = 20 against a spread of sqrt(2 d / n) = 6.3), so most of one
  input's selection rows lie beyond every row of the other on it and the family proposes counts like
  (190, 0); fresh rows of the two inputs fall on it alike. Three audits at alpha = 1e-7 (false failure
  <= 3e-7 by the union bound: the two output distributions are equal, so any violation is a false
  alarm). Detects certification that counts the selection rows again: counted on the selection rows
  alone, each audit certified 3.15 against the claim 0.25; with half the certification rows being the
  selection rows, 0.47-0.92 (10 of 10 seeds flagged both ways).
- ``test_the_value_verdict_sees_the_impossible_region``: power floor of a search on report noisy max
  returning its value with exponential noise (true loss infinite): the value bound at 2.1e6 samples per
  input, seed 1, is at least 1.5 (2.68 measured; 0.41 without the family: thresholds at pooled quantiles
  never reach a region of probability 1.6e-4). Deterministic at its seed; over seeds 0-7 the value bound
  was 2.29, 2.68, 2.31, 3.07, 0.43, 0.46, 0.30, 1.97 (search oracle 4.39; 2.14, 2.53, 3.17, 3.63, 0.43,
  0.46, 1.55, 2.58 with the region ending at the other input's smallest value; over seeds 8-23 the means
  were 2.48 and 2.29: the search's pair choice at this budget moves more than the event).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.audits.pair import selection_samples
from dpverify.events import candidate_events
from dpverify.events.real import MIN_EDGE_TAIL, support_edge_events
from dpverify.mechanisms import GridLaplace, NoisyMaxValue
from dpverify.neighbours import query_vectors
from dpverify.pipeline.outputs import fit_codec


def test_the_family_proposes_the_region_the_other_input_never_reaches():
    rng = np.random.default_rng(3)
    x = rng.exponential(10.0, size=(5_000, 1))
    x_prime = 1.0 + rng.exponential(10.0, size=(5_000, 1))
    found = support_edge_events(x, x_prime, None)
    smallest = np.sort(x_prime[:, 0])[:2]
    tail = np.sort(x[x[:, 0] < 2 * smallest[0] - smallest[1], 0])
    assert tail.size >= MIN_EDGE_TAIL
    below = [i for i, e in enumerate(found.events) if "<" in e.description]
    first = below[0]
    assert found.counts_x[first] == tail.size and found.counts_x_prime[first] == 0
    assert found.events[first].indicator(tail[-1:, None])[0]  # the tail's own extreme is in
    gap = (tail[-1] + x_prime.min()) / 2  # between the tail and the other input's extreme: left out
    assert not found.events[first].indicator(np.array([[gap]]))[0]
    assert np.all(found.counts_x_prime[below] == 0) and np.all(np.diff(found.counts_x[below]) <= 0)


def test_the_region_stops_short_of_the_other_inputs_estimated_edge():
    step = 2.0**-6
    x = np.repeat(np.arange(5.0, 6.05, step), 3)[:, None]  # reaches 6.0 and beyond, on the grid
    x_prime = (6.0 + step * np.array([2, 3, 3, 5, 8, 13, 21]))[:, None]  # shows nothing below 6 + 2 steps
    found = support_edge_events(x, x_prime, None)
    below = [i for i, e in enumerate(found.events) if "<" in e.description]
    first = found.events[below[0]].indicator
    edge = 2 * x_prime[0, 0] - x_prime[1, 0]  # 6.015625: one step short of its smallest value
    assert first(np.array([[edge - step]]))[0] and not first(np.array([[edge]]))[0]
    assert found.counts_x[below[0]] == 3 * np.count_nonzero(np.arange(5.0, 6.05, step) < edge)
    # too few values beyond the estimated edge: the tail is taken up to the other input's smallest value
    few = np.repeat([6.0, 6.015625], 3)[:, None]
    found = support_edge_events(few, x_prime, None)
    first = found.events[0].indicator
    assert found.counts_x[0] == 6 and first(np.array([[6.015625]]))[0]


def test_the_family_proposes_nothing_where_the_supports_agree():
    rng = np.random.default_rng(5)
    x, x_prime = rng.laplace(size=(20_000, 1)), rng.laplace(size=(20_000, 1))
    assert not support_edge_events(x, x_prime, None).events
    codec, (ex, exp) = fit_codec(x[:, 0], x_prime[:, 0])
    assert not [e for e in candidate_events(ex, exp, codec).events if e.family == "support-edge"]


@pytest.mark.privacy_audit
def test_support_edge_events_keep_the_false_alarm_rate(suite_alpha):
    """40 audits of a mechanism at its exact loss, support-edge events only, at alpha = 0.1: at most the
    Bin(40, 0.1) quantile at the suite's level may flag, and the family must be the one chosen
    (``picked == 40``). A guard of the family's false-alarm rate, not a mutation test: no mutation was
    seen failing it. Limit: it cannot detect certification reusing the selection sample here: an event of
    counts (k, 0) on 2,000 reused samples certifies more than eps = 5 only for k in the hundreds, and the
    family proposes k >= 5 with chance about 2^-5 on equal supports (the Clopper-Pearson pair (5, 0) of
    2,000 gives ln(p_lo / q_hi) < 0); ``test_support_edge_flukes_certify_nothing_on_fresh_samples`` does."""
    violations, picked = 0, 0
    for s in np.random.SeedSequence(7).spawn(40):
        result = dpverify.audit(
            GridLaplace(5.0),
            0.0,
            1.0,
            epsilon=5.0,
            n_samples=20_000,
            alpha=0.1,
            seed=s,
            event_families=["support-edge"],
        )
        violations += result.violation
        picked += result.event.family == "support-edge"
    assert picked == 40
    assert violations <= stats.binom.ppf(1 - suite_alpha, 40, 0.1)


class _SameNormals:
    """``d`` independent standard normals, whatever the input: every claim holds, with loss 0."""

    def __init__(self, d):
        self.d = d

    def sample(self, data, size, rng):
        return rng.standard_normal((size, self.d))

    def __call__(self, data, rng):
        return rng.standard_normal(self.d)


@pytest.mark.privacy_audit
def test_support_edge_flukes_certify_nothing_on_fresh_samples(suite_alpha):
    """The selection rows show support edges of counts about (190, 0) on the fitted mean-difference
    projection; fresh rows of two equal distributions certify none of them. Three audits at alpha = 1e-7
    (false failure <= 3e-7 <= ``suite_alpha``); each audit certified 3.15 against the claim 0.25 with its
    certification counted on the selection rows, and 0.47-0.92 with half the certification rows being
    the selection rows."""
    alpha = 1e-7
    mechanism = _SameNormals(4_000)
    seeds = np.random.SeedSequence(28).spawn(3)
    assert len(seeds) * alpha <= suite_alpha
    for s in seeds:
        result = dpverify.audit(
            mechanism,
            0,
            1,
            epsilon=0.25,
            n_samples=600,
            n_selection=200,
            alpha=alpha,
            seed=s,
            event_families=["support-edge"],
        )
        assert result.event.family == "support-edge"
        assert not result.violation, result.summary()
    # the premise, at the last seed: the selection rows hold an edge that would certify a loss if reused
    sel_x, sel_xp = selection_samples(result, mechanism, 0, 1)
    found = support_edge_events(sel_x, sel_xp, None)
    assert np.max(np.maximum(found.counts_x, found.counts_x_prime)) >= 150


@pytest.mark.privacy_audit
def test_the_value_verdict_sees_the_impossible_region():
    result = dpverify.search_audit(
        NoisyMaxValue(0.1, "exponential"), query_vectors(5), epsilon=0.1, n_samples=2_100_000, seed=1
    )
    value = result.value_verdict if result.value_verdict is not None else result
    assert value.epsilon_lower_bound >= 1.5, result.summary()


@pytest.mark.privacy_audit
def test_the_value_verdict_sees_the_impossible_region_over_seeds(thorough):
    """Thorough profile: seeds 0-7 at 4.2e6 samples per input; at least 5 value bounds of 1.5 or more (5
    measured: 2.24, 3.75, 3.55, 3.05, 1.59, 0.47, 0.32, 1.26; 1.54, 0.44 and 1.41 at seeds 4, 5 and 7 before the value
    track's room became what its screening draws; 0 before the family, whose value bounds were
    0.30-0.46). The test was written at 2.1e6 when a search drew about twice ``n_samples``; since
    ``n_samples`` is the whole budget, 2.1e6 gives 2 of 8, so the budget is the one the figure was
    measured at. Deterministic at its seeds."""
    if not thorough:
        pytest.skip(
            "eight 4.2e6-sample searches (about a minute) run under the thorough profile: DPVERIFY_PROFILE=thorough"
        )
    bounds = []
    for seed in range(8):
        result = dpverify.search_audit(
            NoisyMaxValue(0.1, "exponential"), query_vectors(5), epsilon=0.1, n_samples=4_200_000, seed=seed
        )
        value = result.value_verdict if result.value_verdict is not None else result
        bounds.append(value.epsilon_lower_bound)
    assert sum(b >= 1.5 for b in bounds) >= 5, bounds
