"""Compiled (numba) loop of the matroid-bandit simulator: one whole run per call, any policy.

One call plays ``horizon`` rounds of one policy on one matroid and environment. Each round:
the policy writes the index ``J_t(e)`` of every base arm; the arms are sorted by ``J_t``
descending (an insertion sort from the previous round's order, or from scratch for sampling
policies, then ties broken uniformly at random); the greedy algorithm (Chandak 2023,
Algorithm 1) takes the basis; each played arm is observed; the policy takes the round's
observations. The policies themselves (their states, indices and
updates, named after the papers' algorithms) live in :mod:`algorithms.bandits.indices`, which
is also where a policy is chosen: this loop is compiled once per policy state type.

The run reads four small structures instead of loose arrays: the policy's state, the
matroid (:class:`~algorithms.bandits._kernel_matroids.MatroidArrays`), the environment
(:data:`EnvironmentArrays`) and what to record (:data:`Recording`).

Randomness: ``rng_env`` draws the observations, ``rng_pol`` draws the policy's noise
(Laplace, Gaussian samples, tie-breaking); both are numpy Generators passed into numba, so
one run is a deterministic function of its two seeds. The functions hold no GIL
(``nogil=True``), so runs execute in parallel threads.

References
----------
.. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
   Optimization", MSc thesis, University of Alberta, 2023. Algorithm 1.
"""

from __future__ import annotations

from collections import namedtuple

import numba
import numpy as np

from algorithms.bandits._kernel_matroids import GreedyScratch, greedy_in_order
from algorithms.bandits.indices import policy_index, policy_resamples, policy_reset, policy_update

__all__ = [
    "ENV_BERNOULLI",
    "ENV_LATENCY",
    "ENV_TABLE",
    "EnvironmentArrays",
    "Recording",
    "simulate_run",
    "table_batch",
    "no_recording",
]

#: Kernel codes of the environment kinds (``EnvironmentArrays.kind``; the environments of
#: :mod:`algorithms.bandits.environments` report theirs in ``kernel_parameters()``).
ENV_BERNOULLI, ENV_LATENCY, ENV_TABLE = 0, 1, 2

#: The environment as the compiled loop reads it: ``kind`` (ENV_BERNOULLI, ENV_LATENCY, ENV_TABLE),
#: per-arm parameters ``arm (m,)`` (means or latencies), a ``scalar`` (the latency cap), a reward
#: ``table (rounds, m)`` (ENV_TABLE), the true ``means (m,)`` and the ``optimal_value`` sum of the
#: best basis's means (for the pseudo-regret).
EnvironmentArrays = namedtuple("EnvironmentArrays", ["kind", "arm", "scalar", "table", "means", "optimal_value"])

#: What a run writes: cumulative ``regret``/``reward`` (c,) at the rounds ``checkpoints`` (c,);
#: the played super arm of every round ``arms (horizon, K)`` (or ``(0, K)``: not recorded); the
#: index vectors ``indices (r, m)`` and greedy orders ``index_orders (r, K)`` at the sorted
#: rounds ``index_rounds (r,)``.
Recording = namedtuple(
    "Recording", ["checkpoints", "regret", "reward", "arms", "index_rounds", "indices", "index_orders"]
)


