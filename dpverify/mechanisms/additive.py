"""Additive-noise mechanisms on real query answers (scalars or vectors).

- :class:`GridLaplace`: x + Lap(sensitivity/eps), rounded to a fine power-of-two
  grid and clamped (floating-point safe, see :mod:`.noise`); eps-DP (Dwork-Roth 3.3).
- :class:`SnappingLaplace`: Mironov's snapping mechanism (Mironov 2012, 5.2).
- :class:`GaussianMechanism`: x + N(0, sigma^2) on the same fine grid, sigma from
  the analytic calibration of Balle and Wang (ICML 2018, Theorem 8) or given.

The Laplace mechanism with Mironov-style snapping to a fine grid is
:class:`dpverify.mechanisms.textbook.LaplaceMechanism`; the textbook floating-point one
(``x + numpy.laplace``, which leaks) is :class:`dpverify.mechanisms.broken.FloatLaplaceMechanism`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from .._validation import check_delta, check_epsilon, check_positive_real
from ..claims import StatesClaim
from ..errors import InvalidParameterError
from .noise import CLAMP_SCALES, check_inside, fine_grid, round_to_grid, snap, snapping_grid

__all__ = [
    "GridLaplace",
    "SnappingLaplace",
    "GaussianMechanism",
    "gaussian_delta",
    "analytic_gaussian_sigma",
]


def _draw_shape(data, size):
    arr = np.asarray(data, dtype=np.float64)
    return arr, (arr.shape if size is None else (size,) + arr.shape)


def _as_output(arr):
    return float(arr) if np.ndim(arr) == 0 else arr


class GridLaplace(StatesClaim):
    """x + Lap(sensitivity/eps) on a fine grid, clamped to +-bound: eps-DP on doubles.

    Parameters
    ----------
    epsilon : float
        Claim.
    sensitivity : float
        l1 sensitivity of the query (vectors: of the whole vector).
    bound : float, optional
        Clamp; default ``30 * scale`` (inputs must lie within half of it).
    """

    claim_neighbouring = "|x - x'| <= {sensitivity:g}"
    claim_source = "Dwork and Roth 2014, Theorem 3.6 (floating-point safe grid rounding)"

    def other_claims(self) -> tuple:
        """Its claims in the other kinds: the Laplace mechanism's (:mod:`dpverify.mechanisms.concentrated`)."""
        from .concentrated import _laplace_claims

        return _laplace_claims(self)

    def __init__(self, epsilon, sensitivity=1.0, bound=None, grid_bits=10):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        self.scale = self.sensitivity / self.epsilon
        self.bound = float(bound) if bound is not None else CLAMP_SCALES * self.scale
        self.grid = fine_grid(self.scale, grid_bits)

    def sample(self, data, size, rng):
        arr, shape = _draw_shape(data, size)
        check_inside(arr, self.bound)
        return round_to_grid(arr + rng.laplace(scale=self.scale, size=shape), self.grid, self.bound)

    def __call__(self, data, rng):
        return _as_output(self.sample(data, None, rng))

    def true_epsilon(self, x, x_prime) -> float:
        """Loss of the ideal mechanism on the pair: ||x - x'||_1 / scale."""
        return float(np.abs(np.asarray(x, float) - np.asarray(x_prime, float)).sum()) / self.scale


class SnappingLaplace(StatesClaim):
    """Mironov's snapping mechanism for a scalar: claimed (1/lambda + 2^-49 B/lambda)-DP.

    ``lambda = sensitivity / epsilon`` (the noise scale); outputs are multiples
    of the smallest power of two >= lambda, clamped to [-B, B] (Mironov 2012,
    Section 5.2, Theorem 1). ``epsilon`` (the attribute) is the full claim.
    """

    claim_neighbouring = "|x - x'| <= {sensitivity:g}"
    claim_source = "Mironov 2012, the snapping mechanism"

    def __init__(self, epsilon, sensitivity=1.0, bound=None):
        eps = check_epsilon(epsilon)
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        self.scale = self.sensitivity / eps
        self.bound = float(bound) if bound is not None else CLAMP_SCALES * self.scale
        if not (self.scale < self.bound < 2.0**46 * self.scale):
            raise InvalidParameterError(
                f"snapping needs scale < bound < 2^46 scale, got bound={self.bound!r}, scale={self.scale!r}"
            )
        self.grid = snapping_grid(self.scale)
        self.epsilon = eps + 2.0**-49 * self.bound / self.scale
        self.delta = 0.0

    def sample(self, data, size, rng):
        arr, shape = _draw_shape(data, size)
        if arr.ndim != 0:
            raise InvalidParameterError("the snapping mechanism takes a scalar query answer")
        return snap(arr, rng.laplace(scale=self.scale, size=shape), self.scale, self.bound)

    def __call__(self, data, rng):
        return _as_output(self.sample(data, None, rng))


