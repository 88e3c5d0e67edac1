"""The contracts a mechanism can meet, as :class:`typing.Protocol` classes, and the checks of them.

dpverify audits any callable ``mechanism(data, rng)``. A mechanism may offer
more, and each extra is a contract stated here once:

:class:`Mechanism`
    ``mechanism(data, rng) -> output``, ``rng`` a :class:`numpy.random.Generator`.
:class:`VectorizedSampler`
    ``sample(data, size, rng)`` returns ``size`` outputs at once (a list, or
    an array whose first axis is ``size``) with the distribution of
    ``size`` calls; the audit then samples through it.
:class:`ExactMechanism`
    ``pmf(data) -> {output: probability}``: the exact output distribution.
:class:`DeclaresReplayability`
    ``replayable = False`` says that the mechanism's randomness does not come
    from ``rng`` (an adapter of a library drawing from the operating system).
:class:`DeclaresScore`
    ``audit_score(outputs, x, x_prime)``: a real statistic of real outputs, larger
    where an output looks more like one of ``M(x)`` than of ``M(x')`` (ideally
    the log likelihood ratio); the ``"declared-score"`` event family thresholds
    it (:mod:`dpverify.events.declared`). A hint for choosing events, never
    trusted: a wrong score costs power, not validity.

Whether an audit's seed replays a mechanism is decided by
:func:`check_replayable` from what can be observed: the same seed must give
the same first outputs, twice. A mechanism that touches its ``rng`` but draws
its noise from ``numpy.random``'s global state does not.

References
----------
Python typing, "Protocols: structural subtyping (static duck typing)", PEP 544 (2017).
"""

from __future__ import annotations

import contextvars
import pickle
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from .errors import InvalidParameterError, SamplerContractError
from .support import arrays

__all__ = [
    "Mechanism",
    "VectorizedSampler",
    "ExactMechanism",
    "DeclaresReplayability",
    "DeclaresScore",
    "Replayability",
    "REPLAY_CHECK_SIZE",
    "is_mechanism",
    "check_mechanism",
    "is_vectorized",
    "has_exact_pmf",
    "declares_not_replayable",
    "declared_score",
    "draw_outputs",
    "contract_seed",
    "check_replayable",
]

#: Outputs drawn twice from one seed to decide replayability.
REPLAY_CHECK_SIZE = 64
#: Spawn-key index of the stream the contract checks draw from (well clear of every audit's own
#: children, so the checks change none of an audit's samples).
CONTRACT_STREAM = 1000


@runtime_checkable
class Mechanism(Protocol):
    """``mechanism(data, rng) -> output``."""

    def __call__(self, data, rng: np.random.Generator): ...


@runtime_checkable
class VectorizedSampler(Protocol):
    """``sample(data, size, rng)``: ``size`` outputs at once, distributed as ``size`` calls."""

    def sample(self, data, size: int, rng: np.random.Generator): ...


@runtime_checkable
class ExactMechanism(Protocol):
    """``pmf(data) -> {output: probability}``: the exact output distribution on ``data``."""

    def pmf(self, data) -> dict: ...


@runtime_checkable
class DeclaresReplayability(Protocol):
    """``replayable``: False when the mechanism's randomness does not come from ``rng``."""

    replayable: bool


@runtime_checkable
class DeclaresScore(Protocol):
    """``audit_score(outputs, x, x_prime)``: one real per output of an ``(n, d)`` float64 array of real outputs
    (a scalar output as ``(n, 1)``), larger where the output is more likely under ``x`` than under
    ``x_prime``."""

    def audit_score(self, outputs, x, x_prime): ...


def is_mechanism(obj) -> bool:
    """Whether ``obj`` can be called as ``obj(data, rng)`` (callable; the signature is not checked)."""
    return isinstance(obj, Mechanism) and callable(obj)


def check_mechanism(mechanism) -> None:
    """Raise :class:`~dpverify.errors.InvalidParameterError` unless ``mechanism`` is callable."""
    if not is_mechanism(mechanism):
        raise InvalidParameterError(
            f"the mechanism must be callable as mechanism(data, rng), got {type(mechanism).__name__} {mechanism!r:.80}"
        )


