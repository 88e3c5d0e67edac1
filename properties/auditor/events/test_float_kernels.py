"""The compiled selection counts of the floating-point families (dpverify.events._float_kernels).

Deterministic: each kernel against its numpy reference on random doubles that mix ordinary
values with signed zeros, infinities, NaN (several payloads), subnormals and raw bit patterns,
and each family's candidates (descriptions, counts, frozen coder) with and without the kernels.
No statistical assertion (no false-alarm rate to state).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from dpverify.events import _float_kernels, classifier, floating
from dpverify.events.classifier import ClassifierScore, fit_logistic_score, output_features, row_products
from dpverify.events.floating import ReachabilityCoder, mantissa_events, reachability_events

SPECIAL = np.array(
    [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 5e-324, -5e-324, 2.0**-1022, 2.0**-1030, 1.0, -1.0, 1.5, 0.375],
    dtype=np.float64,
)


def _doubles(rng, n: int, d: int = 1) -> np.ndarray:
    """Laplace noise around 0 and 1, with special values and raw bit patterns mixed in, (n, d)."""
    values = rng.choice([0.0, 1.0], size=(n, d)) + rng.laplace(scale=rng.choice([1e-3, 1.0, 10.0]), size=(n, d))
    special = rng.random((n, d)) < 0.05
    values[special] = rng.choice(SPECIAL, size=int(special.sum()))
    raw = rng.random((n, d)) < 0.02
    values[raw] = rng.integers(0, 2**63, size=int(raw.sum()), dtype=np.uint64).view(np.float64) * rng.choice(
        [-1.0, 1.0], size=int(raw.sum())
    )
    payload = rng.random((n, d)) < 0.005  # NaN with other payloads than numpy's own
    values[payload] = (np.uint64(0x7FF0000000000001) + rng.integers(0, 1000, int(payload.sum()), dtype=np.uint64)).view(
        np.float64
    )
    return values


@pytest.mark.parametrize("seed", range(4))
def test_bit_field_counts_match_numpy(seed):
    """Detects: a lost low bit (``& 3``), a lost sign bit (``>> 52`` masked to 11 bits), rows at the
    split counted in the first half."""
    rng = np.random.default_rng(seed)
    bits = _doubles(rng, 3001)[:, 0].view(np.uint64)
    split = int(rng.integers(0, len(bits) + 1))
    counts = np.zeros((2, 1 << _float_kernels.FIELD_BITS), dtype=np.int64)
    _float_kernels.bit_field_counts(bits, split, counts)
    fields = ((bits >> np.uint64(52)) << np.uint64(3)) | (bits & np.uint64(7))
    for half, part in enumerate((fields[:split], fields[split:])):
        expected = np.bincount(part.astype(np.int64), minlength=1 << _float_kernels.FIELD_BITS)
        np.testing.assert_array_equal(counts[half], expected)


@pytest.mark.parametrize("d", [1, 3])
@pytest.mark.parametrize("seed", range(3))
def test_reachability_counts_match_numpy(seed, d):
    """Detects: the cells of x and x' swapped, coordinates joined by "any" instead of "all", an
    infinite or NaN difference counted exact."""
    rng = np.random.default_rng(seed)
    values = _doubles(rng, 2000, d)
    x, x_prime = rng.choice(SPECIAL[np.isfinite(SPECIAL)], size=d), rng.laplace(size=d)
    split = len(values) // 3
    counts = np.zeros((2, 4), dtype=np.int64)
    _float_kernels.reachability_counts(values, x, x_prime, split, counts)
    cells = ReachabilityCoder(x, x_prime)(values)
    for half, part in enumerate((cells[:split], cells[split:])):
        np.testing.assert_array_equal(counts[half], np.bincount(part, minlength=4))


#: What the families read of the audit's code book for real outputs (the code book itself refuses NaN,
#: which the families are checked on too).
REAL_OUTPUTS = SimpleNamespace(kind="real", storage="real")


def _candidates(family, sel_x, sel_x_prime, monkeypatch, compiled: bool, **options):
    with monkeypatch.context() as patch:
        patch.setattr(_float_kernels, "MIN_COMPILED_SELECTION", 0 if compiled else 1 << 62)
        found = family(sel_x, sel_x_prime, REAL_OUTPUTS, **options)
    return found


def _same_candidates(a, b):
    assert [e.description for e in a.events] == [e.description for e in b.events]
    assert a.skipped == b.skipped
    for ca, cb in ((a.counts_x, b.counts_x), (a.counts_x_prime, b.counts_x_prime)):
        assert np.asarray(ca).dtype == np.asarray(cb).dtype
        np.testing.assert_array_equal(ca, cb)


def _mixtures(seed):
    rng = np.random.default_rng(seed)
    yield _doubles(rng, 1500), _doubles(rng, 1701)
    snapped = np.round(rng.laplace(size=(2000, 1)) / 2.0**-20) * 2.0**-20  # both signed zeros occur
    yield snapped, snapped[::-1] + 1.0
    yield np.full((40, 1), np.inf), np.full((41, 1), -np.inf)  # no finite output
    yield np.full((40, 1), 1.0), np.full((41, 1), 1.0 + 2.0**-52 * 8)  # one code
    yield np.full((1, 1), 0.5), np.full((1, 1), 0.25)  # halves of no output


@pytest.mark.parametrize("seed", range(3))
def test_mantissa_events_compiled_equal_numpy(seed, monkeypatch):
    """Detects: the top binade read from infinities or NaN too, codes of unseen bins counted, the
    halves of a group swapped (the level sets rank on the first half and count on the second)."""
    for sel_x, sel_x_prime in _mixtures(seed):
        numpy_found = _candidates(mantissa_events, sel_x, sel_x_prime, monkeypatch, compiled=False)
        compiled = _candidates(mantissa_events, sel_x, sel_x_prime, monkeypatch, compiled=True)
        _same_candidates(compiled, numpy_found)
        for e, f in zip(compiled.events, numpy_found.events):
            coder, reference = e.indicator.encoder, f.indicator.encoder
            assert coder.top_binade == reference.top_binade
            np.testing.assert_array_equal(coder.lookup, reference.lookup)
            np.testing.assert_array_equal(e.indicator(sel_x), f.indicator(sel_x))


@pytest.mark.parametrize("seed", range(3))
def test_reachability_events_compiled_equal_numpy(seed, monkeypatch):
    """Detects: the halves or the inputs' cells swapped in the compiled counts."""
    for sel_x, sel_x_prime in _mixtures(seed):
        for inputs in ((0.0, 1.0), (1.0, 0.0), (0.5, -3.0)):
            numpy_found = _candidates(reachability_events, sel_x, sel_x_prime, monkeypatch, False, inputs=inputs)
            compiled = _candidates(reachability_events, sel_x, sel_x_prime, monkeypatch, True, inputs=inputs)
            _same_candidates(compiled, numpy_found)


