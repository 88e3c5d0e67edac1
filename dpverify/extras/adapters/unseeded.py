"""Any ``function(data)`` with its own randomness, which the audit cannot seed (replay impossible)."""

from __future__ import annotations

from ._base import _check_callable, _check_claim, _StatedClaim

__all__ = ["UnseededMechanism"]


class UnseededMechanism(_StatedClaim):
    """A mechanism with its own randomness that cannot be seeded: ``function(data) -> output``.

    The Generator the audit passes is ignored, so ``replayable`` is False: an audit's seed then
    replays the event search but not the outputs, and two runs differ. Everything else about
    the audit (its false-alarm rate, its bound) holds as for any mechanism.

    Parameters
    ----------
    function : callable
        ``function(data) -> output``.
    epsilon, delta : float, optional
        The claim to audit, carried for convenience.

    Examples
    --------
    >>> import secrets
    >>> mech = UnseededMechanism(lambda x: x + secrets.randbelow(2), epsilon=1.0)
    >>> mech.replayable, mech(3, None) in (3, 4)
    (False, True)
    """

    replayable = False

    def __init__(self, function, *, epsilon=None, delta=0.0):
        self.function = _check_callable(function, "function")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng=None):
        return self.function(data)

    def sample(self, data, size, rng=None):
        return [self.function(data) for _ in range(int(size))]

    def __repr__(self):
        return f"UnseededMechanism({self.function!r}, epsilon={self.epsilon}, delta={self.delta})"
