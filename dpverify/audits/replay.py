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
before it draws, a search also its candidate pairs. This is the one place that knows which
driver made which result: each type's replay is registered here (:func:`dpverify._results.register_replay`), and
``result.replay(...)`` and :func:`replay` look it up.
"""

from __future__ import annotations

from dataclasses import replace

from .._results import Result, register_replay
from ..errors import InvalidParameterError, NotReplayableError, ReplayMismatchError
from ..protocols import check_replayable, contract_seed
from .delta_curve import DeltaCurve, delta_lower_bound_curve
from .exact import ExactPrivacyLoss, exact_privacy_loss
from .family_wise import PairAuditResult, audit_pairs
from .fingerprint import check_replay_source, fingerprint_of, with_notes
from .oracle import OracleBound, OracleClaimBound, oracle_claim_bound, oracle_epsilon_bound
from .pair import audit
from .plan import check_claim_replays, claim_arguments, plan_of_result
from .results import AuditResult
from .search import SearchAuditResult, _on_input_domain, check_replay_candidates, search_audit
from .sequential import SequentialAuditResult, sequential_audit

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
            f"got a {type(result).__name__}; load a saved one first with its type's from_dict / from_json "
            "(dpverify.AuditResult.from_json reads every audit's)"
        )
    return result.replay(*inputs, executor=executor, progress=progress)


def _inputs(result, inputs: tuple, names: tuple) -> tuple:
    if len(inputs) != len(names):
        raise InvalidParameterError(
            f"a {type(result).__name__} replays from {', '.join(names)}; got {len(inputs)} inputs"
        )
    return inputs


def _check_source(result, plan, mechanism, x, x_prime, where: str = "") -> tuple:
    """Refuse ``result``'s replay on another mechanism or other inputs (its fingerprint, drawn on the
    contract stream of its seed the driver drew it on); the notes of what could not be checked."""
    replayability = check_replayable(mechanism, x, contract_seed(plan.sequence), output_key=plan.options.output_key)
    return check_replay_source(result, fingerprint_of(mechanism, (x, x_prime), replayability), where)


def _replay_audit(result, *inputs, executor=None, progress=False):
    mechanism, x, x_prime = _inputs(result, inputs, ("mechanism", "x", "x_prime"))
    plan = plan_of_result(result, executor=executor, progress=progress)
    notes = _check_source(result, plan, mechanism, x, x_prime)
    return with_notes(audit(mechanism, x, x_prime, n_samples=plan.n_samples, **claim_arguments(plan)), notes)


def _replay_sequential(result, *inputs, executor=None, progress=False):
    mechanism, x, x_prime = _inputs(result, inputs, ("mechanism", "x", "x_prime"))
    plan = plan_of_result(result, executor=executor, progress=progress)
    if result.plan is None:
        raise NotReplayableError("this sequential result does not record its look plan")
    notes = _check_source(result, plan, mechanism, x, x_prime)
    again = sequential_audit(mechanism, x, x_prime, n_samples=plan.n_samples, **claim_arguments(plan), **result.plan)
    return with_notes(again, notes)


def _replay_search(result, *inputs, executor=None, progress=False):
    mechanism, neighbours = _inputs(result, inputs, ("mechanism", "neighbours"))
    plan = plan_of_result(result, executor=executor, progress=progress)
    check_replay_candidates(result, _on_input_domain(neighbours, mechanism))
    notes = _check_source(result, plan, mechanism, result.x, result.x_prime)  # the mechanism on the chosen pair
    again = search_audit(
        mechanism,
        neighbours,
        n_samples=plan.n_samples,
        n_candidates=result.n_pairs_requested,
        n_screening=result.n_screening,
        n_refining=result.n_refining,
        **claim_arguments(plan),
    )
    check_replay_candidates(result, neighbours, replayed=again)
    return with_notes(again, notes)


def _replay_curve(result, *inputs, executor=None, progress=False):
    mechanism, x, x_prime = _inputs(result, inputs, ("mechanism", "x", "x_prime"))
    plan = plan_of_result(result, executor=executor, progress=progress)
    notes = _check_source(result, plan, mechanism, x, x_prime)
    again = delta_lower_bound_curve(
        mechanism, x, x_prime, epsilons=result.epsilons, n_samples=plan.n_samples, seed=plan.seed, options=plan.options
    )
    return with_notes(again, notes)


def _replay_pairs(result, *inputs, executor=None, progress=False):
    mechanism, pairs = _inputs(result, inputs, ("mechanism", "pairs"))
    first = plan_of_result(result.results[0], executor=executor, progress=progress)
    if result.seed is None:
        raise NotReplayableError("this result has no seed: there is nothing to replay")
    pairs = list(pairs)
    if len(pairs) != len(result.results):
        raise ReplayMismatchError(
            f"cannot replay this PairAuditResult on {len(pairs)} pairs: it audited {len(result.results)}; "
            "pass the pairs it audited, in their order, or run dpverify.audit_pairs anew"
        )
    notes = ()
    for i, (pair, inner) in enumerate(zip(pairs, result.results)):
        x, x_prime = pair
        notes += _check_source(inner, plan_of_result(inner), mechanism, x, x_prime, where=f"pair {i}")
    plan = replace(first, options=replace(first.options, alpha=result.alpha), seed=result.seed)
    again = audit_pairs(mechanism, pairs, n_samples=first.n_samples, method=result.method, **claim_arguments(plan))
    return with_notes(again, notes)


def _checked_pmfs(result, again):
    """``again``, the replay of a result of pmfs, once its fingerprint matches the recorded one (both are
    computed by the driver from the pmfs it validated)."""
    return with_notes(again, check_replay_source(result, again.fingerprint))


def _replay_exact(result, *inputs, executor=None, progress=False):
    pmf_x, pmf_x_prime = _inputs(result, inputs, ("pmf_x", "pmf_x_prime"))
    return _checked_pmfs(result, exact_privacy_loss(pmf_x, pmf_x_prime))


def _replay_oracle(result, *inputs, executor=None, progress=False):
    pmf_x, pmf_x_prime = _inputs(result, inputs, ("pmf_x", "pmf_x_prime"))
    again = oracle_epsilon_bound(pmf_x, pmf_x_prime, result.n_certification, alpha=result.alpha, delta=result.delta)
    return _checked_pmfs(result, again)


def _replay_oracle_claim(result, *inputs, executor=None, progress=False):
    pmf_x, pmf_x_prime = _inputs(result, inputs, ("pmf_x", "pmf_x_prime"))
    check_claim_replays(result.claim)
    again = oracle_claim_bound(pmf_x, pmf_x_prime, result.claim, result.n_certification, alpha=result.alpha)
    return _checked_pmfs(result, again)


for _type, _function in [
    (AuditResult, _replay_audit),
    (SequentialAuditResult, _replay_sequential),
    (SearchAuditResult, _replay_search),
    (DeltaCurve, _replay_curve),
    (PairAuditResult, _replay_pairs),
    (ExactPrivacyLoss, _replay_exact),
    (OracleBound, _replay_oracle),
    (OracleClaimBound, _replay_oracle_claim),
]:
    register_replay(_type, _function)
