"""Claims in the other kinds: zCDP, Rényi DP and Gaussian DP of the zoo, and mechanisms that overclaim them.

The textbook mechanisms state their tightest known claim in each kind they have
(:meth:`~dpverify.claims.StatesClaim.claims`):

- the Gaussian mechanism of l2 sensitivity ``D`` and standard deviation ``sigma`` is
  ``D^2 / (2 sigma^2)``-zCDP (Bun and Steinke 2016, Proposition 1.6) and ``D / sigma``-GDP
  (Dong, Roth and Su 2022, Theorem 2.7);
- the Laplace mechanism has the exact Rényi curve of :func:`laplace_renyi` (Mironov 2017,
  Proposition 6) and the zCDP parameter :func:`laplace_rho`, its supremum over orders;
- the exponential mechanism is epsilon-bounded range, hence ``epsilon^2 / 8``-zCDP
  (Cesar and Rogers 2021, Lemma 3.2 with Theorem 2 of Durfee and Rogers 2019);
- randomized response: the exact rho of its two output distributions.

Broken on purpose, in the claim kinds an (epsilon, delta) audit cannot see:

- :class:`PermuteAndFlip` (McKenna and Sheldon 2020) is epsilon-DP but not epsilon-bounded
  range; :class:`BoundedRangePermuteAndFlip` states the bounded-range ``epsilon^2 / 8``-zCDP
  anyway, the claim OpenDP's GitHub issue #2911 (opendp/opendp, 2026) found in a library (true rho 2.6x the claim at
  epsilon = 1 on utilities (0, 1) against (1, 0)); every (epsilon, delta) point derived from
  that rho holds;
- :class:`ZCDPGaussian` adds the noise of a rho-zCDP Gaussian; with ``claim_factor`` it
  states ``rho / claim_factor`` instead (:func:`broken_zcdp_gaussian`: 1.25x too little).

References
----------
M. Bun and T. Steinke, "Concentrated Differential Privacy", TCC 2016.
I. Mironov, "Rényi Differential Privacy", IEEE CSF 2017.
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
M. Cesar and R. Rogers, "Bounding, Concentrating, and Truncating: Unifying Privacy Loss
Composition for Data Analytics", ALT 2021.
R. McKenna and D. Sheldon, "Permute-and-Flip: A New Mechanism for Differentially Private
Selection", NeurIPS 2020.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy import optimize

from .._validation import check_epsilon, check_positive_real
from ..claims import PrivacyClaim, StatesClaim
from ..errors import InvalidParameterError
from ._base import finite_vector
from .noise import fine_grid, round_to_grid

__all__ = [
    "laplace_renyi",
    "laplace_rho",
    "PermuteAndFlip",
    "BoundedRangePermuteAndFlip",
    "ZCDPGaussian",
    "broken_zcdp_gaussian",
    "RENYI_CLAIM_ORDERS",
]

#: The orders at which the Laplace mechanism states its exact Rényi curve.
RENYI_CLAIM_ORDERS = (1.5, 2.0, 4.0, 8.0, 16.0, 32.0)


def laplace_renyi(orders, epsilon: float):
    """Exact ``D_a(Lap(0, b) || Lap(D, b))`` with ``epsilon = D / b``, at each order ``a > 1`` (Mironov 2017, Prop. 6).

    ``ln(a / (2a - 1) e^((a - 1) eps) + (a - 1) / (2a - 1) e^(-a eps)) / (a - 1)``, in logs.
    """
    a = np.asarray(orders, dtype=float)
    first = np.log(a / (2 * a - 1)) + (a - 1) * epsilon
    second = np.log((a - 1) / (2 * a - 1)) - a * epsilon
    return np.logaddexp(first, second) / (a - 1)


def laplace_rho(epsilon: float) -> float:
    """The least rho of rho-zCDP of the Laplace mechanism: ``sup_a laplace_renyi(a) / a`` (numerically)."""
    grid = 1.0 + np.geomspace(1e-6, 1e4, 2001)
    ratio = laplace_renyi(grid, epsilon) / grid
    i = int(np.argmax(ratio))
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    kl = epsilon + math.exp(-epsilon) - 1.0  # the order-1 limit
    found = optimize.minimize_scalar(lambda a: -laplace_renyi(a, epsilon) / a, bounds=(lo, hi), method="bounded")
    return float(max(ratio[i], -found.fun, kl))


def _laplace_claims(mechanism) -> tuple:
    meta = dict(neighbouring=mechanism.claim.neighbouring)
    orders = RENYI_CLAIM_ORDERS
    return (
        PrivacyClaim.zcdp(
            laplace_rho(mechanism.epsilon), source="Mironov 2017, Proposition 6 (sup over orders)", **meta
        ),
        PrivacyClaim.renyi(
            orders,
            tuple(float(v) for v in laplace_renyi(orders, mechanism.epsilon)),
            source="Mironov 2017, Prop. 6",
            **meta,
        ),
    )


def _gaussian_claims(mechanism) -> tuple:
    sigma = mechanism.sigma / mechanism._sigma_factor()  # the sigma the mechanism means to add
    meta = dict(neighbouring=mechanism.claim.neighbouring)
    d = mechanism.sensitivity
    return (
        PrivacyClaim.zcdp(d**2 / (2 * sigma**2), source="Bun and Steinke 2016, Proposition 1.6", **meta),
        PrivacyClaim.gdp(d / sigma, source="Dong, Roth and Su 2022, Theorem 2.7", **meta),
    )


def _exponential_claims(mechanism) -> tuple:
    return (
        PrivacyClaim.zcdp(
            mechanism.epsilon**2 / 8,
            neighbouring=mechanism.claim.neighbouring,
            source="Cesar and Rogers 2021 (epsilon-bounded range is epsilon^2/8-zCDP)",
        ),
    )


def _randomized_response_claims(mechanism) -> tuple:
    from ..audits.exact import exact_privacy_loss

    loss = exact_privacy_loss(mechanism.pmf(0), mechanism.pmf(1))
    meta = dict(neighbouring=mechanism.claim.neighbouring, source="exact, from the two output distributions")
    return (PrivacyClaim.zcdp(loss.rho, **meta), PrivacyClaim.gdp(loss.mu, **meta))


class PermuteAndFlip(StatesClaim):
    """Permute-and-flip selection (McKenna and Sheldon 2020, Algorithm 1): epsilon-DP.

    Visit the candidates in a random order and stop at candidate ``i`` with probability
    ``exp(epsilon (u_i - max u) / (2 sensitivity))``. The data is the vector of utilities;
    neighbouring data change each utility by at most ``sensitivity``. Its exact pmf
    enumerates the orders (at most :data:`MAX_EXACT` candidates).
    """

    claim_neighbouring = "utility vectors differ by at most {sensitivity:g} in each coordinate"
    claim_source = "McKenna and Sheldon 2020, Theorem 1"
    #: Candidates up to which :meth:`pmf` enumerates the orders.
    MAX_EXACT = 7

    def __init__(self, epsilon: float, sensitivity: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")

    def _stop(self, data) -> np.ndarray:
        u = finite_vector(data, "utilities")
        return np.exp(self.epsilon * (u - u.max()) / (2 * self.sensitivity))

    def sample(self, data, size, rng) -> np.ndarray:
        stop = self._stop(data)
        order = np.argsort(rng.random((size, stop.size)), axis=1)
        accept = rng.random((size, stop.size)) < stop[order]
        return order[np.arange(size), np.argmax(accept, axis=1)]  # the best candidate always accepts

    def __call__(self, data, rng) -> int:
        return int(self.sample(data, 1, rng)[0])

    def pmf(self, data) -> dict:
        stop = self._stop(data)
        if stop.size > self.MAX_EXACT:
            raise InvalidParameterError(f"the exact pmf enumerates orders: at most {self.MAX_EXACT} candidates")
        out = np.zeros(stop.size)
        orders = list(itertools.permutations(range(stop.size)))
        for order in orders:
            survive = 1.0
            for i in order:
                out[i] += survive * stop[i]
                survive *= 1.0 - stop[i]
        return {i: float(v) for i, v in enumerate(out / len(orders))}


class BoundedRangePermuteAndFlip(PermuteAndFlip):
    """Permute-and-flip stating the exponential mechanism's ``epsilon^2 / 8``-zCDP. Broken.

    Permute-and-flip is epsilon-DP (hence ``epsilon^2 / 2``-zCDP) but not epsilon-bounded
    range; its rho on utilities (0, 1) against (1, 0) is 2.6 times ``epsilon^2 / 8`` at
    epsilon = 1 (3.2 at 0.5). The claim it states is a zCDP claim, audited as zCDP.
    """

    claim_source = "claimed as bounded range (the mistake of OpenDP's GitHub issue #2911)"

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim.zcdp(
            self.epsilon**2 / 8,
            neighbouring=self.claim_neighbouring.format(**vars(self)),
            source=self.claim_source,
        )


class ZCDPGaussian:
    """``x + N(0, sigma^2)`` with ``sigma = sensitivity / sqrt(2 rho)``: rho-zCDP, stated as such.

    Outputs are rounded to a fine power-of-two grid (post-processing, so no float leak).
    With ``claim_factor > 1`` the mechanism states ``rho / claim_factor`` while adding the
    noise of ``rho``: a broken claim (:func:`broken_zcdp_gaussian`).
    """

    def __init__(self, rho: float, sensitivity: float = 1.0, claim_factor: float = 1.0, grid_bits: int = 10):
        self.rho = check_positive_real(rho, "rho")
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        self.claim_factor = check_positive_real(claim_factor, "claim_factor")
        self.sigma = self.sensitivity / math.sqrt(2 * self.rho)
        self.grid = fine_grid(self.sigma, grid_bits)
        self.bound = 40 * self.sigma + 1e6

    @property
    def claim(self) -> PrivacyClaim:
        return PrivacyClaim.zcdp(
            self.rho / self.claim_factor,
            neighbouring=f"|x - x'| <= {self.sensitivity:g}",
            source="Bun and Steinke 2016, Proposition 1.6"
            + ("" if self.claim_factor == 1 else f" (stated {self.claim_factor:g}x too small: broken)"),
        )

    @property
    def mu(self) -> float:
        """The Gaussian DP parameter of the noise added, ``sensitivity / sigma``."""
        return self.sensitivity / self.sigma

    def sample(self, data, size, rng):
        arr = np.asarray(data, dtype=np.float64)
        shape = arr.shape if size is None else (size,) + arr.shape
        noise = rng.normal(scale=self.sigma, size=shape)
        noise += arr  # x + noise, in the draw's own array
        return round_to_grid(noise, self.grid, self.bound)

    def __call__(self, data, rng):
        out = self.sample(data, None, rng)
        return float(out) if np.ndim(out) == 0 else out


def broken_zcdp_gaussian(rho: float = 0.5, factor: float = 1.25) -> ZCDPGaussian:
    """A Gaussian that states ``rho / factor``-zCDP while adding the noise of ``rho``. Broken."""
    return ZCDPGaussian(rho, claim_factor=factor)
