"""Growth exponents with a confidence interval: running time (or any cost) as a measured law in the input size.

A claim such as "O(m l)" is checked by running the *whole* algorithm at several sizes and fitting the slope of
``ln cost`` on ``ln size``. A slope is only evidence when it comes with an interval that a loaded machine does
not fool, so :func:`fit_growth_exponent` measures in rounds:

- cost is the CPU time of this process (:func:`time.process_time`), so time spent descheduled by other jobs
  does not count;
- each round runs every size once, in an order shuffled per round from a fixed seed, so load that comes and
  goes falls on all sizes alike and no size always runs first; each round is one draw of the algorithm at
  each size (the round index is its seed);
- each round gives one slope (least squares of ``ln cost`` on ``ln size``); the exponent is the **median**
  of the round slopes, and its interval is the distribution-free interval for a median: order statistics of
  the round slopes, whose coverage follows from Binomial(rounds, 1/2) alone (:func:`median_interval`). A
  burst of load that distorts some rounds moves the interval only if it distorts most of them;
- one untimed call at the smallest size compiles what needs compiling (numba) before anything is timed;
  then a warm-up round (sizes in increasing order) stops as soon as one call takes more than ``call_limit``
  seconds: a step that grows much faster than claimed then fails in seconds instead of running for hours,
  and the fit says why it stopped.

:func:`growth_exponent_from_table` applies the same statistics to any table of paired positive costs
(rounds x sizes), for example regret of one seed across K.

References
----------
.. [1] M. Hollander, D. A. Wolfe and E. Chicken, "Nonparametric Statistical Methods", 3rd ed., Wiley, 2014,
   Section 3.6 (the distribution-free confidence interval for a median, from the sign test).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from algorithms.errors import AlgorithmInputError

__all__ = [
    "GrowthFit",
    "round_slopes",
    "median_interval",
    "growth_exponent_from_table",
    "fit_growth_exponent",
]


@dataclass(frozen=True)
class GrowthFit:
    """A fitted growth exponent: the median of per-round slopes, with its distribution-free interval.

    Attributes
    ----------
    sizes : tuple of float
        The input sizes, increasing.
    costs : numpy.ndarray
        Measured costs, shape ``(rounds, len(sizes))`` (CPU seconds for :func:`fit_growth_exponent`).
    slopes : numpy.ndarray
        One least-squares slope of ``ln cost`` on ``ln size`` per round.
    exponent : float
        The median of ``slopes``.
    lower, upper : float
        One-sided confidence bounds on the median slope, each missing with probability at most ``alpha``.
    alpha : float
        The miss probability of each bound.
    abandoned : str or None
        Why the measurement stopped before fitting (a call over the time limit), else None; then ``slopes``
        is empty and the bounds are NaN.
    """

    sizes: tuple
    costs: np.ndarray = field(repr=False)
    slopes: np.ndarray = field(repr=False)
    exponent: float
    lower: float
    upper: float
    alpha: float
    abandoned: str | None = None

    @property
    def median_costs(self) -> np.ndarray:
        """Median cost at each size, over the rounds."""
        return np.median(self.costs, axis=0)

    def summary(self) -> str:
        """One line for a test's log or an assertion message."""
        if self.abandoned:
            return f"abandoned: {self.abandoned}"
        medians = ", ".join(f"{s:g}: {c:.3g}" for s, c in zip(self.sizes, self.median_costs))
        return (
            f"exponent {self.exponent:.3f}, one-sided bounds [{self.lower:.3f}, {self.upper:.3f}] at alpha "
            f"{self.alpha:g} over {self.slopes.size} rounds; median costs {{{medians}}}"
        )


