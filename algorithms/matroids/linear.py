"""Linear (vector) matroids over the reals.

Element e is the vector ``vectors[e]`` in R^d; a set is independent iff its vectors are
linearly independent. Chandak 2023's synthetic experiment (thesis Table 6.1) is a linear matroid of
7 vectors in R^3.

**Tolerance (choice).** Independence is decided in floating point by incremental
Gram-Schmidt with one re-orthogonalization pass ("twice is enough", :func:`extends_span`, the one
compiled test that the bandit simulator's greedy uses too): the tracked set keeps an
orthonormal basis Q of its span; e can be added iff the residual r = v_e - Q Q^T v_e satisfies
``||r|| > rtol * ||v_e||`` (default ``rtol = 1e-9``). A zero vector is a loop. For vectors with
small integer or rational entries (well-conditioned sets), this agrees with exact rank; sets
whose smallest singular value relative to their norm is below ``rtol`` are treated as
dependent. ``rank_of`` uses the same rule, so all operations are mutually consistent.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from algorithms._validation import as_real
from algorithms.errors import AlgorithmInputError
from algorithms.matroids.base import IndependenceTracker, Matroid

__all__ = ["LinearMatroid", "DEFAULT_RTOL", "check_rtol", "extends_span"]

#: Relative residual below which a vector counts as in the span of the tracked set.
DEFAULT_RTOL = 1e-9


def check_rtol(rtol) -> float:
    """The relative tolerance as a float; AlgorithmInputError unless it is a real number in (0, 1)."""
    value = as_real(rtol)
    if value is None or not (0.0 < value < 1.0):
        raise AlgorithmInputError(f"rtol must lie in (0, 1), got {rtol!r}")
    return value


@njit(cache=True, nogil=True, _nrt=False)
def extends_span(vectors, e, norm, rtol, Q, k):
    """Whether ``vectors[e]`` is linearly independent of the orthonormal rows ``Q[:k]``.

    The one independence test of linear matroids, shared by :class:`LinearMatroid` and the
    bandit simulator's compiled greedy (:mod:`algorithms.bandits._kernel_matroids`): the
    residual ``r = v - Q Q^T v`` by modified Gram-Schmidt with a second pass ("twice is
    enough") is written into ``Q[k]``; the element is independent iff ``||r|| > rtol * norm``
    (a zero vector never is), and then ``Q[k]`` becomes ``r / ||r||``, so ``Q[:k + 1]`` is an
    orthonormal basis of the enlarged span. No allocation (callable from ``_nrt=False`` code).

    Parameters
    ----------
    vectors : float array (m, d)
    e : int
        The row of ``vectors`` tested.
    norm : float
        ``||vectors[e]||`` (``np.linalg.norm``).
    rtol : float
        Relative residual tolerance (module docstring).
    Q : float array (>= k + 1, d)
        Rows ``0..k-1``: an orthonormal basis of the tracked span; row ``k``: overwritten.
    k : int
        Size of the tracked independent set.

    Returns
    -------
    bool
    """
    if norm == 0.0:
        return False
    d = vectors.shape[1]
    for i in range(d):
        Q[k, i] = vectors[e, i]
    for _ in range(2):
        for j in range(k):
            c = 0.0
            for i in range(d):
                c += Q[j, i] * Q[k, i]
            for i in range(d):
                Q[k, i] -= c * Q[j, i]
    s = 0.0
    for i in range(d):
        s += Q[k, i] * Q[k, i]
    rn = np.sqrt(s)
    if rn > rtol * norm:
        for i in range(d):
            Q[k, i] = Q[k, i] / rn
        return True
    return False


@njit(cache=True)
def _greedy_linear(order, vectors, norms, rtol, Q, out):
    k = 0
    limit = out.size
    for idx in range(order.size):
        e = order[idx]
        if extends_span(vectors, e, norms[e], rtol, Q, k):
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

    def _can_add(self, e: int) -> bool:
        m = self.matroid
        k = len(self.elements)
        if k >= m.dim:
            return False
        return bool(extends_span(m.vectors, e, m.norms[e], m.rtol, self._Q, k))

    def _add(self, e: int) -> None:
        m = self.matroid
        extends_span(m.vectors, e, m.norms[e], m.rtol, self._Q, len(self.elements))

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
        rtol = check_rtol(rtol)
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
