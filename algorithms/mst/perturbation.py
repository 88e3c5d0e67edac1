"""Algorithm 1 of Pagh et al. 2025: Gumbel input perturbation followed by any non-private MST algorithm.

Noisy weights (Pagh et al. 2025, Algorithm 1 line 2)

    w~_e = w_e - (2D/epsilon0) * G_e,   G_e iid Gumbel(0, 1),

and the output is MST(w~) from any backend of :func:`algorithms.graphs.minimum_spanning_tree`.
Ties among noisy weights have probability 0. The output distribution equals that of Algorithm 2
(private Kruskal) and Algorithm 3 (Theorem 3.5), so each of the ``n - c`` selected edges costs
one epsilon0-DP exponential-mechanism step; :meth:`GumbelPerturbationMechanism.privacy_accounting`
composes them with :mod:`algorithms.mst.accounting`.

For audits, :class:`GumbelPerturbationMechanism` draws many trees of one small graph at once
(numba Kruskal over a ``(size, m)`` key matrix). It uses the equivalent key
``w_e / beta + ln E_e`` with ``E_e`` iid Exp(1) (``-ln E`` is Gumbel(0, 1)), ordering edges
exactly as ``w~`` does.

A disconnected graph is valid: the output is then a spanning forest (``n - c`` edges).
"""

from __future__ import annotations

import numba
import numpy as np

from algorithms.graphs import as_graph_arrays, minimum_spanning_tree, number_of_components
from algorithms.graphs.union_find import reset, union
from algorithms.mst.accounting import ZCDPAccounting, check_delta, spanning_forest_accounting
from algorithms.mst.exponential import gumbel_scale

__all__ = [
    "gumbel_perturbed_weights",
    "perturbed_mst",
    "GumbelPerturbationMechanism",
    "batched_perturbed_trees",
]


def gumbel_perturbed_weights(data, epsilon0: float, rng=None, *, sensitivity: float = 1.0) -> np.ndarray:
    """Noisy weights ``w - (2D/epsilon0) G``, G iid Gumbel(0, 1) (Pagh et al. 2025, Algorithm 1 line 2).

    Drawn in the equivalent form ``w + (2D/epsilon0) ln E`` with E iid Exp(1) (``-ln E`` is
    Gumbel(0, 1)), which costs one logarithm per edge instead of two.
    """
    g = as_graph_arrays(data)
    return _noisy_weights(g.weights, gumbel_scale(epsilon0, sensitivity), np.random.default_rng(rng))


_TINY = np.finfo(np.float64).tiny


def _noisy_weights(weights: np.ndarray, beta: float, rng: np.random.Generator) -> np.ndarray:
    # Exp(1) draws are > 0 except with probability ~2^-53 each; clamp so ln E stays finite.
    noisy = np.log(np.maximum(rng.standard_exponential(size=weights.shape[0]), _TINY))
    noisy *= beta
    noisy += weights
    return noisy


def perturbed_mst(
    data,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    backend: str = "scipy",
    return_noisy_weights: bool = False,
):
    """Pagh et al. 2025, Algorithm 1: the minimum spanning tree of Gumbel-perturbed weights.

    Parameters
    ----------
    data : networkx.Graph, (n, edges, weights) or GraphArrays
        Public topology, private weights. Disconnected graphs give a spanning forest.
    epsilon0 : float > 0
        Per-step budget; each of the ``n - c`` selections is epsilon0-DP (Theorem 3.2 + 3.5).
    rng : None, int, SeedSequence or Generator
    sensitivity : float > 0
        D: neighbours satisfy ``max_e |w_e - w'_e| <= D``.
    backend : {"scipy", "networkx", "kruskal", "prim"}
        Non-private MST algorithm run on the noisy weights.
    return_noisy_weights : bool
        Also return ``w~`` (used by the utility inequality checks).

    Returns
    -------
    tree : int64 array of edge indices, sorted
    noisy_weights : float array (only if ``return_noisy_weights``)

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Algorithm 1.
    """
    g = as_graph_arrays(data)
    noisy = _noisy_weights(g.weights, gumbel_scale(epsilon0, sensitivity), np.random.default_rng(rng))
    tree = minimum_spanning_tree(g, noisy, backend=backend)
    return (tree, noisy) if return_noisy_weights else tree


@numba.njit(cache=True, nogil=True)
def _sift_down(keys, heap, i, size):
    while True:
        l = 2 * i + 1
        if l >= size:
            return
        c = l
        r = l + 1
        if r < size and keys[heap[r]] < keys[heap[l]]:
            c = r
        if keys[heap[c]] < keys[heap[i]]:
            heap[i], heap[c] = heap[c], heap[i]
            i = c
        else:
            return


