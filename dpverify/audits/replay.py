"""Replaying an audit from its result alone: same claim, sample count, seed and options.

A result records everything its audit was a function of (the claim, the sample
count, the seed and the :class:`~dpverify.AuditOptions`, for a sequential audit
its look plan, for a search audit its budgets), so :func:`replay` needs only the
result, the mechanism and the inputs (the neighbours, for a search audit). The
replay is identical to the result when ``result.replayable`` is True, wherever
it runs (``executor`` changes nothing). This is the one place that knows which
driver made which result.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import InvalidParameterError
from .pair import audit
from .results import AuditResult
from .search import SearchAuditResult, check_replay_candidates, search_audit
from .sequential import SequentialAuditResult, sequential_audit

__all__ = ["replay"]


def replay(result: AuditResult, mechanism, *inputs, executor=None, progress: bool = False) -> AuditResult:
    """Run the audit behind ``result`` again, on ``mechanism`` and the same ``inputs``.

    Parameters
    ----------
    result : AuditResult
        What :func:`dpverify.audit`, :func:`dpverify.sequential_audit` or
        :func:`dpverify.search_audit` returned (or its reload from JSON).
    mechanism
        The audited mechanism (a result does not hold it).
    *inputs
        ``x, x_prime`` for a fixed-pair or sequential audit; ``neighbours`` (what
        was searched: a generator or callable may not be plain data, so it is not
        saved) for a search audit.
    executor, progress
        Where and how visibly the replay runs; they change no result.

    Returns
    -------
    AuditResult
        Of the same type as ``result``.

    Raises
    ------
    InvalidParameterError
        ``result`` not an :class:`~dpverify.AuditResult` (a dict or JSON text: load it with
        ``from_dict`` / ``from_json`` first), a result with no seed (an audit of given samples has
        nothing to replay), one saved before the options were recorded, or of a type no driver here made.
    ReplayMismatchError
        A search audit replayed on neighbours that propose other candidate pairs than it recorded
        (checked before drawing, and on every candidate after).

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.mechanisms import GeometricMechanism
    >>> result = dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=2)
    >>> again = dpverify.replay(dpverify.AuditResult.from_json(result.to_json()), GeometricMechanism(1.0), 0, 1)
    >>> again == result
    True
    """
    if not isinstance(result, AuditResult):
        raise InvalidParameterError(
            f"replay takes what an audit returned (an AuditResult, SequentialAuditResult or SearchAuditResult), "
            f"got a {type(result).__name__}; load a saved one first with dpverify.AuditResult.from_dict / "
            "from_json (or SearchAuditResult.from_dict, SequentialAuditResult.from_dict)"
        )
    if result.seed is None:
        raise InvalidParameterError(
            "this result has no seed (an audit of given samples, or saved without one): there is nothing to replay"
        )
    if result.options is None:
        raise InvalidParameterError("this result does not record its options (saved by an older dpverify)")
    options = replace(result.options, executor=executor, progress=progress)
    claim = dict(epsilon=result.claimed_epsilon, delta=result.claimed_delta, seed=result.seed, options=options)
    expected = 1 if isinstance(result, SearchAuditResult) else 2
    if len(inputs) != expected:
        what = "neighbours" if expected == 1 else "x and x_prime"
        raise InvalidParameterError(f"a {type(result).__name__} replays from {what}; got {len(inputs)} inputs")
    if isinstance(result, SearchAuditResult):
        check_replay_candidates(result, inputs[0])
        again = search_audit(
            mechanism,
            inputs[0],
            n_samples=result.n_samples,
            n_candidates=result.n_pairs_requested,
            n_screening=result.n_screening,
            n_refining=result.n_refining,
            **claim,
        )
        check_replay_candidates(result, inputs[0], replayed=again)
        return again
    x, x_prime = inputs
    if isinstance(result, SequentialAuditResult):
        if result.plan is None:
            raise InvalidParameterError("this sequential result does not record its look plan")
        return sequential_audit(mechanism, x, x_prime, n_samples=result.budget, **claim, **result.plan)
    if type(result) is AuditResult:
        return audit(mechanism, x, x_prime, n_samples=result.n_samples, **claim)
    raise InvalidParameterError(f"no driver here replays a {type(result).__name__}")
