"""Compiled counting of frozen events (dpverify.pipeline.counting) against the numpy path.

Certification counts the frozen events in every streamed block either with
numba kernels or with the events' own numpy indicators. Counts are integers,
so the two must agree exactly, for every event kind the built-in families
propose and on every output type. Each test here compares them on the whole
candidate list of the families (not only the events a selection would
pick), on blocks that contain values the selection never saw (code -1),
signed zeros, infinities, subnormals and values beyond the selection's range.

Deterministic: fixed seeds or Hypothesis examples, no statistical decision,
so the false-alarm rate on correct code is 0; the power is 1 against any
kernel whose count differs from numpy's on the data tested. Breaking the
kernel (``>=`` read as ``>``, the trailing-zero count off by one, code -1 read
from the first table entry instead of the last, the TwoSum error dropped)
makes these tests fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dpverify
from dpverify.errors import OutputTypeError
from dpverify.events import candidate_events
from dpverify.mechanisms import FloatLaplaceMechanism, NoisyHistogram
from dpverify.mechanisms.sparse_vector import SparseVector
from dpverify.mechanisms.textbook import ExponentialMechanism, GeometricMechanism, LaplaceMechanism, RandomizedResponse
from dpverify.pipeline import counting, sampling
from dpverify.pipeline.outputs import fit_codec

#: Families whose events the kernels must count themselves (not hand to numpy), by output kind.
COMPILED_FAMILIES = {
    "real": {"threshold", "real-value", "mantissa", "reachability"},
    "discrete": {"singleton", "level-set", "numeric-threshold"},
}


def _numpy_counts(codec, indicators, raw) -> np.ndarray:
    encoded = codec.encode(raw)
    return np.array([np.count_nonzero(indicator(encoded)) for indicator in indicators], dtype=np.int64)


def _compiled_counts(counter, indicators, raw) -> np.ndarray:
    counts = np.zeros(len(indicators), dtype=np.int64)
    assert counter.accepts(raw)
    counter.count(raw, counts)
    if counter.rest:  # what the numpy path counts in sampling._count_block
        encoded = counter.codec.encode(raw)
        for i in counter.rest:
            counts[i] += np.count_nonzero(indicators[i](encoded))
    return counts


def _check_all_candidates(sel_x, sel_x_prime, blocks, inputs=None):
    """Every candidate event of every family, counted both ways on each block; returns the counter."""
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_x_prime)
    candidates = candidate_events(enc_x, enc_xp, codec, inputs=inputs)
    indicators = [e.indicator for e in candidates.events]
    counter = counting.compile_counter(codec, indicators)
    assert counter is not None
    compiled_families = {candidates.events[i].family for i in range(len(indicators)) if i not in counter.rest}
    present = {e.family for e in candidates.events} & COMPILED_FAMILIES[codec.kind]
    assert present <= compiled_families, f"not compiled: {present - compiled_families}"
    for raw in blocks:
        np.testing.assert_array_equal(_compiled_counts(counter, indicators, raw), _numpy_counts(codec, indicators, raw))
    return counter


def _with_specials(values: np.ndarray) -> np.ndarray:
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 5e-324, -5e-324, 2.0**-1022, 1e308, -1e308, 1.0, -1.0])
    return np.concatenate([values, specials])


@pytest.mark.parametrize("mechanism", [LaplaceMechanism(1.0), FloatLaplaceMechanism(1.0)], ids=["snapped", "float"])
def test_scalar_real_events_count_identically(mechanism):
    """Thresholds, intervals, mantissa codes and reachability cells of scalar doubles.

    The snapped Laplace releases signed zeros and repeats values; the float
    one leaks through its low bits (Mironov 2012), so its mantissa and
    reachability events are proposed and counted.
    """
    rng = np.random.default_rng(5)
    sel_x, sel_xp = mechanism.sample(0.0, 20_000, rng), mechanism.sample(1.0, 20_000, rng)
    blocks = [_with_specials(mechanism.sample(x, 50_000, rng)) for x in (0.0, 1.0)]
    blocks.append(_with_specials(rng.standard_cauchy(10_000) * 1e6))  # far outside the selection's range
    counter = _check_all_candidates(sel_x, sel_xp, blocks, inputs=(0.0, 1.0))
    assert counter.tested and counter.coded


def test_few_distinct_real_values_count_identically():
    """Exact-value codes (sorted lookup) of real outputs that repeat, with unseen values."""
    rng = np.random.default_rng(6)
    grid = np.array([-2.5, -0.0, 0.5, 1.0, 3.25])
    sel_x, sel_xp = rng.choice(grid, 5_000, p=[0.1, 0.2, 0.3, 0.2, 0.2]), rng.choice(grid, 5_000)
    blocks = [np.concatenate([rng.choice(grid, 20_000), [0.0, 0.75, -7.0, np.inf]])]
    counter = _check_all_candidates(sel_x, sel_xp, blocks)
    assert counter.coded


def test_real_vector_events_count_identically_and_leave_sums_to_numpy():
    """Coordinates and the largest coordinate compile; the sum and the linear projection stay numpy's."""
    rng = np.random.default_rng(7)
    mechanism = NoisyHistogram(1.0)
    x, x_prime = (1.0,) * 5, (2.0, 1.0, 1.0, 1.0, 1.0)
    sel_x, sel_xp = mechanism.sample(x, 5_000, rng), mechanism.sample(x_prime, 5_000, rng)
    block = mechanism.sample(x, 10_000, rng)
    block[:3, 1] = [np.inf, -np.inf, -0.0]
    counter = _check_all_candidates(sel_x, sel_xp, [block], inputs=(x, x_prime))
    assert counter.tested and counter.rest


