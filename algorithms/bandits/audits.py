"""Bandit policies as dpverify mechanisms, and the instances their privacy audits run on.

Central DP (Tao et al. 2025, Definition 1; Chandak 2023, Definition 9; Chen et al. 2020, Definition 3):
the data is the reward table ``(rounds, m)``; neighbouring tables differ in one
round; the released output is the sequence of played super arms.
:class:`PlayedSuperArms` is exactly that map (a dpverify *mechanism*: each
output is a tuple with one bitmask ``sum_e 2^e`` per round).

Local DP (Tao et al. 2025, Definition 2; Chen et al. 2020, Definition 4): the data is one
round's observations of the played arms and the output is the report the
learner receives. :class:`LaplaceLocalRandomizer` is that report for LDP-OMM,
CUCB-LDP1 (K coordinates, Lap(K/eps) each) and CUCB-LDP2 (one coordinate,
Lap(1/eps)); :func:`discretized_report_pmf` gives its exact output pmf on a
grid of bins, for :func:`dpverify.exact_privacy_loss`.

:func:`two_block_instance` is the audit design: a partition matroid with two
blocks of two arms (K = 2), horizon 3. Rounds 1 and 2 play the two bases that
cover all four arms (unplayed arms have index +inf); round 3 compares, in each
block, the arm seen in round 1 with the arm seen in round 2. The neighbouring
tables differ in round 1 (all ones versus all zeros) and reveal zeros
elsewhere. With a per-arm Laplace budget ``e`` on each first observation
(DPUCB-MAT, DPTS-MAT, LDP-OMM: T_e = 1 for every arm in round 3), the event
"round 3 replays round 2" has probability ``(1/2)^2`` under the all-zeros table
and ``P[D > 1]^2`` under the all-ones table, ``D`` a difference of two iid
Lap(1/e): ``P[D > 1] = exp(-e) (2 + e) / 4``. Its privacy loss is
``2 (e - ln(1 + e / 2))``: 2.61 for the correct ``e = eps/2 = 2`` at eps = 4,
and 5.80 > 4 for the broken ``e = eps = 4`` variant. See
:func:`two_block_event_loss`.

The audits do not hand the auditor that pair: :class:`RewardTables` generates
the neighbouring relation (tables over {0, 1} that differ in one round) for a
search audit (:func:`dpverify.search_audit`), which finds the worst pair itself.
On this design the event loss above is the exact loss of the whole relation
for DPUCB-MAT and LDP-OMM (see :func:`two_block_event_loss`), and for DP-OMM
with ``e/2`` in place of ``e`` (the hybrid counter releases an arm's first
observation with Lap(2/e): its logarithmic part spends half the budget), so
their audits can be held to it.
"""

from __future__ import annotations

import math

import numpy as np

from algorithms.bandits import _kernels
from algorithms.bandits._kernel_matroids import as_kernel_matroid, greedy_basis, partition_matroid
from algorithms.bandits.environments import TableEnvironment
from algorithms.bandits.indices import new_policy_state
from algorithms.bandits.policies import Policy
from algorithms.bandits.simulator import _prepare
from algorithms.errors import AlgorithmInputError, InvalidPrivacyParameterError, InvalidRewardError
from dpverify.neighbours import NeighbourGenerator

__all__ = [
    "PlayedSuperArms",
    "LaplaceLocalRandomizer",
    "discretized_report_pmf",
    "two_block_instance",
    "two_block_event_loss",
    "RewardTables",
    "reward_tables",
    "one_block_instance",
]


