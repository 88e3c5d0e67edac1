"""Compiled selection counts of the floating-point families (:mod:`dpverify.events.floating`).

The mantissa and reachability families reduce every selection output to a small code and then
only need the code counts of each half of each group (the level sets of
:func:`dpverify.events.discrete.level_set_events` rank on one half and count on the other). With
numpy, each step (the bit fields, two table lookups, the dense index, TwoSum's four operations)
makes an array the size of the selection sample: 10-25 ns per output at 2e6 outputs per input. The
kernels here read each output once and keep only histograms:

* :func:`bit_field_counts` counts the (sign and exponent field, last three mantissa bits) pattern
  of each double, 2^15 bins per half: the mantissa code of every bin, which depends on the largest
  binade seen, is read afterwards from the histogram, so one pass suffices;
* :func:`reachability_counts` counts the four cells ``2 [y - x exact] + [y - x' exact]`` (TwoSum,
  as :func:`dpverify.events.floating.difference_is_exact`);
* :func:`standardized_scalar_features` writes the classifier's standardized features of scalar
  doubles in one pass (numpy makes five block-sized temporaries for them);
* :func:`column_mean_std` gives the classifier fit's column means and standard deviations, those of
  ``X.mean(axis=0)`` and ``X.std(axis=0)`` (numpy reduces over rows one row at a time, two numbers a
  step, where a matrix has two or more columns); :func:`standardized_design` and
  :func:`weighted_rows` write its design matrix and the Newton steps' weighted copy of it (numpy
  broadcasts a row of two or three numbers at a time: 1 ms per pass at 2e5 rows);
* :func:`logistic_newton_sums` gives a Newton step's gradient and Hessian of a three-column design
  (scalar outputs) in one pass, summed in a fixed order (:data:`NEWTON_BLOCK` rows at a time): the
  one kernel here that does not repeat numpy's operations, since OpenBLAS's ``A.T @ r`` and
  ``W.T @ A`` round differently with the number of threads (and cost 1.5 ms a step at 2e5 rows on one
  thread, several times that on a busy machine, against 0.4 ms).

Apart from the Newton sums, the counts are integers and every test is the IEEE operation numpy
makes, so the candidates are those of the numpy path, bit for bit (tested on random doubles with
signed zeros, infinities, NaN and subnormals). They are used from :data:`MIN_COMPILED_SELECTION`
selection values (outputs times coordinates) on, where the audit's certification loads numba anyway
(:data:`dpverify.pipeline.counting.MIN_COMPILED_OUTPUTS`).

References
----------
I. Mironov, "On significance of the least significant bits for differential privacy", CCS 2012
(Section 3: the low-order bits of a rounded sum).
D. E. Knuth, *The Art of Computer Programming*, vol. 2, 3rd ed. (1997), Section 4.2.2, Theorem B
(TwoSum: the rounding error of a sum, exactly).
"""

from __future__ import annotations

import numpy as np

from ..support._lazy_jit import njit  # numba is imported at the first compiled count

__all__ = [
    "MIN_COMPILED_SELECTION",
    "FIELD_BITS",
    "LOW_BITS",
    "bit_field_counts",
    "difference_is_exact",
    "reachability_counts",
    "standardized_scalar_features",
    "column_mean_std",
    "standardized_design",
    "weighted_rows",
    "NEWTON_BLOCK",
    "logistic_newton_sums",
]

#: Selection values (outputs times their coordinates, both inputs together) from which the floating-point
#: families count with the kernels: 2e6, the default selection of an audit of 1e7 scalar samples per input
#: (or 1e7 / d of d-vectors), whose certification (9e6 values per input) counts with compiled kernels too,
#: so numba is loaded anyway.
MIN_COMPILED_SELECTION = 2_000_000
#: Low mantissa bits read per output (floating.MAX_TRAILING_ZEROS must equal it).
LOW_BITS = 3
#: Bins of :func:`bit_field_counts`: the 12 sign and exponent bits, then the last LOW_BITS bits.
FIELD_BITS = 12 + LOW_BITS


