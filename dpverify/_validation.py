"""Argument checks shared by every public function of dpverify.

One small function per kind of argument, in the manner of the validation
helpers of ``scipy.stats`` (e.g. ``_binomtest.py``): each returns the value
converted to a plain Python type, or raises the project's named error
(:mod:`dpverify.errors`) with a message that says what was given and what is
allowed. Claims (``epsilon``, ``delta``) raise
:class:`~dpverify.errors.InvalidClaimError`; every other parameter raises
:class:`~dpverify.errors.InvalidParameterError`. Booleans are refused where a
number is expected (``True`` is an ``int`` to Python, never a sample size or a
claim to a user).
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Iterable

import numpy as np

from ._results import short_repr
from .errors import IdenticalInputsError, InvalidArgumentTypeError, InvalidClaimError, InvalidParameterError

__all__ = [
    "check_claimed_epsilon",
    "check_inputs_differ",
    "MAX_EPSILON",
    "check_epsilon",
    "check_delta",
    "check_alpha",
    "check_positive_int",
    "check_fraction",
    "check_positive_real",
    "check_choice",
    "check_name",
    "check_callable",
    "check_below",
    "check_draws_nothing",
    "check_claim_given",
    "check_grid",
    "check_count",
    "check_family_wise",
    "FAMILY_WISE_METHODS",
    "check_pairs",
    "check_bool",
    "check_names",
    "check_optional_callable",
    "check_workers",
    "check_has_method",
    "check_class",
    "check_not_empty",
    "check_one_claim",
    "check_inputs_or_neighbours",
    "check_optional_claim",
    "check_seed",
    "check_worker_count",
    "check_instance",
    "check_known",
    "check_record_or_fields",
    "check_tradeoff_points",
    "check_tradeoff_values",
    "check_tradeoff_shape",
    "check_kind_bound",
    "check_renyi_orders",
    "check_at_most",
    "check_claim_once",
    "check_audit_domain",
    "check_keywords",
    "check_not_both",
    "check_given",
    "check_finite_positive",
    "check_nonzero",
    "check_call",
    "check_empty",
    "check_not_in",
]


#: Largest claimed epsilon: e^epsilon must be a finite double, since every bound compares
#: probabilities with it (the command line and the API accept the same claims).
MAX_EPSILON = math.log(sys.float_info.max)


def _is_real(value) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Real)


def check_epsilon(epsilon, *, allow_none: bool = False) -> float | None:
    """A claimed epsilon: a real number in ``(0, MAX_EPSILON]`` (e^epsilon a finite double).

    Parameters
    ----------
    epsilon : real
        The claim.
    allow_none : bool, default False
        Accept ``None`` (a mechanism that states no claim) and return it.

    Returns
    -------
    float or None

    Raises
    ------
    InvalidClaimError
        Not a real number, not finite, <= 0, or above :data:`MAX_EPSILON`.
    """
    if epsilon is None and allow_none:
        return None
    allowed = "a finite real number > 0" + (" or None" if allow_none else "")
    if not _is_real(epsilon) or not math.isfinite(float(epsilon)) or float(epsilon) <= 0:
        raise InvalidClaimError(f"epsilon must be {allowed}, got {epsilon!r}")
    if float(epsilon) > MAX_EPSILON:
        raise InvalidClaimError(
            f"epsilon = {float(epsilon):g} is too large: the audit compares probabilities with e^epsilon, which "
            f"must be a finite double, so epsilon must be at most {MAX_EPSILON:.2f}"
        )
    return float(epsilon)


def check_claimed_epsilon(epsilon, name: str = "epsilon") -> float:
    """An epsilon a claim states: a finite real number >= 0 (0 claims that outputs reveal nothing).

    An audit needs more (:func:`check_epsilon`: > 0, and ``e^epsilon`` a finite double); a claim
    is checked on its own domain so that accounting may state what it derives.

    Raises
    ------
    InvalidClaimError
        Not a real number (bools are not), not finite, or < 0.
    """
    if not _is_real(epsilon) or not (0.0 <= float(epsilon) < math.inf):
        raise InvalidClaimError(f"a claimed {name} must be a finite real number >= 0, got {epsilon!r}")
    return float(epsilon)


def check_delta(delta, *, claim: bool = True) -> float:
    """A delta: a real number in [0, 1).

    Parameters
    ----------
    delta : real
        The argument.
    claim : bool, default True
        Whether ``delta`` is part of the privacy claim under audit
        (:class:`~dpverify.errors.InvalidClaimError`) or a parameter of a
        bound computed without a claim, as in
        :func:`dpverify.audits.oracle.oracle_epsilon_bound`
        (:class:`~dpverify.errors.InvalidParameterError`).

    Raises
    ------
    InvalidClaimError or InvalidParameterError
        Not a real number, or outside [0, 1) (NaN included).
    """
    if not _is_real(delta) or not (0.0 <= float(delta) < 1.0):
        error = InvalidClaimError if claim else InvalidParameterError
        raise error(f"delta must be a real number in [0, 1), got {delta!r}")
    return float(delta)


def check_alpha(alpha) -> float:
    """A test level: a real number in (0, 1).

    Raises
    ------
    InvalidParameterError
        Not a real number, or outside (0, 1).
    """
    return check_fraction(alpha, "alpha")


def check_positive_int(value, name: str, minimum: int = 1, error: type = InvalidParameterError) -> int:
    """An integer (Python or numpy) ``>= minimum``: sample sizes, chunk counts, seeds.

    Parameters
    ----------
    value : int
        The argument.
    name : str
        Its name, for the message.
    minimum : int, default 1
        The smallest value allowed (0 for a non-negative integer).
    error : type, default InvalidParameterError
        The error to raise (the neighbour generators raise InvalidNeighboursError).

    Raises
    ------
    InvalidParameterError
        Not an integer (floats such as ``1e5`` included), or below ``minimum``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise error(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_fraction(value, name: str) -> float:
    """A real number strictly between 0 and 1 (a level, a share of the samples).

    Raises
    ------
    InvalidParameterError
        Not a real number, or outside (0, 1).
    """
    if not _is_real(value) or not (0.0 < float(value) < 1.0):
        raise InvalidParameterError(f"{name} must be a real number in (0, 1), got {value!r}")
    return float(value)


def check_positive_real(value, name: str, lower: float = 0.0, error: type = InvalidParameterError) -> float:
    """A finite real number ``> lower`` (a sensitivity, a scale, a growth factor).

    Parameters
    ----------
    value : real
        The argument.
    name : str
        Its name, for the message.
    lower : float, default 0
        The value must exceed it strictly.
    error : type, default InvalidParameterError
        The error to raise.

    Raises
    ------
    InvalidParameterError
        Not a real number, not finite, or ``<= lower``.
    """
    if isinstance(value, bool) or not _finite_above(value, lower):
        raise error(f"{name} must be a finite real number > {lower:g}, got {value!r}")
    return float(value)


def _finite_above(value, lower: float) -> bool:
    return isinstance(value, numbers.Real) and math.isfinite(float(value)) and float(value) > lower


def check_finite_positive(value, message: str, error: type = InvalidClaimError) -> float:
    """A finite real number > 0 as read from another library (a rho; ``True`` passes, as 1), else
    ``error(message)``."""
    if not _finite_above(value, 0.0):
        raise error(message)
    return float(value)


def check_nonzero(value, message: str, error: type = InvalidClaimError) -> None:
    """``value`` not a real number equal to 0 (a claim of 0 that no audit can test), else ``error(message)``."""
    if isinstance(value, numbers.Real) and float(value) == 0.0:
        raise error(message)


def check_call(function, describe, error: type, catch: tuple = (Exception,)):
    """``function()``, or ``error(describe(exc))`` raised from the exception ``exc`` it raised (one of
    ``catch``): another library's call that fails because of the argument the user gave."""
    try:
        return function()
    except catch as exc:
        raise error(describe(exc)) from exc


def check_choice(value, name: str, allowed: tuple, error: type = InvalidParameterError, message: str | None = None):
    """One of the strings (or other hashable values) ``allowed``: a norm, a role, a kind.

    ``message``, where given, replaces the default one (an adapter listing what each choice means).

    Raises
    ------
    InvalidParameterError
        (or ``error``) ``value`` is none of ``allowed``.
    """
    if value not in allowed:
        raise error(message or f"{name} must be one of {allowed}, got {value!r}")
    return value


def check_name(value, what: str, error: type = InvalidParameterError) -> str:
    """A non-empty string naming ``what`` (an event family, a relation).

    Raises
    ------
    InvalidParameterError
        (or ``error``) Not a string, or empty.
    """
    if not isinstance(value, str) or not value:
        raise error(f"{what}'s name must be a non-empty string, got {value!r}")
    return value


def check_callable(value, name: str, error: type = InvalidParameterError, *, show_type: bool = False):
    """A callable (a family's builder, a relation's generator, an adapter's function).

    Parameters
    ----------
    show_type : bool, default False
        Name the type of ``value`` in the message rather than its repr (the adapters, which raise
        :class:`~dpverify.errors.InvalidArgumentTypeError`).

    Raises
    ------
    InvalidParameterError
        (or ``error``) Not callable.
    """
    if not callable(value):
        shown = type(value).__name__ if show_type else repr(value)
        raise error(f"{name} must be callable, got {shown}")
    return value


def check_has_method(value, method: str, message: str):
    """An object with a callable attribute ``method`` (a library's mechanism an adapter calls), else
    :class:`~dpverify.errors.InvalidArgumentTypeError` with ``message`` (which says what the object must be)."""
    if not callable(getattr(value, method, None)):
        raise InvalidArgumentTypeError(message)
    return value


def check_class(value, name: str, what: str) -> type:
    """A class (not an instance): ``name`` must be a ``what`` class, else
    :class:`~dpverify.errors.InvalidArgumentTypeError` naming the type given."""
    if not isinstance(value, type):
        raise InvalidArgumentTypeError(f"{name} must be a {what} class, got a {type(value).__name__}")
    return value


def check_not_empty(values, name: str, what: str, error: type = InvalidParameterError) -> list:
    """``values`` as a list with at least one item (a partition, a pattern), else ``error``:
    ``name must name at least one what``."""
    values = list(values)
    if not values:
        raise error(f"{name} must name at least one {what}")
    return values


def check_one_claim(named: list, flags: list) -> None:
    """At most one claim given on the command line: ``named`` lists the claim flags given, ``flags`` all of them."""
    if len(named) > 1:
        given = ", ".join(named[:-1]) + " and " + named[-1]
        raise InvalidClaimError(f"give one claim: {given} were given together; use one of {', '.join(flags)}")


def _inputs_equal(x, x_prime) -> bool:
    try:
        if isinstance(x, np.ndarray) or isinstance(x_prime, np.ndarray):
            return bool(np.array_equal(np.asarray(x), np.asarray(x_prime)))
        if isinstance(x, (tuple, list)) and isinstance(x_prime, (tuple, list)):  # e.g. tuples of arrays
            return type(x) is type(x_prime) and len(x) == len(x_prime) and all(map(_inputs_equal, x, x_prime))
        equal = x == x_prime
        return bool(equal) if isinstance(equal, (bool, np.bool_)) else False
    except Exception:
        return False


def check_input_pair(inputs, name: str = "inputs") -> tuple:
    """``inputs`` as an ``(x, x_prime)`` pair of differing inputs (given samples' inputs), else a named error."""
    if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
        raise InvalidParameterError(f"{name} must be the (x, x_prime) pair the samples came from, got {inputs!r}")
    check_inputs_differ(*inputs)
    return tuple(inputs)


def check_inputs_differ(x, x_prime) -> None:
    """Raise :class:`IdenticalInputsError` when ``x`` equals ``x_prime``."""
    if _inputs_equal(x, x_prime):
        raise IdenticalInputsError(
            f"x and x_prime are equal ({x!r}); an audit compares two different neighbouring inputs"
        )


def check_below(
    value: int, name: str, limit: int, limit_name: str, why: str = "", error: type = InvalidParameterError
) -> int:
    """``value`` strictly below ``limit`` (a selection size below the sample size), else ``error``; ``why``
    (``" (the rest certify)"``) follows the limit in the message."""
    if value >= limit:
        raise error(f"{name} must be smaller than {limit_name}={limit}{why}, got {value}")
    return value


def check_draws_nothing(options, driver: str) -> None:
    """Options of a driver that draws no samples: ``executor`` and ``n_chunks`` describe sampling and must be unset."""
    if options.executor is not None or options.n_chunks is not None:
        raise InvalidParameterError(
            f"{driver} draws no samples, so executor and n_chunks do not apply; leave them unset"
        )


def check_claim_given(epsilon, claim) -> None:
    """A claim passed where there is no mechanism to state one (an audit of given samples)."""
    if claim is None and epsilon is None:
        raise InvalidClaimError(
            "audit_samples needs the claim: epsilon= (and delta=), or claim=PrivacyClaim.zcdp(rho) / .renyi(alpha, "
            "eps) / .gdp(mu) / .tradeoff(f)"
        )


def check_grid(values, name: str, *, most: int = 1000) -> np.ndarray:
    """A grid of 1 to ``most`` epsilons in ``[0, MAX_EPSILON]`` (a delta curve's; e^epsilon a finite double),
    sorted and without repeats."""
    message = f"{name} must be 1 to {most} real values in [0, {MAX_EPSILON:.2f}] (e^eps a finite double)"
    message += f", got {values!r}"
    try:
        grid = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(message) from exc
    if grid.size == 0 or grid.size > most or not np.all(np.isfinite(grid)) or np.any((grid < 0) | (grid > MAX_EPSILON)):
        raise InvalidParameterError(message)
    return np.unique(grid)


def check_count(value, name: str, minimum: int = 1) -> int:
    """An integer (numpy integers too, not bool) >= ``minimum``, for counts given as budgets
    (``n_screening``, ``n_refining``); the message says ``an integer >= minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


#: The corrections of ``statsmodels.stats.multitest.multipletests`` that bound the family-wise error rate.
FAMILY_WISE_METHODS = ("holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg", "hommel")


def check_family_wise(method) -> str:
    """A ``multipletests`` method that controls the family-wise error rate (FDR methods do not)."""
    if method not in FAMILY_WISE_METHODS:
        raise InvalidParameterError(
            f"method must control the family-wise error rate, one of {FAMILY_WISE_METHODS}; got {method!r}"
        )
    return method


def check_pairs(pairs) -> list:
    """At least one ``(x, x_prime)`` pair, each a 2-tuple or 2-list, in a list or another iterable (a callable,
    as ``search_audit`` draws pairs from, is refused: ``audit_pairs`` audits the pairs it is given)."""
    if callable(pairs) or not isinstance(pairs, Iterable):
        raise InvalidParameterError(
            f"pairs must be a list of (x, x_prime) pairs, got {short_repr(pairs)} (to draw pairs from a callable "
            "or a relation, use dpverify.search_audit)"
        )
    pairs = list(pairs)
    if not pairs:
        raise InvalidParameterError("audit_pairs needs at least one (x, x_prime) pair")
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InvalidParameterError(f"pairs[{i}] must be an (x, x_prime) pair, got {short_repr(pair)}")
    return pairs


def check_bool(value, name: str) -> bool:
    """``True`` or ``False`` itself (not 0, 1 or a numpy bool)."""
    if not isinstance(value, bool):
        raise InvalidParameterError(f"{name} must be True or False, got {value!r}")
    return value


def check_names(value, name: str, what: str = "family names") -> tuple:
    """A non-empty list of names as a tuple; a lone string is refused (it would be read letter by letter), and so
    is an empty list (it would leave nothing to use: None asks for every one)."""
    if isinstance(value, str):
        raise InvalidParameterError(f"{name} must be a list of {what}, got the string {value!r}")
    names = tuple(value)
    if not names:
        raise InvalidParameterError(
            f"{name} names none, so nothing could be used: name at least one, or pass None for all"
        )
    return names


def check_optional_callable(value, name: str):
    """A callable or None (an ``output_key``)."""
    if value is not None and not callable(value):
        raise InvalidParameterError(f"{name} must be callable or None, got {value!r}")
    return value


def check_workers(workers, available: int) -> int:
    """A worker count: a whole number >= 1 (``available``, the workers this process may use, is named in the
    message)."""
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral):
        raise InvalidParameterError(f"workers must be a whole number >= 1, got {workers!r}")
    workers = int(workers)
    if workers < 1:
        raise InvalidParameterError(
            f"workers must be >= 1 (this machine lets the process use {available}), got {workers}"
        )
    return workers


def check_inputs_or_neighbours(x, x_prime, neighbours, sequential: bool) -> None:
    """Either both of ``x`` and ``x_prime`` or ``neighbours`` (a search, which is never sequential), as
    :func:`dpverify.testing.assert_dp` takes them."""
    if neighbours is not None:
        if x is not None or x_prime is not None or sequential:
            raise InvalidParameterError(
                "give neighbours= or x and x_prime (neighbours does not combine with sequential)"
            )
    elif x is None or x_prime is None:
        raise InvalidParameterError("assert_dp needs x and x_prime, or neighbours=")


def check_optional_claim(claim, claim_type: type, what: str = "a verification's claim") -> None:
    """A :class:`dpverify.PrivacyClaim` (``claim_type``, passed in: the claims import this module) or None
    (a verification's claim; the statement says the rest)."""
    if claim is not None and not isinstance(claim, claim_type):
        raise InvalidParameterError(
            f"{what} must be a dpverify.PrivacyClaim or None, got {type(claim).__name__}; "
            "what the check verifies, in words, is its statement"
        )


def check_seed(seed) -> np.random.SeedSequence:
    """A seed as a :class:`numpy.random.SeedSequence`: None, a non-negative integer (numpy's too, not bool),
    or anything numpy seeds from (a list of such integers).

    Raises
    ------
    InvalidParameterError
        A negative integer, or anything numpy cannot seed from (numpy's error is chained).
    """
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        if seed is not None and seed < 0:
            raise InvalidParameterError(f"seed must be a non-negative integer, got {seed!r}")
        return np.random.SeedSequence(seed)
    try:
        return np.random.SeedSequence(seed)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"seed must be None, a non-negative int, or a SeedSequence, got {seed!r}") from exc


def check_worker_count(executor) -> int:
    """An ``executor`` given as a worker count: an integer >= 1 (1 runs in this process)."""
    if executor < 1:
        raise InvalidParameterError(f"executor as a worker count must be >= 1, got {executor}")
    return int(executor)


def check_instance(value, types, message: str, error: type = InvalidParameterError):
    """An instance of ``types`` (a record's field, an entry point's record), else ``error(message)``: the
    caller's message names the owner and what is allowed."""
    if not isinstance(value, types):
        raise error(message)
    return value


def check_known(names, registered, what: str) -> None:
    """Every one of ``names`` among ``registered`` (a registry's names), else one error naming the unknown
    ``what`` (``"event families"``) in sorted order beside the registered ones."""
    unknown = set(names) - set(registered)
    if unknown:
        raise InvalidParameterError(f"unknown {what} {sorted(unknown)}; registered: {sorted(registered)}")


def check_not_both(first_given: bool, second_given: bool, message: str, error: type = InvalidParameterError) -> None:
    """Two ways of passing one thing, at most one of them used; else ``error(message)``."""
    if first_given and second_given:
        raise error(message)


def check_given(value, message: str, error: type = InvalidClaimError):
    """``value`` if it is not None; else ``error(message)`` (the message says how to give it)."""
    if value is None:
        raise error(message)
    return value


def check_empty(faults, message: str, error: type = InvalidClaimError) -> None:
    """``faults`` (the names at fault: fields a definition lacks, or states where none belongs) empty; else
    ``error(message)``."""
    if faults:
        raise error(message)


def check_not_in(value, forbidden, message: str, error: type = InvalidClaimError) -> None:
    """``value`` not among ``forbidden`` (a name reserved by a built-in); else ``error(message)``."""
    if value in forbidden:
        raise error(message)


def check_record_or_fields(record_given: bool, fields_given: bool, what: str) -> None:
    """A registration given a record or its fields, not both (``what`` names the record type)."""
    check_not_both(record_given, fields_given, f"pass either {what} record or its fields, not both")


def check_tradeoff_points(points) -> tuple:
    """Points ``(type I, type II)`` of a trade-off function, as a tuple of float pairs sorted by type I.

    Raises
    ------
    InvalidClaimError
        Not pairs of numbers, none, outside [0, 1] x [0, 1], type II errors that grow with type I, or
        points no trade-off function passes through (:func:`check_tradeoff_shape`).
    """
    try:
        pairs = np.asarray(points, dtype=float)
    except (TypeError, ValueError) as error:
        raise InvalidClaimError(f"trade-off points must be pairs (type I, type II), got {points!r}") from error
    if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.shape[0] == 0:
        raise InvalidClaimError(f"trade-off points must be a non-empty list of (type I, type II) pairs, got {points!r}")
    if not np.all(np.isfinite(pairs)) or np.any(pairs < 0) or np.any(pairs > 1):
        raise InvalidClaimError("trade-off points must lie in [0, 1] x [0, 1]")
    pairs = pairs[np.argsort(pairs[:, 0], kind="stable")]
    if np.any(np.diff(pairs[:, 1]) > 0):
        raise InvalidClaimError("a trade-off function is non-increasing: the type II errors must not grow with type I")
    check_tradeoff_shape(pairs[:, 0], pairs[:, 1])
    return tuple((float(a), float(b)) for a, b in pairs)


def check_tradeoff_values(values: np.ndarray, type_one: np.ndarray) -> None:
    """The values of a trade-off function at the increasing type I errors ``type_one``: in [0, 1],
    non-increasing (growth of at most 1e-12 is rounding) and :func:`check_tradeoff_shape`, else
    :class:`~dpverify.errors.InvalidClaimError`."""
    if not np.all(np.isfinite(values)) or np.any(values < 0) or np.any(values > 1):
        raise InvalidClaimError("a trade-off function maps [0, 1] into [0, 1]")
    if np.any(np.diff(values) > 1e-12):
        raise InvalidClaimError("a trade-off function is non-increasing; the one given grows somewhere on [0, 1]")
    check_tradeoff_shape(type_one, values)


def check_kind_bound(kind, function: str, bound):
    """``bound``, a certified bound that claim kind ``kind``'s ``function`` (``"event_bound"``,
    ``"cells_bound"``) returned, if every value of it is a number that is not NaN (``inf`` is allowed).

    Raises
    ------
    InvalidClaimError
        A NaN (which every comparison would read as "no violation") or a value that is not a number;
        the message names the kind.
    """
    try:
        values = np.asarray(bound, dtype=float)
    except (TypeError, ValueError):
        values = None
    if values is None or np.any(np.isnan(values)):
        raise InvalidClaimError(
            f"claim kind {kind.name!r}: its {function} returned {bound!r} as a certified bound; a bound must be a "
            "number (inf where unbounded), never NaN, which would read as 'no violation'. Fix the kind's "
            f"{function}"
        )
    return bound


#: Rounding allowed in the checks of a trade-off function's shape.
TRADEOFF_TOLERANCE = 1e-9


def check_tradeoff_shape(type_one: np.ndarray, values: np.ndarray) -> None:
    """Values ``f(a)`` at increasing type I errors ``a`` that a trade-off function can take (Dong, Roth and
    Su 2022, Proposition 2.2): ``f(a) <= 1 - a`` (random guessing reaches ``1 - a``) and convex (the
    slopes between consecutive points do not decrease), each within :data:`TRADEOFF_TOLERANCE`.

    Checked at the points only: a function that breaks convexity or continuity between them is not
    detected.

    Raises
    ------
    InvalidClaimError
        A value above ``1 - a`` (``f = 1`` claims that no test has any power: impossible), or
        slopes that decrease.
    """
    a, f = np.asarray(type_one, dtype=float), np.asarray(values, dtype=float)
    above = np.flatnonzero(f > 1.0 - a + TRADEOFF_TOLERANCE)
    if above.size:
        i = int(above[0])
        raise InvalidClaimError(
            f"no trade-off function has f({a[i]:g}) = {f[i]:g}: a test that ignores the output (random "
            f"guessing) has type II error 1 - a = {1 - a[i]:g}, so f(a) <= 1 - a everywhere; a claim above it is "
            "impossible, not a property of the mechanism"
        )
    step = np.diff(a)
    keep = step > 0
    slopes = np.diff(f)[keep] / step[keep]
    if np.any(np.diff(slopes) < -TRADEOFF_TOLERANCE * np.maximum(1.0, np.abs(slopes[1:]))):
        raise InvalidClaimError(
            "a trade-off function is convex: the slopes between its points must not decrease, and those of "
            "the one given do somewhere on [0, 1]"
        )


def check_renyi_orders(orders: np.ndarray, epsilons: np.ndarray) -> None:
    """A Rényi claim's orders (1-D, finite, > 1, distinct), one epsilon per order, else
    :class:`~dpverify.errors.InvalidClaimError`."""
    if orders.ndim != 1 or orders.size == 0 or orders.shape != epsilons.shape:
        raise InvalidClaimError(
            f"a Rényi claim states one epsilon per order: got {orders.size} orders and {epsilons.size} epsilons"
        )
    if not all(math.isfinite(a) and a > 1 for a in orders):
        raise InvalidClaimError(f"Rényi orders must be finite and > 1, got {orders.tolist()}")
    if len(set(orders.tolist())) != orders.size:
        raise InvalidClaimError(f"Rényi orders must be distinct, got {orders.tolist()}")


def check_at_most(count: int, most: int, what: str) -> int:
    """A size that an exact computation can enumerate: ``count <= most`` of ``what`` (``"queries"``), else
    :class:`~dpverify.errors.InvalidParameterError`."""
    if count > most:
        raise InvalidParameterError(f"at most {most} {what}, got {count}")
    return count


def check_claim_once(epsilon, delta) -> None:
    """A claim passed as ``claim=`` with neither ``epsilon=`` nor ``delta=`` beside it."""
    check_not_both(
        True,
        epsilon is not None or delta is not None,
        "pass the claim either as claim= or as epsilon= and delta=, not both",
        InvalidClaimError,
    )


def check_audit_domain(claim):
    """``claim`` (a :class:`dpverify.PrivacyClaim`) if an audit can test it: epsilon (at the stated delta),
    rho and mu > 0, every Rényi epsilon > 0; else :class:`~dpverify.errors.InvalidClaimError`."""
    audit_check = claim.kind_record.audit_check
    if audit_check is not None:
        audit_check(claim)
    return claim


def check_audit_positive(value, name: str) -> None:
    """An audited claim's parameter ``value`` > 0 (a claim of 0 cannot be tested by any finite sample), else
    :class:`~dpverify.errors.InvalidClaimError` naming ``name``."""
    if not value > 0:
        raise InvalidClaimError(f"an audit needs {name} > 0, got {name}={value!r}")


def check_keywords(given, allowed, driver: str) -> None:
    """Keyword arguments ``given`` all among ``allowed`` (the fields of :class:`dpverify.AuditOptions`), else
    :class:`~dpverify.errors.InvalidArgumentTypeError` (a ``TypeError``, as Python raises for an unexpected
    keyword) listing the unknown ones and the allowed."""
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise InvalidArgumentTypeError(
            f"{driver}() got unexpected keyword argument(s) {unknown}; options are {list(allowed)} "
            "(fields of dpverify.AuditOptions)"
        )
