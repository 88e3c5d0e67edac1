"""Likelihood-ratio level sets learned by a classifier (DP-Sniper style).

By Neyman-Pearson the most telling events are the level sets of the
likelihood ratio ``P[M(x) = o] / P[M(x') = o]`` (Bichsel et al. 2021, DP-Sniper).
For rich outputs -- real vectors, sequences, mixed tuples -- the ratio is
estimated by a logistic regression of "which input produced this output" on
features of the output, fitted on the *selection* split only; the candidate
events are thresholds on its score ``{o : s(o) >= t}`` and ``{o : s(o) < t}``.
The posterior log-odds of a logistic model is an estimate of the log
likelihood ratio, so these thresholds approximate the level sets; how good
the approximation is only affects power, never validity, since the audit
certifies the one selected event on fresh samples.

Features (:func:`output_features`), chosen so a linear score can express the
ratios of the textbook mechanisms: the coordinates and their squares; for
vectors also the sorted coordinates, max, min, sum and a one-hot argmax
(report-noisy-max and its broken variants); discrete outputs are featurized
from their labels (numbers, tuples of numbers or bools of varying length with
a length feature, so sparse-vector answer sequences work).

Vectors wider than :data:`MAX_FULL_WIDTH` coordinates are featurized by a
count sketch of their coordinates (a fixed signed assignment to
:data:`SKETCH_BUCKETS` buckets; Charikar, Chen and Farach-Colton 2002), evenly
spaced order statistics, their squares and the sum, so the feature count,
and with it the Newton fit's Hessian, is bounded whatever the width.

The logistic regression is a ridge-penalized Newton/IRLS fit in numpy on at
most :data:`MAX_FIT_SAMPLES` samples per input, fewer when the design matrix
would exceed :data:`MAX_FIT_ELEMENTS` elements (:func:`fit_rows`). Thresholds sit at pooled score
quantiles, with extra points in the tails (DP-Sniper fixes P[M(x') in S] =
0.01; rare events matter for large losses). The candidate count stays modest
(:data:`THRESHOLD_QUANTILES`, two directions) because selection pays a
winner's-curse penalty per candidate.

References
----------
B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box
Discovery of Differential Privacy Violations using Classifiers", IEEE S&P 2021
(Section IV: the threshold attack on a classifier's posterior).

M. Charikar, K. Chen, M. Farach-Colton, "Finding frequent items in data
streams", ICALP 2002 (the count sketch).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..support import arrays
from . import _float_kernels
from .candidates import Candidates, Event
from .indicators import AtLeast, Below
from .thresholds import nearest_quantiles, presorted_projection, signed_zeros_mixed

__all__ = [
    "MAX_FIT_SAMPLES",
    "MAX_FIT_ELEMENTS",
    "MAX_FULL_WIDTH",
    "THRESHOLD_QUANTILES",
    "feature_count",
    "fit_rows",
    "output_features",
    "label_features",
    "LogisticScore",
    "fit_logistic_score",
    "row_products",
    "classifier_events",
    "ClassifierScore",
]

#: Samples per input used to fit the classifier (the first ones of the split).
MAX_FIT_SAMPLES = 100_000
#: Pooled-score quantiles at which thresholds are placed.
THRESHOLD_QUANTILES = np.unique(
    np.concatenate(
        [
            np.linspace(0.04, 0.96, 24),
            [1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 2e-2],
            1 - np.array([1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 2e-2]),
        ]
    )
)
#: Rows scored at once (bounds the memory of the feature matrix).
SCORE_BLOCK = 500_000
#: Ridge penalty on standardized coefficients (keeps separable fits finite).
RIDGE = 1e-3
MAX_NEWTON_STEPS = 30
#: Discrete outputs with at most this many distinct values are left to the
#: count-based level sets, which are exact there.
MIN_DISCRETE_LABELS = 32


#: Real outputs are clipped to +-FEATURE_CLIP before featurizing, so that inf and
#: huge doubles keep their order without overflowing squares and standardization.
FEATURE_CLIP = 1e50
#: Widest real vector featurized coordinate by coordinate (4 d + 1 features, at most 509).
#: Wider vectors get :data:`SKETCH_BUCKETS` signed bucket sums (a count sketch of the
#: coordinates), :data:`ORDER_STATISTICS` evenly spaced order statistics, the squares of
#: both and the sum: 4 * 64 + 1 = 257 features whatever the width.
MAX_FULL_WIDTH = 127
SKETCH_BUCKETS = 64
ORDER_STATISTICS = 64
#: Largest design matrix of the fit, in elements (rows x features; 64 MiB of float64):
#: the fit holds the features, the design matrix and one weighted copy, so at most about
#: 3 x 64 MiB plus the (features + 1)^2 Hessian (2 MiB at 513 features). Wide features fit
#: on fewer rows (at least :data:`MIN_FIT_SAMPLES` per input).
MAX_FIT_ELEMENTS = 1 << 23
MIN_FIT_SAMPLES = 2_000
#: Elements of the (rows x (features + width)) arrays scored at once (32 MiB of float64; the
#: wide features hold about four such arrays while they are computed).
SCORE_ELEMENTS = 1 << 22
#: Rows of scalar real outputs scored at once by :class:`ClassifierScore` (their 2 features x 4,096 rows
#: stay below OpenBLAS's default threshold for threading a matrix-vector product, 2,304 x 4 elements).
SCALAR_SCORE_ROWS = 4096


def feature_count(width: int) -> int:
    """Number of features :func:`output_features` makes of real vectors of ``width`` coordinates."""
    if width <= 1:
        return 2
    if width > MAX_FULL_WIDTH:
        return 2 * SKETCH_BUCKETS + 2 * ORDER_STATISTICS + 1
    return 4 * width + 1 + (width if width <= 64 else 0)


def fit_rows(n_features: int) -> int:
    """Samples per input the classifier is fitted on, with ``n_features`` features.

    ``MAX_FIT_SAMPLES``, lowered so that the design matrix keeps within
    :data:`MAX_FIT_ELEMENTS` (never below :data:`MIN_FIT_SAMPLES`).
    """
    return int(max(MIN_FIT_SAMPLES, min(MAX_FIT_SAMPLES, MAX_FIT_ELEMENTS // (2 * (n_features + 1)))))


def score_rows(n_features: int, width: int) -> int:
    """Rows scored at once: at most ``SCORE_BLOCK``, and ``SCORE_ELEMENTS`` elements of features and outputs."""
    return int(max(1, min(SCORE_BLOCK, SCORE_ELEMENTS // (n_features + width))))


def _sketch_plan(width: int):
    """The count sketch of ``width`` coordinates: a fixed signed assignment to buckets.

    A function of the width alone (seeded with it), so selection and certification
    featurize alike. Coordinates are dealt round-robin in a random order, so every
    bucket holds ``width // SKETCH_BUCKETS`` or one more.
    """
    rng = np.random.default_rng(np.random.SeedSequence([0x5EED, width]))
    order = rng.permutation(width)
    signs = rng.choice(np.array([-1.0, 1.0]), size=width)
    bucket = np.empty(width, dtype=np.int64)
    bucket[order] = np.arange(width) % SKETCH_BUCKETS
    by_bucket = np.argsort(bucket, kind="stable")
    starts = np.searchsorted(bucket[by_bucket], np.arange(SKETCH_BUCKETS))
    return by_bucket, signs[by_bucket], starts


def _wide_features(g: np.ndarray) -> np.ndarray:
    """Features of real vectors wider than :data:`MAX_FULL_WIDTH` (see its docstring)."""
    d = g.shape[1]
    by_bucket, signs, starts = _sketch_plan(d)
    sketch = np.add.reduceat(g[:, by_bucket] * signs, starts, axis=1)
    ranks = np.unique(np.linspace(0, d - 1, ORDER_STATISTICS).round().astype(np.int64))
    order = np.sort(g, axis=1)[:, ranks]
    with np.errstate(over="ignore", invalid="ignore"):
        total = g.sum(axis=1, keepdims=True)
    return np.concatenate([sketch, sketch * sketch, order, order * order, total], axis=1)


def output_features(group, xp=np):
    """Features of real outputs of shape (n, d): see the module docstring.

    ``xp`` is the array library of ``group`` (numpy by default): the same
    features are computed on another library's device.
    """
    if xp is np:
        g = np.clip(np.asarray(group, dtype=np.float64), -FEATURE_CLIP, FEATURE_CLIP)
    else:
        g = arrays.clip(group, -FEATURE_CLIP, FEATURE_CLIP, xp)
    if g.ndim == 1:
        g = xp.reshape(g, (g.shape[0], 1))
    if g.shape[1] > MAX_FULL_WIDTH:
        return _wide_features(arrays.to_numpy(g) if xp is not np else g)
    parts = [g, g * g]
    d = g.shape[1]
    if d > 1:
        s = xp.sort(g, axis=1)
        parts += [s, s * s, xp.sum(g, axis=1, keepdims=True)]
        if d <= 64:
            columns = xp.arange(d, device=g.device) if xp is not np else np.arange(d)
            hot = xp.reshape(xp.argmax(g, axis=1), (g.shape[0], 1)) == xp.reshape(columns, (1, d))
            parts.append(arrays.astype(hot, xp.float64, xp))
    concat = getattr(xp, "concat", None) or xp.concatenate
    return concat(parts, axis=1)


def _entry_value(v):
    if isinstance(v, (bool, np.bool_, numbers.Real)):
        return float(v)
    return None


def label_features(labels) -> np.ndarray | None:
    """Features of discrete labels, one row per label, or None if not featurizable.

    Numbers give one coordinate; tuples of numbers/bools (of any lengths) give
    their entries padded with 0, a presence indicator per position and the
    length; other labels (strings, frozensets) are not featurized.
    """
    rows = []
    for label in labels:
        if isinstance(label, tuple):
            values = [_entry_value(v) for v in label]
            if any(v is None for v in values):
                return None
            rows.append(values)
        else:
            v = _entry_value(label)
            if v is None:
                return None
            rows.append([v])
    if not rows:
        return None
    width = max(len(r) for r in rows)
    lengths = np.array([len(r) for r in rows], dtype=float)
    values = np.zeros((len(rows), width))
    present = np.zeros((len(rows), width))
    for i, r in enumerate(rows):
        values[i, : len(r)] = r
        present[i, : len(r)] = 1.0
    if np.all(lengths == width):
        base = values
    else:
        base = np.concatenate([values, present, lengths[:, None]], axis=1)
    if not np.all(np.isfinite(base)):
        return None
    return base


@dataclass(frozen=True)
class LogisticScore:
    """A fitted score ``s(o) = w . standardize(features(o)) + b`` (log posterior odds of x)."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float

    def __call__(self, features: np.ndarray) -> np.ndarray:
        z = (features - self.mean) / self.scale
        return z @ self.weights + self.intercept


