"""OMM and its private versions DP-OMM and LDP-OMM, compiled (Kveton et al. 2014; Tao et al. 2025).

Each policy's index is ``J_t(e) = (estimate) + sqrt(2 ln t / T_e) (+ a privacy term)``; an
unplayed arm's index is +inf. The formulas and the choices are documented in
:mod:`algorithms.bandits.policies`; the functions' contract in
:mod:`algorithms.bandits.indices.common`.

DP-OMM keeps one hybrid counter per arm: the counters package's compiled
:func:`~algorithms.counters.compiled.hybrid_insert`, and the bound on its noise is
:func:`~algorithms.counters.compiled.hybrid_bound` (Lemma 1 on each noise group).
LDP-OMM's privacy term is the same Lemma 1 (:func:`~algorithms.counters.compiled.lemma1_max`)
in its mean form.

References
----------
.. [1] B. Kveton, Z. Wen, A. Ashkan, H. Eydgahi, B. Eriksson, "Matroid Bandits: Fast Combinatorial
   Optimization with Learning", UAI 2014 (OMM).
.. [2] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025. Algorithm 1 (DP-OMM), Algorithm 2 (LDP-OMM),
   Lemma 1.
.. [3] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011 (the hybrid counter).
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.bandits.indices.common import (
    MEAN_FIELDS,
    PolicyKernel,
    mean_arrays,
    observe_mean,
    policy_state,
    reset_means,
    state_class,
    zero_arrays,
)
from algorithms.counters.compiled import (
    HYBRID_STATE_WIDTH,
    LEVEL,
    POPCOUNT,
    hybrid_bound,
    hybrid_bound_coefficients,
    hybrid_insert,
    hybrid_noise_bound,
    lemma1_max,
    lemma1_mean_coefficients,
)

__all__ = [
    "OMM_KERNEL",
    "DP_OMM_KERNEL",
    "LDP_OMM_KERNEL",
    "MAX_LEVELS",
    "dp_omm_noise_bound",
    "hybrid_counter_outputs",
    "hybrid_counter_batch",
]

#: Levels of each arm's hybrid counter: enough for 2^47 observations.
MAX_LEVELS = 48

# ---- OMM (Kveton et al. 2014) ------------------------------------------------------------------

OMMState, omm_state = policy_state("OMMState", MEAN_FIELDS, mean_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def omm_index(s, t, J, rng_pol):
    """OMM: ``J = mu^_e + sqrt(2 ln t / T_e)`` (+inf while ``T_e = 0``: ``mean_n`` is +inf, ``isq_n`` 0)."""
    r = np.sqrt(2.0 * np.log(t))
    for e in range(J.shape[0]):
        J[e] = s.mean_n[e] + r * s.isq_n[e]


@numba.njit(cache=True, nogil=True, _nrt=False)
def omm_update(s, t, basis, xs, k_taken, rng_pol):
    """OMM: each played arm's observation enters its empirical mean."""
    for q in range(k_taken):
        observe_mean(s, basis[q], xs[q])


OMM_KERNEL = PolicyKernel("OMM", OMMState, omm_state, reset_means, omm_index, omm_update, False)

# ---- DP-OMM (Tao et al. 2025, Algorithm 1) -----------------------------------------------------

DPOMMState = state_class(
    "DPOMMState", ["counts", "hybrid", "alpha", "alpha_hat", "noisy_sum", "bound", "inv_n", "isq_n"], __name__
)


def dp_omm_state(m, rank, eps_arm, horizon):
    """Per arm: a hybrid counter (``hybrid``, ``alpha``, ``alpha_hat``), its release ``noisy_sum``,
    the Lemma 1 factors of its noise bound ``bound (m, 4)`` at the current count, ``1/T_e``, ``1/sqrt(T_e)``."""
    return DPOMMState(
        np.zeros(m, dtype=np.int64),
        np.zeros((m, HYBRID_STATE_WIDTH)),
        np.zeros((m, MAX_LEVELS)),
        np.zeros((m, MAX_LEVELS)),
        np.zeros(m),
        np.zeros((m, 4)),
        np.zeros(m),
        np.zeros(m),
        float(eps_arm),
        float(horizon),
        int(rank),
    )


@numba.njit(cache=True, nogil=True)
def dp_omm_reset(s):
    zero_arrays((s.counts, s.hybrid, s.alpha, s.alpha_hat, s.noisy_sum, s.bound, s.inv_n, s.isq_n))


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def confidence_log_terms(lnt):
    """``(ln(2/delta), ln(2/(delta/2)))`` at the confidence ``delta = t^-4`` of Tao et al. 2025, from ``ln t``.

    The first is Lemma 1's log term for one noise group (LDP-OMM's reports; DP-OMM's counter at a
    power of two), the second for each of two groups sharing delta by a union bound.
    """
    return np.log(2.0) + 4.0 * lnt, np.log(4.0) + 4.0 * lnt


