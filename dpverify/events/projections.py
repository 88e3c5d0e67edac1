"""Projections of real vectors: the numbers threshold and interval events compare.

Each coordinate (up to 16), the sum, the largest coordinate, and the direction
of the mean difference between the two selection samples (StatDP's projections
of vector outputs). The projections are picklable indicators' parts
(:mod:`.indicators`).

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..support import arrays

__all__ = ["Coordinate", "Total", "Largest", "Linear", "vector_projections", "row_projections", "MEAN_BLOCK_ELEMENTS"]


@dataclass(frozen=True, eq=False)
class Coordinate:
    """Projection of (n, d) real outputs on coordinate ``index``."""

    index: int
    array_ready = True

    def __call__(self, group):
        return group[:, self.index]

    def on(self, group, xp):
        return group[:, self.index]

    def counted_as(self):
        return ("coordinate", self.index)


@dataclass(frozen=True, eq=False)
class Total:
    """Sum of the coordinates of (n, d) real outputs.

    No compiled form (``counted_as``): numpy's pairwise summation fixes an order of additions
    that a loop would not reproduce bit for bit.
    """

    array_ready = True

    def __call__(self, group):
        with np.errstate(invalid="ignore", over="ignore"):
            return group.sum(axis=1)

    def on(self, group, xp):
        return xp.sum(group, axis=1)


@dataclass(frozen=True, eq=False)
class Largest:
    """Largest coordinate of (n, d) real outputs."""

    array_ready = True

    def __call__(self, group):
        return group.max(axis=1)

    def on(self, group, xp):
        return xp.max(group, axis=1)

    def counted_as(self):
        return ("largest",)


@dataclass(frozen=True, eq=False)
class Linear:
    """``group @ weights`` for (n, d) real outputs (no compiled form: BLAS fixes the order of additions)."""

    weights: np.ndarray
    array_ready = True

    def __call__(self, group):
        with np.errstate(invalid="ignore", over="ignore"):
            return group @ self.weights

    def on(self, group, xp):
        return group @ arrays.asarray_like(self.weights, group, xp)


#: Elements clipped at once by :func:`_finite_mean` (its memory is one block, not a copy of the outputs).
MEAN_BLOCK_ELEMENTS = 1 << 20


def _finite_mean(group: np.ndarray) -> np.ndarray:
    """Mean of the rows clipped to +-1e150 (inf and huge outputs must not poison the direction).

    Block by block, adding rows in order as ``clip(group).mean(axis=0)`` does (the same
    bits), without the clipped copy of the whole selection sample.
    """
    total = np.zeros(group.shape[1])
    rows = max(1, MEAN_BLOCK_ELEMENTS // max(1, group.shape[1]))
    for start in range(0, len(group), rows):
        block = np.clip(group[start : start + rows], -1e150, 1e150)
        total = np.add.reduce(np.vstack([total[None, :], block]), axis=0)
    return total / len(group)


def _fixed_projections(d: int) -> list:
    """The projections of ``d``-vectors that do not depend on the samples: coordinates (up to 16), sum, max."""
    out = [(f"output[{i}]", Coordinate(i)) for i in range(min(d, 16))]
    out.append(("sum(output)", Total()))
    out.append(("max(output)", Largest()))
    return out


def _direction(direction: np.ndarray) -> list:
    """The projection on the unit vector of the mean difference ``direction`` (none when it is 0 or not finite)."""
    norm = np.linalg.norm(direction)
    if not (np.isfinite(norm) and norm > 0):
        return []
    w = direction / norm
    text = "(" + ", ".join(f"{v:.3g}" for v in w[:4]) + (", ..." if len(w) > 4 else "") + ")"
    return [(f"<output, {text}>", Linear(w))]


def vector_projections(sel_x, sel_x_prime):
    """Projections of real vectors: each coordinate (up to 16), sum, max, mean difference."""
    d = sel_x.shape[1]
    if d == 1:
        return [("output", Coordinate(0))]
    direction = np.nan_to_num(_finite_mean(sel_x) - _finite_mean(sel_x_prime))
    return _fixed_projections(d) + _direction(direction)


def row_projections(table: np.ndarray, codes_x, codes_x_prime):
    """:func:`vector_projections` of the rows ``table[codes]``, computed from the code book and code counts.

    The mean difference direction is ``sum_c (n_x(c) / n_x - n_x'(c) / n_x') row_c``: the
    selection rows are never expanded to an (n, d) array (their memory is the code book's).
    """
    d = table.shape[1]
    if d == 1:
        return [("output", Coordinate(0))]
    k = len(table)
    share_x = np.bincount(codes_x[codes_x >= 0], minlength=k) / max(1, len(codes_x))
    share_xp = np.bincount(codes_x_prime[codes_x_prime >= 0], minlength=k) / max(1, len(codes_x_prime))
    direction = np.nan_to_num((share_x - share_xp) @ np.clip(table, -1e150, 1e150))
    return _fixed_projections(d) + _direction(direction)
