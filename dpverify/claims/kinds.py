"""Claim kinds as declared records: how each form of a privacy claim is read, certified and printed.

A claim kind is one :class:`ClaimKind` record in one module of :mod:`dpverify.claims`
(cf. DP-Auditorium's ``configs``, where ``PureDp``, ``ApproximateDp`` and ``RenyiDp`` are
small claim records a tester reads). The record says which confidence region the kind
reads and how it turns that region into a lower bound on the claim's own parameter:

- ``reads = "events"``: one frozen event ``S`` and the least favourable corner of its
  confidence box, a lower bound ``p_lo`` on the probability of ``S`` under the input that
  favours it and an upper bound ``q_hi`` under the other. (epsilon, delta)-DP reads
  ``ln((p_lo - delta) / q_hi)``; mu-Gaussian DP reads ``Phi^-1(p_lo) - Phi^-1(q_hi)``;
  a trade-off curve reads how far the box lies below it.
- ``reads = "cells"``: a partition of the output space into a few frozen cells and a
  simultaneous confidence region on the cell probabilities under both inputs. By the
  data-processing inequality the Rényi divergence of the cell distributions, minimised
  over the region, lower-bounds the mechanism's for every order at once
  (:mod:`dpverify.pipeline.divergence`); rho-zCDP and Rényi DP read those bounds.

The registry of kinds is :mod:`dpverify.claims.registry`: the built-in tuple
:data:`~dpverify.claims.registry.BUILTIN_KINDS`, then the ``dpverify.claim_kinds``
entry-point group (each entry point names a :class:`ClaimKind`) and
:func:`~dpverify.claims.registry.register_claim_kind`.

References
----------
M. Bun and T. Steinke, "Concentrated Differential Privacy: Simplifications, Extensions,
and Lower Bounds", TCC 2016.
I. Mironov, "Rényi Differential Privacy", CSF 2017.
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .. import _validation as check
from ..errors import InvalidClaimError
from ..support.bounds import (
    clopper_pearson_epsilon_bound,
    clopper_pearson_lower,
    clopper_pearson_upper,
    smallest_rejecting_level,
)

__all__ = [
    "ClaimKind",
    "READS",
    "ENTRY_POINT_GROUP",
    "parameter_bound_lines",
    "parameter_report_rows",
    "parameter_violation_lines",
    "one_parameter_kind",
    "claim_event_bounds",
    "claim_event_pvalue",
]

#: What a kind reads: one event's confidence box, or a partition's simultaneous region.
READS = ("events", "cells")
#: The entry-point group through which other packages declare claim kinds.
ENTRY_POINT_GROUP = "dpverify.claim_kinds"


@dataclass(frozen=True)
class ClaimKind:
    """One form of privacy claim.

    Attributes
    ----------
    name : str
        The kind's name, as :attr:`dpverify.PrivacyClaim.kind` holds it (``"dp"``,
        ``"zcdp"``, ``"renyi"``, ``"gdp"``, ``"tradeoff"``).
    title : str
        How the kind is called in prose (``"rho-zCDP"``).
    parameter : str or callable
        The name of the parameter whose lower bound an audit certifies
        (``claim_lower_bound``), e.g. ``"rho"``; or ``parameter(claim) -> str`` where the
        name depends on the claim (a Rényi claim at one order or on a curve). Read it
        through :meth:`parameter_name`.
    reads : {"events", "cells"}
        The confidence region the kind reads (see the module docstring).
    fields : tuple of str
        The names of the kind's parameters, each an identifier. A name that is a
        :class:`~dpverify.PrivacyClaim` field (``epsilon``, ``delta``, ``rho``, ``mu``,
        ``orders``, ``renyi_epsilons``, ``tradeoff_curve``) is held in that field; any other
        is a parameter of the kind's own, held in :attr:`~dpverify.PrivacyClaim.params`, read
        as ``claim.NAME``, given as ``PrivacyClaim.of(kind, NAME=value)`` or on the command
        line as ``--claim KIND:NAME=VALUE``, and required. Its values are plain data (numbers,
        strings, sequences of them), so that the claim saves to JSON and reloads equal.
    check : callable
        ``check(claim) -> dict`` validates the parameters and returns them normalised
        (parameter name to value); raises :class:`~dpverify.InvalidClaimError` (any other
        error it raises is turned into one that names the kind and the values).
    claimed_value : callable
        ``claimed_value(claim) -> float``: the value the certified bound is compared with
        (a violation is a bound strictly above it).
    describe : callable
        ``describe(claim) -> str``: the claim in a few words (``"rho=0.5 (zCDP)"``).
    event_bound : callable or None
        Kinds reading events: ``event_bound(claim, p_lo, q_hi) -> array``, the lower bound
        on the parameter certified by boxes ``[p_lo, 1] x [0, q_hi]`` (vectorised).
    orders : callable or None
        Kinds reading cells: ``orders(claim) -> array`` of Rényi orders > 1 to evaluate
        (fixed before any sample is drawn).
    cells_bound : callable or None
        Kinds reading cells: ``cells_bound(claim, orders, divergence_lower_bounds) ->
        (bound, order)``: the certified parameter bound from the Rényi lower bounds at
        ``orders``, and the order that gives it.
    epsilon_delta : callable or None
        ``epsilon_delta(claim) -> (epsilon, delta)`` for a kind whose claim *is* an
        (epsilon, delta) pair: its events are ranked and its samples sized at that pair,
        its results carry ``claimed_epsilon`` and ``claimed_delta`` (and record the claim as
        that pair), and a driver restates it as ``epsilon=``, ``delta=``. None (the default)
        for every other kind: events are ranked by ``event_bound``, samples sized as for
        ``epsilon = 1, delta = 0``, and a driver restates the claim as ``claim=``. The
        result's bounds and their wording come from the hooks below for every kind.
    audit_check : callable or None
        ``audit_check(claim) -> None`` raises :class:`~dpverify.InvalidClaimError` when an
        audit cannot test a valid claim (a parameter of 0, which no finite sample refutes);
        None: every valid claim can be audited.
    event_bounds : callable
        Kinds reading events: ``event_bounds(claim, p, n_p, q, n_q, alpha) -> (bound, recorded)``,
        the ``1 - alpha`` lower bound on the parameter certified by one event counted ``p`` times
        in ``n_p`` outputs of the input that favours it and ``q`` times in ``n_q`` of the other,
        and the bounds a result records beside it (a dict of
        :class:`~dpverify.audits.results.ValueVerdict` field names: ``epsilon_lower_bound``, and
        ``delta_lower_bound`` or ``claim_lower_bound``). The default, :func:`claim_event_bounds`,
        reads :attr:`event_bound` at the corner of the Clopper-Pearson box and records the
        pure-epsilon bound and the parameter's bound.
    event_pvalue : callable
        Kinds reading events: ``event_pvalue(claim, p, n_p, q, n_q) -> float``, the p-value of the
        claim on one pre-selected event. The default, :func:`claim_event_pvalue`, is the smallest
        level at which :attr:`event_bounds` exceeds the claim.
    records : tuple of str
        The bounds a result records beside its verdict, as
        :class:`~dpverify.audits.results.ValueVerdict` field names (the keys of
        :attr:`event_bounds`'s ``recorded``). Default: ``("epsilon_lower_bound",
        "claim_lower_bound")``, the pure-epsilon bound and the parameter's.
    report_rows : callable
        ``report_rows(result) -> list of (label, value)``: the rows of a report
        (:mod:`dpverify.extras.report`) that state what an audit result certified. The default,
        :func:`parameter_report_rows`, states the parameter's bound and the pure-epsilon bound.
    allows : callable or None
        ``allows(claim, q_hi) -> (value, formula)``: for a kind that reads events, the most the
        claim allows the probability of an event under the input it favours, given an upper
        bound ``q_hi`` on its probability under the other, and that bound as a formula in
        ``{q}`` (``"e^eps * {q} + delta"``), which a report prints beside the Clopper-Pearson
        box; None (the default): the report prints the box alone.
    inverse_blow_up : callable or None
        ``inverse_blow_up(claim) -> g``: for a kind whose claim is a trade-off curve ``f``, the
        least type I error a test of the claim can have at power ``y``, ``g(y) = inf{a : 1 - f(a)
        >= y}`` (vectorised in ``y``), or a lower bound on it; the one-run f-DP analysis
        (:func:`dpverify.one_run_fdp_audit`) reads a claim through it. None (the default): that
        analysis cannot test the kind.
    bound_lines : callable
        ``bound_lines(result) -> list of str``: the summary lines that state what an audit
        result certified (:meth:`dpverify.AuditResult.summary`). The default,
        :func:`parameter_bound_lines`, states the bound on the claim's parameter against the
        claimed value and the pure-epsilon bound from the same evidence.
    violation_lines : callable
        ``violation_lines(result, on) -> list of str``: the lines of a test assertion's message
        (:func:`dpverify.testing.violation_message`) that name the claim violated (``on`` names
        the pair, or is empty), the event or cells, and what was certified against the claim;
        the message adds the level, the samples and the seed. The default,
        :func:`parameter_violation_lines`, states the bound on the claim's parameter.
    power_note : callable or None
        ``power_note(result) -> str or None``: the note an audit that found no violation adds on
        the smallest violation its certification budget resolves
        (:func:`dpverify.audits.power.power_note`). None (the default): no such note.
    """

    name: str
    title: str
    parameter: str | Callable
    reads: str
    fields: tuple
    check: Callable
    claimed_value: Callable
    describe: Callable
    event_bound: Callable | None = None
    orders: Callable | None = None
    cells_bound: Callable | None = None
    epsilon_delta: Callable | None = None
    audit_check: Callable | None = None
    # the defaults of these are set in __post_init__ (functions defined below the class)
    event_bounds: Callable = None
    event_pvalue: Callable = None
    records: tuple = ("epsilon_lower_bound", "claim_lower_bound")
    report_rows: Callable = None
    bound_lines: Callable = None
    allows: Callable | None = None
    violation_lines: Callable = None
    power_note: Callable | None = None
    inverse_blow_up: Callable | None = None

    def __post_init__(self):
        object.__setattr__(self, "fields", _parameter_names(self.name, self.fields))
        defaults = dict(
            event_bounds=claim_event_bounds,
            event_pvalue=claim_event_pvalue,
            report_rows=parameter_report_rows,
            bound_lines=parameter_bound_lines,
            violation_lines=parameter_violation_lines,
        )
        for name, default in defaults.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, default)
        check.check_choice(
            self.reads,
            "reads",
            READS,
            InvalidClaimError,
            message=f"a claim kind reads one of {READS}, got {self.reads!r}",
        )
        needed = ("event_bound",) if self.reads == "events" else ("orders", "cells_bound")
        missing = [n for n in needed if getattr(self, n) is None]
        check.check_empty(missing, f"claim kind {self.name!r} reads {self.reads} and must define {missing}")

    def parameter_name(self, claim) -> str:
        """The name of the parameter certified for ``claim`` (:attr:`parameter`, called on it if callable)."""
        return self.parameter(claim) if callable(self.parameter) else self.parameter

    def as_epsilon_delta(self, claim) -> tuple | None:
        """``claim`` as its ``(epsilon, delta)`` pair where the kind's claim is one (:attr:`epsilon_delta`); None
        for every other kind."""
        return None if self.epsilon_delta is None else self.epsilon_delta(claim)

    def ranking_claim(self, claim):
        """The claim whose :attr:`event_bound` ranks candidate events for an audit of ``claim``: the claim itself
        for a kind that reads events in its own parameter; None where events are ranked by the bound on epsilon
        at the claimed delta (a kind whose claim is an (epsilon, delta) pair, whose ``event_bound`` is that bound,
        and a kind that reads cells, whose pairs a search ranks on pure epsilon)."""
        return claim if self.reads == "events" and self.epsilon_delta is None else None


def one_parameter_kind(name: str, title: str, parameter: str, label: str, *, reads: str, **hooks) -> ClaimKind:
    """The record of a kind stated by one number, its certified parameter (``rho``, ``mu``).

    Its ``fields`` are that parameter, its claimed value is the parameter's value and the claim prints
    as ``"rho=0.5 (zCDP)"`` (``label`` in the brackets). Unless ``hooks`` give their own, ``check`` takes a
    finite number >= 0 and ``audit_check`` refuses 0 (no finite sample tests a claim of 0). ``hooks`` are
    the record's other fields (``event_bound``, or ``orders`` and ``cells_bound``, ...).
    """

    def value(claim):
        return getattr(claim, parameter)

    defaults = dict(
        check=lambda claim: {parameter: check.check_claimed_epsilon(value(claim), parameter)},
        audit_check=lambda claim: check.check_audit_positive(value(claim), parameter),
    )
    return ClaimKind(
        name=name,
        title=title,
        parameter=parameter,
        reads=reads,
        fields=(parameter,),
        claimed_value=value,
        describe=lambda claim: f"{parameter}={value(claim):g} ({label})",
        **{**defaults, **hooks},
    )


def claim_event_bounds(claim, p, n_p, q, n_q, alpha) -> tuple:
    """One event's certified bound on the claim's parameter (:attr:`ClaimKind.event_bounds`'s default): the
    kind's ``event_bound`` at the least favourable corner of the ``1 - alpha`` Clopper-Pearson box; recorded
    beside it, the pure-epsilon bound of the same event."""
    p_lo = clopper_pearson_lower(p, n_p, alpha)
    q_hi = clopper_pearson_upper(q, n_q, alpha)
    kind = claim.kind_record
    bound = float(check.check_kind_bound(kind, "event_bound", kind.event_bound(claim, p_lo, q_hi)))
    epsilon = float(clopper_pearson_epsilon_bound(p, n_p, q, n_q, alpha))
    return bound, {"epsilon_lower_bound": epsilon, "claim_lower_bound": bound}


def claim_event_pvalue(claim, count_p, n_p, count_q, n_q, *, iterations: int = 80) -> float:
    """P-value of the claim on one pre-selected event (:attr:`ClaimKind.event_pvalue`'s default): the smallest
    level at which the event's bound on the claim's parameter exceeds it (bisection on ``log(alpha)``; the
    boxes, hence the rejection regions, are nested in the level)."""
    claimed, bounds = claim.parameter, claim.kind_record.event_bounds
    return smallest_rejecting_level(
        lambda log_alpha: bounds(claim, count_p, n_p, count_q, n_q, math.exp(log_alpha))[0] > claimed,
        iterations=iterations,
    )


def parameter_bound_lines(result) -> list[str]:
    """The summary line of a certified bound on the claim's parameter (:attr:`ClaimKind.bound_lines`'s default):
    the bound against the claimed value, and the pure-epsilon bound the same evidence certifies."""
    claim, confidence = result.audited_claim, 100 * (1 - result.alpha)
    return [
        f"certified lower bound on {claim.parameter_name}: {result.claim_lower_bound:.4g} against the claimed "
        f"{claim.parameter:g} ({confidence:g}% confidence); on pure epsilon from the same "
        f"evidence: {result.epsilon_lower_bound:.4g}"
    ]


def parameter_report_rows(result) -> list:
    """A report's rows on a certified bound on the claim's parameter (:attr:`ClaimKind.report_rows`'s default)."""
    claim = result.audited_claim
    return [
        (
            f"certified lower bound on {claim.parameter_name}",
            f"{result.claim_lower_bound:.6g} against the claimed {claim.parameter:g} "
            f"(confidence {1 - result.alpha:.10g})",
        ),
        ("certified lower bound on pure epsilon (same evidence)", f"{result.epsilon_lower_bound:.6g}"),
    ]


def parameter_violation_lines(result, on: str) -> list[str]:
    """A test assertion's lines on a violated claim (:attr:`ClaimKind.violation_lines`'s default): the claim, the
    event or cells, and the certified bound on the claim's parameter against the claimed value."""
    claim = result.audited_claim
    where = f"  cells: {result.partition}" if result.partition is not None else f"  event S: {result.event}"
    return [
        f"mechanism violates its {claim.kind_record.title} claim ({claim}){on}",
        where,
        f"  certified: {claim.parameter_name} >= {result.claim_lower_bound:.6g} > claimed {claim.parameter:g}",
    ]


def _parameter_names(kind: str, names) -> tuple:
    """``names`` (a kind's ``fields``) as a tuple, if they are distinct identifiers not starting with '_'."""
    valid = isinstance(names, (tuple, list)) and all(
        isinstance(n, str) and n.isidentifier() and not n.startswith("_") for n in names
    )
    check.check_given(
        valid and len(set(names)) == len(names) or None,
        f"claim kind {kind!r}: fields must be a tuple of distinct parameter names (identifiers not starting "
        f"with '_'), got {names!r}",
    )
    return tuple(names)
