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
their audits can be held to it. DPTS-MAT's round-3 choice adds its two Thompson samples
N(w~, 1) to the comparison; :func:`block_event_loss` gives that loss by quadrature.
:func:`unreleased_round_instance` is a second design: a pair that differs only in an
observation no release has used by the last round, whose exact loss is 0 for the batch policies.
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
    "block_event_loss",
    "two_block_event_loss",
    "DPTS_SAMPLING_SD",
    "unreleased_round_instance",
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


def block_event_loss(arm_epsilon: float, sampling_sd: float = 0.0) -> float:
    """Exact loss ``ln(1 / (2 F(-1)))`` of one block's round-3 choice on the audit designs (module docstring).

    In a block of two arms, rounds 1 and 2 play the two arms (ties shuffled; data-free) and round 3
    plays the arm seen in round 1 when ``r_1 + L_1 + G_1 > r_2 + L_2 + G_2``: ``L`` iid Lap(1/e)
    (the released first observations, ``e = arm_epsilon``) and ``G`` iid N(0, sampling_sd^2 / 2)
    (the Thompson sample of DPTS-MAT, N(w~, 1/T_e) with T_e = 1: ``sampling_sd = sqrt(2)``; 0 for
    the index policies), the indices' other terms being equal. With ``F`` the cdf of
    ``D = L_2 - L_1 + G_2 - G_1`` the choice is Bernoulli(F(t)), ``t = r_1 - r_2`` in [-1, 1]; one
    changed round moves ``t`` by at most 1, and ``F`` is log-concave (a convolution of log-concave
    densities), so ``ln(F(t + 1) / F(t))`` falls in ``t`` and the largest ratio, either way round,
    is ``F(0) / F(-1) = 1 / (2 F(-1))``. For ``sampling_sd = 0``,
    ``F(-1) = exp(-e) (2 + e) / 4`` and the loss is ``e - ln(1 + e/2)``; otherwise ``F(-1)`` is an
    integral over the density ``(e/4) (1 + e|d|) exp(-e|d|)`` of ``L_2 - L_1``, computed by
    quadrature (absolute error below 1e-10).
    """
    e = float(arm_epsilon)
    sd = float(sampling_sd)
    if sd == 0.0:
        return e - math.log1p(e / 2.0)
    from scipy import integrate, stats

    def integrand(d):
        return 0.25 * e * (1.0 + e * abs(d)) * math.exp(-e * abs(d)) * stats.norm.cdf((-1.0 - d) / sd)

    left, _ = integrate.quad(integrand, -math.inf, -1.0, epsabs=1e-12)
    mid, _ = integrate.quad(integrand, -1.0, 0.0, epsabs=1e-12)
    right, _ = integrate.quad(integrand, 0.0, math.inf, epsabs=1e-12)
    return -math.log(2.0 * (left + mid + right))


def two_block_event_loss(arm_epsilon: float, sampling_sd: float = 0.0) -> float:
    """Privacy loss of "round 3 replays round 2" on the two-block design: ``2 * block_event_loss``.

    ``2 (e - ln(1 + e/2))`` for the index policies (``sampling_sd = 0``; module docstring). It is
    also the exact pure loss of DPUCB-MAT, LDP-OMM and (with ``sampling_sd = sqrt(2)``) DPTS-MAT
    on the two-block design over *every* pair of reward tables in [0, 1] that differ in one round:
    rounds 1 and 2 are data-free (ties shuffled), the two blocks' round-3 choices are independent
    given round 1, and one changed round (round 1 or 2: round 3's observations are never used)
    moves both blocks' ``t`` by at most 1; :func:`block_event_loss` bounds each block, and the
    pair "round 1 all zeros against all ones, round 2 all ones" attains both at once.
    """
    return 2.0 * block_event_loss(arm_epsilon, sampling_sd)


#: Standard deviation of the difference of DPTS-MAT's two Thompson samples N(w~, 1/T_e) at T_e = 1.
DPTS_SAMPLING_SD = math.sqrt(2.0)


def unreleased_round_instance(rank: int):
    """A pair of reward tables that differ only in an observation no release has used: ``(matroid, x, x', horizon)``.

    Partition matroid with ``rank`` blocks of two arms, horizon 4; ``x`` is all zeros, ``x'`` has
    round 3 all ones. Rounds 1 and 2 play the two bases covering every arm, so each arm's first
    batch (one observation) is released before round 3; the arm played in round 3 (one per
    block) puts its observation into its second batch, which holds two and is released only
    after round 4 at the earliest. No played super arm of rounds 1-4 depends on round 3 under
    DPUCB-MAT or DPTS-MAT (Chandak 2023, Algorithms 2 and 5: the index reads released batches
    only), so the two tables' output laws are equal: the pair's exact loss is 0. A policy whose
    round-4 index reads the unreleased observation (e.g. a Thompson posterior over all
    observations) plays round 4 differently on the two tables.
    """
    k = int(rank)
    if k < 1:
        raise AlgorithmInputError(f"rank must be >= 1, got {rank!r}")
    matroid = partition_matroid([b for b in range(k) for _ in range(2)], [1] * k)
    x = np.zeros((4, 2 * k))
    x_prime = x.copy()
    x_prime[2, :] = 1.0
    return matroid, x, x_prime, 4


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
