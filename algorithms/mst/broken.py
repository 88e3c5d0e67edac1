"""Deliberately broken private MSTs: the auditor must catch these.

Nothing here is a reference implementation. Each class keeps the privacy claim of the algorithm
it imitates while doing something that breaks it, so that verifications and tests can show that
an audit flags the false claim (and how many samples it needs to).

References
----------
.. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning Trees
   via Input Perturbation", 2025. Algorithm 1.
"""

from __future__ import annotations

import numpy as np

from algorithms.errors import InvalidPrivacyParameterError
from algorithms.mst.perturbation import GumbelPerturbationMechanism, batched_perturbed_trees

__all__ = ["BrokenGumbelPerturbationMechanism"]


class BrokenGumbelPerturbationMechanism(GumbelPerturbationMechanism):
    """Algorithm 1 of Pagh et al. [1]_ with its Gumbel noise scaled down, claim unchanged. Broken.

    The noise scale is ``noise_multiplier`` times the one Algorithm 1 uses for ``epsilon0``, so the
    trees are released as if with ``epsilon0 / noise_multiplier`` per step, while
    :meth:`privacy_accounting` still reports the guarantee of ``epsilon0``: for ``noise_multiplier < 1``
    the claim is false.

    Parameters
    ----------
    epsilon0 : float > 0
        The per-step budget the (false) claim is computed from.
    noise_multiplier : float in (0, 1)
        Multiplies the Gumbel scale; 1 would be Algorithm 1 itself, hence refused.
    sensitivity : float > 0
        D of the l_inf neighbouring relation.
    """

    def __init__(self, epsilon0: float, *, noise_multiplier: float = 0.5, sensitivity: float = 1.0):
        super().__init__(epsilon0, sensitivity=sensitivity)
        if not (0.0 < noise_multiplier < 1.0):
            raise InvalidPrivacyParameterError(
                f"noise_multiplier must lie in (0, 1) for a broken variant, got {noise_multiplier!r} "
                "(1 is Algorithm 1 itself: use GumbelPerturbationMechanism)"
            )
        self.noise_multiplier = float(noise_multiplier)

    def __repr__(self) -> str:
        return (
            f"BrokenGumbelPerturbationMechanism(epsilon0={self.epsilon0}, "
            f"noise_multiplier={self.noise_multiplier}, sensitivity={self.sensitivity})"
        )

    def sample_array(self, data, size: int, rng=None) -> np.ndarray:
        """``(size, n - c)`` int64 array of sorted edge indices, drawn with the reduced noise."""
        return batched_perturbed_trees(
            data, self.epsilon0 / self.noise_multiplier, size, rng, sensitivity=self.sensitivity
        )
