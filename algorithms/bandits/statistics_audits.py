"""The compiled CUCB family's noisy statistics as dpverify mechanisms, for audits of their noise lines.

On short horizons the CUCB family's indices are clipped at 1 (Chen et al. 2020, footnote 3), so
the played super arms barely depend on the rewards and an audit of
:class:`algorithms.bandits.audits.PlayedSuperArms` cannot see a wrong noise scale. The privacy of
these policies rests on the statistics their indices read, and the played arms are
post-processing of them:

- CUCB-LDP1 and CUCB-LDP2 (Chen et al. 2020, Algorithms 1 and 2): the round's local reports, the
  played arms' observations plus Laplace noise, which enter the per-arm sums. After one round the
  sums *are* the reports: K coordinates with Lap(K/eps) (CUCB-LDP1), or one coordinate with
  Lap(1/eps) (CUCB-LDP2). Between any two observation vectors in {0, 1}^K the binned reports'
  exact loss is eps (tail bins attain it); it is the exact loss of
  :class:`algorithms.bandits.audits.LaplaceLocalRandomizer` (:func:`local_report_loss`).
- DPUCB-MAT and DPTS-MAT (Chandak 2023, Algorithms 2 and 5): the released batch estimates
  ``w~_e = (batch sum + Lap(K/eps)) / n`` of lazy doubling batches (n = 1, 2, 4, ...), which the
  indices read; each observation enters exactly one release, so between tables that differ in
  one round the binned releases' exact loss is eps, the claim (:func:`batch_release_loss`). An
  index that also reads the open batch is not post-processing of these releases: it is audited
  on the played arms (``test_privacy_audits.py``, an unreleased-observation pair of loss 0).
- CUCB-DP (Chen et al. 2020, Algorithm 3): the tree-based aggregation's releases of the per-arm
  prefix sums, Lap(2 K L / eps) per p-sum node with ``L = floor(log2 T) + 1``. Over rounds
  1..2 with T = 2 or 3 (L = 2) the release of round 1 is the level-0 node and that of round 2
  the level-1 node (Chan et al. 2011, Algorithm 2), so a change of round 1 moves two independent
  Laplace variables per coordinate by at most 1: the binned releases' exact loss is
  ``K * 2 / (2 K 2 / eps) = eps / 2`` (:func:`tree_release_loss`).

:class:`PolicyStatistics` runs the compiled policy's own update (the code the simulator runs) on
a fixed super arm and returns its statistics, binned, so a searched audit of it is held to these
exact losses and a noise scale off by 1.5x either way moves the loss by 1.5x.

References
----------
.. [1] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithms 1-3, Theorems 1, 3 and 7.
.. [2] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023. Algorithms 2 and 5, Theorems 8 and 10.
.. [3] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011. Algorithm 2 (binary mechanism).
"""

from __future__ import annotations

import numba
import numpy as np
from numba.extending import overload

import dpverify
from algorithms.bandits import indices as K
from algorithms.bandits.audits import LaplaceLocalRandomizer, discretized_report_pmf
from algorithms.bandits.indices import new_policy_state, policy_reset, policy_update
from algorithms.bandits.policies import Policy
from algorithms.errors import AlgorithmInputError

__all__ = ["PolicyStatistics", "local_report_loss", "tree_release_loss", "batch_release_loss"]


def released_statistic(state):
    """The per-arm statistic the policy's index reads (compiled code only): sums, tree releases or estimates."""
    raise NotImplementedError("released_statistic is called from compiled code")


@numba.njit(cache=True, nogil=True)
def _sums(state):
    return state.sums


@numba.njit(cache=True, nogil=True)
def _tree_sums(state):
    return state.tree_sum


@numba.njit(cache=True, nogil=True)
def _estimates(state):
    return state.est


#: policy code -> accessor of the statistic its index reads: CUCB-LDP1 and CUCB-LDP2 the sums of noisy
#: reports, CUCB-DP the tree-based releases, DPUCB-MAT and DPTS-MAT the released batch estimates w~_e.
_STATISTICS = {
    K.CUCB_LDP1: _sums,
    K.CUCB_LDP2: _sums,
    K.CUCB_DP: _tree_sums,
    K.DPUCB_MAT: _estimates,
    K.DPTS_MAT: _estimates,
}
_STATISTIC_BY_STATE = {K.POLICY_KERNELS[code].state_class: fn for code, fn in _STATISTICS.items()}


@overload(released_statistic)
def _released_statistic(state):
    fn = _STATISTIC_BY_STATE[state.instance_class]  # resolved at compile time from the state's type
    return lambda state: fn(state)


@numba.njit(cache=True, nogil=True)
def _statistics_batch(size, state, table, rng, out):
    """``out[r, t, e]``: arm e's statistic after round ``t + 1`` of run ``r`` (every arm played every round)."""
    rounds, k = table.shape
    basis = np.arange(k)
    for r in range(size):
        policy_reset(state)
        for t in range(rounds):
            policy_update(state, t + 1, basis, table[t], k, rng)
            out[r, t, :] = released_statistic(state)[:k]


