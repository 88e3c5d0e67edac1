"""CUCB and its private versions CUCB-LDP1, CUCB-LDP2 and CUCB-DP, compiled (Chen et al. 2013, 2020).

Every index is ``min{estimate + radius, 1}``, and an unplayed arm's index is
``min{inf, 1} = 1`` (Chen et al. 2020, footnote 3). ``horizon`` is the known horizon T of the
private versions. CUCB-DP's statistics come from tree-based aggregation over rounds: the
counters package's compiled :func:`~algorithms.counters.compiled.binary_step` on every
coordinate of the round's observation vector. The formulas and the choices are documented in
:mod:`algorithms.bandits.policies`; the functions' contract in
:mod:`algorithms.bandits.indices.common`.

References
----------
.. [1] W. Chen, Y. Wang, Y. Yuan, "Combinatorial Multi-Armed Bandit: General Framework and
   Applications", ICML 2013 (CUCB).
.. [2] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 1 (CUCB-LDP1), Algorithm 2
   (CUCB-LDP2), Algorithm 3 (CUCB-DP).
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
    state_class,
    sum_arrays,
    zero_arrays,
)
from algorithms.counters.compiled import binary_step

__all__ = ["CUCB_KERNEL", "CUCB_LDP1_KERNEL", "CUCB_LDP2_KERNEL", "CUCB_DP_KERNEL"]


@numba.njit(cache=True, nogil=True, _nrt=False, inline="always")
def clipped(v):
    """``min{v, 1}``: the CUCB family's indices are clipped at 1."""
    return v if v < 1.0 else 1.0


# ---- CUCB (Chen et al. 2013) -------------------------------------------------------------------

