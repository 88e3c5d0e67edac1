"""Limits of adversaries against eps-DP releases, and the summation lemmas of the DPUCB-MAT proof.

Adversary failure rate (Chandak 2023, Theorems 4 and 5, Figure 2.1)
-------------------------------------------------------------------
An adversary who knows everyone's data but user i's, and sees the output Y of an eps-DP
algorithm, guesses a secret bit s(x_i) with a rule r(Y). Its failure rate is the worst case
over the values x_i may take (restricted to a set V in Theorem 5). Theorem 4: no rule does
better than 1/(1 + e^epsilon). Figure 2.1 draws the line 1/2 - eps/4 below it and calls it tight
for small epsilon.

:func:`optimal_failure_rate_lp` computes the best failure rate *over all eps-DP mechanisms
and all adversaries* as a linear program (``scipy.optimize.linprog``), without the proof's
argument: the variables are the whole output law ``P[Y = y | x_j]`` of a mechanism on J
candidate values x_1..x_J of user i's data (pairwise neighbours, since they differ only in
user i) with m outputs, for one fixed deterministic rule ``r``; every rule ``r: [m] -> {0, 1}``
gets its own program and the minimum is taken. When the theorem is tight, the optimum is
exactly 1/(1 + e^epsilon), attained by randomized response.

Summation lemmas (Chandak 2023, Lemmas 19-21)
---------------------------------------------
- Lemma 19 (Kveton, Wen, Ashkan, Eydgahi and Eriksson 2014, Lemma 3): for
  1 >= D_1 >= ... >= D_K > 0, D_1 / D_1^2 + sum_{k>=2} D_k (1/D_k^2 - 1/D_{k-1}^2) <= 2 / D_K.
- Lemma 20: the same sum with 1/(D_k min{D_k, epsilon0}) in place of 1/D_k^2 is
  <= 2/D_K + K/epsilon0.
- Lemma 21: Lemma 20 applied to D_r = 0.5^(r-1), r = 1..r_max with
  r_max = min{log2(1/D_min), log2(K n)}, is <= 2/D_min + log2(K n)/epsilon0 (the O(ln(Kn)) factor
  of l_{e,r} dropped). The proof's "2^{r_max} <= D_min" must read 2^{-r_max} >= D_min.

All three take and return exact rationals when given :class:`fractions.Fraction` inputs, so
the tests check the inequalities without rounding.

References
----------
K. Chandak. "Differentially Private Algorithms for Efficient Online Matroid Optimization."
MSc thesis, University of Alberta, 2023. Theorems 4, 5; Figure 2.1; Lemmas 19, 20, 21.

B. Kveton, Z. Wen, A. Ashkan, H. Eydgahi, B. Eriksson. "Matroid Bandits: Fast Combinatorial
Optimization with Learning." UAI 2014, Lemma 3.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

from algorithms.errors import AlgorithmInputError

__all__ = [
    "theorem4_failure_bound",
    "figure21_linear_bound",
    "LPAdversaryResult",
    "optimal_failure_rate_lp",
    "randomized_response_failure_rate",
    "lemma19_lhs",
    "lemma20_lhs",
    "lemma20_rhs",
    "lemma21_lhs",
    "lemma21_r_max",
]


def theorem4_failure_bound(epsilon: float) -> float:
    """1 / (1 + e^epsilon), the best failure rate of any adversary (Chandak 2023, Theorem 4)."""
    if not epsilon >= 0:
        raise AlgorithmInputError(f"epsilon must be >= 0, got {epsilon}")
    return math.exp(-epsilon) / (1.0 + math.exp(-epsilon))  # = 1 / (1 + e^epsilon), no overflow


def figure21_linear_bound(epsilon: float) -> float:
    """1/2 - eps/4, the line of Chandak 2023, Figure 2.1 (the tangent of 1/(1+e^epsilon) at 0)."""
    return 0.5 - epsilon / 4.0


@dataclass(frozen=True)
class LPAdversaryResult:
    """Optimum of :func:`optimal_failure_rate_lp`.

    Attributes
    ----------
    failure_rate : float
        The smallest worst-case failure rate over all eps-DP mechanisms with ``n_outputs``
        outputs on the candidates and all deterministic rules.
    rule : tuple of int
        A rule ``r`` attaining it (``rule[y]`` is the guess on output y).
    mechanism : ndarray (J, m)
        A mechanism attaining it: row j is the output law under candidate j.
    n_programs : int
        Number of linear programs solved (one per rule that guesses both bits).
    """

    failure_rate: float
    rule: tuple
    mechanism: np.ndarray
    n_programs: int


def optimal_failure_rate_lp(epsilon: float, secrets=(0, 1), n_outputs: int = 2) -> LPAdversaryResult:
    """Best worst-case failure rate of an adversary, minimised over all eps-DP mechanisms (LP).

    Parameters
    ----------
    epsilon : float
        Privacy parameter, > 0.
    secrets : sequence of {0, 1}
        ``secrets[j] = s(x_j)`` for the candidate values x_1..x_J of user i's data; every pair
        of candidates is a pair of neighbouring data sets. Both bits must occur (Theorem 5's
        condition (2.3)); J = 2 is Theorem 4.
    n_outputs : int
        Size m of the mechanism's output space (>= 2).

    Returns
    -------
    LPAdversaryResult

    Notes
    -----
    For a rule r, the program in the variables p[j, y] = P[Y = y | x_j] and t is:
    minimise t subject to sum_y p[j, y] = 1, p >= 0,
    p[j, y] <= e^epsilon p[k, y] for all j != k and y (eps-DP on every output, hence every event),
    and sum_{y: r(y) != s_j} p[j, y] <= t for every j. Rules that guess one bit everywhere fail
    with probability 1 on some candidate and are skipped.
    """
    secrets = tuple(int(s) for s in secrets)
    if not (epsilon > 0 and math.isfinite(epsilon)):
        raise AlgorithmInputError(f"epsilon must be finite and > 0, got {epsilon}")
    if set(secrets) != {0, 1}:
        raise AlgorithmInputError(f"secrets must contain both bits 0 and 1, got {secrets}")
    m = int(n_outputs)
    if m < 2:
        raise AlgorithmInputError(f"n_outputs must be >= 2, got {n_outputs}")
    J = len(secrets)
    nv = J * m + 1  # p[j, y] then t
    e = math.exp(epsilon)
    A_dp = []
    for j, k in itertools.permutations(range(J), 2):
        for y in range(m):
            row = np.zeros(nv)
            row[j * m + y] = 1.0
            row[k * m + y] = -e
            A_dp.append(row)
    A_eq = np.zeros((J, nv))
    for j in range(J):
        A_eq[j, j * m : (j + 1) * m] = 1.0
    c = np.zeros(nv)
    c[-1] = 1.0
    best = None
    n_programs = 0
    for rule in itertools.product((0, 1), repeat=m):
        if len(set(rule)) < 2:
            continue
        A_fail = np.zeros((J, nv))
        for j, s in enumerate(secrets):
            for y in range(m):
                if rule[y] != s:
                    A_fail[j, j * m + y] = 1.0
            A_fail[j, -1] = -1.0
        res = linprog(
            c,
            A_ub=np.vstack(A_dp + [*A_fail]),
            b_ub=np.zeros(len(A_dp) + J),
            A_eq=A_eq,
            b_eq=np.ones(J),
            bounds=[(0, None)] * nv,
            method="highs",
        )
        n_programs += 1
        if res.status != 0:  # pragma: no cover - every program is feasible (p uniform, t = 1)
            raise RuntimeError(f"linprog failed for rule {rule}: {res.message}")
        if best is None or res.fun < best[0]:
            best = (float(res.fun), rule, res.x[:-1].reshape(J, m).copy())
    return LPAdversaryResult(best[0], best[1], best[2], n_programs)


def randomized_response_failure_rate(epsilon: float) -> float:
    """Worst-case failure rate of the rule r(Y) = Y against randomized response on the secret bit.

    Randomized response reports the bit with probability e^epsilon / (1 + e^epsilon): it is eps-DP and
    the adversary who believes the report fails with probability 1 / (1 + e^epsilon) on either bit,
    so Theorem 4 is attained.
    """
    return 1.0 - 1.0 / (1.0 + math.exp(-epsilon))


# ----------------------------------------------------------------------------- Lemmas 19-21


def _check_gaps(gaps):
    gaps = list(gaps)
    if not gaps:
        raise AlgorithmInputError("need at least one gap")
    if any(not (0 < g <= 1) for g in gaps):
        raise AlgorithmInputError(f"gaps must lie in (0, 1], got {gaps}")
    if any(a < b for a, b in zip(gaps, gaps[1:])):
        raise AlgorithmInputError("gaps must be non-increasing")
    return gaps


def _telescoped(gaps, f):
    """D_1 f(D_1) + sum_{k>=2} D_k (f(D_k) - f(D_{k-1}))."""
    total = gaps[0] * f(gaps[0])
    for prev, cur in zip(gaps, gaps[1:]):
        total += cur * (f(cur) - f(prev))
    return total


def lemma19_lhs(gaps):
    """Left side of Chandak 2023, Lemma 19 (Kveton et al. 2014, Lemma 3): bound 2 / D_K."""
    gaps = _check_gaps(gaps)
    return _telescoped(gaps, lambda d: 1 / (d * d))


def lemma20_lhs(gaps, epsilon0):
    """Left side of Chandak 2023, Lemma 20 (5.7), with 1/(D min{D, epsilon0}) in place of 1/D^2."""
    gaps = _check_gaps(gaps)
    if not epsilon0 > 0:
        raise AlgorithmInputError(f"epsilon0 must be > 0, got {epsilon0}")
    return _telescoped(gaps, lambda d: 1 / (d * min(d, epsilon0)))


def lemma20_rhs(gaps, epsilon0):
    """Right side of Chandak 2023, Lemma 20: 2 / D_K + K / epsilon0."""
    gaps = _check_gaps(gaps)
    return 2 / gaps[-1] + len(gaps) / epsilon0


def lemma21_r_max(gap_min: Fraction, kn: int, rounding: str = "floor") -> int:
    """r_max = min{log2(1/D_min), log2(K n)} rounded to an integer (>= 1).

    The thesis does not say how the logarithms are rounded; ``rounding`` is ``"floor"`` or
    ``"ceil"`` (both are checked by the tests).
    """
    rnd = math.floor if rounding == "floor" else math.ceil
    if rounding not in ("floor", "ceil"):
        raise AlgorithmInputError(f"rounding must be 'floor' or 'ceil', got {rounding!r}")
    return max(1, min(rnd(math.log2(1 / gap_min)), rnd(math.log2(kn))))


def lemma21_lhs(r_max: int, epsilon0):
    """Left side of Chandak 2023, Lemma 21 (5.10) without the O(ln(Kn)) factor.

    l_r = 1 / (0.5^(r-1) min{0.5^(r-1), epsilon0}) and the sum is
    0.5^0 l_1 + sum_{r=2}^{r_max} 0.5^(r-1) (l_r - l_{r-1}): Lemma 20's left side for the
    gaps D_r = 0.5^(r-1) (the proof's displayed (5.11) swaps the two terms of each difference,
    an extraction or typing slip: read literally every difference would be negative).
    """
    half = Fraction(1, 2)
    return lemma20_lhs([half ** (r - 1) for r in range(1, int(r_max) + 1)], epsilon0)
