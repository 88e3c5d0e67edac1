"""A continual-release counter with exactly computable privacy: the binary mechanism with geometric noise.

The binary mechanism (Chan, Shi, Song, "Private and Continual Release of
Statistics", 2011) releases every prefix sum ``s_t`` of a 0/1 stream of
length T from dyadic partial sums ("nodes"): the node ending at ``e``
covers items ``e - lowbit(e) + 1 .. e``, and ``s_t`` is the sum of the nodes
ending at ``(t >> j) << j`` for the set bits j of t. Each node gets its own
noise; here it is two-sided geometric noise with ratio ``r = exp(-eps/L)``,
``L = bit_length(T)`` levels (Ghosh, Roughgarden, Sundararajan 2012), so the
outputs are integers and the mechanism is eps-DP for streams differing in one item.

Exact output distribution. The T outputs determine the T nodes
(``node_t = s_t - s_{t - lowbit(t)}``), the nodes are independent, and a
change of item i by ``d = +-1`` shifts exactly the nodes containing i by d.
The likelihood ratio of a whole output sequence is therefore
``exp(eps/L)^(k - 2K)``, with k the number of nodes containing i and K the
number of them whose noise ``z`` satisfies ``d z >= 1`` (under x; under x' the
same statistic reads ``d z' >= 0``). K is sufficient: K ~ Binomial(k, r/(1+r))
under x and Binomial(k, 1/(1+r)) under x' (:meth:`GeometricBinaryCounter.statistic_pmfs`),
and every likelihood-ratio level set of the output sequences is an event on K
with the same probabilities.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

from .._validation import check_choice, check_epsilon, check_positive_real
from ..claims import PrivacyClaim, StatesClaim
from ..errors import InvalidParameterError
from ._base import integer_vector

__all__ = ["GeometricBinaryCounter", "GeometricPrefixSums", "RealBinaryCounter", "REAL_COUNTER_NOISES"]


class GeometricBinaryCounter(StatesClaim):
    """The binary mechanism on a 0/1 stream with two-sided geometric node noise: eps-DP.

    Parameters
    ----------
    epsilon : float
        Claim; each of the ``L = bit_length(T)`` levels spends ``eps / L``.

    The data is the stream (a sequence of 0/1 of length T); the output is the
    int64 vector of the T noisy prefix sums.
    """

    claim_neighbouring = "streams differ in one element by at most 1"
    claim_source = "Chan, Shi and Song 2011, the binary mechanism"

    def __init__(self, epsilon):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0

    @staticmethod
    def _stream(data) -> np.ndarray:
        x = np.asarray(data)
        if x.ndim != 1 or x.size < 1 or not np.all((x == 0) | (x == 1)):
            raise InvalidParameterError(f"the data must be a non-empty 0/1 stream, got {data!r}")
        return x.astype(np.int64)

    @staticmethod
    @functools.lru_cache(maxsize=32)
    def _structure(length: int):
        """(node incidence (length x length), output map (length outputs x length nodes)), nodes by end."""
        incidence = np.zeros((length, length), dtype=np.int64)
        output_map = np.zeros((length, length), dtype=np.int64)
        for e in range(1, length + 1):
            low = e & -e
            incidence[e - 1, e - low : e] = 1
        for t in range(1, length + 1):
            for j in range(t.bit_length()):
                if t >> j & 1:
                    output_map[t - 1, ((t >> j) << j) - 1] = 1
        return incidence, output_map

    def ratio(self, length: int) -> float:
        return math.exp(-self.epsilon / int(length).bit_length())

    def sample(self, data, size, rng):
        x = self._stream(data)
        incidence, output_map = self._structure(x.size)
        p = 1 - self.ratio(x.size)
        noise = rng.geometric(p, size=(size, x.size)) - rng.geometric(p, size=(size, x.size))
        nodes = incidence @ x + noise
        return nodes @ output_map.T

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def statistic_pmfs(self, x, x_prime):
        """Exact pmfs of the sufficient statistic K (see the module docstring) under x and x'.

        Returns
        -------
        (dict, dict)
            ``K -> probability`` for K = 0..k, k the number of nodes containing the changed item.
        """
        a, b = self._stream(x), self._stream(x_prime)
        differ = np.flatnonzero(a != b)
        if a.shape != b.shape or differ.size != 1:
            raise InvalidParameterError("x and x_prime must be streams of equal length differing in one item")
        incidence, _ = self._structure(a.size)
        k = int(incidence[:, differ[0]].sum())
        r = self.ratio(a.size)
        ks = np.arange(k + 1)
        pmf_x = stats.binom.pmf(ks, k, r / (1 + r))
        pmf_xp = stats.binom.pmf(ks, k, 1 / (1 + r))
        return ({int(i): float(v) for i, v in zip(ks, pmf_x)}, {int(i): float(v) for i, v in zip(ks, pmf_xp)})

    def pair_epsilon(self, x, x_prime) -> float:
        """k eps / L: the loss of the whole output sequence on the pair."""
        from ..audits.exact import exact_privacy_loss

        return exact_privacy_loss(*self.statistic_pmfs(x, x_prime)).epsilon


NOISES_ON = ("items", "sums")


class GeometricPrefixSums(StatesClaim):
    """Every prefix sum of an integer stream, with two-sided geometric noise; exact output distribution.

    ``noise_on="items"`` (default): ``s_t = sum_{i <= t} (x_i + Z_i)``, each item noised once
    with ratio ``r = exp(-eps)`` and the noisy items summed: post-processing of a geometric
    histogram of the stream, eps-DP for streams differing in one item by at most 1 (the
    "simple" counter of Chan, Shi and Song 2011, Section 3.1, with the discrete noise of
    Ghosh, Roughgarden and Sundararajan 2012). ``noise_on="sums"``: ``s_t = sum_{i <= t} x_i
    + Z_t``, each prefix sum noised on its own with the same ratio, still claimed eps-DP:
    BROKEN, since a change of item i moves the ``T - i + 1`` sums from i on, and the true
    loss on such a pair is ``(T - i + 1) eps``.

    Outputs are the int64 vectors of the T noisy prefix sums. In both forms the outputs are
    a bijective image of independent two-sided geometric coordinates (the increments
    ``s_t - s_{t-1}`` for items, the sums themselves for sums), so the whole vector's pmf is
    a product (:meth:`pmf`, for short streams) and its likelihood ratio is that of the
    privacy-loss statistic of those coordinates (:meth:`loss_pmfs`, any length).

    Parameters
    ----------
    epsilon : float
        Claim; also the noise's ``-ln r``.
    noise_on : {"items", "sums"}

    References
    ----------
    T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM
    TISSEC 14(3), 2011, Section 3.1 (the simple counting mechanisms);
    A. Ghosh, T. Roughgarden, M. Sundararajan, "Universally Utility-Maximizing Privacy
    Mechanisms", SIAM J. Computing, 2012.
    """

    claim_neighbouring = "streams differ in one element by at most 1"
    claim_source = "Chan, Shi and Song 2011, Section 3.1 (noise on the items)"

    def __init__(self, epsilon, noise_on: str = "items"):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.noise_on = check_choice(noise_on, "noise_on", NOISES_ON)
        self.ratio = math.exp(-self.epsilon)

    @staticmethod
    def _stream(data) -> np.ndarray:
        return integer_vector(data, "stream items")

    def sample(self, data, size, rng):
        x = self._stream(data)
        p = 1 - self.ratio
        noise = rng.geometric(p, size=(size, x.size)) - rng.geometric(p, size=(size, x.size))
        if self.noise_on == "items":
            return np.cumsum(x + noise, axis=1)
        return np.cumsum(x) + noise

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def _centres(self, data) -> np.ndarray:
        """The centres of the independent geometric coordinates (increments or sums)."""
        x = self._stream(data)
        return x if self.noise_on == "items" else np.cumsum(x)

    def pmf(self, data) -> dict:
        """Exact pmf of the whole output vector (``tuple -> probability``), for short streams.

        The product of the coordinates' truncated pmfs (:func:`.histogram.product_pmf`,
        :func:`.histogram.two_sided_geometric_pmf`), mapped to prefix sums for ``"items"``.
        """
        from .histogram import product_pmf, two_sided_geometric_pmf

        marginals = [two_sided_geometric_pmf([c], self.ratio)[0] for c in self._centres(data)]
        transform = (lambda v: np.cumsum(v, axis=1)) if self.noise_on == "items" else None
        return product_pmf(marginals, transform)

    def loss_pmfs(self, x, x_prime):
        """Exact pmfs of the whole output's privacy-loss statistic under x and x' (any length).

        See :func:`.histogram.geometric_loss_pmfs`: the events on it are the likelihood-ratio
        level sets of the output vectors, with the same probabilities.
        """
        from .histogram import geometric_loss_pmfs

        a, b = self._centres(x), self._centres(x_prime)
        if a.shape != b.shape:
            raise InvalidParameterError("x and x_prime must be streams of the same length")
        return geometric_loss_pmfs(a, b, self.ratio)

    def pair_epsilon(self, x, x_prime) -> float:
        """The exact loss of the whole output on the pair: eps times the l1 distance of the centres."""
        a, b = self._centres(x), self._centres(x_prime)
        return float(np.abs(a - b).sum()) * self.epsilon


REAL_COUNTER_NOISES = ("laplace", "gaussian")


class RealBinaryCounter:
    """The binary mechanism with real node noise (Laplace or Gaussian), on a fine grid: eps-DP or rho-zCDP.

    The prefix sums of a 0/1 stream of length T from the dyadic nodes of
    :class:`GeometricBinaryCounter`, each node with its own noise: Laplace of scale
    ``L / epsilon`` (eps-DP, the mechanism of Chan, Shi and Song 2011) or Gaussian of
    variance ``L / (2 rho)`` (rho-zCDP: a change of one item moves at most ``L`` nodes by 1,
    an l2 shift of at most ``sqrt(L)``; Bun and Steinke 2016, Proposition 1.6), with
    ``L = bit_length(T)``. The outputs are rounded to the power-of-two grid
    :func:`.noise.fine_grid` of the node scale and clamped (post-processing: no floating-point
    leak).

    Exact loss on a pair. The outputs are an invertible linear image of the independent node
    noises (the output map is lower triangular with unit diagonal), so the privacy loss of the
    whole output vector on a pair is that of the ``k`` shifted nodes (``k`` the nodes containing
    the changed item): ``k epsilon / L`` for Laplace (:meth:`pair_epsilon`) and, in zCDP,
    ``k`` times the rho of one Laplace node (:func:`.concentrated.laplace_rho`) or ``k rho / L``
    for Gaussian (:meth:`pair_rho`). Rounding to the grid is post-processing, so these are
    upper bounds on the rounded mechanism's loss (and nearly attained on a grid this fine).

    Parameters
    ----------
    budget : float
        ``epsilon`` for Laplace noise, ``rho`` for Gaussian noise: the claim.
    noise : {"laplace", "gaussian"}
    grid_bits : int
        The grid is ``2^(floor(log2 scale) - grid_bits)``.

    References
    ----------
    T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
    14(3), 2011 (the binary mechanism); M. Bun, T. Steinke, "Concentrated Differential Privacy:
    Simplifications, Extensions, and Lower Bounds", TCC 2016.
    """

    def __init__(self, budget, noise: str = "laplace", grid_bits: int = 10):
        self.noise = check_choice(noise, "noise", REAL_COUNTER_NOISES)
        self.budget = check_positive_real(budget, "budget")
        self.grid_bits = int(grid_bits)

    @property
    def epsilon(self) -> float:
        return self.budget

    @property
    def claim(self) -> PrivacyClaim:
        meta = dict(neighbouring="streams differ in one element by at most 1", source="Chan, Shi and Song 2011")
        if self.noise == "laplace":
            return PrivacyClaim(self.budget, 0.0, **meta)
        return PrivacyClaim.zcdp(self.budget, **meta)

    def scale(self, length: int) -> float:
        """The node noise's scale: Laplace ``L / epsilon``, Gaussian standard deviation ``sqrt(L / (2 rho))``."""
        levels = int(length).bit_length()
        return levels / self.budget if self.noise == "laplace" else math.sqrt(levels / (2 * self.budget))

    def sample(self, data, size, rng):
        from .noise import fine_grid, round_to_grid

        x = GeometricBinaryCounter._stream(data)
        incidence, output_map = GeometricBinaryCounter._structure(x.size)
        scale = self.scale(x.size)
        shape = (size, x.size)
        noise = rng.laplace(scale=scale, size=shape) if self.noise == "laplace" else rng.normal(scale=scale, size=shape)
        nodes = (incidence @ x) + noise
        sums = np.zeros_like(nodes)
        for t, node in zip(*np.nonzero(output_map)):  # column sums: BLAS's tall-by-small product is slower
            sums[:, t] += nodes[:, node]
        return round_to_grid(sums, fine_grid(scale, self.grid_bits), 60 * scale * x.size + x.size)

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def _shifted_nodes(self, x, x_prime) -> int:
        a, b = GeometricBinaryCounter._stream(x), GeometricBinaryCounter._stream(x_prime)
        differ = np.flatnonzero(a != b)
        if a.shape != b.shape or differ.size != 1:
            raise InvalidParameterError("x and x_prime must be streams of equal length differing in one item")
        incidence, _ = GeometricBinaryCounter._structure(a.size)
        return int(incidence[:, differ[0]].sum())

    def pair_epsilon(self, x, x_prime) -> float:
        """The exact pure-DP loss of the (unrounded) output vector on the pair: inf for Gaussian noise."""
        if self.noise == "gaussian":
            return math.inf
        return self._shifted_nodes(x, x_prime) / self.scale(len(x))

    def pair_rho(self, x, x_prime) -> float:
        """The exact ``sup_alpha D_alpha / alpha`` of the (unrounded) output vector on the pair (either direction)."""
        from .concentrated import laplace_rho

        k = self._shifted_nodes(x, x_prime)
        if self.noise == "laplace":
            return k * laplace_rho(1.0 / self.scale(len(x)))
        return k / (2 * self.scale(len(x)) ** 2)
