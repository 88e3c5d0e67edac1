"""The selection step's fast paths give numpy's own answers, bit for bit.

Selection sorts each projection once and reads the quantile grids, the distinct
values and the counts from the sorted groups; finds the distinct small integers
of a code book by counting; reads mantissa codes through two small tables; and
scores each candidate once for the verdict and the value picks, computing its
predicted bound only where an upper bound says it could win. Each result must
be the double (or integer) the plain numpy expression gives, since the events
chosen, their descriptions and so every seeded audit depend on it. The one trap
is the signed zero: -0.0 == 0.0, and numpy's sort may return either for both
(it does on this machine), so where both occur the numpy expression itself is
used.

Deterministic: fixed seeds and Hypothesis examples, no statistical decision:
false-alarm rate 0 on correct code, power 1 against any fast path whose result
differs from numpy's on the data tested. Reading the pooled grid from the
sorted groups without the signed-zero fallback, an off-by-one rank
(``round((n - 1) q)`` read as ``floor``), a tail table shifted by one bit, a
bincount that drops the largest key, a score cache keyed without the shrinkage, or a
candidate's bound passed over on an upper bound lowered by 0.05 make these
tests fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from dpverify.events import discrete, floating, thresholds
from dpverify.events.candidates import CodeBook
from dpverify.events.indicators import CodeValue
from dpverify.events.thresholds import nearest_quantiles, pooled_grids, signed_zeros_mixed, sorted_grids
from dpverify.pipeline import outputs
from dpverify.pipeline.selection import select

doubles = st.floats(width=64, allow_nan=False)
few_doubles = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.inf, -np.inf, 1e-300, 5e-324])


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def _check_grids(px: np.ndarray, pxp: np.ndarray) -> None:
    sx, sxp = np.sort(px[~np.isnan(px)]), np.sort(pxp[~np.isnan(pxp)])
    plain = pooled_grids(np.concatenate([px, pxp]), thresholds.THRESHOLD_POINTS, thresholds.INTERVAL_POINTS)
    if not signed_zeros_mixed(px, pxp):
        fast = sorted_grids(sx, sxp, thresholds.THRESHOLD_POINTS, thresholds.INTERVAL_POINTS)
        assert all(_same_bits(f, p) for f, p in zip(fast, plain))
    candidates = thresholds.threshold_candidates(px, pxp, None, "v")
    assert all(e.description in _descriptions(plain) for e in candidates.events if e.family == "threshold")
    # the frozen thresholds and interval ends are numpy's doubles, the sign of a zero included
    assert _same_bits([e.indicator.threshold for e in candidates.events if e.description.startswith("v >= ")], plain[0])
    intervals = [e.indicator for e in candidates.events if e.family == "interval"]
    i, j = np.triu_indices(plain[1].size, k=2) if plain[1].size >= 3 else (np.zeros(0, int), np.zeros(0, int))
    assert _same_bits([w.low for w in intervals], plain[1][i])
    assert _same_bits([w.high for w in intervals], plain[1][j])


def _descriptions(grids) -> set:
    return {f"v {op} {thresholds.format_threshold(t)}" for op in (">=", "<") for t in grids[0]}


@settings(max_examples=200)
@given(
    hnp.arrays(np.float64, st.integers(0, 80), elements=st.one_of(doubles, few_doubles, st.just(np.nan))),
    hnp.arrays(np.float64, st.integers(0, 80), elements=st.one_of(doubles, few_doubles)),
)
@example(np.array([-0.0, 1.0, 1.0, np.inf]), np.array([0.0, 2.5]))
@example(np.array([-0.0] * 5 + [3.0] * 40), np.array([1.0] * 20))
def test_threshold_grids_are_numpys(px, pxp):
    """The grids of thresholds and interval ends from the sorted groups equal numpy's on the pooled values.

    Detects a grid read from sorted groups where both signed zeros occur and a zero lies on the grid
    (numpy's sort keeps one sign), and a grid point of another sign frozen into an event.
    """
    _check_grids(px, pxp)


@pytest.mark.parametrize("n", [1, 2, 3, 33, 1000, 200_001])
def test_threshold_grids_are_numpys_on_large_groups(n):
    """Many distinct values (quantile grids), few (distinct values), and ties at every size of group."""
    rng = np.random.default_rng(n)
    for px, pxp in [
        (rng.laplace(size=n), 1 + rng.laplace(size=n // 2 + 1)),
        (np.round(rng.laplace(size=n) * 4) / 4, np.round(rng.laplace(size=n) * 4) / 4),
        (rng.integers(0, 20, n).astype(float), rng.integers(10, 40, n).astype(float)),
    ]:
        _check_grids(px, pxp)


@settings(max_examples=200)
@given(
    hnp.arrays(np.float64, st.integers(0, 60), elements=st.one_of(doubles, few_doubles, st.just(np.nan))),
    hnp.arrays(np.float64, st.integers(1, 60), elements=st.one_of(doubles, few_doubles)),
)
@example(np.array([0.0, 0.0, 1.0]), np.array([-0.0, 2.0]))
def test_nearest_quantiles_are_numpys(x, x_prime):
    """The classifier's threshold quantiles, from the sorted scores, equal ``np.quantile(..., "nearest")``."""
    from dpverify.events.classifier import THRESHOLD_QUANTILES

    fast = nearest_quantiles(x, x_prime, np.sort(x), np.sort(x_prime), THRESHOLD_QUANTILES)
    plain = np.quantile(np.concatenate([x, x_prime]), THRESHOLD_QUANTILES, method="nearest")
    assert _same_bits(fast, plain) or (np.isnan(fast).all() and np.isnan(plain).all())


def test_signed_zeros_are_seen_before_any_sort():
    """numpy's sort may return one sign for both zeros: the check reads the unsorted values."""
    x, x_prime = np.array([0.0, -0.0, 1.0] * 20), np.array([2.0])
    assert signed_zeros_mixed(x, x_prime)
    assert signed_zeros_mixed(np.array([-0.0]), np.array([0.0]))
    assert not signed_zeros_mixed(np.array([-0.0, 1.0]), np.array([-0.0, 3.0]))
    assert not signed_zeros_mixed(np.array([0.0, 1.0]), np.array([np.inf]))


@settings(max_examples=100)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=60), st.integers(-1100, 3100))
@example([0, 1, 2**63, 0x7FF << 52, (0x7FF << 52) | 1, 0x8000000000000008], 1023)
def test_mantissa_codes_are_the_bit_patterns_codes(patterns, top_binade):
    """The table lookups give (sign, binade class, min(trailing zeros, 3)) of every double, inf and NaN included."""
    values = np.array(patterns, dtype=np.uint64).view(np.float64)
    sign = np.signbit(values).astype(np.int64)
    e = np.clip(floating.binade(values) - (top_binade - floating.BINADE_SPAN), 0, floating.BINADE_SPAN + 1)
    tz = np.minimum(floating.trailing_zero_bits(values), floating.MAX_TRAILING_ZEROS)
    expected = (sign * (floating.BINADE_SPAN + 2) + e) * (floating.MAX_TRAILING_ZEROS + 1) + tz
    codes = floating.mantissa_codes(values, top_binade)
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(codes, expected)


