"""Deliberately broken mechanisms of the zoo: their claims are false, and an audit must say so.

Each class here keeps the claim of the correct mechanism it imitates while adding too little
noise, so that the auditor's power can be checked against a known violation. The published broken
mechanisms the auditing literature studies under their own names (noisy max returning the value,
sparse vector without query noise, the textbook float Laplace) keep their own classes in
:mod:`.selection`, :mod:`.sparse_vector` and :mod:`dpverify.zoo`.

References
----------
.. [1] C. Dwork, A. Roth, "The Algorithmic Foundations of Differential Privacy", Foundations and
   Trends in Theoretical Computer Science 9(3-4), 2014. Section 3.3 (the Laplace mechanism and
   the noisy histogram).
"""

from __future__ import annotations

from .._validation import check_fraction
from ..zoo import LaplaceMechanism
from .histogram import NoisyHistogram

__all__ = ["BrokenLaplaceMechanism", "BrokenNoisyHistogram"]


class BrokenLaplaceMechanism(LaplaceMechanism):
    """The Laplace mechanism with ``noise_multiplier`` times its noise, claim unchanged. Broken.

    Its true loss on a pair at distance ``sensitivity`` is ``epsilon / noise_multiplier``.

    Parameters
    ----------
    epsilon : float
        The (false) claim.
    sensitivity : float
    noise_multiplier : float in (0, 1)
        Scales the noise; the default halves it (1 would be the correct mechanism, refused).
    snap : float or None
        As for :class:`dpverify.zoo.LaplaceMechanism`.
    """

    def __init__(self, epsilon, sensitivity=1.0, noise_multiplier=0.5, snap=2.0**-20):
        super().__init__(epsilon, sensitivity, snap=snap)
        self.noise_multiplier = check_fraction(noise_multiplier, "noise_multiplier")
        self.scale *= self.noise_multiplier


class BrokenNoisyHistogram(NoisyHistogram):
    """A noisy histogram with Laplace scale ``eps`` instead of ``1/eps``, claim unchanged. Broken.

    The true loss of one changed count is ``1/eps`` (10 at eps = 0.1): the scale is inverted, a
    bug DP-Sniper and StatDP use as a benchmark.
    """

    def _noise_scale(self) -> float:
        return self.epsilon