@numba.njit(cache=True, nogil=True, _nrt=False)
def dp_omm_index(s, t, J, rng_pol):
    """DP-OMM: ``J = (S~_e + B(T_e, t)) / T_e + sqrt(2 ln t / T_e)``; +inf while ``T_e = 0``.

    ``S~_e`` is arm e's hybrid-counter release and ``B`` the bound on its noise at
    ``delta = t^-4`` (:func:`~algorithms.counters.compiled.hybrid_bound`: Lemma 1 on each noise
    group at ``delta/2``, union bound; at powers of two one group at ``delta``).
    """
    lnt = np.log(t)
    r = np.sqrt(2.0 * lnt)
    lt0, lt = confidence_log_terms(lnt)
    slt0 = np.sqrt(lt0)
    slt = np.sqrt(lt)
    bound = s.bound
    for e in range(J.shape[0]):
        if s.counts[e] == 0:
            J[e] = np.inf
        else:
            b = hybrid_bound(bound[e, 0], bound[e, 1], bound[e, 2], bound[e, 3], lt0, slt0, lt, slt)
            J[e] = (s.noisy_sum[e] + b) * s.inv_n[e] + r * s.isq_n[e]


@numba.njit(cache=True, nogil=True, _nrt=False)
def dp_omm_update(s, t, basis, xs, k_taken, rng_pol):
    """DP-OMM: each played arm's observation enters its hybrid counter (budget eps' = eps/K), and the
    Lemma 1 factors of the counter's noise bound at the new count are kept for the index."""
    eps_arm = s.eps_arm
    for q in range(k_taken):
        e = basis[q]
        s.counts[e] += 1
        n = s.counts[e]
        s.noisy_sum[e] = hybrid_insert(s.hybrid, s.alpha, s.alpha_hat, e, n, xs[q], rng_pol.laplace(0.0, 1.0), eps_arm)
        c_log, d_log, c_bin, d_bin = hybrid_bound_coefficients(s.hybrid[e, LEVEL], s.hybrid[e, POPCOUNT], eps_arm)
        s.bound[e, 0] = c_log
        s.bound[e, 1] = d_log
        s.bound[e, 2] = c_bin
        s.bound[e, 3] = d_bin
        s.inv_n[e] = 1.0 / n
        s.isq_n[e] = np.sqrt(s.inv_n[e])


DP_OMM_KERNEL = PolicyKernel("DP-OMM", DPOMMState, dp_omm_state, dp_omm_reset, dp_omm_index, dp_omm_update, False)


@numba.njit(cache=True, nogil=True, _nrt=False)
def dp_omm_noise_bound(count, eps_arm, t):
    """DP-OMM's bound ``B(count, t)`` on an arm's counter noise, as its index uses it (``delta = t^-4``).

    Equal to ``algorithms.counters.HybridCounterBank.error_bound_at(count, t**-4)`` up to the
    rounding of the logarithms (checked in the tests).
    """
    log_full, log_half = confidence_log_terms(np.log(max(t, 1.0)))
    return hybrid_noise_bound(count, eps_arm, log_full, log_half)


@numba.njit(cache=True, nogil=True)
def hybrid_counter_outputs(stream, eps_arm, rng):
    """Released noisy prefix sums of one arm's DP-OMM counter over ``stream``, drawn as the simulator draws."""
    n = stream.shape[0]
    state = np.zeros((1, HYBRID_STATE_WIDTH))
    alpha = np.zeros((1, MAX_LEVELS))
    alpha_hat = np.zeros((1, MAX_LEVELS))
    out = np.empty(n)
    for i in range(n):
        out[i] = hybrid_insert(state, alpha, alpha_hat, 0, i + 1, stream[i], rng.laplace(0.0, 1.0), eps_arm)
    return out


@numba.njit(cache=True, nogil=True)
def hybrid_counter_batch(stream, eps_arm, size, rng):
    """``size`` independent runs of :func:`hybrid_counter_outputs`: array (size, len(stream))."""
    out = np.empty((size, stream.shape[0]))
    for r in range(size):
        out[r] = hybrid_counter_outputs(stream, eps_arm, rng)
    return out


# ---- LDP-OMM (Tao et al. 2025, Algorithm 2) ----------------------------------------------------

LDPOMMState, ldp_omm_state = policy_state("LDPOMMState", MEAN_FIELDS, mean_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def ldp_omm_index(s, t, J, rng_pol):
    """LDP-OMM: ``J = mean of reports + sqrt(2 ln t / T_e) + Lemma 1 bound on the mean noise``.

    The bound is ``max{(2/eps') sqrt(2 ln(2t^4) / T_e), (4/eps') ln(2t^4) / T_e}``: Lemma 1 for the
    mean of ``T_e`` iid Lap(1/eps') at ``delta = t^-4``. +inf while ``T_e = 0``.
    """
    lnt = np.log(t)
    r = np.sqrt(2.0 * lnt)
    l2, _ = confidence_log_terms(lnt)  # ln(2 t^4)
    c1, c2 = lemma1_mean_coefficients(1.0 / s.eps_arm, l2)
    for e in range(J.shape[0]):  # mean_n = +inf, isq_n = inv_n = 0 while unplayed
        J[e] = s.mean_n[e] + r * s.isq_n[e] + lemma1_max(c1, c2, s.isq_n[e], s.inv_n[e])


@numba.njit(cache=True, nogil=True, _nrt=False)
def ldp_omm_update(s, t, basis, xs, k_taken, rng_pol):
    """LDP-OMM: each played arm reports ``x + Lap(1/eps')`` (eps' = eps/K); the report enters its mean."""
    eps_arm = s.eps_arm
    for q in range(k_taken):
        observe_mean(s, basis[q], xs[q] + rng_pol.laplace(0.0, 1.0 / eps_arm))


LDP_OMM_KERNEL = PolicyKernel("LDP-OMM", LDPOMMState, ldp_omm_state, reset_means, ldp_omm_index, ldp_omm_update, False)