@pytest.mark.parametrize(
    "mechanism, x, x_prime",
    [
        (RandomizedResponse(1.0), 0, 1),
        (GeometricMechanism(0.5), 0, 1),
        (ExponentialMechanism(1.0), (1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 1.0, 1.0)),
        (SparseVector(0.5, threshold=0.0), (0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,)),
    ],
    ids=["randomized-response", "geometric", "exponential", "sparse-vector"],
)
def test_integer_events_count_identically(mechanism, x, x_prime):
    """Singletons, level sets and thresholds on code values; certification shows unseen integers."""
    rng = np.random.default_rng(8)
    sel_x, sel_xp = mechanism.sample(x, 2_000, rng), mechanism.sample(x_prime, 2_000, rng)
    block = mechanism.sample(x, 40_000, rng)
    block = np.concatenate([block, np.array([-(2**62), 2**62, 123_456], dtype=block.dtype)])
    _check_all_candidates(sel_x, sel_xp, [block])


def test_integers_audited_by_value_count_identically():
    """Integers with more than a code book's worth of values are real outputs ("int-real") to the events."""
    rng = np.random.default_rng(13)
    sel_x, sel_xp = rng.integers(-3000, 3000, 4_000), rng.integers(-2900, 3100, 4_000)
    block = np.concatenate([rng.integers(-4000, 4000, 30_000), [-(2**62), 2**53 + 1, 2**63 - 1]])
    vectors = rng.integers(-3000, 3000, (4_000, 3)), rng.integers(-2900, 3100, (4_000, 3))
    for (x, x_prime), raw in (((sel_x, sel_xp), block), (vectors, rng.integers(-4000, 4000, (20_000, 3)))):
        assert fit_codec(x, x_prime)[0].storage == "int-real"
        counter = _check_all_candidates(x, x_prime, [raw])
        assert counter.tested and not counter.accepts(raw.astype(np.float64))


