"""Fitted growth exponents of regret, and the largest exponent a fit could report at all.

A regret test that fits the slope of ln R against ln x (x = K, or 1/eps) and asserts that it does not
exceed a bound's claimed exponent can only fail if the fit is *able* to exceed it. Regret is capped:
a policy that plays a suboptimal arm in every slot of every round loses at most
``gap * suboptimal_slots * horizon``. With the regret at the cheap end of the sweep (small K, large
eps) measured, the steepest any policy could make the fit is :func:`reachable_slope`; where that is
below the claim, the fit tests nothing and the claim is not checkable on that design.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "least_squares_slope",
    "reachable_slope",
    "power_law_room",
    "uniform_family_regret_cap",
    "claimed_exponent",
    "log_mean_standard_error",
]


def least_squares_slope(x, y) -> float:
    """Least-squares slope of ``y`` on ``x`` (1-D arrays of one length, at least two distinct ``x``)."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    xc = x - x.mean()
    return float((xc * y).sum() / (xc * xc).sum())


def reachable_slope(x, measured, caps) -> float:
    """The steepest least-squares slope of ``ln R`` on ``x`` that any regret curve could give.

    Points with ``x`` at or below the mean keep their ``measured`` regret (the cheap end of the sweep,
    which any policy at least as good as the one measured would also reach); points above the mean sit
    at their ``caps`` (linear regret, the most any policy can lose there). Raising a point above the
    mean or lowering one below it is what raises a least-squares slope, so this is the largest slope a
    policy that keeps the measured cheap end could produce.

    Parameters
    ----------
    x : array_like
        Regressor (``ln K`` or ``ln(1/eps)``).
    measured : array_like
        Measured mean regrets, positive.
    caps : array_like
        Largest possible regret at each ``x``.

    Returns
    -------
    float
        The reachable slope; a claimed exponent above it cannot be contradicted by the fit.
    """
    x = np.asarray(x, dtype=float)
    y = np.where(x > x.mean(), np.log(np.asarray(caps, dtype=float)), np.log(np.asarray(measured, dtype=float)))
    return least_squares_slope(x, y)


def power_law_room(x_cheap: float, regret_cheap: float, x_far: float, cap_far: float) -> float:
    """The steepest power law ``R ∝ x^c`` through the measured cheap end that stays under the cap at the far end.

    ``c = ln(cap_far / regret_cheap) / ln(x_far / x_cheap)``. A policy whose regret grew like ``x^c`` with
    ``c`` above this would be linear (capped) before the end of the sweep, so its fitted slope would bend
    down: a claimed exponent above the room cannot be contradicted by a *power-law* violation, only by a
    step (:func:`reachable_slope` is the bound for any shape). Fits in this project require the room to
    exceed the claim.

    Parameters
    ----------
    x_cheap, x_far : float
        The swept quantity (``K`` or ``1/eps``) at the cheap and the far end, ``x_far > x_cheap > 0``.
    regret_cheap : float
        Measured mean regret at ``x_cheap``.
    cap_far : float
        Largest possible regret at ``x_far``.
    """
    return float(np.log(cap_far / regret_cheap) / np.log(x_far / x_cheap))


def uniform_family_regret_cap(k: int, *, suboptimal: int, gap: float, horizon: int) -> float:
    """Largest regret on a uniform matroid of rank ``k`` with ``suboptimal`` arms of one ``gap``.

    At most ``min(k, suboptimal)`` slots of a basis can hold a suboptimal arm, each costing ``gap``.
    """
    return float(gap * min(int(k), int(suboptimal)) * int(horizon))


def claimed_exponent(x, factor) -> float:
    """Least-squares slope of ``ln factor(x)`` on ``ln x``: the exponent a bound's factor claims over a sweep.

    ``factor`` is the bound's dependence on the swept quantity (``lambda K: (K + 4) * K`` for a term
    ``m K`` on a family with ``m = K + 4``); fitting it the way the regret is fitted makes the claim
    and the measurement comparable when the factor is not a pure power.
    """
    x = np.asarray(x, dtype=float)
    return least_squares_slope(np.log(x), np.log([float(factor(v)) for v in x]))


def log_mean_standard_error(values) -> float:
    """Delta-method standard error of ``ln(mean(values))`` over independent runs: ``sd / (sqrt(n) mean)``.

    ``values`` is a 1-D array of at least two positive-mean run totals (regret of each run).
    """
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1) / np.sqrt(values.size) / values.mean())
