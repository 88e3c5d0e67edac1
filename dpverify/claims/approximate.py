"""(epsilon, delta)-differential privacy, the kind every audit has read since the start.

A claim ``P[M(x) in S] <= e^epsilon P[M(x') in S] + delta`` for every event ``S`` and
neighbours ``x ~ x'`` (Dwork and Roth 2014, Definition 2.4). One frozen event certifies
``ln((p_lo - delta) / q_hi)`` (Bichsel et al. 2021), the bound the drivers have always
reported as ``epsilon_lower_bound``.

As a trade-off curve, (epsilon, delta)-DP is ``f(a) = max(0, 1 - delta - e^epsilon a,
e^-epsilon (1 - delta - a))`` (Dong, Roth and Su 2022, Section 2.3); the one-run f-DP
analysis (:func:`dpverify.one_run_fdp_audit`) reads it through its inverse blow-up
:func:`dp_inverse_blow_up`.

References
----------
C. Dwork and A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014.
B. Bichsel, S. Steffen, I. Bogunovic and M. Vechev, "DP-Sniper: Black-Box Discovery of
Differential Privacy Violations using Classifiers", IEEE S&P 2021.
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validation as check
from ..support.bounds import claim_pvalue, clopper_pearson_delta_bound, clopper_pearson_epsilon_bound
from ..support.power import epsilon_delta_power_note
from .kinds import ClaimKind

__all__ = ["APPROXIMATE_DP", "dp_inverse_blow_up"]


def dp_inverse_blow_up(y, epsilon, delta):
    """``max(0, (y - delta) e^-epsilon, 1 - delta - e^epsilon (1 - y))``: the least type I error of a test
    with power ``y`` under (epsilon, delta)-DP (``1 - f(a) >= y`` solved for ``a``); vectorised in ``y``."""
    y = np.asarray(y, dtype=float)
    grow = math.exp(min(epsilon, 700.0))
    return np.maximum(0.0, np.maximum((y - delta) / grow, 1.0 - delta - grow * (1.0 - y)))


def _check(claim) -> dict:
    check.check_given(
        claim.epsilon,
        "an (epsilon, delta) claim needs epsilon: PrivacyClaim(epsilon, delta); for another kind use "
        "PrivacyClaim.zcdp(rho), .renyi(alpha, epsilon), .gdp(mu) or .tradeoff(f)",
    )
    epsilon = check.check_claimed_epsilon(claim.epsilon)
    return {"epsilon": epsilon, "delta": check.check_delta(claim.delta)}


def _describe(claim) -> str:
    return f"eps={claim.epsilon:g}" + (f", delta={claim.delta:g}" if claim.delta else "")


def _event_bound(claim, p_lo, q_hi):
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.log(np.maximum(np.asarray(p_lo, dtype=float) - claim.delta, 0.0)) - np.log(q_hi)
    return np.maximum(np.nan_to_num(value, nan=0.0, neginf=0.0), 0.0)


def _event_bounds(claim, p, n_p, q, n_q, alpha) -> tuple:
    """The closed-form Clopper-Pearson bounds of one event: epsilon at the claimed delta, and beside it the
    delta needed at the claimed epsilon (Bichsel et al. 2021)."""
    epsilon = float(clopper_pearson_epsilon_bound(p, n_p, q, n_q, alpha, claim.delta))
    delta = float(clopper_pearson_delta_bound(p, n_p, q, n_q, alpha, claim.epsilon))
    return epsilon, {"epsilon_lower_bound": epsilon, "delta_lower_bound": delta}


def _bound_lines(result) -> list[str]:
    """The certified epsilon at the claimed delta, and the delta needed at the claimed epsilon."""
    return [
        f"certified lower bound on epsilon: {result.epsilon_lower_bound:.4g} "
        f"({100 * (1 - result.alpha):g}% confidence); "
        f"lower bound on delta at eps={result.claimed_epsilon:g}: {result.delta_lower_bound:.3g}"
    ]


def _report_rows(result) -> list:
    """A report's rows: the certified epsilon at the claimed delta, the delta needed at the claimed epsilon."""
    return [
        ("certified lower bound on epsilon", f"{result.epsilon_lower_bound:.6g} (confidence {1 - result.alpha:.10g})"),
        ("lower bound on delta at the claimed epsilon", f"{result.delta_lower_bound:.6g}"),
    ]


def _violation_lines(result, on: str) -> list[str]:
    """A test assertion's lines: the claim, the event and both its probabilities, the certified epsilon and the
    delta needed at the claimed epsilon."""
    ev, claim = result.event, result.audited_claim
    stated = f"epsilon={claim.epsilon:g}" + (f", delta={claim.delta:g}" if claim.delta else "")
    more, less = ("x", "x'") if ev.direction == "x" else ("x'", "x")
    return [
        f"mechanism violates its ({stated})-DP claim{on}",
        f"  event S: {ev.description} [{ev.family}]",
        f"  P[M(x) in S] ~ {ev.probability_x:.6g} ({ev.count_x}/{ev.n_certification}), "
        f"P[M(x') in S] ~ {ev.probability_x_prime:.6g} ({ev.count_x_prime}/{ev.n_certification})",
        f"  certified: epsilon >= {result.epsilon_lower_bound:.6g} > claimed {claim.epsilon:g} "
        f"(ln P[M({more}) in S]/P[M({less}) in S]); delta at the claimed epsilon >= "
        f"{result.delta_lower_bound:.6g}",
    ]


def _power_note(result) -> str:
    """The smallest excess over the claimed epsilon (and delta) that the result's certification budget resolves."""
    n = int(result.event.n_certification)
    return epsilon_delta_power_note(n, result.claimed_epsilon, result.claimed_delta, result.alpha)


APPROXIMATE_DP = ClaimKind(
    name="dp",
    title="(epsilon, delta)-DP",
    parameter="epsilon",
    reads="events",
    fields=("epsilon", "delta"),
    check=_check,
    claimed_value=lambda claim: claim.epsilon,
    describe=_describe,
    event_bound=_event_bound,
    epsilon_delta=lambda claim: (claim.epsilon, claim.delta),
    audit_check=lambda claim: check.check_epsilon(claim.epsilon),
    event_bounds=_event_bounds,
    event_pvalue=lambda claim, p, n_p, q, n_q: claim_pvalue(p, n_p, q, n_q, claim.epsilon, claim.delta),
    records=("epsilon_lower_bound", "delta_lower_bound"),
    report_rows=_report_rows,
    bound_lines=_bound_lines,
    violation_lines=_violation_lines,
    power_note=_power_note,
    allows=lambda claim, q_hi: (math.exp(claim.epsilon) * q_hi + claim.delta, "e^eps * {q} + delta"),
    inverse_blow_up=lambda claim: lambda y: dp_inverse_blow_up(y, claim.epsilon, claim.delta),
)