def test_integer_codes_beyond_the_direct_lookup_span_use_binary_search():
    """A code book spanning more values than a lookup table holds is searched, with the same counts."""
    rng = np.random.default_rng(9)
    values = np.array([-(10**12), -3, 0, 7, 10**9, 10**12], dtype=np.int64)
    sel_x, sel_xp = rng.choice(values, 3_000, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1]), rng.choice(values, 3_000)
    block = np.concatenate([rng.choice(values, 20_000), [5, -(10**12) - 1, 2**63 - 1, -(2**63)]])
    counter = _check_all_candidates(sel_x, sel_xp, [block])
    assert counter.program["lookup"].size == 0


def test_boolean_events_count_identically():
    rng = np.random.default_rng(10)
    sel_x, sel_xp = rng.random(3_000) < 0.7, rng.random(3_000) < 0.4
    _check_all_candidates(sel_x, sel_xp, [rng.random(20_000) < 0.5])


@pytest.mark.parametrize("compared", [0, counting.MAX_COMPARED_CODES], ids=["kernel", "comparison"])
@pytest.mark.parametrize("n_keys", [1, 2, 3])
def test_small_code_books_count_identically_by_comparison_and_kernel(monkeypatch, compared, n_keys):
    """Code books of at most MAX_COMPARED_CODES integers are counted by numpy comparisons, not the kernel.

    Both ways give numpy's counts, unseen values (code -1) included; a comparison path that drops the
    unseen values, or counts a key twice, fails here.
    """
    monkeypatch.setattr(counting, "MAX_COMPARED_CODES", compared)
    rng = np.random.default_rng(14)
    keys = np.array([-7, 0, 3][:n_keys], dtype=np.int64)
    sel_x, sel_xp = rng.choice(keys, 2_000), rng.choice(keys, 2_000)
    block = np.concatenate([rng.choice(keys, 30_000), [5, 2**62, -(2**63)]]).astype(np.int64)
    if n_keys > 1:
        _check_all_candidates(sel_x, sel_xp, [block])
    histogram_kernel, histogram_compared = np.zeros(n_keys + 1, np.int64), np.zeros(n_keys + 1, np.int64)
    counting.count_codes(block, keys, np.zeros(0, np.int64), 0, -1, histogram_kernel)
    counting.count_by_comparison(block, keys, histogram_compared)
    np.testing.assert_array_equal(histogram_compared, histogram_kernel)
    assert histogram_kernel[0] == 3


@settings(max_examples=40)
@given(
    hnp.arrays(np.float64, st.integers(40, 200), elements=st.floats(allow_nan=False, width=64)),
    st.floats(-4.0, 4.0, allow_nan=False),
)
@example(np.array([0.1, 0.25, -0.0, 0.0, 2.0**-1074, 1e308] * 10), 1.0)
@example(np.array([1.0, 1.0 + 2.0**-52, 0.5, 3.0, -np.inf] * 10), 0.0)
def test_any_doubles_count_identically(values, shift):
    """Arbitrary bit patterns (subnormals, huge values, infinities) in every real event kind."""
    half = len(values) // 2
    sel_x, sel_xp = values[:half], values[half:] + shift
    with np.errstate(over="ignore"):
        block = np.concatenate([values[::-1], values * 1.5, values + 2.0**-30])
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_xp)
    candidates = candidate_events(enc_x, enc_xp, codec, inputs=(0.0, shift or 1.0))
    indicators = [e.indicator for e in candidates.events]
    counter = counting.compile_counter(codec, indicators)
    if counter is None:
        assert all(e.family == "classifier" for e in candidates.events)
        return
    with np.errstate(over="ignore", invalid="ignore"):
        numpy_counts = _numpy_counts(codec, indicators, block)
    np.testing.assert_array_equal(_compiled_counts(counter, indicators, block), numpy_counts)


def test_a_nan_in_a_block_raises_the_numpy_paths_error():
    rng = np.random.default_rng(11)
    codec, (enc_x, enc_xp) = fit_codec(rng.normal(size=1000), rng.normal(1.0, size=1000))
    indicators = [e.indicator for e in candidate_events(enc_x, enc_xp, codec).events]
    counter = counting.compile_counter(codec, indicators)
    block = rng.normal(size=500)
    block[321] = np.nan
    with pytest.raises(OutputTypeError, match="NaN"):
        counter.count(block, np.zeros(len(indicators), dtype=np.int64))


