"""Compiled continual-release counters: the one implementation the banks and the bandit kernel share.

The counter banks of :mod:`algorithms.counters.banks` (vectorized over many counters) and the
compiled bandit policies of :mod:`algorithms.bandits.indices` (one counter per arm, inside a
numba run) both call the functions below, so each mechanism is written once:

``binary_step``
    one step of the binary mechanism (Chan, Shi, Song 2011, Algorithm 2); tree-based
    aggregation (Chen et al. 2020, Algorithm 3) is this step on every coordinate of a vector
    stream.
``hybrid_insert``
    one item of the hybrid mechanism (Chan, Shi, Song 2011, Section 4), incrementally: O(1)
    amortized per item.
``lemma1_max`` (with ``lemma1_coefficients`` / ``lemma1_mean_coefficients``)
    Tao et al. 2025, Lemma 1 for a sum of ``n`` iid Lap(b):
    ``P(|sum| > max{2b sqrt(2 n L), 4 b L}) <= delta`` with ``L = ln(2/delta)``, factored so
    that a caller evaluating it for many arms in one round computes the shared parts once.
``hybrid_bound_coefficients`` / ``hybrid_bound`` / ``hybrid_noise_bound``
    Lemma 1 applied to the two noise groups of the hybrid counter (union bound).

All functions work on caller-owned arrays, allocate nothing and draw no random numbers: the
Laplace noise comes in as an argument (the binary step takes the node's noise, the hybrid
insert a *standard* Laplace draw ``z`` that it scales by the current part's scale), so the banks
can draw it vectorized in numpy and the bandit kernel one draw at a time, with the same values.

Hybrid counter state (one row of ``state`` per counter; ``alpha``/``alpha_hat`` rows hold the
exact and noisy p-sums of the current binary phase, at least ``k + 2`` levels at count
``2^k <= n < 2^(k+1)``):

========== =====================================================================
column     meaning
========== =====================================================================
RELEASE    the logarithmic release at the last power of two
SINCE      the items added since that power of two (exact)
LEVEL      ``k`` with ``2^k <= n < 2^(k+1)``
START      ``2^k``
POPCOUNT   ``popcount(n - 2^k)``: number of binary noise terms in the output
BINARY     the binary mechanism's current output (sum of its live noisy p-sums)
========== =====================================================================

References
----------
.. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011. Algorithm 2 (binary mechanism) and Section 4 (hybrid mechanism).
.. [2] C. Dwork, M. Naor, T. Pitassi, G. N. Rothblum, "Differential Privacy under Continual
   Observation", STOC 2010 (tree-based aggregation).
.. [3] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025. Lemma 1.
.. [4] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 3.
"""

from __future__ import annotations

import numba
import numpy as np

__all__ = [
    "HYBRID_STATE_WIDTH",
    "RELEASE",
    "SINCE",
    "LEVEL",
    "START",
    "POPCOUNT",
    "BINARY",
    "binary_step",
    "hybrid_insert",
    "hybrid_output",
    "lemma1_max",
    "lemma1_coefficients",
    "lemma1_mean_coefficients",
    "lemma1_max_array",
    "hybrid_bound_coefficients",
    "hybrid_bound",
    "hybrid_noise_bound",
    "hybrid_noise_bound_array",
]

RELEASE, SINCE, LEVEL, START, POPCOUNT, BINARY = range(6)
HYBRID_STATE_WIDTH = 6


@numba.njit(cache=True, nogil=True, _nrt=False)
def binary_step(alpha, alpha_hat, c, t, x, noise):
    """One step of the binary mechanism for counter (row) ``c`` at its local time ``t >= 1``.

    Parameters
    ----------
    alpha, alpha_hat : float arrays (n_counters, L)
        Exact and noisy p-sums per level (``L = floor(log2 T) + 1`` for horizon ``T``).
    c : int
        The counter's row.
    t : int
        The counter's count after this item (1-based).
    x : float
        The item.
    noise : float
        The Laplace noise of the new p-sum (Lap(L * sensitivity / eps) in [1]_).

    Returns
    -------
    float
        The noisy prefix sum: the sum of the noisy p-sums of the set bits of ``t`` (the other
        levels hold exact zeros, so the sum runs over all levels).

    References
    ----------
    .. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM
       TISSEC 14(3), 2011. Algorithm 2.
    """
    i = 0
    while (t >> i) & 1 == 0:
        i += 1
    new = x
    for j in range(i):
        new += alpha[c, j]
        alpha[c, j] = 0.0
        alpha_hat[c, j] = 0.0
    alpha[c, i] = new
    alpha_hat[c, i] = new + noise
    total = 0.0
    for j in range(alpha_hat.shape[1]):
        total += alpha_hat[c, j]
    return total


