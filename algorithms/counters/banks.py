"""Banks of independent continual-release counters, advanced independently and vectorized.

A *bank* holds ``n_counters = prod(shape)`` independent counters (for the bandit simulator:
``shape = (n_runs, n_arms)``, one counter per arm per run). Each counter has its own clock: its
j-th item is the j-th value added to it.

Interface (all banks)
---------------------
``bank = HybridCounterBank(shape, epsilon, rng)`` (binary banks also take ``horizon``):

- ``bank.add(index, values) -> noisy_sums``: ``index`` selects distinct counters (a flat int
  array into ``range(n_counters)``, a boolean mask of ``shape``, or a tuple of index arrays
  as from ``np.nonzero``); ``values`` (broadcast to the selection, each in [0, 1] -- the
  privacy claims assume it; :class:`~algorithms.errors.InvalidRewardError` otherwise) is the next
  item of each selected counter. Returns the new noisy prefix sums of those counters.
- ``bank.noisy_sums(index=None)``: current noisy sums (0 for a counter with no items);
  ``bank.counts``: items per counter (array of ``shape``).
- ``bank.error_bound(delta, index=None)``: for each counter with n items, a bound B with
  P(|noisy sum - true sum| > B) <= delta at that n (see each class; 0 when n = 0).
- ``bank.epsilon``: the claimed eps of each counter's whole output sequence (items in [0, 1],
  one item changed). ``bank.structure(length)``: the :class:`LaplaceLinearStructure` of one
  counter's first ``length`` outputs (for exact privacy loss).

Randomness: one Laplace draw per selected counter per ``add`` (``rng.laplace`` on the selection
size), so the draws depend only on the sequence of selections, never on the values; the same
seed and the same calls give the same outputs. Counters never share noise.

Single-stream helpers (``binary_mechanism_outputs(stream, epsilon, rng)`` and friends) return
the whole output sequence of one counter; the ``*Mechanism`` classes are dpverify mechanisms
(``mechanism(stream, rng)`` and ``mechanism.sample(stream, size, rng) -> (size, T)``).

References
----------
.. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011 (binary, logarithmic and hybrid mechanisms).
.. [2] C. Dwork, M. Naor, T. Pitassi, G. N. Rothblum, "Differential Privacy under Continual
   Observation", STOC 2010 (tree-based aggregation).
.. [3] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025. Algorithm 1 (one hybrid counter per arm).
.. [4] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 3 (tree-based aggregation of the
   K-sparse vector stream).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from algorithms._validation import check_epsilon, check_horizon
from algorithms.counters.compiled import (
    HYBRID_STATE_WIDTH,
    binary_step,
    hybrid_insert,
    hybrid_noise_bound_array,
    hybrid_output,
)
from algorithms.counters.laplace_tails import laplace_sum_deviation_bound
from algorithms.counters.structure import (
    LaplaceLinearStructure,
    binary_levels,
    binary_structure,
    hybrid_structure,
    logarithmic_structure,
)
from algorithms.errors import (
    AlgorithmInputError,
    InvalidHorizonError,
    InvalidRewardError,
)

__all__ = [
    "CounterBank",
    "BinaryCounterBank",
    "LogarithmicCounterBank",
    "HybridCounterBank",
    "TreeAggregationBank",
    "binary_mechanism_outputs",
    "logarithmic_mechanism_outputs",
    "hybrid_mechanism_outputs",
    "tree_aggregation_outputs",
    "BinaryMechanism",
    "LogarithmicMechanism",
    "HybridMechanism",
]


@njit(cache=True)
def _binary_add(flat, v, t, noise, alpha, alpha_hat, out):
    for j in range(flat.size):
        out[j] = binary_step(alpha, alpha_hat, flat[j], t[j], v[j], noise[j])


@njit(cache=True)
def _hybrid_add(flat, v, t, std, epsilon, state, alpha, alpha_hat, out):
    for j in range(flat.size):
        out[j] = hybrid_insert(state, alpha, alpha_hat, flat[j], t[j], v[j], std[j], epsilon)


@njit(cache=True)
def _hybrid_outputs(flat, state, out):
    for j in range(flat.size):
        out[j] = hybrid_output(state, flat[j])


@njit(cache=True)
def _logarithmic_add(flat, v, t, noise, release, block, out):
    for j in range(flat.size):
        c = flat[j]
        n = t[j]
        block[c] += v[j]
        if n & (n - 1) == 0:
            release[c] += block[c] + noise[j]
            block[c] = 0.0
        out[j] = release[c]


def _floor_log2(n: np.ndarray) -> np.ndarray:
    """floor(log2 n) for positive int64 n (exact for n < 2^53)."""
    out = np.floor(np.log2(n.astype(np.float64))).astype(np.int64)
    # guard against rounding at exact powers of two
    out -= (np.left_shift(1, out) > n).astype(np.int64)
    out += (np.left_shift(1, out + 1) <= n).astype(np.int64)
    return out


def _popcount(s: np.ndarray) -> np.ndarray:
    s = np.asarray(s, dtype=np.int64).copy()
    c = np.zeros(s.shape, dtype=np.int64)
    while np.any(s):
        c += s & 1
        s >>= 1
    return c


class CounterBank:
    """Common bookkeeping of the banks (see the module docstring for the interface)."""

    def __init__(self, shape, epsilon, rng=None):
        self.shape = (
            tuple(np.atleast_1d(np.asarray(shape, dtype=np.int64)).tolist()) if np.ndim(shape) else (int(shape),)
        )
        if any(s < 1 for s in self.shape):
            raise AlgorithmInputError(f"bank shape entries must be >= 1, got {self.shape}")
        self.n_counters = int(np.prod(self.shape))
        self.epsilon = check_epsilon(epsilon)
        self.rng = np.random.default_rng(rng)
        self._count = np.zeros(self.n_counters, dtype=np.int64)
        self._true = np.zeros(self.n_counters)

    # ---- index handling -----------------------------------------------------------------------
    def _flat(self, index) -> np.ndarray:
        if index is None:
            return np.arange(self.n_counters)
        if isinstance(index, tuple):
            flat = np.ravel_multi_index(tuple(np.asarray(i, dtype=np.int64) for i in index), self.shape)
        else:
            arr = np.asarray(index)
            if arr.dtype == bool:
                if arr.shape != self.shape:
                    raise AlgorithmInputError(f"a boolean index must have the bank shape {self.shape}, got {arr.shape}")
                flat = np.flatnonzero(arr)
            else:
                if arr.size and arr.dtype.kind not in "iu":
                    raise AlgorithmInputError("counter indices must be integers")
                flat = arr.astype(np.int64).ravel()
                if flat.size and (flat.min() < 0 or flat.max() >= self.n_counters):
                    raise AlgorithmInputError(f"flat counter indices must lie in range({self.n_counters})")
        return flat

    def _values(self, values, size: int) -> np.ndarray:
        v = (
            np.broadcast_to(np.asarray(values, dtype=np.float64), (size,))
            if np.ndim(values) == 0
            else np.asarray(values, dtype=np.float64).ravel()
        )
        if v.size != size:
            raise AlgorithmInputError(f"got {v.size} values for {size} selected counters")
        if not np.all((v >= 0.0) & (v <= 1.0)):
            raise InvalidRewardError("counter items must lie in [0, 1] (the privacy claim assumes it)")
        return v

    @property
    def counts(self) -> np.ndarray:
        """Number of items added to each counter (array of the bank shape)."""
        return self._count.reshape(self.shape).copy()

    def true_sums(self, index=None) -> np.ndarray:
        """Exact (non-private) prefix sums; for tests and regret bookkeeping only."""
        return self._true[self._flat(index)]

    def add(self, index, values) -> np.ndarray:
        """Append one item to each selected counter; return their new noisy sums."""
        flat = np.ascontiguousarray(self._flat(index), dtype=np.int64)
        if flat.size == 0:
            return np.zeros(0)
        if flat.size > 1 and np.bincount(flat, minlength=self.n_counters).max() > 1:
            raise AlgorithmInputError("add() got the same counter twice in one call; add its items in separate calls")
        v = self._values(values, flat.size)
        self._true[flat] += v
        self._count[flat] += 1
        return self._add(flat, v, self._count[flat])

    def noisy_sums(self, index=None) -> np.ndarray:
        """Current noisy prefix sums of the selected counters (0 before the first item)."""
        return self._current(self._flat(index))

    def error_bound(self, delta, index=None) -> np.ndarray:
        """Bound B(n) with P(|noisy sum - true sum| > B(n)) <= delta at each counter's count n."""
        return self.error_bound_at(self._count[self._flat(index)], delta)


