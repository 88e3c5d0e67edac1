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

import math

import numpy as np
from scipy import stats

from .._validation import check_epsilon
from ..claims import StatesClaim
from ..errors import InvalidParameterError

__all__ = ["GeometricBinaryCounter"]


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