@numba.njit(cache=True, nogil=True, _nrt=False)
def hybrid_insert(state, alpha, alpha_hat, c, n, x, z, epsilon):
    """Insert item ``x`` as the ``n``-th item of hybrid counter ``c``; return its noisy prefix sum.

    At ``n = 2^k`` the logarithmic part releases its previous release plus the items since,
    plus Lap(2/eps) (budget eps/2), and a new binary mechanism starts; otherwise item
    ``j = n - 2^k`` enters the binary mechanism of horizon ``2^k`` (``k + 1`` levels, budget
    eps/2, so Lap(2(k+1)/eps) per p-sum). The binary output is kept incrementally (the p-sums
    of bits ``0..i-1`` of ``j - 1`` leave it, the new one of bit ``i`` enters): amortized O(1).

    Parameters
    ----------
    state : float array (n_counters, HYBRID_STATE_WIDTH)
        See the module docstring; a zero row is a counter with no items.
    alpha, alpha_hat : float arrays (n_counters, >= k + 2)
        Exact and noisy p-sums of the current binary phase.
    c : int
        The counter's row.
    n : int
        The counter's count after this item (>= 1).
    x : float
        The item (in [0, 1] for the privacy claim).
    z : float
        A standard Laplace draw, Lap(1); it is scaled here by the part's scale.
    epsilon : float
        The counter's budget.

    Returns
    -------
    float
        ``state[c, RELEASE] + state[c, BINARY]``, the released noisy prefix sum.

    References
    ----------
    .. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM
       TISSEC 14(3), 2011. Section 4 (hybrid mechanism).
    """
    if (n & (n - 1)) == 0:  # power of two: logarithmic release, the binary mechanism restarts
        state[c, RELEASE] += state[c, SINCE] + x + z * (2.0 / epsilon)
        state[c, SINCE] = 0.0
        k = 0
        while (1 << (k + 1)) <= n:
            k += 1
        used = int(state[c, LEVEL]) + 2  # levels the previous phase may have written
        for lv in range(min(used, alpha.shape[1])):
            alpha[c, lv] = 0.0
            alpha_hat[c, lv] = 0.0
        state[c, LEVEL] = k
        state[c, START] = n
        state[c, POPCOUNT] = 0.0
        state[c, BINARY] = 0.0
        return state[c, RELEASE]
    state[c, SINCE] += x
    k = int(state[c, LEVEL])
    j = n - int(state[c, START])
    i = 0
    while ((j >> i) & 1) == 0:
        i += 1
    acc = x
    out = state[c, BINARY]
    for lv in range(i):
        acc += alpha[c, lv]
        out -= alpha_hat[c, lv]
        alpha[c, lv] = 0.0
        alpha_hat[c, lv] = 0.0
    alpha[c, i] = acc
    alpha_hat[c, i] = acc + z * (2.0 * (k + 1) / epsilon)
    out += alpha_hat[c, i]
    state[c, POPCOUNT] += 1.0 - i
    state[c, BINARY] = out
    return state[c, RELEASE] + out


@numba.njit(cache=True, nogil=True, _nrt=False)
def hybrid_output(state, c):
    """The current noisy prefix sum of hybrid counter ``c`` (0 before its first item)."""
    return state[c, RELEASE] + state[c, BINARY]


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def lemma1_max(sub_gaussian, sub_exponential, root, linear):
    """Tao et al. 2025, Lemma 1, as ``max{sub_gaussian * root, sub_exponential * linear}``.

    The lemma: for ``n`` iid Lap(b) and ``L = ln(2/delta)``, with probability at least
    ``1 - delta``, ``|sum| <= max{2b sqrt(2 n L), 4 b L}`` (equivalently
    ``|mean| <= max{2b sqrt(2L/n), 4bL/n}``). Callers factor it by what they hold fixed:

    * a sum at a given count: ``(sub_gaussian, sub_exponential) = lemma1_coefficients(n, b)``,
      ``root = sqrt(L)``, ``linear = L`` (one square root per round for many counters);
    * a mean at a given round: ``(sub_gaussian, sub_exponential) = lemma1_mean_coefficients(b, L)``,
      ``root = 1/sqrt(n)``, ``linear = 1/n`` (per-arm values the caller keeps).

    (:func:`algorithms.bandits.concentration.lemma1_bound` ``(n, b, delta)`` is the same lemma's
    mean form in closed form, for tests and tables.)

    References
    ----------
    .. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network
       Topology Optimization", ACM MobiArch workshop, 2025. Lemma 1.
    """
    return max(sub_gaussian * root, sub_exponential * linear)