class BinaryCounterBank(CounterBank):
    """Binary mechanism (Chan, Shi, Song 2011), known horizon T per counter.

    L = floor(log2 T) + 1 levels; each p-sum gets Lap(L * sensitivity / eps); the output at
    count t is the sum of the noisy p-sums for the set bits of t. ``sensitivity`` bounds the
    change of one item (1 for items in [0, 1]); the tree-based aggregation subclass uses it for
    vector items. More than T items per counter raise :class:`InvalidHorizonError`.

    Error bound: the noise at count t is a sum of popcount(t) iid Lap(b), b = L s / eps; with
    Tao et al. 2025, Lemma 1 (times n), P(|noise| > max{2b sqrt(2 n ln(2/delta)), 4b ln(2/delta)}) <= delta.
    """

    def __init__(
        self,
        shape,
        epsilon,
        horizon: int,
        rng=None,
        sensitivity: float = 1.0,
    ):
        super().__init__(shape, epsilon, rng)
        self.horizon = check_horizon(horizon)
        self.sensitivity = check_epsilon(sensitivity, "sensitivity")
        self.levels = binary_levels(self.horizon)
        self.scale = self.levels * self.sensitivity / self.epsilon
        self._alpha = np.zeros((self.n_counters, self.levels))
        self._alpha_hat = np.zeros((self.n_counters, self.levels))

    def _add(self, flat, v, t):
        if t.max() > self.horizon:
            self._count[flat] -= 1
            self._true[flat] -= v
            raise InvalidHorizonError(f"a counter received more than its horizon of {self.horizon} items")
        noise = self.rng.laplace(0.0, self.scale, size=flat.size)
        out = np.empty(flat.size)
        _binary_add(flat, v, t, noise, self._alpha, self._alpha_hat, out)
        return out

    def _current(self, flat):
        return self._alpha_hat[flat].sum(axis=1)

    def error_bound_at(self, n, delta):
        """Bound at counts n (array): Lemma 1 for popcount(n) terms of scale L s / eps."""
        return laplace_sum_deviation_bound(_popcount(np.asarray(n)), self.scale, delta)

    def structure(self, length: int) -> LaplaceLinearStructure:
        """Laplace-linear structure of one counter's first ``length`` outputs."""
        return binary_structure(length, self.epsilon, horizon=self.horizon, sensitivity=self.sensitivity)