#: (name, mechanism, x, x', claim, samples per input, whether its certified events compile). The
#: noisy histogram's audit certifies a threshold on a linear projection of its vectors, which stays
#: numpy's (and is the slowest to select: fewer samples).
AUDITED = [
    ("laplace", LaplaceMechanism(1.0), 0.0, 1.0, 1.0, 300_000, True),
    ("float-laplace", FloatLaplaceMechanism(1.0), 0.0, 1.0, 1.0, 300_000, True),
    ("geometric", GeometricMechanism(1.0), 0, 1, 1.0, 300_000, True),
    ("randomized-response", RandomizedResponse(1.0), 0, 1, 1.0, 300_000, True),
    ("sparse-vector", SparseVector(0.5, threshold=0.0), (0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,), 0.5, 300_000, True),
    ("noisy-histogram", NoisyHistogram(1.0), (1.0,) * 5, (2.0, 1.0, 1.0, 1.0, 1.0), 1.0, 60_000, False),
]


@pytest.mark.parametrize("name, mechanism, x, x_prime, epsilon, n, compiles", AUDITED, ids=[a[0] for a in AUDITED])
def test_seeded_audits_are_identical_with_and_without_the_kernels(
    monkeypatch, name, mechanism, x, x_prime, epsilon, n, compiles
):
    """The whole result of a seeded audit (bounds, counts, events) is the same either way.

    The kernels are switched on for this small audit (they start at 2**23 outputs per input), and
    the test checks that they ran where the certified events compile.
    """
    options = dict(epsilon=epsilon, n_samples=n, n_chunks=2, seed=20261124)
    ran = []

    def compile_and_record(codec, indicators):
        counter = counting.compile_counter(codec, indicators)
        ran.append(counter is not None)
        return counter

    monkeypatch.setattr(sampling, "MIN_COMPILED_OUTPUTS", 1)
    monkeypatch.setattr(sampling, "compile_counter", compile_and_record)
    compiled = dpverify.audit(mechanism, x, x_prime, **options)
    assert ran and all(ran) == compiles and any(ran) == compiles
    monkeypatch.setattr(sampling, "compile_counter", lambda codec, indicators: None)
    plain = dpverify.audit(mechanism, x, x_prime, **options)
    assert compiled.to_dict() == plain.to_dict()


def test_blocks_the_kernels_cannot_read_as_numpy_does_go_to_numpy():
    """Another dtype, width or type than the code book's is left to the numpy path (and its errors)."""
    rng = np.random.default_rng(12)
    codec, (enc_x, enc_xp) = fit_codec(rng.normal(size=(500, 2)), rng.normal(1.0, size=(500, 2)))
    counter = counting.compile_counter(codec, [e.indicator for e in candidate_events(enc_x, enc_xp, codec).events])
    assert counter.accepts(rng.normal(size=(10, 2)))
    for block in (rng.normal(size=(10, 3)), rng.normal(size=10), rng.normal(size=(10, 2)).astype(np.float32)):
        assert not counter.accepts(block)
    assert not counter.accepts([(0.1, 0.2)] * 10)
    codec, (enc_x, enc_xp) = fit_codec(np.arange(100) % 7, np.arange(100) % 5)
    counter = counting.compile_counter(codec, [e.indicator for e in candidate_events(enc_x, enc_xp, codec).events])
    assert counter.accepts(np.arange(10))
    for block in (np.arange(10).astype(np.int32), np.arange(10.0), np.arange(10) > 3, np.arange(20).reshape(10, 2)):
        assert not counter.accepts(block)


