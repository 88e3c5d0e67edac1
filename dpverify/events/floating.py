"""Events that see floating-point leaks (Mironov 2012) in real outputs.

A textbook ``x + numpy.random.laplace(scale)`` is not differentially private
on doubles: the rounding of ``x + Z`` leaves marks in the low bits of the
output, and some outputs are reachable from one input and not from the other
(Mironov 2012; with scale 10 and inputs 0 vs 1, outputs in
[0.25, 0.5) with an odd last mantissa bit occur about 0.5% of the time from 0
and never from 1). Value histograms and thresholds cannot see this; the two
families here can, and the certified bound then grows like ``ln(n)`` with the
sample size ``n`` because the event has probability 0 under the other input.

``mantissa`` (no knowledge of the inputs)
    Each scalar output is coded by its sign, binade (exponent) and the number
    of trailing zero bits of its mantissa (capped at :data:`MAX_TRAILING_ZEROS`);
    candidate events are the estimated likelihood-ratio level sets over these
    codes (the level sets of :mod:`dpverify.events.discrete`). A rounded sum ``fl(1 + z)``
    landing in [0.25, 0.5) always has an even last bit: its code
    ``(+, [0.25, 0.5), 0 trailing zeros)`` is never produced from input 1.
``reachability`` (uses the audited inputs)
    Whether ``y - x`` and ``y - x'`` are exactly representable (an error-free
    transformation, TwoSum, decides it). An additive-noise output
    ``y = fl(o + z)`` with ``|z|`` of the order of ``|o|`` has ``y - o`` exact
    (Sterbenz), so ``{y : y - x' is not exact}`` is (nearly) impossible from
    ``x'`` and common from ``x``. This is the question "is ``y - x`` an output
    of the noise sampler from the other input?" asked of every output.

Both families are ordinary candidate families: the audit selects one event on
the selection split and certifies it on fresh samples, so they cannot raise
the false-alarm rate above ``alpha``; on a mechanism whose outputs carry no
such marks (a discrete mechanism, Mironov's snapping mechanism, noise rounded
to a coarse grid) every code has the same likelihood ratio structure as the
value itself and nothing is certified beyond the true loss.

References
----------
I. Mironov, "On significance of the least significant bits for differential
privacy", CCS 2012 (Section 3: the attack; Section 5: the snapping mechanism).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from ..support import arrays
from . import _float_kernels
from .candidates import Candidates, CodeBook, relabel
from .discrete import level_set_events, level_sets_of_counts

__all__ = [
    "FLOATING_FAMILIES",
    "MAX_TRAILING_ZEROS",
    "binade",
    "trailing_zero_bits",
    "difference_is_exact",
    "mantissa_codes",
    "mantissa_events",
    "reachability_events",
]

#: Names of the families registered here (pass the others to ``audit(event_families=...)``
#: to audit the value distribution alone).
FLOATING_FAMILIES = ("mantissa", "reachability")
#: Trailing-zero counts above this are pooled into one class.
MAX_TRAILING_ZEROS = 3
#: Binades more than this many below the largest seen are pooled (values near 0).
BINADE_SPAN = 64


def binade(values: np.ndarray) -> np.ndarray:
    """The biased exponent field of float64 ``values`` (0 for 0 and subnormals)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    return ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)


