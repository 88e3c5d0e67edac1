"""Uniform and partition matroids.

- Uniform U(k, n): a set is independent iff it has at most k elements (the top-k super arm of
  combinatorial bandits, Chen et al. 2020).
- Partition: elements are split into blocks; a set is independent iff it has at most
  ``capacities[b]`` elements of each block b (Chandak 2023, Section 2 lists it as an example).

Both greedy bases are sort-based (no scan needed) and vectorized over batches.
"""

from __future__ import annotations

import numpy as np

from algorithms._validation import check_count
from algorithms.errors import AlgorithmInputError
from algorithms.matroids.base import ElementsOnlyTracker, IndependenceTracker, Matroid

__all__ = ["UniformMatroid", "PartitionMatroid"]


class _CountTracker(ElementsOnlyTracker):
    def _can_add(self, e: int) -> bool:
        return len(self.elements) < self.matroid.k


class UniformMatroid(Matroid):
    """Uniform matroid U(k, n): independent iff at most ``k`` elements.

    Parameters
    ----------
    n_elements : int >= 0
    k : int, 0 <= k (the rank is min(k, n_elements))
    """

    def __init__(self, n_elements: int, k: int):
        self.n_elements = check_count(n_elements, "n_elements", 0)
        self.k = check_count(k, "k", 0)

    def tracker(self) -> IndependenceTracker:
        return _CountTracker(self)

    @property
    def rank(self) -> int:
        return min(self.k, self.n_elements)

    def _greedy_in_order(self, order: np.ndarray) -> np.ndarray:
        return np.asarray(order[: self.k], dtype=np.int64).copy()

    def _greedy_batch_in_order(self, orders: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(orders[:, : self.rank], dtype=np.int64)

    def __repr__(self) -> str:  # pragma: no cover
        return f"UniformMatroid(n_elements={self.n_elements}, k={self.k})"


class _BlockTracker(IndependenceTracker):
    def __init__(self, matroid: PartitionMatroid):
        super().__init__(matroid)
        self._used = np.zeros(matroid.capacities.size, dtype=np.int64)

    def _can_add(self, e: int) -> bool:
        b = self.matroid.block_of[e]
        return self._used[b] < self.matroid.capacities[b]

    def _add(self, e: int) -> None:
        self._used[self.matroid.block_of[e]] += 1

    def _reset(self) -> None:
        self._used[:] = 0


class PartitionMatroid(Matroid):
    """Partition matroid: at most ``capacities[b]`` elements from block b.

    Parameters
    ----------
    block_of : integer array of shape (n_elements,)
        Block label of each element, in ``range(len(capacities))``.
    capacities : integer array of shape (n_blocks,), entries >= 0
    """

    def __init__(self, block_of, capacities):
        block_of = np.asarray(block_of)
        capacities = np.asarray(capacities)
        if block_of.ndim != 1 or capacities.ndim != 1:
            raise AlgorithmInputError("block_of and capacities must be 1-D integer arrays")
        if (block_of.size and block_of.dtype.kind not in "iu") or (
            capacities.size and capacities.dtype.kind not in "iu"
        ):
            raise AlgorithmInputError("block_of and capacities must hold integers")
        if capacities.size and capacities.min() < 0:
            raise AlgorithmInputError("capacities must be >= 0")
        if block_of.size and (block_of.min() < 0 or block_of.max() >= capacities.size):
            raise AlgorithmInputError(f"block labels must lie in range(len(capacities)) = range({capacities.size})")
        self.block_of = block_of.astype(np.int64)
        self.capacities = capacities.astype(np.int64)
        self.n_elements = int(block_of.size)
        counts = np.bincount(self.block_of, minlength=self.capacities.size)
        self._rank = int(np.minimum(counts, self.capacities).sum())

    def tracker(self) -> IndependenceTracker:
        return _BlockTracker(self)

    @property
    def rank(self) -> int:
        return self._rank

    def _greedy_in_order(self, order: np.ndarray) -> np.ndarray:
        order = np.asarray(order, dtype=np.int64)
        if order.size == 0:
            return order.copy()
        blocks = self.block_of[order]
        # position of each element among earlier elements of its block in the scan
        sort = np.argsort(blocks, kind="stable")
        sorted_blocks = blocks[sort]
        starts = np.searchsorted(sorted_blocks, sorted_blocks, side="left")
        occurrence = np.empty(order.size, dtype=np.int64)
        occurrence[sort] = np.arange(order.size) - starts
        keep = occurrence < self.capacities[blocks]
        return order[keep]

    def _greedy_batch_in_order(self, orders: np.ndarray) -> np.ndarray:
        R = orders.shape[0]
        blocks = self.block_of[orders]
        sort = np.argsort(blocks, axis=1, kind="stable")
        sorted_blocks = np.take_along_axis(blocks, sort, axis=1)
        # start index of each run of equal blocks in every row
        first = np.ones_like(sorted_blocks, dtype=bool)
        first[:, 1:] = sorted_blocks[:, 1:] != sorted_blocks[:, :-1]
        idx = np.broadcast_to(np.arange(orders.shape[1]), orders.shape)
        starts = np.maximum.accumulate(np.where(first, idx, 0), axis=1)
        occurrence = np.empty_like(orders, dtype=np.int64)
        np.put_along_axis(occurrence, sort, idx - starts, axis=1)
        keep = occurrence < self.capacities[blocks]
        return orders[keep].reshape(R, self._rank).astype(np.int64)

    def __repr__(self) -> str:  # pragma: no cover
        return f"PartitionMatroid(n_elements={self.n_elements}, capacities={self.capacities.tolist()})"