class LogarithmicCounterBank(CounterBank):
    """Logarithmic mechanism (Chan, Shi, Song 2011), no horizon.

    At count t = 2^k the release becomes the previous release plus the items since plus
    Lap(1/eps); between powers of two the output stays the last release.

    Error bound at count t (k = floor(log2 t)): the noise is a sum of k + 1 iid Lap(1/eps)
    (Lemma 1) and the t - 2^k items since the last release are missing (each in [0, 1]), so
    |output - true sum| <= (t - 2^k) + Lemma1(k + 1, 1/eps, delta) with probability >= 1 - delta.
    """

    def __init__(self, shape, epsilon, rng=None):
        super().__init__(shape, epsilon, rng)
        self._release = np.zeros(self.n_counters)
        self._block = np.zeros(self.n_counters)

    def _add(self, flat, v, t):
        noise = self.rng.laplace(0.0, 1.0 / self.epsilon, size=flat.size)
        out = np.empty(flat.size)
        _logarithmic_add(flat, v, t, noise, self._release, self._block, out)
        return out

    def _current(self, flat):
        return self._release[flat]

    def error_bound_at(self, n, delta):
        n = np.asarray(n, dtype=np.int64)
        safe = np.maximum(n, 1)
        k = _floor_log2(safe)
        bound = (safe - np.left_shift(1, k)) + laplace_sum_deviation_bound(k + 1, 1.0 / self.epsilon, delta)
        return np.where(n == 0, 0.0, bound)

    def structure(self, length: int) -> LaplaceLinearStructure:
        return logarithmic_structure(length, self.epsilon)