#: Rows per matrix-vector product in :func:`row_products`.
ROW_PRODUCT_ROWS = 4096


def row_products(A: np.ndarray, v: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``A @ v`` for a matrix ``A`` of many rows, ``ROW_PRODUCT_ROWS`` (4,096) rows per product.

    Each row's value is its own dot product, whatever rows are computed with it (tested), so
    this is ``A @ v`` bit for bit; the products stay below OpenBLAS's threshold for threading,
    whose threads cost more than they save on a busy machine. (A product that *sums over* rows,
    such as ``A.T @ r``, is split over threads by OpenBLAS and is left whole: splitting it
    otherwise would change its rounding.)

    Parameters
    ----------
    A : numpy.ndarray
        A float64 matrix (rows x columns).
    v : numpy.ndarray
        A float64 vector of one entry per column.
    out : numpy.ndarray, optional
        A float64 vector of one entry per row to write the products into (a Newton fit reuses one).

    Returns
    -------
    numpy.ndarray
        One float64 per row of ``A``, the doubles of ``A @ v``.

    References
    ----------
    N. J. Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed. (2002), Section 3.1
    (the rounding of an inner product depends on its order of summation).
    """
    if out is None:
        if len(A) <= ROW_PRODUCT_ROWS:
            return A @ v
        out = np.empty(len(A))
    for start in range(0, len(A), ROW_PRODUCT_ROWS):
        stop = start + ROW_PRODUCT_ROWS
        np.matmul(A[start:stop], v, out=out[start:stop])
    return out


def fit_logistic_score(features_x: np.ndarray, features_x_prime: np.ndarray, compiled: bool = False) -> LogisticScore:
    """Ridge-penalized logistic regression of "input was x" by Newton's method (IRLS).

    Parameters
    ----------
    features_x, features_x_prime : numpy.ndarray
        Feature rows of outputs of M(x) (label 1) and of M(x') (label 0).
    compiled : bool
        Take the features' means and standard deviations, the design matrix and its weighted copies
        with compiled kernels (the same doubles: :func:`dpverify.events._float_kernels.column_mean_std`,
        ``standardized_design``, ``weighted_rows``), where numba is loaded anyway; a three-column
        design (scalar outputs) gets each step's gradient and Hessian from one compiled pass summed in
        a fixed order (:func:`~dpverify.events._float_kernels.logistic_newton_sums`; OpenBLAS's sums
        round differently with its number of threads), the same model to about 1e-13.

    Returns
    -------
    LogisticScore
        Constant features get weight 0; a fit that fails to converge returns
        the last iterate (only the power of the audit depends on the fit).
    """
    X = np.concatenate([features_x, features_x_prime], axis=0)
    y = np.concatenate([np.ones(len(features_x)), np.zeros(len(features_x_prime))])
    shaped = X.ndim == 2 and X.shape[1] >= 2 and len(X) > 0
    fast = bool(compiled and shaped and X.dtype == np.float64 and X.flags.c_contiguous)
    if fast:
        mean, scale = _float_kernels.column_mean_std(X)
    else:
        mean = X.mean(axis=0)
        scale = X.std(axis=0)
    keep = scale > 1e-12 * np.maximum(1.0, np.abs(mean))
    scale = np.where(keep, scale, 1.0)
    if fast:  # the same doubles, one pass (and no row-by-row broadcasting)
        A = _float_kernels.standardized_design(X, mean, scale, keep)
    else:
        X -= mean  # standardized in place: the fit holds one design matrix, not three
        X /= scale
        X[:, ~keep] = 0.0
        A = np.concatenate([X, np.ones((len(X), 1))], axis=1)
    del X
    k = A.shape[1]
    beta = np.zeros(k)
    penalty = RIDGE * len(A) * np.ones(k)
    penalty[-1] = 0.0
    penalty[:-1][~keep] = 1.0  # pins constant features at 0
    # Three columns (scalar outputs: the value, its square, the intercept) are summed by one compiled
    # pass in a fixed order; wider designs by OpenBLAS (whose rounding follows its threads).
    summed = fast and k == 3
    eta, p = np.empty(len(A)), np.empty(len(A))
    terms = _three_column_terms(A, y) if summed else _blas_terms(A, y, fast)
    for _ in range(MAX_NEWTON_STEPS):
        _fitted_probabilities(A, beta, eta, p)
        gradient, hessian = terms(p)
        gradient = gradient - penalty * beta
        hessian = hessian + np.diag(penalty) + 1e-9 * np.eye(k)
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            break
        beta = beta + step
        if np.max(np.abs(step)) < 1e-8:
            break
    weights = np.where(keep, beta[:-1], 0.0)
    return LogisticScore(mean, scale, weights, float(beta[-1]))


def _fitted_probabilities(A, beta, eta, p) -> None:
    """``p = 1 / (1 + exp(-clip(A beta, -30, 30)))`` into the buffers ``eta`` and ``p``: a Newton step of the
    fit refills them (a fresh array of every row at each step costs page faults), operation by operation
    the doubles of the expression."""
    np.clip(row_products(A, beta, out=eta), -30, 30, out=eta)
    np.negative(eta, out=p)
    np.exp(p, out=p)
    np.add(1.0, p, out=p)
    np.divide(1.0, p, out=p)


def _blas_terms(A, y, compiled: bool):
    """``p -> (A.T @ (y - p), A.T @ diag(p (1 - p)) @ A)`` by OpenBLAS, with buffers kept between steps."""
    weighted = np.empty_like(A)  # A * w[:, None]
    w, r = np.empty(len(A)), np.empty(len(A))

    def terms(p):
        np.subtract(1, p, out=w)
        np.multiply(p, w, out=w)
        np.subtract(y, p, out=r)
        if compiled:
            _float_kernels.weighted_rows(A, w, weighted)
        else:
            np.multiply(A, w[:, None], out=weighted)
        return A.T @ r, weighted.T @ A

    return terms


def _three_column_terms(A, y):
    """:func:`_blas_terms` of a three-column design, summed in a fixed order in one compiled pass
    (:func:`dpverify.events._float_kernels.logistic_newton_sums`)."""
    sums = np.empty(9)

    def terms(p):
        g0, g1, g2, h00, h01, h02, h11, h12, h22 = _float_kernels.logistic_newton_sums(A, y, p, sums)
        return np.array([g0, g1, g2]), np.array([[h00, h01, h02], [h01, h11, h12], [h02, h12, h22]])

    return terms


@dataclass(frozen=True, eq=False)
class ClassifierScore:
    """The fitted score of encoded outputs, in blocks of :data:`SCORE_BLOCK` rows (picklable).

    ``label_table`` holds the feature row of each discrete code (None for real
    outputs); a code the selection samples never showed (-1) scores NaN and
    so meets no threshold.
    """

    model: LogisticScore
    label_table: np.ndarray | None = None
    width: int = 1  # coordinates of real outputs (1 for discrete codes)

    @property
    def block_rows(self) -> int:
        """Rows featurized at once (:func:`score_rows`)."""
        if self.label_table is None:
            return score_rows(feature_count(self.width), self.width)
        return score_rows(self.label_table.shape[1], 1)

    def features_in_blocks(self, group) -> np.ndarray:
        """:meth:`features` of ``group``, computed :attr:`block_rows` rows at a time."""
        block = self.block_rows
        if len(group) <= block:
            return self.features(group)
        return np.concatenate([self.features(group[i : i + block]) for i in range(0, len(group), block)])

    def features(self, rows):
        if self.label_table is None:
            return output_features(rows)
        codes = np.asarray(rows, dtype=np.int64)
        out = self.label_table[np.maximum(codes, 0)].astype(float)
        out[codes < 0] = np.nan
        return out

    @property
    def array_ready(self) -> bool:
        return self.label_table is None and self.width <= MAX_FULL_WIDTH  # wide features are numpy only

    def on(self, group, xp):
        """The score on an array of another library (real outputs only)."""
        m = self.model
        z = (output_features(group, xp) - arrays.asarray_like(m.mean, group, xp)) / arrays.asarray_like(
            m.scale, group, xp
        )
        return z @ arrays.asarray_like(m.weights, group, xp) + m.intercept

    def _compiled(self, group) -> np.ndarray:
        """:meth:`__call__` of many scalar doubles: the standardized features of each
        :data:`SCALAR_SCORE_ROWS` rows in one compiled pass into one small buffer
        (:func:`dpverify.events._float_kernels.standardized_scalar_features`), then their row products."""
        m = self.model
        group = np.ascontiguousarray(group)
        n = len(group)
        out = np.empty(n)
        z = np.empty((SCALAR_SCORE_ROWS, 2))  # reused: no block-sized temporary to fault in
        for start in range(0, n, SCALAR_SCORE_ROWS):
            stop = min(n, start + SCALAR_SCORE_ROWS)
            rows = z[: stop - start]
            _float_kernels.standardized_scalar_features(group[start:stop], FEATURE_CLIP, m.mean, m.scale, rows)
            np.matmul(rows, m.weights, out=out[start:stop])
        out += m.intercept
        return out

    def __call__(self, group) -> np.ndarray:
        n = len(group)
        out = np.empty(n)
        # Scalar outputs are featurized and scored SCALAR_SCORE_ROWS at a time: the temporaries stay in
        # cache, and the row products stay below OpenBLAS's threading threshold (threads cost more than
        # they save on a busy machine). Each row's score is its own dot product, so the chunking leaves
        # every value unchanged (tested against whole blocks).
        scalar = self.label_table is None and self.width == 1
        if scalar and _compiled_scores(group, self.model):
            return self._compiled(group)
        chunk = min(SCALAR_SCORE_ROWS, self.block_rows) if scalar else self.block_rows
        for start in range(0, n, chunk):
            stop = min(n, start + chunk)
            out[start:stop] = self.model(self.features(group[start:stop]))
        return out


def _compiled_scores(group, model) -> bool:
    """Whether scores of scalar doubles go to the compiled features: many rows (as many as a selection
    that loads numba anyway holds per input), float64, a two-feature model."""
    return (
        isinstance(group, np.ndarray)
        and group.dtype == np.float64
        and group.ndim == 2
        and group.shape[1] == 1
        and len(group) >= _float_kernels.MIN_COMPILED_SELECTION // 2
        and all(np.shape(v) == (2,) for v in (model.mean, model.scale, model.weights))
    )


def _label_table(outputs, sel_x):
    """Feature rows of the discrete labels, or None where the classifier does not apply."""
    if outputs.kind == "real":
        return None
    if outputs.labels is None or len(outputs.labels) <= MIN_DISCRETE_LABELS:
        return None  # few outputs: the exact level sets of dpverify.events.discrete cover them
    return label_features(outputs.labels)


def _scores_in_value_order(score, sel_x, sel_x_prime):
    """The sorted scores of scalar outputs, computed from the selection values sorted by the threshold
    family (:func:`.thresholds.presorted_projection`), or None where these are not at hand.

    A quadratic score of sorted values runs in at most a few monotone stretches, which a merge sort
    (``kind="stable"``) orders in about 1 ms per 1e6 instead of 5 (:func:`_merge_sorted`).
    Each row's score is its own double whatever rows surround it (:func:`row_products`), so these are
    the scores of the selection outputs, permuted; sorted, they are the same doubles in the same order,
    since equal doubles have the same bits. Where that may fail, the caller scores the outputs in their
    own order: a -0.0 among the values that the sort returned as 0.0 (numpy's sort may), a zero among
    the scores (whose sign a sort may change), or a NaN score.
    """
    sorted_x, sorted_xp = (presorted_projection(g, "output") for g in (sel_x, sel_x_prime))
    if sorted_x is None or sorted_xp is None or len(sorted_x) != len(sel_x) or len(sorted_xp) != len(sel_x_prime):
        return None
    if not (_same_zeros(sorted_x, sel_x[:, 0]) and _same_zeros(sorted_xp, sel_x_prime[:, 0])):
        return None  # numpy's sort turned a -0.0 into 0.0, or the reverse
    scores_x = _merge_sorted(score(sorted_x.reshape(-1, 1)), sorted_x, score.model)
    scores_xp = _merge_sorted(score(sorted_xp.reshape(-1, 1)), sorted_xp, score.model)
    if any(_has_zero(s) or (s.size and np.isnan(s[-1])) for s in (scores_x, scores_xp)):  # NaN sorts last
        return None
    return scores_x, scores_xp


def _same_zeros(sorted_values: np.ndarray, values: np.ndarray) -> bool:
    """Whether ``sorted_values`` (a sort of ``values``) hold as many -0.0 as ``values``: then they are
    ``values`` permuted, bit for bit. Reads ``values`` only where a zero was sorted."""
    low, high = (int(np.searchsorted(sorted_values, 0.0, side=side)) for side in ("left", "right"))
    if low == high:
        return True
    return int(np.signbit(sorted_values[low:high]).sum()) == int(np.signbit(values[values == 0]).sum())


def _has_zero(sorted_values: np.ndarray) -> bool:
    """Whether a sorted array holds a zero of either sign (binary search: they lie together)."""
    return bool(np.searchsorted(sorted_values, 0.0, side="left") < np.searchsorted(sorted_values, 0.0, side="right"))


def _merge_sorted(scores: np.ndarray, values: np.ndarray, model: LogisticScore) -> np.ndarray:
    """``numpy.sort(scores)``, for the scores of the sorted scalar ``values``: the stretch where the quadratic
    score falls is reversed first, so that a merge sort meets two rising runs (a falling run with ties, as
    on a grid, is cut at every tie). Any arrangement gives the same sorted doubles; this one is fast.
    ``scores`` is sorted in place and returned."""
    slope, curve = model.weights[0] / model.scale[0], model.weights[1] / model.scale[1]
    if curve != 0:  # d score / dv = slope + 2 curve v: the score falls below the vertex when curve > 0
        k = int(np.searchsorted(values, -slope / (2 * curve)))
        _reverse_in_place(scores[:k] if curve > 0 else scores[k:])
    elif slope < 0:
        _reverse_in_place(scores)
    scores.sort(kind="stable")
    return scores


#: Elements swapped at a time by :func:`_reverse_in_place`.
REVERSE_CHUNK = 1 << 16


def _reverse_in_place(a: np.ndarray) -> None:
    """``a[:] = a[::-1]`` for a 1-d array, through copies of :data:`REVERSE_CHUNK` elements (numpy would copy
    the whole array first, since the two sides overlap: a fresh array of every selection score)."""
    n = len(a)
    half = n // 2
    for start in range(0, half, REVERSE_CHUNK):
        stop = min(half, start + REVERSE_CHUNK)
        left = a[start:stop].copy()
        a[start:stop] = a[n - stop : n - start][::-1]
        a[n - stop : n - start] = left[::-1]


def classifier_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds on a logistic-regression estimate of the log likelihood ratio.

    Fitted on (at most :data:`MAX_FIT_SAMPLES` of) the selection samples;
    candidates ``{score >= t}`` and ``{score < t}`` at the pooled quantiles
    :data:`THRESHOLD_QUANTILES`. Family ``"classifier"``. No events for
    outputs that cannot be featurized or when fewer than 20 samples per input
    are available.
    """
    if len(sel_x) < 20 or len(sel_x_prime) < 20:
        return Candidates.empty()
    if outputs.kind == "real":
        if sel_x.ndim != 2:
            return Candidates.empty()
        table = None
    else:
        table = _label_table(outputs, sel_x)
        if table is None:
            return Candidates.empty(
                f"needs more than {MIN_DISCRETE_LABELS} distinct numeric or tuple-of-number outputs"
            )
    width = sel_x.shape[1] if table is None else 1
    m = fit_rows(feature_count(width) if table is None else table.shape[1])
    unfitted = ClassifierScore(None, table, width)
    compiled = len(sel_x) >= _float_kernels.MIN_COMPILED_SELECTION // 2  # numba is loaded anyway (_compiled_scores)
    features_x, features_xp = unfitted.features_in_blocks(sel_x[:m]), unfitted.features_in_blocks(sel_x_prime[:m])
    model = fit_logistic_score(features_x, features_xp, compiled=compiled)
    if not np.any(model.weights):
        return Candidates.empty()
    score = ClassifierScore(model, table, width)
    presorted = _scores_in_value_order(score, sel_x, sel_x_prime) if table is None and width == 1 else None
    if presorted is not None:  # sorted, without NaN or zeros
        scores_x, scores_xp = sx, sxp = presorted
    else:
        scores_x, scores_xp = score(sel_x), score(sel_x_prime)
        if signed_zeros_mixed(scores_x, scores_xp):  # numpy's quantiles read the unsorted scores then
            sx, sxp = np.sort(scores_x), np.sort(scores_xp)
        else:  # sorted in place: nearest_quantiles reads the sorted groups alone
            scores_x.sort()
            scores_xp.sort()
            sx, sxp = scores_x, scores_xp
    thresholds = np.unique(nearest_quantiles(scores_x, scores_xp, sx, sxp, THRESHOLD_QUANTILES))
    below_x = np.searchsorted(sx, thresholds, side="left")
    below_xp = np.searchsorted(sxp, thresholds, side="left")
    events = []
    for t in thresholds:
        events.append(Event(f"classifier score >= {t:.6g}", "classifier", AtLeast(score, float(t))))
    for t in thresholds:
        events.append(Event(f"classifier score < {t:.6g}", "classifier", Below(score, float(t))))
    counts_x = np.concatenate([len(sx) - below_x, below_x])
    counts_xp = np.concatenate([len(sxp) - below_xp, below_xp])
    return Candidates(events, counts_x, counts_xp)