@numba.njit(cache=True, nogil=True, _nrt=False)
def lemma1_coefficients(n, scale):
    """Sum-form factors of :func:`lemma1_max` for ``n`` iid Lap(``scale``): ``(2b sqrt(2n), 4b)``.

    ``(0, 0)`` for ``n <= 0`` (an empty sum is 0).
    """
    if n <= 0:
        return 0.0, 0.0
    return 2.0 * scale * np.sqrt(2.0 * n), 4.0 * scale


@numba.njit(cache=True, nogil=True, _nrt=False)
def lemma1_mean_coefficients(scale, log_term):
    """Mean-form factors of :func:`lemma1_max` for Lap(``scale``) at ``L = log_term``: ``(2b sqrt(2L), 4bL)``."""
    return 2.0 * scale * np.sqrt(2.0 * log_term), 4.0 * scale * log_term


@numba.njit(cache=True, nogil=True)
def lemma1_max_array(n, scale, log_term, out):
    """:func:`lemma1_max` elementwise over equal-length 1-D arrays (``out`` receives it)."""
    for i in range(out.shape[0]):
        c, d = lemma1_coefficients(n[i], scale[i])
        out[i] = lemma1_max(c, d, np.sqrt(log_term[i]), log_term[i])


@numba.njit(cache=True, nogil=True, _nrt=False)
def hybrid_bound_coefficients(k, popcount, epsilon):
    """Lemma 1 coefficients of the two noise groups of a hybrid counter at count ``2^k + j``.

    The noise is ``k + 1`` iid Lap(2/eps) (logarithmic part) plus ``popcount(j)`` iid
    Lap(2(k+1)/eps) (binary part). Returns ``(c_log, d_log, c_bin, d_bin)``; ``d_bin = 0``
    exactly when there is no binary noise (``j = 0``, a power of two).
    """
    c_log, d_log = lemma1_coefficients(k + 1.0, 2.0 / epsilon)
    c_bin, d_bin = lemma1_coefficients(popcount, 2.0 * (k + 1.0) / epsilon)
    return c_log, d_log, c_bin, d_bin


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def hybrid_bound(c_log, d_log, c_bin, d_bin, log_full, sqrt_full, log_half, sqrt_half):
    """Bound on a hybrid counter's noise holding with probability ``>= 1 - delta``.

    **Choice** (Tao et al. 2025 leave it open): Lemma 1 on each noise group at ``delta / 2``
    (``log_half = ln(4/delta)``), union bound; at a power of two there is one group and Lemma 1
    is applied at ``delta`` (``log_full = ln(2/delta)``). ``sqrt_*`` are the square roots.
    """
    if d_bin == 0.0:
        return lemma1_max(c_log, d_log, sqrt_full, log_full)
    return lemma1_max(c_log, d_log, sqrt_half, log_half) + lemma1_max(c_bin, d_bin, sqrt_half, log_half)


@numba.njit(cache=True, nogil=True, _nrt=False)
def hybrid_noise_bound(count, epsilon, log_full, log_half):
    """:func:`hybrid_bound` at ``count`` items (0 for ``count <= 0``).

    Parameters
    ----------
    count : int
    epsilon : float
        The counter's budget.
    log_full, log_half : float
        ``ln(2/delta)`` and ``ln(4/delta)``.
    """
    if count <= 0:
        return 0.0
    k = 0
    while (1 << (k + 1)) <= count:
        k += 1
    j = count - (1 << k)
    pc = 0
    while j > 0:
        pc += j & 1
        j >>= 1
    c_log, d_log, c_bin, d_bin = hybrid_bound_coefficients(float(k), float(pc), epsilon)
    return hybrid_bound(c_log, d_log, c_bin, d_bin, log_full, np.sqrt(log_full), log_half, np.sqrt(log_half))


@numba.njit(cache=True, nogil=True)
def hybrid_noise_bound_array(count, epsilon, log_full, log_half, out):
    """:func:`hybrid_noise_bound` elementwise over equal-length 1-D arrays."""
    for i in range(out.shape[0]):
        out[i] = hybrid_noise_bound(count[i], epsilon, log_full[i], log_half[i])