def test_the_kernels_serve_large_selections_only():
    """Large in values (rows times coordinates). Detects: small audits loading numba for their selection
    (0.2-0.5 s per process), and wide vectors' selections counted by rows only."""
    small = np.zeros((1000, 1))
    assert not floating._compiled(small, small)
    large = np.zeros((_float_kernels.MIN_COMPILED_SELECTION // 2, 1))
    assert floating._compiled(large, large)
    assert not floating._compiled(large.astype(np.float32), large.astype(np.float32))
    wide = np.zeros((_float_kernels.MIN_COMPILED_SELECTION // 10, 5))  # rows x coordinates: numpy's cost
    assert floating._compiled(wide, wide) and not floating._compiled(wide[:, :4], wide[:, :4])


@pytest.mark.parametrize("shape", [(1, 3), (4096, 2), (4097, 3), (10_001, 2), (20_000, 7)])
def test_row_products_equal_the_whole_product(shape):
    """Detects: a row product computed otherwise than by the BLAS call numpy makes for the whole
    matrix (``(A * v).sum(axis=1)`` rounds differently), rows lost or shifted at chunk edges."""
    rng = np.random.default_rng(shape[0])
    A = rng.standard_normal(shape) * rng.choice([1e-300, 1.0, 1e300], size=shape)
    A[rng.random(shape) < 0.01] = -0.0
    v = rng.standard_normal(shape[1])
    np.testing.assert_array_equal((A @ v).view(np.uint64), row_products(A, v).view(np.uint64))


def test_scalar_scores_in_chunks_equal_whole_blocks():
    """Detects: the classifier's score of scalar outputs changing with the rows scored together
    (its thresholds are frozen events: a changed score would change seeded results)."""
    rng = np.random.default_rng(5)
    group = _doubles(rng, 30_000)
    group[np.isnan(group)] = 0.5  # outputs are never NaN
    model = fit_logistic_score(output_features(group[:2000]), output_features(rng.laplace(size=(2000, 1)) + 1))
    score = ClassifierScore(model)
    whole = model(output_features(group))
    np.testing.assert_array_equal(score(group).view(np.uint64), whole.view(np.uint64))


def test_compiled_scalar_scores_equal_numpys(monkeypatch):
    """The classifier's score of many scalar doubles through the compiled features equals numpy's.

    Detects: the clip dropped (inf - mean, checked), the square taken before the clip, a feature
    standardized by the other feature's mean or scale.
    """
    rng = np.random.default_rng(9)
    group = _doubles(rng, 20_000)
    group[np.isnan(group)] = 0.25
    model = fit_logistic_score(
        output_features(rng.laplace(size=(3000, 1))), output_features(rng.laplace(size=(3000, 1)) + 1)
    )
    score = ClassifierScore(model)
    whole = model(output_features(group))
    monkeypatch.setattr(_float_kernels, "MIN_COMPILED_SELECTION", 2)
    assert classifier._compiled_scores(group, model)
    np.testing.assert_array_equal(score(group).view(np.uint64), whole.view(np.uint64))


@pytest.mark.parametrize(("n", "k"), [(2, 2), (200_000, 2), (99_999, 3), (5_000, 21), (3_000, 257)])
def test_column_mean_std_equal_numpys(n, k):
    """``column_mean_std`` gives ``X.mean(axis=0)`` and ``X.std(axis=0)`` bit for bit on the fit's features
    (values and their squares, standardized or not) and wide random matrices.

    Detects a pairwise or blocked summation where numpy adds row after row (seen failing on single
    columns, which numpy sums pairwise and the fit leaves to numpy), and a variance about another
    mean. Fails too if a numpy release changes its order of summation: the fit then keeps numpy's.
    """
    rng = np.random.default_rng(n + k)
    column = rng.laplace(size=(n, 1)) * rng.choice([1e-3, 1.0, 1e3]) + rng.choice([0.0, 1.0, -7.5])
    X = np.concatenate(
        [column, column * column] + [rng.normal(size=(n, 1)) * 10.0 ** (j % 8) for j in range(k - 2)], axis=1
    )
    mean, std = _float_kernels.column_mean_std(X)
    assert np.array_equal(mean.view(np.uint64), X.mean(axis=0).view(np.uint64))
    assert np.array_equal(std.view(np.uint64), X.std(axis=0).view(np.uint64))


def test_compiled_fit_equals_numpys_but_for_the_newton_sums_order():
    """The fit with the compiled kernels returns numpy's model: bit for bit where OpenBLAS sums the
    Newton steps (designs wider than three columns), to rounding where the three-column design of
    scalar outputs is summed in a fixed order (:func:`_float_kernels.logistic_newton_sums`).

    Detects a wrong gradient entry (another optimum) or Hessian entry (Newton steps that stop 1e-8 short
    of it) in the compiled steps, far beyond the 1e-12 allowed for rounding, and any change of the column
    statistics (compared bit for bit).
    """
    rng = np.random.default_rng(4)
    a, b = output_features(rng.laplace(size=(100_000, 1))), output_features(rng.laplace(size=(100_000, 1)) + 1)
    plain, compiled = fit_logistic_score(a.copy(), b.copy()), fit_logistic_score(a, b, compiled=True)
    for name in ("mean", "scale"):
        assert np.array_equal(getattr(plain, name).view(np.uint64), getattr(compiled, name).view(np.uint64))
    scale = 1e-12 * np.max(np.abs(plain.weights))  # rounding of sums of 2e5 rows: about 1e-13 of it (seen)
    np.testing.assert_allclose(compiled.weights, plain.weights, rtol=0, atol=scale)
    assert abs(compiled.intercept - plain.intercept) <= scale
    wide_a = np.concatenate([a, rng.normal(size=(len(a), 1))], axis=1)
    wide_b = np.concatenate([b, rng.normal(size=(len(b), 1))], axis=1)
    plain = fit_logistic_score(wide_a.copy(), wide_b.copy())
    compiled = fit_logistic_score(wide_a, wide_b, compiled=True)
    for name in ("mean", "scale", "weights"):
        assert np.array_equal(getattr(plain, name).view(np.uint64), getattr(compiled, name).view(np.uint64))
    assert plain.intercept == compiled.intercept


def _running_sum(terms: np.ndarray) -> float:
    """``0.0 + t0 + t1 + ...`` in this order (numpy's cumsum adds left to right)."""
    return float(np.cumsum(np.concatenate([[0.0], terms]))[-1])


@pytest.mark.parametrize("n", [1, 4096, 3 * 4096 + 17])
def test_logistic_newton_sums_in_their_fixed_order(n):
    """The compiled Newton sums equal the same sums in numpy's left-to-right cumsum, block by block of
    ``NEWTON_BLOCK`` rows and then over the blocks, bit for bit: a fixed order, the same doubles on every
    machine and thread count.

    Detects a sum of another order (pairwise, one running sum, blocks of another size: seen failing with
    blocks of 2,048), a Hessian entry multiplied in another order (``(a1 w) a0`` for ``(a0 w) a1``), and
    rows lost at the last block's edge.
    """
    rng = np.random.default_rng(n)
    A = np.concatenate([rng.standard_normal((n, 2)) * [1.0, 1e3], np.ones((n, 1))], axis=1)
    y = (rng.random(n) < 0.5).astype(float)
    p = rng.random(n)
    out = _float_kernels.logistic_newton_sums(A, y, p, np.empty(9))
    w, r = p * (1.0 - p), y - p
    B = A * w[:, None]
    terms = [A[:, 0] * r, A[:, 1] * r, A[:, 2] * r]
    terms += [B[:, j] * A[:, l] for j in range(3) for l in range(j, 3)]
    block = _float_kernels.NEWTON_BLOCK
    expected = [_running_sum(np.array([_running_sum(t[i : i + block]) for i in range(0, n, block)])) for t in terms]
    np.testing.assert_array_equal(out.view(np.uint64), np.array(expected).view(np.uint64))


@pytest.mark.parametrize("chunk", [1, 3, 1 << 16])
def test_reverse_in_place_reverses(monkeypatch, chunk):
    """The classifier's in-place reversal of its falling scores equals ``a[::-1]`` at every length.

    Detects a middle element moved in an odd length, a pair swapped twice or missed at a chunk's edge
    (chunks of 1 and 3 put edges everywhere), and a view's neighbours written (the reversed stretch is
    a slice of the scores).
    """
    monkeypatch.setattr(classifier, "REVERSE_CHUNK", chunk)
    for n in range(0, 20):
        whole = np.arange(n + 4, dtype=float)
        classifier._reverse_in_place(whole[2 : n + 2])
        expected = np.concatenate([[0.0, 1.0], np.arange(2, n + 2, dtype=float)[::-1], [n + 2.0, n + 3.0]])
        np.testing.assert_array_equal(whole, expected)
