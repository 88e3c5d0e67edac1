"""Compiled (numba) inner loop of the matroid-bandit simulator: one whole run per call.

One call plays ``horizon`` rounds of one policy on one matroid and environment:
each round computes the index ``J_t(e)`` of every base arm, sorts the arms by
``J_t`` descending (insertion sort from the previous round's order, then ties
broken uniformly at random), runs the greedy algorithm (Chandak 2023, Algorithm 1)
and updates the policy's (private) statistics with the played arms'
observations. The policy formulas and their seed equations are documented in
:mod:`algorithms.bandits.policies`; the codes below are the ``Policy.code``.

Randomness: ``rng_env`` draws the observations, ``rng_pol`` draws the policy's
noise (Laplace, Gaussian samples, tie-breaking); both are numpy Generators
passed into numba, so one run is a deterministic function of its two seeds.
The function holds no GIL (``nogil=True``), so runs execute in parallel threads.
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.bandits._kernel_matroids import greedy_in_order

__all__ = [
    "OMM",
    "DP_OMM",
    "LDP_OMM",
    "DPUCB_MAT",
    "DPTS_MAT",
    "CTS",
    "CUCB",
    "CUCB_LDP1",
    "CUCB_LDP2",
    "CUCB_DP",
    "simulate_run",
    "table_batch",
    "hybrid_counter_outputs",
    "hybrid_counter_batch",
    "hybrid_noise_bound",
    "MAX_LEVELS",
]

OMM, DP_OMM, LDP_OMM, DPUCB_MAT, DPTS_MAT, CTS, CUCB, CUCB_LDP1, CUCB_LDP2, CUCB_DP = range(10)
MAX_LEVELS = 48


@numba.njit(cache=True, nogil=True, inline="always")
def _lemma1_sum_bound(n, b, log_term):
    """Tao et al. 2025, Lemma 1 for a *sum* of ``n`` iid Lap(b).

    ``|sum| <= max{2b sqrt(2 n L), 4 b L}`` with ``L = ln(2/delta)``.
    """
    if n <= 0:
        return 0.0
    return max(2.0 * b * np.sqrt(2.0 * n * log_term), 4.0 * b * log_term)


@numba.njit(cache=True, nogil=True)
def hybrid_noise_bound(count, eps_arm, t):
    """High-probability bound on the hybrid counter's noise at ``count`` items, round ``t``.

    At count ``n`` with ``2^k <= n < 2^(k+1)`` the noise is the sum of ``k+1``
    iid Lap(2/eps') (logarithmic part, eps'/2) plus ``popcount(n - 2^k)`` iid
    Lap(2(k+1)/eps') (binary part, eps'/2, k+1 levels). **Choice**: Lemma 1
    (Tao et al. 2025) on each group at ``delta_t / 2`` with ``delta_t = t^-4``
    (the confidence level LDP-OMM uses), union bound: the bound holds with
    probability >= 1 - t^-4; at powers of two (no binary part) Lemma 1 at
    ``delta_t``. Equal to ``algorithms.counters.HybridCounterBank.error_bound_at``
    at ``delta = t^-4`` (checked in the tests).
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
    lnt = np.log(max(t, 1.0))
    if pc == 0:  # only the logarithmic part: Lemma 1 at delta
        return _lemma1_sum_bound(k + 1, 2.0 / eps_arm, np.log(2.0) + 4.0 * lnt)
    log_term = np.log(4.0) + 4.0 * lnt
    return _lemma1_sum_bound(k + 1, 2.0 / eps_arm, log_term) + _lemma1_sum_bound(
        pc, 2.0 * (k + 1) / eps_arm, log_term
    )