@settings(max_examples=150)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]),
            st.lists(st.integers(-5, 70_000), max_size=40),
        ),
        min_size=1,
        max_size=3,
    )
)
@example([("int64", [0, 1, 1, 0]), ("int64", [1, 1])])
@example([("int64", [65_535, 0]), ("int64", [65_536])])
@example([("uint8", [3, 255]), ("int8", [-1, 4])])
def test_integer_keys_are_numpys_unique(groups):
    """The code book's keys, found by counting where they are small, equal ``np.unique`` (values and dtype)."""
    arrays = []
    for dtype, values in groups:
        info = np.iinfo(dtype)
        arrays.append(np.array([v for v in values if info.min <= v <= info.max], dtype=dtype))
    keys = outputs._integer_keys(arrays)
    expected = np.unique(np.concatenate(arrays))
    assert keys.dtype == expected.dtype
    np.testing.assert_array_equal(keys, expected)


@settings(max_examples=100)
@given(
    st.lists(st.integers(-(2**62), 2**62), min_size=1, max_size=12),
    st.lists(st.integers(0, 11), min_size=1, max_size=300),
    st.lists(st.integers(0, 11), min_size=1, max_size=300),
)
@example([2**60, 2**60 + 1, -3, 0], [0, 1, 2, 3, 1], [1, 1, 3])
@example([0, 1], [0] * 5 + [1] * 9, [1] * 7)
def test_numeric_code_thresholds_from_code_counts_are_the_projected_ones(support, picks_x, picks_x_prime):
    """Thresholds on the values of integer codes, from the code counts, equal those on the projected values.

    Integers beyond 2**53 share a double (ties across codes); unseen codes (-1) count in no threshold.
    Detects sorted values built from counts in code order rather than value order, or unseen codes counted.
    """
    sel_x = np.array([support[i % len(support)] for i in picks_x], dtype=np.int64)
    sel_x_prime = np.array([support[i % len(support)] for i in picks_x_prime], dtype=np.int64)
    codec, (codes_x, codes_x_prime) = outputs.fit_codec(sel_x, sel_x_prime)
    if codec.kind != "discrete":
        return
    codes_x = codes_x.copy()
    codes_x[::5] = -1
    _check_numeric_code_thresholds(codes_x, codes_x_prime, codec)
    # a code book whose codes are not in the order of their values (codes in order of appearance)
    shuffled = np.random.default_rng(len(support)).permutation(codec.n_codes)
    book = CodeBook([codec.labels[i] for i in shuffled], numeric=codec.numeric[shuffled])
    recode = np.append(np.argsort(shuffled), -1)  # old code -> new code, -1 stays -1
    _check_numeric_code_thresholds(recode[codes_x], recode[codes_x_prime], book)


