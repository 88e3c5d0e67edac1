"""Deliberately broken mechanisms of the zoo: their claims are false, and an audit must say so.

Each class here keeps the claim of the correct mechanism it imitates while adding too little
noise, or while releasing raw floating-point noise, so that the auditor's power can be checked
against a known violation. The published broken algorithms that the auditing literature studies
under their own names (noisy max returning the value, the sparse vector variants of Lyu, Su and Li)
keep their classes beside the correct versions in :mod:`.selection` and :mod:`.sparse_vector`,
where their names and docstrings say they are broken.

References
----------
.. [1] C. Dwork, A. Roth, "The Algorithmic Foundations of Differential Privacy", Foundations and
   Trends in Theoretical Computer Science 9(3-4), 2014. Section 3.3 (the Laplace mechanism and
   the noisy histogram).
.. [2] I. Mironov, "On Significance of the Least Significant Bits for Differential Privacy", ACM CCS
   2012.
"""

from __future__ import annotations

from .._validation import check_fraction
from .additive import GaussianMechanism, _draw_shape
from .histogram import NoisyHistogram
from .textbook import LaplaceMechanism

__all__ = [
    "BrokenLaplaceMechanism",
    "FloatLaplaceMechanism",
    "BrokenGaussianMechanism",
    "FloatGaussianMechanism",
    "BrokenNoisyHistogram",
]


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
        As for :class:`dpverify.mechanisms.textbook.LaplaceMechanism`.
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


class FloatLaplaceMechanism(LaplaceMechanism):
    """The textbook Laplace mechanism on doubles, ``x + rng.laplace(...)``, claiming eps. Broken.

    The sets of doubles reachable from two inputs differ, so the low bits of an output reveal the
    input and the true loss is unbounded (Mironov [2]_); :class:`dpverify.mechanisms.textbook.LaplaceMechanism`
    snaps its output to a coarse grid instead.
    """

    def __init__(self, epsilon, sensitivity=1.0):
        super().__init__(epsilon, sensitivity)
        self.snap = None


class FloatGaussianMechanism(GaussianMechanism):
    """The textbook Gaussian mechanism on doubles, ``x + rng.normal(0, sigma)``, claiming (eps, delta). Broken.

    As with :class:`FloatLaplaceMechanism`, the doubles reachable from two inputs differ, so the low
    bits of an output reveal the input (Mironov [2]_); :class:`dpverify.mechanisms.GaussianMechanism`
    rounds its output to a fine grid and clamps it instead. Nothing is clamped here.

    Parameters
    ----------
    epsilon, delta : float
        The (false) claim.
    sensitivity : float
        l2 sensitivity.
    sigma : float, optional
        Noise standard deviation; default the analytic sigma of the claim
        (:func:`dpverify.mechanisms.additive.analytic_gaussian_sigma`).
    """

    def __init__(self, epsilon, delta, sensitivity=1.0, sigma=None):
        super().__init__(epsilon, delta, sensitivity, sigma=sigma)
        self.bound = self.grid = None

    def sample(self, data, size, rng):
        arr, shape = _draw_shape(data, size)
        return arr + rng.normal(scale=self.sigma, size=shape)


class BrokenGaussianMechanism(GaussianMechanism):
    """The Gaussian mechanism with ``sigma_multiplier`` times the analytic sigma, claim unchanged. Broken.

    Parameters
    ----------
    epsilon, delta : float
        The (false) claim.
    sigma_multiplier : float in (0, 1)
        Scales the standard deviation (1 would be the correct mechanism, refused).
    sensitivity : float
    """

    def __init__(self, epsilon, delta, sigma_multiplier=0.7, sensitivity=1.0):
        self.sigma_multiplier = check_fraction(sigma_multiplier, "sigma_multiplier")
        super().__init__(epsilon, delta, sensitivity)

    def _sigma_factor(self) -> float:
        return self.sigma_multiplier
