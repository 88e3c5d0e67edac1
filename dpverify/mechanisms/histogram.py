"""Noisy histogram: Laplace noise on every count (Dwork-Roth 3.3, Example 3.2).

Neighbouring datasets change one count by one (l1 sensitivity 1), so
Laplace(1/eps) noise per count is eps-DP. The deliberately broken variant
(:mod:`.broken`) uses noise scale ``eps`` instead of ``1/eps`` (true loss ``1/eps``: 10 at eps = 0.1).
Counts are rounded to a fine grid and clamped (:mod:`.noise`) so the audit
measures the noise scale, not float bits.

:class:`GeometricHistogram` adds two-sided geometric noise instead (integer
counts, integer outputs; Ghosh, Roughgarden, Sundararajan 2012), so its
output distribution is computable exactly (:func:`two_sided_geometric_pmf`).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon, check_fraction
from ..claims import StatesClaim
from ..errors import InvalidParameterError
from .noise import CLAMP_SCALES, check_inside, fine_grid, round_to_grid

__all__ = ["NoisyHistogram", "GeometricHistogram", "two_sided_geometric_pmf"]

#: Tail mass below which :func:`two_sided_geometric_pmf` truncates.
GEOMETRIC_TAIL = 1e-15


class NoisyHistogram(StatesClaim):
    """counts + Lap(1/eps) per count.

    Outputs are float vectors (one entry per count). The broken variant with scale ``eps`` is
    :class:`dpverify.mechanisms.broken.BrokenNoisyHistogram`.
    """

    claim_neighbouring = "one count changes by at most 1"
    #: The neighbouring relation of its inputs (:mod:`dpverify.neighbours.relations`) and its parameters.
    input_relation = ("vectors", {"norm": "l1"})
    claim_source = "Dwork and Roth 2014, Example 3.2"

    def other_claims(self) -> tuple:
        """Its claims in the other kinds: the Laplace mechanism's (:mod:`dpverify.mechanisms.concentrated`)."""
        from .concentrated import _laplace_claims

        return _laplace_claims(self)

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.scale = self._noise_scale()
        self.grid = fine_grid(self.scale)
        self.bound = max(CLAMP_SCALES * self.scale, 1000.0)

    def _noise_scale(self) -> float:
        return 1.0 / self.epsilon

    def _counts(self, data):
        counts = np.asarray(data, dtype=np.float64)
        if counts.ndim != 1 or counts.size < 1:
            raise InvalidParameterError(f"the data must be a non-empty 1-D vector of counts, got {data!r}")
        return check_inside(counts, self.bound, "counts")

    def sample(self, data, size, rng):
        counts = self._counts(data)
        noisy = counts + rng.laplace(scale=self.scale, size=(size, counts.size))
        return round_to_grid(noisy, self.grid, self.bound)

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def true_epsilon(self, x, x_prime) -> float:
        """||x - x'||_1 / scale."""
        return float(np.abs(self._counts(x) - self._counts(x_prime)).sum()) / self.scale


def two_sided_geometric_pmf(centers, ratio: float, tail: float = GEOMETRIC_TAIL) -> list:
    """pmfs of ``c + Z``, ``P[Z = z] = (1 - r)/(1 + r) r^|z|``, truncated where the tails are tiny.

    One pmf per centre ``c`` in ``centers``, all on the same outputs: the
    integers from ``min(centers) - K`` to ``max(centers) + K``, with ``K`` the
    smallest integer whose two tails ``2 r^(K+1)/(1+r)`` hold less than
    ``tail``. Each pmf is renormalized on that common support (a relative change
    below ``tail``), so truncation creates no output impossible under one centre.

    Returns
    -------
    list of dict
        Integer output -> probability, one per centre.
    """
    r = check_fraction(ratio, "ratio")
    centers = [int(c) for c in centers]
    k = max(0, int(np.ceil(np.log(tail * (1 + r) / 2) / np.log(r))) - 1)
    support = np.arange(min(centers) - k, max(centers) + k + 1)
    out = []
    for c in centers:
        mass = (1 - r) / (1 + r) * r ** np.abs(support - c).astype(float)
        mass /= mass.sum()
        out.append({int(o): float(m) for o, m in zip(support, mass)})
    return out


class GeometricHistogram(StatesClaim):
    """Integer counts plus independent two-sided geometric noise, ``r = exp(-eps)``: eps-DP.

    Neighbouring histograms change one count by one (Dwork-Roth 3.3 with the
    discrete noise of Ghosh, Roughgarden, Sundararajan 2012). Outputs are int64 vectors.
    """

    claim_neighbouring = "one count changes by at most 1"
    claim_source = "Ghosh, Roughgarden and Sundararajan 2012 (per count)"

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.ratio = float(np.exp(-self.epsilon))

    def _counts(self, data):
        counts = np.asarray(data)
        if counts.ndim != 1 or counts.size < 1 or not np.all(np.equal(np.mod(counts, 1), 0)):
            raise InvalidParameterError(f"the data must be a non-empty 1-D vector of integer counts, got {data!r}")
        return counts.astype(np.int64)

    def sample(self, data, size, rng):
        counts = self._counts(data)
        p = 1 - self.ratio
        shape = (size, counts.size)
        return counts + (rng.geometric(p, size=shape) - rng.geometric(p, size=shape))

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def coordinate_pmfs(self, x, x_prime):
        """Exact pmfs of the one count where ``x`` and ``x_prime`` differ (truncated, see
        :func:`two_sided_geometric_pmf`).

        The other counts have the same noise distribution under both inputs and are
        independent of it, so the likelihood ratio of a whole output vector is that
        of this count: every likelihood-ratio level set, and its probability, is
        the same on this marginal as on the full output.
        """
        a, b = self._counts(x), self._counts(x_prime)
        differ = np.flatnonzero(a != b)
        if a.shape != b.shape or differ.size != 1:
            raise InvalidParameterError("x and x_prime must differ in exactly one count")
        i = int(differ[0])
        return tuple(two_sided_geometric_pmf([a[i], b[i]], self.ratio))

    def true_epsilon(self, x, x_prime) -> float:
        """||x - x'||_1 * eps."""
        return float(np.abs(self._counts(x) - self._counts(x_prime)).sum()) * self.epsilon
