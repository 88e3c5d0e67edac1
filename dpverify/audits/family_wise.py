"""Auditing many neighbouring pairs with a family-wise correction (Holm 1979).

Each audit of a correct mechanism raises a false alarm with probability up to
``alpha``; a list of ``m`` pairs raises at least one with probability up to
``m * alpha``. :func:`audit_pairs` audits each pair with its own seed and
adjusts the p-values with a family-wise method of
``statsmodels.stats.multitest.multipletests`` (Holm's step-down method by
default, uniformly more powerful than Bonferroni and valid under any
dependence), so the whole list is judged at level ``alpha``.

References
----------
S. Holm. "A Simple Sequentially Rejective Multiple Test Procedure."
Scandinavian Journal of Statistics 6(2), 1979.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .. import _validation as check
from .._results import Result, dataclass_to_dict
from ..errors import NotReplayableError, ReplayMismatchError
from ..neighbours.domain import check_declared_domain
from ..options import DEFAULT_SAMPLES, AuditOptions
from .drivers import Driver, ReplayedByItsDriver
from .fingerprint import check_source, with_notes
from .pair import DRIVER as AUDIT
from .pair import audit
from .plan import build_plan, claim_arguments, plan_of_result
from .results import AuditResult

__all__ = ["audit_pairs", "PairAuditResult"]


@dataclass(frozen=True)
class PairAuditResult(ReplayedByItsDriver, Result):
    """Outcome of :func:`audit_pairs`.

    Attributes
    ----------
    results : tuple of AuditResult
        One audit per pair, in order (each at the unadjusted ``alpha``: their
        own ``violation`` flags are *not* corrected for the search).
    adjusted_pvalues : tuple of float
        P-values adjusted for the number of pairs (``method``).
    violations : tuple of bool
        ``adjusted_pvalue <= alpha``: the pairs on which a violation is certified
        after the correction.
    alpha : float
        Family-wise false-alarm rate.
    method : str
        The ``multipletests`` correction (``"holm"`` by default).
    worst : int
        Index of the pair with the largest certified lower bound on the claim's parameter (epsilon for
        an (epsilon, delta) claim).
    seed : int or list of int
        Replays the whole search.
    """

    results: tuple
    adjusted_pvalues: tuple
    violations: tuple
    alpha: float
    method: str
    worst: int
    seed: object = None

    @property
    def violation(self) -> bool:
        """True when the claim is violated on at least one pair (family-wise rate <= alpha)."""
        return any(self.violations)

    @property
    def worst_result(self) -> AuditResult:
        return self.results[self.worst]

    _DERIVED = ("violation",)

    def to_dict(self) -> dict:
        """The fields, and the overall ``violation``, as JSON-serialisable plain data."""
        return dataclass_to_dict(self, violation=self.violation)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["results"] = tuple(AuditResult.from_dict(r) for r in data["results"])
        data["adjusted_pvalues"] = tuple(float(p) for p in data["adjusted_pvalues"])
        data["violations"] = tuple(bool(v) for v in data["violations"])
        return data

    def contradictions(self) -> list:
        """Those of every result, and a pair's ``violations`` entry other than its adjusted p-value <= alpha
        (the pairs' own results are checked as they are read)."""
        found = super().contradictions()
        if found:
            return found
        if not 0 <= self.worst < len(self.results):
            found.append(f"worst={self.worst} is not one of the {len(self.results)} pairs")
        flags = [bool(p <= self.alpha) for p in self.adjusted_pvalues]
        if list(self.violations) != flags or len(flags) != len(self.results):
            found.append(
                f"violations={list(self.violations)} but the adjusted p-values {list(self.adjusted_pvalues)} at "
                f"alpha={self.alpha!r} give {flags} over {len(self.results)} pairs"
            )
        return found

    def summary(self) -> str:
        """The family-wise verdict, each pair's adjusted p-value, and the worst pair's audit."""
        verdict = "VIOLATION" if self.violation else "no violation found"
        lines = [
            f"verdict: {verdict} over {len(self.results)} pairs at family-wise alpha={self.alpha:g} "
            f"({self.method}); seed {self.seed}",
            *(
                f"pair {i}: adjusted p-value {p:.3g}, {_bound_words(r)}" + (" (violation)" if v else "")
                for i, (r, p, v) in enumerate(zip(self.results, self.adjusted_pvalues, self.violations))
            ),
            f"worst pair {self.worst}:",
            *("  " + line for line in self.worst_result.summary().split("\n")),
        ]
        return "\n".join(lines)


def _bound_words(result: AuditResult) -> str:
    """A pair's certified bound in the claim's own parameter, the one the worst pair is chosen by (the epsilon
    bound in a result saved before the parameter's bound was recorded)."""
    if result.claim_lower_bound is None:
        return f"lower bound on epsilon {result.epsilon_lower_bound:.4g}"
    return f"lower bound on {result.audited_claim.parameter_name} {result.claim_lower_bound:.4g}"


def audit_pairs(
    mechanism,
    pairs,
    *,
    epsilon=None,
    delta=None,
    claim=None,
    n_samples: int = DEFAULT_SAMPLES,
    seed=None,
    method: str = "holm",
    options: AuditOptions | None = None,
    **option_fields,
) -> PairAuditResult:
    """Audit a claim on many neighbouring pairs, correcting for the search.

    Each pair is audited with its own seed, drawn from a spawned child of
    ``seed`` (``SeedSequence.spawn``) and recorded in its result, at level ``alpha`` and the p-values are adjusted with
    ``statsmodels.stats.multitest.multipletests(method=method)``. With the
    default Holm correction the probability that a correct mechanism shows a
    violation on *any* pair is at most ``alpha``, whatever the pairs and however
    they were chosen -- as long as they were chosen before these audits ran.

    Parameters
    ----------
    mechanism : callable
        As for :func:`dpverify.audit`.
    pairs : sequence of (x, x_prime)
        The neighbouring pairs to try (e.g. from :func:`dpverify.testing.strategies.draw_pairs`).
    epsilon, delta, claim, n_samples
        The claim (as for :func:`dpverify.audit`: ``claim`` of any kind), and samples per input
        *per pair*.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the whole search; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.pipeline.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    method : str, default "holm"
        A method of ``multipletests`` that bounds the family-wise error rate:
        ``"holm"``, ``"bonferroni"``, ``"sidak"``, ``"holm-sidak"``,
        ``"simes-hochberg"`` or ``"hommel"`` (FDR methods do not bound it and are refused).
    options : AuditOptions, optional
        As for :func:`dpverify.audit`; its ``alpha`` (default 0.05) is the
        family-wise false-alarm rate over all pairs, and each pair's audit runs
        at the unadjusted ``alpha``.
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword.

    Returns
    -------
    PairAuditResult

    Raises
    ------
    InvalidParameterError
        No pairs, a pair that is not a 2-tuple, or a method that does not
        control the family-wise error rate.
    OutsideDomainError
        A pair outside the mechanism's declared input domain (checked for every pair before any draw).
    """
    # the mechanism, the claim and the sizes: each pair's audit checks its own
    plan = build_plan(DRIVER, None, None, None, None, seed, options, option_fields, sizes=None)
    check.check_family_wise(method)
    pairs = check.check_pairs(pairs)
    for i, (x, x_prime) in enumerate(pairs):  # every pair before the first is drawn
        check_declared_domain(mechanism, x, x_prime, where=f" (pair {i} of the pairs given)")
    # Plain integer seeds per pair (from spawned children), so that each
    # result's recorded seed replays that pair's audit on its own.
    claimed = dict(epsilon=epsilon, delta=delta, claim=claim, n_samples=n_samples, options=plan.options)
    results = tuple(
        audit(mechanism, x, x_prime, seed=child, **claimed)
        for (x, x_prime), child in zip(pairs, plan.pair_seeds(len(pairs)))
    )
    pvalues = np.array([r.pvalue for r in results], dtype=float)
    from statsmodels.stats.multitest import multipletests  # here: statsmodels loads pandas (0.2 s)

    reject, adjusted, _, _ = multipletests(pvalues, alpha=plan.alpha, method=method)
    bounds = [r.claim_lower_bound for r in results]  # the epsilon bound for an (epsilon, delta) claim
    worst = int(np.argmax(bounds)) if not math.isnan(max(bounds)) else 0
    return PairAuditResult(
        results=results,
        adjusted_pvalues=tuple(float(p) for p in adjusted),
        violations=tuple(bool(v) for v in reject),
        alpha=plan.alpha,
        method=method,
        worst=worst,
        seed=plan.seed,
    )


def _replay(result, *inputs, executor=None, progress=False):
    if result.seed is None:
        raise NotReplayableError("this result has no seed: there is nothing to replay")
    first = plan_of_result(result.results[0], AUDIT, executor=executor, progress=progress)
    mechanism, pairs = DRIVER.replay_inputs(result, inputs)
    pairs = list(pairs)
    if len(pairs) != len(result.results):
        raise ReplayMismatchError(
            f"cannot replay this PairAuditResult on {len(pairs)} pairs: it audited {len(result.results)}; "
            "pass the pairs it audited, in their order, or run dpverify.audit_pairs anew"
        )
    notes = ()
    for i, (pair, inner) in enumerate(zip(pairs, result.results)):
        x, x_prime = pair
        notes += check_source(inner, plan_of_result(inner, AUDIT), mechanism, x, x_prime, where=f"pair {i}")
    plan = replace(first, options=replace(first.options, alpha=result.alpha), seed=result.seed)
    again = audit_pairs(mechanism, pairs, n_samples=first.n_samples, method=result.method, **claim_arguments(plan))
    return with_notes(again, notes)


#: One child of the run's seed per pair, spawned when the pairs are known (:meth:`AuditPlan.pair_seeds`).
DRIVER = Driver("audit_pairs", PairAuditResult, inputs=("mechanism", "pairs"), replay=_replay)
