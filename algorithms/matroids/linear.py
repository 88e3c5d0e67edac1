"""Linear (vector) matroids over the reals.

Element e is the vector ``vectors[e]`` in R^d; a set is independent iff its vectors are
linearly independent. Chandak 2023's synthetic experiment (thesis Table 6.1) is a linear matroid of
7 vectors in R^3.

**Tolerance (choice).** Independence is decided in floating point by incremental
Gram-Schmidt with one re-orthogonalization pass ("twice is enough"): the tracked set keeps an
orthonormal basis Q of its span; e can be added iff the residual r = v_e - Q Q^T v_e satisfies
``||r|| > rtol * ||v_e||`` (default ``rtol = 1e-9``). A zero vector is a loop. For vectors with
small integer or rational entries (well-conditioned sets), this agrees with exact rank; sets
whose smallest singular value relative to their norm is below ``rtol`` are treated as
dependent. ``rank_of`` uses the same rule, so all operations are mutually consistent.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from algorithms.errors import AlgorithmInputError
from algorithms.matroids.base import IndependenceTracker, Matroid

__all__ = ["LinearMatroid", "DEFAULT_RTOL"]

#: Relative residual below which a vector counts as in the span of the tracked set.
DEFAULT_RTOL = 1e-9


@njit(cache=True)
def _residual_norm(vec, Q, k):
    r = vec.copy()
    for _ in range(2):
        for j in range(k):
            c = 0.0
            for i in range(r.size):
                c += Q[j, i] * r[i]
            for i in range(r.size):
                r[i] -= c * Q[j, i]
    s = 0.0
    for i in range(r.size):
        s += r[i] * r[i]
    return np.sqrt(s), r


@njit(cache=True)
def _greedy_linear(order, vectors, norms, rtol, Q, out):
    k = 0
    limit = out.size
    for idx in range(order.size):
        e = order[idx]
        if norms[e] == 0.0:
            continue
        rn, r = _residual_norm(vectors[e], Q, k)
        if rn > rtol * norms[e]:
            for i in range(r.size):
                Q[k, i] = r[i] / rn
            out[k] = e
            k += 1
            if k == limit:
                break
    return k


@njit(cache=True)
def _greedy_linear_batch(orders, vectors, norms, rtol, rank, out):
    Q = np.empty((max(rank, 1), vectors.shape[1]))
    for r in range(orders.shape[0]):
        _greedy_linear(orders[r], vectors, norms, rtol, Q, out[r])


class _SpanTracker(IndependenceTracker):
    def __init__(self, matroid: LinearMatroid):
        super().__init__(matroid)
        self._Q = np.empty((max(matroid.dim, 1), matroid.dim))

    def _residual(self, e: int):
        m = self.matroid
        return _residual_norm(m.vectors[e], self._Q, len(self.elements))

    def _can_add(self, e: int) -> bool:
        m = self.matroid
        if m.norms[e] == 0.0 or len(self.elements) >= m.dim:
            return False
        rn, _ = self._residual(e)
        return bool(rn > m.rtol * m.norms[e])

    def _add(self, e: int) -> None:
        rn, r = self._residual(e)
        self._Q[len(self.elements)] = r / rn

    def _reset(self) -> None:
        pass


class LinearMatroid(Matroid):
    """Linear matroid of real vectors (rows of ``vectors``).

    Parameters
    ----------
    vectors : array of shape (n_elements, d), finite reals
    rtol : float, relative residual tolerance (see the module docstring), in (0, 1)
    """

    def __init__(self, vectors, rtol: float = DEFAULT_RTOL):
        vectors = np.asarray(vectors, dtype=np.float64)
        if vectors.ndim != 2:
            raise AlgorithmInputError(f"vectors must have shape (n_elements, d), got {vectors.shape}")
        if not np.isfinite(vectors).all():
            raise AlgorithmInputError("vectors must be finite (no NaN or inf)")
        if not (0.0 < rtol < 1.0):
            raise AlgorithmInputError(f"rtol must lie in (0, 1), got {rtol}")
        self.vectors = np.ascontiguousarray(vectors)
        self.norms = np.linalg.norm(vectors, axis=1)
        self.rtol = float(rtol)
        self.n_elements = int(vectors.shape[0])
        self.dim = int(vectors.shape[1])

    def tracker(self) -> IndependenceTracker:
        return _SpanTracker(self)

    def _greedy_in_order(self, order: np.ndarray) -> np.ndarray:
        out = np.empty(min(self.dim, order.size), dtype=np.int64)
        Q = np.empty((max(self.dim, 1), self.dim))
        k = _greedy_linear(np.ascontiguousarray(order, dtype=np.int64), self.vectors, self.norms, self.rtol, Q, out)
        return out[:k]

    def _greedy_batch_in_order(self, orders: np.ndarray) -> np.ndarray:
        out = np.empty((orders.shape[0], self.rank), dtype=np.int64)
        _greedy_linear_batch(
            np.ascontiguousarray(orders, dtype=np.int64), self.vectors, self.norms, self.rtol, self.rank, out
        )
        return out

    def __repr__(self) -> str:  # pragma: no cover
        return f"LinearMatroid(n_elements={self.n_elements}, dim={self.dim})"