CUCBState, cucb_state = policy_state("CUCBState", SUM_FIELDS, sum_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_index(s, t, J, rng_pol):
    """CUCB: ``J = min{mu^_e + sqrt(3 ln t / (2 T_e)), 1}``; 1 while ``T_e = 0``."""
    lnt = np.log(t)
    for e in range(J.shape[0]):
        n = s.counts[e]
        J[e] = 1.0 if n == 0 else clipped(s.sums[e] / n + np.sqrt(1.5 * lnt / n))


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_update(s, t, basis, xs, k_taken, rng_pol):
    """CUCB: each played arm's observation enters its count and sum."""
    for q in range(k_taken):
        observe_sum(s, basis[q], xs[q])


CUCB_KERNEL = PolicyKernel("CUCB", CUCBState, cucb_state, reset_sums, cucb_index, cucb_update, False)

# ---- CUCB-LDP1 and CUCB-LDP2 (Chen et al. 2020, Algorithms 1 and 2) ----------------------------


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_ldp_index(s, t, J, rng_pol):
    """CUCB-LDP1 and CUCB-LDP2: ``J = min{mu~_e + 4 sqrt(2 ln T / (e^2 T_e)), 1}``; 1 while ``T_e = 0``.

    ``mu~_e`` is the mean of arm e's noisy reports and ``e`` the budget of one report
    (eps/K for CUCB-LDP1, eps for CUCB-LDP2).
    """
    ln_T = np.log(max(s.horizon, 2.0))
    eps_arm = s.eps_arm
    for e in range(J.shape[0]):
        n = s.counts[e]
        J[e] = 1.0 if n == 0 else clipped(s.sums[e] / n + 4.0 * np.sqrt(2.0 * ln_T / (eps_arm * eps_arm * n)))


CUCBLDP1State, cucb_ldp1_state = policy_state("CUCBLDP1State", SUM_FIELDS, sum_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_ldp1_update(s, t, basis, xs, k_taken, rng_pol):
    """CUCB-LDP1: every played arm reports ``x + Lap(K/eps)`` (= Lap(1/eps_arm))."""
    eps_arm = s.eps_arm
    for q in range(k_taken):
        observe_sum(s, basis[q], xs[q] + rng_pol.laplace(0.0, 1.0 / eps_arm))


CUCB_LDP1_KERNEL = PolicyKernel(
    "CUCB-LDP1", CUCBLDP1State, cucb_ldp1_state, reset_sums, cucb_ldp_index, cucb_ldp1_update, False
)

CUCBLDP2State, cucb_ldp2_state = policy_state("CUCBLDP2State", SUM_FIELDS, sum_arrays, __name__)


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_ldp2_update(s, t, basis, xs, k_taken, rng_pol):
    """CUCB-LDP2: only the least-observed played arm reports, ``x + Lap(1/eps)`` (ties: first in greedy order)."""
    counts, sums, eps_arm = s.counts, s.sums, s.eps_arm
    least = -1
    for q in range(k_taken):
        if least < 0 or counts[basis[q]] < counts[basis[least]]:
            least = q
    if least >= 0:
        e = basis[least]
        counts[e] += 1
        sums[e] += xs[least] + rng_pol.laplace(0.0, 1.0 / eps_arm)


CUCB_LDP2_KERNEL = PolicyKernel(
    "CUCB-LDP2", CUCBLDP2State, cucb_ldp2_state, reset_sums, cucb_ldp_index, cucb_ldp2_update, False
)

# ---- CUCB-DP (Chen et al. 2020, Algorithm 3) ---------------------------------------------------

CUCBDPState = state_class("CUCBDPState", ["counts", "xvec", "tree_alpha", "tree_alpha_hat", "tree_sum"], __name__)


def cucb_dp_state(m, rank, eps_arm, horizon):
    """``xvec`` is the round's observation vector X_t; ``tree_alpha``/``tree_alpha_hat (m, L)`` the
    p-sums of the binary mechanism over rounds, ``L = floor(log2 T) + 1``; ``tree_sum`` its release."""
    levels = int(horizon).bit_length()
    return CUCBDPState(
        np.zeros(m, dtype=np.int64),
        np.zeros(m),
        np.zeros((m, levels)),
        np.zeros((m, levels)),
        np.zeros(m),
        float(eps_arm),
        float(horizon),
        int(rank),
    )


@numba.njit(cache=True, nogil=True)
def cucb_dp_reset(s):
    zero_arrays((s.counts, s.xvec, s.tree_alpha, s.tree_alpha_hat, s.tree_sum))


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_dp_index(s, t, J, rng_pol):
    """CUCB-DP: ``J = min{S~_e / T_e + sqrt(4 ln(m T) / T_e) + 12 K ln^3 T / (eps T_e), 1}``; 1 while ``T_e = 0``.

    ``S~_e`` is the tree-based aggregation release; ``eps_arm = eps / K``.
    """
    m = J.shape[0]
    ln_T = np.log(max(s.horizon, 2.0))
    eps_arm = s.eps_arm
    for e in range(m):
        n = s.counts[e]
        J[e] = (
            1.0
            if n == 0
            else clipped(s.tree_sum[e] / n + np.sqrt(4.0 * np.log(m * s.horizon) / n) + 12.0 * ln_T**3 / (eps_arm * n))
        )


@numba.njit(cache=True, nogil=True, _nrt=False)
def cucb_dp_update(s, t, basis, xs, k_taken, rng_pol):
    """CUCB-DP: the round's observations form the vector X_t (0 off the super arm); release the prefix
    sums of X by tree-based aggregation over rounds, Lap(2 K L / eps) per node."""
    for q in range(k_taken):
        s.xvec[basis[q]] = xs[q]
    tree_levels = s.tree_alpha.shape[1]
    tree_scale = 2.0 * tree_levels / s.eps_arm  # Lap(2 K L / eps) per coordinate, eps_arm = eps / K
    for e in range(s.xvec.shape[0]):
        s.tree_sum[e] = binary_step(s.tree_alpha, s.tree_alpha_hat, e, t, s.xvec[e], rng_pol.laplace(0.0, tree_scale))
    for q in range(k_taken):
        e = basis[q]
        s.counts[e] += 1
        s.xvec[e] = 0.0


CUCB_DP_KERNEL = PolicyKernel(
    "CUCB-DP", CUCBDPState, cucb_dp_state, cucb_dp_reset, cucb_dp_index, cucb_dp_update, False
)
