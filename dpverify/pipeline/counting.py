"""Compiled counting of frozen events: one pass over a block of raw outputs, no block-sized temporaries.

Certification (:func:`dpverify.pipeline.sampling.count_events`) encodes every streamed
block with the audit's :class:`~dpverify.pipeline.outputs.OutputCodec` and counts it in
each frozen event. Done with numpy, every step (the code book lookup, a
projection, the mantissa code of a double, a table lookup, a comparison)
makes an array the size of the block, and counting costs as much as the
mechanism's own sampling. Here the events whose indicators declare a
compiled form (``counted_as``, :mod:`dpverify.events.indicators`) are
translated into a small *program* that a numba kernel runs row by row:

* every output is reduced once per *projection*: a real value (a coordinate,
  the largest coordinate, the sum of the coordinates' binned log ratios) or a
  code (the code book's code of an integer, the code of an exact real value by
  sorted lookup, the (sign, binade, trailing zeros) code of the bit pattern,
  the reachability cell of ``y - x`` and
  ``y - x'``);
* events on a real value (``v >= t``, ``v < t``, ``lo <= v < hi``) are tested
  per output; events on a code (code sets: singletons and level sets; and
  thresholds on a code's numeric value) are counted from the histogram of
  the codes: ``count = sum over codes c of hist[c] [c in S]``.

Scalar doubles go to :func:`count_scalars`, which reads each tile of the block in place (the
projections of a scalar are the value itself) in loops the compiler vectorizes; the other real
outputs go to :func:`count_real`.

Outputs read: doubles (scalars or vectors), int64 integers audited by value
(read as the doubles numpy converts them to), and int or bool outputs with a
code book; any other block goes to numpy.

Thresholds on the classifier's score of scalar doubles
(:class:`dpverify.events.classifier.ClassifierScore`, features ``g`` and ``g^2``)
are counted by a kernel of their own with an exact filter: numpy's score ends in
a BLAS dot product whose order of operations (fused or not) the kernel cannot
reproduce, but both values lie within ``3u (|z_0 w_0| + |z_1 w_1| + |b|)`` of the
exact one (u the unit roundoff; Higham 2002, Section 3.1), so an output whose
kernel score is farther than a generous multiple of that from the threshold
falls on the side numpy puts it; a score block (the rows numpy scores at once)
holding an output nearer than that is counted again by numpy, whole.

Only the counts and the histograms (a few hundred integers) are kept.
Everything else falls back to the numpy path, event by event: the sum and
the linear projection of real vectors (numpy's pairwise summation and BLAS
fix an order of additions a loop would not reproduce bit for bit),
classifier scores, integer-vector rows, hashable outputs, and events a third
party registers. Counts are integers and each test is the IEEE comparison
numpy makes, so compiled and numpy counts are identical (tested for every
event kind).

References
----------
I. Mironov, "On significance of the least significant bits for differential
privacy", CCS 2012 (Section 3: the low-order bits of a rounded sum).
D. E. Knuth, *The Art of Computer Programming*, vol. 2, 3rd ed. (1997),
Section 4.2.2, Theorem B (TwoSum: the rounding error of a sum, exactly).
N. J. Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed. (2002), Section 3.1
(the error bound of an inner product in any order of summation).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..events._float_kernels import difference_is_exact as _difference_is_exact
from ..events.classifier import FEATURE_CLIP, ClassifierScore
from ..events.floating import BINADE_SPAN, MAX_TRAILING_ZEROS
from ..events.indicators import counted_as
from ..support._lazy_jit import njit  # numba is imported at the first compiled count

__all__ = [
    "CompiledCounter",
    "compile_counter",
    "count_real",
    "count_scalars",
    "log_ratio_sums",
    "projected",
    "MIN_COMPILED_OUTPUTS",
]

#: Certifications of fewer output coordinates per input than this (outputs times the code book's
#: dimension) count with numpy: loading the kernels (numba's first use in a process) would cost more than
#: it saves.
MIN_COMPILED_OUTPUTS = 1 << 23
#: Integer code books spanning at most this many values are read by direct lookup, not binary search.
MAX_LOOKUP_SPAN = 1 << 16
#: Code books of at most this many integers are counted by one numpy comparison per code, which is
#: faster than :func:`count_codes` for so few codes (measured: docs/auditor/benchmarks.md): numba is
#: never loaded for them.
MAX_COMPARED_CODES = 3

# projections: what each output is reduced to (a real value, or a code)
_COORDINATE, _LARGEST, _EXACT_VALUE, _MANTISSA, _REACHABILITY, _LOG_RATIO_SUM = range(6)
# tests of a real value
_AT_LEAST, _BELOW, _WITHIN = range(3)
_TESTS = {"at-least": _AT_LEAST, "below": _BELOW, "within": _WITHIN}

#: The trailing-zero cap the mantissa kernel counts to (floating.MAX_TRAILING_ZEROS must equal it).
_KERNEL_TRAILING_ZEROS = 3

# The kernels read their tables inline: a helper function called with an array argument pays
# reference counting on every call (about 20 ns, more than the test itself). Constants of other
# modules reach them as arguments: numba's cache would not see those modules change.


@njit(cache=True, nogil=True)
def _mantissa_code(bits, lowest_binade, top_class):
    """(sign, binade, min(trailing zero bits, 3)) code of one float64 bit pattern (floating.mantissa_codes).

    Binades are counted from ``lowest_binade`` (those below pooled in class 0) up to ``top_class``.
    """
    sign = np.int64(bits >> np.uint64(63))
    e = np.int64((bits >> np.uint64(52)) & np.uint64(0x7FF)) - lowest_binade
    e = min(max(e, 0), top_class)
    m = bits & np.uint64((1 << 52) - 1)
    # min(trailing zeros, 3) without a branch on the (random) low bits; a zero field counts 3
    tz = np.int64((m & np.uint64(1)) == 0) + np.int64((m & np.uint64(3)) == 0) + np.int64((m & np.uint64(7)) == 0)
    return (sign * (top_class + 1) + e) * (_KERNEL_TRAILING_ZEROS + 1) + tz


@njit(cache=True, nogil=True)
def _count_in_tile(tile, m, test, low, high):
    """How many of ``tile[:m]`` pass a real event's test: ``>= low``, ``< low``, or in ``[low, high)``
    (one loop over ``range(m)`` per test, which the compiler vectorizes)."""
    found = 0
    if test == _AT_LEAST:
        for i in range(m):
            found += tile[i] >= low
    elif test == _BELOW:
        for i in range(m):
            found += tile[i] < low
    else:
        for i in range(m):
            found += (tile[i] >= low) & (tile[i] < high)
    return found


#: Rows a kernel reduces at once, projection by projection and event by event (short, simple loops
#: the compiler vectorizes; the buffers hold a tile, never the block).
TILE = 256
#: Histograms a kernel fills side by side (see :func:`count_real`).
LANES = 4


@njit(cache=True, nogil=True)
def _mantissa_tables(projections):
    """The two lookup tables of each mantissa projection: a mantissa code is the sum of a part read from the
    sign and exponent bits (``heads[p, field]``) and one read from the last bits (``tails[p, last]``), both
    made by :func:`_mantissa_code` itself (its arithmetic per output costs several times more). Rows of
    other projections are 0."""
    n_projections = projections.shape[0]
    heads = np.zeros((n_projections, 1 << 12), dtype=np.int64)
    tails = np.zeros((n_projections, 1 << _KERNEL_TRAILING_ZEROS), dtype=np.int64)
    for p in range(n_projections):
        if projections[p, 0] == _MANTISSA:
            argument, length = projections[p, 1], projections[p, 3]
            for field in range(1 << 12):
                heads[p, field] = _mantissa_code((np.uint64(field) << np.uint64(52)) | np.uint64(1), argument, length)
            for last in range(1 << _KERNEL_TRAILING_ZEROS):
                tails[p, last] = _mantissa_code(np.uint64(last), argument, length) - heads[p, 0]
    return heads, tails


@njit(cache=True, nogil=True, inline="always")
def _sorted_code(keys, start, stop, v):
    """The index of ``v`` in the sorted run ``keys[start:stop]`` (numpy's ``searchsorted``, left, then
    equality), or -1 where it is not there."""
    lo, hi = start, stop
    while lo < hi:
        mid = (lo + hi) >> 1
        if keys[mid] < v:
            lo = mid + 1
        else:
            hi = mid
    return lo - start if lo < stop and keys[lo] == v else -1


@njit(cache=True, nogil=True)
def _log_ratio_sum_tile(values, start, stop, numbers, offset, length, tile, column, bins):
    """``tile[:stop - start]`` = :class:`~dpverify.events.projections.LogRatioSum` of rows ``start:stop``.

    ``numbers[offset:]`` holds ``length`` terms, each ``(coordinate, m, m sorted edges, m + 1 table
    entries)``. A row's bin is numpy's ``searchsorted(edges, v, side="right")``: the number of edges
    ``<= v``, counted edge by edge over the tile (a loop the compiler vectorizes; a binary search per
    value costs as much as numpy's, its branches unpredictable), and the last bin for NaN. The terms are
    added to 0.0 in the projection's order, as numpy adds its columns. ``column`` and ``bins`` are
    scratch buffers of a tile.
    """
    rows = stop - start
    out, column, bins = tile[:rows], column[:rows], bins[:rows]
    for i in range(rows):
        out[i] = 0.0
    at = offset
    for _ in range(length):
        k, m = np.int64(numbers[at]), np.int64(numbers[at + 1])
        edges = at + 2
        for i in range(rows):
            column[i] = values[start + i, k]
            bins[i] = m * np.int64(column[i] != column[i])  # NaN: no edge is <= it, numpy's last bin
        for j in range(m):
            edge = numbers[edges + j]
            for i in range(rows):
                bins[i] += column[i] >= edge
        table = numbers[edges + m : edges + 2 * m + 1]
        for i in range(rows):
            out[i] += table[bins[i]]
        at = edges + 2 * m + 1


@njit(cache=True, nogil=True)
def log_ratio_sums(values, numbers, length, out):
    """``out[r]`` = the log-ratio sum of row ``r`` of ``values`` (n, d) doubles, its terms at the start of
    ``numbers`` (:func:`_log_ratio_sum_tile`)."""
    column, bins = np.zeros(TILE), np.zeros(TILE, dtype=np.int64)
    for start in range(0, values.shape[0], TILE):
        stop = min(start + TILE, values.shape[0])
        _log_ratio_sum_tile(values, start, stop, numbers, 0, length, out[start:stop], column, bins)


@njit(cache=True, nogil=True)
def count_real(values, bits, projections, numbers, events, bounds, counts, histograms):
    """Count the rows of ``values`` (n, d); False (and counts unfinished) when a value is NaN.

    ``values`` are float64, or int64 read as the doubles numpy would convert them to.

    ``projections[p] = (kind, argument, offset, length)`` (tables in ``numbers``); a code projection
    adds each output's code ``c`` (-1: unseen) to ``histograms[p, c + 1]``, except the mantissa
    projection, which adds the raw :func:`_mantissa_code` (read through the coder's table afterwards;
    its argument is the lowest binade and its length the top binade class).
    ``events[j] = (test, projection)`` with ``bounds[j] = (low, high)`` test a real projection.
    """
    n, d = values.shape
    n_projections = projections.shape[0]
    reals = np.zeros((n_projections, TILE))
    column, bins = np.zeros(TILE), np.zeros(TILE, dtype=np.int64)  # scratch of _log_ratio_sum_tile
    heads, tails = _mantissa_tables(projections)
    # LANES histograms per projection, row r adding to lane r % LANES: consecutive equal codes do not
    # wait on each other's increment
    lanes = np.zeros((n_projections, LANES, histograms.shape[1]), dtype=np.int64)
    for start in range(0, n, TILE):
        stop = min(start + TILE, n)
        nan = False
        for r in range(start, stop):
            for k in range(d):
                nan |= values[r, k] != values[r, k]
        if nan:
            return False
        for p in range(n_projections):
            kind, argument, offset, length = projections[p, 0], projections[p, 1], projections[p, 2], projections[p, 3]
            tile = reals[p]
            histogram = lanes[p]
            if kind == _COORDINATE:
                for r in range(start, stop):
                    tile[r - start] = values[r, argument]
            elif kind == _LARGEST:
                for r in range(start, stop):
                    largest = values[r, 0]
                    for k in range(1, d):
                        largest = max(largest, values[r, k])
                    tile[r - start] = largest
            elif kind == _LOG_RATIO_SUM:
                _log_ratio_sum_tile(values, start, stop, numbers, offset, length, tile, column, bins)
            elif kind == _EXACT_VALUE:  # numpy's searchsorted (left), then equality
                for r in range(start, stop):
                    code = _sorted_code(numbers, offset, offset + length, values[r, 0])
                    histogram[r & (LANES - 1), code + 1] += 1
            elif kind == _MANTISSA:
                head, tail = heads[p], tails[p]
                for r in range(start, stop):
                    pattern = bits[r, 0]
                    code = head[np.int64(pattern >> np.uint64(52))] + tail[np.int64(pattern & np.uint64(len(tail) - 1))]
                    histogram[r & (LANES - 1), code] += 1
            else:  # reachability: x at offset, x' at length
                for r in range(start, stop):
                    exact_x, exact_x_prime = True, True
                    for k in range(d):
                        exact_x = exact_x & _difference_is_exact(values[r, k], numbers[offset + k])
                        exact_x_prime = exact_x_prime & _difference_is_exact(values[r, k], numbers[length + k])
                    histogram[r & (LANES - 1), 2 * np.int64(exact_x) + np.int64(exact_x_prime) + 1] += 1
        m = stop - start
        for j in range(events.shape[0]):
            counts[j] += _count_in_tile(reals[events[j, 1]], m, events[j, 0], bounds[j, 0], bounds[j, 1])
    for p in range(n_projections):
        for lane in range(LANES):
            histograms[p] += lanes[p, lane]
    return True


#: Rows :func:`count_scalars` reads per pass of each projection and event (32 KiB of doubles).
SCALAR_TILE = 4096


@njit(cache=True, nogil=True)
def count_scalars(column, bits, projections, numbers, events, bounds, counts, histograms):
    """:func:`count_real` for scalar doubles (``column``, 1-D, and its bit patterns ``bits``).

    The real projections of a scalar (its coordinate, its largest coordinate) are the value itself,
    so tests read ``column`` directly, each over a tile in one loop the compiler vectorizes, with no
    copy; code projections are the mantissa code and the reachability cell (an exact-value
    projection goes to :func:`count_real`). False (and counts unfinished) when a value is NaN.
    """
    n = column.shape[0]
    n_projections = projections.shape[0]
    heads, tails = _mantissa_tables(projections)
    lanes = np.zeros((n_projections, LANES, histograms.shape[1]), dtype=np.int64)  # as in count_real
    # loops over a tile's slice, range(m): the compiler vectorizes these (not loops over range(start, stop))
    for start in range(0, n, SCALAR_TILE):
        stop = min(start + SCALAR_TILE, n)
        m = stop - start
        tile, tile_bits = column[start:stop], bits[start:stop]
        nan = 0
        for i in range(m):
            nan += tile[i] != tile[i]
        if nan:
            return False
        for p in range(n_projections):
            kind, offset, length = projections[p, 0], projections[p, 2], projections[p, 3]
            histogram = lanes[p]
            if kind == _MANTISSA:
                head, tail = heads[p], tails[p]
                for i in range(m):
                    pattern = tile_bits[i]
                    code = head[np.int64(pattern >> np.uint64(52))] + tail[np.int64(pattern & np.uint64(len(tail) - 1))]
                    histogram[i & (LANES - 1), code] += 1
            elif kind == _REACHABILITY:  # the four cells from three sums, which vectorize (a histogram does not)
                x, x_prime = numbers[offset], numbers[length]
                only_x, only_x_prime, both = 0, 0, 0
                for i in range(m):
                    exact_x = _difference_is_exact(tile[i], x)
                    exact_x_prime = _difference_is_exact(tile[i], x_prime)
                    only_x += exact_x
                    only_x_prime += exact_x_prime
                    both += exact_x & exact_x_prime
                histogram[0, 4] += both  # cell 3 (bin 4): both exact; cell 2: y - x exact only; ...
                histogram[0, 3] += only_x - both
                histogram[0, 2] += only_x_prime - both
                histogram[0, 1] += m - only_x - only_x_prime + both
        for j in range(events.shape[0]):
            counts[j] += _count_in_tile(tile, m, events[j, 0], bounds[j, 0], bounds[j, 1])
    for p in range(n_projections):
        for lane in range(LANES):
            histograms[p] += lanes[p, lane]
    return True


#: The filter's margin, relative to ``|z_0 w_0| + |z_1 w_1| + |b| + |t|``: 2^-44, about 700 times the
#: difference two evaluations of a 2-term score can show (2 x 3u = 6 x 2^-53).
SCORE_MARGIN = 2.0**-44


@njit(cache=True, nogil=True)
def count_scores(column, params, tests, thresholds, block_rows, counts, unsure):
    """Thresholds on a scalar classifier score of the doubles ``column`` (1-D, contiguous), counted per score
    block; ``unsure[k]`` marks the blocks where some output's score lies within the filter margin of a
    threshold (numpy counts those again).

    ``params[s] = (clip, mean_0, mean_1, w_0 / scale_0, w_1 / scale_1, b)``; ``tests[j] = (test, s)``
    (``_AT_LEAST`` or ``_BELOW``) at ``thresholds[j]``; ``counts[k, j]`` counts event ``j`` in block ``k``.
    The kernel's score ``(g - mean_0) (w_0 / scale_0) + (g^2 - mean_1) (w_1 / scale_1) + b`` (``g`` the
    clipped output) differs from numpy's ``((g - mean) / scale) @ w + b`` by a few units of roundoff of
    ``|terms| + |b|``, far inside the margin.
    """
    n = column.shape[0]
    n_events, n_scores = tests.shape[0], params.shape[0]
    scores = np.zeros((n_scores, TILE))
    sizes = np.zeros((n_scores, TILE))  # |first term| + |second term| + |b|
    for k in range((n + block_rows - 1) // block_rows):
        near = 0
        for start in range(k * block_rows, min(n, (k + 1) * block_rows), TILE):
            m = min(TILE, min(n, (k + 1) * block_rows) - start)
            part = column[start : start + m]  # read as part[i], the loop vectorizes (values[start + i, 0]: 4x slower)
            for s in range(n_scores):
                clip, m0, m1 = params[s, 0], params[s, 1], params[s, 2]
                k0, k1, b = params[s, 3], params[s, 4], params[s, 5]
                tile, size = scores[s], sizes[s]
                for i in range(m):
                    g = min(max(part[i], -clip), clip)
                    first = (g - m0) * k0
                    second = (g * g - m1) * k1
                    tile[i] = first + second + b
                    size[i] = abs(first) + abs(second) + abs(b)
            for j in range(n_events):
                tile, size, t, test = scores[tests[j, 1]], sizes[tests[j, 1]], thresholds[j], tests[j, 0]
                margin = SCORE_MARGIN * abs(t)
                found = 0
                for i in range(m):
                    near += abs(tile[i] - t) <= SCORE_MARGIN * size[i] + margin
                    found += tile[i] >= t
                counts[k, j] += found if test == _AT_LEAST else m - found
        unsure[k] = near > 0


@njit(cache=True, nogil=True)
def count_codes(values, keys, lookup, low, high, histogram):
    """Add the code of each integer in ``values`` to ``histogram[code + 1]`` (code -1: not in ``keys``).

    The code is the index in the sorted ``keys`` (numpy's ``searchsorted``, then equality); with a
    non-empty ``lookup`` it is read directly, ``lookup[v - low]`` for ``low <= v <= high``.
    """
    k = keys.shape[0]
    direct = lookup.shape[0] > 0
    lanes = np.zeros((LANES, histogram.shape[0]), dtype=np.int64)  # as in count_real
    for r in range(values.shape[0]):
        v = values[r]
        if direct:
            code = lookup[v - low] if v >= low and v <= high else -1
        else:
            code = _sorted_code(keys, 0, k, v)
        lanes[r & (LANES - 1), code + 1] += 1
    for lane in range(LANES):
        histogram += lanes[lane]


def count_by_comparison(values, keys, histogram) -> None:
    """:func:`count_codes` for a few sorted distinct ``keys``: one comparison of the block per key."""
    seen = 0
    for code, key in enumerate(keys):
        found = int(np.count_nonzero(values == key))
        histogram[code + 1] += found
        seen += found
    histogram[0] += len(values) - seen  # code -1: values not in keys


class _Program:
    """Projections and events being translated from frozen indicators."""

    def __init__(self):
        self.projections: list = []  # (kind, argument, offset, length)
        self.dense: list = []  # per code projection: the index of each histogram bin among codes -1, 0, ...
        self.by_key: dict = {}
        self.tests: list = []  # (test, projection), (low, high), indicator index
        self.code_events: list = []  # (indicator index, projection, weight per histogram bin)
        self.numbers: list = []
        self.sizes = {"numbers": 0}
        self.scores: list = []  # kernel parameters per classifier score (count_scores)
        self.score_tests: list = []  # (test, score), threshold, indicator index
        self.score_rows = None  # the rows a score is computed on at once

    def table(self, name: str, values) -> int:
        """Append ``values`` to the flat table ``name``; returns their offset."""
        offset = self.sizes[name]
        getattr(self, name).append(np.asarray(values))
        self.sizes[name] += len(values)
        return offset

    def projection(self, key, kind: int, n_codes: int = -1, argument: int = 0, offset: int = 0, length: int = 0):
        """Index of a projection, added once per ``key`` (an encoder shared by events runs once per output).

        A code projection with ``n_codes`` codes fills a histogram whose bin ``c + 1`` counts code ``c``.
        """
        if key not in self.by_key:
            self.by_key[key] = len(self.projections)
            self.projections.append((kind, argument, offset, length))
            self.dense.append(np.arange(n_codes + 1))
        return self.by_key[key]

    def code_event(self, index: int, projection: int, weights: np.ndarray) -> None:
        """Indicator ``index`` counts ``weights[c + 1]`` per output of code ``c`` in ``projection``."""
        self.code_events.append((index, projection, weights[self.dense[projection]]))

    def arrays(self) -> dict:
        def flat(parts, dtype):
            return np.concatenate([np.asarray(p, dtype=dtype) for p in parts]) if parts else np.zeros(1, dtype)

        return {
            "projections": np.asarray(self.projections, dtype=np.int64).reshape(-1, 4),
            "width": max((len(d) for d in self.dense), default=0),
            "numbers": flat(self.numbers, np.float64),
            "events": np.asarray([t[0] for t in self.tests], dtype=np.int64).reshape(-1, 2),
            "bounds": np.asarray([t[1] for t in self.tests], dtype=np.float64).reshape(-1, 2),
            "score_params": np.asarray(self.scores, dtype=np.float64).reshape(-1, 6),
            "score_tests": np.asarray([t[0] for t in self.score_tests], dtype=np.int64).reshape(-1, 2),
            "score_thresholds": np.asarray([t[1] for t in self.score_tests], dtype=np.float64),
            "score_rows": self.score_rows or 1,
        }


def _real_projection(program: _Program, projection, d: int, doubles: bool):
    """Index of a real-valued projection of (n, d) outputs, or None when it is not compiled (``doubles``: the
    kernel reads float64 outputs; the log-ratio sum is compiled for those only)."""
    form = counted_as(projection)
    if form is None:
        return None
    if form[0] == "coordinate" and 0 <= form[1] < d:
        return program.projection(("coordinate", form[1]), _COORDINATE, argument=form[1])
    if form[0] == "largest":
        return program.projection(("largest",), _LARGEST)
    if form[0] == "log-ratio-sum" and doubles:
        return _log_ratio_sum_projection(program, projection, form, d)
    return None


def _log_ratio_sum_projection(program: _Program, projection, form, d: int):
    """Index of a :class:`~dpverify.events.projections.LogRatioSum` of the output coordinates, its terms laid
    out in ``numbers`` for :func:`_log_ratio_sum_tile`; None where an edge list is not finite and strictly
    increasing or a table does not have one entry per bin (numpy's ``searchsorted`` then defines the bins)."""
    key = ("log-ratio-sum", id(projection))
    if key in program.by_key:
        return program.by_key[key]
    _, coordinates, all_edges, tables = form
    layout = []
    for k, edges, table in zip(coordinates, all_edges, tables):
        edges, table = np.asarray(edges, dtype=np.float64), np.asarray(table, dtype=np.float64)
        if not (0 <= k < d and edges.ndim == 1 and table.shape == (len(edges) + 1,)):
            return None
        if not (np.all(np.isfinite(edges)) and np.all(np.diff(edges) > 0)):
            return None
        layout.append(np.concatenate([[k, len(edges)], edges, table]))
    if not layout:
        return None
    offset = program.table("numbers", np.concatenate(layout))
    return program.projection(key, _LOG_RATIO_SUM, offset=offset, length=len(layout))


def _code_projection(program: _Program, encoder, d: int, doubles: bool):
    """(index, number of codes) of an encoder of real outputs into codes, or None when it is not compiled.

    ``doubles``: the kernel reads float64 outputs (bit patterns), not int64 ones.
    """
    form = counted_as(encoder)
    if form is None:
        return None
    key = (type(encoder).__name__, id(encoder))
    if form[0] == "exact-value":
        values = np.asarray(form[1])
        if values.dtype != np.float64 or values.ndim != 1 or values.size == 0:
            return None
        n = len(values)
        offset = program.table("numbers", values) if key not in program.by_key else 0
        return program.projection(key, _EXACT_VALUE, n, offset=offset, length=n), n
    if form[0] == "mantissa" and doubles:
        lookup, top_binade = np.asarray(form[1]), form[2]
        size = 2 * (BINADE_SPAN + 2) * (MAX_TRAILING_ZEROS + 1)
        if MAX_TRAILING_ZEROS != _KERNEL_TRAILING_ZEROS or lookup.dtype.kind != "i" or lookup.shape != (size,):
            return None
        n = int(lookup.max()) + 1
        lowest = int(top_binade) - BINADE_SPAN
        index = program.projection(key, _MANTISSA, n, argument=lowest, length=BINADE_SPAN + 1)
        program.dense[index] = lookup + 1  # the kernel bins the raw code, which the coder's table reads
        return index, n
    if form[0] == "reachability":
        x = np.broadcast_to(np.asarray(form[1], dtype=np.float64), (d,))
        x_prime = np.broadcast_to(np.asarray(form[2], dtype=np.float64), (d,))
        if key not in program.by_key:
            return program.projection(
                key, _REACHABILITY, 4, offset=program.table("numbers", x), length=program.table("numbers", x_prime)
            ), 4
        return program.projection(key, _REACHABILITY, 4), 4
    return None


def _code_weights(inner, n_codes: int):
    """``[c in S]`` for the codes -1, 0, ..., n_codes - 1 of an event on codes, or None when not compiled.

    Code ``c`` reads ``table[c]`` and code -1 the table's last entry, as numpy indexing does; a table
    shorter than the codes would raise in numpy, and is left to it.
    """
    form = counted_as(inner)
    if form is None:
        return None
    if form[0] == "code-set":
        table = np.asarray(form[1])
        if table.dtype != np.bool_ or table.ndim != 1 or len(table) < max(n_codes, 1):
            return None
        member = table
    else:
        projection = counted_as(form[1]) if form[0] in _TESTS else None
        if projection is None or projection[0] != "code-value":
            return None
        value = np.asarray(projection[1])
        if value.dtype != np.float64 or value.ndim != 1 or len(value) < max(n_codes, 1):
            return None
        member = inner(np.arange(len(value)))  # the indicator itself, once per code
    return np.concatenate([member[-1:], member[:n_codes]]).astype(np.int64)


def _score_params(score) -> tuple | None:
    """The kernel's parameters of a classifier score of scalar doubles, or None when it is not compiled."""
    if type(score) is not ClassifierScore or score.label_table is not None or score.width != 1:
        return None
    model = score.model
    parts = [np.asarray(v, dtype=np.float64).reshape(-1) for v in (model.mean, model.scale, model.weights)]
    if any(p.shape != (2,) for p in parts):
        return None
    (m0, m1), (s0, s1), (w0, w1) = parts
    return (float(FEATURE_CLIP), m0, m1, w0 / s0, w1 / s1, float(model.intercept))


def _add_score_event(program: _Program, index: int, indicator, d: int, doubles: bool) -> bool:
    """A threshold on a classifier score of scalar doubles, counted by :func:`count_scores`."""
    form = counted_as(indicator)
    test = None if form is None else _TESTS.get(form[0])
    if not doubles or d != 1 or test not in (_AT_LEAST, _BELOW):
        return False
    params = _score_params(form[1])
    if params is None:
        return False
    rows = form[1].block_rows
    if program.score_rows not in (None, rows):  # one block layout for the scores counted together
        return False
    program.score_rows = rows
    key = ("score", id(form[1]))
    if key not in program.by_key:
        program.by_key[key] = len(program.scores)
        program.scores.append(params)
    program.score_tests.append(((test, program.by_key[key]), float(form[2]), index))
    return True


def _add_real_event(program: _Program, index: int, indicator, d: int, doubles: bool) -> bool:
    form = counted_as(indicator)
    if form is None:
        return False
    test = _TESTS.get(form[0])
    if test is not None:
        projection = _real_projection(program, form[1], d, doubles)
        if projection is None:
            return False
        low = form[2]
        high = form[3] if test == _WITHIN else np.nan
        program.tests.append(((test, projection), (float(low), float(high)), index))
        return True
    if form[0] == "composed":
        found = _code_projection(program, form[1], d, doubles)
        weights = None if found is None else _code_weights(form[2], found[1])
        if weights is None:
            return False
        program.code_event(index, found[0], weights)
        return True
    return False


def projected(projection, group: np.ndarray, compiled: bool) -> np.ndarray:
    """``projection(group)`` for (n, d) doubles: the same values, computed by :func:`log_ratio_sums` where
    ``compiled`` and the projection is a log-ratio sum of the output coordinates (numpy's lookups cost
    several times the kernel's), else by the projection itself."""
    if compiled and group.dtype == np.float64 and group.ndim == 2 and len(group):
        program = _Program()
        form = counted_as(projection)
        if form is not None and form[0] == "log-ratio-sum":
            index = _log_ratio_sum_projection(program, projection, form, group.shape[1])
            if index is not None:
                out = np.empty(len(group))
                length = int(program.projections[index][3])
                log_ratio_sums(np.ascontiguousarray(group), program.arrays()["numbers"], length, out)
                return out
    return projection(group)


@dataclass(frozen=True, eq=False)
class CompiledCounter:
    """The compiled events of one audit, and how to count them in a block of raw outputs.

    Attributes
    ----------
    codec : OutputCodec
        The audit's code book.
    tested : tuple of int
        Indicators tested per output (thresholds and intervals on real values), in kernel order.
    coded : tuple of (int, int, numpy.ndarray)
        Indicators counted from a histogram of codes: (indicator, projection, weight per code + 1).
    rest : tuple of int
        Indicators left to the numpy path.
    program : dict
        The kernel's arrays.
    scored : tuple of (int, callable)
        Thresholds on a classifier score counted by :func:`count_scores`: (indicator, the indicator,
        for the score blocks numpy counts again).
    """

    codec: object
    tested: tuple
    coded: tuple
    rest: tuple
    program: dict
    scored: tuple = ()

    def accepts(self, raw) -> bool:
        """Whether the kernel reads ``raw`` as the numpy path does (else the numpy path counts it)."""
        if type(raw) is not np.ndarray or raw.ndim == 0 or raw.shape[0] == 0:
            return False
        if self.codec.kind == "real":  # doubles; int64 for integers audited by value ("int-real")
            width = raw.shape[1] if raw.ndim == 2 else 1
            dtype = np.int64 if self.codec.storage == "int-real" else np.float64
            return raw.dtype == dtype and raw.ndim <= 2 and width == self.codec.dimension
        kinds = "b" if self.codec.storage == "bool" else "i"
        return raw.ndim == 1 and raw.dtype.kind in kinds and raw.dtype == self.codec._keys.dtype

    def count(self, raw, counts: np.ndarray) -> None:
        """Add the counts of the compiled events in ``raw`` (accepted) to ``counts``."""
        p = self.program
        histograms = np.zeros((len(p["projections"]), p["width"]), dtype=np.int64)
        if self.codec.kind == "real":
            values = np.ascontiguousarray(raw.reshape(len(raw), -1))
            tested = np.zeros(len(self.tested), dtype=np.int64)
            arrays = (p["projections"], p["numbers"], p["events"], p["bounds"], tested, histograms)
            if p["scalars"]:
                column = values[:, 0]  # contiguous: one coordinate per row
                complete = count_scalars(column, column.view(np.uint64), *arrays)
            else:
                complete = count_real(values, values.view(np.uint64), *arrays)
            if not complete:
                self.codec.encode(raw)  # a NaN: raises the numpy path's error
            counts[list(self.tested)] += tested
            if self.scored:
                _count_scored(self, values, counts)
        else:
            values = raw.view(np.uint8) if raw.dtype == np.bool_ else raw
            if len(p["keys"]) <= MAX_COMPARED_CODES:
                count_by_comparison(values, p["keys"], histograms[0])
            else:
                count_codes(values, p["keys"], p["lookup"], p["low"], p["high"], histograms[0])
        for index, projection, weights in self.coded:
            counts[index] += int(histograms[projection, : len(weights)] @ weights)


def _count_scored(counter: CompiledCounter, values: np.ndarray, counts: np.ndarray) -> None:
    """:func:`count_scores` on a block of scalar doubles; its unsure score blocks counted by numpy."""
    p = counter.program
    rows = p["score_rows"]
    n_blocks = -(-len(values) // rows)
    per_block = np.zeros((n_blocks, len(counter.scored)), dtype=np.int64)
    unsure = np.zeros(n_blocks, dtype=np.bool_)
    column = values[:, 0]  # scores are of scalar outputs: contiguous
    count_scores(column, p["score_params"], p["score_tests"], p["score_thresholds"], rows, per_block, unsure)
    for k in np.flatnonzero(unsure):  # the rows numpy scores at once, as ClassifierScore.__call__ slices them
        encoded = counter.codec.encode(values[k * rows : (k + 1) * rows])
        per_block[k] = [np.count_nonzero(indicator(encoded)) for _, indicator in counter.scored]
    counts[[index for index, _ in counter.scored]] += per_block.sum(axis=0)


def _integer_lookup(keys: np.ndarray) -> dict:
    """Direct code lookup for integer keys spanning few values (an empty table: binary search)."""
    low, high = int(keys[0]), int(keys[-1])
    if high - low + 1 > MAX_LOOKUP_SPAN:
        return {"lookup": np.zeros(0, np.int64), "low": 0, "high": -1}
    lookup = np.full(high - low + 1, -1, dtype=np.int64)
    lookup[keys.astype(np.int64) - low] = np.arange(len(keys))
    return {"lookup": lookup, "low": low, "high": high}


def compile_counter(codec, indicators) -> CompiledCounter | None:
    """The compiled form of ``indicators`` on outputs of ``codec``; None when none of them compiles.

    Parameters
    ----------
    codec : OutputCodec
        The audit's frozen code book.
    indicators : sequence of callable
        The frozen events' indicators (on outputs encoded by ``codec``).

    Returns
    -------
    CompiledCounter or None
    """
    program = _Program()
    rest = []
    if codec.kind == "real" and codec.storage in ("real", "int-real"):
        d = int(codec.dimension)
        doubles = codec.storage == "real"
        for index, indicator in enumerate(indicators):
            if not _add_real_event(program, index, indicator, d, doubles) and not _add_score_event(
                program, index, indicator, d, doubles
            ):
                rest.append(index)
        arrays = program.arrays()
        # scalar doubles whose code projections count_scalars reads (an exact value goes to count_real)
        kinds = set(arrays["projections"][:, 0].tolist())
        arrays["scalars"] = d == 1 and doubles and kinds <= {_COORDINATE, _LARGEST, _MANTISSA, _REACHABILITY}
    elif codec.kind == "discrete" and codec.storage in ("int", "bool") and codec._keys is not None:
        keys = np.asarray(codec._keys)
        if keys.size == 0 or keys.dtype.kind not in "bi":
            return None
        n = len(keys)
        program.projection(("code",), -1, n)
        for index, indicator in enumerate(indicators):
            weights = _code_weights(indicator, n)
            if weights is None:
                rest.append(index)
            else:
                program.code_event(index, 0, weights)
        arrays = program.arrays()
        keys = keys.view(np.uint8) if keys.dtype == np.bool_ else keys
        arrays.update(keys=keys, **_integer_lookup(keys))
    else:
        return None
    tested = tuple(index for _, _, index in program.tests)
    coded = tuple(program.code_events)
    scored = tuple((index, indicators[index]) for _, _, index in program.score_tests)
    if not tested and not coded and not scored:
        return None
    return CompiledCounter(codec, tested, coded, tuple(rest), arrays, scored)
