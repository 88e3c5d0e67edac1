"""Replaying a result from the result alone: same claim, sample count, seed and options.

A result records everything its computation was a function of (the claim, the sample
count, the seed and the :class:`~dpverify.AuditOptions`, for a sequential audit
its look plan, for a search audit its budgets, for a curve its grid), so a replay
needs only the result and what it does not hold: the mechanism and the inputs
(the neighbours, for a search audit; the pairs, for :func:`dpverify.audit_pairs`;
the pmfs, for an exact loss or an oracle bound). The replay is identical to the
result when the mechanism is replayable, wherever it runs (``executor`` changes
nothing). A replay refuses another mechanism or other inputs than the result was computed
on (:class:`~dpverify.errors.ReplayMismatchError`): every replay checks the result's
fingerprint (:mod:`dpverify.audits.fingerprint`, which says what it can and cannot detect)
before it draws, a search also its candidate pairs.

Each driver declares its replay in its own module, on its :class:`~dpverify.audits.drivers.Driver`
record; ``result.replay(...)`` and :func:`replay` look it up by the result's type
(:func:`dpverify.audits.drivers.driver_for`, over the records the modules declare). Importing this
module registers nothing.
"""

from __future__ import annotations

from .._results import Result, a_name
from ..errors import NotReplayableError

__all__ = ["replay"]


def replay(result, *inputs, executor=None, progress: bool = False):
    """Run the computation behind ``result`` again, on the same mechanism and inputs.

    Parameters
    ----------
    result : Result
        What a dpverify function returned (or its reload from JSON).
    *inputs
        What a result does not hold, by type:

        - :class:`~dpverify.AuditResult`, :class:`~dpverify.SequentialAuditResult`,
          :class:`~dpverify.DeltaCurve`: ``mechanism, x, x_prime``;
        - :class:`~dpverify.SearchAuditResult`: ``mechanism, neighbours`` (what was
          searched: a generator or callable may not be plain data, so it is not saved);
        - :class:`~dpverify.PairAuditResult`: ``mechanism, pairs``;
        - :class:`~dpverify.ExactPrivacyLoss`, :class:`~dpverify.OracleBound`:
          ``pmf_x, pmf_x_prime``.
    executor, progress
        Where and how visibly the replay runs; they change no result.

    Returns
    -------
    Result
        Of the same type as ``result``.

    Raises
    ------
    NotReplayableError
        A result whose claim was reloaded approximated (:attr:`dpverify.PrivacyClaim.approximated`), one
        with no seed (an audit of given samples has nothing to replay),
        one saved before the options were recorded, or of a type that cannot replay
        (:class:`~dpverify.DistributionTestResult`: the message says why). ``result`` not a
        dpverify result (a dict or JSON text: load it with ``from_dict`` / ``from_json`` first).
    InvalidParameterError
        The wrong number of inputs for the result's type.
    ReplayMismatchError
        A mechanism or inputs other than those the result was computed on, as far as its fingerprint
        tells (:mod:`dpverify.audits.fingerprint`; checked before drawing); a search audit replayed
        on neighbours that propose other candidate pairs than it recorded (checked before drawing,
        and on every candidate after). Where the fingerprint cannot check the inputs (not plain
        data) or the result records none, the replayed result says so in its ``notes`` (a
        :class:`~dpverify.errors.ReplayNotCheckedWarning` for a type without notes).

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.mechanisms import GeometricMechanism
    >>> result = dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=2)
    >>> again = dpverify.replay(dpverify.AuditResult.from_json(result.to_json()), GeometricMechanism(1.0), 0, 1)
    >>> again == result
    True
    """
    if not isinstance(result, Result):
        raise NotReplayableError(
            f"replay takes what a dpverify driver returned (an AuditResult, SearchAuditResult, DeltaCurve, ...), "
            f"got {a_name(type(result).__name__)}; load a saved one first with its type's from_dict / from_json "
            "(dpverify.AuditResult.from_json reads every audit's)"
        )
    return result.replay(*inputs, executor=executor, progress=progress)
