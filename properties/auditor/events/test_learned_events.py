"""Learned events over the whole output, and product events for tuple outputs.

- ``learned`` (:mod:`dpverify.events.learned`): a logistic score over features that matter for DP
  outputs (coordinates, where each marker value sits, counts of markers and of -inf/inf/NaN, order
  statistics of the values, sum), fitted on half the selection sample in bounded memory, thresholds on
  the other half; ``learned-trees`` the same with scikit-learn's gradient boosting. Both opt-in.
- ``learned-counts`` (default set): a logistic score over the counts of each marker and of the values,
  the bin of the smallest value and their products, fitted on the tallies of its distinct cells; only
  on real vector outputs with markers, silent elsewhere.
- ``product`` (:mod:`dpverify.events.products`): ``{part i = c and part j >= t}`` for tuple outputs.

Validity: ``test_false_alarm_rate_of_the_new_families`` audits mechanisms that attain their claim
exactly with the new families and counts violations at alpha = 0.1 against the 1 - suite_alpha
quantile of Bin(N, 0.1) (false failure <= 1e-6): default profile 90 audits pooled (limit 25; power:
fails with probability >= 0.9999 at a false-alarm rate of 0.5), thorough 200 per case (limit 43).
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

import dpverify
from dpverify.events import candidate_events, default_families
from dpverify.events import learned as learned_module
from dpverify.events import products as products_module
from dpverify.events.registry import LEARNED_MEMORY
from dpverify.mechanisms import SparseVectorValues
from dpverify.mechanisms.output_types import VectorLaplace
from dpverify.neighbours import pattern_pair
from dpverify.pipeline.outputs import fit_codec

ALPHA = 0.1
HALF_HALF = pattern_pair("half_half", 10)


def _selection(mechanism, x, x_prime, n, seed):
    rng = np.random.default_rng(seed)
    _, (a, b) = fit_codec(mechanism.sample(x, n, rng), mechanism.sample(x_prime, n, rng))
    return a, b


def test_learned_family_flags_the_sparse_vector_returning_values():
    """Lyu et al. Alg. 3 run at eps = 1 but claiming 0.1, half-half pair: the learned events alone flag it.

    Detects: a learned family that proposes nothing or whose score does not separate the inputs (tried:
    learned_events returning Candidates.empty() -- no event, no violation, the test fails)."""
    result = dpverify.audit(
        SparseVectorValues(1.0), *HALF_HALF, epsilon=0.1, n_samples=200_000, seed=5, event_families=["learned"]
    )
    assert result.violation and result.event.family == "learned"
    assert result.epsilon_lower_bound > 0.3


def test_learned_families_are_opt_in():
    """Registered, but out of the default set: audits that do not name them keep their seeded results."""
    assert "learned" not in default_families() and "product" not in default_families()
    codec_rows = _selection(VectorLaplace(1.0), 0.0, 1.0, 2_000, 1)
    _, (a, b) = fit_codec(*codec_rows)
    codec, _ = fit_codec(*codec_rows)
    default = candidate_events(a, b, codec)
    assert not any(e.family in ("learned", "product", "learned-trees") for e in default.events)
    named = candidate_events(a, b, codec, ["learned"])
    assert named.events and all(e.family == "learned" for e in named.events)


def test_learned_indicator_pickles_and_counts_alike():
    """The frozen indicator travels to other processes: the pickled copy decides membership alike."""
    a, b = _selection(SparseVectorValues(1.0), *HALF_HALF, 4_000, 2)
    codec, _ = fit_codec(a, b)
    found = learned_module.learned_events(a, b, codec)
    event = found.events[len(found.events) // 3]
    fresh = SparseVectorValues(1.0).sample(HALF_HALF[0], 3_000, np.random.default_rng(9))
    copy = pickle.loads(pickle.dumps(event.indicator))
    assert np.array_equal(copy(fresh), event.indicator(fresh))
    assert np.array_equal(event.indicator(fresh), event.indicator(fresh.copy()))  # the kept score is per object


def test_learned_memory_stays_in_its_model_at_width_5000():
    """Outputs of width 5,000: the features stay bounded, and building the events (``learned`` and
    ``learned-counts``, whose records declare the same memory) holds no more than the record declares
    (beyond the selection rows themselves)."""
    rng = np.random.default_rng(3)
    n, width = 1_000, 5_000
    a = np.where(rng.random((n, width)) < 0.9, -1000.0, rng.normal(size=(n, width)))
    b = np.where(rng.random((n, width)) < 0.9, -1000.0, rng.normal(0.1, size=(n, width)))
    codec, _ = fit_codec(a[:10], b[:10])
    features = learned_module.OutputFeatures.of(a, b)
    assert features.n_features <= 64 and features.block_rows() * width <= learned_module.SCORE_ELEMENTS
    for build in (learned_module.learned_events, learned_module.learned_count_events):
        tracemalloc.start()
        try:
            found = build(a, b, codec)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert found.events
        assert peak <= LEARNED_MEMORY.fixed_bytes, f"{build.__name__}: peak {peak / 2**20:.0f} MiB"


def test_learned_trees_skip_with_a_note_without_sklearn(monkeypatch):
    monkeypatch.setattr(learned_module, "sklearn_available", lambda: False)
    a, b = _selection(VectorLaplace(1.0), 0.0, 1.0, 1_000, 1)
    codec, _ = fit_codec(a, b)
    found = candidate_events(a, b, codec, ["learned-trees"])
    assert not found.events and "scikit-learn" in found.skipped["learned-trees"]


def test_learned_trees_separate_when_sklearn_is_there():
    pytest.importorskip("sklearn", reason="the learned-trees family needs scikit-learn (the 'learned' extra)")
    result = dpverify.audit(
        SparseVectorValues(1.0), *HALF_HALF, epsilon=0.1, n_samples=100_000, seed=5, event_families=["learned-trees"]
    )
    assert result.violation and result.event.family == "learned-trees"


class SwappedParts:
    """(b, v): b a fair coin, v Laplace around +s or -s -- which one depends on b and on the input, so
    neither part alone tells the inputs apart; together they do (loss 2 s on the tails of one category)."""

    def __init__(self, shift):
        self.shift = shift

    def sample(self, x, size, rng):
        b = rng.integers(0, 2, size=size)
        sign = np.where(b == 0, 1.0, -1.0) * (1.0 if x == 0 else -1.0)
        v = np.round((sign * self.shift + rng.laplace(size=size)) * 256) / 256
        return np.stack([b.astype(float), v], axis=1)

    def __call__(self, x, rng):
        return tuple(self.sample(x, 1, rng)[0].tolist())


def test_product_events_see_what_no_part_alone_does():
    """Each part alone has the same law under both inputs; the product events flag the tuple, with a bound
    above what the thresholds on the parts and their projections (sum, max, mean difference) certify.

    Detects: no product family, or one that combines the wrong parts (tried: product_events returning
    nothing -- no violation, the test fails)."""
    options = dict(epsilon=0.5, n_samples=200_000, seed=2)
    parts = dpverify.audit(SwappedParts(0.5), 0, 1, event_families=["threshold"], **options)
    product = dpverify.audit(SwappedParts(0.5), 0, 1, event_families=["product"], **options)
    assert product.violation and product.event.family == "product"
    assert product.epsilon_lower_bound > parts.epsilon_lower_bound
    event = products_module.CategoryAndThreshold(0, 0.0, 1, 0.0, True)
    assert np.array_equal(pickle.loads(pickle.dumps(event))(np.array([[0.0, 1.0], [1.0, 1.0]])), [True, False])


class ExactTuple:
    """(randomized-response bit of x at eps, independent grid Laplace noise): loss exactly eps, tuple output."""

    def __init__(self, epsilon):
        self.epsilon = epsilon
        self.keep = np.exp(epsilon) / (1 + np.exp(epsilon))

    def sample(self, x, size, rng):
        bit = np.where(rng.random(size) < self.keep, x, 1 - x).astype(float)
        return np.stack([bit, np.round(rng.laplace(size=size) * 64) / 64], axis=1)

    def __call__(self, x, rng):
        return tuple(self.sample(x, 1, rng)[0].tolist())


class ExactMarker:
    """Width 4: entry 0 is the marker -1000 or not by randomized response of x at eps, the rest independent
    Laplace values (on a grid): loss exactly eps, carried by the count of the marker."""

    def __init__(self, epsilon):
        self.epsilon = epsilon
        self.keep = np.exp(epsilon) / (1 + np.exp(epsilon))

    def sample(self, x, size, rng):
        bit = np.where(rng.random(size) < self.keep, x, 1 - x)
        out = np.round(rng.laplace(size=(size, 4)) * 64) / 64
        out[bit == 1, 0] = -1000.0
        return out

    def __call__(self, x, rng):
        return self.sample(x, 1, rng)[0]


#: (mechanism, x, x', families, audits in the default profile); thorough: 200 each.
VALIDITY_CASES = {
    "learned, vector Laplace": (VectorLaplace(1.0), 0.0, 1.0, ["learned"], 30),
    "product, bit and noise": (ExactTuple(1.0), 0, 1, ["product"], 30),
    "learned-counts, marker bit": (ExactMarker(1.0), 0, 1, ["learned-counts"], 30),
}


def _audit(name, seed):
    """One seeded audit of validity case ``name`` at ``ALPHA``, on the case's families."""
    mechanism, x, x_prime, families, _ = VALIDITY_CASES[name]
    return dpverify.audit(
        mechanism,
        x,
        x_prime,
        epsilon=mechanism.epsilon,
        n_samples=20_000,
        alpha=ALPHA,
        seed=seed,
        event_families=families,
    )


