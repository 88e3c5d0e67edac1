"""Numerical mechanisms of Google's python-dp (``pydp``), with the claim read from the mechanism.

Extra: ``pip install 'dpverify[pydp]'`` (python-dp); this module imports it only to rebuild a
mechanism on a worker process.
"""

from __future__ import annotations

import pickle

from ..._validation import check_has_method
from ._base import _check_claim, _StatedClaim

__all__ = ["PyDPMechanism"]


#: python-dp mechanism classes the adapter can rebuild on another process: name -> the
#: attributes that are their constructor's keyword arguments.
_PYDP_REBUILD = {
    "LaplaceMechanism": {"epsilon": "epsilon", "sensitivity": "sensitivity"},
    "GaussianMechanism": {"epsilon": "epsilon", "delta": "delta", "sensitivity": "l2_sensitivity"},
}


def _rebuild_pydp(class_name: str, arguments: dict):
    """A python-dp numerical mechanism built anew (on a worker process) from its parameters."""
    from pydp.algorithms import numerical_mechanisms

    return PyDPMechanism(getattr(numerical_mechanisms, class_name)(**arguments))


class PyDPMechanism(_StatedClaim):
    """A numerical mechanism of Google's python-dp (``pydp``): ``mechanism.add_noise(data)``.

    Parameters
    ----------
    mechanism : pydp.algorithms.numerical_mechanisms.NumericalMechanism
        E.g. ``LaplaceMechanism(epsilon=1.0, sensitivity=1.0)`` or ``GaussianMechanism(epsilon=1.0,
        delta=1e-5, sensitivity=1.0)``.

    Attributes
    ----------
    epsilon, delta : float
        The mechanism's own ``epsilon`` and ``delta`` (0 where it has none), carried for convenience.
    replayable : bool
        False: python-dp draws from its own generator, which cannot be seeded from ``rng``.

    Notes
    -----
    ``LaplaceMechanism`` and ``GaussianMechanism`` are rebuilt from their parameters on another
    process, so they can be audited on a process pool; other classes only with ``executor=None``
    or threads. Install python-dp with ``pip install python-dp`` (the ``pydp`` extra); this
    module does not import it.
    """

    replayable = False

    def __init__(self, mechanism):
        self.mechanism = check_has_method(
            mechanism, "add_noise", "mechanism must be a python-dp numerical mechanism, with add_noise(value)"
        )
        self.epsilon, self.delta = _check_claim(getattr(mechanism, "epsilon", None), getattr(mechanism, "delta", 0.0))

    def __call__(self, data, rng=None):
        return self.mechanism.add_noise(data)

    def sample(self, data, size, rng=None):
        add_noise = self.mechanism.add_noise
        return [add_noise(data) for _ in range(int(size))]

    def __reduce__(self):
        name = type(self.mechanism).__name__
        if name not in _PYDP_REBUILD:
            raise pickle.PicklingError(
                f"a python-dp {name} cannot be sent to another process (only {sorted(_PYDP_REBUILD)} are "
                "rebuilt there); audit it with executor=None or a concurrent.futures.ThreadPoolExecutor"
            )
        arguments = {key: getattr(self.mechanism, attribute) for key, attribute in _PYDP_REBUILD[name].items()}
        return (_rebuild_pydp, (name, arguments))

    def __repr__(self):
        return f"PyDPMechanism({type(self.mechanism).__name__}, epsilon={self.epsilon}, delta={self.delta})"