class PolicyStatistics:
    """Observation table -> the compiled policy's binned statistics after each round, as a dpverify mechanism.

    The matroid is the free one on ``rank`` arms (the super arm is every arm, played every round).

    Parameters
    ----------
    policy : Policy
        CUCB-LDP1, CUCB-LDP2 (statistics: the per-arm sums of noisy reports), CUCB-DP (the
        tree-based releases of the per-arm prefix sums), DPUCB-MAT or DPTS-MAT (the released
        batch estimates w~_e). Its known horizon (default ``rounds``) sets CUCB-DP's tree depth.
    rank : int
        K, the number of arms observed per round.
    rounds : int
        Rounds run; inputs are ``rounds x rank`` tables of observations in [0, 1].
    edges : array_like
        Bin edges: each statistic becomes the number of its bin ``(-inf, edges[0]], ...,
        (edges[-1], inf)`` (post-processing).

    Notes
    -----
    ``sample(table, size, rng)`` returns ``size`` tuples of ``rounds * rank`` bin numbers from one
    compiled call. Picklable (plain attributes).
    """

    def __init__(self, policy: Policy, rank: int, rounds: int, edges):
        if policy.code not in _STATISTICS:
            raise AlgorithmInputError(
                f"PolicyStatistics covers CUCB-LDP1, CUCB-LDP2, CUCB-DP, DPUCB-MAT and DPTS-MAT, not {policy.name}"
            )
        self.policy, self.rank, self.rounds = policy, int(rank), int(rounds)
        if self.rank < 1 or self.rounds < 1:
            raise AlgorithmInputError(f"need rank, rounds >= 1, got {rank!r}, {rounds!r}")
        self.known_horizon = policy.horizon if policy.horizon is not None else self.rounds
        if self.known_horizon < self.rounds:
            raise AlgorithmInputError(f"known horizon {self.known_horizon} < {self.rounds} rounds")
        self.edges = np.asarray(edges, dtype=np.float64)
        self.claim = policy.claim

    def sample(self, table, size, rng=None):
        rng = np.random.default_rng(rng)
        table = np.ascontiguousarray(np.asarray(table, dtype=np.float64).reshape(self.rounds, self.rank))
        state = new_policy_state(
            self.policy.code, self.rank, self.rank, float(self.policy.arm_epsilon(self.rank)), float(self.known_horizon)
        )
        out = np.zeros((int(size), self.rounds, self.rank))
        _statistics_batch(int(size), state, table, rng, out)
        bins = np.searchsorted(self.edges, out, side="left").reshape(int(size), -1)
        return list(map(tuple, bins.tolist()))

    def __call__(self, table, rng=None):
        return self.sample(table, 1, rng)[0]


def local_report_loss(policy: Policy, rank: int, edges) -> float:
    """Exact loss of the binned reports of one round between all-zeros and all-ones observations.

    Computed from :class:`~algorithms.bandits.audits.LaplaceLocalRandomizer` (the policy's stated
    per-report budget, not the compiled code): eps for CUCB-LDP1 and CUCB-LDP2 when ``edges``
    reach below 0 (the tail bin attains it). It is the largest loss over all pairs of
    observation vectors in [0, 1]^K.
    """
    randomizer = LaplaceLocalRandomizer(policy, rank)
    zeros, ones = np.zeros(randomizer.n_reports), np.ones(randomizer.n_reports)
    pmfs = discretized_report_pmf(randomizer, zeros, edges), discretized_report_pmf(randomizer, ones, edges)
    return dpverify.exact_privacy_loss(*pmfs).epsilon


def tree_release_loss(epsilon: float) -> float:
    """Exact loss ``eps / 2`` of CUCB-DP's binned releases over rounds 1..2 with tree depth L = 2.

    A change of round 1 (every coordinate by at most 1) moves the level-0 node (round 1's
    release) and the level-1 node (round 2's release) of each of the K coordinates, each
    Lap(2 K L / eps) = Lap(4 K / eps): ``K * 2 * eps / (4 K)``; tail bins attain it (module
    docstring). The policy's claim is eps (Chen et al. 2020, Theorem 7).
    """
    return float(epsilon) / 2.0


def batch_release_loss(epsilon: float, rank: int, edges, rounds: int) -> float:
    """Exact loss of DPUCB-MAT's and DPTS-MAT's binned released estimates over ``rounds`` rounds, every arm played.

    Chandak 2023, Algorithms 2 and 5: arm e's observations fill lazy doubling batches of 1, 2,
    4, ... items; a full batch of ``n`` releases ``w~_e = (batch sum + Lap(K / eps)) / n`` and
    empties (forgetful), so each observation enters exactly one release. Tables over [0, 1] that
    differ in one round move one release of each of the K arms by at most ``1 / n`` (its batch's
    size ``n``), independent Laplace variables of scale ``K / (eps n)`` in ``w~`` units; the
    releases' binned loss is the largest, over the batches released within ``rounds``, of K times
    one coordinate's binned loss (a tail bin reaches ``eps / K`` when ``edges[0] <= 0`` or
    ``edges[-1] >= 1 / n``: then the loss is ``eps``). Computed here from the binned Laplace cdf of
    that stated scale, not from the compiled code. A batch not yet full releases nothing.
    """
    from scipy import stats

    edges = np.asarray(edges, dtype=np.float64)
    k = int(rank)
    loss, n, released = 0.0, 1, 0
    while released + n <= int(rounds):
        scale = k / (float(epsilon) * n)
        p = np.diff(np.concatenate([[0.0], stats.laplace.cdf(edges, loc=0.0, scale=scale), [1.0]]))
        q = np.diff(np.concatenate([[0.0], stats.laplace.cdf(edges, loc=1.0 / n, scale=scale), [1.0]]))
        loss = max(loss, k * float(np.max(np.abs(np.log(p) - np.log(q)))))
        released, n = released + n, 2 * n
    return loss