class PlayedSuperArms:
    """The map reward table -> sequence of played super arms, as a dpverify mechanism.

    Parameters
    ----------
    matroid : matroid
        Any matroid accepted by the simulator, with at most 62 elements.
    policy : Policy
    horizon : int
        Rounds played; the tables given must have at least this many rows.

    Notes
    -----
    ``mechanism(table, rng)`` returns a tuple of ``horizon`` ints, the bitmask
    ``sum_{e in A_t} 2^e`` of each round's super arm; ``sample(table, size, rng)``
    returns ``size`` of them from one compiled call. Picklable (plain attributes).
    """

    def __init__(self, matroid, policy: Policy, horizon: int):
        km = as_kernel_matroid(matroid)
        if km.n_elements > 62:
            raise AlgorithmInputError("PlayedSuperArms encodes super arms as 62-bit masks: at most 62 elements")
        self.matroid = km
        self.policy = policy
        self.horizon = int(horizon)
        self.rank = int(greedy_basis(km, np.zeros(km.n_elements)).size)
        self.claim = policy.claim

    def sample(self, table, size, rng=None):
        rng = np.random.default_rng(rng)
        out = np.zeros((int(size), self.horizon), dtype=np.int64)
        env = table if isinstance(table, TableEnvironment) else TableEnvironment(np.asarray(table, dtype=float))
        km, env_arrays, optimal, rank, horizon, known = _prepare(self.matroid, env, self.policy, self.horizon)
        state = new_policy_state(
            self.policy.code, km.n_elements, rank, float(self.policy.arm_epsilon(rank)), float(known)
        )
        _kernels.table_batch(int(size), state, km.arrays(), env_arrays, horizon, rng, out)
        return list(map(tuple, out.tolist()))

    def __call__(self, table, rng=None):
        return self.sample(table, 1, rng)[0]


class LaplaceLocalRandomizer:
    """One round's local report: each of ``n_reports`` observations plus iid Lap(1 / eps_report).

    ``eps_report`` is the policy's per-report budget (eps/K for LDP-OMM and
    CUCB-LDP1, eps for CUCB-LDP2 whose single report is one coordinate).
    Input: a vector of ``n_reports`` observations in [0, 1]; output: the real
    vector of reports. Exactly ``n_reports * eps_report``-LDP.
    """

    def __init__(self, policy: Policy, rank: int):
        if policy.claim.model != "local":
            raise InvalidPrivacyParameterError(f"{policy.name} has no local randomizer")
        self.policy = policy
        self.n_reports = policy.reports_per_round(rank)
        self.eps_report = float(policy.arm_epsilon(rank))
        self.claim = policy.claim

    def _x(self, x):
        x = np.asarray(x, dtype=np.float64).reshape(-1)
        if x.size != self.n_reports:
            raise AlgorithmInputError(f"expected {self.n_reports} observations, got {x.size}")
        if not np.all((x >= 0) & (x <= 1)):
            raise InvalidRewardError("observations must lie in [0, 1]")
        return x

    def sample(self, x, size, rng=None):
        x = self._x(x)
        rng = np.random.default_rng(rng)
        return x[None, :] + rng.laplace(0.0, 1.0 / self.eps_report, size=(int(size), x.size))

    def __call__(self, x, rng=None):
        return self.sample(x, 1, rng)[0]


def discretized_report_pmf(randomizer: LaplaceLocalRandomizer, x, edges) -> dict:
    """Exact pmf of the randomizer's report binned by ``edges`` on every coordinate.

    Bins are ``(-inf, edges[0]], (edges[0], edges[1]], ..., (edges[-1], inf)``;
    outputs are tuples of bin numbers. Binning is post-processing, so the exact
    loss of the binned pmfs is at most the randomizer's; tail bins attain it.
    """
    from scipy import stats

    x = randomizer._x(x)
    edges = np.asarray(edges, dtype=np.float64)
    b = 1.0 / randomizer.eps_report
    per_coord = []
    for xi in x:
        cdf = stats.laplace.cdf(edges, loc=xi, scale=b)
        per_coord.append(np.diff(np.concatenate([[0.0], cdf, [1.0]])))
    pmf = {}
    grids = np.meshgrid(*[np.arange(p.size) for p in per_coord], indexing="ij")
    probs = np.ones(grids[0].shape)
    for c, p in enumerate(per_coord):
        probs = probs * p[grids[c]]
    for key, p in zip(zip(*[g.ravel() for g in grids]), probs.ravel()):
        pmf[tuple(int(k) for k in key)] = float(p)
    total = sum(pmf.values())
    return {k: v / total for k, v in pmf.items()}


