"""Floating-point leak events (dpverify.events.floating; Mironov 2012).

Deterministic invariants (bit helpers against exact rational arithmetic) run
under Hypothesis. Statistical checks use fixed seeds and ``suite_alpha``:

- "flagged" assertions: the textbook ``x + numpy Laplace`` (scale 10, inputs 0
  vs 1) has an event of probability ~0.087 under x and 0 under x'
  (reachability) or ~0.06 (mantissa); with 2e4 samples the certified bound is
  ~5, far above the claim, so power is ~1 even at alpha = 1e-6.
- "not flagged" assertions on correct implementations (Mironov's snapping,
  fine-grid Laplace, the geometric mechanism): false-alarm rate <= suite_alpha
  each, by the audit's select-then-certify guarantee.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import dpverify
from dpverify.events.floating import (
    FLOATING_FAMILIES,
    binade,
    difference_is_exact,
    mantissa_codes,
    trailing_zero_bits,
)
from dpverify.mechanisms import (
    FloatGaussianMechanism,
    FloatLaplaceMechanism,
    GeometricMechanism,
    GridLaplace,
    SnappingLaplace,
)

finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(finite, finite)
@example(0.3, 1.0)
@example(0.25 + 2.0**-54, 1.0)
@example(1e300, -1e300)
@example(5e-324, 0.0)
def test_difference_is_exact_matches_rational_arithmetic(y, o):
    exact = Fraction(y) - Fraction(o)
    try:
        representable = Fraction(float(exact)) == exact
    except OverflowError:
        representable = False
    assert bool(difference_is_exact(np.array([y]), o)[0]) == representable


@given(finite)
@example(0.0)
@example(1.0)
@example(0.375)
@example(5e-324)
def test_trailing_zeros_and_binade_match_the_bit_pattern(v):
    bits = int(np.array([v]).view(np.uint64)[0])
    mantissa = bits & ((1 << 52) - 1)
    expected = 52 if mantissa == 0 else (mantissa & -mantissa).bit_length() - 1
    assert trailing_zero_bits(np.array([v]))[0] == expected
    assert binade(np.array([v]))[0] == (bits >> 52) & 0x7FF
    if v != 0 and abs(v) >= 2.0**-1022:
        assert binade(np.array([v]))[0] - 1023 == math.frexp(abs(v))[1] - 1


def test_rounded_sum_into_lower_binade_has_even_last_bit():
    """The mechanism of the leak: fl(1 + z) in [0.25, 0.5) always has a zero last bit."""
    z = -np.random.default_rng(5).uniform(0.5, 0.75, 10_000)
    y = 1.0 + z
    inside = (y >= 0.25) & (y < 0.5)
    assert inside.any() and np.all(trailing_zero_bits(y[inside]) >= 1)
    codes = mantissa_codes(y, top_binade=int(binade(np.array([1.0]))[0]))
    assert codes.dtype == np.int64


def test_textbook_float_laplace_is_flagged(suite_alpha):
    mechanism = FloatLaplaceMechanism(0.1)  # textbook x + numpy Laplace(scale 10)
    result = dpverify.audit(mechanism, 0.0, 1.0, epsilon=0.1, n_samples=20_000, alpha=suite_alpha, seed=11)
    assert result.violation
    assert result.event.family in FLOATING_FAMILIES
    assert result.epsilon_lower_bound > 3.0


@pytest.mark.parametrize("family", FLOATING_FAMILIES)
def test_each_floating_family_alone_flags_the_textbook_laplace(family, suite_alpha):
    result = dpverify.audit(
        FloatLaplaceMechanism(0.1),
        0.0,
        1.0,
        epsilon=0.1,
        n_samples=20_000,
        alpha=suite_alpha,
        seed=12,
        event_families=[family],
    )
    # the true loss of the values is 0.1: a bound above 3 can only come from the rounding marks
    assert result.violation and result.event.family == family
    assert result.epsilon_lower_bound > 3.0


def test_floating_bound_grows_with_the_sample_size():
    """The leaking event has probability 0 under x', so the bound grows like ln(n).

    With 1e4, 1e5 and 4e5 samples the bound is about ln(p n / 3): 5.3, 7.6, 9.0
    (p ~ 0.087); the asserted steps of 1.5 and 1.0 leave ~0.8 and ~0.4 of slack
    (fixed seeds, deterministic).
    """
    bounds = [
        dpverify.audit(
            FloatLaplaceMechanism(0.1),
            0.0,
            1.0,
            epsilon=0.1,
            n_samples=n,
            alpha=0.05,
            seed=13,
            event_families=["reachability"],
        ).epsilon_lower_bound
        for n in (10_000, 100_000, 400_000)
    ]
    assert bounds[1] > bounds[0] + 1.5
    assert bounds[2] > bounds[1] + 1.0


def test_textbook_float_gaussian_is_flagged(suite_alpha):
    result = dpverify.audit(
        FloatGaussianMechanism(1.0, 1e-3, sigma=5.0),
        0.0,
        1.0,
        epsilon=1.0,
        delta=1e-3,
        n_samples=20_000,
        alpha=suite_alpha,
        seed=14,
        event_families=list(FLOATING_FAMILIES),
    )
    assert result.violation


@pytest.mark.parametrize(
    "mechanism, x, x_prime",
    [
        (SnappingLaplace(0.1), 0.0, 1.0),
        (GridLaplace(0.1), 0.0, 1.0),
        (GridLaplace(0.5), 3.0, 2.0),
    ],
    ids=["snapping", "fine-grid", "fine-grid-3-vs-2"],
)
def test_floating_safe_laplace_is_not_flagged(mechanism, x, x_prime, suite_alpha):
    """Outputs on a power-of-two grid carry no low-bit marks: no violation (false alarm <= suite_alpha)."""
    for families in (list(FLOATING_FAMILIES), None):
        result = dpverify.audit(
            mechanism,
            x,
            x_prime,
            epsilon=mechanism.epsilon,
            n_samples=100_000,
            alpha=suite_alpha,
            seed=15,
            event_families=families,
        )
        assert not result.violation, result.summary()


def test_geometric_outputs_are_discrete_so_floating_families_do_not_apply(suite_alpha):
    result = dpverify.audit(GeometricMechanism(0.5), 0, 1, epsilon=0.5, n_samples=50_000, alpha=suite_alpha, seed=16)
    assert not result.violation
    assert result.event.family not in FLOATING_FAMILIES


def test_reachability_needs_real_inputs_matching_the_output():
    from dpverify.events.floating import reachability_events
    from dpverify.pipeline.outputs import encode_outputs

    y = np.random.default_rng(0).normal(size=100)
    outputs = encode_outputs(y, y + 1)
    ex, exp_ = outputs.groups
    assert not reachability_events(ex, exp_, outputs, inputs=None).events
    assert not reachability_events(ex, exp_, outputs, inputs=("a", "b")).events
    assert not reachability_events(ex, exp_, outputs, inputs=((0.0, 1.0), (1.0, 0.0))).events  # wrong length
    assert reachability_events(ex, exp_, outputs, inputs=(0.0, 1.0)).events


class FloatHistogram:
    """Textbook float histogram: counts + numpy Laplace(2) per count (vector outputs, vector inputs)."""

    epsilon = 0.5

    def sample(self, data, size, rng):
        return np.asarray(data, float) + rng.laplace(scale=2.0, size=(size, len(data)))

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


def test_reachability_flags_a_float_histogram(suite_alpha):
    """Vector outputs: "y - x' inexact in some coordinate" has P ~ 0.4 under x and 0 under x';
    2e4 samples certify ~5 > 0.5 (power ~1)."""
    result = dpverify.audit(
        FloatHistogram(), (1.0, 2.0, 3.0), (2.0, 2.0, 3.0), epsilon=0.5, n_samples=20_000, alpha=suite_alpha, seed=17
    )
    assert result.violation and result.event.family == "reachability"