def _check_numeric_code_thresholds(codes_x, codes_x_prime, book) -> None:
    project = CodeValue.of(book.numeric)
    plain = thresholds.threshold_candidates(project(codes_x), project(codes_x_prime), project, "output")
    fast = discrete.numeric_discrete_events(codes_x, codes_x_prime, book)
    assert [e.description for e in fast.events] == [e.description for e in plain.events]
    np.testing.assert_array_equal(fast.counts_x, plain.counts_x)
    np.testing.assert_array_equal(fast.counts_x_prime, plain.counts_x_prime)


@settings(max_examples=150)
@given(
    st.sampled_from(["int8", "uint8", "int64", "uint64"]),
    st.lists(st.integers(0, 255), min_size=1, max_size=6, unique=True),
    st.lists(st.integers(0, 255), max_size=40),
    st.integers(0, 2),
)
@example("int64", [0, 1], [0, 1, 1, 0], 0)
@example("uint64", [2**64 - 2, 2**64 - 1], [2**64 - 1, 2**64 - 2], 0)
@example("int8", [-128, -127], [-127, -128], 0)
@example("int64", [3, 4, 5], [3, 6, 5], 0)
@example("int64", [0, 2], [0, 2, 1], 0)
def test_codes_of_consecutive_integer_keys_are_numpys_search(dtype, keys, values, shift):
    """Encoding by the offset from the first key (consecutive keys, every value a key) equals the sorted search.

    Detects the offset read where a value lies outside the keys, or keys with a gap taken as consecutive.
    """
    info = np.iinfo(dtype)
    if keys == [2**64 - 2, 2**64 - 1] or keys == [-128, -127]:
        keys_array, values_array = np.array(keys, dtype=dtype), np.array(values, dtype=dtype)
    else:
        offset = info.min if info.min < 0 else 0
        keys_array = np.sort(np.array([k + offset for k in keys], dtype=dtype))
        values_array = np.array([v + offset + shift for v in values if v + offset + shift <= info.max], dtype=dtype)
    pos = np.minimum(np.searchsorted(keys_array, values_array), keys_array.size - 1)
    expected = np.where(keys_array[pos] == values_array, pos, -1).astype(np.int64)
    codes = outputs._lookup_sorted(keys_array, values_array)
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(codes, expected)


def test_scores_are_kept_per_shrinkage_and_direction(monkeypatch):
    """The verdict and value picks compute each candidate's bound at most once per direction and shrinkage,
    and pick as when every score is recomputed.

    Detects a cache keyed without the direction or the shrinkage (a pick then reads another's scores), and
    scores recomputed for the value pick (the cost the cache saves).
    """
    from dpverify.mechanisms import FloatLaplaceMechanism
    from dpverify.pipeline import selection

    rng = np.random.default_rng(12)
    mechanism = FloatLaplaceMechanism(1.0)
    sel_x, sel_xp = mechanism.sample(0.0, 20_000, rng), mechanism.sample(1.0, 20_000, rng)
    options = dict(n_certification=200_000, epsilon=1.0, delta=0.0, alpha=0.05, inputs=(0.0, 1.0))
    kept = select(sel_x, sel_xp, **options)
    assert kept.value_choices, "needs an implementation event in the verdict, so that both picks run"
    calls = []
    plain_compute = selection.CandidateScores._compute

    def recorded_compute(self, index):
        calls.extend((id(self.p), self.shrinkage_alpha, int(i)) for i in index)  # direction, shrinkage, candidate
        return plain_compute(self, index)

    monkeypatch.setattr(selection.CandidateScores, "_compute", recorded_compute)
    again = select(sel_x, sel_xp, **options)
    assert calls and len(calls) == len(set(calls))
    monkeypatch.setattr(selection, "select_event", _without_cache(selection.select_event))
    recomputed = select(sel_x, sel_xp, **options)
    for a, b in ((kept, again), (kept, recomputed)):
        assert [(c.event.description, c.direction) for c in a.choices] == [
            (c.event.description, c.direction) for c in b.choices
        ]