class HybridCounterBank(CounterBank):
    """Hybrid mechanism (Chan, Shi, Song 2011), no horizon -- Tao et al. 2025, Alg. 1.

    Logarithmic mechanism with eps/2 at counts t = 2^k; for t = 2^k + s, 0 < s < 2^k, a fresh
    binary mechanism with eps/2 and horizon 2^k (k + 1 levels, node scale 2 (k+1)/eps) on the
    items after 2^k; output = logarithmic release at 2^k + binary output at s.
    (With horizon 2^k only s <= 2^k - 1 occurs, so the exact loss of the output sequence is
    eps/2 + (eps/2) k/(k+1) < eps for the largest instance k reached: the claim eps holds with
    a little slack; see ``structure(length).exact_epsilon()``.)

    Error bound at count t (k = floor(log2 t), s = t - 2^k): the noise is the sum of k + 1
    iid Lap(2/eps) (logarithmic part) and popcount(s) iid Lap(2(k+1)/eps) (binary part). With
    a union bound over the two parts at delta/2 each and Tao et al. 2025, Lemma 1 for each:
    B(t) = Lemma1(k + 1, 2/eps, delta/2) + Lemma1(popcount(s), 2(k+1)/eps, delta/2)
    (the first term alone, at delta, when s = 0). This is the confidence term DP-OMM adds.
    """

    def __init__(self, shape, epsilon, rng=None):
        super().__init__(shape, epsilon, rng)
        self._state = np.zeros((self.n_counters, HYBRID_STATE_WIDTH))
        self._alpha = np.zeros((self.n_counters, 8))
        self._alpha_hat = np.zeros((self.n_counters, 8))

    def _grow(self, levels: int):
        if levels > self._alpha.shape[1]:
            extra = max(levels, 2 * self._alpha.shape[1]) - self._alpha.shape[1]
            pad = np.zeros((self.n_counters, extra))
            self._alpha = np.ascontiguousarray(np.hstack([self._alpha, pad]))
            self._alpha_hat = np.ascontiguousarray(np.hstack([self._alpha_hat, pad]))

    def _add(self, flat, v, t):
        std = self.rng.laplace(0.0, 1.0, size=flat.size)
        self._grow(int(t.max()).bit_length())
        out = np.empty(flat.size)
        _hybrid_add(flat, v, t, std, self.epsilon, self._state, self._alpha, self._alpha_hat, out)
        return out

    def _current(self, flat):
        out = np.empty(flat.size)
        _hybrid_outputs(np.ascontiguousarray(flat, dtype=np.int64), self._state, out)
        return out

    def error_bound_at(self, n, delta):
        n, delta = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(delta, dtype=np.float64))
        out = np.empty(n.shape)
        hybrid_noise_bound_array(
            np.ascontiguousarray(n).ravel(),
            self.epsilon,
            np.ascontiguousarray(np.log(2.0 / delta)).ravel(),
            np.ascontiguousarray(np.log(2.0 / (delta / 2))).ravel(),
            out.reshape(-1),
        )
        return out

    def structure(self, length: int) -> LaplaceLinearStructure:
        return hybrid_structure(length, self.epsilon)


class TreeAggregationBank(BinaryCounterBank):
    """Tree-based aggregation of a vector stream (Chen et al. 2020, Algorithm 3; Dwork et al. 2010).

    ``n_streams`` independent vector streams of dimension ``dim`` (bank shape
    ``(n_streams, dim)``); each step adds a whole vector to a stream. The binary mechanism runs
    on every coordinate with node noise Lap(L * l1_sensitivity / eps), L = floor(log2 T) + 1,
    where ``l1_sensitivity`` bounds the l1 change of one step's vector (Chen et al. 2020: vectors in
    [0, 1]^m with support <= K change by at most 2K, the paper's ``Lap(2 K log T / eps)``;
    **choice**: the paper's "log T" is taken as L levels, which is what makes the claim hold).
    """

    def __init__(self, n_streams: int, dim: int, epsilon, horizon: int, l1_sensitivity: float, rng=None):
        super().__init__((n_streams, dim), epsilon, horizon, rng, sensitivity=l1_sensitivity)
        self.dim = int(dim)
        self.n_streams = int(n_streams)

    def add_vectors(self, vectors, streams=None) -> np.ndarray:
        """Append one vector (row) to each selected stream; return their noisy sums (k, dim)."""
        streams = np.arange(self.n_streams) if streams is None else np.asarray(streams, dtype=np.int64).ravel()
        vectors = np.asarray(vectors, dtype=np.float64).reshape(streams.size, self.dim)
        flat = (streams[:, None] * self.dim + np.arange(self.dim)[None, :]).ravel()
        return self.add(flat, vectors.ravel()).reshape(streams.size, self.dim)

    def error_bound_at(self, n, delta):
        """Per-coordinate bound (union over coordinates is the caller's choice)."""
        return super().error_bound_at(n, delta)


