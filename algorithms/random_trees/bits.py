"""Bit-level randomized response on integer edge weights (DP-RST 2025, Sections 4.1-4.3).

An integer weight ``0 < w < k`` is written with ``l = ceil(log2 k)`` bits
(Definition 4.1); each bit is kept with probability ``t = e^epsilon0 / (e^epsilon0 + 1)``
and flipped otherwise (Definition 3.10, Algorithm 4 lines 5-8); the noisy weight
is ``w~ = sum_i 2^i b~_i`` (Definition 4.3). Everything here works on plain
integer arrays; the exact probability mass function of a noisy weight is
``P[w~ = y] = t^(l - h) (1 - t)^h`` with ``h`` the Hamming distance of the bit
patterns of ``w`` and ``y``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from algorithms._validation import check_epsilon
from algorithms.errors import InvalidWeightsError

__all__ = [
    "MAX_WEIGHT_BOUND",
    "bit_count",
    "keep_probability",
    "validate_weight_bound",
    "validate_bit_epsilon",
    "validate_integer_weights",
    "decompose_bits",
    "randomized_response_bits",
    "reconstruct_weights",
    "perturb_weights",
    "perturb_weights_batch",
    "noisy_weight_pmf",
    "noisy_weight_pmf_dict",
    "probability_exact_reconstruction",
    "hamming_distance",
]


#: Largest weight bound accepted: with ``k <= 2**63`` every ``l = ceil(log2 k) <= 63``-bit noisy
#: weight is at most ``2**63 - 1`` and fits the int64 arrays the pipeline computes with; a
#: larger ``k`` would need a 64th bit, ``2**63``, which wraps to a negative int64 weight.
MAX_WEIGHT_BOUND = 2**63


def validate_weight_bound(k) -> int:
    """Return ``k`` as an int after checking it is an integer with ``2 <= k <= 2**63``.

    Raises
    ------
    InvalidWeightsError
        If ``k`` is not an integer, ``k < 2`` (weights ``0 < w < k`` need ``k >= 2``) or
        ``k > 2**63`` (:data:`MAX_WEIGHT_BOUND`: noisy weights of ``l = 64`` or more bits
        do not fit int64 and would wrap into negative weights).
    """
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        if isinstance(k, numbers.Real) and float(k).is_integer():
            k = int(k)
        else:
            raise InvalidWeightsError(
                f"the weight bound k must be an integer >= 2 (weights satisfy 0 < w < k), got {k!r}"
            )
    k = int(k)
    if k < 2:
        raise InvalidWeightsError(f"the weight bound k must be an integer >= 2 (weights satisfy 0 < w < k), got {k}")
    if k > MAX_WEIGHT_BOUND:
        raise InvalidWeightsError(
            f"the weight bound k must be at most 2**63 = {MAX_WEIGHT_BOUND} (noisy weights have "
            f"l = ceil(log2 k) bits and must fit a signed 64-bit integer), got k = {k} "
            f"(l = {(k - 1).bit_length()} bits)"
        )
    return k


def bit_count(k) -> int:
    """Number of bits ``l = ceil(log2 k)`` of a weight ``0 < w < k`` (DP-RST 2025, Definition 4.1).

    Computed exactly with integers: ``(k - 1).bit_length()``, which equals
    ``ceil(log2 k)`` for every integer ``k >= 2``.
    """
    k = validate_weight_bound(k)
    return (k - 1).bit_length()


def validate_bit_epsilon(epsilon0) -> float:
    """Return ``epsilon0`` as a float after checking ``0 < epsilon0 < inf``.

    Raises
    ------
    InvalidPrivacyParameterError
        If ``epsilon0`` is not a finite number > 0. (DP-RST 2025 allows ``epsilon0 >= 0``;
        ``epsilon0 = 0`` makes every bit a fair coin and the output independent of the
        data, which this implementation rejects as a likely mistake.)
    """
    return check_epsilon(epsilon0, "epsilon0")


def keep_probability(epsilon0) -> float:
    """Probability ``t = e^epsilon0 / (e^epsilon0 + 1)`` that a bit is kept (DP-RST 2025, Definition 5.1)."""
    epsilon0 = validate_bit_epsilon(epsilon0)
    return 1.0 / (1.0 + math.exp(-epsilon0))


def validate_integer_weights(weights, k) -> np.ndarray:
    """Return ``weights`` as a 1-D int64 array after checking ``0 < w < k`` and integrality.

    Parameters
    ----------
    weights : array_like
        Edge weights; integer dtype, or floats that are exact integers.
    k : int
        Exclusive upper bound, ``k >= 2``.

    Raises
    ------
    InvalidWeightsError
        On a non-1-D array, non-numeric, NaN/inf, non-integer, ``w <= 0`` or ``w >= k``
        entries; the message names the first offending edge index and value.
    """
    k = validate_weight_bound(k)
    arr = np.asarray(weights)
    if arr.ndim != 1:
        raise InvalidWeightsError(f"weights must be a 1-D array (one per edge), got shape {arr.shape}")
    if arr.dtype == bool or not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise InvalidWeightsError(f"weights must be integers with 0 < w < k = {k}, got dtype {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating):
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InvalidWeightsError(f"weights must be integers with 0 < w < k = {k}; edge {i} has weight {arr[i]!r}")
    if arr.size and (arr.min() <= 0 or arr.max() >= k):
        bad = (arr <= 0) | (arr >= k)
        i = int(np.flatnonzero(bad)[0])
        raise InvalidWeightsError(f"weights must be integers with 0 < w < k = {k}; edge {i} has weight {arr[i]!r}")
    return arr.astype(np.int64)


def decompose_bits(weights, l: int) -> np.ndarray:
    """Bits ``b_i(e)``, shape ``(..., l)``, with ``w = sum_i 2^i b_i`` (DP-RST 2025, Definition 4.1).

    Column ``i`` holds bit ``i`` (least significant first).
    """
    arr = np.asarray(weights, dtype=np.int64)
    shifts = np.arange(l, dtype=np.int64)
    return ((arr[..., None] >> shifts) & 1).astype(np.uint8)


def reconstruct_weights(bits) -> np.ndarray:
    """Weights ``sum_i 2^i b_i`` from bits of shape ``(..., l)`` (DP-RST 2025, Definition 4.3)."""
    b = np.asarray(bits, dtype=np.int64)
    powers = np.left_shift(np.int64(1), np.arange(b.shape[-1], dtype=np.int64))
    return b @ powers


def randomized_response_bits(bits, epsilon0, rng=None) -> np.ndarray:
    """Keep each bit with probability ``e^epsilon0/(e^epsilon0+1)``, flip it otherwise (DP-RST 2025, Definition 3.10).

    Parameters
    ----------
    bits : array_like of {0, 1}
    epsilon0 : float
        Per-bit privacy parameter, ``> 0``.
    rng : None, int, SeedSequence or Generator
    """
    t = keep_probability(epsilon0)
    rng = np.random.default_rng(rng)
    b = np.asarray(bits, dtype=np.uint8)
    flips = rng.random(b.shape) >= t
    return b ^ flips.astype(np.uint8)


def perturb_weights(weights, k, epsilon0, rng=None) -> np.ndarray:
    """Noisy weights ``w~`` of DP-RST 2025, Algorithm 4 lines 2-9 (one draw per edge).

    Validates ``0 < w < k`` (integers), ``k >= 2`` and ``epsilon0 > 0``; returns an
    int64 array of values in ``[0, 2^l - 1]``. A noisy weight can be ``0`` (the
    edge becomes unusable) and can exceed ``k - 1`` (all ``l``-bit patterns occur).

    References
    ----------
    .. [1] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Algorithm 4 lines 2-9, Definitions 3.10 and 4.1.
    """
    return perturb_weights_batch(weights, k, epsilon0, None, rng)


def perturb_weights_batch(weights, k, epsilon0, size, rng=None) -> np.ndarray:
    """``size`` independent noisy weight vectors, shape ``(size, m)`` (or ``(m,)`` if size is None).

    Vectorized form of :func:`perturb_weights`: the bit flips of all draws are one
    Bernoulli array, equivalently a per-bit XOR mask.
    """
    w = validate_integer_weights(weights, k)
    epsilon0 = validate_bit_epsilon(epsilon0)
    l = bit_count(k)
    t = keep_probability(epsilon0)
    rng = np.random.default_rng(rng)
    shape = (l, w.size) if size is None else (int(size), l, w.size)
    flips = rng.random(shape) >= t
    powers = np.left_shift(np.int64(1), np.arange(l, dtype=np.int64))
    mask = np.tensordot(flips.astype(np.int64), powers, axes=([-2], [0]))
    return w ^ mask


def hamming_distance(a, b) -> np.ndarray:
    """Number of differing bits of non-negative integers ``a`` and ``b`` (broadcast)."""
    x = np.bitwise_xor(np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64))
    count = np.zeros(x.shape, dtype=np.int64)
    while np.any(x):
        count += x & 1
        x = x >> 1
    return count


def noisy_weight_pmf(w, k, epsilon0) -> np.ndarray:
    """Exact pmf of the noisy weight of one edge: entry ``y`` is ``P[w~ = y]``, ``y < 2^l``.

    ``P[w~ = y] = t^(l - h) (1 - t)^h``, ``h`` = Hamming distance of ``w`` and ``y``
    (the ``l`` bits are flipped independently; DP-RST 2025, Algorithm 4).
    """
    w = int(validate_integer_weights([w], k)[0])
    l = bit_count(k)
    epsilon0 = validate_bit_epsilon(epsilon0)
    h = hamming_distance(w, np.arange(2**l))
    # log space, from epsilon0 directly: log t = -log1p(e^-eps0), log(1 - t) = -eps0 + log t. Forming
    # 1 - t from t would lose digits for large epsilon0 (0.1% at 30) and fail once t rounds to 1 (37).
    log_t = -math.log1p(math.exp(-epsilon0))
    log_p = (l - h) * log_t + h * (log_t - epsilon0)
    return np.exp(log_p)


def noisy_weight_pmf_dict(w, k, epsilon0) -> dict[int, float]:
    """:func:`noisy_weight_pmf` as a dict ``{y: P[w~ = y]}`` (the form dpverify takes)."""
    return {int(y): float(p) for y, p in enumerate(noisy_weight_pmf(w, k, epsilon0))}


def probability_exact_reconstruction(k, epsilon0) -> float:
    """``P[w~(e) = w(e)] = t^l`` (DP-RST 2025, Lemma 5.2 / Lemma B.1)."""
    return keep_probability(epsilon0) ** bit_count(k)