def test_false_alarm_rate_of_the_new_families(check_false_alarms):
    """See the module docstring (pooled in the default profile, 200 per case under thorough)."""
    check_false_alarms(_audit, {name: case[-1] for name, case in VALIDITY_CASES.items()}, ALPHA, key=28)


def test_learned_features_count_special_values():
    """-inf and inf entries are counted (not lost, not propagated into the score): outputs that differ only
    in which special value their entries take get a finite score that separates them (NaN, which audits
    refuse as an output, is counted by the features alike)."""
    rng = np.random.default_rng(11)
    n = 4_000
    a = rng.normal(size=(n, 6))
    b = rng.normal(size=(n, 6))
    a[rng.random((n, 6)) < 0.2] = -np.inf
    b[rng.random((n, 6)) < 0.2] = np.inf
    features = learned_module.OutputFeatures.of(a, b)
    with_nan = np.concatenate([a, b, np.full((1, 6), np.nan)])
    rows = features(with_nan)
    assert np.all(np.isfinite(rows))
    codec, _ = fit_codec(a[:10], b[:10])
    found = learned_module.learned_events(a, b, codec)
    gap = np.max(np.abs(found.counts_x - found.counts_x_prime)) / n
    assert gap > 0.6  # a row with a -inf entry comes from x, one with an inf entry from x' (P = 1 - 0.8^6)


