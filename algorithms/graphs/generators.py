"""Random graphs for experiments: connected Erdos-Renyi graphs with uniform weights.

The generator draws the edge set of G(n, p) without materialising all n(n-1)/2 pairs and
returns it through :func:`~algorithms.graphs.as_graph_arrays`, like any other input.
"""

from __future__ import annotations

import numpy as np

from algorithms.errors import InvalidGraphError, InvalidWeightsError
from algorithms.graphs.validation import (
    GraphArrays,
    _sorted_unique,
    _validate_n,
    as_graph_arrays,
    number_of_components,
)

__all__ = ["connected_gnp_graph"]


def connected_gnp_graph(
    n: int,
    p: float,
    rng=None,
    *,
    low: float = 0.0,
    high: float = 100.0,
    max_tries: int = 1000,
) -> GraphArrays:
    """A connected Erdos-Renyi G(n, p) graph [1]_ with iid uniform(low, high) weights.

    Draws G(n, p) (each of the n(n-1)/2 pairs independently with probability p),
    redrawing until connected as in Pagh et al. [2]_, Appendix H ("regenerate until connected").
    The edge set is drawn without materializing all pairs: the number of edges is
    Binomial(n(n-1)/2, p) and the pairs are a uniform subset of that size, which has the
    same distribution. Edges are listed in increasing pair order.

    Parameters
    ----------
    n : int, at least 2
    p : float in (0, 1]
    rng : None, int, SeedSequence or Generator
    low, high : float
        Weight range ([2]_, Appendix H: U(0, 100)).
    max_tries : int
        Give up (InvalidGraphError) after this many disconnected draws.

    Returns
    -------
    GraphArrays

    References
    ----------
    .. [1] P. Erdos, A. Renyi, "On Random Graphs I", Publicationes Mathematicae Debrecen 6, 1959.
    .. [2] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025.
    """
    n = _validate_n(n, 2)
    if not (0.0 < p <= 1.0):
        raise InvalidGraphError(f"edge probability p must be in (0, 1], got {p!r}")
    if not (np.isfinite(low) and np.isfinite(high) and low <= high):
        raise InvalidWeightsError(f"weight range must be finite with low <= high, got ({low}, {high})")
    rng = np.random.default_rng(rng)
    n_pairs = n * (n - 1) // 2
    rows = np.arange(n, dtype=np.int64)
    row_start = rows * n - rows * (rows + 1) // 2
    for _ in range(max_tries):
        k = int(rng.binomial(n_pairs, p))
        codes = _uniform_subset(n_pairs, k, rng)
        i = np.searchsorted(row_start, codes, side="right") - 1
        j = codes - row_start[i] + i + 1
        g = as_graph_arrays((n, np.stack([i, j], axis=1).astype(np.int64), rng.uniform(low, high, size=k)))
        if number_of_components(g) == 1:
            return g
    raise InvalidGraphError(
        f"G({n}, {p}) was disconnected in {max_tries} draws; use p above ln(n)/n ~ {np.log(n) / n:.3g}"
    )


def _uniform_subset(population: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted uniform random k-subset of range(population)."""
    if k == 0:
        return np.empty(0, dtype=np.int64)
    if 2 * k > population:
        keep = np.ones(population, dtype=bool)
        keep[_uniform_subset(population, population - k, rng)] = False
        return np.flatnonzero(keep).astype(np.int64)
    chosen = _sorted_unique(rng.integers(0, population, size=k))
    while chosen.size < k:
        extra = rng.integers(0, population, size=int((k - chosen.size) * 1.1) + 8)
        chosen = _sorted_unique(np.concatenate([chosen, extra]))
    if chosen.size > k:
        chosen = np.sort(rng.choice(chosen, size=k, replace=False))
    return chosen.astype(np.int64)