@numba.njit(cache=True, nogil=True, _nrt=False)
def _hybrid_insert(a, x, eps_arm, count, hstate, alpha, alpha_hat, noisy_sum, rng):
    """Insert ``x`` into arm ``a``'s hybrid counter (Chan, Shi, Song 2011).

    ``count[a]`` must already be incremented to ``n``. At ``n = 2^k`` the
    logarithmic release adds the items since the last release plus
    Lap(2/eps') and the binary mechanism restarts; otherwise item
    ``j = n - 2^k`` enters a binary mechanism of horizon ``2^k`` with ``k+1``
    levels and Lap(2(k+1)/eps') per p-sum. ``noisy_sum[a]`` becomes the
    released prefix sum. Amortized O(1): the binary output is updated
    incrementally (bits ``0..i-1`` of ``j-1`` clear, bit ``i`` sets).

    ``hstate[a]`` holds ``[log release, items since, k, 2^k, popcount(j), binary output]``.
    """
    n = count[a]
    if (n & (n - 1)) == 0:  # power of two: logarithmic release, binary mechanism restarts
        hstate[a, 0] += hstate[a, 1] + x + rng.laplace(0.0, 2.0 / eps_arm)
        hstate[a, 1] = 0.0
        k = 0
        while (1 << (k + 1)) <= n:
            k += 1
        kmax = int(hstate[a, 2]) + 1
        for lv in range(min(kmax + 1, alpha.shape[1])):
            alpha[a, lv] = 0.0
            alpha_hat[a, lv] = 0.0
        hstate[a, 2] = k
        hstate[a, 3] = n
        hstate[a, 4] = 0.0
        hstate[a, 5] = 0.0
        noisy_sum[a] = hstate[a, 0]
        return
    hstate[a, 1] += x
    k = int(hstate[a, 2])
    j = n - int(hstate[a, 3])
    i = 0
    while ((j >> i) & 1) == 0:
        i += 1
    acc = x
    out = hstate[a, 5]
    for lv in range(i):
        acc += alpha[a, lv]
        out -= alpha_hat[a, lv]
        alpha[a, lv] = 0.0
        alpha_hat[a, lv] = 0.0
    alpha[a, i] = acc
    alpha_hat[a, i] = acc + rng.laplace(0.0, 2.0 * (k + 1) / eps_arm)
    out += alpha_hat[a, i]
    hstate[a, 4] += 1.0 - i
    hstate[a, 5] = out
    noisy_sum[a] = hstate[a, 0] + out


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
            i, j, o = lo, mid, lo
            while i < mid and j < hi:
                if J[src[j]] > J[src[i]]:
                    dst[o] = src[j]
                    j += 1
                else:
                    dst[o] = src[i]
                    i += 1
                o += 1
            while i < mid:
                dst[o] = src[i]
                i += 1
                o += 1
            while j < hi:
                dst[o] = src[j]
                j += 1
                o += 1
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
    k_prev = n_moved
    i = 0
    j = 0
    o = 0
    while i < n_rest and j < k_prev:
        if J[rest[i]] >= J[moved_sorted[j]]:
            order[o] = rest[i]
            i += 1
        else:
            order[o] = moved_sorted[j]
            j += 1
        o += 1
    while i < n_rest:
        order[o] = rest[i]
        i += 1
        o += 1
    while j < k_prev:
        order[o] = moved_sorted[j]
        j += 1
        o += 1


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
def _observe(env_kind, env_arm, env_scalar, table, t, e, rng_env):
    if env_kind == 0:
        return 1.0 if rng_env.random() < env_arm[e] else 0.0
    if env_kind == 1:
        lat = env_arm[e] - 1.0 + rng_env.standard_exponential()
        r = 1.0 - lat / env_scalar
        return r if r > 0.0 else 0.0
    return table[t - 1, e]