def trailing_zero_bits(values: np.ndarray) -> np.ndarray:
    """Number of trailing zero bits of the 52-bit mantissa field (52 for a zero field)."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    mantissa = bits & np.uint64((1 << 52) - 1)
    lowest = mantissa & (~mantissa + np.uint64(1))  # lowest set bit (0 when mantissa is 0)
    if hasattr(np, "bitwise_count"):  # numpy >= 2: popcount of the bits below the lowest set bit
        # (for a zero mantissa, lowest - 1 wraps to 64 ones: capped at 52). Same values, ~7x faster.
        return np.minimum(np.bitwise_count(lowest - np.uint64(1)), 52).astype(np.int64)
    out = np.full(mantissa.shape, 52, dtype=np.int64)
    nonzero = lowest != 0
    out[nonzero] = np.log2(lowest[nonzero].astype(np.float64)).astype(np.int64)
    return out


def difference_is_exact(y: np.ndarray, o) -> np.ndarray:
    """Whether ``y - o`` is exactly representable in float64 (elementwise).

    Knuth's TwoSum: ``s = fl(y - o)`` and its rounding error ``e`` satisfy
    ``s + e = y - o`` exactly, so the difference is exact iff ``e == 0``.
    Infinite values count as not exact.
    """
    y = np.asarray(y, dtype=np.float64)
    c = -np.asarray(o, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        s = y + c
        bb = s - y
        err = (y - (s - bb)) + (c - bb)
        return np.isfinite(s) & (err == 0)


def mantissa_codes(values: np.ndarray, top_binade: int) -> np.ndarray:
    """Integer code of (sign, binade, min(trailing zeros, MAX_TRAILING_ZEROS)) per value.

    Binades below ``top_binade - BINADE_SPAN`` are pooled into one. Read from the bit pattern
    by two table lookups: the sign and exponent fields (12 bits) give the first part of the
    code, the last :data:`MAX_TRAILING_ZEROS` bits the trailing-zero class.
    """
    return _codes_of_fields(*_bit_fields(values), top_binade, np.int64)


def _bit_fields(values) -> tuple[np.ndarray, np.ndarray]:
    """The sign and exponent fields (uint16) and the last MAX_TRAILING_ZEROS bits (uint8) of float64 values."""
    bits = np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)
    head = (bits >> np.uint64(52)).astype(np.uint16)
    low = (bits & np.uint64((1 << MAX_TRAILING_ZEROS) - 1)).astype(np.uint8)
    return head, low


def _codes_of_fields(head, low, top_binade: int, dtype) -> np.ndarray:
    """:func:`mantissa_codes` from :func:`_bit_fields`, as integers of ``dtype``."""
    return _head_codes(top_binade).astype(dtype)[head] + _LOW_BITS_CODES.astype(dtype)[low]


def _head_codes(top_binade: int) -> np.ndarray:
    """``(sign * (BINADE_SPAN + 2) + binade class) * (MAX_TRAILING_ZEROS + 1)`` per sign and exponent field."""
    field = np.arange(1 << 12, dtype=np.int64)
    sign, exponent = field >> 11, field & 0x7FF
    e = np.clip(exponent - (top_binade - BINADE_SPAN), 0, BINADE_SPAN + 1)
    return (sign * (BINADE_SPAN + 2) + e) * (MAX_TRAILING_ZEROS + 1)


#: min(trailing zero bits, MAX_TRAILING_ZEROS) of a mantissa by its last MAX_TRAILING_ZEROS bits (all zero: the cap).
_LOW_BITS_CODES = np.minimum(
    trailing_zero_bits(np.arange(1 << MAX_TRAILING_ZEROS, dtype=np.uint64).view(np.float64)), MAX_TRAILING_ZEROS
)


def mantissa_codes_on(values, top_binade: int, xp):
    """:func:`mantissa_codes` with the array library ``xp``, by exact float64 arithmetic.

    No bit casts (the array API standard has none): the binade comes from
    ``log2`` corrected by exact powers of two, and ``min(trailing zeros, 3)``
    from the integer mantissa ``|y| / 2**e * 2**52 mod 2**k`` (dividing by a
    power of two, subtracting 1 from a value in [1, 2) and multiplying by
    2**52 are exact in float64). Equal to :func:`mantissa_codes` on every
    double (tested, subnormals, zeros and infinities included).
    """
    with np.errstate(over="ignore", invalid="ignore"):  # array libraries built on numpy
        return _mantissa_codes_on(values, top_binade, xp)


def _mantissa_codes_on(values, top_binade: int, xp):
    f64 = xp.float64
    a = xp.abs(values)
    finite = xp.isfinite(a)
    normal = finite & (a >= 2.0**-1022)
    safe = xp.where(normal, a, xp.ones_like(a))
    e = xp.floor(xp.log2(safe))
    e = xp.where(xp.pow(2.0, e) > safe, e - 1, e)
    e = xp.where(xp.pow(2.0, e + 1) <= safe, e + 1, e)
    biased = xp.where(normal, e + 1023, xp.where(finite, xp.zeros_like(a), xp.full_like(a, 2047.0)))
    # the mantissa field as an integer (exactly representable: < 2**52)
    field = xp.where(
        normal, (safe / xp.pow(2.0, e) - 1.0) * 2.0**52, xp.where(finite, (a * 2.0**537) * 2.0**537, xp.zeros_like(a))
    )
    tz = xp.zeros_like(a)
    for k in range(1, MAX_TRAILING_ZEROS + 1):
        tz = tz + arrays.astype(xp.remainder(field, 2.0**k) == 0, f64, xp)
    sign = arrays.astype(xp.signbit(values), f64, xp)
    e_code = arrays.clip(biased - (top_binade - BINADE_SPAN), 0, BINADE_SPAN + 1, xp)
    code = (sign * (BINADE_SPAN + 2) + e_code) * (MAX_TRAILING_ZEROS + 1) + tz
    return arrays.astype(code, xp.int64, xp)


def _describe_code(code: int, top_binade: int) -> str:
    tz = code % (MAX_TRAILING_ZEROS + 1)
    rest = code // (MAX_TRAILING_ZEROS + 1)
    sign, e = divmod(rest, BINADE_SPAN + 2)
    exponent = e + top_binade - BINADE_SPAN - 1023
    tz_text = f">= {MAX_TRAILING_ZEROS}" if tz == MAX_TRAILING_ZEROS else f"= {tz}"
    where = f"|y| in [2^{exponent}, 2^{exponent + 1})" if e > 0 else f"|y| < 2^{exponent + 1}"
    return f"({'-' if sign else '+'}, {where}, trailing zero bits {tz_text})"


def _scalar_real(outputs, sel_x) -> bool:
    return outputs.kind == "real" and sel_x.ndim == 2 and sel_x.shape[1] == 1


def _integers(outputs) -> bool:
    """Integer outputs audited by value carry no rounding marks."""
    return getattr(outputs, "storage", "real") == "int-real"


def mantissa_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Level sets over (sign, binade, trailing zeros) codes of scalar real outputs.

    Parameters
    ----------
    sel_x, sel_x_prime : numpy.ndarray
        Selection samples, float arrays of shape (n, 1).
    outputs : EncodedOutputs
        Only its kind is used; vectors and discrete outputs give no events.

    Returns
    -------
    Candidates
        Family ``"mantissa"``: for each k, the k codes most in favour of x
        (and of x'), ranked by the estimated ratio (Mironov 2012, Section 3).
    """
    if not _scalar_real(outputs, sel_x) or _integers(outputs):
        return Candidates.empty("needs scalar floating-point outputs")
    if _compiled(sel_x, sel_x_prime):
        return _mantissa_events_compiled(sel_x, sel_x_prime)
    head, low = _bit_fields(np.concatenate([sel_x[:, 0], sel_x_prime[:, 0]]))  # both groups at once
    exponent = head & np.uint16(0x7FF)
    finite = exponent != 0x7FF  # not inf (nor NaN)
    if not finite.any():
        return Candidates.empty()
    top = int(np.max(exponent, where=finite, initial=0))  # the binade of the largest finite |value|
    codes = _codes_of_fields(head, low, top, np.int16)  # mantissa_codes (at most 2 * 66 * 4 codes)
    seen = np.flatnonzero(np.bincount(codes[finite], minlength=1))  # the distinct codes, sorted
    if seen.size < 2:
        return Candidates.empty("the outputs show a single (sign, binade, trailing zeros) code")

    lookup, encode, view = _mantissa_coder(seen, top)
    dense = lookup[codes]  # encode(sel_x), encode(sel_x_prime), as one array
    found = level_set_events(dense[: len(sel_x)], dense[len(sel_x) :], view)
    return relabel(found, encode, "mantissa", "mantissa code")


