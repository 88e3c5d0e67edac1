"""Chandak 2023 (MSc thesis), Theorems 4 and 5, Figure 2.1 and Lemmas 19-21, checked exactly.

All checks are deterministic (no sampling, so no false-alarm rate):

- Theorem 4: a linear program over *every* eps-DP mechanism with m outputs on the two
  candidates and every deterministic adversary rule (``scipy.optimize.linprog``, HiGHS) finds
  the best worst-case failure rate; it equals 1/(1+e^eps) to the solver's tolerance (1e-9) for
  eps from 0.01 to 8 and m = 2, 3, 4: the bound holds and is tight (randomized response attains
  it). The optimal mechanism returned is checked to be eps-DP and to attain the value.
- Theorem 5: the same with three or four candidate values of user i's data (prior knowledge V
  containing both secrets): the bound still holds with equality.
- Figure 2.1: 1/2 - eps/4 <= 1/(1+e^eps) for every eps >= 0 and the gap is at most eps^3/48
  (third order: the line is tight for small eps, as the caption says).
- Lemmas 19 and 20: Hypothesis over non-increasing gap sequences with exact rationals; the
  constant 2 of Lemma 19 cannot be lowered (a fine geometric sequence reaches 0.99 of it).
- Lemma 21 (with the proof's slip 2^{r_max} <= D_min read as 2^{-r_max} >= D_min): exact
  rationals on a grid of D_min, K n, epsilon0 and both roundings of the logarithms.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from algorithms.bandits.adversary import (
    figure21_linear_bound,
    lemma19_lhs,
    lemma20_lhs,
    lemma20_rhs,
    lemma21_lhs,
    lemma21_r_max,
    optimal_failure_rate_lp,
    randomized_response_failure_rate,
    theorem4_failure_bound,
)
from algorithms.errors import AlgorithmInputError

EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0, 4.0, 8.0)
LP_TOL = 1e-9  # HiGHS primal/dual feasibility tolerance is 1e-7 relative; values here agree to ~1e-15


def _assert_is_eps_dp(mech, eps):
    e = math.exp(eps)
    for j in range(mech.shape[0]):
        for k in range(mech.shape[0]):
            assert np.all(mech[j] <= e * mech[k] + LP_TOL)


@pytest.mark.parametrize("eps", EPSILONS)
@pytest.mark.parametrize("m", [2, 3, 4])
def test_theorem4_lp_optimum_equals_the_bound(eps, m):
    """Detects: a false Theorem 4 bound, or an LP whose DP constraint is wrong (mutant
    claims-thesis-lp-dp-constraint: 2 eps gives 1/(1 + e^(2 eps)))."""
    res = optimal_failure_rate_lp(eps, (0, 1), n_outputs=m)
    bound = theorem4_failure_bound(eps)
    assert res.failure_rate >= bound - LP_TOL  # Theorem 4 holds over every mechanism and rule
    assert res.failure_rate <= bound + LP_TOL  # and is attained: the bound is tight
    assert res.n_programs == 2**m - 2
    _assert_is_eps_dp(res.mechanism, eps)
    np.testing.assert_allclose(res.mechanism.sum(axis=1), 1.0, atol=LP_TOL)
    fails = [res.mechanism[j][[y for y in range(m) if res.rule[y] != s]].sum() for j, s in enumerate((0, 1))]
    assert max(fails) == pytest.approx(res.failure_rate, abs=LP_TOL)


@pytest.mark.parametrize("eps", EPSILONS)
def test_randomized_response_attains_theorem4(eps):
    """Detects: a bound that randomized response does not attain (a Theorem 4 that is not tight)."""
    assert randomized_response_failure_rate(eps) == pytest.approx(theorem4_failure_bound(eps), rel=1e-12)


@pytest.mark.parametrize("eps", (0.1, 1.0, 3.0))
@pytest.mark.parametrize("secrets", [(0, 1, 1), (0, 0, 1), (0, 1, 0, 1)])
def test_theorem5_prior_knowledge_with_more_candidates(eps, secrets):
    """Detects: a Theorem 5 optimum that moves when the adversary knows more candidate values."""
    res = optimal_failure_rate_lp(eps, secrets, n_outputs=2 if len(secrets) == 4 else 3)
    assert res.failure_rate == pytest.approx(theorem4_failure_bound(eps), abs=LP_TOL)
    _assert_is_eps_dp(res.mechanism, eps)


def test_lp_is_not_vacuous_without_the_dp_constraint_strength():
    """Detects: an LP that returns the bound whatever its privacy level (a vacuous check of Theorem 4)."""
    # power of the LP check: a weaker privacy level gives a strictly smaller optimum, so a wrong
    # bound (e.g. 1/(1 + e^(eps/2)), what a mechanism at 2*eps would allow) would be detected
    assert optimal_failure_rate_lp(2.0).failure_rate < theorem4_failure_bound(1.0) - 0.1


def test_theorem5_condition_is_needed():
    """Detects: a program that accepts Theorem 5 without its condition (2.3) (both secret bits must occur)."""
    # with one secret value only the adversary can always be right: the program rejects it
    with pytest.raises(AlgorithmInputError):
        optimal_failure_rate_lp(1.0, (1, 1))


def test_figure21_line_is_below_and_tight_to_third_order():
    """Detects: a Figure 2.1 line that is not below 1/(1 + e^eps) or not its tangent at 0 (mutant
    claims-thesis-figure21-line)."""
    for eps in np.concatenate([np.geomspace(1e-3, 1.0, 400), np.linspace(1.0, 50.0, 400)]):
        eps = float(eps)
        gap = 0.5 * (eps / 2 - math.tanh(eps / 2))  # = 1/(1+e^eps) - (1/2 - eps/4), no cancellation
        assert gap == pytest.approx(theorem4_failure_bound(eps) - figure21_linear_bound(eps), abs=1e-15)
        assert gap >= 0
        if 0.05 <= eps <= 1.0:  # below 0.05 the float difference x - tanh(x) loses the 5th-order term
            assert gap <= eps**3 / 48
            assert gap >= eps**3 / 48 - eps**5 / 480  # the series: the gap really is third order


_fractions = st.fractions(min_value=Fraction(1, 10**4), max_value=1, max_denominator=10**4)


@given(st.lists(_fractions, min_size=1, max_size=25))
@example([Fraction(1)])
@example([Fraction(1), Fraction(1, 1000)])
def test_lemma19_exact(gaps):
    """Detects: a Lemma 19 left side above 2 / D_K in exact rational arithmetic (a false Lemma 19)."""
    gaps = sorted(gaps, reverse=True)
    assert lemma19_lhs(gaps) <= 2 / gaps[-1]


def test_lemma19_constant_two_is_approached():
    """Detects: a Lemma 19 sum computed wrongly (mutant claims-thesis-lemma19-lhs) or a constant 2 that is not
    approached (a loose reading)."""
    gaps = list(np.geomspace(1.0, 1e-3, 20_000))
    assert lemma19_lhs(gaps) / (2 / gaps[-1]) > 0.99


@given(
    st.lists(_fractions, min_size=1, max_size=25),
    st.fractions(min_value=Fraction(1, 1000), max_value=10, max_denominator=1000),
)
@example([Fraction(1), Fraction(1, 2), Fraction(1, 4)], Fraction(1, 3))  # case 3 of the proof
@example([Fraction(1, 2)] * 5, Fraction(1, 10))  # case 2: all gaps above epsilon0
def test_lemma20_exact(gaps, epsilon0):
    """Detects: a Lemma 20 left side above 2 / D_K + K / epsilon0 in exact arithmetic (a false Lemma 20)."""
    gaps = sorted(gaps, reverse=True)
    assert lemma20_lhs(gaps, epsilon0) <= lemma20_rhs(gaps, epsilon0)


@pytest.mark.parametrize("rounding", ["floor", "ceil"])
def test_lemma21_exact(rounding):
    """Detects: a Lemma 21 left side above its bound for either rounding of the logarithms (a false Lemma 21)."""
    worst = 0.0
    for epsilon0 in (Fraction(1, 100), Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)):
        for d_min in [Fraction(1, 2**j) for j in range(12)] + [Fraction(3, 1000), Fraction(7, 10)]:
            for kn in (2, 3, 10, 100, 1000, 10**6):
                lhs = lemma21_lhs(lemma21_r_max(d_min, kn, rounding), epsilon0)
                rhs = 2 / d_min + Fraction(math.log2(kn)) / epsilon0
                assert lhs <= rhs
                worst = max(worst, float(lhs / rhs))
    assert worst > 0.9  # the grid reaches near-equality, so the check has teeth
