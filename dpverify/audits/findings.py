"""What kind of finding an audit made: a violation in the values, a rounding leak, or none.

A floating-point event family (Mironov 2012; :mod:`dpverify.events.floating`) can
decide an audit whose outputs carry no rounding marks at all: a mantissa code
that includes the binade (exponent) of the output is also a coarse *value*
bucket, so it can certify a bound that the value events certify as well, or
better. Saying "the implementation leaks through its rounding" then would be
wrong: the bound says nothing about the rounding, and a wrong noise scale
would read as a float leak.

The audit therefore certifies the best *value* events on the same
certification samples (the :class:`~dpverify.ValueVerdict`, its own
Bonferroni correction at the audit's level; the verdict's false-alarm rate
is untouched, since the value events never enter it) and calls a violation a
rounding leak only when the value events certify no violation, or certify
less than :data:`ROUNDING_SHARE` of the floating-point event's excess over
the claimed epsilon. The kinds (:data:`FINDINGS`):

``"none"``
    No violation found.
``"value"``
    A violation that the output values show: certified by a value event, or
    by a floating-point event while the value events on the same samples
    certify a comparable violation.
``"rounding"``
    A floating-point event certifies a violation that the value events on the
    same samples do not, or certify materially less of: the implementation
    leaks through its rounding.
``"floating-point"``
    A floating-point event certifies a violation and no value event could be
    certified on the same samples, so a rounding leak cannot be told from a
    wrong noise scale.

The chance of a ``"rounding"`` (or any non-``"none"``) finding on a mechanism
that keeps its claim is at most the verdict's ``alpha``: every such finding
requires ``violation``.

References
----------
I. Mironov, "On significance of the least significant bits for differential
privacy", ACM CCS 2012.
"""

from __future__ import annotations

from ..events import families_of_role
from ..pipeline.partition import SCORE_CELLS

__all__ = ["FINDINGS", "ROUNDING_SHARE", "classify_finding", "finding_lines"]

#: The kinds of finding, in the order of the module docstring.
FINDINGS = ("none", "value", "rounding", "floating-point")
#: A floating-point violation is a rounding leak when the value events on the same samples certify
#: less than this share of its excess over the claimed epsilon (or no violation at all).
ROUNDING_SHARE = 0.5


def classify_finding(
    *, violation: bool, family: str, epsilon_lower_bound: float, claimed_epsilon: float, value_verdict
) -> str:
    """The kind of finding (one of :data:`FINDINGS`) of an audit's verdict.

    Parameters
    ----------
    violation : bool
        The audit's verdict.
    family : str
        The event family of the certified event.
    epsilon_lower_bound, claimed_epsilon : float
        The certified bound and the claim (for a claim of another kind, its parameter's
        bound and value: rho, mu...).
    value_verdict : ValueVerdict or None
        The verdict of the value events on the same samples (None when none was certified).

    Returns
    -------
    str
    """
    if not violation:
        return "none"
    if family not in families_of_role("implementation"):
        return "value"
    if value_verdict is None:
        return "floating-point"
    if not value_verdict.violation:
        return "rounding"
    float_excess = epsilon_lower_bound - claimed_epsilon
    value_excess = _claim_bound(value_verdict) - claimed_epsilon
    return "rounding" if value_excess < ROUNDING_SHARE * float_excess else "value"


def finding_lines(result) -> list[str]:
    """Lines on the event family behind the bound and the value verdict, for summaries and reports.

    Empty when a value event decided (the event line already names its family).
    """
    family = result.event.family
    if family not in families_of_role("implementation"):
        return []
    v = result.value_verdict
    bound = _claim_bound(result)
    finding = getattr(result, "finding", None) or classify_finding(
        violation=result.violation,
        family=family,
        epsilon_lower_bound=result.epsilon_lower_bound,
        claimed_epsilon=result.claimed_epsilon,
        value_verdict=v,
    )
    if finding == "rounding":
        values = (
            "the value events on the same samples certify no violation"
            if v is None or not v.violation
            else f"the value events on the same samples only {_claim_bound(v):.4g} (the values violate the claim too)"
        )
        lines = [
            f"the implementation leaks through its rounding: a floating-point event ({family!r}) certifies "
            f"{bound:.4g}; {values}"
        ]
    elif finding == "floating-point":
        lines = [
            f"the violation comes from a floating-point event ({family!r}); no value event could be "
            "certified on the same samples, so a rounding leak cannot be told from a wrong noise scale"
        ]
    else:
        lines = [f"the bound comes from the floating-point event family {family!r}"]
    if v is not None:
        verdict = "VIOLATION" if v.violation else "no violation found"
        lines.append(
            f"value events only (same samples): {verdict}, certified bound {_claim_bound(v):.4g} "
            f"(p-value {v.pvalue:.3g}); {_event_text(v.event)}"
        )
    return lines


def _event_text(event) -> str:
    """The certified event in words; cells of a score by their description (no one event's probabilities)."""
    if event.family == SCORE_CELLS:
        return f"cells: {event.description}"
    return f"event: {event}"


def _claim_bound(verdict) -> float:
    """A result's or value verdict's certified bound in the claim's own parameter (``claim_lower_bound``; the epsilon
    bound of an (epsilon, delta) verdict saved before value verdicts recorded it)."""
    bound = getattr(verdict, "claim_lower_bound", None)
    return verdict.epsilon_lower_bound if bound is None else bound
