"""What a certification budget could have seen: the smallest violation of a claim it resolves.

An audit that finds no violation has not shown that there is none: with ``n`` certification samples
per input, a violation smaller than some size cannot be certified by any event. This module computes
that size in the most favourable case, so that a result can say when its budget could not have seen
a violation of the claim's own size (a mechanism at twice its claimed epsilon, say):

- :func:`smallest_epsilon_excess`: the smallest excess ``Delta`` over the claimed epsilon that an event
  of a mechanism whose true loss is ``epsilon' = epsilon + Delta`` certifies at its expected counts,
  for the event most favourable to the audit. For an ``epsilon'``-DP mechanism an event with
  ``P[M(x') in S] = exp(-epsilon') P[M(x) in S]`` has ``P[M(x) in S] <= exp(epsilon') / (1 +
  exp(epsilon'))`` (its complement obeys the claim too), with equality for randomized response
  (Kairouz, Oh and Viswanath 2015: it dominates every ``epsilon'``-DP mechanism on two inputs). The
  Clopper-Pearson bound ``ln((p_lo - delta) / q_hi)`` at level ``alpha`` on those counts must exceed
  the claimed epsilon. Every other event resolves less: this is a floor, and a violation below it
  goes unseen about half the time or more whatever the event;
- :func:`smallest_delta_excess`: the same for delta: an event impossible under ``x'`` (count 0) and of
  probability ``delta + Delta`` under ``x``;
- :func:`samples_to_resolve`: the certification samples per input at which a stated excess is resolved;
- :func:`epsilon_delta_power_note`: the sentence an audit of an (epsilon, delta) claim that found no
  violation adds (the claim kind's :attr:`~dpverify.claims.ClaimKind.power_note`, which
  :func:`dpverify.audits.power.power_note` reads).

References
----------
P. Kairouz, S. Oh, P. Viswanath, "The Composition Theorem for Differential Privacy", ICML 2015
(Theorem 2.1: randomized response dominates every epsilon-DP mechanism on a pair of inputs).

C. J. Clopper, E. S. Pearson, "The Use of Confidence or Fiducial Limits Illustrated in the Case of the
Binomial", Biometrika 26(4), 1934.
"""

from __future__ import annotations

import math

from .bounds import clopper_pearson_lower, clopper_pearson_upper

__all__ = [
    "smallest_epsilon_excess",
    "smallest_delta_excess",
    "samples_to_resolve",
    "epsilon_delta_power_note",
]

#: Largest excess searched (past it, the budget resolves nothing useful).
MAX_EXCESS = 50.0


def _epsilon_certified(n: int, epsilon: float, delta: float, alpha: float, excess: float) -> bool:
    """Whether randomized response at ``epsilon + excess``, at its expected counts, certifies more than ``epsilon``."""
    q = 1.0 / (1.0 + math.exp(epsilon + excess))
    p_lo = float(clopper_pearson_lower(n * (1.0 - q), n, alpha)) - delta
    q_hi = float(clopper_pearson_upper(n * q, n, alpha))
    return p_lo > 0 and math.log(p_lo) - math.log(q_hi) > epsilon


def _bisect(certified, hi: float) -> float:
    """The smallest ``x`` in (0, hi] with ``certified(x)`` (monotone), or inf where none is."""
    if not certified(hi):
        return math.inf
    lo = 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if certified(mid) else (mid, hi)
    return hi


def smallest_epsilon_excess(n_certification: int, epsilon: float, delta: float = 0.0, alpha: float = 0.05) -> float:
    """The smallest excess over ``epsilon`` that ``n_certification`` samples per input certify (a floor).

    Parameters
    ----------
    n_certification : int
        Certification samples per input.
    epsilon, delta : float
        The claim.
    alpha : float
        The audit's level (one event: every other split of ``alpha`` resolves less).

    Returns
    -------
    float
        ``Delta`` (inf when no excess up to :data:`MAX_EXCESS` is resolved).

    Examples
    --------
    >>> round(smallest_epsilon_excess(10_000, 1.0), 3)
    0.045
    """
    n = int(n_certification)
    return _bisect(lambda x: _epsilon_certified(n, epsilon, delta, alpha, x), MAX_EXCESS)


def smallest_delta_excess(n_certification: int, epsilon: float, delta: float = 0.0, alpha: float = 0.05) -> float:
    """The smallest excess over ``delta`` that ``n_certification`` samples per input certify (a floor).

    The event most favourable to a delta violation is impossible under ``x'``; under ``x`` its
    probability ``delta + Delta`` must give ``p_lo - exp(epsilon) q_hi > delta`` at the expected count.

    Examples
    --------
    >>> round(smallest_delta_excess(10_000, 1.0, 1e-3), 4)
    0.002
    """
    n = int(n_certification)
    q_hi = float(clopper_pearson_upper(0, n, alpha))

    def certified(excess):
        p_lo = float(clopper_pearson_lower(n * min(1.0, delta + excess), n, alpha))
        return p_lo - math.exp(epsilon) * q_hi > delta

    return _bisect(certified, 1.0 - delta)


def samples_to_resolve(excess: float, epsilon: float, delta: float = 0.0, alpha: float = 0.05) -> int:
    """The certification samples per input at which :func:`smallest_epsilon_excess` reaches ``excess``."""
    hi = 16
    while smallest_epsilon_excess(hi, epsilon, delta, alpha) > excess:
        hi *= 2
        if hi > 1 << 50:
            return hi
    lo = hi // 2
    while lo + 1 < hi:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if smallest_epsilon_excess(mid, epsilon, delta, alpha) <= excess else (mid, hi)
    return hi


def epsilon_delta_power_note(n: int, epsilon: float, delta: float, alpha: float) -> str:
    """The power note of an audit of an (epsilon, delta) claim at level ``alpha`` with ``n`` certification
    samples per input that found no violation: the smallest excess over the claimed epsilon (and delta) resolved.

    Says so plainly when the floor exceeds the claim's own size (a mechanism at twice its claimed epsilon,
    or twice its delta, would have gone unseen), and gives the samples that would resolve it.
    """
    floor = smallest_epsilon_excess(n, epsilon, delta, alpha)
    words = (
        f"power: with {n} certification samples per input, a mechanism whose true loss exceeds the claimed "
        f"epsilon by less than {floor:.3g} is certified less than half the time, whatever the event"
    )
    if delta > 0:
        words += f" (a delta excess below {smallest_delta_excess(n, epsilon, delta, alpha):.3g} likewise)"
    if floor >= epsilon:
        needed = samples_to_resolve(epsilon, epsilon, delta, alpha)
        words += (
            f"; a violation of the claim's size (epsilon {2 * epsilon:g} against {epsilon:g}) could not have been "
            f"seen: about {needed} certification samples per input would resolve it"
        )
    return words