# ---- single-stream helpers and dpverify mechanisms -------------------------------------------


def _stream(stream) -> np.ndarray:
    x = np.asarray(stream, dtype=np.float64)
    if x.ndim != 1 or x.size < 1:
        raise InvalidHorizonError(f"a stream must be a non-empty 1-D sequence, got shape {x.shape}")
    return x


def _run_bank(bank: CounterBank, x: np.ndarray) -> np.ndarray:
    """Feed the same stream x to every counter of a 1-D bank; outputs (n_counters, T)."""
    out = np.empty((bank.n_counters, x.size))
    for t in range(x.size):
        out[:, t] = bank.add(None, x[t])
    return out


def binary_mechanism_outputs(stream, epsilon, rng=None, horizon: int | None = None) -> np.ndarray:
    """All T outputs of the binary mechanism on ``stream`` (horizon defaults to len(stream))."""
    x = _stream(stream)
    return _run_bank(BinaryCounterBank(1, epsilon, x.size if horizon is None else horizon, rng), x)[0]


def logarithmic_mechanism_outputs(stream, epsilon, rng=None) -> np.ndarray:
    """All T outputs of the logarithmic mechanism on ``stream``."""
    x = _stream(stream)
    return _run_bank(LogarithmicCounterBank(1, epsilon, rng), x)[0]


def hybrid_mechanism_outputs(stream, epsilon, rng=None) -> np.ndarray:
    """All T outputs of the hybrid mechanism on ``stream``."""
    x = _stream(stream)
    return _run_bank(HybridCounterBank(1, epsilon, rng), x)[0]


def tree_aggregation_outputs(vectors, epsilon, l1_sensitivity, rng=None, horizon: int | None = None) -> np.ndarray:
    """All T noisy prefix-sum vectors, shape (T, d), of tree-based aggregation (Chen et al. 2020)."""
    X = np.asarray(vectors, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1:
        raise InvalidHorizonError(f"vectors must have shape (T, d) with T >= 1, got {X.shape}")
    bank = TreeAggregationBank(1, X.shape[1], epsilon, X.shape[0] if horizon is None else horizon, l1_sensitivity, rng)
    return np.vstack([bank.add_vectors(X[t : t + 1])[0] for t in range(X.shape[0])])


class _CounterMechanism:
    """dpverify mechanism: stream -> whole output sequence (T,), with a vectorized ``sample``."""

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)

    def __call__(self, stream, rng=None):
        return self.sample(stream, 1, rng)[0]

    def sample(self, stream, size: int, rng=None) -> np.ndarray:
        x = _stream(stream)
        return _run_bank(self._bank(int(size), x.size, rng), x)


class BinaryMechanism(_CounterMechanism):
    """The binary mechanism as a dpverify mechanism; ``horizon`` None means len(stream).

    A deliberately under-noised variant, for showing that the audits catch it, is
    :class:`algorithms.counters.broken.BrokenBinaryMechanism`.
    """

    def __init__(self, epsilon, horizon: int | None = None):
        super().__init__(epsilon)
        self.horizon = None if horizon is None else check_horizon(horizon)

    def _bank(self, size, length, rng):
        return BinaryCounterBank(size, self.epsilon, self.horizon or length, rng)


class LogarithmicMechanism(_CounterMechanism):
    """The logarithmic mechanism as a dpverify mechanism."""

    def _bank(self, size, length, rng):
        return LogarithmicCounterBank(size, self.epsilon, rng)


class HybridMechanism(_CounterMechanism):
    """The hybrid mechanism as a dpverify mechanism."""

    def _bank(self, size, length, rng):
        return HybridCounterBank(size, self.epsilon, rng)