def is_vectorized(obj) -> bool:
    """Whether ``obj`` has a callable ``sample`` method (:class:`VectorizedSampler`)."""
    return isinstance(obj, VectorizedSampler) and callable(obj.sample)


def has_exact_pmf(obj) -> bool:
    """Whether ``obj`` has a callable ``pmf`` method (:class:`ExactMechanism`)."""
    return isinstance(obj, ExactMechanism) and callable(obj.pmf)


def declares_not_replayable(obj) -> bool:
    """Whether ``obj`` declares ``replayable = False`` (:class:`DeclaresReplayability`)."""
    return isinstance(obj, DeclaresReplayability) and obj.replayable is False


def declared_score(obj):
    """``obj``'s :class:`DeclaresScore` method ``audit_score``, or None where it declares none (or ``obj`` is None)."""
    score = getattr(obj, "audit_score", None) if obj is not None else None
    return score if callable(score) else None


def draw_outputs(mechanism, data, size: int, rng):
    """``size`` raw outputs: the vectorized ``sample`` when there is one, else ``size`` calls.

    Raises
    ------
    SamplerContractError
        ``sample`` returned a number of outputs other than ``size``.
    """
    if not is_vectorized(mechanism):
        return [mechanism(data, rng) for _ in range(size)]
    out = mechanism.sample(data, size, rng)
    if isinstance(out, np.ndarray) or arrays.namespace(out) is not None:
        shape = getattr(out, "shape", ())
        if len(shape) == 0 or shape[0] != size:
            raise SamplerContractError(
                f"sample(data, size={size}, rng) returned an array of shape {tuple(shape)}; its first axis "
                "must be size (one output per row)"
            )
        return out
    try:
        out = list(out)
    except TypeError as exc:
        raise SamplerContractError(
            f"sample(data, size={size}, rng) returned a {type(out).__name__}, not a list or array of {size} outputs"
        ) from exc
    if len(out) != size:
        raise SamplerContractError(f"sample(data, size={size}, rng) returned {len(out)} outputs, not {size}")
    return out


def contract_seed(sequence: np.random.SeedSequence, index: int = 0) -> np.random.SeedSequence:
    """The child of ``sequence`` the contract checks draw from (``index`` tells the checks apart).

    Its spawn key ends in ``CONTRACT_STREAM + index``, an index no audit spawns, so drawing
    from it changes none of the audit's streams.
    """
    key = tuple(sequence.spawn_key) + (CONTRACT_STREAM + index,)
    return np.random.SeedSequence(sequence.entropy, spawn_key=key, pool_size=sequence.pool_size)


@dataclass(frozen=True)
class Replayability:
    """Whether an audit's seed replays the mechanism, and what the reader should know.

    Attributes
    ----------
    replayable : bool
        True when the mechanism drew from the ``rng`` it was given and the same seed gave the
        same first outputs twice (or that could not be checked, see ``note``).
    note : str or None
        Why it is not replayable, or that it could not be checked.
    first_outputs : object
        The first outputs drawn (after ``output_key``) where the same seed gave them twice;
        None otherwise (they fingerprint the mechanism, :mod:`dpverify.audits.fingerprint`).
    """

    replayable: bool
    note: str | None = None
    first_outputs: object = field(default=None, repr=False, compare=False)