@pytest.mark.parametrize("mechanism", [LaplaceMechanism(1.0), FloatLaplaceMechanism(1.0)], ids=["snapped", "float"])
def test_classifier_scores_of_scalar_doubles_count_identically(mechanism):
    """Thresholds on the classifier's score of scalar doubles are counted by the kernel, and identically.

    The blocks hold the selection's own outputs again, whose scores equal the thresholds (chosen at
    score quantiles): numpy's BLAS dot product and the kernel's may differ in the last bit there, so the
    kernel must hand those score blocks back to numpy. Breaking it (no unsure blocks, or the margin set
    to 0) makes the snapped case fail."""
    rng = np.random.default_rng(5)
    sel_x, sel_xp = mechanism.sample(0.0, 20_000, rng), mechanism.sample(1.0, 20_000, rng)
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_xp)
    candidates = candidate_events(enc_x, enc_xp, codec, ["classifier"])
    indicators = [e.indicator for e in candidates.events]
    assert indicators
    counter = counting.compile_counter(codec, indicators)
    assert len(counter.scored) == len(indicators) and not counter.rest
    rows = counter.program["score_rows"]
    blocks = [
        np.concatenate([mechanism.sample(0.0, rows + 7, rng), np.repeat(sel_x[:50], 20)]),
        _with_specials(np.concatenate([sel_xp, rng.standard_cauchy(10_000) * 1e6])),
    ]
    for raw in blocks:
        np.testing.assert_array_equal(_compiled_counts(counter, indicators, raw), _numpy_counts(codec, indicators, raw))


@pytest.mark.parametrize("seed", range(3))
def test_scalar_kernel_counts_as_numpy_on_odd_doubles(seed):
    """count_scalars (scalar doubles: thresholds, intervals, mantissa codes, reachability cells) on
    blocks of random bit patterns, signed zeros, infinities and subnormals, across tile edges.

    Detects: ``>=`` read as ``>``, a mantissa code read from the wrong tail bits, the lanes of a
    histogram not merged, the last partial tile skipped, the reachability cells of x and x' swapped.
    """
    rng = np.random.default_rng(seed)
    mechanism = FloatLaplaceMechanism(1.0)
    sel_x, sel_xp = mechanism.sample(0.0, 5_000, rng), mechanism.sample(1.0, 5_000, rng)
    odd = rng.integers(0, 2**64 - 1, size=3 * counting.SCALAR_TILE + 17, dtype=np.uint64).view(np.float64)
    odd = np.where(np.isnan(odd), -0.0, odd)
    blocks = [_with_specials(odd), _with_specials(mechanism.sample(1.0, counting.SCALAR_TILE + 3, rng))]
    blocks.append(np.concatenate([sel_x, sel_xp]))  # holds every threshold and interval end exactly
    counter = _check_all_candidates(sel_x, sel_xp, blocks, inputs=(0.0, 1.0))
    assert counter.program["scalars"]
    kinds = set(counter.program["projections"][:, 0].tolist())
    assert {counting._MANTISSA, counting._REACHABILITY, counting._COORDINATE} <= kinds


def test_chunks_of_one_count_compile_their_events_once(monkeypatch):
    """The chunks of one count share one compiled counter; another code book or another indicator (even
    an equal one) compiles afresh. Detects a counter reused across counts of other events (keyed on the
    code book alone, or on equality), which would count the wrong events."""
    from types import SimpleNamespace

    from dpverify.pipeline import sampling

    compiled = []
    monkeypatch.setattr(sampling, "compile_counter", lambda codec, indicators: compiled.append(1) or object())
    monkeypatch.setattr(sampling, "_last_counter", None)
    codec, other_codec = object(), object()
    first, second = (lambda e: e), (lambda e: e)
    tasks = [SimpleNamespace(codec=codec, indicators=(first, second)) for _ in range(4)]
    counters = {id(sampling._compiled_counter(t)) for t in tasks}
    assert len(counters) == 1 and len(compiled) == 1
    for task in (
        SimpleNamespace(codec=other_codec, indicators=(first, second)),
        SimpleNamespace(codec=other_codec, indicators=(first, lambda e: e)),
        SimpleNamespace(codec=other_codec, indicators=(first,)),
    ):
        sampling._compiled_counter(task)
    assert len(compiled) == 4


