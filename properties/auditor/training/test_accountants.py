"""Claims read from dp_accounting (dpverify.extras.accountants): their form, values and refusals.

No statistical test here: each check is exact. Skipped where dp-accounting is not installed
(``pip install 'dpverify[accountants]'``), except the check that its absence is named.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from dpverify.errors import InvalidClaimError, InvalidParameterError, MissingExtraError
from dpverify.extras import accountants

dp_accounting = pytest.importorskip("dp_accounting")

#: The accountant's discretisation of the loss in these checks: ten times its default (coarser,
#: so pessimistic: the epsilon read moves by about 5e-6 at these settings) and about 20x cheaper.
COARSE = {"value_discretization_interval": 1e-3}


def test_the_pld_claim_is_the_accountants_epsilon_at_delta():
    """An (eps, delta) claim, eps as dp_accounting's PLD accountant gives it, with its source.

    Detects: the wrong event (no sampling, steps not composed), the relation ignored."""
    claim = accountants.dp_accounting_pld_claim(0.8, 0.1, 20, 1e-5, **COARSE)
    acc = dp_accounting.pld.PLDAccountant(**COARSE)
    acc.compose(
        dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.GaussianDpEvent(0.8)), 20
        )
    )
    assert claim.kind == "dp" and claim.delta == 1e-5
    assert claim.epsilon == acc.get_epsilon(1e-5)
    assert "PLDAccountant" in claim.source and "add/remove" in claim.neighbouring
    replace = accountants.dp_accounting_pld_claim(0.8, 0.1, 20, 1e-5, neighbouring="replace-one", **COARSE)
    assert replace.epsilon > claim.epsilon and "REPLACE_ONE" in replace.neighbouring
    # more noise, fewer steps, a lower rate: each claims less
    assert accountants.dp_accounting_pld_claim(1.6, 0.1, 20, 1e-5, **COARSE).epsilon < claim.epsilon
    assert accountants.dp_accounting_pld_claim(0.8, 0.1, 5, 1e-5, **COARSE).epsilon < claim.epsilon
    assert accountants.dp_accounting_pld_claim(0.8, 0.01, 20, 1e-5, **COARSE).epsilon < claim.epsilon


def test_the_rdp_claim_is_a_renyi_curve_above_the_one_step_gaussian_divergence():
    """A Rényi curve on the accountant's orders; at q = 1 it is T alpha / (2 sigma^2) exactly
    (the Gaussian mechanism's Rényi divergence, Mironov 2017, Proposition 7, composed).

    Detects: the orders and values misaligned, the steps not composed."""
    claim = accountants.dp_accounting_rdp_claim(2.0, 1.0, 3, orders=(2.0, 4.0, 8.0))
    assert claim.kind == "renyi" and claim.orders == (2.0, 4.0, 8.0)
    np.testing.assert_allclose(claim.renyi_epsilons, [3 * a / 8 for a in (2.0, 4.0, 8.0)], rtol=1e-12)
    sampled = accountants.dp_accounting_rdp_claim(1.0, 0.1, 10)
    assert len(sampled.orders) > 10 and all(e > 0 for e in sampled.renyi_epsilons)


def test_orders_the_accountant_leaves_infinite_are_dropped_and_counted():
    """At sigma 0.6, q 0.1 its series diverges at fractional orders near 1 (value inf): they are
    left out and the source says how many; the finite ones stay."""
    claim = accountants.dp_accounting_rdp_claim(0.6, 0.1, 10, orders=(1.1, 1.2, 2.0, 3.0))
    assert claim.orders == (2.0, 3.0)
    assert "2 orders left out" in claim.source


@pytest.mark.parametrize("bad", [-0.3, math.nan, 0.0, math.inf])
def test_an_impossible_pld_epsilon_is_refused_by_name(monkeypatch, bad):
    """Negative (Opacus PR #844), NaN, 0 at finite noise (tensorflow/privacy #166) or infinite:
    InvalidClaimError naming the accountant, never a claim.

    Detects: a reader that passes the accountant's value through (PrivacyClaim itself allows 0)."""
    monkeypatch.setattr(dp_accounting.pld.PLDAccountant, "compose", lambda self, event: self)
    monkeypatch.setattr(dp_accounting.pld.PLDAccountant, "get_epsilon", lambda self, delta: bad)
    with pytest.raises(InvalidClaimError, match="PLD accountant gave epsilon"):
        accountants.dp_accounting_pld_claim(0.8, 0.1, 20, 1e-5)


@pytest.mark.parametrize("bad", [-0.3, math.nan, 0.0])
def test_an_impossible_renyi_epsilon_is_refused_by_name(monkeypatch, bad):
    monkeypatch.setattr(dp_accounting.rdp.RdpAccountant, "rdp", property(lambda self: np.array([0.5, bad, 2.0])))
    with pytest.raises(InvalidClaimError, match="RDP accountant at order 3 gave epsilon"):
        accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, orders=(2.0, 3.0, 4.0))


def test_an_all_infinite_curve_is_refused(monkeypatch):
    monkeypatch.setattr(dp_accounting.rdp.RdpAccountant, "rdp", property(lambda self: np.full(2, np.inf)))
    with pytest.raises(InvalidClaimError, match="no finite Rényi epsilon"):
        accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, orders=(2.0, 3.0))


