"""Pagh et al. 2025, Appendix A: private optimal bases of any matroid by perturbing once and running greedy.

For a matroid M on elements ``0..N-1`` with private weights ``w`` (neighbours: ``max |w - w'| <= D``)
and rank K, perturb every weight once with Gumbel noise of scale ``beta = 2D/epsilon0`` and return the
greedy basis of the noisy weights:

- maximum-weight basis: ``w~ = w + beta G``, greedy by ``w~`` descending;
- minimum-weight basis: ``w~ = w - beta G``, greedy by ``w~`` ascending (Algorithm 1 for the
  graphic matroid).

The PPSACR argument of Section 3.3 applies with the removal rule "drop elements that became
dependent", so the output is distributed as K successive epsilon0-DP exponential-mechanism
selections over the elements still addable; the claim composes K steps (:mod:`.accounting`).

Works with any :class:`algorithms.matroids.Matroid` (independence oracle with a greedy).
"""

from __future__ import annotations

import numpy as np

from algorithms.errors import InvalidWeightsError
from algorithms.mst.accounting import ZCDPAccounting, accounting_from_epsilon0, check_delta
from algorithms.mst.exponential import gumbel_scale

__all__ = ["private_matroid_basis", "matroid_basis_accounting", "PerturbedMatroidBasisMechanism"]


def _weights(matroid, weights) -> np.ndarray:
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (matroid.n_elements,):
        raise InvalidWeightsError(
            f"weights must have shape ({matroid.n_elements},) (one per matroid element), got {w.shape}"
        )
    if not np.all(np.isfinite(w)):
        raise InvalidWeightsError("matroid element weights must be finite reals")
    return w


def private_matroid_basis(
    matroid,
    weights,
    epsilon0: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    maximize: bool = True,
) -> np.ndarray:
    """Pagh et al. 2025, Appendix A: greedy basis of Gumbel-perturbed weights (sorted element indices).

    Parameters
    ----------
    matroid : algorithms.matroids.Matroid
        Any matroid with ``n_elements`` and ``greedy_max_basis`` / ``greedy_min_basis``.
    weights : array of shape (n_elements,), finite
    epsilon0 : float > 0
        Budget of each of the ``rank`` implicit selections.
    rng : None, int, SeedSequence or Generator
    sensitivity : float > 0
    maximize : bool
        Maximum-weight basis (default) or minimum-weight basis.

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Appendix A.
    """
    w = _weights(matroid, weights)
    beta = gumbel_scale(epsilon0, sensitivity)
    g = np.random.default_rng(rng).gumbel(size=w.size)
    if maximize:
        basis = matroid.greedy_max_basis(w + beta * g)
    else:
        basis = matroid.greedy_min_basis(w - beta * g)
    return np.sort(np.asarray(basis, dtype=np.int64))


def matroid_basis_accounting(
    matroid, epsilon0: float, delta: float, *, conversion: str = "generic", sensitivity: float = 1.0
) -> ZCDPAccounting:
    """The claim of :func:`private_matroid_basis`: ``rank`` epsilon0-DP steps composed by zCDP."""
    return accounting_from_epsilon0(
        epsilon0, int(matroid.rank), check_delta(delta), conversion=conversion, sensitivity=sensitivity
    )


class PerturbedMatroidBasisMechanism:
    """dpverify mechanism ``weights -> basis`` (sorted tuple) for a fixed public matroid.

    ``sample(weights, size, rng)`` uses the matroid's batched greedy
    (``greedy_max_basis_batch`` / ``greedy_min_basis_batch``) when it has one.
    """

    def __init__(self, matroid, epsilon0: float, *, sensitivity: float = 1.0, maximize: bool = True):
        gumbel_scale(epsilon0, sensitivity)
        self.matroid = matroid
        self.epsilon0 = float(epsilon0)
        self.sensitivity = float(sensitivity)
        self.maximize = bool(maximize)

    def __call__(self, weights, rng=None) -> tuple:
        basis = private_matroid_basis(
            self.matroid, weights, self.epsilon0, rng, sensitivity=self.sensitivity, maximize=self.maximize
        )
        return tuple(basis.tolist())

    def sample(self, weights, size: int, rng=None) -> list:
        w = _weights(self.matroid, weights)
        beta = gumbel_scale(self.epsilon0, self.sensitivity)
        g = np.random.default_rng(rng).gumbel(size=(int(size), w.size))
        if self.maximize:
            bases = self.matroid.greedy_max_basis_batch(w + beta * g)
        else:
            bases = self.matroid.greedy_min_basis_batch(w - beta * g)
        return list(map(tuple, np.sort(bases, axis=1).tolist()))

    def privacy_accounting(self, delta: float, *, conversion: str = "generic") -> ZCDPAccounting:
        return matroid_basis_accounting(
            self.matroid, self.epsilon0, delta, conversion=conversion, sensitivity=self.sensitivity
        )
