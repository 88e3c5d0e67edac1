"""Auditing a privacy claim on one pair of neighbouring inputs.

The audit follows StatDP's select-then-certify design with DP-Sniper's
likelihood-ratio events (see ``auditing.md``):

1. draw ``n_samples`` outputs of M(x) and of M(x') in seeded chunks;
2. on the first ``selection_fraction`` of each, count every candidate event
   (:mod:`dpverify.events`) and pick the event and direction whose
   Clopper-Pearson bound on the *selection* samples is largest;
3. count that one event on the remaining, fresh samples and report the
   Clopper-Pearson bounds (:mod:`dpverify.bounds`).

Only the single selected event is tested on fresh samples, so the
``1 - alpha`` guarantee of the reported bounds, and the false-alarm rate
``alpha`` of ``violation``, hold whatever the selection did.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from . import _validation as check
from .bounds import (
    claim_pvalue,
    clopper_pearson_delta_bound,
    clopper_pearson_epsilon_bound,
    minimum_certifying_samples,
)
from .errors import IdenticalInputsError, InsufficientSamplesError
from .events import candidate_events
from .outputs import encode_outputs
from .sampling import DEFAULT_CHUNKS, draw, resolve_seed

__all__ = ["audit", "AuditResult", "EventEstimate"]

DEFAULT_SAMPLES = 100_000
DEFAULT_SELECTION_FRACTION = 0.1
#: The best-looking of M candidates is inflated by luck (winner's curse) by
#: about sqrt(2 ln M) standard errors; selection estimates are shrunk by that
#: much (and at least this many standard errors) before ranking.
MIN_SHRINKAGE_SE = 1.0


@dataclass(frozen=True)
class EventEstimate:
    """The certified event and its estimated probabilities on the fresh samples.

    Attributes
    ----------
    description : str
        The event S in words.
    family : str
        The event family that proposed S.
    direction : {"x", "x_prime"}
        The input under which S is more likely: the bound is on
        ``ln P[M(direction) in S] / P[M(other) in S]``.
    probability_x, probability_x_prime : float
        Estimates of P[M(x) in S] and P[M(x') in S] on the certification samples.
    count_x, count_x_prime : int
        The counts behind them.
    n_certification : int
        Certification samples per input.
    """

    description: str
    family: str
    direction: str
    probability_x: float
    probability_x_prime: float
    count_x: int
    count_x_prime: int
    n_certification: int

    def __str__(self) -> str:
        return (
            f"{self.description} [{self.family}]: P[M(x) in S] ~ {self.probability_x:.4g}, "
            f"P[M(x') in S] ~ {self.probability_x_prime:.4g}"
        )


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    epsilon_lower_bound : float
        ``1 - alpha`` lower confidence bound on the privacy loss of the pair at
        the claimed delta: ``ln((p_lo - delta)/q_hi)`` on the certified event
        (0 when nothing is certified). Finite even when the true loss is
        infinite; it then grows with the sample size.
    delta_lower_bound : float
        ``1 - alpha`` lower confidence bound on the delta needed at the claimed
        epsilon: ``p_lo - exp(epsilon) q_hi`` (0 when nothing is certified).
    claimed_epsilon, claimed_delta : float
        The claim audited.
    pvalue : float
        P-value of "the claim holds on this pair" (small means evidence of a
        violation).
    violation : bool
        ``pvalue <= alpha``, equivalently ``epsilon_lower_bound > claimed_epsilon``.
    alpha : float
        The test level (the bounds are ``1 - alpha`` confidence bounds).
    event : EventEstimate
        The certified event and its estimated probabilities.
    n_samples : int
        Samples drawn per input (selection plus certification).
    n_selection : int
        Samples per input used to choose the event.
    n_candidates : int
        Number of (event, direction) pairs compared during selection.
    seed : int or list of int
        Entropy of the audit's SeedSequence: ``audit(..., seed=result.seed)``
        replays the audit exactly.
    """

    epsilon_lower_bound: float
    delta_lower_bound: float
    claimed_epsilon: float
    claimed_delta: float
    pvalue: float
    violation: bool
    alpha: float
    event: EventEstimate
    n_samples: int
    n_selection: int
    n_candidates: int
    seed: int | list | dict = field(default=None)

    def to_dict(self) -> dict:
        """A JSON-serializable dictionary (reload with :meth:`from_dict`)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "AuditResult":
        data = dict(data)
        data["event"] = EventEstimate(**data["event"])
        return cls(**data)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str) -> "AuditResult":
        return cls.from_dict(json.loads(text))

    def summary(self) -> str:
        """A few readable lines: verdict, bound, event, replay seed."""
        verdict = "VIOLATION" if self.violation else "no violation found"
        claim = f"eps={self.claimed_epsilon:g}" + (
            f", delta={self.claimed_delta:g}" if self.claimed_delta else ""
        )
        return "\n".join(
            [
                f"verdict: {verdict} of the claim ({claim}) at alpha={self.alpha:g} "
                f"(p-value {self.pvalue:.3g})",
                f"certified lower bound on epsilon: {self.epsilon_lower_bound:.4g} "
                f"({100 * (1 - self.alpha):g}% confidence); "
                f"lower bound on delta at eps={self.claimed_epsilon:g}: {self.delta_lower_bound:.3g}",
                f"event: {self.event}",
                f"samples: {self.n_samples} per input ({self.n_selection} to choose the event "
                f"among {self.n_candidates}, {self.event.n_certification} to certify it); seed {self.seed}",
            ]
        )

    def __str__(self) -> str:
        return self.summary()


def _inputs_equal(x, x_prime) -> bool:
    try:
        if isinstance(x, np.ndarray) or isinstance(x_prime, np.ndarray):
            return bool(np.array_equal(np.asarray(x), np.asarray(x_prime)))
        equal = x == x_prime
        return equal if isinstance(equal, bool) else False
    except Exception:
        return False


def audit(
    mechanism,
    x,
    x_prime,
    *,
    epsilon,
    delta=0.0,
    n_samples: int = DEFAULT_SAMPLES,
    alpha: float = 0.05,
    seed=None,
    executor=None,
    selection_fraction: float = DEFAULT_SELECTION_FRACTION,
    n_chunks: int = DEFAULT_CHUNKS,
    event_families=None,
    progress: bool = False,
) -> AuditResult:
    """Test whether ``mechanism`` keeps an (epsilon, delta)-DP claim on ``x ~ x_prime``.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng) -> output``; an object with a vectorized
        ``sample(data, size, rng)`` is sampled through it. Outputs are hashable
        discrete values or real numbers / real vectors.
    x, x_prime : object
        Neighbouring inputs (must differ).
    epsilon : float
        Claimed epsilon, finite and > 0.
    delta : float, default 0
        Claimed delta, in [0, 1).
    n_samples : int
        Samples of M(x), and as many of M(x'), in total.
    alpha : float, default 0.05
        Test level: the false-alarm rate of ``violation`` on a mechanism that
        keeps its claim, and ``1 - alpha`` is the confidence of the bounds.
    seed : None, int or numpy.random.SeedSequence
        Seed of the audit; ``None`` draws one (recorded in the result).
    executor : None, int or concurrent.futures.Executor
        Where the sampling chunks run (an int starts that many local processes).
        The result does not depend on it.
    selection_fraction : float, default 0.1
        Share of the samples used to choose the event.
    n_chunks : int, default 16
        Number of seeded chunks per input.
    event_families : list of str, optional
        Restrict the candidate events to these registered families.
    progress : bool
        Show a progress bar while sampling.

    Returns
    -------
    AuditResult

    Raises
    ------
    InvalidClaimError
        epsilon <= 0 or not finite, delta outside [0, 1).
    InsufficientSamplesError
        ``n_samples`` too small to certify any violation at ``alpha``.
    IdenticalInputsError
        ``x`` equals ``x_prime``.
    MechanismError
        The mechanism raised (the input is named, the error chained).
    OutputTypeError
        Unhashable or mixed-type outputs.

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.zoo import LaplaceMechanism
    >>> r = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1)
    >>> r.violation
    False

    The textbook floating-point version leaks through its low-order bits
    (Mironov 2012), and the audit says so:

    >>> def textbook_laplace(x, rng):
    ...     return x + rng.laplace(scale=1.0)
    >>> dpverify.audit(textbook_laplace, 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1).violation
    True
    """
    epsilon = check.check_epsilon(epsilon)
    delta = check.check_delta(delta)
    alpha = check.check_alpha(alpha)
    n_samples = check.check_positive_int(n_samples, "n_samples", minimum=2)
    selection_fraction = check.check_fraction(selection_fraction, "selection_fraction")
    n_chunks = check.check_positive_int(n_chunks, "n_chunks")
    if _inputs_equal(x, x_prime):
        raise IdenticalInputsError(
            f"x and x_prime are equal ({x!r}); an audit compares two different neighbouring inputs"
        )
    n_selection = max(1, int(selection_fraction * n_samples))
    n_certification = n_samples - n_selection
    required_cert = minimum_certifying_samples(epsilon, delta, alpha)
    if n_certification < required_cert:
        required = math.ceil(required_cert / (1 - selection_fraction)) + 1
        raise InsufficientSamplesError(
            f"n_samples={n_samples} cannot certify a violation of eps={epsilon:g}, "
            f"delta={delta:g} at alpha={alpha:g}: at least {required} samples per input "
            f"are needed (with selection_fraction={selection_fraction:g})",
            required=required,
        )

    sequence, entropy = resolve_seed(seed)
    seed_x, seed_x_prime = sequence.spawn(2)
    raw_x = draw(mechanism, x, n_samples, seed_x, label="x", executor=executor,
                 n_chunks=n_chunks, progress=progress)
    raw_x_prime = draw(mechanism, x_prime, n_samples, seed_x_prime, label="x_prime",
                       executor=executor, n_chunks=n_chunks, progress=progress)
    outputs = encode_outputs(raw_x, raw_x_prime)
    ex, exp_ = outputs.groups
    return certify_best_event(
        outputs, ex[:n_selection], exp_[:n_selection], ex[n_selection:], exp_[n_selection:],
        epsilon=epsilon, delta=delta, alpha=alpha, seed=entropy, event_families=event_families,
        inputs=(x, x_prime),
    )


def _beta_lower(count, nobs, alpha):
    """Clopper-Pearson lower bound for real-valued (predicted) counts."""
    count = np.asarray(count, dtype=float)
    with np.errstate(invalid="ignore"):
        value = stats.beta.ppf(alpha / 2, count, nobs - count + 1)
    return np.where(count <= 0, 0.0, np.nan_to_num(value, nan=0.0))


def _beta_upper(count, nobs, alpha):
    """Clopper-Pearson upper bound for real-valued (predicted) counts."""
    count = np.asarray(count, dtype=float)
    with np.errstate(invalid="ignore"):
        value = stats.beta.isf(alpha / 2, count + 1, nobs - count)
    return np.where(count >= nobs, 1.0, np.nan_to_num(value, nan=1.0))


def predicted_bounds(count_p, count_q, n_selection, n_certification, *, delta, alpha,
                     n_candidates=None, shrinkage_se=None):
    """The lower bound on ``ln((P - delta)/Q)`` each candidate is predicted to certify.

    The selection estimates are first shrunk towards "no difference" by
    ``max(1, sqrt(2 ln M))`` standard errors (Clopper-Pearson form, so rare
    events are handled exactly), M the number of candidates compared: the
    expected inflation of the luckiest of M noisy estimates (or by
    ``shrinkage_se`` standard errors when given). The bound that
    certification would give at the shrunk probabilities on
    ``n_certification`` fresh samples is then computed with the audit's ``alpha``.
    """
    if shrinkage_se is None:
        m = max(2, len(np.atleast_1d(count_p)) if n_candidates is None else n_candidates)
        k = max(MIN_SHRINKAGE_SE, math.sqrt(2 * math.log(m)))
    else:
        k = shrinkage_se
    shrinkage_alpha = 2 * stats.norm.sf(k)
    p_sel = _beta_lower(count_p, n_selection, shrinkage_alpha)
    q_sel = _beta_upper(count_q, n_selection, shrinkage_alpha)
    p_lo = _beta_lower(p_sel * n_certification, n_certification, alpha)
    q_hi = _beta_upper(q_sel * n_certification, n_certification, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.maximum(p_lo - delta, 0)) - np.log(q_hi)


def select_event(candidates, n_selection: int, n_certification: int, *, epsilon: float,
                 delta: float, alpha: float):
    """Index and direction of the candidate predicted to certify the largest bound.

    Scores every candidate in both directions with :func:`predicted_bounds`
    (winner's-curse shrinkage of ``sqrt(2 ln M)`` standard errors). Where no
    candidate is predicted to certify anything, the scores are recomputed with
    the minimal shrinkage (one standard error), and failing that the smoothed
    point estimate of the ratio decides, so a lopsided event is preferred to a
    near-certain one. Events containing every selection sample, or none, are
    never chosen. Selection only affects power: certification on fresh
    samples keeps the audit valid whatever is chosen.
    """
    a, b = candidates.counts_x, candidates.counts_x_prime
    trivial = ((a == 0) & (b == 0)) | ((a == n_selection) & (b == n_selection))
    passes = [dict(n_candidates=2 * len(a)), dict(shrinkage_se=MIN_SHRINKAGE_SE), None]
    for options in passes:
        best = None
        for direction, p, q in (("x", a, b), ("x_prime", b, a)):
            with np.errstate(divide="ignore", invalid="ignore"):
                fallback = np.log(p + 0.5) - np.log(q + 0.5)
            if options is None:
                score = fallback
            else:
                score = predicted_bounds(p, q, n_selection, n_certification, delta=delta, alpha=alpha,
                                         **options)
                score = np.where(np.isfinite(score), score, -1e6 + fallback)
            score = np.where(trivial, -np.inf, score)
            i = int(np.argmax(score))
            if best is None or score[i] > best[0]:
                best = (score[i], i, direction)
        if best[0] > 0:
            break
    return best[1], best[2]


def certify_best_event(outputs, sel_x, sel_x_prime, cert_x, cert_x_prime, *, epsilon, delta,
                       alpha, seed=None, event_families=None, inputs=None) -> AuditResult:
    """Steps 2 and 3 of the audit on already encoded samples (see the module docstring).

    ``inputs = (x, x_prime)``, when given, lets input-aware families (e.g. the
    floating-point reachability events) propose events.
    """
    n_selection = len(sel_x)
    n_certification = len(cert_x)
    candidates = candidate_events(sel_x, sel_x_prime, outputs, event_families, inputs=inputs)
    if not candidates.events:
        raise InsufficientSamplesError(
            "no candidate event could be formed from the selection samples; draw more samples",
            required=2 * (n_selection + n_certification),
        )
    index, direction = select_event(candidates, n_selection, n_certification, epsilon=epsilon,
                                    delta=delta, alpha=alpha)
    event = candidates.events[index]
    count_x = event.count(cert_x)
    count_x_prime = event.count(cert_x_prime)
    p, q = (count_x, count_x_prime) if direction == "x" else (count_x_prime, count_x)
    n = n_certification
    eps_lb = float(clopper_pearson_epsilon_bound(p, n, q, n, alpha, delta))
    delta_lb = float(clopper_pearson_delta_bound(p, n, q, n, alpha, epsilon))
    pvalue = claim_pvalue(p, n, q, n, epsilon, delta)
    return AuditResult(
        epsilon_lower_bound=eps_lb,
        delta_lower_bound=delta_lb,
        claimed_epsilon=epsilon,
        claimed_delta=delta,
        pvalue=pvalue,
        violation=bool(pvalue <= alpha),
        alpha=alpha,
        event=EventEstimate(
            description=event.description,
            family=event.family,
            direction=direction,
            probability_x=count_x / n,
            probability_x_prime=count_x_prime / n,
            count_x=count_x,
            count_x_prime=count_x_prime,
            n_certification=n,
        ),
        n_samples=n_selection + n_certification,
        n_selection=n_selection,
        n_candidates=2 * len(candidates.events),
        seed=seed,
    )
