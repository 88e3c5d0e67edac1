"""diffprivlib mechanisms and tools, with the claim read from the library (the epsilon typed once).

Extra: ``pip install 'dpverify[adapters]'`` (diffprivlib); this module does not import it: it is handed
the mechanism class.

diffprivlib's mechanisms (``diffprivlib.mechanisms``: ``Laplace``, ``Geometric``, ``GaussianAnalytic``,
``Exponential``...) take their parameters and a ``random_state``; each instance keeps its ``epsilon``
and ``delta``. :class:`DiffprivlibMechanism` builds one from the parameters given, reads the claim from
it, and draws a batch from one instance per ``sample`` call, seeded from the audit's Generator.

diffprivlib's tools (``diffprivlib.tools``: ``mean``, ``var``, ``histogram``, ``count_nonzero``...) are
the pipeline-level calls people make on a whole array; :class:`DiffprivlibTool` calls one on the data with
a ``random_state`` seeded from the audit's Generator and an accountant of its own, and checks that each
call charged the accountant the claim. diffprivlib has no batch API (a mechanism's ``randomise`` takes one
value, a tool one array), so both draw one output per library call in a process; for more, audit them
on a process pool (``executor=2``): the sampling layer seeds each chunk from its own spawned
``SeedSequence``, so the outputs are the same whatever the number of workers.

References
----------
N. Holohan, S. Braghin, P. Mac Aonghusa, K. Levacher, "Diffprivlib: The IBM Differential Privacy
Library", arXiv:1907.02444, 2019.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers

import numpy as np

from ..._validation import check_call, check_class, check_not_both
from ...errors import InvalidClaimError, InvalidParameterError
from ._base import _check_callable, _check_claim, _random_state, _StatedClaim
from .random_state import BuildOnceMechanism

__all__ = ["DiffprivlibMechanism", "DiffprivlibTool"]


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


def _release(result):
    """What a tool returned as one output: a number as itself, arrays and tuples of arrays flattened into
    one vector (integers as a tuple, reals as a float array)."""
    if isinstance(result, numbers.Number):
        return result
    parts = result if isinstance(result, tuple) else (result,)
    flat = np.concatenate([np.ravel(np.asarray(part)) for part in parts])
    if flat.dtype.kind in "iub":
        return tuple(int(v) for v in flat)
    return flat.astype(np.float64, copy=False)


class DiffprivlibTool(_StatedClaim):
    """A diffprivlib tool (``diffprivlib.tools.mean``, ``histogram``...) called on the data, at its ``epsilon``.

    Parameters
    ----------
    tool : callable
        A function of ``diffprivlib.tools``: ``tool(data, epsilon=..., ..., random_state=, accountant=)``.
    output : callable, optional
        ``output(returned) -> output`` (module level to audit on a process pool). By default the whole
        return value: a number as itself; an array, or a tuple of arrays (``histogram``'s counts and bin
        edges), flattened into one vector, a tuple of ints where every entry is an integer, else a float
        array. The bin edges are part of the release: with ``range=None`` diffprivlib takes them from
        the data (it warns of a privacy leak), and an audit of the whole return value sees it.
    **parameters
        The tool's own parameters (``epsilon=1.0, bounds=(0, 1)``...), typed once; not
        ``random_state`` or ``accountant``, which the adapter passes.

    Attributes
    ----------
    epsilon, delta : float
        The ``epsilon`` (and ``delta``, 0 where the tool has none) the tool is called with, its
        signature's default where not given. The neighbouring relation is each tool's own: diffprivlib
        calibrates ``histogram`` and ``count_nonzero`` to adding or removing a record (sensitivity 1),
        but ``mean``, ``var`` and ``std`` to replacing one with the array's size unchanged (``mean``:
        sensitivity ``(upper - lower) / n``). Audit pairs of the tool's relation.
    replayable : bool
        True: each batch's ``RandomState`` is seeded from the audit's Generator.

    Raises
    ------
    InvalidParameterError
        A parameter the tool does not take, ``random_state`` or ``accountant`` given, or a tool without
        them.
    InvalidClaimError
        The tool's epsilon is not a finite real > 0.

    Notes
    -----
    Every ``sample`` call passes a fresh ``diffprivlib.BudgetAccountant`` and, after the batch, checks
    that the tool charged it once per output, each time exactly the claim: a tool that spends one budget
    and charges another (or none) raises :class:`~dpverify.errors.InvalidClaimError`, which the audit
    reports as the mechanism's error. Install diffprivlib with ``pip install diffprivlib`` (the ``test``
    and ``adapters`` extras); this module does not import it.

    Examples
    --------
    >>> import numpy as np
    >>> from diffprivlib import tools
    >>> mean = DiffprivlibTool(tools.mean, epsilon=0.5, bounds=(0.0, 1.0))
    >>> mean.epsilon, mean.delta, mean.replayable
    (0.5, 0.0, True)
    >>> a, b = (
    ...     mean.sample([0.2, 0.9], 2, np.random.default_rng(0)),
    ...     mean.sample([0.2, 0.9], 2, np.random.default_rng(0)),
    ... )
    >>> bool(np.array_equal(a, b))
    True
    """

    replayable = True

    def __init__(self, tool, *, output=None, **parameters):
        self.tool = _check_callable(tool, "tool")
        self.output = _release if output is None else _check_callable(output, "output")
        name = getattr(tool, "__name__", type(tool).__name__)
        signature = check_call(
            lambda: inspect.signature(tool),
            lambda exc: f"the signature of {name} cannot be read ({exc}); is it a diffprivlib tool?",
            InvalidParameterError,
            catch=(TypeError, ValueError),
        )
        passed = {"random_state", "accountant"}
        check_not_both(
            not passed <= set(signature.parameters),
            True,
            f"{name} takes no random_state and accountant: not a diffprivlib tool (diffprivlib.tools.mean, ...)",
        )
        check_not_both(
            bool(passed & set(parameters)),
            True,
            f"give {name} its own parameters only: the adapter passes random_state (seeded from the audit) and "
            "accountant (to check the budget charged)",
        )
        bound = check_call(
            lambda: signature.bind_partial(**parameters),
            lambda exc: f"{name} does not take these parameters ({exc})",
            InvalidParameterError,
            catch=(TypeError,),
        )
        ignored = [k for k, p in signature.parameters.items() if p.kind is p.VAR_KEYWORD and k in bound.arguments]
        check_not_both(
            bool(ignored),
            True,
            f"{name} does not take {sorted(bound.arguments[ignored[0]]) if ignored else ''}: it would ignore them "
            f"(its parameters: {[k for k in signature.parameters if k not in passed and k not in ignored][1:]})",
        )
        bound.apply_defaults()
        self.epsilon, self.delta = _check_claim(bound.arguments.get("epsilon"), bound.arguments.get("delta", 0.0))
        self.parameters = dict(parameters)
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        self.claim_source = f"diffprivlib {name}({arguments}): its epsilon"

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def sample(self, data, size, rng):
        from diffprivlib import BudgetAccountant

        random_state, accountant = _random_state(rng), BudgetAccountant()
        call = functools.partial(self.tool, data, **self.parameters, random_state=random_state, accountant=accountant)
        out = [self.output(call()) for _ in range(int(size))]
        self._check_charged(accountant.spent_budget, int(size))
        return out

    def _check_charged(self, spent: list, size: int) -> None:
        """Every call charged the accountant once, exactly the claim."""
        wrong = [
            (e, d)
            for e, d in spent
            if not (math.isclose(e, self.epsilon, rel_tol=1e-12) and math.isclose(d, self.delta, abs_tol=1e-15))
        ]
        if len(spent) != size or wrong:
            raise InvalidClaimError(
                f"{self!r} charged its accountant {len(spent)} times for {size} calls"
                + (f", with {wrong[0]} instead of the claim ({self.epsilon}, {self.delta})" if wrong else "")
                + ": the budget charged is not the budget stated"
            )

    def __repr__(self):
        arguments = ", ".join(f"{k}={v!r}" for k, v in self.parameters.items())
        return f"DiffprivlibTool({getattr(self.tool, '__name__', self.tool)!r}, {arguments})"
