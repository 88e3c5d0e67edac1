"""Validity on every output type: no false violation, no silent pass.

Calibration (the audit's promise: a mechanism that keeps its claim is flagged
with probability at most alpha) is checked for every kind of output a
mechanism may return: ints, bools, strings, tuples, frozensets, integer rows,
floats, real vectors, and large output spaces (k-ary randomized response over
1e4 string labels at its exact claim; pure noise over 1e5 labels). Each
mechanism attains its claim exactly on the pair (or has loss 0), the worst
case for false alarms.

Statistics: per output type, ``N`` audits at alpha = 0.05 with spawned seeds;
the number of violations is at most the ``1 - suite_alpha`` quantile of
Bin(N, 0.05), so on a correct auditor each assertion fails with probability
<= 1e-6. Power: the defect this guards against (hashable outputs numbered over
the certification samples) flagged pure noise in about half the audits; with
N = 20 the quantile is 7 and Bin(20, 0.5) exceeds it with probability 0.87
per type, and the deterministic regressions below pin the reported cases.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import dpverify
from dpverify.keys import array_tuple, weighted_edges
from dpverify.mechanisms import GridLaplace
from dpverify.mechanisms.output_types import CALIBRATION_CASES as CASES
from dpverify.mechanisms.output_types import KaryResponse, PureNoiseLabels

ALPHA = 0.05


@pytest.mark.parametrize("name", sorted(CASES))
def test_false_violation_rate_by_output_type(name, thorough, suite_alpha):
    mechanism, x, x_prime = CASES[name]
    n_audits = 200 if thorough else 20
    seeds = np.random.SeedSequence([71, len(name)]).spawn(n_audits)
    with warnings.catch_warnings():  # pure noise warns that its outputs never repeat: tested below
        warnings.simplefilter("ignore", UserWarning)
        violations = sum(
            dpverify.audit(
                mechanism, x, x_prime, epsilon=mechanism.epsilon, n_samples=5_000, alpha=ALPHA, seed=s
            ).violation
            for s in seeds
        )
    limit = stats.binom.ppf(1 - suite_alpha, n_audits, ALPHA)
    assert violations <= limit, f"{name}: {violations} of {n_audits} audits flagged a correct mechanism"


def test_pure_noise_strings_of_the_report_are_not_flagged():
    """The reproducer of the hashable-output defect: bound 2.9 and a violation before."""
    result = dpverify.audit(PureNoiseLabels(10**6), 0, 1, epsilon=1.0, n_samples=100_000, alpha=1e-6, seed=1)
    assert not result.violation
    assert result.epsilon_lower_bound < 0.05


def test_k_ary_response_on_strings_keeps_its_claim_and_a_low_claim_is_caught():
    result = dpverify.audit(KaryResponse(1.0, 10_000), 0, 1, epsilon=1.0, n_samples=100_000, alpha=1e-6, seed=2)
    assert not result.violation
    # power (k = 100: the label of x has probability 0.027 vs 0.0098, loss 1.0 > 0.5)
    result = dpverify.audit(KaryResponse(1.0, 100), 0, 1, epsilon=0.5, n_samples=100_000, alpha=1e-6, seed=2)
    assert result.violation


# --------------------------------------------------------------------------
# no silent pass
# --------------------------------------------------------------------------


def _graph_leak(x, rng):
    import networkx as nx

    g = nx.Graph()
    g.add_edge(0, 1, weight=x + int(rng.integers(0, 2)))
    return g


class _Opaque:
    def __init__(self, value):
        self.value = value


def test_identity_compared_outputs_are_refused_with_the_fix_named():
    with pytest.raises(dpverify.OutputTypeError, match="output_key"):
        dpverify.audit(_graph_leak, 0, 5, epsilon=1.0, n_samples=2_000, seed=1)
    with pytest.raises(dpverify.OutputTypeError, match="compare by identity"):
        dpverify.audit(lambda x, rng: _Opaque(x), 0, 1, epsilon=1.0, n_samples=2_000, seed=1)


def test_output_key_makes_a_graph_leak_visible():
    result = dpverify.audit(
        _graph_leak, 0, 5, epsilon=1.0, n_samples=2_000, seed=1, alpha=1e-6, output_key=weighted_edges
    )
    assert result.violation
    assert result.event.count_x_prime == 0 or result.event.count_x == 0


def test_array_key_and_int_arrays_per_call():
    def leaky(x, rng):
        return np.array([x, int(rng.integers(0, 3))])

    for key in (None, array_tuple):
        result = dpverify.audit(leaky, 0, 1, epsilon=1.0, n_samples=2_000, seed=1, alpha=1e-6, output_key=key)
        assert result.violation


def test_many_distinct_non_numeric_outputs_warn():
    with pytest.warns(UserWarning, match="distinct"):
        result = dpverify.audit(PureNoiseLabels(10**9), 0, 1, epsilon=1.0, n_samples=5_000, seed=1)
    assert any("distinct" in note for note in result.notes)


def test_infinite_outputs_are_audited_and_a_one_sided_inf_is_a_leak():
    def inf_on_one_input(x, rng):
        return np.inf if (x == 1 and rng.random() < 0.1) else float(rng.integers(0, 3))

    result = dpverify.audit(inf_on_one_input, 0, 1, epsilon=1.0, n_samples=20_000, seed=1, alpha=1e-6)
    assert result.violation
    big = dpverify.audit(
        lambda x, rng: 1e308 * (1 if rng.random() < 0.5 else -1) + x,
        0.0,
        1.0,
        epsilon=1.0,
        n_samples=5_000,
        seed=1,
        alpha=1e-6,
    )
    assert not big.violation  # 1e308 + x rounds to 1e308: both inputs give the same two outputs


def test_nan_is_refused_by_name():
    with pytest.raises(dpverify.OutputTypeError, match="NaN"):
        dpverify.audit(lambda x, rng: float("nan"), 0, 1, epsilon=1.0, n_samples=2_000, seed=1)


@pytest.mark.parametrize(
    "empty",
    [lambda: np.array([]), lambda: (), lambda: np.zeros(0, dtype=np.int64), lambda: np.zeros((0, 3))],
    ids=["float-array", "tuple", "int-array", "2d-array"],
)
def test_outputs_of_no_coordinates_are_refused_by_name(empty):
    """Detects: empty array or tuple outputs read as real vectors of width 0, on which the first event family
    raised a raw ``ValueError`` (a reduction over no coordinates), in an audit and in an audit of given
    samples. Deterministic."""
    with pytest.raises(dpverify.OutputTypeError, match="no coordinates"):
        dpverify.audit(lambda x, rng: empty(), 0, 1, epsilon=1.0, n_samples=2_000, seed=1)
    samples = np.array([empty() for _ in range(2_000)])
    with pytest.raises(dpverify.OutputTypeError, match="no coordinates"):
        dpverify.audit_samples(samples, samples, epsilon=1.0)


def test_given_samples_of_the_wrong_types_are_named_as_samples():
    """Detects: audits of given samples (no mechanism) refused with "the mechanism returned NaN" or "the
    mechanism returned outputs of different types on different inputs" (int samples in one file, floats in
    the other), which sent the user to a mechanism that did not run. Deterministic."""
    ints = np.arange(2_000) % 2
    cases = [
        ((ints.astype(float), ints), "the outputs of the two inputs are of different types"),
        ((np.r_[ints[:-1], np.nan], ints.astype(float)), "an output is NaN"),
        ((np.array([1, "a"] * 1_000, dtype=object), ints), "mixed types"),
    ]
    for samples, message in cases:
        with pytest.raises(dpverify.OutputTypeError, match=message) as info:
            dpverify.audit_samples(*samples, epsilon=1.0)
        assert "mechanism returned" not in str(info.value)


def test_a_mechanism_ignoring_its_rng_is_reported_as_not_replayable():
    import random

    def own_randomness(x, rng):
        return int(random.random() < 0.5) + x

    result = dpverify.audit(own_randomness, 0, 1, epsilon=1.0, n_samples=2_000, seed=1)
    assert not result.replayable
    assert "does not replay" in result.summary()
    seeded = dpverify.audit(GridLaplace(1.0), 0.0, 1.0, epsilon=1.0, n_samples=2_000, seed=1)
    assert seeded.replayable


def test_families_that_did_not_apply_are_named_with_the_reason():
    result = dpverify.audit(
        GridLaplace(1.0), (0.0, 1.0), (1.0, 1.0), epsilon=1.0, n_samples=2_000, seed=1, output_key=lambda y: y
    )
    notes = " ".join(result.notes)
    assert "reachability" in notes


def test_float_leaks_are_told_apart_from_wrong_epsilons():
    """The implementation's verdict (float events) and the ideal mechanism's (values only)."""

    def textbook(scale):
        return lambda x, rng: x + rng.laplace(scale=scale)

    right = dpverify.audit(textbook(1.0), 0.0, 1.0, epsilon=1.0, n_samples=50_000, seed=3, alpha=1e-6)
    wrong = dpverify.audit(textbook(0.25), 0.0, 1.0, epsilon=1.0, n_samples=50_000, seed=3, alpha=1e-6)
    assert right.violation and wrong.violation  # both leak through their rounding
    assert right.value_verdict is not None and wrong.value_verdict is not None
    assert not right.value_verdict.violation  # the ideal mechanism keeps eps = 1
    assert wrong.value_verdict.violation and wrong.value_verdict.epsilon_lower_bound > 2.0  # true loss 4
    values_only = dpverify.audit(
        textbook(1.0), 0.0, 1.0, epsilon=1.0, n_samples=50_000, seed=3, alpha=1e-6, float_events=False
    )
    assert not values_only.violation and values_only.value_verdict is None
    reloaded = dpverify.AuditResult.from_json(wrong.to_json())
    assert reloaded == wrong


def test_a_constant_mechanism_is_a_pass_with_a_note_not_a_crash():
    result = dpverify.audit(lambda x, rng: 7, 0, 1, epsilon=1.0, n_samples=5_000, seed=1)
    assert not result.violation and result.epsilon_lower_bound == 0 and result.event.family == "none"
    assert any("nothing was certified" in note for note in result.notes)
    assert dpverify.AuditResult.from_json(result.to_json()) == result
