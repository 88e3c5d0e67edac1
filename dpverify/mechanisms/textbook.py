"""Textbook mechanisms with known privacy, for testing the auditor itself.

Each mechanism is a small class: ``__call__(data, rng)`` draws one output,
``sample(data, size, rng)`` draws many at once, ``epsilon`` is the claim, and
``pair_epsilon(x, x_prime)`` the exact privacy loss on a pair (from a closed
form or the exact pmf). They are what ``dpverify suite`` audits by default
(:mod:`dpverify.mechanisms.verifications`) and what the auditor's own
calibration tests run on.

References: Dwork and Roth, *The Algorithmic Foundations of Differential
Privacy* (2014): randomized response (3.2), Laplace (3.3), exponential
mechanism (3.4); Ghosh, Roughgarden, Sundararajan (2012): the geometric mechanism.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon, check_positive_real
from ..claims import StatesClaim
from ..errors import InvalidParameterError
from ._base import PmfPairLoss, finite_vector

__all__ = [
    "RandomizedResponse",
    "LaplaceMechanism",
    "GeometricMechanism",
    "ExponentialMechanism",
]


class RandomizedResponse(PmfPairLoss, StatesClaim):
    """Report a bit truthfully with probability e^eps/(1+e^eps): eps-DP (Dwork-Roth 3.2)."""

    claim_neighbouring = "x, x' in {{0, 1}}"
    #: The neighbouring relation of its inputs (:mod:`dpverify.neighbours.relations`) and its parameters.
    input_relation = ("bits", {})
    claim_source = "Warner 1965; Dwork and Roth 2014, Section 3.2"

    def other_claims(self) -> tuple:
        """Its claims in the other kinds (:mod:`dpverify.mechanisms.concentrated`)."""
        from .concentrated import _randomized_response_claims

        return _randomized_response_claims(self)

    def __init__(self, epsilon: float):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.keep = math.exp(self.epsilon) / (1 + math.exp(self.epsilon))

    def _bit(self, data) -> int:
        if data not in (0, 1):
            raise InvalidParameterError(f"randomized response takes a bit 0 or 1, got {data!r}")
        return int(data)

    def __call__(self, data, rng) -> int:
        bit = self._bit(data)
        return bit if rng.random() < self.keep else 1 - bit

    def sample(self, data, size, rng) -> np.ndarray:
        bit = self._bit(data)
        return np.where(rng.random(size) < self.keep, bit, 1 - bit)

    def pmf(self, data) -> dict:
        bit = self._bit(data)
        return {bit: self.keep, 1 - bit: 1 - self.keep}


class LaplaceMechanism(StatesClaim):
    """x + Lap(sensitivity/eps) on a real query answer: eps-DP for |x - x'| <= sensitivity.

    Floating point: the textbook ``x + rng.laplace(...)`` on doubles is *not*
    eps-DP (Mironov 2012): the sets of doubles reachable from x and from x'
    differ, and the low bits of an output reveal the input. By default the
    output is therefore rounded to a multiple of ``snap`` (2^-20), far coarser
    than the spacing of doubles near the outputs, so every grid point is
    reachable from both inputs and the rounding is post-processing of (a
    close approximation of) the ideal mechanism.

    The broken variants live in :mod:`dpverify.mechanisms.broken`: the textbook, leaking
    float version (``FloatLaplaceMechanism``) and one with too little noise
    (``BrokenLaplaceMechanism``).
    """

    claim_neighbouring = "|x - x'| <= {sensitivity:g}"
    claim_source = "Dwork and Roth 2014, Theorem 3.6"

    def other_claims(self) -> tuple:
        """Its claims in the other kinds (:mod:`dpverify.mechanisms.concentrated`)."""
        from .concentrated import _laplace_claims

        return _laplace_claims(self)

    def __init__(self, epsilon: float, sensitivity: float = 1.0, snap: float | None = 2.0**-20):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        self.scale = self.sensitivity / self.epsilon
        self.snap = check_positive_real(snap, "snap (a grid width)")

    def _round(self, y):
        if self.snap is None:
            return y
        if isinstance(y, float):  # np.rint is np.round's double (half to even) without its array wrapping: 2 us less
            return np.rint(y / self.snap) * self.snap
        return np.round(y / self.snap) * self.snap

    def __call__(self, data, rng) -> float:
        return float(self._round(float(data) + rng.laplace(scale=self.scale)))

    def sample(self, data, size, rng) -> np.ndarray:
        return self._round(float(data) + rng.laplace(scale=self.scale, size=size))

    def pair_epsilon(self, x, x_prime) -> float:
        """Exact loss of the ideal (real-valued) mechanism on the pair."""
        return abs(float(x) - float(x_prime)) / self.scale


class GeometricMechanism(StatesClaim):
    """x + Z with P[Z = z] proportional to exp(-eps |z| / sensitivity) on integers: eps-DP.

    Z is the difference of two geometric variables with success probability
    ``1 - exp(-eps/sensitivity)`` (Ghosh, Roughgarden and Sundararajan 2012).
    """

    claim_neighbouring = "|x - x'| <= {sensitivity:g} (integers)"
    claim_source = "Ghosh, Roughgarden and Sundararajan 2012"

    def __init__(self, epsilon: float, sensitivity: int = 1):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        self.ratio = math.exp(-self.epsilon / self.sensitivity)

    def _noise(self, size, rng):
        p = 1 - self.ratio
        return rng.geometric(p, size=size) - rng.geometric(p, size=size)

    def __call__(self, data, rng) -> int:
        return int(data) + int(self._noise(None, rng))

    def sample(self, data, size, rng) -> np.ndarray:
        return int(data) + self._noise(size, rng)

    def pair_epsilon(self, x, x_prime) -> float:
        return abs(int(x) - int(x_prime)) * self.epsilon / self.sensitivity


class ExponentialMechanism(PmfPairLoss, StatesClaim):
    """Pick index i with probability proportional to exp(eps u_i / (2 sensitivity)): eps-DP.

    The data is the vector of utilities ``u``; neighbouring data change every
    utility by at most ``sensitivity`` (Dwork-Roth Theorem 3.10).
    """

    claim_neighbouring = "utility vectors differ by at most {sensitivity:g} in each coordinate"
    claim_source = "Dwork and Roth 2014, Theorem 3.10"

    def other_claims(self) -> tuple:
        """Its claims in the other kinds (:mod:`dpverify.mechanisms.concentrated`)."""
        from .concentrated import _exponential_claims

        return _exponential_claims(self)

    def __init__(self, epsilon: float, sensitivity: float = 1.0):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")

    def probabilities(self, data) -> np.ndarray:
        u = finite_vector(data, "utilities")
        logits = self.epsilon * u / (2 * self.sensitivity)
        logits -= logits.max()
        w = np.exp(logits)
        return w / w.sum()

    def __call__(self, data, rng) -> int:
        p = self.probabilities(data)
        return int(rng.choice(len(p), p=p))

    def sample(self, data, size, rng) -> np.ndarray:
        p = self.probabilities(data)
        return np.searchsorted(np.cumsum(p), rng.random(size) * p.sum(), side="right").clip(0, len(p) - 1)

    def pmf(self, data) -> dict:
        return {i: float(v) for i, v in enumerate(self.probabilities(data))}