def _same(a, b) -> bool | None:
    """Whether two outputs are equal; None when they cannot be compared."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        try:
            return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
        except TypeError:
            return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    if type(a).__eq__ is object.__eq__ and a is not b:
        return None  # compared by identity: equal content would still differ
    try:
        equal = a == b
    except Exception:
        equal = None
    if isinstance(equal, (bool, np.bool_)):
        if not equal and isinstance(a, float) and isinstance(b, float) and a != a and b != b:
            return True  # both NaN
        return bool(equal)
    try:
        return pickle.dumps(a) == pickle.dumps(b)
    except Exception:
        return None


def _same_outputs(first, second) -> bool | None:
    """Whether two batches of outputs are equal element by element; None when they cannot be compared."""
    if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
        return _same(first, second)
    first, second = list(first), list(second)
    if len(first) != len(second):
        return False
    verdicts = [_same(a, b) for a, b in zip(first, second)]
    if any(v is False for v in verdicts):
        return False
    return None if any(v is None for v in verdicts) else True


def _state(rng: np.random.Generator):
    return rng.bit_generator.state["state"]


#: The purpose the contract checks record their draws under (one pilot output, the sampler check, the
#: replayability check): fixed sizes, outside the ``n_samples`` budget
#: (:class:`dpverify.pipeline.sampling.DrawLedger`).
CHECKS = "contract checks"
#: The ledgers open (:func:`dpverify.pipeline.sampling.drawing_ledger`) and the purpose of the draws now
#: (:func:`dpverify.pipeline.sampling.drawing_for`): here, below the sampling layer, so that the contract
#: checks record their draws too.
_LEDGERS: contextvars.ContextVar = contextvars.ContextVar("dpverify_draw_ledgers", default=())
_PURPOSE: contextvars.ContextVar = contextvars.ContextVar("dpverify_draw_purpose", default=None)


def record_draws(label: str, n: int, purpose: str | None = None, default: str = "selection") -> None:
    """Record ``n`` outputs of side ``label`` in every open ledger, under ``purpose`` (default: the
    current :func:`~dpverify.pipeline.sampling.drawing_for` purpose, else ``default``: ``"selection"``
    for :func:`~dpverify.pipeline.sampling.draw`, ``"certification"`` for
    :func:`~dpverify.pipeline.sampling.count_events`, which call it; the contract checks call it with
    :data:`CHECKS`)."""
    purpose = purpose or _PURPOSE.get() or default
    for ledger in _LEDGERS.get():
        ledger.record(purpose, label, n)


def _record_check(n: int) -> None:
    """Record ``n`` outputs of the first input drawn by a contract check."""
    record_draws("x", n, CHECKS)


def check_replayable(mechanism, data, seed: np.random.SeedSequence, *, output_key=None) -> Replayability:
    """Decide whether an audit's seed replays ``mechanism``, by drawing its first outputs twice.

    ``REPLAY_CHECK_SIZE`` outputs on ``data`` are drawn from a Generator built from ``seed``,
    then again from a fresh Generator built from the same ``seed``. The mechanism is
    replayable when it declares nothing else (:class:`DeclaresReplayability`), drew from the
    Generator, and gave the same outputs both times. Outputs that cannot be compared (objects
    compared by identity with no ``output_key``) or a check that raised leave the decision to
    the declaration and the use of the Generator, and the note says it could not be checked.

    Parameters
    ----------
    mechanism : callable
        The mechanism (:class:`Mechanism`, possibly :class:`VectorizedSampler`).
    data : object
        An input of the audit.
    seed : numpy.random.SeedSequence
        A stream of its own (:func:`contract_seed`), so the audit's samples do not change.
    output_key : callable, optional
        Applied to every output before comparing.

    Returns
    -------
    Replayability
    """
    if declares_not_replayable(mechanism):
        return Replayability(
            False,
            "the mechanism declares replayable=False (its randomness does not come from the rng it is "
            "given): the recorded seed does not replay it",
        )
    batches, used = [], True
    try:
        for _ in range(2):
            rng = np.random.default_rng(seed)
            before = _state(rng)
            out = draw_outputs(mechanism, data, REPLAY_CHECK_SIZE, rng)
            _record_check(REPLAY_CHECK_SIZE)
            used = used and _state(rng) != before
            if arrays.namespace(out) is not None:
                out = arrays.to_numpy(out)
            batches.append(out if output_key is None else [output_key(o) for o in out])
    except Exception as exc:  # the audit's own draws report the mechanism's errors by name
        return Replayability(True, f"replayability could not be checked (drawing twice raised {type(exc).__name__})")
    if not used:
        return Replayability(
            False,
            "the mechanism did not draw from the rng it was given: if it has randomness of its own, "
            "the recorded seed does not replay it",
        )
    same = _same_outputs(*batches)
    if same is None:
        return Replayability(
            True,
            "replayability could not be checked: the outputs cannot be compared (pass output_key=); the "
            "mechanism draws from the rng it is given",
        )
    if not same:
        return Replayability(
            False,
            f"the same seed gave different outputs (first {REPLAY_CHECK_SIZE} of two draws on x): the "
            "mechanism has randomness the rng does not control (numpy.random's global state, the "
            "operating system, state kept between calls); the recorded seed does not replay it",
        )
    return Replayability(True, first_outputs=batches[0])
