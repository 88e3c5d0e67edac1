"""One training run: a Gaussian DP (f-DP) bound from many canaries' scores (Mahloujifar, Melis and Chaudhuri 2025).

The game is that of :mod:`.one_run`: ``m`` canaries, each in the training set independently with
probability 1/2, one run, one score per canary; the auditor guesses "in" for the ``k+`` highest
scores and "out" for the ``k-`` lowest, and abstains on the rest: ``k = k+ + k-`` guesses, ``c``
of them correct. Instead of (epsilon, delta), the analysis reads a trade-off curve ``f``
through its *inverse blow-up* ``g(y) = inf{a : 1 - f(a) >= y}``, the least type I error of a
test with power ``y`` (for mu-Gaussian DP, ``g(y) = Phi(Phi^-1(y) - mu)``).

**The test** (Mahloujifar, Melis and Chaudhuri 2025, the bound on the number of correct guesses
of an f-DP mechanism in the reconstruction game with abstention, binary secrets, and its numerical
procedure ``audit_rh_with_cap``): at level ``tau`` start from ``r_c = tau c / m`` and
``h_c = tau (k - c) / m`` and for ``i = c - 1, ..., 0`` set

    h_i = max(h_{i+1}, g(r_{i+1})),    r_i = r_{i+1} + i / (k - i) * (h_i - h_{i+1}).

If ``r_0 + h_0 > k / m``, then an f-DP run makes ``c`` or more correct guesses with probability
at most ``tau``: the claim ``f`` is rejected. (``r_i`` and ``h_i`` bound from below the chance
that a canary drawn at random is guessed rightly, and wrongly, while ``i`` or more guesses are
right, were that chance ``tau``; their sum at ``i = 0`` is exactly ``k / m``, the chance it is
guessed at all.) Like :mod:`.one_run`'s bound it rests on the random inclusion bits, not on
independent runs.

**What is certified.** The largest mu whose Gaussian curve is rejected, at level
``alpha / |grid|`` for each ``(k+, k-)`` of a grid fixed before the scores are read (a union bound
pays for choosing the best). Both ``r_i`` and ``h_i`` only grow, and ``r_i - w h_i`` is kept by
the step with weight ``w = i / (k - i)``, which shrinks as ``i`` falls; by induction ``r_0 + h_0``
does not decrease when ``g`` grows pointwise or ``tau`` grows. A larger mu gives a smaller ``g``,
so the rejected mu form an interval from 0: the bound is the largest rejected mu found by a
search that keeps only mu it computed as rejected, and it exceeds the true mu with probability at
most alpha. :attr:`OneRunFdpAuditResult.ceiling` is the bound every guess correct would give on
the same grid: what ``m`` canaries allow. A claim of a kind with a trade-off curve (mu-Gaussian
DP, f-DP, and (epsilon, delta)-DP through its curve: the kinds whose record has ``inverse_blow_up``)
is tested by the same recursion with its own ``g``.

References
----------
S. Mahloujifar, L. Melis and K. Chaudhuri, "Auditing f-Differential Privacy in One Run", ICML 2025
(arXiv:2410.22235; the bound for f-DP with abstention and its recursion ``audit_rh_with_cap``).
T. Steinke, M. Nasr and M. Jagielski, "Privacy Auditing with One (1) Training Run", NeurIPS 2023.
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from .._results import Result
from .._validation import check_alpha, check_instance
from ..claims import PrivacyClaim
from ..claims.gaussian import GAUSSIAN_DP, gaussian_inverse_blow_up
from ..errors import InvalidClaimError
from .one_run import OneRunResultParts, check_guess_grid, correct_guesses, grid_point_fields, scores_and_inclusions

__all__ = ["one_run_fdp_audit", "OneRunFdpAuditResult", "one_run_fdp_rejects"]

#: Largest mu searched (``Phi(Phi^-1(y) - mu)`` is 0 in doubles beyond it for every y < 1).
MU_MAX = 64.0
#: Candidates per round and rounds of the search on mu (and on the p-value's level): the bound is
#: kept to within ``MU_MAX / 32^4``, about 6e-5.
_CANDIDATES, _ROUNDS = 32, 4
#: Smallest level the p-value search tries (a smaller p-value is reported as this one).
_LEVEL_MIN = 1e-30


@dataclass(frozen=True)
class OneRunFdpAuditResult(OneRunResultParts, Result):
    """What one run's canary scores certify about a trade-off curve (:func:`one_run_fdp_audit`).

    Attributes
    ----------
    kind : str
        The claim kind whose parameter :attr:`lower_bound` bounds: ``"gdp"`` (mu-Gaussian DP).
    lower_bound : float
        The certified lower bound on mu, confidence ``1 - alpha`` (0 when no grid point rejects mu = 0,
        i.e. the guesses are no better than chance).
    alpha : float
        The false-alarm rate of the bound (and of :attr:`violation`).
    n_canaries, n_included : int
        ``m``, and the canaries whose inclusion bit is 1.
    k_plus, k_minus, n_guesses, n_correct : int
        The grid point that gave the bound, ``k = k_plus + k_minus`` and the correct guesses there.
    ceiling : float
        The bound if every guess were correct, on the same grid: what ``m`` canaries allow.
    grid : tuple of (int, int)
        The ``(k+, k-)`` tested, each at level ``alpha / len(grid)``.
    claim : PrivacyClaim or None
        The claim tested (a kind with a trade-off curve), if any.
    pvalue : float or None
        Of the claim: ``len(grid)`` times the smallest level at which a grid point rejects it
        (at most 1; reported from above, and at most alpha exactly when a grid point rejects it at
        ``alpha / len(grid)``); None without a claim.
    seed : object
        The seed of :func:`~dpverify.audits.one_run.canary_inclusions` when the bits were drawn here.
    """

    kind: str
    lower_bound: float

    _DERIVED = ("violation",)
    _NOT_REPLAYABLE = (
        "it holds neither the canaries' scores nor their inclusion bits; run one_run_fdp_audit on them again"
    )

    def summary(self) -> str:
        """The bound, the guesses behind it, the ceiling and the verdict on the claim."""
        return self._summary(
            f"certified mu >= {self.lower_bound:.4g} (Gaussian DP; {1 - self.alpha:.4%} confidence; "
            "one run, Mahloujifar, Melis and Chaudhuri 2025)",
            f"mu {self.ceiling:.4g}",
        )


def one_run_fdp_rejects(n_canaries, n_guesses, n_correct, level, inverse_blow_up) -> np.ndarray:
    """The test of the module docstring, vectorised: does ``r_0 + h_0`` exceed ``k / m``?

    Parameters
    ----------
    n_canaries : int
        ``m``.
    n_guesses, n_correct, level : array_like
        ``k``, ``c`` and ``tau``, broadcast to one shape (each entry one test).
    inverse_blow_up : callable
        ``g``: maps an array of that shape (powers in [0, 1]) to the least type I errors, entry by
        entry (so one call can test several curves, one per entry).

    Returns
    -------
    numpy.ndarray of bool
        True where the claim read through ``g`` is rejected at its level.

    Notes
    -----
    Both sequences only grow, so an entry is decided as soon as ``r_i + h_i`` exceeds ``k / m``
    (rejected) or ``h`` stops growing (then nothing changes again: not rejected).
    """
    k, c, tau = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(n_guesses, n_correct, level))
    r, h = tau * c / n_canaries, tau * (k - c) / n_canaries
    total = k / n_canaries
    rejected = r + h > total
    open_ = ~rejected & (c > 0)
    i = c - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        while open_.any():
            grown = np.where(open_, np.maximum(h, inverse_blow_up(np.minimum(r, 1.0))), h)
            r = np.where(open_, r + i / (k - i) * (grown - h), r)
            moved = grown > h
            h = grown
            rejected |= open_ & (r + h > total)
            i = i - 1
            open_ &= moved & ~rejected & (i >= 0)
    return rejected


def _largest_rejected_mu(m, guesses, correct, level) -> np.ndarray:
    """Per grid point, the largest mu found rejected at ``level`` (0 where mu = 0 is not): rounds of
    ``_CANDIDATES`` evenly spaced mu between the last rejected and the first kept."""
    guesses, correct = np.asarray(guesses, dtype=float), np.asarray(correct, dtype=float)
    lo, hi = np.zeros(guesses.size), np.full(guesses.size, MU_MAX)
    steps = np.arange(1, _CANDIDATES + 1) / _CANDIDATES
    for _ in range(_ROUNDS):
        mus = lo[:, None] + (hi - lo)[:, None] * steps
        shape = mus.shape
        rejected = one_run_fdp_rejects(
            m,
            np.broadcast_to(guesses[:, None], shape),
            np.broadcast_to(correct[:, None], shape),
            level,
            lambda y, mus=mus: gaussian_inverse_blow_up(y, mus),
        )
        first_kept = np.where(rejected.all(axis=1), _CANDIDATES, np.argmin(rejected, axis=1))
        rows = np.arange(guesses.size)
        lo = np.where(first_kept > 0, mus[rows, np.maximum(first_kept - 1, 0)], lo)
        hi = np.where(first_kept < _CANDIDATES, mus[rows, np.minimum(first_kept, _CANDIDATES - 1)], hi)
    at_zero = one_run_fdp_rejects(m, guesses, correct, level, lambda y: y)
    return np.where(at_zero, lo, 0.0)


def _smallest_rejecting_level(m, guesses, correct, inverse, level) -> np.ndarray:
    """Per grid point, a level at which ``inverse``'s claim is rejected, found from above: in
    ``(0, level]`` where ``level`` rejects it, else in ``(level, 1]``; 1 where nothing does."""
    guesses, correct = np.asarray(guesses, dtype=float), np.asarray(correct, dtype=float)
    at_level = one_run_fdp_rejects(m, guesses, correct, level, inverse)
    lo = np.where(at_level, np.log(_LEVEL_MIN), np.log(level))
    hi = np.where(at_level, np.log(level), 0.0)
    found = np.where(at_level, level, 1.0)
    steps = np.arange(1, _CANDIDATES + 1) / _CANDIDATES
    for _ in range(_ROUNDS):
        logs = lo[:, None] + (hi - lo)[:, None] * steps
        rejected = one_run_fdp_rejects(m, guesses[:, None], correct[:, None], np.exp(logs), inverse)
        first = np.where(rejected.any(axis=1), np.argmax(rejected, axis=1), _CANDIDATES)
        rows = np.arange(guesses.size)
        hit = first < _CANDIDATES
        found = np.where(hit, np.exp(logs[rows, np.minimum(first, _CANDIDATES - 1)]), found)
        hi = np.where(hit, logs[rows, np.minimum(first, _CANDIDATES - 1)], hi)
        lo = np.where(hit & (first > 0), logs[rows, np.maximum(first - 1, 0)], np.where(hit, lo, hi))
    return found


@functools.lru_cache(maxsize=256)
def _ceiling(m, points, level) -> float:
    """The bound with every guess correct, the best over the grid (the same for every run of a size)."""
    sizes = [sum(pt) for pt in points]
    return float(np.max(_largest_rejected_mu(m, sizes, sizes, level)))


def _inverse_of(claim):
    if claim is None:
        return None
    check_instance(claim, PrivacyClaim, f"claim must be a dpverify.PrivacyClaim, got {claim!r}", InvalidClaimError)
    record = claim.kind_record
    if record.inverse_blow_up is None:
        raise InvalidClaimError(
            f"the one-run f-DP analysis tests claims with a trade-off curve (kinds whose record has "
            f"inverse_blow_up: (epsilon, delta)-DP, Gaussian DP, f-DP); {claim} has none"
        )
    if record.audit_check is not None:
        record.audit_check(claim)
    return record.inverse_blow_up(claim)


def one_run_fdp_audit(scores, included=None, *, seed=None, alpha=0.05, claim=None, grid=None) -> OneRunFdpAuditResult:
    """Certify a lower bound on mu (Gaussian DP) from one run's canary scores (Mahloujifar, Melis and Chaudhuri 2025).

    Parameters
    ----------
    scores : array_like of float, shape (m,)
        One finite score per canary; higher means more likely included.
    included : array_like of bool, shape (m,), optional
        The inclusion bits the run used, each drawn independently with probability 1/2 (and
        independently of everything else). Omitted: :func:`~dpverify.audits.one_run.canary_inclusions`
        of ``seed``.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, optional
        The seed the bits were drawn from (only without ``included``), as for :func:`dpverify.one_run_audit`.
    alpha : float, default 0.05
        False-alarm rate: the bound exceeds the true mu with probability at most alpha.
    claim : PrivacyClaim, optional
        A claim with a trade-off curve (``PrivacyClaim.gdp(mu)``, ``PrivacyClaim.tradeoff(f)``, or
        ``PrivacyClaim(epsilon, delta)`` through its curve) to test: ``violation`` when a grid point
        rejects it.
    grid : sequence of (int, int), optional
        The ``(k+, k-)`` to try, fixed before the scores are read; default
        :func:`~dpverify.audits.one_run.one_run_guess_grid`.

    Returns
    -------
    OneRunFdpAuditResult

    Raises
    ------
    InvalidParameterError
        Scores not a finite 1-D array of at least 2, bits of another length, both or neither of
        ``included`` and ``seed``, a bad grid or alpha.
    InvalidClaimError
        A claim of a kind without a trade-off curve (zCDP, Rényi DP), or one no audit can refute
        (mu = 0, epsilon = 0).

    Examples
    --------
    >>> import numpy as np
    >>> from dpverify.audits.one_run import canary_inclusions
    >>> from dpverify.audits.one_run_fdp import one_run_fdp_audit
    >>> bits = canary_inclusions(1000, seed=1)
    >>> scores = np.where(bits, 1.0, -1.0)  # a model that reveals every canary
    >>> result = one_run_fdp_audit(scores, seed=1)
    >>> result.kind, result.n_correct == result.n_guesses, 0 < result.lower_bound <= result.ceiling
    ('gdp', True, True)
    """
    x, bits = scores_and_inclusions(scores, included, seed)
    m = x.size
    alpha = check_alpha(alpha)
    inverse = _inverse_of(claim)
    points = check_guess_grid(grid, m)
    level = alpha / len(points)
    correct = correct_guesses(x, bits, points)
    sizes = [sum(pt) for pt in points]
    bounds = _largest_rejected_mu(m, sizes, correct, level)
    best = int(np.argmax(bounds))
    pvalue = None
    if inverse is not None:
        levels = _smallest_rejecting_level(m, sizes, correct, inverse, level)
        pvalue = float(min(1.0, len(points) * float(np.min(levels))))
    return OneRunFdpAuditResult(
        kind=GAUSSIAN_DP.name,
        lower_bound=float(bounds[best]),
        alpha=alpha,
        ceiling=_ceiling(m, points, level),
        claim=claim,
        pvalue=pvalue,
        **grid_point_fields(bits, points, correct, best, seed=seed, included=included),
    )