@numba.njit(cache=True, nogil=True)
def simulate_run(
    policy, eps_arm, horizon_param, horizon,
    kind, n_vertices, edges, vectors, parts, capacities, uniform_rank, rank,
    env_kind, env_arm, env_scalar, table, means, optimal_value,
    rng_env, rng_pol,
    checkpoints, regret_out, reward_out,
    arms_out, index_rounds, index_out, index_order_out,
):
    """Play one run; write cumulative pseudo-regret/reward at ``checkpoints`` (1-based rounds).

    ``arms_out`` (horizon, K) or (0, K): played super arm of each round in
    greedy order (descending index). ``index_rounds``: sorted rounds whose
    index vector J_t (m,) goes to ``index_out`` and whose greedy order
    (super arm sorted by J_t descending) goes to ``index_order_out``.
    """
    m = means.shape[0]
    K = rank
    counts = np.zeros(m, dtype=np.int64)       # observations received (T_a)
    sums = np.zeros(m, dtype=np.float64)       # sum of (possibly noisy) observations
    J = np.empty(m, dtype=np.float64)
    order = np.arange(m)
    basis = np.empty(m, dtype=np.int64)
    moved = np.zeros(m, dtype=np.bool_)
    rest = np.empty(m, dtype=np.int64)
    moved_sorted = np.empty(m, dtype=np.int64)
    scratch = np.empty(m, dtype=np.int64)
    k_prev = 0
    parent = np.zeros(max(n_vertices, 1), dtype=np.int64)
    pcounts = np.zeros(max(capacities.shape[0], 1), dtype=np.int64)
    d = vectors.shape[1]
    work = np.zeros((max(d, 1), max(d, 1)), dtype=np.float64)
    # hybrid counters (DP-OMM)
    hstate = np.zeros((m, 6))
    n_levels = MAX_LEVELS if policy == DP_OMM else 1
    alpha = np.zeros((m, n_levels))
    alpha_hat = np.zeros((m, n_levels))
    noisy_sum = np.zeros(m)
    bound_c1 = np.zeros(m)
    bound_d1 = np.full(m, 8.0 / eps_arm)       # 4 b1 with b1 = 2/eps'

    bound_c2 = np.zeros(m)
    bound_d2 = np.zeros(m)
    inv_n = np.zeros(m)                        # 1 / T_e (0 while unplayed)
    isq_n = np.zeros(m)                        # 1 / sqrt(T_e)
    mean_n = np.full(m, np.inf)                # sums / T_e (+inf while unplayed)
    # lazy doubling batches (DPUCB-MAT, DPTS-MAT)
    buf_sum = np.zeros(m)
    buf_n = np.zeros(m, dtype=np.int64)
    batch = np.zeros(m, dtype=np.int64)        # T_e = 2^{s_e+1} after an update, 0 before
    est = np.zeros(m)                          # w~_e
    # tree-based aggregation over rounds (CUCB-DP)
    tree_levels = 1
    if policy == CUCB_DP:
        while (1 << tree_levels) <= horizon_param:
            tree_levels += 1                   # floor(log2 T) + 1 levels
    t_alpha = np.zeros((tree_levels if policy == CUCB_DP else 1, m))
    t_alpha_hat = np.zeros((tree_levels if policy == CUCB_DP else 1, m))
    xvec = np.zeros(m)
    tree_sum = np.zeros(m)
    tree_scale = 2.0 * tree_levels / eps_arm   # Lap(2 K L / eps) per coordinate, eps_arm = eps / K
    ln_T = np.log(max(horizon_param, 2.0))

    cum_regret = 0.0
    cum_reward = 0.0
    ck = 0
    ir = 0
    record_arms = arms_out.shape[0] > 0
    for t in range(1, horizon + 1):
        lnt = np.log(t)
        # ---- indices J_t(e) -------------------------------------------------------------
        if policy == OMM:
            r = np.sqrt(2.0 * lnt)
            for e in range(m):                 # mean_n = +inf, isq_n = 0 while unplayed
                J[e] = mean_n[e] + r * isq_n[e]
        elif policy == DP_OMM:
            r = np.sqrt(2.0 * lnt)
            lt = np.log(4.0) + 4.0 * lnt       # ln(2 / (delta/2)), delta = t^-4
            slt = np.sqrt(lt)
            lt0 = np.log(2.0) + 4.0 * lnt      # ln(2 / delta) (powers of two: one noise group)
            slt0 = np.sqrt(lt0)
            for e in range(m):
                n = counts[e]
                if n == 0:
                    J[e] = np.inf
                else:
                    # Lemma 1 (sum form) on the noise groups: max{2b sqrt(2 n L), 4 b L}
                    if bound_d2[e] == 0.0:
                        b = max(bound_c1[e] * slt0, bound_d1[e] * lt0)
                    else:
                        b = max(bound_c1[e] * slt, bound_d1[e] * lt) + max(bound_c2[e] * slt, bound_d2[e] * lt)
                    J[e] = (noisy_sum[e] + b) * inv_n[e] + r * isq_n[e]
        elif policy == LDP_OMM:
            r = np.sqrt(2.0 * lnt)
            l2 = np.log(2.0) + 4.0 * lnt       # ln(2 t^4)
            c1 = (2.0 / eps_arm) * np.sqrt(2.0 * l2)
            c2 = (4.0 / eps_arm) * l2
            for e in range(m):                 # mean_n = +inf, isq_n = inv_n = 0 while unplayed
                J[e] = mean_n[e] + r * isq_n[e] + max(c1 * isq_n[e], c2 * inv_n[e])
        elif policy == DPUCB_MAT or policy == DPTS_MAT:
            lk = np.log(K * t)
            for e in range(m):
                te = batch[e]
                if te == 0:
                    J[e] = np.inf
                elif policy == DPUCB_MAT:
                    J[e] = est[e] + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)
                else:
                    J[e] = rng_pol.normal(est[e] + 3.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))
        elif policy == CTS:
            for e in range(m):
                n = counts[e]
                if n == 0:
                    J[e] = np.inf
                else:
                    J[e] = rng_pol.normal(sums[e] / n, 1.0 / np.sqrt(n))
        else:  # CUCB family: min{mean + radius, 1}; radius = +inf (index 1) when T_i = 0
            for e in range(m):
                n = counts[e]
                if n == 0:
                    J[e] = 1.0
                    continue
                if policy == CUCB:
                    v = sums[e] / n + np.sqrt(1.5 * lnt / n)
                elif policy == CUCB_LDP1 or policy == CUCB_LDP2:
                    v = sums[e] / n + 4.0 * np.sqrt(2.0 * ln_T / (eps_arm * eps_arm * n))
                else:
                    v = tree_sum[e] / n + np.sqrt(4.0 * np.log(m * horizon_param) / n) + \
                        12.0 * ln_T ** 3 / (eps_arm * n)
                J[e] = v if v < 1.0 else 1.0
        # ---- sort descending, random ties ----------------------------------------------
        if policy == DPTS_MAT or policy == CTS or t == 1:
            fresh = np.argsort(-J)             # every index resampled: sort from scratch
            for i in range(m):
                order[i] = fresh[i]
        else:
            _resort(order, J, moved, k_prev, basis, rest, moved_sorted, scratch)
        _shuffle_ties(order, J, rng_pol)
        # ---- greedy basis --------------------------------------------------------------
        k_taken = greedy_in_order(order, K, kind, n_vertices, edges, vectors, parts, capacities,
                                  uniform_rank, parent, pcounts, work, basis)
        if ir < index_rounds.shape[0] and index_rounds[ir] == t:
            for e in range(m):
                index_out[ir, e] = J[e]
            for q in range(k_taken):
                index_order_out[ir, q] = basis[q]
            ir += 1
        # ---- play, observe, update -----------------------------------------------------
        round_mean = 0.0
        round_reward = 0.0
        least = -1
        for q in range(k_taken):
            e = basis[q]
            if record_arms:
                arms_out[t - 1, q] = e
            round_mean += means[e]
            x = _observe(env_kind, env_arm, env_scalar, table, t, e, rng_env)
            round_reward += x
            if policy == OMM or policy == CTS or policy == CUCB:
                counts[e] += 1
                sums[e] += x
                inv_n[e] = 1.0 / counts[e]
                isq_n[e] = np.sqrt(inv_n[e])
                mean_n[e] = sums[e] * inv_n[e]
            elif policy == DP_OMM:
                counts[e] += 1
                _hybrid_insert(e, x, eps_arm, counts, hstate, alpha, alpha_hat, noisy_sum, rng_pol)
                n = counts[e]
                k1 = hstate[e, 2] + 1.0         # logarithmic part: k+1 terms Lap(2/eps')
                pc = hstate[e, 4]               # binary part: popcount(j) terms Lap(2(k+1)/eps')
                b2 = 2.0 * k1 / eps_arm
                bound_c1[e] = (4.0 / eps_arm) * np.sqrt(2.0 * k1)
                bound_c2[e] = 2.0 * b2 * np.sqrt(2.0 * pc)
                bound_d2[e] = 4.0 * b2 if pc > 0 else 0.0
                inv_n[e] = 1.0 / n
                isq_n[e] = np.sqrt(inv_n[e])
            elif policy == LDP_OMM or policy == CUCB_LDP1:
                counts[e] += 1
                sums[e] += x + rng_pol.laplace(0.0, 1.0 / eps_arm)
                inv_n[e] = 1.0 / counts[e]
                isq_n[e] = np.sqrt(inv_n[e])
                mean_n[e] = sums[e] * inv_n[e]
            elif policy == DPUCB_MAT or policy == DPTS_MAT:
                buf_sum[e] += x
                buf_n[e] += 1
                counts[e] += 1
                target = 1 if batch[e] == 0 else 2 * batch[e]
                if buf_n[e] == target:
                    batch[e] = target
                    est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / eps_arm)) / target
                    buf_sum[e] = 0.0
                    buf_n[e] = 0
            elif policy == CUCB_LDP2:
                if least < 0 or counts[e] < counts[least]:
                    least = e
                xvec[e] = x
            else:  # CUCB_DP
                xvec[e] = x
        if policy == CUCB_LDP2 and least >= 0:
            counts[least] += 1
            sums[least] += xvec[least] + rng_pol.laplace(0.0, 1.0 / eps_arm)
        elif policy == CUCB_DP:
            # tree-based aggregation (binary mechanism over rounds) of the vector X_t
            i = 0
            while ((t >> i) & 1) == 0:
                i += 1
            for e in range(m):
                acc = xvec[e]
                for lv in range(i):
                    acc += t_alpha[lv, e]
                t_alpha[i, e] = acc
                t_alpha_hat[i, e] = acc + rng_pol.laplace(0.0, tree_scale)
            for lv in range(i):
                for e in range(m):
                    t_alpha[lv, e] = 0.0
                    t_alpha_hat[lv, e] = 0.0
            for e in range(m):
                s = 0.0
                lv = 0
                tt = t
                while tt > 0:
                    if tt & 1:
                        s += t_alpha_hat[lv, e]
                    tt >>= 1
                    lv += 1
                tree_sum[e] = s
            for q in range(k_taken):
                e = basis[q]
                counts[e] += 1
                xvec[e] = 0.0
        k_prev = k_taken
        cum_regret += optimal_value - round_mean
        cum_reward += round_reward
        while ck < checkpoints.shape[0] and checkpoints[ck] == t:
            regret_out[ck] = cum_regret
            reward_out[ck] = cum_reward
            ck += 1
    return cum_regret