def gaussian_delta(epsilon, sigma, sensitivity=1.0):
    """Exact delta(eps) of x + N(0, sigma^2) for |x - x'| = sensitivity (Balle-Wang 2018, Thm 8).

    ``Phi(D/(2 s) - eps s/D) - e^eps Phi(-D/(2 s) - eps s/D)``; vectorized over eps.
    """
    eps = np.asarray(epsilon, dtype=float)
    a = sensitivity / (2 * sigma)
    b = eps * sigma / sensitivity
    out = norm.cdf(a - b) - np.exp(eps) * norm.cdf(-a - b)
    out = np.maximum(out, 0.0)
    return float(out) if out.ndim == 0 else out


def analytic_gaussian_sigma(epsilon, delta, sensitivity=1.0) -> float:
    """Smallest sigma with ``gaussian_delta(epsilon, sigma) <= delta`` (Balle-Wang 2018, Alg. 1).

    Found by root finding on ``log sigma`` (delta(eps) is decreasing in sigma).
    """
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if delta <= 0:
        raise InvalidParameterError("the Gaussian mechanism needs delta > 0")
    sensitivity = check_positive_real(sensitivity, "sensitivity")

    def gap(log_sigma):
        return gaussian_delta(epsilon, math.exp(log_sigma), sensitivity) - delta

    lo, hi = math.log(sensitivity) - 20, math.log(sensitivity) + 20
    return math.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14))


class GaussianMechanism(StatesClaim):
    """x + N(0, sigma^2) on a fine grid, clamped: (eps, delta)-DP with the analytic sigma.

    Parameters
    ----------
    epsilon, delta : float
        Claim.
    sensitivity : float
        l2 sensitivity.
    sigma : float, optional
        Noise standard deviation; default :func:`analytic_gaussian_sigma`. (The mis-calibrated
        variant with too little noise is :class:`dpverify.mechanisms.broken.BrokenGaussianMechanism`.)
    """

    claim_neighbouring = "||x - x'||_2 <= {sensitivity:g}"
    claim_source = "Balle and Wang 2018, analytic Gaussian mechanism"

    def other_claims(self) -> tuple:
        """Its claims in the other kinds (:mod:`dpverify.mechanisms.concentrated`)."""
        from .concentrated import _gaussian_claims

        return _gaussian_claims(self)

    def __init__(self, epsilon, delta, sensitivity=1.0, sigma=None, bound=None, grid_bits=10):
        self.epsilon = check_epsilon(epsilon)
        self.delta = check_delta(delta)
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        base = analytic_gaussian_sigma(self.epsilon, self.delta, self.sensitivity) if sigma is None else sigma
        self.sigma = check_positive_real(base, "sigma") * self._sigma_factor()
        self.bound = float(bound) if bound is not None else CLAMP_SCALES * self.sigma
        self.grid = fine_grid(self.sigma, grid_bits)

    def _sigma_factor(self) -> float:
        return 1.0

    def sample(self, data, size, rng):
        arr, shape = _draw_shape(data, size)
        check_inside(arr, self.bound)
        return round_to_grid(arr + rng.normal(scale=self.sigma, size=shape), self.grid, self.bound)

    def __call__(self, data, rng):
        return _as_output(self.sample(data, None, rng))

    def true_delta(self, epsilon):
        """delta(eps) of the ideal mechanism for a pair at distance ``sensitivity``."""
        return gaussian_delta(epsilon, self.sigma, self.sensitivity)
