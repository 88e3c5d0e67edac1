"""A vectorized sample() is checked against the mechanism's own call before any audit uses it.

The check (dpverify.pipeline.sampler_check) is a two-sample Kolmogorov test on 1,000 outputs of each per
input, with a false-alarm rate of 1e-8 for any output distribution (DKW inequality, Massart 1990)
and power at least 1 - 1e-8 against a Kolmogorov distance of 0.41 on a feature. Seeds are fixed.
"""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

import dpverify
from dpverify.errors import SamplerContractError
from dpverify.mechanisms.catalogue import zoo_entries
from dpverify.mechanisms.output_types import CALIBRATION_CASES
from dpverify.mechanisms.textbook import LaplaceMechanism, RandomizedResponse
from dpverify.pipeline.sampler_check import ALPHA, CHECK_SIZE, check_sampler_agreement, kolmogorov_distance


class LaplaceIgnoringItsInput(LaplaceMechanism):
    """``sample`` always draws around 0: on x' = 1 it is not the mechanism."""

    def sample(self, data, size, rng):
        return super().sample(0.0, size, rng)


class ResponseAsText(RandomizedResponse):
    """``sample`` returns strings where the call returns integers."""

    def sample(self, data, size, rng):
        return [str(v) for v in super().sample(data, size, rng)]


def test_a_sampler_ignoring_its_input_is_refused_by_name():
    """Detects an audit that trusts sample(): this one ignores its input, and the audit said
    "no violation" of a claim of 0.5 that the real Laplace (true loss 1) violates. The Kolmogorov
    distance of the two on x' = 1 is 1 - exp(-1/2) = 0.39; false-alarm rate 1e-8."""
    for mechanism, claim in ((LaplaceIgnoringItsInput(1.0), 1.0), (LaplaceIgnoringItsInput(1.0), 0.5)):
        with pytest.raises(SamplerContractError, match="on input x_prime"):
            dpverify.audit(mechanism, 0.0, 1.0, epsilon=claim, n_samples=20_000, seed=1)
    with pytest.raises(SamplerContractError):
        dpverify.sequential_audit(LaplaceIgnoringItsInput(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1)
    with pytest.raises(SamplerContractError, match="another kind"):
        dpverify.audit(ResponseAsText(1.0), 0, 1, epsilon=1.0, n_samples=20_000, seed=1)


def test_the_zoo_samplers_agree_with_their_calls():
    """No false alarm on the zoo's vectorized mechanisms (each check at 1e-8, fixed seeds);
    detects a check whose threshold ignores the number of features compared."""
    for entry in zoo_entries():
        agreement = check_sampler_agreement(
            entry.mechanism, [("x", entry.x), ("x_prime", entry.x_prime)], np.random.SeedSequence(3)
        )
        assert agreement is not None and agreement.largest_distance <= agreement.threshold, entry.name


def test_every_output_type_of_the_calibration_cases_agrees():
    """No false alarm on any output type (each check at 1e-8, fixed seeds). Detects a Kolmogorov
    distance on codes numbered by first appearance: with 10^4 string labels, the labels the calls
    saw first got the low codes and the distance was 0.91 between two equal distributions."""
    for name, (mechanism, x, x_prime) in CALIBRATION_CASES.items():
        agreement = check_sampler_agreement(mechanism, [("x", x), ("x_prime", x_prime)], np.random.SeedSequence(4))
        assert agreement is not None and agreement.largest_distance <= agreement.threshold, name


def test_the_check_does_not_change_the_audit(monkeypatch):
    """The check draws from its own stream: the audit's result is the same without it. Detects a
    check drawing from one of the audit's streams."""
    checked = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=5)
    monkeypatch.setattr(
        importlib.import_module("dpverify.audits.certification"), "check_sampler_agreement", lambda *a, **k: None
    )
    unchecked = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=5)
    assert dataclasses.replace(checked, checks_drawn=0) == dataclasses.replace(unchecked, checks_drawn=0)
    assert checked.checks_drawn - unchecked.checks_drawn == 2 * CHECK_SIZE  # its calls and its sample, recorded


def test_kolmogorov_distance_with_ties_and_infinities():
    """Exact values on small samples; detects an ECDF taken on one side of the ties only."""
    assert kolmogorov_distance(np.array([0.0, 0.0, 1.0]), np.array([0.0, 1.0, 1.0])) == pytest.approx(1 / 3)
    assert kolmogorov_distance(np.array([np.inf, 1.0]), np.array([1.0, np.inf])) == 0.0
    assert kolmogorov_distance(np.array([0.0]), np.array([1.0])) == 1.0
    assert ALPHA <= 1e-8
