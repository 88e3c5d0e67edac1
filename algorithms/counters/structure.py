"""Continual-release counters as Laplace-linear maps, for exact privacy loss.

Every counter here releases ``y = A (M x + Z)`` on a stream x of length T, where M is the 0/1
incidence of *noise nodes* (p-sums) on stream positions, Z has independent Lap(b_k)
coordinates, and A maps nodes to outputs. When A is injective on the nodes it uses, the output
determines the node vector, so the pure-DP loss of the whole output sequence for streams that
differ by at most ``sensitivity`` in one position i is exactly

    eps_exact = sensitivity * max_i sum_k M[k, i] / b_k

(the density ratio of a shifted Laplace vector is exp(||Delta / b||_1) on a set of positive
probability). The structures are built directly from the dyadic definitions of
Chan, Shi and Song (2011), independently of the streaming implementations, which are
tested against them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from algorithms.errors import AlgorithmInputError, InvalidHorizonError

__all__ = [
    "LaplaceLinearStructure",
    "binary_structure",
    "logarithmic_structure",
    "hybrid_structure",
    "binary_levels",
]


def binary_levels(horizon: int) -> int:
    """Number of levels L = floor(log2 T) + 1 of the binary mechanism with horizon T."""
    if horizon < 1:
        raise InvalidHorizonError(f"horizon must be >= 1, got {horizon}")
    return int(horizon).bit_length()


@dataclass(frozen=True)
class LaplaceLinearStructure:
    """Outputs ``y = output_map @ (incidence @ x + Z)``, ``Z_k ~ Lap(scales[k])`` independent.

    Attributes
    ----------
    incidence : (n_nodes, T) 0/1 array
    scales : (n_nodes,) Laplace scales
    output_map : (T, n_nodes) 0/1 array
    """

    incidence: np.ndarray
    scales: np.ndarray
    output_map: np.ndarray

    def used_nodes(self) -> np.ndarray:
        """Indices of nodes that appear in at least one output."""
        return np.flatnonzero(self.output_map.any(axis=0))

    def is_injective(self) -> bool:
        """Whether the outputs determine the used nodes (output_map restricted has full column rank)."""
        used = self.used_nodes()
        return int(np.linalg.matrix_rank(self.output_map[:, used])) == used.size

    def exact_epsilon(self, sensitivity: float = 1.0) -> float:
        """Exact pure-DP loss of the output sequence (one position changed by <= sensitivity).

        Raises
        ------
        AlgorithmInputError
            If the output map is not injective on the used nodes (then the formula is only an
            upper bound; use :meth:`epsilon_upper_bound`).
        """
        if not self.is_injective():
            raise AlgorithmInputError("output map not injective on used nodes: the loss is not exact")
        return self.epsilon_upper_bound(sensitivity)

    def epsilon_upper_bound(self, sensitivity: float = 1.0) -> float:
        """sensitivity * max_i sum_{used k} M[k, i] / b_k (exact when injective)."""
        used = self.used_nodes()
        per_item = (self.incidence[used] / self.scales[used, None]).sum(axis=0)
        return float(sensitivity * per_item.max())

    def worst_position(self) -> int:
        """0-based stream position whose change costs the most privacy."""
        used = self.used_nodes()
        return int(np.argmax((self.incidence[used] / self.scales[used, None]).sum(axis=0)))

    def noiseless_outputs(self, stream) -> np.ndarray:
        """``output_map @ incidence @ x`` (must equal the prefix sums)."""
        return self.output_map @ (self.incidence @ np.asarray(stream, dtype=np.float64))


def _dyadic_nodes(start: int, count: int, horizon_levels: int, length: int, scale: float):
    """Binary-mechanism nodes for items start+1 .. start+count (positions 1-based in the stream).

    Node for local time s (1..count) covers local items s - 2^tz(s) + 1 .. s; the output at
    local time s uses the node ending at ((s >> j) << j) for each set bit j of s.
    Returns (rows of incidence, scales, dict local end -> node row index).
    """
    rows, scales, index = [], [], {}
    for s in range(1, count + 1):
        tz = (s & -s).bit_length() - 1
        if tz >= horizon_levels:
            raise AssertionError("node above the top level")
        row = np.zeros(length)
        row[start + s - (1 << tz) : start + s] = 1.0
        index[s] = len(rows)
        rows.append(row)
        scales.append(scale)
    return rows, scales, index


def _check(length: int, epsilon: float):
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 1:
        raise InvalidHorizonError(f"stream length must be an integer >= 1, got {length!r}")
    if not (np.isfinite(epsilon) and epsilon > 0):
        from algorithms.errors import InvalidPrivacyParameterError

        raise InvalidPrivacyParameterError(f"epsilon must be finite and > 0, got {epsilon}")


def binary_structure(
    length: int, epsilon: float, horizon: int | None = None, sensitivity: float = 1.0
) -> LaplaceLinearStructure:
    """Binary mechanism (horizon ``horizon`` >= length, default length): every node Lap(L * sensitivity / eps)."""
    _check(length, epsilon)
    horizon = length if horizon is None else horizon
    if horizon < length:
        raise InvalidHorizonError(f"horizon {horizon} is shorter than the stream length {length}")
    L = binary_levels(horizon)
    rows, scales, index = _dyadic_nodes(0, length, L, length, L * sensitivity / epsilon)
    A = np.zeros((length, len(rows)))
    for t in range(1, length + 1):
        for j in range(L):
            if t >> j & 1:
                A[t - 1, index[(t >> j) << j]] = 1.0
    return LaplaceLinearStructure(np.array(rows).reshape(len(rows), length), np.array(scales), A)


def logarithmic_structure(length: int, epsilon: float) -> LaplaceLinearStructure:
    """Logarithmic mechanism: node k covers items (2^(k-1), 2^k] (node 0: item 1), Lap(1/eps);
    the output at t is the sum of nodes 0..floor(log2 t)."""
    _check(length, epsilon)
    K = int(length).bit_length()  # nodes k = 0..K-1 with 2^k <= length
    M = np.zeros((K, length))
    for k in range(K):
        lo = 0 if k == 0 else 1 << (k - 1)
        M[k, lo : 1 << k] = 1.0
    A = np.zeros((length, K))
    for t in range(1, length + 1):
        A[t - 1, : int(t).bit_length()] = 1.0
    return LaplaceLinearStructure(M, np.full(K, 1.0 / epsilon), A)


def hybrid_structure(length: int, epsilon: float) -> LaplaceLinearStructure:
    """Hybrid mechanism (Chan, Shi, Song 2011, Section 4).

    Logarithmic nodes with eps/2 (scale 2/eps); for t = 2^k + s, 0 < s < 2^k, a binary
    mechanism with eps/2 and horizon 2^k (L = k + 1 levels, scale 2 (k+1)/eps) on the items
    after 2^k; output = logarithmic release at 2^k + binary output at s.
    """
    _check(length, epsilon)
    log = logarithmic_structure(length, epsilon / 2.0)
    rows = list(log.incidence)
    scales = list(log.scales)
    out_nodes = [list(range(int(t).bit_length())) for t in range(1, length + 1)]
    k = 1
    while (1 << k) < length:
        start = 1 << k
        count = min((1 << k) - 1, length - start)
        if count >= 1:
            b_rows, b_scales, index = _dyadic_nodes(start, count, k + 1, length, 2.0 * (k + 1) / epsilon)
            offset = len(rows)
            rows.extend(b_rows)
            scales.extend(b_scales)
            for s in range(1, count + 1):
                for j in range(k + 1):
                    if s >> j & 1:
                        out_nodes[start + s - 1].append(offset + index[(s >> j) << j])
        k += 1
    A = np.zeros((length, len(rows)))
    for t, nodes in enumerate(out_nodes):
        A[t, nodes] = 1.0
    return LaplaceLinearStructure(np.array(rows).reshape(len(rows), length), np.array(scales), A)
