"""Input privatization (Sealfon 2016): release noisy weights, then post-process with any MST.

The baseline of Pagh et al. 2025's experiments (Sealfon 2016). The whole weight vector
is released with additive noise and a non-private minimum spanning tree of the noisy weights is
returned (post-processing: no further privacy cost).

Calibrations, for sensitivity D:

==============  =======================================  ===============================================
neighbouring    pure eps-DP (Laplace, per edge)          rho-zCDP (Gaussian, per edge)
==============  =======================================  ===============================================
``"linf"``      ``Lap(m D / eps)`` (l1 sensitivity mD)   ``sigma = D sqrt(m / (2 rho))`` (l2: sqrt(m) D)
``"l1"``        ``Lap(D / eps)``                         ``sigma = D / sqrt(2 rho)`` (l2 <= D)
==============  =======================================  ===============================================

``"linf"`` (``max_e |w_e - w'_e| <= D``) is Pagh et al. 2025's relation; ``"l1"``
(``sum_e |w_e - w'_e| <= D``) is Sealfon's.
"""

from __future__ import annotations

import math

import numpy as np

from algorithms.errors import InvalidPrivacyParameterError
from algorithms.graphs import as_graph_arrays, minimum_spanning_tree
from algorithms.mst.accounting import (
    ZCDPAccounting,
    accounting,
    check_delta,
    check_epsilon,
    check_rho,
    check_sensitivity,
    epsilon_from_rho,
)

__all__ = [
    "NEIGHBOURING_RELATIONS",
    "laplace_scale",
    "gaussian_sigma",
    "laplace_privatized_mst",
    "gaussian_privatized_mst",
    "laplace_accounting",
    "gaussian_accounting",
]

NEIGHBOURING_RELATIONS = ("linf", "l1")


def _check_relation(neighbouring: str) -> str:
    if neighbouring not in NEIGHBOURING_RELATIONS:
        raise InvalidPrivacyParameterError(
            f"neighbouring must be one of {NEIGHBOURING_RELATIONS}, got {neighbouring!r}"
        )
    return neighbouring


def laplace_scale(m: int, epsilon: float, sensitivity: float = 1.0, neighbouring: str = "linf") -> float:
    """Per-edge Laplace scale: ``m D / eps`` (linf) or ``D / eps`` (l1)."""
    eps = check_epsilon(epsilon)
    d = check_sensitivity(sensitivity)
    return (m * d if _check_relation(neighbouring) == "linf" else d) / eps


def gaussian_sigma(m: int, rho: float, sensitivity: float = 1.0, neighbouring: str = "linf") -> float:
    """Per-edge Gaussian sigma for rho-zCDP: ``D sqrt(m / (2 rho))`` (linf) or ``D / sqrt(2 rho)`` (l1)."""
    rho = check_rho(rho)
    d = check_sensitivity(sensitivity)
    l2 = d * math.sqrt(m) if _check_relation(neighbouring) == "linf" else d
    return l2 / math.sqrt(2.0 * rho)


def laplace_privatized_mst(
    data,
    epsilon: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    neighbouring: str = "linf",
    backend: str = "scipy",
    return_noisy_weights: bool = False,
):
    """Sealfon's input privatization, pure eps-DP: MST of ``w + Lap(b)`` (b from :func:`laplace_scale`).

    Returns sorted edge indices (and the noisy weights if asked).

    References
    ----------
    .. [1] A. Sealfon, "Shortest Paths and Distances with Differential Privacy", PODS 2016.
    .. [2] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Appendix H (input privatization as a baseline).
    """
    g = as_graph_arrays(data)
    b = laplace_scale(g.m, epsilon, sensitivity, neighbouring)
    noisy = g.weights + np.random.default_rng(rng).laplace(scale=b, size=g.m)
    tree = minimum_spanning_tree(g, noisy, backend=backend)
    return (tree, noisy) if return_noisy_weights else tree


def gaussian_privatized_mst(
    data,
    rho: float,
    rng=None,
    *,
    sensitivity: float = 1.0,
    neighbouring: str = "linf",
    backend: str = "scipy",
    return_noisy_weights: bool = False,
):
    """Sealfon's input privatization, rho-zCDP: MST of ``w + N(0, sigma^2)`` (sigma from :func:`gaussian_sigma`).

    References
    ----------
    .. [1] A. Sealfon, "Shortest Paths and Distances with Differential Privacy", PODS 2016.
    .. [2] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Appendix H (input privatization as a baseline).
    """
    g = as_graph_arrays(data)
    sigma = gaussian_sigma(g.m, rho, sensitivity, neighbouring)
    noisy = g.weights + np.random.default_rng(rng).normal(scale=sigma, size=g.m)
    tree = minimum_spanning_tree(g, noisy, backend=backend)
    return (tree, noisy) if return_noisy_weights else tree


def laplace_accounting(epsilon: float, *, sensitivity: float = 1.0, neighbouring: str = "linf") -> ZCDPAccounting:
    """Pure eps-DP claim of :func:`laplace_privatized_mst` (rho = eps^2/2 by the generic conversion)."""
    eps = check_epsilon(epsilon)
    return accounting(
        epsilon0=math.inf,
        steps=1,
        rho=eps * eps / 2.0,
        epsilon=eps,
        delta=0.0,
        conversion="pure",
        sensitivity=sensitivity,
        neighbouring=_check_relation(neighbouring),
        source="Sealfon 2016 (input privatization with Laplace noise)",
    )


def gaussian_accounting(
    rho: float, delta: float, *, sensitivity: float = 1.0, neighbouring: str = "linf"
) -> ZCDPAccounting:
    """rho-zCDP claim of :func:`gaussian_privatized_mst`, stated as (eps, delta) at ``delta``."""
    rho = check_rho(rho)
    return accounting(
        epsilon0=math.inf,
        steps=1,
        rho=rho,
        epsilon=epsilon_from_rho(rho, check_delta(delta)),
        delta=delta,
        conversion="gaussian",
        sensitivity=sensitivity,
        neighbouring=_check_relation(neighbouring),
        source="Sealfon 2016 (input privatization with Gaussian noise, rho-zCDP; Bun and Steinke 2016)",
    )
