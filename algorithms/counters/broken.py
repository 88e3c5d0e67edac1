"""Deliberately broken counters, kept apart from the reference implementations.

Nothing here is a mechanism to use: each class breaks a privacy claim on purpose, so that the
audits (``properties/counters``, ``properties/mutation.py``) can show they catch it. The claim
each one carries is the *unbroken* mechanism's, which is what makes it wrong.

References
----------
.. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011. Algorithm 2 (binary mechanism).
"""

from __future__ import annotations

from algorithms.counters.banks import BinaryCounterBank, BinaryMechanism
from algorithms.errors import InvalidPrivacyParameterError

__all__ = ["BrokenBinaryMechanism"]


class BrokenBinaryMechanism(BinaryMechanism):
    """The binary mechanism with its Laplace scale multiplied by ``scale_factor``, claiming eps.

    Why it is wrong: every p-sum needs Lap(L / eps) for the output sequence to be eps-DP
    (each item lies in at most L p-sums; Chan, Shi, Song 2011). With
    ``scale_factor < 1`` the noise is too small and the exact loss is ``eps / scale_factor``
    (see ``BinaryCounterBank.structure``), while ``epsilon`` still says eps.

    Parameters
    ----------
    epsilon : float
        The claimed (unchanged) budget.
    scale_factor : float
        Factor on the correct scale ``L / eps``; ``0.5`` doubles the true loss.
    horizon : int, optional
        As for :class:`~algorithms.counters.BinaryMechanism`.

    Examples
    --------
    >>> from algorithms.counters.broken import BrokenBinaryMechanism
    >>> BrokenBinaryMechanism(1.0, 0.5).sample([1.0, 0.0, 1.0], 2, rng=0).shape
    (2, 3)
    """

    def __init__(self, epsilon, scale_factor: float = 0.5, horizon: int | None = None):
        super().__init__(epsilon, horizon)
        if not (scale_factor > 0):
            raise InvalidPrivacyParameterError(f"scale_factor must be > 0, got {scale_factor!r}")
        self.scale_factor = float(scale_factor)

    def _bank(self, size, length, rng):
        bank = BinaryCounterBank(size, self.epsilon, self.horizon or length, rng)
        bank.scale *= self.scale_factor
        return bank
