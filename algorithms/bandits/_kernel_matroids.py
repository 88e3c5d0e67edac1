"""Matroids in the flat-array form the compiled simulator consumes.

The simulator (``algorithms.bandits._kernels``) runs a whole bandit run inside
one numba function, so it cannot call a Python matroid object each round. It
needs a matroid as plain arrays plus a *kind* code, and an independence test it
can run incrementally in the greedy algorithm (sort descending, add if
independent; Chandak 2023, Algorithm 1):

graphic (kind 0)
    ``edges (m, 2)`` on ``n_vertices``; incremental independence by the project's
    union-find (:func:`algorithms.graphs.union_find.kruskal_scan`).
uniform (kind 1)
    any ``rank`` elements are a basis.
partition (kind 2)
    ``parts (m,)`` block labels and ``capacities (p,)``.
linear (kind 3)
    ``vectors (m, d)`` over the reals, their ``norms (m,)`` and a relative tolerance
    ``rtol``; incremental rank by :func:`algorithms.matroids.linear.extends_span`, the
    test :class:`~algorithms.matroids.LinearMatroid` uses (so both agree on every set).

:func:`as_kernel_matroid` also accepts the matroid objects of
``algorithms.matroids`` (duck-typed by their attributes), so the public API
takes either. The compiled code receives a matroid as one :class:`MatroidArrays`
structure (``KernelMatroid.arrays()``) and its scratch space as one :class:`GreedyScratch`.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numba
import numpy as np

# ZeroRankMatroidError lives in algorithms.errors; re-exported here for code that imported it from this module
from algorithms.errors import AlgorithmInputError, InvalidGraphError, ZeroRankMatroidError
from algorithms.graphs.union_find import kruskal_scan
from algorithms.matroids.linear import DEFAULT_RTOL, check_rtol, extends_span

__all__ = [
    "KernelMatroid",
    "MatroidArrays",
    "GreedyScratch",
    "greedy_scratch",
    "ZeroRankMatroidError",
    "GRAPHIC",
    "UNIFORM",
    "PARTITION",
    "LINEAR",
    "graphic_matroid",
    "uniform_matroid",
    "partition_matroid",
    "linear_matroid",
    "as_kernel_matroid",
    "greedy_basis",
    "greedy_order_basis",
]

GRAPHIC, UNIFORM, PARTITION, LINEAR = 0, 1, 2, 3


#: A matroid as the compiled greedy algorithm reads it: ``kind`` (0-3), ``n_vertices``, edge
#: endpoints ``u, v (m,)`` (graphic), ``vectors (m, d)``, ``norms (m,)`` and ``rtol``
#: (linear), ``parts (m,)`` and ``capacities (p,)`` (partition), ``uniform_rank`` (uniform);
#: unused arrays are empty.
MatroidArrays = namedtuple(
    "MatroidArrays",
    ["kind", "n_vertices", "u", "v", "vectors", "norms", "rtol", "parts", "capacities", "uniform_rank"],
)

#: Scratch space of the compiled greedy algorithm: union-find ``parent, size (n_vertices,)``
#: (graphic), block ``counts (p,)`` (partition), Gram-Schmidt rows ``work (d, d)`` (linear).
GreedyScratch = namedtuple("GreedyScratch", ["parent", "size", "counts", "work"])


@dataclass(frozen=True, eq=False)
class KernelMatroid:
    """A matroid as arrays for the compiled greedy algorithm (see module docstring)."""

    kind: int
    n_elements: int
    n_vertices: int
    edges: np.ndarray
    vectors: np.ndarray
    parts: np.ndarray
    capacities: np.ndarray
    uniform_rank: int
    rtol: float = DEFAULT_RTOL

    @property
    def rank(self) -> int:
        """The rank K (size of every basis)."""
        return int(greedy_basis(self, np.zeros(self.n_elements)).size)

    def arrays(self) -> MatroidArrays:
        """The :class:`MatroidArrays` the compiled code reads."""
        return MatroidArrays(
            int(self.kind),
            int(self.n_vertices),
            np.ascontiguousarray(self.edges[:, 0]),
            np.ascontiguousarray(self.edges[:, 1]),
            self.vectors,
            np.linalg.norm(self.vectors, axis=1),
            float(self.rtol),
            self.parts,
            self.capacities,
            int(self.uniform_rank),
        )


def _empty_int(shape=(0,)):
    return np.zeros(shape, dtype=np.int64)


def _empty_float(shape=(0, 1)):
    return np.zeros(shape, dtype=np.float64)


def graphic_matroid(edges, n_vertices: int | None = None) -> KernelMatroid:
    """Graphic matroid of an undirected graph: independent sets are forests."""
    edges = np.ascontiguousarray(np.asarray(edges, dtype=np.int64).reshape(-1, 2))
    if edges.shape[0] == 0:
        raise InvalidGraphError("a graphic matroid needs at least one edge")
    if n_vertices is None:
        n_vertices = int(edges.max()) + 1
    if edges.min() < 0 or edges.max() >= n_vertices:
        raise InvalidGraphError(f"edge endpoints must lie in [0, {n_vertices})")
    return KernelMatroid(GRAPHIC, edges.shape[0], int(n_vertices), edges, _empty_float(), _empty_int(), _empty_int(), 0)


def uniform_matroid(n_elements: int, rank: int) -> KernelMatroid:
    """Uniform matroid U(rank, n_elements): every set of at most ``rank`` elements is independent.

    ``rank > n_elements`` is allowed (the rank is then ``n_elements``).
    """
    if int(n_elements) < 1 or int(rank) < 0:
        raise AlgorithmInputError(
            f"uniform matroid needs n_elements >= 1 and rank >= 0; got rank={rank}, n_elements={n_elements}"
        )
    return KernelMatroid(
        UNIFORM,
        int(n_elements),
        0,
        _empty_int((0, 2)),
        _empty_float(),
        _empty_int(),
        _empty_int(),
        min(int(rank), int(n_elements)),
    )


def partition_matroid(parts, capacities) -> KernelMatroid:
    """Partition matroid: at most ``capacities[p]`` elements from block ``p`` (``parts[e] = p``)."""
    parts = np.ascontiguousarray(np.asarray(parts, dtype=np.int64))
    capacities = np.ascontiguousarray(np.asarray(capacities, dtype=np.int64))
    if parts.ndim != 1 or parts.size == 0 or parts.min() < 0 or parts.max() >= capacities.size:
        raise AlgorithmInputError("partition labels must lie in [0, len(capacities))")
    if (capacities < 0).any():
        raise AlgorithmInputError("partition capacities must be >= 0")
    return KernelMatroid(PARTITION, parts.size, 0, _empty_int((0, 2)), _empty_float(), parts, capacities, 0)


def linear_matroid(vectors, rtol: float = DEFAULT_RTOL) -> KernelMatroid:
    """Linear matroid over the reals: rows of ``vectors (m, d)``; independent = linearly independent.

    ``rtol`` is :class:`~algorithms.matroids.LinearMatroid`'s relative tolerance (same test,
    :func:`algorithms.matroids.linear.extends_span`).
    """
    vectors = np.ascontiguousarray(np.asarray(vectors, dtype=np.float64))
    if vectors.ndim != 2 or vectors.shape[0] == 0 or vectors.shape[1] == 0 or not np.isfinite(vectors).all():
        raise AlgorithmInputError("a linear matroid needs a finite (m >= 1, d >= 1) array of vectors")
    return KernelMatroid(
        LINEAR, vectors.shape[0], 0, _empty_int((0, 2)), vectors, _empty_int(), _empty_int(), 0, check_rtol(rtol)
    )


def as_kernel_matroid(matroid) -> KernelMatroid:
    """Convert a matroid of ``algorithms.matroids`` (or a KernelMatroid) to kernel form.

    Accepts :class:`~algorithms.matroids.GraphicMatroid` (``n_vertices``, ``u``, ``v``),
    :class:`~algorithms.matroids.UniformMatroid` (``n_elements``, ``k``),
    :class:`~algorithms.matroids.PartitionMatroid` (``block_of``, ``capacities``) and
    :class:`~algorithms.matroids.LinearMatroid` (``vectors``, ``rtol``). An oracle matroid has no
    compiled independence test: it raises AlgorithmInputError.
    """
    if isinstance(matroid, KernelMatroid):
        return matroid
    from algorithms.matroids import GraphicMatroid, LinearMatroid, PartitionMatroid, UniformMatroid

    if isinstance(matroid, GraphicMatroid):
        return graphic_matroid(np.stack([matroid.u, matroid.v], axis=1), matroid.n_vertices)
    if isinstance(matroid, UniformMatroid):
        return uniform_matroid(matroid.n_elements, matroid.k)
    if isinstance(matroid, PartitionMatroid):
        return partition_matroid(matroid.block_of, matroid.capacities)
    if isinstance(matroid, LinearMatroid):
        return linear_matroid(matroid.vectors, matroid.rtol)
    raise AlgorithmInputError(
        f"the simulator needs a graphic, uniform, partition or linear matroid, got {type(matroid).__name__}"
    )


def greedy_scratch(km: KernelMatroid) -> GreedyScratch:
    """Scratch arrays of :func:`greedy_in_order` for ``km``."""
    n = max(km.n_vertices, 1)
    d = max(km.vectors.shape[1], 1)
    return GreedyScratch(
        np.zeros(n, dtype=np.int64),
        np.zeros(n, dtype=np.int64),
        np.zeros(max(km.capacities.size, 1), dtype=np.int64),
        np.zeros((d, d), dtype=np.float64),
    )


@numba.njit(cache=True, nogil=True, _nrt=False)
def greedy_in_order(order, limit, mat, scratch, out):
    """Greedy on a given element order: append each element that keeps the set independent.

    Parameters
    ----------
    order : int array (m,)
        Elements in the order they are offered.
    limit : int
        Stop after this many acceptances.
    mat : MatroidArrays
    scratch : GreedyScratch
    out : int array (>= limit,)
        Receives the accepted elements, in order of acceptance.

    Returns
    -------
    int
        The number of elements written to ``out``.

    References
    ----------
    .. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
       Optimization", MSc thesis, University of Alberta, 2023. Algorithm 1 (greedy).
    """
    m = order.shape[0]
    taken = 0
    if mat.kind == GRAPHIC:
        return kruskal_scan(order, mat.u, mat.v, scratch.parent, scratch.size, limit, out)
    if mat.kind == UNIFORM:
        for i in range(m):
            if taken >= limit or taken >= mat.uniform_rank:
                break
            out[taken] = order[i]
            taken += 1
    elif mat.kind == PARTITION:
        counts = scratch.counts
        for p in range(mat.capacities.shape[0]):
            counts[p] = 0
        for i in range(m):
            if taken >= limit:
                break
            e = order[i]
            p = mat.parts[e]
            if counts[p] < mat.capacities[p]:
                counts[p] += 1
                out[taken] = e
                taken += 1
    else:
        d = mat.vectors.shape[1]
        for i in range(m):
            if taken >= limit or taken >= d:
                break
            e = order[i]
            if extends_span(mat.vectors, e, mat.norms[e], mat.rtol, scratch.work, taken):
                out[taken] = e
                taken += 1
    return taken


def greedy_order_basis(matroid, order) -> np.ndarray:
    """The greedy basis when elements are offered in ``order`` (acceptance order)."""
    km = as_kernel_matroid(matroid)
    order = np.ascontiguousarray(np.asarray(order, dtype=np.int64))
    out = np.empty(km.n_elements, dtype=np.int64)
    k = greedy_in_order(order, km.n_elements, km.arrays(), greedy_scratch(km), out)
    return out[:k].copy()


def greedy_basis(matroid, weights) -> np.ndarray:
    """A maximum-weight basis (greedy, descending weights, ties by lower index), in acceptance order."""
    weights = np.asarray(weights, dtype=np.float64)
    return greedy_order_basis(matroid, np.argsort(-weights, kind="stable"))