def test_a_finished_count_holds_no_code_book(monkeypatch):
    """After an audit the process keeps no reference to its code book and events (an audit of many
    distinct outputs would otherwise hold its code book until the next count). Detects the counter
    cache left filled after ``count_events`` (seen failing). Deterministic."""
    from dpverify.mechanisms import GridLaplace
    from dpverify.pipeline import sampling

    compiled = []
    real = sampling.compile_counter
    monkeypatch.setattr(sampling, "MIN_COMPILED_OUTPUTS", 1)  # the compiled path at a small size
    monkeypatch.setattr(sampling, "compile_counter", lambda *a: compiled.append(1) or real(*a))
    dpverify.audit(GridLaplace(1.0), 0.0, 1.0, epsilon=1.0, n_samples=100_000, seed=3)
    assert compiled and sampling._last_counter is None


def _log_ratio_sum_case(seed: int = 15, d: int = 3):
    """Selection samples of a Gaussian on ``d`` coordinates (every one shifted), and the log-ratio sum of
    their coordinates the projections propose (isotonic tables on merged edges)."""
    from dpverify.events.projections import LogRatioSum, vector_projections

    rng = np.random.default_rng(seed)
    sel_x, sel_xp = rng.normal(size=(20_000, d)), rng.normal(0.5, size=(20_000, d))
    sums = [p for _, p in vector_projections(sel_x, sel_xp) if isinstance(p, LogRatioSum) and p.basis is None]
    assert len(sums) == 1
    return rng, sel_x, sel_xp, sums[0]


def _ties_and_specials(rng, projection, d: int, rows: int) -> np.ndarray:
    """Gaussian rows, then rows on every bin edge (and one ulp either side), signed zeros and infinities,
    past several tiles."""
    edges = np.concatenate(projection.edges)
    near = np.concatenate([edges, np.nextafter(edges, -np.inf), np.nextafter(edges, np.inf)])
    specials = np.array([0.0, -0.0, np.inf, -np.inf, 5e-324, 1e308, -1e308])
    on_edges = rng.choice(np.concatenate([near, specials]), size=(len(near) + 64, d))
    return np.concatenate([rng.normal(0.25, 1.2, size=(rows, d)), on_edges])


