"""One training run: an (epsilon, delta) lower bound from many canaries' scores (Steinke, Nasr and Jagielski 2023).

``m`` canaries are each put in the training set independently with probability 1/2 (the
inclusion bits ``S``); one run trains the model, and a score per canary says how strongly the
model suggests that canary was included (higher: more likely in). The auditor guesses
"included" for the ``k+`` highest scores and "excluded" for the ``k-`` lowest, and abstains on
the rest. For an (epsilon, delta)-DP training algorithm, the number ``W`` of correct guesses
among ``r = k+ + k-`` satisfies, for every ``v`` (Steinke, Nasr and Jagielski 2023, Theorem 3.1),

    P[W >= v] <= f(v) + 2 m delta max_{i = 1..v} (f(v - i) - f(v)) / i,
    f(v) = P[Binomial(r, e^eps / (1 + e^eps)) >= v],

whatever the dependence between canaries through the one model: the bound rests on the random
inclusion bits, not on independent runs. The right-hand side is the p-value of ``(eps, delta)``
at the observed ``v``. Each ``(k+, k-)`` of a grid fixed before the scores are read is tested at
level ``alpha / |grid|`` (a union bound pays for choosing the best); the certified bound is the
largest epsilon any grid point rejects, found by bisection that only ever keeps an epsilon whose
p-value was computed at most ``alpha / |grid|`` (so the bound is valid whether or not the p-value
is monotone in epsilon: a true ``eps*`` below it is an ``eps`` at least ``eps*`` the mechanism
also satisfies, rejected at that level).

With ``m`` canaries even perfect guesses cap the bound: :attr:`OneRunAuditResult.ceiling` is the
bound every guess correct would give on the same grid. For a Gaussian DP bound, or a claim stated
as a trade-off curve, from the same scores: :mod:`.one_run_fdp` (Mahloujifar, Melis and Chaudhuri 2025).

References
----------
T. Steinke, M. Nasr and M. Jagielski, "Privacy Auditing with One (1) Training Run", NeurIPS 2023
(Theorem 3.1; the p-value and the bisection of its Algorithm 2 and appendix code).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from scipy.special import expit
from scipy.stats import binom

from .._results import Result, dataclass_to_dict
from .._validation import check_alpha, check_delta, check_instance, check_positive_int, check_seed
from ..claims import PrivacyClaim
from ..errors import InvalidClaimError, InvalidParameterError

__all__ = ["one_run_audit", "OneRunAuditResult", "canary_inclusions", "one_run_guess_grid", "one_run_p_value"]

#: Shares of the canaries guessed on each side by the default grid.
GRID_SHARES = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
#: Bisection steps on epsilon (the bound is kept to within 2^-30 of the bracket's width).
_BISECTION_STEPS = 30
#: Largest epsilon searched: e^eps stays a finite double.
_EPS_MAX = 700.0


@dataclass(frozen=True, kw_only=True)
class OneRunResultParts:
    """What the one-run results share (:class:`OneRunAuditResult`, and
    :class:`~dpverify.audits.one_run_fdp.OneRunFdpAuditResult`): the fields from ``alpha`` on (the
    grid point behind the bound, the ceiling, the claim and its p-value, the seed; keyword-only, so
    each result's own fields come first in its constructor), the verdict, plain data and its
    reading back, and the summary around the bound's own line. Put before :class:`Result` in the bases."""

    alpha: float
    n_canaries: int
    n_included: int
    k_plus: int
    k_minus: int
    n_guesses: int
    n_correct: int
    ceiling: float
    grid: tuple
    claim: PrivacyClaim | None = None
    pvalue: float | None = None
    seed: object = None

    @property
    def violation(self) -> bool:
        """``pvalue <= alpha``: the claim is refuted at level ``alpha`` (False without a claim)."""
        return self.pvalue is not None and bool(self.pvalue <= self.alpha)

    def to_dict(self) -> dict:
        """The fields and ``violation`` as plain data."""
        return dataclass_to_dict(self, violation=self.violation)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["grid"] = tuple(tuple(int(k) for k in point) for point in data["grid"])
        if data.get("claim") is not None:
            data["claim"] = PrivacyClaim.from_dict(data["claim"])
        return data

    def contradictions(self) -> list:
        """Those of every result, a claim without its p-value or a p-value without its claim, and counts of guesses
        that no run makes (more correct than guessed, more guessed than canaries)."""
        found = super().contradictions()
        if found:
            return found
        if not 0.0 <= getattr(self, "delta", 0.0) < 1.0:
            found.append(f"delta={self.delta!r} is not in [0, 1)")
        if (self.claim is None) != (self.pvalue is None):
            found.append(f"claim={self.claim} but pvalue={self.pvalue!r}: a claim is tested by its p-value")
        if not (0 <= self.n_correct <= self.n_guesses == self.k_plus + self.k_minus <= self.n_canaries) or not (
            0 <= min(self.k_plus, self.k_minus) and 0 <= self.n_included <= self.n_canaries
        ):
            found.append(
                f"{self.n_correct} correct of {self.n_guesses} guesses (k+={self.k_plus}, k-={self.k_minus}) among "
                f"{self.n_canaries} canaries ({self.n_included} included) is not a count of guesses"
            )
        return found

    def _summary(self, bound_line: str, ceiling: str) -> str:
        """``bound_line``, the guesses behind it, the ceiling (as ``ceiling`` says it) and the verdict."""
        lines = [
            bound_line,
            f"{self.n_correct} of {self.n_guesses} guesses correct (k+={self.k_plus}, k-={self.k_minus}; "
            f"{len(self.grid)} grid points) among {self.n_canaries} canaries ({self.n_included} included)",
            f"ceiling with {self.n_canaries} canaries (every guess correct): {ceiling}",
        ]
        if self.claim is not None:
            verdict = "VIOLATION of" if self.violation else "no violation found of"
            lines.insert(
                0, f"verdict: {verdict} the claim ({self.claim}) at alpha={self.alpha:g} (p-value {self.pvalue:.3g})"
            )
        return "\n".join(lines)


@dataclass(frozen=True)
class OneRunAuditResult(OneRunResultParts, Result):
    """What one run's canary scores certify (:func:`one_run_audit`).

    Attributes
    ----------
    epsilon_lower_bound : float
        The certified lower bound on epsilon at :attr:`delta`, confidence ``1 - alpha`` (0 when
        no grid point rejects epsilon = 0).
    delta : float
        The delta of the bound.
    alpha : float
        The false-alarm rate of the bound (and of :attr:`violation`).
    n_canaries : int
        ``m``.
    n_included : int
        The canaries whose inclusion bit is 1.
    k_plus, k_minus : int
        The grid point that gave the bound (guesses "in" for the ``k_plus`` highest scores,
        "out" for the ``k_minus`` lowest).
    n_guesses, n_correct : int
        ``r = k_plus + k_minus`` and the correct guesses among them at that grid point.
    ceiling : float
        The bound if every guess were correct, on the same grid: what ``m`` canaries allow.
    grid : tuple of (int, int)
        The ``(k+, k-)`` tested, each at level ``alpha / len(grid)``.
    claim : PrivacyClaim or None
        The (epsilon, delta) claim tested, if any.
    pvalue : float or None
        Of the claim: ``len(grid)`` times the smallest grid point's p-value at the claimed
        epsilon (at most 1); None without a claim.
    seed : object
        The seed of :func:`canary_inclusions` when the bits were drawn here; None when given.
    """

    epsilon_lower_bound: float
    delta: float

    _DERIVED = ("violation",)
    _NOT_REPLAYABLE = "it holds neither the canaries' scores nor their inclusion bits; run one_run_audit on them again"

    def summary(self) -> str:
        """The bound, the guesses behind it, the ceiling and the verdict on the claim."""
        return self._summary(
            f"certified epsilon >= {self.epsilon_lower_bound:.4g} at delta={self.delta:g} "
            f"({1 - self.alpha:.4%} confidence; one run, Steinke, Nasr and Jagielski 2023)",
            f"{self.ceiling:.4g}",
        )


def canary_inclusions(n_canaries, seed) -> np.ndarray:
    """The inclusion bits of ``n_canaries`` canaries, each 1 with probability 1/2, from ``seed``.

    Draw them with this before training and pass the same ``seed`` to :func:`one_run_audit`.
    """
    n = check_positive_int(n_canaries, "n_canaries")
    return np.random.default_rng(check_seed(seed)).random(n) < 0.5


def one_run_guess_grid(n_canaries) -> tuple:
    """The default ``(k+, k-)`` grid: for each share of :data:`GRID_SHARES` of the canaries (at
    least one), ``k`` "in" guesses alone and ``k`` on each side."""
    m = check_positive_int(n_canaries, "n_canaries", minimum=2)
    ks = sorted({max(1, int(m * share)) for share in GRID_SHARES})
    return tuple((k, minus) for k in ks for minus in (0, k) if k + minus <= m)


def one_run_p_value(n_canaries, n_guesses, n_correct, epsilon, delta) -> float:
    """``P[W >= v]``'s bound of Theorem 3.1 (Steinke, Nasr and Jagielski 2023) for an (epsilon, delta)-DP run.

    ``f(v) + 2 m delta max_{i=1..v} P[v - i <= B < v] / i`` with ``B ~ Binomial(r, e^eps/(1+e^eps))``,
    at most 1.
    """
    m, r, v = n_canaries, n_guesses, n_correct
    q = float(expit(epsilon))
    tail = float(binom.sf(v - 1, r, q))
    if delta == 0 or v == 0:
        return min(1.0, tail)
    below = np.cumsum(binom.pmf(np.arange(v - 1, -1, -1), r, q))  # below[i-1] = P[v - i <= B < v]
    return min(1.0, tail + 2 * m * delta * float(np.max(below / np.arange(1, v + 1))))


@functools.lru_cache(maxsize=256)
def _ceiling(m, points, delta, level) -> float:
    """The bound with every guess correct, the best over the grid (the same for every run of a size)."""
    return max(_largest_rejected(m, sum(pt), sum(pt), delta, level) for pt in points)


def _largest_rejected(m, r, v, delta, level) -> float:
    """The largest epsilon found with p-value <= ``level`` (0 when epsilon = 0 is not rejected)."""
    if one_run_p_value(m, r, v, 0.0, delta) > level:
        return 0.0
    lo, hi = 0.0, 1.0
    while hi < _EPS_MAX and one_run_p_value(m, r, v, hi, delta) <= level:
        lo, hi = hi, min(2 * hi, _EPS_MAX)
    for _ in range(_BISECTION_STEPS):
        mid = (lo + hi) / 2
        if one_run_p_value(m, r, v, mid, delta) <= level:
            lo = mid
        else:
            hi = mid
    return lo


def scores_and_inclusions(scores, included, seed) -> tuple:
    """The canaries' scores as a finite 1-D float array of at least 2 and their inclusion bits, given
    (``included``) or drawn by :func:`canary_inclusions` from ``seed`` (exactly one of the two)."""
    try:
        x = np.asarray(scores, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"scores must be a 1-D array of at least 2 finite numbers: {exc}") from exc
    if x.ndim != 1 or x.size < 2 or not np.all(np.isfinite(x)):
        raise InvalidParameterError(f"scores must be a 1-D array of at least 2 finite numbers, got shape {x.shape}")
    m = x.size
    if (included is None) == (seed is None):
        raise InvalidParameterError(
            "give the inclusion bits (included=) or the seed they were drawn from (seed=), one of them"
        )
    bits = canary_inclusions(m, seed) if included is None else np.asarray(included)
    if bits.shape != (m,) or bits.dtype != bool:
        raise InvalidParameterError(
            f"included must be {m} booleans, one per score, got {bits.dtype} of shape {bits.shape}"
        )
    return x, bits


def correct_guesses(scores, included, grid) -> list:
    """Correct guesses at each ``(k+, k-)``: the k+ highest scores guessed in, the k- lowest out
    (ties broken by canary index, which the inclusion bits do not depend on)."""
    order = np.lexsort((np.arange(scores.size), -scores))  # highest first
    ranked = included[order]
    in_top = np.concatenate(([0], np.cumsum(ranked)))
    out_bottom = np.concatenate(([0], np.cumsum(~ranked[::-1])))
    return [int(in_top[plus] + out_bottom[minus]) for plus, minus in grid]


def grid_point_fields(bits, points, correct, best, *, seed, included) -> dict:
    """The fields of :class:`OneRunResultParts` that record the canaries and the grid point ``best``
    behind the bound: ``n_canaries``, ``n_included``, ``k_plus``, ``k_minus``, ``n_guesses``,
    ``n_correct``, ``grid`` and ``seed`` (None when the bits were given as ``included``)."""
    return {
        "n_canaries": bits.size,
        "n_included": int(bits.sum()),
        "k_plus": points[best][0],
        "k_minus": points[best][1],
        "n_guesses": sum(points[best]),
        "n_correct": correct[best],
        "grid": points,
        "seed": seed if included is None else None,
    }


def check_guess_grid(grid, m) -> tuple:
    """``grid`` (default :func:`one_run_guess_grid`) as a tuple of ``(k+, k-)``, each with
    ``k+, k- >= 0`` and ``1 <= k+ + k- <= m``."""
    grid = one_run_guess_grid(m) if grid is None else grid
    points = tuple((int(p), int(n)) for p, n in grid)
    bad = [pt for pt in points if min(pt) < 0 or sum(pt) < 1 or sum(pt) > m]
    if not points or bad:
        raise InvalidParameterError(
            f"each (k+, k-) of the grid needs k+, k- >= 0 and 1 <= k+ + k- <= {m} (the canaries), got {bad or grid!r}"
        )
    return points


def one_run_audit(
    scores, included=None, *, seed=None, delta=None, alpha=0.05, claim=None, grid=None
) -> OneRunAuditResult:
    """Certify a lower bound on epsilon from one run's canary scores (Steinke, Nasr and Jagielski 2023).

    Parameters
    ----------
    scores : array_like of float, shape (m,)
        One finite score per canary; higher means more likely included.
    included : array_like of bool, shape (m,), optional
        The inclusion bits the run used, each drawn independently with probability 1/2 (and
        independently of everything else). Omitted: :func:`canary_inclusions` of ``seed``.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        The seed the bits were drawn from with :func:`canary_inclusions` (only without ``included``);
        a ``Generator`` is drawn from as :func:`numpy.random.default_rng` would, so pass the same
        seed value (not a generator already used) to both calls.
    delta : float, optional
        The delta of the bound; default the claim's, else 0.
    alpha : float, default 0.05
        False-alarm rate: the bound exceeds the true epsilon at ``delta`` with probability at most alpha.
    claim : PrivacyClaim, optional
        An (epsilon, delta) claim to test: ``violation`` when the grid rejects its epsilon.
    grid : sequence of (int, int), optional
        The ``(k+, k-)`` to try, fixed before the scores are read; default :func:`one_run_guess_grid`.

    Returns
    -------
    OneRunAuditResult

    Raises
    ------
    InvalidParameterError
        Scores not a finite 1-D array of at least 2, bits of another length, both or neither of
        ``included`` and ``seed``, a bad grid or alpha.
    InvalidClaimError
        A claim that is not an (epsilon, delta) claim, a ``delta`` other than the claim's.

    Examples
    --------
    >>> import numpy as np
    >>> from dpverify.audits.one_run import canary_inclusions, one_run_audit
    >>> bits = canary_inclusions(1000, seed=1)
    >>> scores = np.where(bits, 1.0, -1.0)  # a model that reveals every canary
    >>> result = one_run_audit(scores, seed=1)
    >>> result.n_correct == result.n_guesses, result.epsilon_lower_bound <= result.ceiling
    (True, True)
    """
    x, bits = scores_and_inclusions(scores, included, seed)
    m = x.size
    alpha = check_alpha(alpha)
    delta = _delta_of(claim, delta)
    points = check_guess_grid(grid, m)
    level = alpha / len(points)
    correct = correct_guesses(x, bits, points)
    bounds = [_largest_rejected(m, sum(pt), v, delta, level) for pt, v in zip(points, correct)]
    best = int(np.argmax(bounds))
    ceiling = _ceiling(m, points, delta, level)
    pvalue = None
    if claim is not None:
        smallest = min(one_run_p_value(m, sum(pt), v, claim.epsilon, delta) for pt, v in zip(points, correct))
        pvalue = min(1.0, len(points) * smallest)
    return OneRunAuditResult(
        epsilon_lower_bound=bounds[best],
        delta=delta,
        alpha=alpha,
        ceiling=ceiling,
        claim=claim,
        pvalue=pvalue,
        **grid_point_fields(bits, points, correct, best, seed=seed, included=included),
    )


def _delta_of(claim, delta) -> float:
    if claim is None:
        return 0.0 if delta is None else check_delta(delta)
    check_instance(claim, PrivacyClaim, f"claim must be a dpverify.PrivacyClaim, got {claim!r}", InvalidClaimError)
    if claim.epsilon is None:
        raise InvalidClaimError(f"the one-run analysis certifies (epsilon, delta); the claim {claim} states no epsilon")
    if delta is not None and check_delta(delta) != claim.delta:
        raise InvalidClaimError(f"delta={delta!r} differs from the claim's delta={claim.delta!r}: give one of them")
    return claim.delta
