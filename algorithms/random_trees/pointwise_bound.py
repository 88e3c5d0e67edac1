"""A rigorous upper bound on DP-RST's ``P[T~ = T]``, for the pointwise reading of Theorem 5.3.

Theorem 5.3 of DP-RST (2025) claims ``P[T~ = T*] >= t^(l(n-1))``, with ``t = e^eps0 / (e^eps0 + 1)``
and ``l = ceil(log2 k)``. Its pointwise reading is: for every spanning tree ``T``,
``P[T~ = T] >= t^(l(n-1)) mu_w(T)``, where ``mu_w(T) = prod_{e in T} w(e) / Z(w)`` is the true weighted
tree measure and ``T~`` the tree DP-RST outputs (weights released bit by bit through randomized
response, then a tree drawn with probability proportional to the product of the noisy weights).

Exact enumeration of ``P[T~ = T]`` is out of reach beyond a handful of edges (``2^(l m)`` noisy weight
vectors), so this module bounds it from above, rigorously, by conditioning on the set ``F`` of flipped
bits (each of the ``l m`` bits flips independently with probability ``1 - t``):

- ``F`` empty (probability ``t^(l m)``): the noisy weights are the true ones, ``P[T~ = T | F] = mu_w(T)``;
- ``F`` a single bit (probability ``t^(l m - 1) (1 - t)`` each): ``P[T~ = T | F] = mu_{w'}(T)`` for the
  weights ``w'`` with that one bit flipped, computed exactly;
- two or more flips (probability ``1 - t^(l m) - l m t^(l m - 1) (1 - t)``): bounded by 1.

Tree measures are exact rationals: the normaliser ``Z(w) = det`` of a reduced weighted Laplacian
(Kirchhoff's matrix-tree theorem) is an integer for integer weights, computed by fraction-free
(Bareiss) elimination in Python integers (:func:`algorithms.random_trees.exact.bareiss_determinant`).
Every quantity that involves ``t`` is evaluated in mpmath interval arithmetic, so a reported
``upper < bound`` is a proof, not a floating-point accident.

Needs mpmath (in the ``test`` extra, ``pip install 'dpverify[test]'``); nothing else in the package
imports this module.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from algorithms.random_trees.exact import bareiss_determinant

__all__ = [
    "PointwiseBoundCheck",
    "tree_measure",
    "complete_graph_path_instance",
    "pointwise_upper_bound",
]


def _tree_normaliser(n: int, edges, weights) -> int:
    """``Z(w) = sum_T prod_{e in T} w(e)``: the reduced weighted Laplacian's determinant (matrix-tree theorem)."""
    lap = [[0] * n for _ in range(n)]
    for (u, v), w in zip(edges, weights):
        if w:
            lap[u][u] += w
            lap[v][v] += w
            lap[u][v] -= w
            lap[v][u] -= w
    return bareiss_determinant([row[1:] for row in lap[1:]])


def tree_measure(n: int, edges, weights, tree) -> Fraction:
    """``mu_w(T) = prod_{e in T} w(e) / Z(w)`` exactly (``tree``: edge indices; 0 if no spanning tree)."""
    z = _tree_normaliser(n, edges, weights)
    if z == 0:
        return Fraction(0)
    numerator = 1
    for e in tree:
        numerator *= int(weights[e])
    return Fraction(numerator, z)


def complete_graph_path_instance(n: int, l: int):
    """``K_n`` with the path ``0-1-...-(n-1)`` weighted ``2^l - 1`` and every other edge weighted 1.

    Returns ``(edges, weights, path, k)`` with ``k = 2^l`` (so the bit count is ``l``).
    """
    edges = [(u, v) for u in range(n) for v in range(u + 1, n)]
    heavy = (1 << l) - 1
    weights = [heavy if v == u + 1 else 1 for u, v in edges]
    path = tuple(i for i, (u, v) in enumerate(edges) if v == u + 1)
    return edges, weights, path, 1 << l


@dataclass(frozen=True)
class PointwiseBoundCheck:
    """Rigorous bracket of the pointwise reading of DP-RST Theorem 5.3 for one tree.

    Attributes
    ----------
    upper : mpmath.mpi
        Interval containing an upper bound on ``P[T~ = T]`` (no flip, one flip exact, two or more <= 1).
    bound : mpmath.mpi
        Interval containing ``t^(l (n - 1)) mu_w(T)``, the pointwise reading's lower bound.
    mu : Fraction
        ``mu_w(T)``, exact.
    refuted : bool
        ``upper.b < bound.a``: the pointwise reading fails for this tree (a proof).
    """

    upper: object
    bound: object
    mu: Fraction

    @property
    def refuted(self) -> bool:
        return bool(self.upper.b < self.bound.a)

    @property
    def ratio(self) -> float:
        """``upper / bound`` (midpoints): below 1 where the reading fails."""
        return float(mpmath.mpf(self.upper.mid) / mpmath.mpf(self.bound.mid))


def pointwise_upper_bound(n: int, edges, weights, tree, *, l: int, epsilon0, dps: int = 60) -> PointwiseBoundCheck:
    """Bound ``P[T~ = T]`` from above and compare it with ``t^(l (n - 1)) mu_w(T)``, rigorously.

    Parameters
    ----------
    n : int
        Number of vertices.
    edges : sequence of (int, int)
        The graph's edges.
    weights : sequence of int
        True integer weights, ``0 < w < 2^l``.
    tree : sequence of int
        Edge indices of the spanning tree ``T``.
    l : int
        Bits per weight (``ceil(log2 k)``).
    epsilon0 : float or str
        Per-bit randomized-response parameter (a string is read exactly by mpmath).
    dps : int
        Decimal digits of the interval arithmetic.

    Returns
    -------
    PointwiseBoundCheck

    References
    ----------
    .. [1] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
       under double-blind review, 2025. Definition 5.1, Lemma 5.2, Theorem 5.3.
    .. [2] G. Kirchhoff, 1847 (matrix-tree theorem); E. H. Bareiss, "Sylvester's identity and multistep
       integer-preserving Gaussian elimination", Mathematics of Computation 22, 1968.
    """
    m = len(edges)
    weights = [int(w) for w in weights]
    mu = tree_measure(n, edges, weights, tree)
    one_flip_sum = Fraction(0)
    for e in range(m):
        for i in range(l):
            flipped = list(weights)
            flipped[e] ^= 1 << i
            one_flip_sum += tree_measure(n, edges, flipped, tree)
    iv = mpmath.iv
    saved = iv.prec
    iv.dps = dps
    try:
        t = 1 / (1 + iv.exp(-iv.mpf(epsilon0)))
        bits = l * m
        no_flip = t**bits
        one_flip_each = t ** (bits - 1) * (1 - t)
        two_or_more = 1 - no_flip - bits * one_flip_each

        def exact(q: Fraction):
            return iv.mpf(q.numerator) / iv.mpf(q.denominator)

        upper = no_flip * exact(mu) + one_flip_each * exact(one_flip_sum) + two_or_more
        bound = t ** (l * (n - 1)) * exact(mu)
    finally:
        iv.prec = saved
    return PointwiseBoundCheck(upper=upper, bound=bound, mu=mu)
