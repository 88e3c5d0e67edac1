"""diffprivlib mechanisms, with the claim read from the mechanism itself (the epsilon typed once).

Extra: ``pip install 'dpverify[adapters]'`` (diffprivlib); this module does not import it: it is handed
the mechanism class.

diffprivlib's mechanisms (``diffprivlib.mechanisms``: ``Laplace``, ``Geometric``, ``GaussianAnalytic``,
``Exponential``...) take their parameters and a ``random_state``; each instance keeps its ``epsilon``
and ``delta``. :class:`DiffprivlibMechanism` builds one from the parameters given, reads the claim from
it, and draws a batch from one instance per ``sample`` call, seeded from the audit's Generator.

References
----------
N. Holohan, S. Braghin, P. Mac Aonghusa, K. Levacher, "Diffprivlib: The IBM Differential Privacy
Library", arXiv:1907.02444, 2019.
"""

from __future__ import annotations

import functools

from ..._validation import check_class
from .random_state import BuildOnceMechanism

__all__ = ["DiffprivlibMechanism"]


def _build(mechanism_class, parameters: dict, random_state):
    """``mechanism_class(**parameters, random_state=random_state)`` (module level: picklable)."""
    return mechanism_class(**parameters, random_state=random_state)


class DiffprivlibMechanism(BuildOnceMechanism):
    """A diffprivlib mechanism class and its parameters, audited at the claim the built mechanism states.

    Parameters
    ----------
    mechanism_class : type
        A diffprivlib mechanism, e.g. ``diffprivlib.mechanisms.Geometric``.
    apply : callable, optional
        ``apply(mechanism, data) -> output``; by default ``mechanism.randomise(data)``.
    **parameters
        The class's own parameters (``epsilon=1.0, sensitivity=1``...), typed once: the claim is the
        built mechanism's ``epsilon`` and ``delta`` (its neighbours: inputs within ``sensitivity``).

    Attributes
    ----------
    epsilon, delta : float
        Read from ``mechanism_class(**parameters)``.
    replayable : bool
        True: each batch's ``RandomState`` is seeded from the audit's Generator.

    Raises
    ------
    InvalidClaimError
        The built mechanism states no finite epsilon > 0 (or a delta outside [0, 1)).
    TypeError, ValueError
        What diffprivlib raises for parameters it refuses (chained as it raised them).

    Examples
    --------
    >>> import numpy as np
    >>> class Coin:  # a diffprivlib-shaped mechanism: parameters, random_state, epsilon, randomise
    ...     def __init__(self, epsilon, random_state=None):
    ...         self.epsilon, self.delta, self.rs = epsilon, 0.0, random_state
    ...
    ...     def randomise(self, value):
    ...         return value if self.rs.random_sample() < 0.7 else 1 - value
    >>> mech = DiffprivlibMechanism(Coin, epsilon=0.85)
    >>> mech.epsilon, mech.delta, mech.claim.source
    (0.85, 0.0, 'diffprivlib Coin(epsilon=0.85)')
    """

    def __init__(self, mechanism_class, *, apply=None, **parameters):
        check_class(mechanism_class, "mechanism_class", "diffprivlib mechanism")
        stated = mechanism_class(**parameters)
        epsilon, delta = getattr(stated, "epsilon", None), getattr(stated, "delta", 0.0) or 0.0
        build = functools.partial(_build, mechanism_class, dict(parameters))
        options = {} if apply is None else {"apply": apply}
        super().__init__(build, epsilon=epsilon, delta=delta, **options)
        arguments = ", ".join(f"{k}={v!r}" for k, v in parameters.items())
        self.claim_source = f"diffprivlib {mechanism_class.__name__}({arguments})"
        self.mechanism_class, self.parameters = mechanism_class, dict(parameters)

    def __repr__(self):
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"DiffprivlibMechanism({self.mechanism_class.__name__}, {arguments})"