@njit(cache=True, nogil=True)
def bit_field_counts(bits, split, counts):
    """Add ``((bits >> 52) << 3) | (bits & 7)`` of ``bits[:split]`` to ``counts[0]``, of the rest to ``counts[1]``.

    ``bits`` are float64 bit patterns (uint64, 1-D); ``counts`` is (2, 2^15) int64.
    """
    n = bits.shape[0]
    for half in range(2):
        start = 0 if half == 0 else split
        stop = split if half == 0 else n
        histogram = counts[half]
        for r in range(start, stop):
            pattern = bits[r]
            histogram[np.int64(((pattern >> np.uint64(52)) << np.uint64(3)) | (pattern & np.uint64(7)))] += 1


@njit(cache=True, nogil=True)
def difference_is_exact(y, o):
    """Whether ``y - o`` is a finite double and exact (TwoSum's error zero): what
    :func:`dpverify.events.floating.difference_is_exact` decides, for one double."""
    c = -o
    s = y + c
    bb = s - y
    err = (y - (s - bb)) + (c - bb)
    return np.isfinite(s) & (err == 0.0)


@njit(cache=True, nogil=True)
def reachability_counts(values, x, x_prime, split, counts):
    """Add the cell ``2 [y - x exact] + [y - x' exact]`` (every coordinate) of the rows of ``values``.

    Rows before ``split`` go to ``counts[0]``, the others to ``counts[1]`` ((2, 4) int64). A
    difference is exact when TwoSum's error is zero and the rounded difference finite (NaN and
    infinities are not exact), as :func:`dpverify.events.floating.difference_is_exact` decides.
    Scalar outputs (C-contiguous) are counted by three sums per half, a loop the compiler vectorizes
    (a histogram's increments are not: 0.5 ms per 1e6 rows instead of 2).
    """
    n, d = values.shape
    if d == 1:
        column = values.reshape(n)
        for half in range(2):
            start = 0 if half == 0 else split
            stop = split if half == 0 else n
            part = column[start:stop]  # a loop over range(len(part)) vectorizes, one over range(start, stop) not
            only_x, only_x_prime, both = 0, 0, 0
            for r in range(len(part)):
                exact_x = difference_is_exact(part[r], x[0])
                exact_x_prime = difference_is_exact(part[r], x_prime[0])
                only_x += exact_x
                only_x_prime += exact_x_prime
                both += exact_x & exact_x_prime
            counts[half, 3] += both
            counts[half, 2] += only_x - both
            counts[half, 1] += only_x_prime - both
            counts[half, 0] += stop - start - only_x - only_x_prime + both
        return
    for r in range(n):
        exact_x, exact_x_prime = True, True
        for k in range(d):
            exact_x = exact_x & difference_is_exact(values[r, k], x[k])
            exact_x_prime = exact_x_prime & difference_is_exact(values[r, k], x_prime[k])
        counts[0 if r < split else 1, 2 * np.int64(exact_x) + np.int64(exact_x_prime)] += 1


@njit(cache=True, nogil=True)
def standardized_scalar_features(values, clip, mean, scale, out):
    """``out[r] = ((g, g * g) - mean) / scale`` with ``g`` the value of row ``r`` clipped to ``[-clip, clip]``.

    What :class:`dpverify.events.classifier.LogisticScore` computes from
    :func:`dpverify.events.classifier.output_features` of scalar doubles (``values`` of shape
    (n, 1)), the same IEEE operations in the same order, without the block-sized temporaries. A
    NaN stays NaN, as with ``numpy.clip``.
    """
    m0, m1, s0, s1 = mean[0], mean[1], scale[0], scale[1]
    # flat views (reshape refuses a non-contiguous array): the compiler vectorizes the stores of stride 2
    # that it does not see in out[r, 0] and out[r, 1] (0.3 ms per 1e6 rows instead of 1.9)
    n = values.shape[0]
    column = values.reshape(n)
    flat = out.reshape(2 * n)
    for r in range(n):
        g = column[r]
        g = -clip if g < -clip else g
        g = clip if g > clip else g
        flat[2 * r] = (g - m0) / s0
        flat[2 * r + 1] = (g * g - m1) / s1


