"""Mechanisms whose randomness is a legacy numpy ``RandomState`` (diffprivlib's ``random_state=``, scikit-learn style).

The wrapper seeds a ``RandomState`` from the Generator the audit hands it, so an audit replays exactly
from its seed (``replayable`` is True). No library is imported.
"""

from __future__ import annotations

from ._base import _check_callable, _check_claim, _random_state, _StatedClaim

__all__ = ["RandomStateMechanism", "BuildOnceMechanism"]


class RandomStateMechanism(_StatedClaim):
    """A mechanism whose randomness is a numpy ``RandomState`` (e.g. diffprivlib).

    Parameters
    ----------
    function : callable
        ``function(data, random_state) -> output``; ``random_state`` is a
        :class:`numpy.random.RandomState` to pass on as the library's ``random_state=``.
    epsilon, delta : float, optional
        The claim to audit (the library's parameters), carried for convenience.

    Notes
    -----
    ``__call__(data, rng)`` seeds a fresh ``RandomState`` from ``rng``; ``sample(data, size,
    rng)`` seeds one for the whole batch (creating a ``RandomState`` costs tens of
    microseconds, more than many mechanisms), so the audit uses ``sample``. Both are
    determined by ``rng``: ``replayable`` is True.

    Examples
    --------
    >>> import numpy as np
    >>> mech = RandomStateMechanism(lambda x, rs: x + int(rs.randint(0, 2)), epsilon=1.0)
    >>> a = mech.sample(5, 3, np.random.default_rng(0))
    >>> a == mech.sample(5, 3, np.random.default_rng(0)), mech.replayable
    (True, True)
    """

    replayable = True

    def __init__(self, function, *, epsilon=None, delta=0.0):
        self.function = _check_callable(function, "function")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng):
        return self.function(data, _random_state(rng))

    def sample(self, data, size, rng):
        rs = _random_state(rng)
        return [self.function(data, rs) for _ in range(int(size))]

    def __repr__(self):
        return f"RandomStateMechanism({self.function!r}, epsilon={self.epsilon}, delta={self.delta})"


def _randomise(mechanism, data):
    """``mechanism.randomise(data)``: how diffprivlib's mechanisms release a value."""
    return mechanism.randomise(data)


class BuildOnceMechanism(_StatedClaim):
    """A library mechanism object built from a ``RandomState`` once per batch (e.g. diffprivlib).

    diffprivlib's documented pattern, ``GaussianAnalytic(..., random_state=rs).randomise(x)``
    in a function, builds the mechanism for every sample: its constructor (which solves for the
    noise scale) costs far more than a draw (1.3 ms against 9 us for ``GaussianAnalytic``). This
    adapter builds it once per ``sample`` call and draws the whole batch from it.

    Parameters
    ----------
    build : callable
        ``build(random_state) -> mechanism`` with ``random_state`` a :class:`numpy.random.RandomState`.
    apply : callable, optional
        ``apply(mechanism, data) -> output``; by default ``mechanism.randomise(data)``.
    epsilon, delta : float, optional
        The claim to audit (the library's parameters), carried for convenience.

    Notes
    -----
    ``__call__(data, rng)`` builds a mechanism from a ``RandomState`` seeded from ``rng`` and
    draws one output; ``sample(data, size, rng)`` builds one and draws ``size``. Both are
    determined by ``rng`` (``replayable`` is True), and the audit checks that they agree
    (:mod:`dpverify.pipeline.sampler_check`) before using ``sample``. Use module-level functions for
    ``build`` and ``apply`` to audit on a process pool.

    Examples
    --------
    >>> import numpy as np
    >>> def build(rs):
    ...     return np.random.Generator(np.random.MT19937(rs.randint(2**31)))
    >>> mech = BuildOnceMechanism(build, apply=lambda g, x: x + int(g.integers(2)), epsilon=1.0)
    >>> mech.sample(5, 3, np.random.default_rng(0)) == mech.sample(5, 3, np.random.default_rng(0))
    True
    """

    replayable = True

    def __init__(self, build, *, apply=_randomise, epsilon=None, delta=0.0):
        self.build = _check_callable(build, "build")
        self.apply = _check_callable(apply, "apply")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng):
        return self.apply(self.build(_random_state(rng)), data)

    def sample(self, data, size, rng):
        mechanism = self.build(_random_state(rng))
        return [self.apply(mechanism, data) for _ in range(int(size))]

    def __repr__(self):
        return f"BuildOnceMechanism({self.build!r}, epsilon={self.epsilon}, delta={self.delta})"