def _mantissa_coder(seen: np.ndarray, top: int):
    """The dense index of each mantissa code (-1 for codes not seen during selection), its encoder and the
    codes' descriptions, for the sorted distinct codes ``seen`` under the largest finite binade ``top``.

    A table lookup: codes lie in [0, 2 (BINADE_SPAN + 2) (MAX_TRAILING_ZEROS + 1)).
    """
    lookup = np.full(2 * (BINADE_SPAN + 2) * (MAX_TRAILING_ZEROS + 1), -1, dtype=np.int64)
    lookup[seen] = np.arange(seen.size, dtype=np.int64)
    return lookup, MantissaCoder(lookup, top), CodeBook([_describe_code(int(c), top) for c in seen])


def _compiled(sel_x, sel_x_prime) -> bool:
    """Whether the selection counts go to :mod:`._float_kernels` (large selections of doubles: rows times
    coordinates, numpy's cost)."""
    width = sel_x.shape[1] if sel_x.ndim == 2 else 1
    return (
        (len(sel_x) + len(sel_x_prime)) * width >= _float_kernels.MIN_COMPILED_SELECTION
        and sel_x.dtype == np.float64
        and sel_x_prime.dtype == np.float64
    )


def _half_counts(kernel, *arguments, group, shape):
    """``kernel(group, ..., split, counts)``'s counts of the two halves of ``group`` (split at len // 2)."""
    counts = np.zeros(shape, dtype=np.int64)
    kernel(group, *arguments, len(group) // 2, counts)
    return counts


def _mantissa_events_compiled(sel_x, sel_x_prime) -> Candidates:
    """:func:`mantissa_events` from the bit-field histograms of :func:`._float_kernels.bit_field_counts`.

    Each bin (sign and exponent field, last :data:`MAX_TRAILING_ZEROS` bits) has one mantissa code
    once the largest finite binade is known, so the code counts of each half are sums of bins.
    """
    shape = (2, 1 << _float_kernels.FIELD_BITS)
    fields = [
        _half_counts(_float_kernels.bit_field_counts, group=np.ascontiguousarray(g[:, 0]).view(np.uint64), shape=shape)
        for g in (sel_x, sel_x_prime)
    ]
    field = np.arange(shape[1], dtype=np.int64)
    head, low = field >> _float_kernels.LOW_BITS, field & ((1 << MAX_TRAILING_ZEROS) - 1)
    exponent = head & 0x7FF
    occurs = (fields[0].sum(axis=0) + fields[1].sum(axis=0)) > 0
    finite = occurs & (exponent != 0x7FF)
    if not finite.any():
        return Candidates.empty()
    top = int(exponent[finite].max())
    codes = _codes_of_fields(head, low, top, np.int64)  # the mantissa code of each bin
    seen = np.unique(codes[finite])
    if seen.size < 2:
        return Candidates.empty("the outputs show a single (sign, binade, trailing zeros) code")
    lookup, encode, view = _mantissa_coder(seen, top)
    dense = lookup[codes]
    known = dense >= 0  # codes of infinities and NaN were never seen among finite outputs
    halves = [
        tuple(np.bincount(dense[known], weights=part[known], minlength=seen.size).astype(np.int64) for part in f)
        for f in fields
    ]
    found = level_sets_of_counts(halves[0], halves[1], len(sel_x), len(sel_x_prime), view.labels)
    return relabel(found, encode, "mantissa", "mantissa code")


@dataclass(frozen=True, eq=False)
class MantissaCoder:
    """Dense code of :func:`mantissa_codes` among those seen in selection (-1 otherwise)."""

    lookup: np.ndarray
    top_binade: int

    def __call__(self, group):
        return self.lookup[mantissa_codes(group[:, 0], self.top_binade)]

    array_ready = True

    def on(self, group, xp):
        codes = mantissa_codes_on(group[:, 0], self.top_binade, xp)
        return xp.take(arrays.asarray_like(self.lookup, group, xp), codes)

    def counted_as(self):
        return ("mantissa", self.lookup, self.top_binade)


@dataclass(frozen=True, eq=False)
class ReachabilityCoder:
    """``2 * [y - x exact] + [y - x' exact]`` per output (all coordinates)."""

    x: np.ndarray
    x_prime: np.ndarray

    def __call__(self, group):
        exact_x = difference_is_exact(group, self.x).all(axis=1)
        exact_xp = difference_is_exact(group, self.x_prime).all(axis=1)
        return exact_x.astype(np.int64) * 2 + exact_xp.astype(np.int64)

    array_ready = True

    def on(self, group, xp):
        exact_x = xp.all(_difference_is_exact_on(group, self.x, xp), axis=1)
        exact_xp = xp.all(_difference_is_exact_on(group, self.x_prime, xp), axis=1)
        return arrays.astype(exact_x, xp.int64, xp) * 2 + arrays.astype(exact_xp, xp.int64, xp)

    def counted_as(self):
        return ("reachability", self.x, self.x_prime)


def _difference_is_exact_on(y, o, xp):
    """:func:`difference_is_exact` with the functions of the array library ``xp``."""
    c = -arrays.asarray_like(np.asarray(o, dtype=np.float64), y, xp)
    s = y + c
    bb = s - y
    err = (y - (s - bb)) + (c - bb)
    return xp.isfinite(s) & (err == 0)


def _real_input(value, d: int):
    """``value`` as a float array broadcastable against (n, d) outputs, or None."""
    if isinstance(value, bool) or isinstance(value, np.bool_):
        return None
    if isinstance(value, numbers.Real):
        return np.array([float(value)]) if d == 1 else None
    try:
        arr = np.asarray(value)
    except Exception:
        return None
    if arr.dtype.kind not in "fiu" or arr.ndim != 1 or arr.shape[0] != d:
        return None
    return arr.astype(np.float64)


def reachability_events(sel_x, sel_x_prime, outputs, inputs=None) -> Candidates:
    """Events on whether ``y - x`` and ``y - x'`` are exactly representable.

    For real outputs of the same dimension as real inputs (additive-noise
    mechanisms), each output is coded by ``(all coordinates of y - x exact,
    all coordinates of y - x' exact)``; candidates are the level sets over
    these four cells, e.g. ``{y : y - x' is not exact}`` ("y is not reachable
    by adding a double to x'"). No events when the inputs are unknown or not
    real scalars/vectors matching the output dimension.
    """
    if _integers(outputs):
        return Candidates.empty("integer outputs carry no rounding marks")
    if inputs is None or outputs.kind != "real" or sel_x.ndim != 2:
        return Candidates.empty("needs the audited inputs (not known here)")
    d = sel_x.shape[1]
    x, x_prime = (_real_input(v, d) for v in inputs)
    if x is None or x_prime is None or np.array_equal(x, x_prime):
        return Candidates.empty(
            f"needs real scalar or vector inputs of the output's dimension ({d}); the audited inputs are not"
        )

    encode = ReachabilityCoder(x, x_prime)
    names = [
        "y - x and y - x' both inexact",
        "y - x inexact, y - x' exact (reachable from x' only)",
        "y - x exact, y - x' inexact (reachable from x only)",
        "y - x and y - x' both exact",
    ]
    view = CodeBook(names)
    if _compiled(sel_x, sel_x_prime):
        halves = [
            tuple(
                _half_counts(
                    _float_kernels.reachability_counts, x, x_prime, group=np.ascontiguousarray(g), shape=(2, 4)
                )
            )
            for g in (sel_x, sel_x_prime)
        ]
        found = level_sets_of_counts(halves[0], halves[1], len(sel_x), len(sel_x_prime), names)
    else:
        found = level_set_events(encode(sel_x), encode(sel_x_prime), view)
    if not found.events:
        return Candidates.empty("every output falls in one reachability cell (no rounding marks)")
    return relabel(found, encode, "reachability", "reachability code")
