"""What every adapter shares: the claim it carries, checks of its arguments, a RandomState from a Generator."""

from __future__ import annotations

import numpy as np

from ..._validation import check_callable, check_delta, check_epsilon
from ...claims import PrivacyClaim
from ...errors import InvalidArgumentTypeError

__all__: list = []


def _check_claim(epsilon, delta):
    """The claim an adapter carries: epsilon (or None where the library states none) and delta."""
    return check_epsilon(epsilon, allow_none=True), check_delta(delta)


class _StatedClaim:
    """An adapter's ``claim``: the library's claim in its own kind where the library states another kind than
    (epsilon, delta) (``native_claim``: zCDP, Rényi DP), else its epsilon and delta as a
    :class:`dpverify.PrivacyClaim` (None without epsilon)."""

    claim_source = "stated to the adapter"
    #: A claim of another kind the library states (set by the adapter), audited in that kind.
    native_claim: PrivacyClaim | None = None

    @property
    def claim(self) -> PrivacyClaim | None:
        if self.native_claim is not None:
            return self.native_claim.with_meta(source=self.claim_source)
        if self.epsilon is None:
            return None
        return PrivacyClaim(self.epsilon, self.delta, source=self.claim_source)


def _check_callable(function, what):
    return check_callable(function, what, InvalidArgumentTypeError, show_type=True)


def _random_state(rng: np.random.Generator) -> np.random.RandomState:
    """A legacy RandomState whose whole state follows from 128 bits drawn from ``rng``."""
    entropy = rng.integers(0, 2**32, size=4, dtype=np.uint64)
    return np.random.RandomState(np.random.MT19937(np.random.SeedSequence(entropy)))