def test_bad_parameters_are_refused_by_name():
    with pytest.raises(InvalidClaimError, match="delta > 0"):
        accountants.dp_accounting_pld_claim(0.8, 0.1, 20, 0.0)
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        accountants.dp_accounting_pld_claim(0.8, 1.5, 20, 1e-5)
    with pytest.raises(InvalidParameterError, match="sample_rate"):
        accountants.dp_accounting_rdp_claim(0.8, 0.0, 20)
    with pytest.raises(InvalidParameterError, match="neighbouring"):
        accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, neighbouring="replace-special")


def test_without_dp_accounting_the_extra_is_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "dp_accounting", None)
    with pytest.raises(MissingExtraError, match=r"dpverify\[accountants\]"):
        accountants.dp_accounting_pld_claim(0.8, 0.1, 20, 1e-5)


# -- the accountant faults of issue 40, each reproduced ----------------------------------------------

#: tensorflow/privacy #166's setting: one step at sigma 1, q = 105 / 100,000, delta 1e-3, an order
#: 1 + 1e-8 among the orders.
NEAR_ONE = dict(noise_multiplier=1.0, sample_rate=105 / 100_000, steps=1)
NEAR_ONE_ORDERS = [1 + 1e-8] + [1 + x / 10 for x in range(1, 100)] + list(range(12, 64))


def test_an_order_near_one_gives_epsilon_0_and_it_is_refused():
    """tensorflow/privacy #166 on dp_accounting itself: with the order 1 + 1e-8 the RDP accountant
    converts its curve to epsilon 0 at delta 1e-3 (its bound from the divergence near order 1, the
    KL divergence: delta >= sqrt(1 - e^-KL) gives (0, delta)). Here (0, 1e-3) is even true (the
    outputs' total variation distance is q (2 Phi(1 / 2 sigma) - 1) = 4.0e-4), but no audit can test
    epsilon 0: the reader refuses it, naming the accountant and the delta, and the curve itself,
    positive at 1 + 1e-8, is a claim.

    Detects: a reader that passes the accountant's converted 0 on (``PrivacyClaim`` accepts 0,
    and the audit would then refuse it without naming the accountant)."""
    raw = dp_accounting.rdp.RdpAccountant(NEAR_ONE_ORDERS)
    raw.compose(
        dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(NEAR_ONE["sample_rate"], dp_accounting.GaussianDpEvent(1.0)), 1
        )
    )
    if raw.get_epsilon(1e-3) != 0:
        pytest.skip(
            f"this dp_accounting gives epsilon {raw.get_epsilon(1e-3)!r}, not 0, at tensorflow/privacy #166's setting"
        )
    with pytest.raises(InvalidClaimError, match=r"RDP accountant gave epsilon = 0\.0 at delta = 0\.001.*smaller delta"):
        accountants.dp_accounting_rdp_claim(**NEAR_ONE, orders=NEAR_ONE_ORDERS, delta=1e-3)
    curve = accountants.dp_accounting_rdp_claim(**NEAR_ONE, orders=NEAR_ONE_ORDERS)
    assert curve.orders[0] == 1 + 1e-8 and 0 < curve.renyi_epsilons[0] < 1e-5
    # at a smaller delta the same accountant states a positive epsilon, and it is the claim
    point = accountants.dp_accounting_rdp_claim(**NEAR_ONE, orders=NEAR_ONE_ORDERS, delta=1e-6)
    assert point.kind == "dp" and point.delta == 1e-6 and point.epsilon == raw.get_epsilon(1e-6) > 0


