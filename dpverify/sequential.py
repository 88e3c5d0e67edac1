"""Sequential audits: stop as soon as the verdict is settled.

A fixed-size audit (:func:`dpverify.audit`) spends its whole budget even when
the first thousand samples already show a flagrant violation. A *sequential*
audit looks at the data at a few pre-registered sample sizes and stops at the
first look that certifies a violation.

The plan (a group-sequential design with Bonferroni alpha spending; the
**choice** among the designs listed in issue 6, section 2, and
``auditing.md``, "Sound practice"):

1. The looks are fixed before any sample is drawn: ``N_1 = first_look``,
   ``N_k = growth * N_{k-1}`` while below the budget, and ``N_K = n_samples``
   (a geometric schedule, so the overshoot past the sample size a violation
   needs is at most a factor ``growth``; every sample is drawn once, and the
   counting at all looks costs about ``growth / (growth - 1)`` times that of
   one fixed audit of the same size).
2. The overall level ``alpha`` is split in advance: ``final_share * alpha`` to
   the last look (so a tight certification loses little against a fixed
   audit of the same budget), the rest in equal parts to the earlier looks.
   The levels ``alpha_k`` sum to ``alpha``.
3. Samples arrive in batches: look ``k`` sees the first ``N_k`` samples of
   M(x) and of M(x'), which extend the samples of look ``k - 1``.
4. At look ``k`` the fixed-size audit runs on those ``N_k`` samples at level
   ``alpha_k``: the event is chosen on the first ``selection_fraction * N_k``
   and certified (Clopper-Pearson) on the remaining ones, which the choice at
   that look has not seen.
5. The audit stops at the first look whose p-value is at most ``alpha_k``
   (a violation), else after the last look (no violation found).

Why the false-alarm rate survives the stopping: at each look, selection and
certification use disjoint, i.i.d. samples, so on a mechanism that keeps its
claim the look rejects with probability at most ``alpha_k`` whatever the
other looks saw. The audit reports a violation only if some look rejects, and
by the union bound that has probability at most ``sum_k alpha_k = alpha``,
however the looks are correlated and wherever the audit stops. The same union
bound makes the reported lower bounds ``1 - alpha`` confidence bounds, and
``min_k p_k / w_k`` (with ``w_k = alpha_k / alpha``) a valid overall p-value.

There is no stopping for futility: a claim that is kept (or nearly violated)
uses the whole budget, while an obvious violation stops after a few thousand
samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from . import _validation as check
from .audit import AuditResult, EventEstimate, certify_best_event
from .bounds import minimum_certifying_samples
from .errors import IdenticalInputsError, InsufficientSamplesError, InvalidParameterError
from .outputs import encode_outputs
from .progress import progress_bar
from .sampling import DEFAULT_CHUNKS, draw, resolve_seed

__all__ = [
    "sequential_audit",
    "SequentialAuditResult",
    "Look",
    "look_schedule",
    "alpha_spending",
]


DEFAULT_BUDGET = 1_000_000
DEFAULT_FIRST_LOOK = 1_000
DEFAULT_GROWTH = 2.0
DEFAULT_FINAL_SHARE = 0.5


@dataclass(frozen=True)
class Look:
    """What one look of a sequential audit saw.

    Attributes
    ----------
    n_samples : int
        Samples per input seen at this look (selection plus certification).
    alpha : float
        The level spent on this look.
    pvalue : float
        P-value of the claim on this look's certification samples.
    epsilon_lower_bound, delta_lower_bound : float
        The look's ``1 - alpha_k`` lower bounds.
    violation : bool
        ``pvalue <= alpha``: the look rejected the claim (and the audit stopped).
    event : str
        Description of the event certified at this look.
    """

    n_samples: int
    alpha: float
    pvalue: float
    epsilon_lower_bound: float
    delta_lower_bound: float
    violation: bool
    event: str


@dataclass(frozen=True)
class SequentialAuditResult(AuditResult):
    """Outcome of :func:`sequential_audit`: an :class:`~dpverify.AuditResult` plus the looks.

    The inherited fields describe the *decisive* look (the one that rejected,
    or the last one): its event, bounds and sample counts; ``n_samples`` is
    therefore the number of samples per input the audit used. ``alpha`` is
    the overall level and ``pvalue`` the Bonferroni-adjusted overall p-value
    ``min_k p_k / w_k`` over the looks made (capped at 1), so
    ``violation == (pvalue <= alpha)`` as for a fixed audit.

    Attributes
    ----------
    budget : int
        The largest number of samples per input the plan allowed.
    looks : tuple of Look
        The looks made, in order.
    schedule : tuple of int
        The pre-registered sample sizes of all looks.
    stopped_early : bool
        True when the audit stopped before the last look of the schedule.
    """

    budget: int = 0
    looks: tuple = ()
    schedule: tuple = ()
    stopped_early: bool = False

    @property
    def n_samples_used(self) -> int:
        """Samples per input the audit drew (the sample size of its decisive look)."""
        return self.n_samples

    @classmethod
    def from_dict(cls, data: dict) -> "SequentialAuditResult":
        data = dict(data)
        data["event"] = EventEstimate(**data["event"])
        data["looks"] = tuple(Look(**look) for look in data.get("looks", ()))
        data["schedule"] = tuple(data.get("schedule", ()))
        return cls(**data)

    def summary(self) -> str:
        base = super().summary()
        stop = (
            f"stopped early at look {len(self.looks)} of {len(self.schedule)}"
            if self.stopped_early
            else f"all {len(self.schedule)} looks made"
        )
        return base + (
            f"\nsequential: {stop}; used {self.n_samples} of {self.budget} samples per input "
            f"(looks at {', '.join(str(n) for n in self.schedule)})"
        )


def look_schedule(budget: int, first_look: int = DEFAULT_FIRST_LOOK,
                  growth: float = DEFAULT_GROWTH) -> list[int]:
    """Pre-registered sample sizes of the looks: geometric from ``first_look``, ending at ``budget``.

    A geometric look whose size is within a factor 1.25 of the budget is
    merged into the final look (it would spend alpha for almost no saving).

    Examples
    --------
    >>> look_schedule(10_000, 1_000, 2.0)
    [1000, 2000, 4000, 10000]
    """
    budget = check.check_positive_int(budget, "n_samples", minimum=2)
    first_look = check.check_positive_int(first_look, "first_look", minimum=2)
    if isinstance(growth, bool) or not isinstance(growth, (int, float)) or not growth > 1:
        raise InvalidParameterError(f"growth must be a real number > 1, got {growth!r}")
    looks = []
    n = first_look
    while n * 1.25 < budget:
        looks.append(int(n))
        n = max(int(n) + 1, int(math.ceil(n * growth)))
    looks.append(budget)
    return looks


def alpha_spending(alpha: float, n_looks: int, final_share: float = DEFAULT_FINAL_SHARE) -> list[float]:
    """Levels of the looks: ``final_share * alpha`` for the last, the rest split equally.

    They sum to ``alpha`` (Bonferroni over the looks). With one look the whole
    ``alpha`` goes to it.

    Examples
    --------
    >>> alpha_spending(0.05, 3, 0.5)
    [0.0125, 0.0125, 0.025]
    """
    alpha = check.check_alpha(alpha)
    n_looks = check.check_positive_int(n_looks, "n_looks")
    final_share = check.check_fraction(final_share, "final_share")
    if n_looks == 1:
        return [alpha]
    early = alpha * (1.0 - final_share) / (n_looks - 1)
    return [early] * (n_looks - 1) + [alpha * final_share]


def _extend(parts: list):
    """Concatenate batches of raw outputs (arrays stay arrays)."""
    if all(isinstance(p, np.ndarray) for p in parts):
        try:
            return np.concatenate(parts, axis=0)
        except ValueError:
            pass
    combined: list = []
    for p in parts:
        combined.extend(list(p))
    return combined


def _run_looks(mechanism, x, x_prime, *, schedule, alphas, overall_alpha, epsilon, delta,
               sequence, entropy, executor, selection_fraction, n_chunks, event_families,
               progress) -> SequentialAuditResult:
    """Steps 3 to 5 of the module docstring for given looks and levels."""
    seed_x, seed_x_prime = sequence.spawn(2)
    batch_seeds_x = seed_x.spawn(len(schedule))
    batch_seeds_x_prime = seed_x_prime.spawn(len(schedule))
    parts_x, parts_x_prime = [], []
    looks: list[Look] = []
    drawn = 0
    adjusted = 1.0
    result = None
    with progress_bar(total=schedule[-1], desc="sequential audit", enabled=progress) as bar:
        for k, (n_k, alpha_k) in enumerate(zip(schedule, alphas)):
            size = n_k - drawn
            parts_x.append(draw(mechanism, x, size, batch_seeds_x[k], label="x",
                                executor=executor, n_chunks=n_chunks))
            parts_x_prime.append(draw(mechanism, x_prime, size, batch_seeds_x_prime[k],
                                      label="x_prime", executor=executor, n_chunks=n_chunks))
            drawn = n_k
            bar.update(size)
            outputs = encode_outputs(_extend(parts_x), _extend(parts_x_prime))
            ex, exp_ = outputs.groups
            n_sel = max(1, int(selection_fraction * n_k))
            result = certify_best_event(
                outputs, ex[:n_sel], exp_[:n_sel], ex[n_sel:], exp_[n_sel:],
                epsilon=epsilon, delta=delta, alpha=alpha_k, seed=entropy,
                event_families=event_families, inputs=(x, x_prime),
            )
            rejected = bool(result.pvalue <= alpha_k)
            looks.append(Look(n_k, alpha_k, result.pvalue, result.epsilon_lower_bound,
                              result.delta_lower_bound, rejected, result.event.description))
            adjusted = min(adjusted, result.pvalue * overall_alpha / alpha_k)
            if rejected:
                break
    values = {f.name: getattr(result, f.name) for f in fields(AuditResult)}
    values.update(
        pvalue=min(1.0, adjusted),
        violation=bool(looks[-1].violation),
        alpha=overall_alpha,
        budget=schedule[-1],
        looks=tuple(looks),
        schedule=tuple(schedule),
        stopped_early=len(looks) < len(schedule),
    )
    return SequentialAuditResult(**values)


def sequential_audit(
    mechanism,
    x,
    x_prime,
    *,
    epsilon,
    delta=0.0,
    n_samples: int = DEFAULT_BUDGET,
    alpha: float = 0.05,
    seed=None,
    executor=None,
    first_look: int = DEFAULT_FIRST_LOOK,
    growth: float = DEFAULT_GROWTH,
    final_share: float = DEFAULT_FINAL_SHARE,
    selection_fraction: float = 0.1,
    n_chunks: int = DEFAULT_CHUNKS,
    event_families=None,
    progress: bool = False,
) -> SequentialAuditResult:
    """Audit an (epsilon, delta)-DP claim on ``x ~ x_prime``, stopping at the first certified violation.

    A group-sequential version of :func:`dpverify.audit` (see the module
    docstring for the plan and why its false-alarm rate is at most ``alpha``
    wherever it stops).

    Parameters
    ----------
    mechanism, x, x_prime, epsilon, delta, seed, executor, n_chunks, event_families, progress
        As for :func:`dpverify.audit`.
    n_samples : int, default 1_000_000
        The budget: the most samples per input the audit may draw (the last look).
    alpha : float, default 0.05
        Overall false-alarm rate of ``violation``, over all looks.
    first_look : int, default 1000
        Samples per input at the first look (raised to the fewest that could
        certify a violation at that look's level).
    growth : float, default 2
        Ratio of successive look sizes.
    final_share : float, default 0.5
        Share of ``alpha`` spent on the last look.
    selection_fraction : float, default 0.1
        Share of each look's samples used to choose its event.

    Returns
    -------
    SequentialAuditResult
        ``n_samples`` is the number of samples per input used;
        ``looks`` records each look, ``stopped_early`` whether it stopped
        before the budget.

    Raises
    ------
    InvalidClaimError, InvalidParameterError, IdenticalInputsError, MechanismError, OutputTypeError
        As for :func:`dpverify.audit`.
    InsufficientSamplesError
        If even the whole budget could not certify a violation at the last look's level.

    Examples
    --------
    >>> import dpverify
    >>> from dpverify.zoo import LaplaceMechanism
    >>> broken = LaplaceMechanism(epsilon=1.0)          # claimed 0.1 below: 10x too little noise
    >>> r = dpverify.sequential_audit(broken, 0.0, 1.0, epsilon=0.1, n_samples=10**6, seed=3)
    >>> r.violation, r.n_samples < 10**5
    (True, True)
    """
    epsilon = check.check_epsilon(epsilon)
    delta = check.check_delta(delta)
    alpha = check.check_alpha(alpha)
    n_samples = check.check_positive_int(n_samples, "n_samples", minimum=2)
    selection_fraction = check.check_fraction(selection_fraction, "selection_fraction")
    n_chunks = check.check_positive_int(n_chunks, "n_chunks")
    from .audit import _inputs_equal

    if _inputs_equal(x, x_prime):
        raise IdenticalInputsError(
            f"x and x_prime are equal ({x!r}); an audit compares two different neighbouring inputs"
        )
    first_look = check.check_positive_int(first_look, "first_look", minimum=2)
    schedule = look_schedule(n_samples, min(first_look, n_samples), growth)
    alphas = alpha_spending(alpha, len(schedule), final_share)
    # Drop early looks too small to ever certify at their level: they would spend alpha for nothing.
    def can_certify(n, a):
        return n - max(1, int(selection_fraction * n)) >= minimum_certifying_samples(epsilon, delta, a)

    if not can_certify(n_samples, alphas[-1]):
        required = math.ceil(minimum_certifying_samples(epsilon, delta, alphas[-1])
                             / (1 - selection_fraction)) + 1
        raise InsufficientSamplesError(
            f"n_samples={n_samples} cannot certify a violation of eps={epsilon:g}, delta={delta:g} "
            f"at the last look's level {alphas[-1]:.3g} (alpha={alpha:g}, final_share={final_share:g}): "
            f"at least {required} samples per input are needed",
            required=required,
        )
    while len(schedule) > 1 and not can_certify(schedule[0], alphas[0]):
        schedule = schedule[1:]
        alphas = alpha_spending(alpha, len(schedule), final_share)
    sequence, entropy = resolve_seed(seed)
    return _run_looks(
        mechanism, x, x_prime, schedule=schedule, alphas=alphas, overall_alpha=alpha,
        epsilon=epsilon, delta=delta, sequence=sequence, entropy=entropy, executor=executor,
        selection_fraction=selection_fraction, n_chunks=n_chunks, event_families=event_families,
        progress=progress,
    )
