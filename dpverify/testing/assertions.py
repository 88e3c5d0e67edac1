"""Privacy assertions for test suites (pytest, unittest, Hypothesis).

- :func:`assert_dp` audits one pair of neighbouring inputs and raises an
  :class:`AssertionError` naming the event, both probabilities and the
  certified bound when the claim is violated.
- :func:`dpverify.audit_pairs` audits many pairs (say, drawn from
  :mod:`dpverify.testing.strategies`) with a multiple-testing correction across them.
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
   (:func:`dpverify.testing.strategies.draw_pairs`), audit each with its own seed and
   adjust the p-values with Holm's step-down method
   (``statsmodels.stats.multitest.multipletests(method="holm")``), which is
   uniformly more powerful than Bonferroni and valid under any dependence.

Examples
--------
>>> from dpverify.testing import assert_dp
>>> from dpverify.mechanisms.textbook import RandomizedResponse
>>> result = assert_dp(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=1)
>>> result.violation
False
"""

from __future__ import annotations

from .. import _validation as check
from .._results import short_repr
from ..audits.pair import audit
from ..audits.results import AuditResult
from ..options import DEFAULT_SAMPLES, AuditOptions, resolve_options

__all__ = ["assert_dp", "per_example_alpha", "violation_message"]

#: Default level of :func:`assert_dp`: the per-test false-alarm rate a suite
#: of up to ~100 statistical assertions needs to fail on correct code with
#: probability below 1e-4 (OpenDP's sampler tests use the same).
DEFAULT_TEST_ALPHA = 1e-6


def violation_message(result: AuditResult, x=None, x_prime=None) -> str:
    """The assertion message of :func:`assert_dp`: the claim, the event (or cells) and the bound certified against
    it, in the words of the claim's kind (:attr:`dpverify.claims.ClaimKind.violation_lines`), then the level, the
    samples and the replay seed."""
    on = ""
    if x is not None or x_prime is not None:
        on = f" on x={short_repr(x)}, x'={short_repr(x_prime)}"
    return "\n".join(
        [
            *result.audited_claim.kind_record.violation_lines(result, on),
            f"  confidence {1 - result.alpha:.10g} (alpha={result.alpha:g}, p-value {result.pvalue:.3g}); "
            f"{result.n_samples} samples per input",
            f"  replay: seed={result.seed!r}",
        ]
    )


def assert_dp(
    mechanism,
    x=None,
    x_prime=None,
    *,
    neighbours=None,
    epsilon=None,
    delta=None,
    claim=None,
    n_samples: int = DEFAULT_SAMPLES,
    seed=None,
    sequential: bool = False,
    options: AuditOptions | None = None,
    **option_fields,
) -> AuditResult:
    """Assert that ``mechanism`` keeps its (epsilon, delta)-DP claim on ``x ~ x_prime``.

    Runs :func:`dpverify.audit` (or :func:`dpverify.sequential_audit` with
    ``sequential=True``, ``n_samples`` then being the budget) and raises when
    it certifies a violation. A correct mechanism fails with probability at
    most ``alpha``; a broken one passes with probability depending on
    ``n_samples`` (size it so the violation you care about is found with
    power ~1 even at the tiny default alpha).

    With ``neighbours`` instead of ``x`` and ``x_prime``, runs
    :func:`dpverify.search_audit`: the worst pair a search of the neighbouring
    relation finds is certified on fresh samples (same false-alarm rate ``alpha``).

    Parameters
    ----------
    mechanism, x, x_prime, epsilon, delta, claim, n_samples
        As for :func:`dpverify.audit` (``claim``: a claim of any kind, audited in its form).
    neighbours : optional
        A neighbouring relation to search (as for :func:`dpverify.search_audit`:
        a :mod:`dpverify.neighbours` generator, a list of pairs, a callable or a
        Hypothesis strategy); give it or ``x`` and ``x_prime``, not both.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the audit; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.pipeline.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result. Pass a
        fixed ``seed`` in a test suite so every run audits the same samples.
    sequential : bool, default False
        Stop at the first certified violation (fewer samples on broken code).
    options : AuditOptions, optional
        As for :func:`dpverify.audit`, except that an ``alpha`` left unset (the
        false-alarm rate of the assertion) is :data:`DEFAULT_TEST_ALPHA` (1e-6),
        also when ``options`` are given without one.
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword (``alpha``,
        ``executor``, ``event_families``, ``n_selection``...).

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
    options = resolve_options(options, option_fields, driver="assert_dp", default_alpha=DEFAULT_TEST_ALPHA)
    check.check_inputs_or_neighbours(x, x_prime, neighbours, sequential)
    audited = dict(epsilon=epsilon, delta=delta, claim=claim, n_samples=n_samples, seed=seed, options=options)
    if neighbours is not None:
        from ..audits.search import search_audit

        result = search_audit(mechanism, neighbours, **audited)
        x, x_prime = result.x, result.x_prime  # the worst pair the search found
    elif sequential:
        from ..audits.sequential import sequential_audit

        result = sequential_audit(mechanism, x, x_prime, **audited)
    else:
        result = audit(mechanism, x, x_prime, **audited)
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