def test_log_ratio_sums_count_and_project_as_numpy_does():
    """The sum of the coordinates' binned log ratios is compiled: its cells and thresholds count as numpy's
    and :func:`counting.projected` gives numpy's values bit for bit, on values at, just below and just
    above every bin edge, signed zeros and infinities (and NaN, for the values).

    Deterministic (fixed seeds), so no false alarm on correct code. Detects: the edge test ``v >= e``
    read as ``v > e`` (a value on an edge in the lower bin), NaN put in the first bin instead of the
    last, the terms added in another order or to the first term instead of 0, a tile's last rows
    skipped, and a sum of whitened columns (``basis``: BLAS's order of additions) given a compiled form.
    """
    from dataclasses import replace

    from dpverify.events.indicators import AtLeast, Within

    rng, sel_x, sel_xp, projection = _log_ratio_sum_case()
    d = sel_x.shape[1]
    block = _ties_and_specials(rng, projection, d, 3 * counting.TILE + 5)
    values = projection(block)
    cuts = np.quantile(values[np.isfinite(values)], [0.1, 0.3, 0.5, 0.7, 0.9])
    indicators = [Within(projection, float(lo), float(hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]
    indicators += [AtLeast(projection, float(t)) for t in np.unique(values)[::97]]  # thresholds on exact sums
    codec, _ = fit_codec(sel_x, sel_xp)
    counter = counting.compile_counter(codec, indicators)
    assert not counter.rest and counting._LOG_RATIO_SUM in counter.program["projections"][:, 0]
    np.testing.assert_array_equal(_compiled_counts(counter, indicators, block), _numpy_counts(codec, indicators, block))
    block[::7, 1] = np.nan
    compiled_values = counting.projected(projection, block, True)
    np.testing.assert_array_equal(compiled_values.view(np.uint64), projection(block).view(np.uint64))
    whitened = replace(projection, basis=np.eye(d))
    assert counting.compile_counter(codec, [Within(whitened, 0.0, 1.0)]) is None
    assert counting.projected(whitened, block, True) is not None  # computed by numpy


def test_seeded_vector_audits_are_identical_with_and_without_the_kernels(monkeypatch):
    """A zCDP audit of a Gaussian on three coordinates whose cells read the log-ratio sum gives the same
    result (bounds, counts, cells) with the kernels (selection scores and certification) as without.

    Deterministic. Detects a kernel whose log-ratio sums or counts differ from numpy's anywhere the
    audit looks, and a selection that scores its cells on other values than certification counts.
    """
    from dpverify.mechanisms.concentrated import ZCDPGaussian
    from dpverify.pipeline import partition

    mechanism, x, x_prime = ZCDPGaussian(0.005), np.zeros(3), np.full(3, 1 / np.sqrt(3))
    options = dict(n_samples=200_000, n_chunks=2, seed=5)
    ran, scored = [], []

    def compile_and_record(codec, indicators):
        counter = counting.compile_counter(codec, indicators)
        ran.append(counter is not None and counting._LOG_RATIO_SUM in counter.program["projections"][:, 0])
        return counter

    def project_and_record(projection, group, compiled):
        scored.append(compiled)
        return counting.projected(projection, group, compiled)

    monkeypatch.setattr(sampling, "MIN_COMPILED_OUTPUTS", 1)
    monkeypatch.setattr(partition, "MIN_COMPILED_OUTPUTS", 1)
    monkeypatch.setattr(sampling, "compile_counter", compile_and_record)
    monkeypatch.setattr(partition, "projected", project_and_record)
    compiled = dpverify.audit(mechanism, x, x_prime, **options)
    assert ran and all(ran) and scored and all(scored)  # the certified cells read the log-ratio sum
    monkeypatch.setattr(sampling, "compile_counter", lambda codec, indicators: None)
    monkeypatch.setattr(partition, "projected", lambda projection, group, compiled: projection(group))
    plain = dpverify.audit(mechanism, x, x_prime, **options)
    assert compiled.to_dict() == plain.to_dict()


def test_certification_compiles_from_as_many_values_as_outputs_times_coordinates(monkeypatch):
    """The kernels start at MIN_COMPILED_OUTPUTS values per input (outputs times coordinates) in the
    certification, and the partition's selection scores with them exactly when the certification will.

    Deterministic. Detects: the rule read on outputs alone (wide vectors counted by numpy), and a
    selection that loads numba for an audit whose certification does not (or the reverse)."""
    from dpverify.mechanisms.concentrated import ZCDPGaussian
    from dpverify.pipeline import partition

    scored, compiled = [], []
    monkeypatch.setattr(partition, "projected", lambda p, g, on: scored.append(on) or counting.projected(p, g, on))
    monkeypatch.setattr(sampling, "compile_counter", lambda c, i: compiled.append(1) or counting.compile_counter(c, i))
    x, x_prime = np.zeros(3), np.full(3, 0.6)
    for limit, expected in ((3 * 10_000, True), (3 * 10_000 + 1, False)):  # 10,000 certification outputs
        monkeypatch.setattr(sampling, "MIN_COMPILED_OUTPUTS", limit)
        monkeypatch.setattr(partition, "MIN_COMPILED_OUTPUTS", limit)
        scored.clear(), compiled.clear()
        result = dpverify.audit(ZCDPGaussian(0.005), x, x_prime, n_samples=20_000, n_chunks=2, seed=3)
        assert result.n_samples - result.n_selection == 10_000
        assert bool(compiled) == expected and scored and all(s == expected for s in scored)
