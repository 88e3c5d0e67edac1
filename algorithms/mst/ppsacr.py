"""PPSACR and One-Shot-PPSACR (Pagh et al. 2025, Section 3.3, Algorithm 4 and Theorem 3.5).

PPSACR (probability proportional to size with adaptive candidate removal): items ``0..N-1``
with sizes ``p_i > 0``, a budget ``k`` and a removal rule ``R(selected sequence) -> items to
drop``. With candidates ``C`` = all items and ``S = ()``: while ``|S| < k`` and ``C`` is not
empty, pick ``i`` in ``C`` with probability ``p_i / sum_C p``, append it to ``S`` and set
``C = C - ({i} u R(S))``. The probability of a whole output sequence ``(i_1..i_r)`` is

    prod_j p_{i_j} / sum_{C_j} p        (C_j = candidates before step j),

provided each ``i_j`` is in ``C_j`` and the process stops after ``i_r`` (``r = k`` or ``C``
empty); otherwise it is 0. This gives exact output distributions on small instances.

One-Shot-PPSACR draws ``X_i = E_i / p_i`` (``E_i`` iid Exp(1)) once and repeatedly takes the
candidate with the smallest ``X_i``, applying the same removals; Theorem 3.5 (memorylessness of
the exponential) says it has the same distribution. With ``p_e = exp(-epsilon0 w_e / (2D))`` and the
graphic removal rule (drop edges that close a cycle) PPSACR is Algorithm 2 and One-Shot-PPSACR
is Algorithm 3.

Sizes are taken as ``log_sizes`` (``ln p_i``) throughout so that sizes like ``exp(-5000)`` stay
representable; :func:`log_sizes_of` converts positive sizes. Sequences are tuples of ints.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable

import numpy as np
from scipy.special import logsumexp

from algorithms.errors import AlgorithmInputError, InvalidWeightsError
from algorithms.graphs import as_graph_arrays
from algorithms.graphs.union_find import component_roots

__all__ = [
    "log_sizes_of",
    "ppsacr",
    "one_shot_ppsacr",
    "ppsacr_sequence_log_probability",
    "ppsacr_sequence_distribution",
    "ppsacr_set_distribution",
    "GraphicRemovalRule",
    "FixedRemovalRule",
    "HashedRemovalRule",
]

RemovalRule = Callable[[tuple], Iterable[int]]


def log_sizes_of(sizes) -> np.ndarray:
    """``ln p`` for positive finite sizes ``p`` (raises InvalidWeightsError otherwise)."""
    p = np.asarray(sizes, dtype=np.float64)
    if p.ndim != 1 or not np.all(np.isfinite(p)) or np.any(p <= 0):
        raise InvalidWeightsError("PPSACR sizes must be a 1-D array of finite reals > 0")
    return np.log(p)


def _check_log_sizes(log_sizes) -> np.ndarray:
    q = np.asarray(log_sizes, dtype=np.float64)
    if q.ndim != 1 or q.size == 0 or np.any(np.isnan(q)) or np.any(q == np.inf):
        raise InvalidWeightsError(
            "log_sizes must be a non-empty 1-D array of reals (ln of sizes > 0; -inf, size 0, is not allowed)"
        )
    if np.any(q == -np.inf):
        raise InvalidWeightsError("log_sizes must be finite: every PPSACR item has a size > 0")
    return q


def _check_k(k, n_items: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or int(k) < 0:
        raise AlgorithmInputError(f"k must be an integer >= 0, got {k!r}")
    return int(k)


def _removed(rule: RemovalRule | None, selected: tuple, n_items: int) -> set:
    if rule is None:
        return set()
    out = set()
    for i in rule(selected):
        i = int(i)
        if not 0 <= i < n_items:
            raise AlgorithmInputError(f"removal rule returned item {i}, outside 0..{n_items - 1}")
        out.add(i)
    return out


def ppsacr(log_sizes, k: int, removal_rule: RemovalRule | None = None, rng=None) -> tuple:
    """Pagh et al. 2025, Algorithm 4 (PPSACR): fresh proportional-to-size draw at every step.

    Parameters
    ----------
    log_sizes : 1-D array of finite reals
        ``ln p_i`` of items ``0..N-1``.
    k : int >= 0
        Budget (number of items selected at most).
    removal_rule : callable or None
        ``removal_rule(selected_tuple) -> iterable of items`` dropped after each selection
        (None: no adaptive removal, i.e. sampling without replacement).
    rng : None, int, SeedSequence or Generator

    Returns
    -------
    tuple of selected items in selection order.

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Section 3.3, Algorithm 4.
    """
    q = _check_log_sizes(log_sizes)
    k = _check_k(k, q.size)
    rng = np.random.default_rng(rng)
    alive = np.ones(q.size, dtype=bool)
    selected: tuple = ()
    while len(selected) < k and alive.any():
        cand = np.flatnonzero(alive)
        # Gumbel-max trick: argmax(ln p + G) is a draw proportional to p (one fresh draw per step).
        i = int(cand[np.argmax(q[cand] + rng.gumbel(size=cand.size))])
        selected = selected + (i,)
        alive[i] = False
        for r in _removed(removal_rule, selected, q.size):
            alive[r] = False
    return selected


def one_shot_ppsacr(log_sizes, k: int, removal_rule: RemovalRule | None = None, rng=None) -> tuple:
    """Pagh et al. 2025, Theorem 3.5 (One-Shot-PPSACR): draw ``X_i = E_i / p_i`` once, take smallest candidates.

    Same parameters and output as :func:`ppsacr`; ``ln X_i = ln E_i - ln p_i`` is used.

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Theorem 3.5.
    """
    q = _check_log_sizes(log_sizes)
    k = _check_k(k, q.size)
    rng = np.random.default_rng(rng)
    log_x = np.log(rng.standard_exponential(size=q.size)) - q
    alive = np.ones(q.size, dtype=bool)
    selected: tuple = ()
    for i in np.argsort(log_x, kind="stable"):
        if len(selected) >= k:
            break
        i = int(i)
        if not alive[i]:
            continue
        selected = selected + (i,)
        alive[i] = False
        for r in _removed(removal_rule, selected, q.size):
            alive[r] = False
    return selected


def ppsacr_sequence_log_probability(log_sizes, sequence, k: int, removal_rule: RemovalRule | None = None) -> float:
    """Exact ``ln P[PPSACR outputs sequence]`` (``-inf`` for an infeasible sequence).

    Product over steps of ``p_{i_j} / sum_{C_j} p``; 0 if an item is not a candidate when
    taken, or if the process would not stop after the last item.
    """
    q = _check_log_sizes(log_sizes)
    k = _check_k(k, q.size)
    alive = np.ones(q.size, dtype=bool)
    total = 0.0
    selected: tuple = ()
    seq = tuple(int(i) for i in sequence)
    if len(seq) > k:
        return -np.inf
    for i in seq:
        if not (0 <= i < q.size) or not alive[i]:
            return -np.inf
        total += q[i] - logsumexp(q[alive])
        selected = selected + (i,)
        alive[i] = False
        for r in _removed(removal_rule, selected, q.size):
            alive[r] = False
    if len(seq) < k and alive.any():
        return -np.inf
    return float(total)


def ppsacr_sequence_distribution(log_sizes, k: int, removal_rule: RemovalRule | None = None) -> dict:
    """Exact distribution of PPSACR's output sequence by enumeration (small instances only).

    Returns ``{sequence_tuple: probability}`` over every feasible sequence; probabilities
    sum to 1 up to rounding. Cost: the number of feasible sequences times N.
    """
    q = _check_log_sizes(log_sizes)
    k = _check_k(k, q.size)
    out: dict = {}

    def recurse(selected: tuple, alive: np.ndarray, logp: float) -> None:
        if len(selected) >= k or not alive.any():
            out[selected] = float(np.exp(logp))
            return
        cand = np.flatnonzero(alive)
        norm = logsumexp(q[cand])
        for i in cand:
            i = int(i)
            nxt = selected + (i,)
            alive2 = alive.copy()
            alive2[i] = False
            for r in _removed(removal_rule, nxt, q.size):
                alive2[r] = False
            recurse(nxt, alive2, logp + q[i] - norm)

    recurse((), np.ones(q.size, dtype=bool), 0.0)
    return out


def ppsacr_set_distribution(log_sizes, k: int, removal_rule: RemovalRule | None = None) -> dict:
    """Exact distribution of the *set* PPSACR selects: ``{sorted tuple: probability}``."""
    sets: dict = defaultdict(float)
    for seq, p in ppsacr_sequence_distribution(log_sizes, k, removal_rule).items():
        sets[tuple(sorted(seq))] += p
    return dict(sets)


class GraphicRemovalRule:
    """Removal rule of Algorithm 2 (Pagh et al. 2025, Example 3.4): drop every edge closing a cycle.

    ``rule(selected)`` returns the edges (indices) whose endpoints are already connected by the
    selected edges, including the selected ones. Picklable (plain data).
    """

    def __init__(self, data):
        g = as_graph_arrays(data)
        self.n = g.n
        self.edges = g.edges
        self._memo: dict = {}

    def __call__(self, selected: tuple) -> np.ndarray:
        key = frozenset(int(e) for e in selected)  # the rule depends on the set only
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._closing_edges(key)
        return hit

    def _closing_edges(self, selected) -> np.ndarray:
        roots = component_roots(self.n, self.edges[:, 0], self.edges[:, 1], np.fromiter(selected, dtype=np.int64))
        return np.flatnonzero(roots[self.edges[:, 0]] == roots[self.edges[:, 1]])


class FixedRemovalRule:
    """A removal rule given as a table: after selecting item i, drop ``table[i]`` (any items).

    Depends on the last selected item only; random tables give arbitrary-looking rules for
    testing PPSACR == One-Shot-PPSACR beyond the graphic case. Picklable.
    """

    def __init__(self, table):
        self.table = {int(i): tuple(int(j) for j in drop) for i, drop in dict(table).items()}

    def __call__(self, selected: tuple) -> tuple:
        return self.table.get(int(selected[-1]), ()) if selected else ()


class HashedRemovalRule:
    """An arbitrary adaptive removal rule: a pseudo-random set determined by the whole sequence.

    ``rule(selected)`` drops each item ``j`` independently with probability ``drop_probability``,
    by a draw seeded from ``(seed, len(selected), selected)``: a fixed (deterministic) function
    of the full ordered sequence, as PPSACR allows. Picklable.
    """

    def __init__(self, n_items: int, seed: int, drop_probability: float = 0.3):
        self.n_items = int(n_items)
        self.seed = int(seed)
        self.drop_probability = float(drop_probability)
        self._memo: dict = {}

    def __call__(self, selected: tuple) -> np.ndarray:
        key = tuple(int(i) for i in selected)
        hit = self._memo.get(key)
        if hit is None:
            entropy = [self.seed, len(key), *[i + 1 for i in key]]
            u = np.random.default_rng(np.random.SeedSequence(entropy)).random(self.n_items)
            hit = self._memo[key] = np.flatnonzero(u < self.drop_probability)
        return hit