def test_the_rdp_accountants_epsilon_at_delta_is_its_conversion_of_the_curve():
    """With ``delta``, the claim is the accountant's own conversion of its curve (looser than its
    PLD epsilon at the same point), with the curve's source.

    Detects: the conversion read from another accountant or another delta."""
    point = accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, delta=1e-5)
    acc = dp_accounting.rdp.RdpAccountant()
    acc.compose(
        dp_accounting.SelfComposedDpEvent(
            dp_accounting.PoissonSampledDpEvent(0.1, dp_accounting.GaussianDpEvent(0.8)), 20
        )
    )
    assert point.kind == "dp" and point.epsilon == acc.get_epsilon(1e-5) and "converted" in point.source
    assert point.epsilon > accountants.dp_accounting_pld_claim(0.8, 0.1, 20, 1e-5, **COARSE).epsilon
    with pytest.raises(InvalidClaimError, match="delta > 0"):
        accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, delta=0.0)


def test_a_converted_epsilon_of_0_is_refused(monkeypatch):
    """dp_accounting's conversion clamps a negative epsilon to 0 (as Opacus PR #844's fix does):
    the 0 is refused at the (epsilon, delta) point too.

    Detects: a reader that checks the curve but passes the converted epsilon on."""
    monkeypatch.setattr(dp_accounting.rdp.RdpAccountant, "get_epsilon", lambda self, delta: 0.0)
    with pytest.raises(InvalidClaimError, match="negative value clamped to 0"):
        accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, delta=1e-5)


def test_a_curve_that_falls_with_the_order_is_refused_naming_the_accountant(monkeypatch):
    """An RDP curve whose value at order 3 is above its value at order 4 is no Rényi DP claim
    (D_alpha is non-decreasing in alpha): refused, naming the accountant and the orders.

    Detects: a reader (or Rényi claim kind) that accepts a curve computed wrong at some order."""
    monkeypatch.setattr(dp_accounting.rdp.RdpAccountant, "rdp", property(lambda self: np.array([0.5, 2.0, 1.0])))
    with pytest.raises(
        InvalidClaimError, match=r"RDP accountant gave a curve.*order 3 exceeds epsilon 1 at the higher order 4"
    ):
        accountants.dp_accounting_rdp_claim(0.8, 0.1, 20, orders=(2.0, 3.0, 4.0))


@pytest.mark.parametrize("sigma, q, steps", [(0.6, 0.1, 10), (0.8, 0.1, 20), (2.0, 0.01, 100), (1.0, 0.5, 5)])
def test_real_rdp_curves_pass_the_monotonicity_check(sigma, q, steps):
    """dp_accounting's curves on its default orders (fractional orders near 1 included) rise with
    the order at DP-SGD settings, so the check refuses no curve the accountant computes right.

    Detects: a monotonicity check tighter than rounding, or one comparing the orders unsorted."""
    claim = accountants.dp_accounting_rdp_claim(sigma, q, steps)
    assert claim.kind == "renyi" and len(claim.orders) > 100
