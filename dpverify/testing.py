"""Privacy assertions for test suites (pytest, unittest, Hypothesis).

- :func:`assert_dp` audits one pair of neighbouring inputs and raises an
  :class:`AssertionError` naming the event, both probabilities and the
  certified bound when the claim is violated.
- :func:`audit_pairs` audits many pairs (say, drawn from
  :mod:`dpverify.strategies`) with a multiple-testing correction across them.
- :func:`per_example_alpha` gives the per-example level for an assertion
  inside Hypothesis' ``@given``.

Why the correction (Holm 1979): each audit of a correct mechanism raises a false alarm with
probability up to ``alpha``. A search over ``m`` pairs raises at least one
with probability up to ``m * alpha``: ``@given`` with 100 examples and an
``alpha = 0.05`` assertion fails on correct code in most runs. Two remedies,
both with family-wise false-alarm rate at most ``alpha``:

1. **Bonferroni inside @given.** Assert each example at
   ``per_example_alpha(alpha, n_examples)`` = ``alpha / n_examples``, with
   ``n_examples`` the most examples Hypothesis may run (``max_examples`` plus
   the ``@example`` count). Only the examples run before the first failure
   count: shrinking happens after a failure, so it cannot add false alarms.
2. **Holm over a drawn list.** Draw the pairs first
   (:func:`dpverify.strategies.draw_pairs`), audit each with its own seed and
   adjust the p-values with Holm's step-down method
   (``statsmodels.stats.multitest.multipletests(method="holm")``), which is
   uniformly more powerful than Bonferroni and valid under any dependence.

Examples
--------
>>> from dpverify.testing import assert_dp
>>> from dpverify.zoo import RandomizedResponse
>>> result = assert_dp(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=1)
>>> result.violation
False
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from statsmodels.stats.multitest import multipletests

from . import _validation as check
from ._results import dataclass_to_dict
from .audit import DEFAULT_SAMPLES, AuditResult, audit
from .errors import InvalidParameterError
from .sampling import children as spawn
from .sampling import resolve_seed

__all__ = [
    "assert_dp",
    "audit_pairs",
    "PairAuditResult",
    "per_example_alpha",
    "violation_message",
]

#: Default level of :func:`assert_dp`: the per-test false-alarm rate a suite
#: of up to ~100 statistical assertions needs to fail on correct code with
#: probability below 1e-4 (OpenDP's sampler tests use the same).
DEFAULT_TEST_ALPHA = 1e-6


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def violation_message(result: AuditResult, x=None, x_prime=None) -> str:
    """The assertion message of :func:`assert_dp`: event, both probabilities, bound, replay seed."""
    ev = result.event
    claim = f"epsilon={result.claimed_epsilon:g}" + (
        f", delta={result.claimed_delta:g}" if result.claimed_delta else ""
    )
    on = ""
    if x is not None or x_prime is not None:
        on = f" on x={_short(x)}, x'={_short(x_prime)}"
    more, less = ("x", "x'") if ev.direction == "x" else ("x'", "x")
    return "\n".join(
        [
            f"mechanism violates its ({claim})-DP claim{on}",
            f"  event S: {ev.description} [{ev.family}]",
            f"  P[M(x) in S] ~ {ev.probability_x:.6g} ({ev.count_x}/{ev.n_certification}), "
            f"P[M(x') in S] ~ {ev.probability_x_prime:.6g} ({ev.count_x_prime}/{ev.n_certification})",
            f"  certified: epsilon >= {result.epsilon_lower_bound:.6g} > claimed {result.claimed_epsilon:g} "
            f"(ln P[M({more}) in S]/P[M({less}) in S]); delta at the claimed epsilon >= "
            f"{result.delta_lower_bound:.6g}",
            f"  confidence {1 - result.alpha:.10g} (alpha={result.alpha:g}, p-value {result.pvalue:.3g}); "
            f"{result.n_samples} samples per input",
            f"  replay: seed={result.seed!r}",
        ]
    )


def assert_dp(
    mechanism,
    x,
    x_prime,
    *,
    epsilon,
    delta=0.0,
    n_samples: int = DEFAULT_SAMPLES,
    alpha: float = DEFAULT_TEST_ALPHA,
    seed=None,
    sequential: bool = False,
    **audit_options,
) -> AuditResult:
    """Assert that ``mechanism`` keeps its (epsilon, delta)-DP claim on ``x ~ x_prime``.

    Runs :func:`dpverify.audit` (or :func:`dpverify.sequential_audit` with
    ``sequential=True``, ``n_samples`` then being the budget) and raises when
    it certifies a violation. A correct mechanism fails with probability at
    most ``alpha``; a broken one passes with probability depending on
    ``n_samples`` (size it so the violation you care about is found with
    power ~1 even at the tiny default alpha).

    Parameters
    ----------
    mechanism, x, x_prime, epsilon, delta, n_samples
        As for :func:`dpverify.audit`.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the audit; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result. Pass a
        fixed ``seed`` in a test suite so every run audits the same samples.
    alpha : float, default 1e-6
        False-alarm rate of the assertion.
    sequential : bool, default False
        Stop at the first certified violation (fewer samples on broken code).
    **audit_options
        Passed on (``executor``, ``event_families``, ``n_selection``, ...).

    Returns
    -------
    AuditResult
        The audit, when no violation is certified.

    Raises
    ------
    AssertionError
        With the event, both estimated probabilities (and counts), the
        certified lower bounds, the confidence and the replay seed.
    """
    __tracebackhide__ = True  # pytest shows the caller's line
    if sequential:
        from .sequential import sequential_audit as run
    else:
        run = audit
    result = run(
        mechanism,
        x,
        x_prime,
        epsilon=epsilon,
        delta=delta,
        n_samples=n_samples,
        alpha=alpha,
        seed=seed,
        **audit_options,
    )
    if result.violation:
        raise AssertionError(violation_message(result, x, x_prime))
    return result


def per_example_alpha(alpha: float, n_examples: int) -> float:
    """Bonferroni level for one of ``n_examples`` assertions whose family-wise rate is ``alpha``.

    Use it for :func:`assert_dp` inside ``@given``, with ``n_examples`` the
    most examples Hypothesis may run (``settings.max_examples`` plus the
    ``@example`` decorators).

    Examples
    --------
    >>> per_example_alpha(1e-6, 40)
    2.5e-08
    """
    alpha = check.check_alpha(alpha)
    n_examples = check.check_positive_int(n_examples, "n_examples")
    return alpha / n_examples


@dataclass(frozen=True)
class PairAuditResult:
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
        Index of the pair with the largest certified epsilon lower bound.
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

    def to_dict(self) -> dict:
        """The fields, and the overall ``violation``, as JSON-serialisable plain data."""
        return dataclass_to_dict(self, violation=self.violation)


def audit_pairs(
    mechanism,
    pairs,
    *,
    epsilon,
    delta=0.0,
    n_samples: int = DEFAULT_SAMPLES,
    alpha: float = 0.05,
    seed=None,
    method: str = "holm",
    **audit_options,
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
        The neighbouring pairs to try (e.g. from :func:`dpverify.strategies.draw_pairs`).
    epsilon, delta, n_samples
        The claim, and samples per input *per pair*.
    alpha : float, default 0.05
        Family-wise false-alarm rate over all pairs.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the whole search; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    method : str, default "holm"
        A family-wise method of ``multipletests``: ``"holm"`` or ``"bonferroni"``
        (others, like FDR methods, do not bound the family-wise rate and are refused).
    **audit_options
        Passed on to :func:`dpverify.audit`.

    Returns
    -------
    PairAuditResult

    Raises
    ------
    InvalidParameterError
        No pairs, a pair that is not a 2-tuple, or a method that does not
        control the family-wise error rate.
    """
    alpha = check.check_alpha(alpha)
    family_wise = ("holm", "bonferroni", "sidak", "holm-sidak", "simes-hochberg", "hommel")
    if method not in family_wise:
        raise InvalidParameterError(
            f"method must control the family-wise error rate, one of {family_wise}; got {method!r}"
        )
    pairs = list(pairs)
    if not pairs:
        raise InvalidParameterError("audit_pairs needs at least one (x, x_prime) pair")
    for i, pair in enumerate(pairs):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise InvalidParameterError(f"pairs[{i}] must be an (x, x_prime) pair, got {_short(pair)}")
    sequence, entropy = resolve_seed(seed)
    # Plain integer seeds per pair (from spawned children), so that each
    # result's recorded seed replays that pair's audit on its own.
    children = [[int(v) for v in child.generate_state(4)] for child in spawn(sequence, len(pairs))]
    results = tuple(
        audit(
            mechanism,
            x,
            x_prime,
            epsilon=epsilon,
            delta=delta,
            n_samples=n_samples,
            alpha=alpha,
            seed=child,
            **audit_options,
        )
        for (x, x_prime), child in zip(pairs, children)
    )
    pvalues = np.array([r.pvalue for r in results], dtype=float)
    reject, adjusted, _, _ = multipletests(pvalues, alpha=alpha, method=method)
    bounds = [r.epsilon_lower_bound for r in results]
    worst = int(np.argmax(bounds)) if not math.isnan(max(bounds)) else 0
    return PairAuditResult(
        results=results,
        adjusted_pvalues=tuple(float(p) for p in adjusted),
        violations=tuple(bool(v) for v in reject),
        alpha=alpha,
        method=method,
        worst=worst,
        seed=entropy,
    )