def _without_cache(select_event):
    def uncached(*args, scores=None, **kwargs):
        return select_event(*args, scores=None, **kwargs)

    return uncached


def _argmax_of_every_score(p, q, n, m, options, excluded, delta, alpha):
    """The pick as ``select_event`` made it before scores were computed where needed: every bound, then argmax."""
    from dpverify.pipeline.selection import NO_BOUND_SCORE, predicted_bounds

    with np.errstate(divide="ignore", invalid="ignore"):
        fallback = np.log(p + 0.5) - np.log(q + 0.5)
    if options is None:
        score = fallback
    else:
        bound = predicted_bounds(p, q, n, m, delta=delta, alpha=alpha, **options)
        score = np.where(np.isfinite(bound), bound, NO_BOUND_SCORE + fallback)
    score = np.where(excluded, -np.inf, score)
    i = int(np.argmax(score))
    return score[i], i


def _laplace_candidate_counts(seed, n):
    """The selection counts of every candidate event of the snapped Laplace mechanism on 0 and 1 (eps 1).

    Many events (thresholds, intervals, the classifier's level sets in the lower tail) have a ratio of
    about e and bounds within a few hundredths of each other: passing over one that would win shows."""
    from dpverify.events import candidate_events
    from dpverify.mechanisms import LaplaceMechanism

    rng = np.random.default_rng(seed)
    mechanism = LaplaceMechanism(1.0)
    codec, (enc_x, enc_xp) = outputs.fit_codec(mechanism.sample(0.0, n, rng), mechanism.sample(1.0, n, rng))
    found = candidate_events(enc_x, enc_xp, codec)
    return found.counts_x, found.counts_x_prime


def test_scores_computed_where_needed_pick_as_every_score_would():
    """``CandidateScores.best`` returns the score and index (bits and first index of ties) that the argmax
    of every candidate's predicted bound returns: over a Laplace audit's candidates, small and zero
    counts, repeated count pairs, deltas, levels, the three shrinkages, the smoothed ratio, and masks
    that exclude some, most or all candidates.

    Detects an upper bound that is not one (a candidate passed over that would have won: seen with the
    bound lowered by 0.05), candidates ruled out on the first few computed alone, a tie resolved to a
    later index, and dominated candidates passed over where the best bound is not positive (counts 1
    and 4 then tie near underflow at -702, and the later index was returned: seen failing). The
    closer bound from the shrunk estimates, lowered by 0.05, was not seen failing: its order is the
    scores' order on these data, and the winner is among the few computed first.
    """
    from dpverify.pipeline.selection import CandidateScores

    tied = np.array([1.0] + [4.0] * 9), np.zeros(10)  # every bound -702.06: the first is the pick
    scores = CandidateScores(*tied, 460_220, 4_341, dict(shrinkage_se=2.0), delta=0.0, alpha=1e-3)
    expected = _argmax_of_every_score(*tied, 460_220, 4_341, dict(shrinkage_se=2.0), np.zeros(10, bool), 0.0, 1e-3)
    assert scores.best(np.zeros(10, dtype=bool)) == expected
    rng = np.random.default_rng(30)
    audited = [_laplace_candidate_counts(seed, 200_000) for seed in (1, 2)]
    for trial in range(120):
        n = int(rng.choice([50, 2_000, 200_000]))
        m = int(rng.choice([1, 1_000, 9 * n]))
        if trial % 3 == 0:  # large counts: upper bounds close to the bounds, where passing one over shows
            (p, q), n, m = audited[trial % 2], 200_000, 1_800_000
            if trial % 6 == 3:
                p, q = q, p
        elif trial % 3 == 1:
            p, q = rng.integers(0, 6, 60).astype(float), rng.integers(0, 4, 60).astype(float)
            if trial % 2:  # tiny counts of many: bounds near underflow, where distinct counts tie
                n, m = 460_220, 4_341
        else:
            p, q = rng.integers(0, n + 1, 80).astype(float), rng.integers(0, n + 1, 80).astype(float)
            p[40:], q[40:] = p[:40], q[:40]  # ties: the first of equal scores is the pick
        delta = float(rng.choice([0.0, 1e-6, 1e-2]))
        alpha = float(rng.choice([0.05, 1e-4, 0.6]))
        options = [dict(n_candidates=2 * len(p)), dict(shrinkage_se=2.0), dict(shrinkage_se=1.0), None][trial % 4]
        scores = CandidateScores(p, q, n, m, options, delta=delta, alpha=alpha)
        for share in (0.0, 0.3, 0.95, 1.0):
            excluded = rng.random(len(p)) < share
            value, index = scores.best(excluded)
            expected_value, expected_index = _argmax_of_every_score(p, q, n, m, options, excluded, delta, alpha)
            assert index == expected_index
            assert _same_bits(value, expected_value)


