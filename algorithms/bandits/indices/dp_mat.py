"""DPUCB-MAT and DPTS-MAT (Chandak 2023), and the CTS baseline (Wang & Chen 2018), compiled.

DPUCB-MAT and DPTS-MAT share their private estimates: arm e's observations are buffered, and
when the buffer holds ``2^{s_e + 1}`` items (1, 2, 4, ... in turn) the estimate becomes
``w~_e = (buffer sum + Lap(1/epsilon0)) / 2^{s_e + 1}``, ``T_e`` becomes the batch size and the
buffer empties (lazy doubling batches, forgetful). ``epsilon0`` is the per-arm budget eps/K
(``eps_arm``). The formulas and the choices are documented in
:mod:`algorithms.bandits.policies`; the functions' contract in
:mod:`algorithms.bandits.indices.common`.

References
----------
.. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023. Algorithm 2 (DPUCB-MAT), Algorithm 5 (DPTS-MAT),
   Section 6.1 (CTS as a baseline).
.. [2] S. Wang, W. Chen, "Thompson Sampling for Combinatorial Semi-Bandits", ICML 2018 (CTS).
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.bandits.indices.common import (
    SUM_FIELDS,
    PolicyKernel,
    observe_sum,
    policy_state,
    reset_sums,
    sum_arrays,
    zero_arrays,
)

__all__ = ["DPUCB_MAT_KERNEL", "DPTS_MAT_KERNEL", "CTS_KERNEL"]

# ---- lazy doubling batches (Chandak 2023, Algorithms 2 and 5) ----------------------------------

BATCH_FIELDS = ("counts", "buf_sum", "buf_n", "batch", "est")


def _batch_arrays(m):
    """``counts`` (observations), ``buf_sum``/``buf_n`` (the open batch), ``batch`` (T_e, the last
    released batch's size, 0 before the first) and ``est`` (w~_e)."""
    return {
        "counts": np.zeros(m, dtype=np.int64),
        "buf_sum": np.zeros(m),
        "buf_n": np.zeros(m, dtype=np.int64),
        "batch": np.zeros(m, dtype=np.int64),
        "est": np.zeros(m),
    }


@numba.njit(cache=True, nogil=True)
def reset_batches(s):
    zero_arrays((s.counts, s.buf_sum, s.buf_n, s.batch, s.est))


@numba.njit(cache=True, nogil=True, _nrt=False)
def update_batches(s, t, basis, xs, k_taken, rng_pol):
    """DPUCB-MAT and DPTS-MAT: buffer each played arm's observation; when its batch of ``2^{s_e+1}``
    items is full, release the batch's noisy mean (Lap(1/epsilon0) on the sum)."""
    buf_sum, est, eps_arm = s.buf_sum, s.est, s.eps_arm
    for q in range(k_taken):
        e = basis[q]
        buf_sum[e] += xs[q]
        s.buf_n[e] += 1
        s.counts[e] += 1
        target = 1 if s.batch[e] == 0 else 2 * s.batch[e]
        if s.buf_n[e] == target:
            s.batch[e] = target
            est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / eps_arm)) / target
            buf_sum[e] = 0.0
            s.buf_n[e] = 0


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def batch_index(s, t, J, rng_pol, thompson):
    """The index of DPUCB-MAT (``thompson`` False) or DPTS-MAT (True) from the released batches.

    Both add the bias ``3 ln(K t) / (epsilon0 T_e)`` to ``w~_e``; DPUCB-MAT adds the radius
    ``sqrt(3 ln(K t) / T_e)``, DPTS-MAT samples ``N(w~_e + bias, 1 / T_e)``. +inf while ``T_e = 0``.
    """
    est, eps_arm = s.est, s.eps_arm
    lk = np.log(s.rank * t)
    for e in range(J.shape[0]):
        te = s.batch[e]
        if te == 0:
            J[e] = np.inf
        elif thompson:
            J[e] = rng_pol.normal(est[e] + 3.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))
        else:
            J[e] = est[e] + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)


# ---- DPUCB-MAT (Chandak 2023, Algorithm 2) -----------------------------------------------------

DPUCBMATState, dpucb_mat_state = policy_state("DPUCBMATState", BATCH_FIELDS, _batch_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def dpucb_mat_index(s, t, J, rng_pol):
    """DPUCB-MAT: ``J = w~_e + sqrt(3 ln(K t) / T_e) + 3 ln(K t) / (epsilon0 T_e)``; +inf while ``T_e = 0``."""
    batch_index(s, t, J, rng_pol, False)


DPUCB_MAT_KERNEL = PolicyKernel(
    "DPUCB-MAT", DPUCBMATState, dpucb_mat_state, reset_batches, dpucb_mat_index, update_batches, False
)

# ---- DPTS-MAT (Chandak 2023, Algorithm 5) ------------------------------------------------------

DPTSMATState, dpts_mat_state = policy_state("DPTSMATState", BATCH_FIELDS, _batch_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def dpts_mat_index(s, t, J, rng_pol):
    """DPTS-MAT: ``J ~ N(w~_e + 3 ln(K t) / (epsilon0 T_e), 1 / T_e)``; +inf while ``T_e = 0``."""
    batch_index(s, t, J, rng_pol, True)


DPTS_MAT_KERNEL = PolicyKernel(
    "DPTS-MAT", DPTSMATState, dpts_mat_state, reset_batches, dpts_mat_index, update_batches, True
)

# ---- CTS (Wang & Chen 2018; Chandak 2023, Section 6.1) -----------------------------------------

CTSState, cts_state = policy_state("CTSState", SUM_FIELDS, sum_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def cts_index(s, t, J, rng_pol):
    """CTS with Gaussian prior and likelihood: ``J ~ N(mu^_e, 1 / T_e)``; +inf while ``T_e = 0``."""
    for e in range(J.shape[0]):
        n = s.counts[e]
        if n == 0:
            J[e] = np.inf
        else:
            J[e] = rng_pol.normal(s.sums[e] / n, 1.0 / np.sqrt(n))


@numba.njit(cache=True, nogil=True, _nrt=False)
def cts_update(s, t, basis, xs, k_taken, rng_pol):
    """CTS: each played arm's observation enters its count and sum."""
    for q in range(k_taken):
        observe_sum(s, basis[q], xs[q])


CTS_KERNEL = PolicyKernel("CTS", CTSState, cts_state, reset_sums, cts_index, cts_update, True)