def two_block_instance():
    """The audit design of the module docstring: ``(matroid, table_x, table_x_prime, horizon)``.

    Partition matroid on arms {0, 1} and {2, 3} (one arm per block, K = 2);
    ``table_x`` has all ones in round 1, ``table_x_prime`` all zeros; both
    are zero in rounds 2 and 3.
    """
    matroid = partition_matroid([0, 0, 1, 1], [1, 1])
    x = np.zeros((3, 4))
    x[0, :] = 1.0
    x_prime = np.zeros((3, 4))
    return matroid, x, x_prime, 3


def two_block_event_loss(arm_epsilon: float) -> float:
    """Privacy loss ``2 (e - ln(1 + e/2))`` of the event "round 3 replays round 2" (module docstring).

    It is also the exact pure loss of DPUCB-MAT and LDP-OMM on the two-block
    design over *every* pair of reward tables in [0, 1] that differ in one round:
    rounds 1 and 2 are data-free (ties shuffled), and in each block round 3
    compares the two arms' single noisy observations, ``r_1 + L_1`` against
    ``r_2 + L_2`` (equal radii), i.e. ``D = L_2 - L_1 > t`` with ``t = r_1 - r_2``
    in [-1, 1]. One changed round moves ``t`` by at most 1, and
    ``ln(P[D > t] / P[D > t + 1])`` increases in ``t`` (``D`` is log-concave), so
    with ``t + 1 <= 1`` it is largest at ``t = 0``: ``e - ln(1 + e/2)`` per block
    (the complementary event is the mirror image), and the blocks are independent.
    """
    e = float(arm_epsilon)
    return 2.0 * (e - math.log1p(e / 2.0))


class RewardTables(NeighbourGenerator):
    """Reward tables over {0, 1} (``rounds x arms``) that differ in one round, for a search audit.

    The neighbouring relation of the central claims (Tao et al. 2025, Definition 1;
    Chandak 2023, Definition 9): every observation of one round may change.
    Fixed pairs first: for each round, the all-zeros table against the same with
    that round all ones, and the all-ones table against the same with that round
    all zeros; then seeded random draws (a random 0/1 table, one random round
    replaced by another random row).

    Parameters
    ----------
    rounds, arms : int
        The table's shape (``rounds`` at least the audited horizon).
    """

    def __init__(self, rounds: int, arms: int):
        self.rounds, self.arms = int(rounds), int(arms)
        if self.rounds < 1 or self.arms < 1:
            raise AlgorithmInputError(f"need rounds, arms >= 1, got {rounds!r}, {arms!r}")
        self.relation = f"{self.rounds} x {self.arms} reward tables over {{0, 1}}, one round differs"

    @staticmethod
    def _table(array) -> tuple:
        return tuple(tuple(float(v) for v in row) for row in array)

    def fixed_pairs(self) -> list:
        pairs = []
        for r in range(self.rounds):
            for base_value in (0.0, 1.0):
                base = np.full((self.rounds, self.arms), base_value)
                changed = base.copy()
                changed[r, :] = 1.0 - base_value
                pairs.append((self._table(base), self._table(changed)))
        return pairs

    def draw(self, rng: np.random.Generator) -> tuple:
        base = rng.integers(0, 2, size=(self.rounds, self.arms)).astype(float)
        changed = base.copy()
        r = int(rng.integers(self.rounds))
        while np.array_equal(changed[r], base[r]):
            changed[r] = rng.integers(0, 2, size=self.arms)
        return self._table(base), self._table(changed)


def reward_tables(rounds: int, arms: int) -> RewardTables:
    """Neighbouring reward tables (see :class:`RewardTables`)."""
    return RewardTables(rounds, arms)


def one_block_instance(horizon: int = 5):
    """One block of two arms (K = 1: the whole eps on each observation): ``(matroid, horizon)``.

    With a horizon of 5 the arms' single noisy observations are compared again after the first
    batches of two, so the played arms pin the changed observation's noise down more finely than
    the three-round two-block design (whose loss on one block is ``eps - ln(1 + eps/2)``): a searched
    audit of DPUCB-MAT on it nearly attains the claim eps, which no design can exceed (the figures:
    docs/papers/searched_audits.md).
    """
    return partition_matroid([0, 0], [1]), int(horizon)