def test_scores_computed_where_needed_compute_few_bounds():
    """On the tail counts of a Laplace pair, most candidates' bounds are never computed (the point of
    computing them where needed). Detects an upper bound so loose that it rules nothing out."""
    from dpverify.pipeline.selection import CandidateScores

    p, q = _laplace_candidate_counts(3, 200_000)
    scores = CandidateScores(q, p, 200_000, 1_800_000, dict(shrinkage_se=2.0), delta=0.0, alpha=0.05)
    scores.best(np.zeros(len(p), dtype=bool))
    assert np.count_nonzero(~np.isnan(scores.values)) <= len(p) // 2


def _family_results(sel_x, sel_xp, shared):
    """The threshold, classifier and support-edge candidates (descriptions and counts), the families run
    one after the other with their sorted projections shared, or each on its own."""
    from contextlib import nullcontext

    from dpverify.events import classifier, real

    codec, (enc_x, enc_xp) = outputs.fit_codec(sel_x, sel_xp)
    found = []
    with thresholds.shared_sorts() if shared else nullcontext():
        for family in (real.real_threshold_events, classifier.classifier_events, real.support_edge_events):
            c = family(enc_x, enc_xp, codec)
            found.append(([e.description for e in c.events], c.counts_x.tolist(), c.counts_x_prime.tolist()))
    return found


@pytest.mark.parametrize("case", ["laplace", "grid", "signed zeros", "infinities"])
def test_shared_sorted_projections_give_the_same_candidates(case):
    """The threshold, classifier and support-edge families propose the same events with the same counts
    whether they share the sorted selection values (the classifier scoring them in value order, merge
    sorted) or sort on their own; 300,000 outputs per input, so the compiled classifier scores run.

    Detects the classifier scoring one input's sorted values as the other's (seen failing). The
    guards for both signed zeros or NaN among the scores are not reached here: a score of exactly 0
    did not occur, and real outputs hold no NaN.
    """
    rng = np.random.default_rng(31)
    n = 1_000_000
    x, xp = rng.laplace(size=n), rng.laplace(size=n) + 1.0
    if case == "signed zeros":  # outputs rounded to a coarse grid: both zeros among values and scores
        x, xp = np.round(x * 2) / 2 * np.where(rng.random(n) < 0.5, 1.0, -1.0), np.round(xp * 2) / 2
    elif case == "grid":  # the snapped Laplace's grid: ties, and scores that fall then rise along the values
        x, xp = np.round(x * 2**20) / 2**20, np.round(xp * 2**20) / 2**20
    elif case == "infinities":
        x[:50], xp[:7] = np.inf, -np.inf
    assert _family_results(x, xp, shared=True) == _family_results(x, xp, shared=False)


@given(
    hnp.arrays(np.float64, st.integers(0, 200), elements=st.one_of(few_doubles, st.just(np.nan))),
    st.integers(1, 40),
)
@example(np.array([-np.inf] + [np.nan] * 12), 21)
def test_distinct_values_read_from_a_probe_first_are_the_full_pass(values, limit):
    """``_distinct_up_to`` (evenly spaced entries looked at first) returns what the pass over every value
    returns: None beyond ``limit`` distinct values, else the same doubles. Detects a probe that reads one
    entry twice (a NaN then counts as two distinct values: seen failing on the example)."""
    sorted_values = np.sort(values)
    new = sorted_values[1:] != sorted_values[:-1]
    if sorted_values.size == 0:
        expected = sorted_values
    elif np.count_nonzero(new) + 1 > limit:
        expected = None
    else:
        expected = sorted_values[np.concatenate([[True], new])]
    got = thresholds._distinct_up_to(sorted_values, limit)
    assert (got is None) == (expected is None)
    assert got is None or _same_bits(got, expected)
