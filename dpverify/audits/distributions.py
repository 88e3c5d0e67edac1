"""Do two samplers have the same distribution? Does a sampler match a pmf?

A *sampler* is a callable ``sampler(rng) -> output`` (``rng`` a numpy
Generator), optionally with a vectorized ``sample(size, rng)``. Outputs are
counted by value (hashable discrete values; see :mod:`dpverify.pipeline.outputs`).

Both tests are Pearson chi-square tests on counts, with categories of
expected count below ``min_expected`` pooled into one, as scipy's and
networkx's own sampler tests do. Their
false-alarm rate is the p-value threshold the caller uses; their power against
a given alternative can be computed with :func:`chi_square_power`.

There is no G-test (``method="g-test"`` raises): on pooled sparse tables (expected
counts of 5-10 per category) its chi-square approximation rejects equal samplers
more often than nominal, and Williams' correction (G divided by
1 + (k^2 - 1) / (6 n (k - 1)), or its contingency form) does not bring it back to
its level, while Pearson's statistic holds it on the same cases (measured by
null runs: docs/auditor/benchmarks.md).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from .. import _validation as check
from .._results import Result, SavedRepr, dataclass_to_dict
from ..errors import InsufficientSamplesError, InvalidParameterError, OutputTypeError
from ..options import AuditOptions, resolve_options
from ..pipeline.outputs import encode_outputs
from ..pipeline.sampling import DEFAULT_CHUNKS, children, draw, resolve_seed
from ..protocols import is_vectorized
from .exact import _as_pmf

__all__ = [
    "equal_distributions",
    "goodness_of_fit",
    "DistributionTestResult",
    "chi_square_power",
]

_METHODS = {"chi2": "pearson"}
_DEFAULTS = AuditOptions()


@dataclass(frozen=True)
class DistributionTestResult(Result):
    """Outcome of :func:`equal_distributions` or :func:`goodness_of_fit`.

    Attributes
    ----------
    statistic : float
        Chi-square statistic; ``inf`` when an output is impossible under the pmf.
    pvalue : float
        P-value of "same distribution".
    df : int
        Degrees of freedom after pooling.
    n_samples_a, n_samples_b : int
        Sample sizes (``n_samples_b`` is 0 for goodness of fit).
    n_categories : int
        Categories after pooling.
    n_pooled : int
        Categories merged into the pooled one.
    method : str
        ``"chi2"``.
    seed : int or list of int
        Replays the test.
    unexpected_outputs : tuple
        Up to five outputs seen but impossible under the pmf (goodness of fit).
    alpha : float
        The level of :attr:`violation`.
    violation : bool
        ``pvalue <= alpha``: the test rejects "same distribution" (the claim that
        the samplers agree, or that the sampler follows the pmf, is violated).
        The name is the verdict's name in every dpverify result.
    """

    statistic: float
    pvalue: float
    df: int
    n_samples_a: int
    n_samples_b: int
    n_categories: int
    n_pooled: int
    method: str
    seed: object = None
    unexpected_outputs: tuple = ()
    alpha: float = 0.05

    @property
    def violation(self) -> bool:
        """``pvalue <= alpha``: the distributions differ at level ``alpha``."""
        return bool(self.pvalue <= self.alpha)

    _DERIVED = ("violation",)
    _NOT_REPLAYABLE = (
        "it records neither its samplers' pooling threshold (min_expected) nor its options (n_chunks); "
        "run the test again with seed=result.seed and the same arguments"
    )

    def to_dict(self) -> dict:
        """The fields and ``violation`` as JSON-serialisable plain data (unexpected outputs as reprs)."""
        return dataclass_to_dict(
            self, unexpected_outputs=[repr(o) for o in self.unexpected_outputs], violation=self.violation
        )

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["unexpected_outputs"] = tuple(SavedRepr(o) for o in data.get("unexpected_outputs", ()))
        return data

    def summary(self) -> str:
        """The verdict, the statistic and the sample sizes."""
        verdict = "the distributions differ" if self.violation else "no difference found"
        sizes = f"{self.n_samples_a} and {self.n_samples_b}" if self.n_samples_b else f"{self.n_samples_a}"
        lines = [
            f"verdict: {verdict} at alpha={self.alpha:g} (p-value {self.pvalue:.3g})",
            f"{self.method} statistic {self.statistic:.4g} on {self.df} degrees of freedom, {self.n_categories} "
            f"categories ({self.n_pooled} pooled); samples: {sizes}; seed {self.seed}",
        ]
        if self.unexpected_outputs:
            lines.append(f"outputs impossible under the pmf: {', '.join(map(str, self.unexpected_outputs))}")
        return "\n".join(lines)


def _result(alpha: float, *fields) -> DistributionTestResult:
    return DistributionTestResult(*fields, alpha=alpha)


class _SamplerMechanism:
    """Adapts a sampler ``f(rng)`` (optionally ``f.sample(size, rng)``) to a mechanism."""

    def __init__(self, sampler):
        if not callable(sampler):
            raise InvalidParameterError(f"a sampler must be callable as sampler(rng), got {type(sampler).__name__}")
        self.sampler = sampler
        if is_vectorized(sampler):  # a sampler's sample(size, rng) takes no data
            self.sample = self._sample

    def __call__(self, data, rng):
        return self.sampler(rng)

    def _sample(self, data, size, rng):
        return self.sampler.sample(size, rng)


#: The options of :class:`~dpverify.AuditOptions` that choose events: a distribution test counts by value.
_EVENT_OPTIONS = ("n_selection", "event_families", "float_events", "output_key")


def _test_options(options, option_fields: dict, driver: str) -> AuditOptions:
    """The options of a distribution test; the event options are refused, since no event is chosen."""
    options = resolve_options(options, option_fields, driver=driver)
    unused = [name for name in _EVENT_OPTIONS if getattr(options, name) != getattr(_DEFAULTS, name)]
    if unused:
        raise InvalidParameterError(
            f"{driver}() counts outputs by value and chooses no event: the options {unused} do not apply "
            "(its options are alpha, executor, n_chunks and progress)"
        )
    return options


def _draw_samples(samplers, n_samples, seed, options):
    sequence, entropy = resolve_seed(seed)
    seeds = children(sequence, len(samplers))  # as sequence.spawn, without advancing a given sequence
    raws = [
        draw(
            _SamplerMechanism(s),
            None,
            n_samples,
            child,
            label=f"sampler {i}",
            executor=options.executor,
            n_chunks=options.n_chunks or DEFAULT_CHUNKS,
            progress=options.progress,
        )
        for i, (s, child) in enumerate(zip(samplers, seeds))
    ]
    outputs = encode_outputs(*raws)
    if outputs.kind != "discrete":
        kind = outputs.codec.family_kind
        raise OutputTypeError(
            "distribution tests count outputs by value: samplers must return hashable "
            f"discrete values (int, str, tuple, frozenset), not {kind} outputs{_COUNTABLE_FORM.get(kind, '')}"
        )
    return outputs, entropy


#: How to turn outputs of a kind into values a distribution test can count, where there is a way.
_COUNTABLE_FORM = {"released-keys": " (map each mapping to a hashable form, e.g. frozenset(output.items()))"}


def _check_options(n_samples, method, min_expected) -> int:
    """``n_samples`` checked, after ``method`` and ``min_expected`` (a finite real number >= 0: below it,
    categories pool; NaN would compare false and pool nothing, silently)."""
    if isinstance(min_expected, bool) or not isinstance(min_expected, numbers.Real) or not 0 <= min_expected < math.inf:
        raise InvalidParameterError(f"min_expected must be a finite real number >= 0, got {min_expected!r}")
    if method == "g-test":
        raise InvalidParameterError(
            "method='g-test' was removed: its chi-square approximation is anti-conservative on "
            "pooled sparse tables (up to 1.7x the nominal false-alarm rate); use method='chi2'"
        )
    check.check_choice(method, "method", sorted(_METHODS))
    return check.check_positive_int(n_samples, "n_samples", minimum=1)


def _pool(expected: np.ndarray, min_expected: float) -> np.ndarray:
    """Group index per category: categories with expected < min_expected share one group."""
    rare = expected < min_expected
    groups = np.empty(len(expected), dtype=np.int64)
    groups[~rare] = np.arange(np.count_nonzero(~rare))
    pooled_group = np.count_nonzero(~rare)
    groups[rare] = pooled_group
    if rare.any() and expected[rare].sum() < min_expected and pooled_group > 0:
        # the pooled category is still too rare: merge it into the smallest kept one
        kept = np.flatnonzero(~rare)
        smallest = groups[kept[np.argmin(expected[kept])]]
        groups[rare] = smallest
    return groups


def _refuse_powerless(n_samples: int, expected: np.ndarray, min_expected: float):
    """Raise :class:`InsufficientSamplesError`: every category pooled into one, so the test has no power.

    The suggested size gives the largest category and the rest together an
    expected count of at least ``min_expected`` each, scaling the expected
    counts seen at ``n_samples``.
    """
    largest = float(expected.max())
    rest = float(expected.sum()) - largest
    smaller = min(largest, rest)
    required = int(math.ceil(round(n_samples * min_expected / smaller, 9))) if smaller > 0 else 2 * n_samples
    raise InsufficientSamplesError(
        f"with n_samples={n_samples} the categories other than the largest (expected count {largest:.4g}) have an "
        f"expected count of {rest:.3g} together, below min_expected={min_expected:g}, so all pool into one and the "
        "test cannot tell any two distributions apart (p = 1 whatever the samplers do); draw at least "
        f"n_samples={required}",
        required=required,
    )


def equal_distributions(
    sampler_a,
    sampler_b,
    *,
    n_samples: int = 100_000,
    seed=None,
    method: str = "chi2",
    min_expected: float = 5.0,
    options: AuditOptions | None = None,
    **option_fields,
) -> DistributionTestResult:
    """Two-sample test that two samplers have the same output distribution.

    Draws ``n_samples`` from each and runs Pearson's chi-square test
    (``method="chi2"``, the only method) on the 2 x k contingency table
    (scipy's ``chi2_contingency``, no continuity correction), pooling
    categories whose expected count is below ``min_expected``.

    Parameters
    ----------
    sampler_a, sampler_b : callable
        ``sampler(rng) -> output``, optionally with ``sample(size, rng)``.
    n_samples : int
        Samples per sampler.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the test; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.pipeline.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    method : {"chi2"}
        Pearson's chi-square (the only method; see the module docstring on the G-test).
    min_expected : float, default 5
        Categories expected fewer times than this pool into one.
    options : AuditOptions, optional
        ``alpha`` (default 0.05: the level of the verdict ``violation``, ``pvalue <= alpha``;
        the p-value does not depend on it), ``executor``, ``n_chunks`` (default
        :data:`dpverify.pipeline.sampling.DEFAULT_CHUNKS`) and ``progress``, as in
        :func:`dpverify.audit`; they may also be given as keywords. The options that choose
        events (``n_selection``, ``event_families``, ``float_events``, ``output_key``) do not
        apply: outputs are counted by value.

    Returns
    -------
    DistributionTestResult

    Raises
    ------
    InsufficientSamplesError
        The samplers gave different outputs but every category pooled into
        one: at this size the test has no power (the error gives a size that has some).
    """
    n_samples = _check_options(n_samples, method, min_expected)
    options = _test_options(options, option_fields, "equal_distributions")
    alpha = options.alpha
    outputs, entropy = _draw_samples([sampler_a, sampler_b], n_samples, seed, options)
    k = len(outputs.labels)
    table = np.vstack([np.bincount(g, minlength=k) for g in outputs.groups]).astype(float)
    expected = table.sum(axis=0) * table.sum(axis=1).min() / table.sum()
    groups = _pool(expected, min_expected)
    pooled = np.zeros((2, groups.max() + 1))
    np.add.at(pooled.T, groups, table.T)
    pooled = pooled[:, pooled.sum(axis=0) > 0]
    n_pooled = int(np.count_nonzero(expected < min_expected))
    if pooled.shape[1] < 2:
        if k >= 2:  # the samplers gave different outputs, but they all pooled into one category
            _refuse_powerless(n_samples, expected, min_expected)
        return _result(alpha, 0.0, 1.0, 0, n_samples, n_samples, pooled.shape[1], n_pooled, method, entropy)
    from scipy import stats  # here: scipy.stats costs 0.6 s to import

    statistic, pvalue, df, _ = stats.chi2_contingency(pooled, correction=False, lambda_=_METHODS[method])
    return _result(
        alpha,
        float(statistic),
        float(pvalue),
        int(df),
        n_samples,
        n_samples,
        pooled.shape[1],
        n_pooled,
        method,
        entropy,
    )


def goodness_of_fit(
    sampler,
    pmf,
    *,
    n_samples: int = 100_000,
    seed=None,
    method: str = "chi2",
    min_expected: float = 5.0,
    options: AuditOptions | None = None,
    **option_fields,
) -> DistributionTestResult:
    """Test that a sampler's outputs follow an exact pmf.

    Pearson chi-square goodness of fit (scipy's ``power_divergence``) with
    categories of expected count below ``min_expected`` pooled. Every category
    of the pmf counts, including those never sampled (observed 0). An output
    that the pmf gives probability 0 is decisive: the statistic is ``inf`` and
    the p-value 0, with the offending outputs listed.

    Parameters
    ----------
    sampler : callable
        ``sampler(rng) -> output``, optionally with ``sample(size, rng)``.
    pmf : dict
        Output -> probability (must sum to 1).
    n_samples, seed, method, min_expected, options
        As in :func:`equal_distributions` (a ``Generator`` as ``seed`` is spawned from, not
        drawn from); option fields may also be given as keywords.

    Raises
    ------
    InsufficientSamplesError
        The pmf has several outputs but every category pooled into one: at
        this size the test has no power.
    """
    n_samples = _check_options(n_samples, method, min_expected)
    options = _test_options(options, option_fields, "goodness_of_fit")
    alpha = options.alpha
    pmf = _as_pmf(pmf, "pmf")
    outputs, entropy = _draw_samples([sampler], n_samples, seed, options)
    counts = np.bincount(outputs.groups[0], minlength=len(outputs.labels))
    probability = np.array([float(pmf.get(label, 0.0)) for label in outputs.labels])
    impossible = np.flatnonzero((probability == 0) & (counts > 0))
    if impossible.size:
        return _result(
            alpha,
            np.inf,
            0.0,
            0,
            n_samples,
            0,
            len(pmf),
            0,
            method,
            entropy,
            tuple(outputs.labels[i] for i in impossible[:5]),
        )
    seen = set(outputs.labels)
    unseen_mass = [float(v) for key, v in pmf.items() if key not in seen]
    observed = np.concatenate([counts, np.zeros(len(unseen_mass))])
    expected = n_samples * np.concatenate([probability, unseen_mass])
    keep = expected > 0
    observed, expected = observed[keep], expected[keep]
    groups = _pool(expected, min_expected)
    obs = np.bincount(groups, weights=observed)
    exp = np.bincount(groups, weights=expected)
    n_pooled = int(np.count_nonzero(expected < min_expected))
    if len(obs) < 2:
        if len(expected) >= 2:  # the pmf has several outputs, but they all pooled into one category
            _refuse_powerless(n_samples, expected, min_expected)
        return _result(alpha, 0.0, 1.0, 0, n_samples, 0, len(obs), n_pooled, method, entropy)
    exp = exp * obs.sum() / exp.sum()  # guard against pmf round-off
    from scipy import stats  # here: scipy.stats costs 0.6 s to import

    statistic, pvalue = stats.power_divergence(obs, exp, lambda_=_METHODS[method])
    return _result(
        alpha, float(statistic), float(pvalue), len(obs) - 1, n_samples, 0, len(obs), n_pooled, method, entropy
    )


def chi_square_power(pmf_null, pmf_alternative, n_samples: int, alpha: float) -> float:
    """Power of the goodness-of-fit chi-square test of ``pmf_null`` when samples follow ``pmf_alternative``.

    Uses the noncentral chi-square approximation with noncentrality
    ``n * sum (p_alt - p_null)^2 / p_null`` (no pooling); for planning sample sizes.
    """
    keys = list(dict.fromkeys([*pmf_null, *pmf_alternative]))
    p0 = np.array([pmf_null.get(k, 0.0) for k in keys])
    p1 = np.array([pmf_alternative.get(k, 0.0) for k in keys])
    if np.any((p0 == 0) & (p1 > 0)):
        return 1.0
    mask = p0 > 0
    nc = n_samples * float(np.sum((p1[mask] - p0[mask]) ** 2 / p0[mask]))
    df = int(mask.sum()) - 1
    from scipy import stats  # here: scipy.stats costs 0.6 s to import

    critical = stats.chi2.ppf(1 - alpha, df)
    return float(stats.ncx2.sf(critical, df, nc))