@numba.njit(cache=True, nogil=True)
def table_batch(size, policy, eps_arm, horizon_param, horizon, kind, n_vertices, edges, vectors, parts,
                 capacities, uniform_rank, rank, table, means, optimal_value, rng, out):
    """``size`` runs on one fixed reward table with one Generator; ``out[r, t]`` = bitmask of round t."""
    ck = np.array([horizon], dtype=np.int64)
    reg = np.zeros(1)
    rew = np.zeros(1)
    arms = np.zeros((horizon, rank), dtype=np.int64)
    idx_rounds = np.zeros(0, dtype=np.int64)
    idx = np.zeros((0, means.shape[0]))
    idx_ord = np.zeros((0, rank), dtype=np.int64)
    for r in range(size):
        simulate_run(policy, eps_arm, horizon_param, horizon, kind, n_vertices, edges, vectors, parts,
                     capacities, uniform_rank, rank, 2, means, 0.0, table, means, optimal_value,
                     rng, rng, ck, reg, rew, arms, idx_rounds, idx, idx_ord)
        for t in range(horizon):
            mask = 0
            for q in range(rank):
                mask |= np.int64(1) << arms[t, q]
            out[r, t] = mask


@numba.njit(cache=True, nogil=True)
def hybrid_counter_outputs(stream, eps_arm, rng):
    """Released noisy prefix sums of one arm's hybrid counter (the DP-OMM counter) over ``stream``."""
    n = stream.shape[0]
    count = np.zeros(1, dtype=np.int64)
    hstate = np.zeros((1, 6))
    alpha = np.zeros((1, MAX_LEVELS))
    alpha_hat = np.zeros((1, MAX_LEVELS))
    noisy = np.zeros(1)
    out = np.empty(n)
    for i in range(n):
        count[0] += 1
        _hybrid_insert(0, stream[i], eps_arm, count, hstate, alpha, alpha_hat, noisy, rng)
        out[i] = noisy[0]
    return out


@numba.njit(cache=True, nogil=True)
def hybrid_counter_batch(stream, eps_arm, size, rng):
    """``size`` independent runs of :func:`hybrid_counter_outputs`: array (size, len(stream))."""
    out = np.empty((size, stream.shape[0]))
    for r in range(size):
        out[r] = hybrid_counter_outputs(stream, eps_arm, rng)
    return out