def round_slopes(sizes, costs) -> np.ndarray:
    """Least-squares slope of ``ln cost`` on ``ln size`` for each row of ``costs`` (shape rounds x sizes)."""
    x = np.log(np.asarray(sizes, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(np.asarray(costs, dtype=float))
    if y.ndim != 2 or y.shape[1] != x.size or x.size < 2 or np.ptp(x) == 0:
        raise AlgorithmInputError(f"costs must be (rounds, {x.size}) over at least two distinct sizes")
    if not np.all(np.isfinite(y)):
        raise AlgorithmInputError("costs must be positive and finite (a zero CPU time is below the clock's resolution)")
    xc = x - x.mean()
    return (y - y.mean(axis=1, keepdims=True)) @ xc / (xc @ xc)


def median_interval(values, alpha: float) -> tuple[float, float]:
    """Distribution-free one-sided confidence bounds on the median of i.i.d. ``values`` ([1]_, Section 3.6).

    The lower bound is the ``j``-th smallest value, with ``j`` the largest index for which
    ``P[Binomial(r, 1/2) <= j - 1] <= alpha``: the median lies below it only if fewer than ``j`` of the ``r``
    values fall at or below the median, which has probability at most ``alpha`` whatever the distribution.
    The upper bound is the ``j``-th largest. Needs ``2^-r <= alpha`` (at least 20 values for 1e-6).
    """
    v = np.sort(np.asarray(values, dtype=float))
    r = v.size
    if not (0.0 < alpha < 0.5):
        raise AlgorithmInputError(f"alpha must lie in (0, 1/2), got {alpha}")
    j = int(np.searchsorted(stats.binom.cdf(np.arange(r), r, 0.5), alpha, side="right"))
    if j < 1:
        raise AlgorithmInputError(f"{r} values cannot bound a median at alpha = {alpha}: need 2^-r <= alpha")
    return float(v[j - 1]), float(v[r - j])


def growth_exponent_from_table(sizes, costs, alpha: float) -> GrowthFit:
    """The median per-round slope of ``ln cost`` on ``ln size`` and its bounds (:func:`median_interval`).

    Rows of ``costs`` must be independent rounds, each measuring every size (paired within the row).
    """
    costs = np.asarray(costs, dtype=float)
    slopes = round_slopes(sizes, costs)
    lower, upper = median_interval(slopes, alpha)
    return GrowthFit(tuple(float(s) for s in sizes), costs, slopes, float(np.median(slopes)), lower, upper, alpha)


def _cpu_seconds(run, size, round_index) -> float:
    start = time.process_time()
    run(size, round_index)
    return time.process_time() - start


def fit_growth_exponent(run, sizes, *, rounds: int = 20, alpha: float, call_limit: float = 2.0, seed=0) -> GrowthFit:
    """Time ``run(size, round_index)`` at every size over ``rounds`` interleaved rounds and fit its growth exponent.

    Parameters
    ----------
    run : callable
        ``run(size, round_index)`` runs the whole algorithm once at ``size`` (seeding it with
        ``round_index``); its CPU time is the cost. Inputs should be built beforehand, outside ``run``.
    sizes : sequence of int
        Input sizes, increasing, at least two.
    rounds : int
        Timed rounds; ``2^-rounds <= alpha`` is needed for the bounds.
    alpha : float
        Miss probability of each one-sided bound on the median slope.
    call_limit : float
        CPU seconds one call of the warm-up round may take; beyond it the fit is abandoned (``abandoned``
        says at which size and how long the calls took).
    seed : int
        Seeds the shuffled order of sizes within each round.

    Returns
    -------
    GrowthFit
    """
    sizes = [int(s) for s in sizes]
    if sorted(sizes) != sizes or len(set(sizes)) != len(sizes):
        raise AlgorithmInputError(f"sizes must be distinct and increasing, got {sizes}")
    run(sizes[0], rounds)  # untimed: compiles what needs compiling (numba), fills caches
    warm_up = []
    for size in sizes:  # increasing: the first call over the limit stops the run early
        warm_up.append(_cpu_seconds(run, size, rounds))
        if warm_up[-1] > call_limit:
            times = ", ".join(f"{s}: {t:.3g} s" for s, t in zip(sizes, warm_up))
            why = f"a call took over {call_limit} s of CPU at size {size} (warm-up calls: {times})"
            return GrowthFit(
                tuple(map(float, sizes)), np.empty((0, len(sizes))), np.empty(0), np.nan, np.nan, np.nan, alpha, why
            )
    order_rng = np.random.default_rng(seed)
    costs = np.empty((rounds, len(sizes)))
    for r in range(rounds):
        for j in order_rng.permutation(len(sizes)):
            costs[r, j] = _cpu_seconds(run, sizes[j], r)
    return growth_exponent_from_table(sizes, costs, alpha)
