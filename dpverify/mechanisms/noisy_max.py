"""Report-noisy-max and its broken "return the value" variant (StatDP/DP-Sniper setups).

The data is a vector of query answers (counts), each of sensitivity 1.

- :class:`ReportNoisyMax` returns the index of the largest noisy answer, noise
  Laplace(2/eps) or Exponential(2/eps): eps-DP (Dwork-Roth 3.3, claim 3.9; the
  scale 2/eps is StatDP's and DP-Sniper's setting).
- :class:`NoisyMaxValue` returns the largest noisy *value* instead: with
  Laplace(2/eps) noise and k queries its true loss is k*eps/2 (0.25 for k = 5,
  eps = 0.1: the lower-tail event ``max < t`` has ratio ``e^(k/scale)`` when all
  answers move by one). Broken for k > 2. The value is rounded to a fine grid
  (:mod:`.noise`) so audits measure the algorithmic flaw, not float bits.
"""

from __future__ import annotations

import numpy as np
from scipy import integrate, stats

from .._validation import check_choice, check_epsilon
from ..claims import StatesClaim
from ._base import PmfPairLoss, query_answers
from .noise import CLAMP_SCALES, fine_grid, round_to_grid

__all__ = ["ReportNoisyMax", "NoisyMaxValue"]

NOISES = ("laplace", "exponential")


def _noise(kind: str, scale: float, shape, rng):
    if kind == "laplace":
        return rng.laplace(scale=scale, size=shape)
    return rng.exponential(scale=scale, size=shape)


def _check_noise(noise: str) -> str:
    return check_choice(noise, "noise", NOISES)


class _NoisyMaxMechanism(StatesClaim):
    """The noisy maximum of query answers, noise Laplace or Exponential of scale 2/eps."""

    claim_neighbouring = "each query answer changes by at most 1"

    def __init__(self, epsilon, noise="laplace"):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.noise = _check_noise(noise)
        self.scale = 2.0 / self.epsilon


class ReportNoisyMax(PmfPairLoss, _NoisyMaxMechanism):
    """Index of the largest ``q_i + noise_i``, noise Laplace or Exponential of scale 2/eps: eps-DP.

    Parameters
    ----------
    epsilon : float
        Claim.
    noise : {"laplace", "exponential"}
    """

    claim_source = "Dwork and Roth 2014, Claim 3.9"

    def sample(self, data, size, rng):
        q = query_answers(data)
        return np.argmax(q + _noise(self.noise, self.scale, (size, q.size), rng), axis=1)

    def __call__(self, data, rng):
        return int(self.sample(data, 1, rng)[0])

    def pmf(self, data) -> dict:
        """P[index = i] by quadrature of ``f(t - q_i) prod_{j != i} F(t - q_j)``."""
        q = query_answers(data)
        dist = (stats.laplace if self.noise == "laplace" else stats.expon)(scale=self.scale)
        lo = q.min() + dist.ppf(1e-15)
        hi = q.max() + dist.ppf(1 - 1e-15)
        probs = []
        for i in range(q.size):
            others = np.delete(q, i)

            def density(t, i=i, others=others):
                return dist.pdf(t - q[i]) * np.prod(dist.cdf(t - others))

            points = sorted(set(np.clip(q, lo, hi)))
            value, _ = integrate.quad(density, lo, hi, points=points, limit=500, epsabs=1e-14, epsrel=1e-12)
            probs.append(value)
        probs = np.asarray(probs)
        return {i: float(p) for i, p in enumerate(probs / probs.sum())}


class NoisyMaxValue(_NoisyMaxMechanism):
    """max_i (q_i + noise_i), noise of scale 2/eps, claimed eps-DP: BROKEN (true k*eps/2 for Laplace).

    The output is rounded to a fine power-of-two grid and clamped (see :mod:`.noise`).
    """

    claim_source = "Dwork and Roth 2014, Claim 3.9 (index only; the value is the broken variant)"

    def __init__(self, epsilon, noise="laplace"):
        super().__init__(epsilon, noise)
        self.grid = fine_grid(self.scale)
        self.bound = CLAMP_SCALES * self.scale

    def sample(self, data, size, rng):
        q = query_answers(data)
        values = np.max(q + _noise(self.noise, self.scale, (size, q.size), rng), axis=1)
        return round_to_grid(values, self.grid, self.bound)

    def __call__(self, data, rng):
        return float(self.sample(data, 1, rng)[0])

    def pmf(self, data) -> dict:
        """Exact pmf of the rounded, clamped output (grid value -> probability, zero masses left out).

        ``P[max <= t] = prod_i F(t - q_i)``; the grid point g collects
        ``(g - h/2, g + h/2]`` (h the grid width) and the clamp points the tails.
        Masses are differences of the cdf in the lower half and of the survival
        function in the upper half, so tiny cells keep their relative precision.
        """
        q = query_answers(data)
        dist = (stats.laplace if self.noise == "laplace" else stats.expon)(scale=self.scale)
        h = self.grid
        n = int(round(self.bound / h))
        points = np.arange(-n, n + 1) * h
        edges = np.concatenate([points[:-1] + h / 2])  # cell boundaries between points
        log_cdf = dist.logcdf(edges[:, None] - q[None, :]).sum(axis=1)  # log P[max <= edge]
        cdf = np.exp(log_cdf)
        sf = -np.expm1(log_cdf)
        lower = np.concatenate([[0.0], cdf])
        upper = np.concatenate([cdf, [1.0]])
        upper_sf = np.concatenate([sf, [0.0]])
        lower_sf = np.concatenate([[1.0], sf])
        mass = np.where(upper <= 0.5, upper - lower, lower_sf - upper_sf)
        mass = np.maximum(mass, 0.0)
        keep = mass > 0
        mass = mass / mass.sum()
        return {float(g): float(m) for g, m in zip(points[keep], mass[keep])}

    def true_epsilon(self, x, x_prime) -> float:
        """Loss on a pair where every answer moves by at most one, all in the same direction.

        ``k / scale`` (the lower tail); infinite for exponential noise (supports differ).
        """
        q, qp = query_answers(x), query_answers(x_prime)
        if self.noise == "exponential":
            return float("inf") if q.max() != qp.max() else 0.0
        return float(np.abs(q - qp).sum()) / self.scale