@numba.njit(cache=True, nogil=True)
def _batched_kruskal(n, edges, key_factors, exponentials, k, use_log):
    # One Kruskal per row of keys. Linear space: key_e = E_e * key_factors[e] with
    # key_factors = exp(w/beta - min w/beta) (used when that cannot overflow); log space:
    # key_e = key_factors[e] + ln E_e with key_factors = w/beta. Both order edges as
    # w - beta * Gumbel does. Edges are taken from a binary min-heap (Kruskal stops after
    # k = n - c edges, so a full sort is not needed). Rows of the output are sorted.
    size, m = exponentials.shape
    out = np.empty((size, k), dtype=np.int64)
    keys = np.empty(m, dtype=np.float64)
    heap = np.empty(m, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    component_size = np.empty(n, dtype=np.int64)
    for s in range(size):
        if use_log:
            for e in range(m):
                keys[e] = key_factors[e] + np.log(exponentials[s, e])
        else:
            for e in range(m):
                keys[e] = exponentials[s, e] * key_factors[e]
        for e in range(m):
            heap[e] = e
        hsize = m
        for i in range(m // 2 - 1, -1, -1):
            _sift_down(keys, heap, i, hsize)
        reset(parent, component_size)
        taken = 0
        while taken < k and hsize > 0:
            e = heap[0]
            hsize -= 1
            heap[0] = heap[hsize]
            _sift_down(keys, heap, 0, hsize)
            if not union(parent, component_size, edges[e, 0], edges[e, 1]):
                continue
            # insertion into the sorted row
            j = taken
            while j > 0 and out[s, j - 1] > e:
                out[s, j] = out[s, j - 1]
                j -= 1
            out[s, j] = e
            taken += 1
    return out


def batched_perturbed_trees(
    data,
    epsilon0: float,
    size: int,
    rng=None,
    *,
    sensitivity: float = 1.0,
    chunk_rows: int | None = None,
) -> np.ndarray:
    """``size`` independent Algorithm 1 trees of one graph as a ``(size, n - c)`` int64 array.

    Row ``i`` holds the sorted edge indices of tree ``i``. Draws are taken from ``rng`` in
    row-major order chunk after chunk, so the result does not depend on ``chunk_rows``.
    """
    g = as_graph_arrays(data)
    size = int(size)
    if size < 0:
        raise ValueError(f"size must be >= 0, got {size}")
    beta = gumbel_scale(epsilon0, sensitivity)
    rng = np.random.default_rng(rng)
    k = g.n - number_of_components(g)
    out = np.empty((size, k), dtype=np.int64)
    if g.m == 0 or size == 0:
        return out
    scaled = g.weights / beta
    spread = float(scaled.max() - scaled.min())
    # Linear-space keys E * exp(w/beta - min) are exact up to rounding and cannot overflow
    # while the spread stays far below log(max double) ~ 709 (E < 40 for all practical draws).
    use_log = spread > 600.0
    factors = scaled if use_log else np.exp(scaled - scaled.min())
    rows = chunk_rows or max(1, (1 << 20) // g.m)
    for start in range(0, size, rows):
        stop = min(size, start + rows)
        exps = rng.standard_exponential(size=(stop - start, g.m))
        out[start:stop] = _batched_kruskal(g.n, g.edges, factors, exps, k, use_log)
    return out


class GumbelPerturbationMechanism:
    """Algorithm 1 (Pagh et al. 2025) as a dpverify mechanism: ``data -> spanning tree`` (sorted tuple).

    ``mechanism(data, rng)`` returns one tree as the sorted tuple of its edge indices and
    ``mechanism.sample(data, size, rng)`` returns ``size`` such tuples, drawn by the batched
    numba sampler (:func:`batched_perturbed_trees`). ``data`` is anything
    :func:`algorithms.graphs.as_graph_arrays` accepts; neighbouring inputs share the topology.

    Parameters
    ----------
    epsilon0 : float > 0
        Per-step budget.
    sensitivity : float > 0
        D of the l_inf neighbouring relation.

    See Also
    --------
    algorithms.mst.broken.BrokenGumbelPerturbationMechanism : the same with too little noise, for
        showing that audits catch a false claim.
    """

    def __init__(self, epsilon0: float, *, sensitivity: float = 1.0):
        gumbel_scale(epsilon0, sensitivity)  # validates
        self.epsilon0 = float(epsilon0)
        self.sensitivity = float(sensitivity)

    def __repr__(self) -> str:
        return f"GumbelPerturbationMechanism(epsilon0={self.epsilon0}, sensitivity={self.sensitivity})"

    def sample_array(self, data, size: int, rng=None) -> np.ndarray:
        """``(size, n - c)`` int64 array of sorted edge indices."""
        return batched_perturbed_trees(data, self.epsilon0, size, rng, sensitivity=self.sensitivity)

    def sample(self, data, size: int, rng=None) -> list:
        """``size`` trees, each the sorted tuple of its edge indices."""
        rows = self.sample_array(data, size, rng)
        if rows.shape[1] == 0:
            return [()] * rows.shape[0]
        return list(zip(*rows.T.tolist()))

    def __call__(self, data, rng=None) -> tuple:
        return self.sample(data, 1, rng)[0]

    def privacy_accounting(self, data, delta: float, *, conversion: str = "generic") -> ZCDPAccounting:
        """The claimed guarantee on ``data``'s topology: ``n - c`` epsilon0-DP steps, zCDP-composed
        (:func:`algorithms.mst.accounting.spanning_forest_accounting`)."""
        return spanning_forest_accounting(
            data, self.epsilon0, check_delta(delta), conversion=conversion, sensitivity=self.sensitivity
        )