def test_screening_ranks_learned_events_on_their_held_out_rows():
    """The learned family counts its thresholds on the held-out half and rescales them to the selection size;
    ``Candidates.rows`` says so, and a search's screening (``rank_pair``) scores them on those rows, as precise as
    they are. Detects: ranking the rescaled counts as counts on every row (tried: ``rank_pair`` without the
    ``rows`` step; its score is then that of counts on twice the rows, larger, and the test fails), under
    which a lucky held-out score of a mediocre pair wins a round."""
    from types import SimpleNamespace

    from dpverify.audits.choosing import RANKING_SHRINKAGE_SE, rank_pair
    from dpverify.audits.search import _Pair
    from dpverify.pipeline.selection import predicted_bounds

    mechanism = SparseVectorValues(1.0)
    rng = np.random.default_rng(2)
    n = 4_000
    pair = _Pair(0, *HALF_HALF, np.random.SeedSequence(0))
    pair.samples_x, pair.samples_x_prime = (
        mechanism.sample(HALF_HALF[0], n, rng),
        mechanism.sample(HALF_HALF[1], n, rng),
    )
    pair.n = n
    codec, (a, b) = fit_codec(pair.samples_x, pair.samples_x_prime)
    found = candidate_events(a, b, codec, ["learned"])
    assert np.all(found.rows == n - n // 2)
    plan = SimpleNamespace(delta=0.0, alpha=0.05, claim=None, n_certification=40_000)
    score, _ = rank_pair(pair, plan, ["learned"])
    held_x, held_xp, rows = found.counts_x * found.rows / n, found.counts_x_prime * found.rows / n, found.rows
    options = dict(delta=0.0, alpha=0.05, shrinkage_se=RANKING_SHRINKAGE_SE)
    honest = max(
        np.max(np.where(np.isfinite(s), s, -np.inf))
        for s in (
            predicted_bounds(held_x, held_xp, rows, 40_000, **options),
            predicted_bounds(held_xp, held_x, rows, 40_000, **options),
        )
    )
    assert score == pytest.approx(honest)


def test_summary_features_count_markers_and_bin_the_smallest_value():
    """Rows of -1000/-2000 markers and values: per row the count of each marker, of the values and of the
    non-finite entries, the bin of the smallest value (last bin: no value) and every count times every bin.

    Detects: a marker counted as a value or a value as a marker, the smallest value taken over the markers
    (tried: ``low`` over all finite entries -- every row lands in bin 0, the test fails), a product of the
    wrong count and bin."""
    features = learned_module.SummaryFeatures(4, (-2000.0, -1000.0), (0.0, 10.0))
    rows = np.array(
        [
            [5.0, -1000.0, 20.0, -2000.0],
            [-1000.0, -1000.0, -2000.0, -2000.0],
            [-np.inf, 15.0, -1000.0, 30.0],
            [-3.0, 12.0, 1.0, -1000.0],
        ]
    )
    cells = features.cells(rows)
    assert cells.tolist() == [[1, 1, 2, 0, 1], [2, 2, 0, 0, 3], [0, 1, 2, 1, 2], [0, 1, 3, 0, 0]]
    f = features(rows)
    assert f.shape == (4, features.n_features) == (4, 4 + 4 + 16)
    assert np.array_equal(f[:, :4], cells[:, :4]) and np.array_equal(f[:, 4:8].argmax(axis=1), cells[:, 4])
    products = f[:, 8:].reshape(4, 4, 4)
    assert np.array_equal(products, cells[:, :4, None] * np.eye(4)[cells[:, 4]][:, None, :])


def test_counted_fit_equals_the_fit_on_the_rows():
    """The fit on distinct cells weighted by their counts is the row-by-row fit (same likelihood).

    Detects: weights dropped or misapplied in the Newton step or the standardization (tried: the
    gradient without ``w`` -- the weights differ by far more than 1e-8, the test fails)."""
    a, b = _selection(SparseVectorValues(1.0), *HALF_HALF, 20_000, 4)
    markers = learned_module.find_markers(a, b, learned_module.MARKER_ELEMENTS)
    features = learned_module.SummaryFeatures.of(a, b, markers)
    rows = learned_module.fit_streaming_logistic(features, a, b)
    cells, count_x, count_xp = features.tally(a, b)
    counted = learned_module.fit_counted_logistic(features.of_cells(cells), count_x, count_xp)
    assert count_x.sum() == len(a) and count_xp.sum() == len(b) and len(cells) < 200
    for got, want in zip(counted, rows):
        assert np.allclose(got, want, rtol=1e-8, atol=1e-10)


class CountAndLevel:
    """Width 4: one value, ``c`` (uniform on 0..3) of the other entries -1000 and the rest -2000, at random
    places; the value is N(+d, 1) or N(-d, 1), by whether ``c >= 2`` and by the input. The count and the
    value each have the same law under both inputs; together they tell them apart."""

    def __init__(self, d):
        self.d = d

    def sample(self, x, size, rng):
        c = rng.integers(0, 4, size=size)
        rank = np.argsort(np.argsort(rng.random((size, 4)), axis=1), axis=1)
        sign = np.where((c >= 2) ^ (x == 1), 1.0, -1.0)
        out = np.where(rank <= c[:, None], -1000.0, -2000.0)
        out[rank == 0] = np.round((sign * self.d + rng.normal(size=size)) * 256) / 256
        return out

    def __call__(self, x, rng):
        return self.sample(x, 1, rng)[0]


def test_learned_counts_see_counts_with_the_level_of_the_values():
    """``learned-counts`` (in the default set) flags CountAndLevel with its count-and-level score alone (bound
    3.2 at seed 0; the opt-in logistic score over the coordinates certifies 1.4).

    Detects: the family proposing nothing, or a score without the counts or the level (tried:
    ``learned_count_events`` returning no event -- no violation, the test fails)."""
    assert "learned-counts" in default_families()
    options = dict(epsilon=0.5, n_samples=20_000, seed=0, event_families=["learned-counts"])
    result = dpverify.audit(CountAndLevel(1.0), 0, 1, **options)
    assert result.violation and result.event.family == "learned-counts"
    assert result.epsilon_lower_bound > 2.8


def test_learned_counts_stay_silent_where_there_are_no_markers():
    """Scalar outputs, vectors without markers, too few rows: no event and no note (so the seeded results of
    audits without markers are those of the default set before the family was added)."""
    rng = np.random.default_rng(1)
    codec, _ = fit_codec(rng.normal(size=(10, 3)), rng.normal(size=(10, 3)))
    for a, b in (
        (rng.normal(size=4_000), rng.normal(size=4_000)),
        (rng.normal(size=(4_000, 3)), rng.normal(size=(4_000, 3))),
        (np.full((100, 3), -1000.0), np.full((100, 3), -1000.0)),
    ):
        found = learned_module.learned_count_events(a, b, codec)
        assert not found.events and not found.skipped