def no_recording(m: int, rank: int, checkpoints, regret, reward) -> Recording:
    """A :data:`Recording` of the cumulative quantities only (no super arms, no indices)."""
    return Recording(
        checkpoints,
        regret,
        reward,
        np.zeros((0, rank), dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros((0, m)),
        np.zeros((0, rank), dtype=np.int64),
    )


@numba.njit(cache=True, nogil=True, _nrt=False)
def _merge_desc(left, i, i_end, right, j, j_end, J, out, o):
    """Merge ``left[i:i_end]`` and ``right[j:j_end]``, each sorted by ``J`` descending, into ``out[o:]``.

    Stable: on equal ``J`` the item of ``left`` comes first.
    """
    while i < i_end and j < j_end:
        if J[right[j]] > J[left[i]]:
            out[o] = right[j]
            j += 1
        else:
            out[o] = left[i]
            i += 1
        o += 1
    while i < i_end:
        out[o] = left[i]
        i += 1
        o += 1
    while j < j_end:
        out[o] = right[j]
        j += 1
        o += 1


@numba.njit(cache=True, nogil=True, _nrt=False)
def _merge_sort_desc(items, n, J, tmp):
    """Bottom-up merge sort of ``items[:n]`` by ``J`` descending (stable), scratch ``tmp``."""
    width = 1
    passes = 0
    while width < n:
        if passes % 2 == 0:
            src, dst = items, tmp
        else:
            src, dst = tmp, items
        lo = 0
        while lo < n:
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            _merge_desc(src, lo, mid, src, mid, hi, J, dst, lo)
            lo = hi
        passes += 1
        width *= 2
    if passes % 2 == 1:
        for i in range(n):
            items[i] = tmp[i]


@numba.njit(cache=True, nogil=True, _nrt=False)
def _insertion_sort_desc(items, n, J, tmp):
    """Sort ``items[:n]`` by ``J`` descending: insertion sort (fast when nearly sorted), switching to
    merge sort once the shifts exceed ``8 n`` (many inversions, e.g. after large noise)."""
    budget = 8 * n + 16
    shifts = 0
    for i in range(1, n):
        key = items[i]
        v = J[key]
        j = i - 1
        while j >= 0 and J[items[j]] < v:
            items[j + 1] = items[j]
            j -= 1
            shifts += 1
        items[j + 1] = key
        if shifts > budget:
            _merge_sort_desc(items, n, J, tmp)
            return


@numba.njit(cache=True, nogil=True, _nrt=False)
def _resort(order, J, moved, k_prev, last_basis, rest, moved_sorted, scratch):
    """Re-sort ``order`` by ``J`` descending, assuming only last round's played arms moved much.

    The arms not played last round keep (nearly) their relative order, and so
    do the ``k_prev`` played arms among themselves (their indices shift
    together): both parts are insertion-sorted from the previous order (cost
    ~ m + inversions within each part) and merged. The result is a correct
    descending sort whatever the inputs (only the speed relies on the assumption).
    """
    m = order.shape[0]
    for q in range(k_prev):
        moved[last_basis[q]] = True
    n_rest = 0
    n_moved = 0
    for i in range(m):  # split, keeping the previous relative order of both parts
        e = order[i]
        if moved[e]:
            moved_sorted[n_moved] = e
            n_moved += 1
            moved[e] = False
        else:
            rest[n_rest] = e
            n_rest += 1
    _insertion_sort_desc(rest, n_rest, J, scratch)
    _insertion_sort_desc(moved_sorted, n_moved, J, scratch)
    _merge_desc(rest, 0, n_rest, moved_sorted, 0, n_moved, J, order, 0)


@numba.njit(cache=True, nogil=True)
def _shuffle_ties(order, J, rng):
    """Shuffle each run of equal ``J`` values in ``order`` uniformly at random (Fisher-Yates)."""
    m = order.shape[0]
    i = 0
    while i < m:
        j = i + 1
        v = J[order[i]]
        while j < m and J[order[j]] == v:
            j += 1
        if j - i > 1:
            for a in range(j - 1, i, -1):
                b = i + int(rng.integers(0, a - i + 1))
                tmp = order[a]
                order[a] = order[b]
                order[b] = tmp
        i = j


@numba.njit(cache=True, nogil=True, _nrt=False)
def _observe(env, t, e, rng_env):
    """Arm ``e``'s reward at round ``t``: Bernoulli, latency ``1 - (mu_e - 1 + Exp(1)) / L`` clipped at 0, or table."""
    if env.kind == ENV_BERNOULLI:
        return 1.0 if rng_env.random() < env.arm[e] else 0.0
    if env.kind == ENV_LATENCY:
        lat = env.arm[e] - 1.0 + rng_env.standard_exponential()
        r = 1.0 - lat / env.scalar
        return r if r > 0.0 else 0.0
    return env.table[t - 1, e]


@numba.njit(cache=True, nogil=True)
def simulate_run(state, matroid, env, horizon, rng_env, rng_pol, rec):
    """Play one run of the policy whose ``state`` is given; write what ``rec`` asks for.

    Parameters
    ----------
    state : policy state
        From :func:`algorithms.bandits.indices.new_policy_state`; reset here.
    matroid : MatroidArrays
    env : EnvironmentArrays
    horizon : int
        Rounds to play.
    rng_env, rng_pol : numpy.random.Generator
        The observations' and the policy's randomness.
    rec : Recording
        ``arms`` gets the played super arm of each round in greedy order (descending index);
        ``indices``/``index_orders`` get ``J_t`` and the super arm sorted by ``J_t`` descending at
        the rounds ``index_rounds``; ``regret``/``reward`` the cumulative values at ``checkpoints``
        (1-based rounds).

    Returns
    -------
    float
        The cumulative pseudo-regret after ``horizon`` rounds.
    """
    m = env.means.shape[0]
    K = state.rank
    J = np.empty(m, dtype=np.float64)
    xs = np.empty(m, dtype=np.float64)
    order = np.arange(m)
    basis = np.empty(m, dtype=np.int64)
    moved = np.zeros(m, dtype=np.bool_)
    rest = np.empty(m, dtype=np.int64)
    moved_sorted = np.empty(m, dtype=np.int64)
    scratch = np.empty(m, dtype=np.int64)
    n_vertices = max(matroid.n_vertices, 1)
    d = max(matroid.vectors.shape[1], 1)
    greedy = GreedyScratch(
        np.zeros(n_vertices, dtype=np.int64),
        np.zeros(n_vertices, dtype=np.int64),
        np.zeros(max(matroid.capacities.shape[0], 1), dtype=np.int64),
        np.zeros((d, d), dtype=np.float64),
    )
    means, optimal_value = env.means, env.optimal_value
    checkpoints, regret_out, reward_out = rec.checkpoints, rec.regret, rec.reward
    arms_out, index_rounds, index_out, index_order_out = rec.arms, rec.index_rounds, rec.indices, rec.index_orders
    resamples = policy_resamples(state)
    policy_reset(state)
    k_prev = 0
    cum_regret = 0.0
    cum_reward = 0.0
    ck = 0
    ir = 0
    record_arms = arms_out.shape[0] > 0
    for t in range(1, horizon + 1):
        policy_index(state, t, J, rng_pol)
        # ---- sort descending, random ties ----------------------------------------------
        if resamples or t == 1:
            fresh = np.argsort(-J)  # every index resampled: sort from scratch
            for i in range(m):
                order[i] = fresh[i]
        else:
            _resort(order, J, moved, k_prev, basis, rest, moved_sorted, scratch)
        _shuffle_ties(order, J, rng_pol)
        # ---- greedy basis --------------------------------------------------------------
        k_taken = greedy_in_order(order, K, matroid, greedy, basis)
        if ir < index_rounds.shape[0] and index_rounds[ir] == t:
            for e in range(m):
                index_out[ir, e] = J[e]
            for q in range(k_taken):
                index_order_out[ir, q] = basis[q]
            ir += 1
        # ---- play, observe, update -----------------------------------------------------
        round_mean = 0.0
        round_reward = 0.0
        for q in range(k_taken):
            e = basis[q]
            if record_arms:
                arms_out[t - 1, q] = e
            round_mean += means[e]
            x = _observe(env, t, e, rng_env)
            xs[q] = x
            round_reward += x
        policy_update(state, t, basis, xs, k_taken, rng_pol)
        k_prev = k_taken
        cum_regret += optimal_value - round_mean
        cum_reward += round_reward
        while ck < checkpoints.shape[0] and checkpoints[ck] == t:
            regret_out[ck] = cum_regret
            reward_out[ck] = cum_reward
            ck += 1
    return cum_regret


@numba.njit(cache=True, nogil=True)
def table_batch(size, state, matroid, env, horizon, rng, out):
    """``size`` runs on one fixed reward table (``env.kind`` 2) with one Generator.

    ``out[r, t]`` receives the bitmask ``sum_{e in A_t} 2^e`` of run ``r``'s super arm at round ``t + 1``.
    """
    K = state.rank
    m = env.means.shape[0]
    rec = Recording(
        np.array([horizon], dtype=np.int64),
        np.zeros(1),
        np.zeros(1),
        np.zeros((horizon, K), dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros((0, m)),
        np.zeros((0, K), dtype=np.int64),
    )
    for r in range(size):
        simulate_run(state, matroid, env, horizon, rng, rng, rec)
        for t in range(horizon):
            mask = 0
            for q in range(K):
                mask |= np.int64(1) << rec.arms[t, q]
            out[r, t] = mask