@njit(cache=True, nogil=True)
def column_mean_std(X):
    """``(X.mean(axis=0), X.std(axis=0))`` of a C-contiguous float64 matrix of two or more columns, bit for bit.

    numpy reduces a C-contiguous matrix over its rows one row at a time when it has two or more columns
    (its pairwise summation runs along a contiguous axis only: a single column is summed pairwise, and
    is left to numpy): the sum starts at the first row and adds each next one. ``std`` takes the mean
    so (the sum divided by the rows), then the same sum of the squared differences, divided by the
    rows, and its square root. The same IEEE operations in the same order, in one pass each instead of
    one call of numpy's inner loop per row (2e5 rows: 7 ms to 1 ms); tested against numpy.
    """
    n, k = X.shape
    total = X[0].copy()
    for i in range(1, n):
        for j in range(k):
            total[j] += X[i, j]
    mean = total / n
    squares = np.empty(k)
    for j in range(k):
        d = X[0, j] - mean[j]
        squares[j] = d * d
    for i in range(1, n):
        for j in range(k):
            d = X[i, j] - mean[j]
            squares[j] += d * d
    return mean, np.sqrt(squares / n)


@njit(cache=True, nogil=True)
def standardized_design(X, mean, scale, keep):
    """The fit's design matrix: ``(X - mean) / scale`` in the columns ``keep`` says to keep, 0.0 in the
    others, and a last column of ones; what ``X -= mean; X /= scale; X[:, ~keep] = 0.0`` and
    ``np.concatenate([X, np.ones((n, 1))], axis=1)`` give (``scale`` 1.0 where not kept), in one pass."""
    n, k = X.shape
    A = np.empty((n, k + 1))
    for i in range(n):
        for j in range(k):
            A[i, j] = (X[i, j] - mean[j]) / scale[j] if keep[j] else 0.0
        A[i, k] = 1.0
    return A


@njit(cache=True, nogil=True)
def weighted_rows(A, w, out):
    """``numpy.multiply(A, w[:, None], out=out)``: row ``i`` of ``A`` times ``w[i]``."""
    n, k = A.shape
    for i in range(n):
        for j in range(k):
            out[i, j] = A[i, j] * w[i]
    return out


#: Rows summed in sequence into one partial sum by :func:`logistic_newton_sums`; the partial sums are
#: then added in order (rounding error about ``(NEWTON_BLOCK + n / NEWTON_BLOCK)`` units in the last
#: place, where one running sum over ``n`` rows has ``n``).
NEWTON_BLOCK = 4096


@njit(cache=True, nogil=True)
def logistic_newton_sums(A, y, p, out):
    """The gradient ``A.T @ (y - p)`` and the Hessian ``A.T @ diag(p (1 - p)) @ A`` of a logistic fit with a
    three-column design ``A``, in one pass, into ``out``: ``g0, g1, g2, h00, h01, h02, h11, h12, h22``.

    Each row adds ``a_j (y - p)`` and ``(a_j w) a_l`` (``w = p (1 - p)``, ``j <= l``) to running sums of
    :data:`NEWTON_BLOCK` rows, which are added in order: a fixed order of operations, so the same doubles
    whatever the machine's threads (unlike a BLAS product, whose threads split the sum over rows).
    """
    n = A.shape[0]
    out[:] = 0.0
    for start in range(0, n, NEWTON_BLOCK):
        g0 = g1 = g2 = h00 = h01 = h02 = h11 = h12 = h22 = 0.0
        for i in range(start, min(n, start + NEWTON_BLOCK)):
            pi = p[i]
            w = pi * (1.0 - pi)
            r = y[i] - pi
            a0 = A[i, 0]
            a1 = A[i, 1]
            a2 = A[i, 2]
            g0 += a0 * r
            g1 += a1 * r
            g2 += a2 * r
            b0 = a0 * w
            b1 = a1 * w
            b2 = a2 * w
            h00 += b0 * a0
            h01 += b0 * a1
            h02 += b0 * a2
            h11 += b1 * a1
            h12 += b1 * a2
            h22 += b2 * a2
        out[0] += g0
        out[1] += g1
        out[2] += g2
        out[3] += h00
        out[4] += h01
        out[5] += h02
        out[6] += h11
        out[7] += h12
        out[8] += h22
    return out
