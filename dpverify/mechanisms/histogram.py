"""Noisy histogram: Laplace noise on every count (Dwork-Roth 3.3, Example 3.2).

Neighbouring datasets change one count by one (l1 sensitivity 1), so
Laplace(1/eps) noise per count is eps-DP. The deliberately broken variant
(:mod:`.broken`) uses noise scale ``eps`` instead of ``1/eps`` (true loss ``1/eps``: 10 at eps = 0.1).
Counts are rounded to a fine grid and clamped (:mod:`.noise`) so the audit
measures the noise scale, not float bits.

:class:`GeometricHistogram` adds two-sided geometric noise instead (integer
counts, integer outputs; Ghosh, Roughgarden, Sundararajan 2012), so its
output distribution is computable exactly (:func:`two_sided_geometric_pmf`): for
short vectors as a whole (:meth:`GeometricHistogram.pmf`, the product of the
counts' pmfs), and for any pair of any width through the pmf of the privacy-loss
statistic (:func:`geometric_loss_pmfs`), whose events are exactly the
likelihood-ratio level sets of the whole output vector.
"""

from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon, check_fraction
from ..claims import StatesClaim
from ..errors import InvalidParameterError
from ._base import integer_vector
from .noise import CLAMP_SCALES, check_inside, fine_grid, round_to_grid

__all__ = [
    "NoisyHistogram",
    "GeometricHistogram",
    "two_sided_geometric_pmf",
    "geometric_loss_pmfs",
    "product_pmf",
    "MAX_VECTOR_OUTPUTS",
]

#: Tail mass below which :func:`two_sided_geometric_pmf` truncates.
GEOMETRIC_TAIL = 1e-15
#: Largest number of whole output vectors a product pmf (:func:`product_pmf`) enumerates.
MAX_VECTOR_OUTPUTS = 2_000_000


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


def product_pmf(marginals, transform=None) -> dict:
    """The pmf of a vector of independent integer coordinates, as ``tuple -> probability``.

    Parameters
    ----------
    marginals : sequence of dict
        One pmf (integer -> probability) per coordinate.
    transform : callable, optional
        Maps the (m, k) int64 array of coordinate vectors to the outputs (m, k'), a
        bijection (e.g. a cumulative sum); default the identity.

    Raises
    ------
    InvalidParameterError
        More than :data:`MAX_VECTOR_OUTPUTS` vectors.
    """
    sizes = [len(m) for m in marginals]
    if not sizes or math.prod(sizes) > MAX_VECTOR_OUTPUTS:
        raise InvalidParameterError(
            f"a product pmf of {sizes} outcomes per coordinate exceeds {MAX_VECTOR_OUTPUTS} vectors; "
            "use the privacy-loss statistic (geometric_loss_pmfs) for wide outputs"
        )
    values = [np.fromiter(m.keys(), dtype=np.int64) for m in marginals]
    masses = [np.fromiter(m.values(), dtype=float) for m in marginals]
    grid = np.stack([g.ravel() for g in np.meshgrid(*values, indexing="ij")], axis=1)
    mass = np.ones(1)
    for p in masses:
        mass = np.multiply.outer(mass, p).ravel()
    outputs = grid if transform is None else np.asarray(transform(grid), dtype=np.int64)
    return {tuple(int(v) for v in row): float(m) for row, m in zip(outputs, mass)}


def geometric_loss_pmfs(centres_x, centres_x_prime, ratio: float, tail: float = GEOMETRIC_TAIL) -> tuple:
    """pmfs of the privacy-loss statistic of independent two-sided geometric coordinates, under x and x'.

    Coordinate ``j`` is ``c_j + Z_j`` under x and ``c'_j + Z_j`` under x', ``Z_j`` two-sided
    geometric with ratio ``r = e^-eps`` (:func:`two_sided_geometric_pmf`, truncated on the
    common support of the two centres). The likelihood ratio of a whole output vector
    ``o`` is ``prod_j r^(|o_j - c_j| - |o_j - c'_j|) = e^(eps L)`` with the integer
    ``L(o) = sum_j (|o_j - c'_j| - |o_j - c_j|)``, so every likelihood-ratio level set of
    the output vectors is an event on ``L``, with the same probabilities: the pmfs of
    ``L`` (the sum of independent per-coordinate terms, a convolution) give the exact
    privacy loss and the oracle bound of the whole vector, at any width.

    Parameters
    ----------
    centres_x, centres_x_prime : sequence of int
        The coordinates' centres under the two inputs (equal centres contribute nothing).
    ratio : float
        ``r`` in (0, 1).

    Returns
    -------
    (dict, dict)
        ``L -> probability`` under x and under x'.

    References
    ----------
    A. Ghosh, T. Roughgarden, M. Sundararajan, "Universally Utility-Maximizing Privacy
    Mechanisms", SIAM J. Computing, 2012 (the two-sided geometric distribution);
    J. Neyman and E. S. Pearson, 1933 (likelihood-ratio level sets).
    """
    a = np.asarray(centres_x, dtype=np.int64).ravel()
    b = np.asarray(centres_x_prime, dtype=np.int64).ravel()
    if a.shape != b.shape:
        raise InvalidParameterError("the two centre vectors must have the same length")
    # the distribution of L for a coordinate depends only on d = c' - c (by symmetry on |d|)
    total_x, total_xp = np.ones(1), np.ones(1)
    for d in np.abs(b - a)[a != b]:
        d = int(d)
        px, pxp = two_sided_geometric_pmf([0, d], ratio, tail)
        loss_x, loss_xp = np.zeros(2 * d + 1), np.zeros(2 * d + 1)  # index L + d
        for o, p in px.items():
            loss_x[abs(o - d) - abs(o) + d] += p
        for o, p in pxp.items():
            loss_xp[abs(o - d) - abs(o) + d] += p
        total_x, total_xp = np.convolve(total_x, loss_x), np.convolve(total_xp, loss_xp)
    offset = (total_x.size - 1) // 2
    return tuple({int(k - offset): float(v) for k, v in enumerate(t) if v > 0} for t in (total_x, total_xp))


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
        return integer_vector(data, "counts")

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

    def pmf(self, data, tail: float = GEOMETRIC_TAIL) -> dict:
        """Exact pmf of the whole output vector (``tuple -> probability``), for short vectors.

        The product of the counts' two-sided geometric pmfs, each truncated where its tails
        hold less than ``tail`` (:func:`two_sided_geometric_pmf`); at most
        :data:`MAX_VECTOR_OUTPUTS` vectors (about 3 counts at eps = 1). For a pair, and for
        wide vectors, use :meth:`loss_pmfs`.
        """
        counts = self._counts(data)
        return product_pmf([two_sided_geometric_pmf([c], self.ratio, tail)[0] for c in counts])

    def loss_pmfs(self, x, x_prime):
        """Exact pmfs of the whole output vector's privacy-loss statistic under x and x'.

        Any pair of integer count vectors of one length (:func:`geometric_loss_pmfs`); its
        exact loss is ``||x - x'||_1 * eps`` and its oracle bound that of the whole vector.
        """
        a, b = self._counts(x), self._counts(x_prime)
        if a.shape != b.shape:
            raise InvalidParameterError("x and x_prime must have the same number of counts")
        return geometric_loss_pmfs(a, b, self.ratio)

    def true_epsilon(self, x, x_prime) -> float:
        """||x - x'||_1 * eps."""
        return float(np.abs(self._counts(x) - self._counts(x_prime)).sum()) * self.epsilon
