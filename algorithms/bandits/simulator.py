"""Many independent runs of a matroid-bandit policy: cumulative pseudo-regret, rewards, super arms.

Each run is played by one compiled call (``algorithms.bandits._kernels``) on
the policy's compiled state (``algorithms.bandits.indices``), which releases the
GIL, so runs execute in parallel threads (``n_workers``). Randomness: the ``rng`` argument
(None, int, SeedSequence or Generator; ``seed=`` is an alias) becomes a Generator whose
``spawn(n_runs)`` gives one child per run, and each child spawns two streams, one for the
environment's observations and one for the policy's noise. For an int or a SeedSequence, run
``r`` therefore depends only on ``(rng, r)``: the same value gives the same result for any
``n_workers``, and the first runs of a larger simulation equal a smaller one's. A Generator
is used as it is, and spawning advances it: passing the same Generator twice gives two
different (independent) simulations, each reproducible from the Generator's state.

Pseudo-regret of round ``t``: ``sum_{e in A*} mu_e - sum_{e in A_t} mu_e``
(Tao et al. 2025, Section 2 with the expectation over the observations taken).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from algorithms._validation import check_horizon
from algorithms.bandits import _kernels
from algorithms.bandits._kernel_matroids import as_kernel_matroid, greedy_basis
from algorithms.bandits._kernels import ENV_TABLE
from algorithms.bandits.environments import BanditInstance
from algorithms.bandits.indices import new_policy_state
from algorithms.bandits.policies import Policy
from algorithms.errors import AlgorithmInputError, InvalidHorizonError, ZeroRankMatroidError
from dpverify.support.progress import progress_bar

__all__ = ["SimulationResult", "simulate", "run_spawn_streams"]


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """Outcome of :func:`simulate`.

    Attributes
    ----------
    policy : Policy
    horizon, n_runs, rank : int
    checkpoints : ndarray (c,)
        The rounds (1-based) at which cumulative quantities were recorded.
    cumulative_regret : ndarray (n_runs, c)
        Cumulative pseudo-regret at each checkpoint.
    cumulative_reward : ndarray (n_runs, c)
        Cumulative realized reward at each checkpoint.
    super_arms : ndarray (n_runs, horizon, K) or None
        Played super arm of every round, in greedy order (descending index).
    index_rounds : ndarray (r,)
        Rounds whose index vectors were recorded.
    indices : ndarray (n_runs, r, m) or None
        ``J_t(e)`` at those rounds (``+inf`` for unplayed arms where the policy says so).
    index_orders : ndarray (n_runs, r, K) or None
        The super arm of those rounds sorted by ``J_t`` descending (``A^t`` of
        Chandak 2023, Section 4.1.3), ready for the permutation ``pi_t``.
    optimal_basis : ndarray (K,)
        ``A*`` (greedy on the true means, in descending-mean order).
    means : ndarray (m,)
    seconds : float
        Wall-clock time of the simulation.
    """

    policy: Policy
    horizon: int
    n_runs: int
    rank: int
    checkpoints: np.ndarray
    cumulative_regret: np.ndarray
    cumulative_reward: np.ndarray
    super_arms: np.ndarray | None
    index_rounds: np.ndarray
    indices: np.ndarray | None
    index_orders: np.ndarray | None
    optimal_basis: np.ndarray
    means: np.ndarray
    seconds: float = field(default=0.0)

    def mean_regret(self) -> np.ndarray:
        """Mean cumulative pseudo-regret over runs at each checkpoint."""
        return self.cumulative_regret.mean(axis=0)

    def regret_band(self, level: float = 0.95):
        """Pointwise Student-t confidence band ``(low, high)`` for the mean cumulative regret."""
        from scipy import stats

        r = self.cumulative_regret
        mean = r.mean(axis=0)
        if self.n_runs < 2:
            return mean.copy(), mean.copy()
        half = stats.t.ppf(0.5 + level / 2, self.n_runs - 1) * r.std(axis=0, ddof=1) / np.sqrt(self.n_runs)
        return mean - half, mean + half


def _rng_or_seed(rng, seed):
    """The ``rng=`` argument, or its alias ``seed=`` (AlgorithmInputError if both are given)."""
    if seed is not None:
        if rng is not None:
            raise AlgorithmInputError("pass rng= or its alias seed=, not both")
        return seed
    return rng


def run_spawn_streams(rng=None, n_runs: int = 1, *, seed=None):
    """Per-run ``(environment, policy)`` Generators: ``default_rng(rng).spawn(n_runs)``, each spawning 2.

    ``rng`` is None, an int, a SeedSequence or a Generator (``seed=`` is an alias); a Generator
    is advanced by the spawn (see the module docstring).
    """
    root = np.random.default_rng(_rng_or_seed(rng, seed))
    return [tuple(child.spawn(2)) for child in root.spawn(int(n_runs))]


def _prepare(matroid, environment, policy, horizon):
    if isinstance(matroid, BanditInstance):
        if environment is not None:
            raise AlgorithmInputError("pass either a BanditInstance or (matroid, environment), not both")
        matroid, environment = matroid.matroid, matroid.environment
    if not isinstance(policy, Policy):
        raise AlgorithmInputError(f"policy must be a Policy (see algorithms.bandits.policies), got {policy!r}")
    horizon = check_horizon(horizon)
    km = as_kernel_matroid(matroid)
    env_kind, env_arm, env_scalar = environment.kernel_parameters()
    means = np.ascontiguousarray(environment.means, dtype=np.float64)
    if means.size != km.n_elements:
        raise AlgorithmInputError(f"the environment has {means.size} arms but the matroid has {km.n_elements} elements")
    optimal = greedy_basis(km, means)
    rank = int(optimal.size)
    if rank == 0:
        raise ZeroRankMatroidError("the matroid has rank 0 (every element is a loop); a basis must be non-empty")
    table = np.zeros((1, 1))
    if env_kind == ENV_TABLE:
        table = np.array(environment.table, dtype=np.float64)  # writable copy: one numba specialization
        if table.shape[0] < horizon:
            raise InvalidHorizonError(f"horizon {horizon} exceeds the {table.shape[0]} rounds of the reward table")
    known = policy.horizon if policy.horizon is not None else horizon
    if policy.needs_horizon and known < horizon:
        raise InvalidHorizonError(f"{policy.name} was configured for horizon {known} < simulated {horizon}")
    env_arrays = _kernels.EnvironmentArrays(
        int(env_kind),
        np.ascontiguousarray(env_arm, dtype=np.float64),
        float(env_scalar),
        table,
        means,
        float(means[optimal].sum()),
    )
    return km, env_arrays, optimal, rank, horizon, int(known)


def simulate(
    matroid,
    environment=None,
    policy: Policy | None = None,
    horizon: int = 1000,
    *,
    n_runs: int = 1,
    rng=None,
    seed=None,
    checkpoints=None,
    record_super_arms: bool = False,
    record_indices_at=(),
    n_workers: int = 1,
    progress: bool = False,
) -> SimulationResult:
    """Play ``n_runs`` independent runs of ``policy`` for ``horizon`` rounds.

    Parameters
    ----------
    matroid : BanditInstance or matroid
        A :class:`~algorithms.bandits.environments.BanditInstance`, or a matroid
        (``algorithms.bandits._kernel_matroids`` or ``algorithms.matroids``)
        with ``environment`` given.
    environment : environment, optional
        Bernoulli, latency or table environment on the matroid's ground set.
    policy : Policy
    horizon : int
        Number of rounds (>= 1).
    n_runs : int
        Independent runs.
    rng : None, int, SeedSequence or Generator
        Run ``r`` uses the r-th child spawned from it (see the module docstring).
    seed : None, int, SeedSequence or Generator
        Alias of ``rng`` (passing both raises AlgorithmInputError).
    checkpoints : array_like of int, optional
        Rounds at which cumulative regret/reward are recorded; default every round.
    record_super_arms : bool
        Keep the ``(n_runs, horizon, K)`` array of played super arms.
    record_indices_at : iterable of int
        Rounds ``t`` whose index vectors ``J_t`` and greedy order are kept
        (to apply the permutation ``pi_t`` of Chandak 2023, Section 4.1.3).
    n_workers : int
        Threads running runs in parallel (results do not depend on it).
    progress : bool
        Show a progress bar (runs completed).

    Returns
    -------
    SimulationResult
    """
    if policy is None:
        raise AlgorithmInputError("a policy is required")
    km, env, optimal, rank, horizon, known = _prepare(matroid, environment, policy, horizon)
    means = env.means
    n_runs = int(n_runs)
    if n_runs < 1:
        raise AlgorithmInputError(f"n_runs must be >= 1, got {n_runs}")
    if checkpoints is None:
        ck = np.arange(1, horizon + 1, dtype=np.int64)
    else:
        ck = np.unique(np.asarray(checkpoints, dtype=np.int64))
        if ck.size == 0 or ck[0] < 1 or ck[-1] > horizon:
            raise InvalidHorizonError(f"checkpoints must lie in [1, {horizon}]")
    idx_rounds = np.unique(np.asarray(list(record_indices_at), dtype=np.int64))
    if idx_rounds.size and (idx_rounds[0] < 1 or idx_rounds[-1] > horizon):
        raise InvalidHorizonError(f"record_indices_at must lie in [1, {horizon}]")
    m = means.size
    regret = np.zeros((n_runs, ck.size))
    reward = np.zeros((n_runs, ck.size))
    arms = np.full((n_runs, horizon, rank), -1, dtype=np.int64) if record_super_arms else None
    idx = np.zeros((n_runs, idx_rounds.size, m)) if idx_rounds.size else None
    idx_orders = np.full((n_runs, idx_rounds.size, rank), -1, dtype=np.int64) if idx_rounds.size else None
    eps_arm = float(policy.arm_epsilon(rank))
    streams = run_spawn_streams(_rng_or_seed(rng, seed), n_runs)
    empty = _kernels.no_recording(m, rank, ck, regret[0], reward[0])
    mk = km.arrays()

    def one(r):
        rng_env, rng_pol = streams[r]
        rec = _kernels.Recording(
            ck,
            regret[r],
            reward[r],
            arms[r] if arms is not None else empty.arms,
            idx_rounds,
            idx[r] if idx is not None else empty.indices,
            idx_orders[r] if idx_orders is not None else empty.index_orders,
        )
        state = new_policy_state(policy.code, m, rank, eps_arm, float(known))
        _kernels.simulate_run(state, mk, env, horizon, rng_env, rng_pol, rec)
        return r

    start = time.perf_counter()
    with progress_bar(total=n_runs, desc=f"{policy.name} eps={policy.epsilon}", enabled=progress) as bar:
        if n_workers <= 1 or n_runs == 1:
            for r in range(n_runs):
                one(r)
                bar.update(1)
        else:
            with ThreadPoolExecutor(max_workers=int(n_workers)) as pool:
                for _ in pool.map(one, range(n_runs)):
                    bar.update(1)
    seconds = time.perf_counter() - start
    order = np.argsort(-means[optimal], kind="stable")
    return SimulationResult(
        policy=policy,
        horizon=horizon,
        n_runs=n_runs,
        rank=rank,
        checkpoints=ck,
        cumulative_regret=regret,
        cumulative_reward=reward,
        super_arms=arms,
        index_rounds=idx_rounds,
        indices=idx,
        index_orders=idx_orders,
        optimal_basis=optimal[order],
        means=means,
        seconds=seconds,
    )
