"""Grey-box probes find glue bugs planted from public issue descriptions, and flag no correct pipeline.

The probes draw no statistics (the same recorded randomness on x and x', see
:mod:`dpverify.probes.probe`): every test here is deterministic, with a false-alarm rate of 0 on
the correct pipelines and a power of 1 on the planted bugs, at every parameter value tried. Each
finding must name the call site of the noise call the bug sits at.

The bugs (the pipelines of :mod:`dpverify.mechanisms.glue`), written from the issues' descriptions:

- a clipped mean whose declared sensitivity ignores the clipping range (diffprivlib issue #104:
  a sensitivity that does not scale with the bounds);
- a bounded sum that declares the bounds' sensitivity but skips the clipping (smartnoise-sdk
  issue #621);
- two releases each calibrated to the whole budget (a budget charged once for two queries);
- a threshold on the true count that chooses whether noise is added at all (data-dependent
  control flow);
- noise drawn only for the keys whose true count reaches a threshold, vectorised over the keys
  (its number of draws follows the data, as a correct per-key pipeline's does: a draw-count note
  for the probe, found by the follow-up audit);
- a mean whose noise scale comes from the data's own range (diffprivlib's "bounds will be
  calculated on the data provided"): a noise-calibration finding, where a correct adaptive pipeline
  whose scale follows an earlier noisy release is a note.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

import dpverify
from dpverify.mechanisms.glue import (
    ClippedMean,
    CountAndSums,
    DataBoundsMean,
    SumScaledByNoisyCount,
    replace_one_pairs,
    replace_one_strategy,
    thresholded_on_noisy_count,
    thresholded_on_true_count,
)
from dpverify.mechanisms.glue import source_site as _site
from dpverify.mechanisms.thresholded import PLANTED_BUGS, ThresholdedCounts
from dpverify.probes import probe_and_audit, probe_pair, probe_search
from dpverify.testing import check_result


@pytest.mark.parametrize("upper, n", [(10.0, 5), (2.0, 8), (4.0, 3)])
def test_a_declared_sensitivity_that_ignores_the_clipping_range_is_found_at_its_noise_call(upper, n):
    """Detects: diffprivlib #104-style, a clipped mean declaring sensitivity 1/n whatever the bounds.

    The probe measures ``f(x) - f(x')`` on the pair 0...0 vs 0...0,upper as exactly upper/n, so the
    excess over the declared 1/n is ``upper``, and it names the Laplace call. The correct mean
    (sensitivity upper/n) is flagged on no pair of the list, nor of a Hypothesis search.
    """
    buggy = ClippedMean(upper, n, epsilon=1.0, declared=1.0 / n)
    report = probe_search(buggy, replace_one_pairs(n, upper), seed=3)
    (finding,) = report.findings
    assert finding.kind == "sensitivity"
    assert finding.site == _site(ClippedMean.__call__, "rng.laplace")
    assert finding.numbers["excess"] == pytest.approx(upper, rel=1e-9)
    assert report.pairs_probed == 5
    correct = ClippedMean(upper, n, epsilon=1.0)
    assert not probe_search(correct, replace_one_pairs(n, upper), seed=3).flagged
    assert not probe_search(correct, replace_one_strategy(n, upper), seed=3, max_examples=25).flagged


@pytest.mark.parametrize("upper, n", [(10.0, 5), (2.0, 8)])
def test_skipped_clipping_is_found_by_a_hypothesis_search_and_shrunk(upper, n):
    """Detects: smartnoise-sdk #621-style, a sum or mean that declares the bounds' sensitivity but never
    clips, so one value outside the bounds moves the query past it.

    The Hypothesis search (25 pairs, seed 1) finds a pair whose shift exceeds upper/n, and the
    report names the Laplace call; the clipping version is flagged on none of the same pairs.
    """
    unclipped = ClippedMean(upper, n, epsilon=1.0, clip=False)
    report = probe_search(unclipped, replace_one_strategy(n, upper), seed=1, max_examples=25)
    assert [f.kind for f in report.findings] == ["sensitivity"]
    assert report.findings[0].site == _site(ClippedMean.__call__, "rng.laplace")
    assert report.excess() > 1
    assert report.pairs_probed >= 25
    assert not probe_search(ClippedMean(upper, n, epsilon=1.0), replace_one_pairs(n, upper), seed=1).flagged


@pytest.mark.parametrize("epsilon, k", [(0.5, 2), (1.0, 2), (3.0, 3)])
def test_a_budget_charged_once_for_several_releases_is_found(epsilon, k):
    """Detects: every one of k releases calibrated to the whole epsilon (the budget charged once).

    The probe sums sensitivity / scale over the Laplace calls: k epsilon, above the claimed epsilon
    from the second call on, which the finding names. The split version spends exactly epsilon and
    is not flagged; neither shifts a release past its sensitivity.
    """
    pairs = [([0.2, 0.9, 0.5], [0.2, 0.9]), ([0.0, 1.0], [0.0, 0.0])]
    report = probe_search(CountAndSums(epsilon, k, split=False), pairs, seed=0, epsilon=epsilon)
    (finding,) = report.findings
    assert finding.kind == "budget"
    assert finding.site == _site(CountAndSums.__call__, "releases.append")
    assert finding.numbers["spent"] == pytest.approx(k * epsilon, rel=1e-12)
    correct = probe_search(CountAndSums(epsilon, k), pairs, seed=0, epsilon=epsilon)
    assert not correct.flagged
    assert [c.implied_epsilon for c in correct.calls][0] == pytest.approx(epsilon / k)


def test_a_threshold_on_the_true_count_is_data_dependent_control_flow():
    """Detects: a pipeline that chooses by the true count whether to add noise (its output is 0 without
    noise on one side of the threshold, a distinguishing event of probability 1).

    On 3 vs 2 records the runs part at the first call, the Laplace call the finding names; on 5 vs
    4 records (both above) nothing is found. Thresholding the noisy count instead is never flagged.
    """
    report = probe_pair(thresholded_on_true_count, [1, 2, 3], [1, 2], seed=0)
    (finding,) = report.findings
    assert finding.kind == "control-flow"
    assert finding.site == _site(thresholded_on_true_count, "rng.laplace")
    assert finding.numbers == {"call": 0, "calls_x": 1, "calls_x_prime": 0}
    assert not probe_pair(thresholded_on_true_count, [1] * 5, [1] * 4, seed=0).flagged
    for n in range(1, 7):
        for seed in range(4):
            assert not probe_pair(thresholded_on_noisy_count, [1] * n, [1] * (n - 1), seed=seed).flagged


def _subsampled_count(data, rng):
    """Poisson subsampling (one uniform per record, kept with chance 1/2), then a Laplace count: correct."""
    kept = sum(1 for _ in data if rng.random() < 0.5)
    return kept + rng.laplace(scale=2.0)


@pytest.mark.parametrize(
    "pipeline, x, x_prime, site, counts",
    [
        (
            ThresholdedCounts(1.0, 0.02),
            {"a": 1, "b": 50},
            {"b": 50},
            (ThresholdedCounts._release, "rng.laplace"),
            (2, 1),
        ),
        (ThresholdedCounts(0.5, 0.1, 2.0), {"a": 2, "b": 9, "c": 4}, {"b": 9, "c": 4}, None, (3, 2)),
        (ThresholdedCounts(2.0, 0.01), {"a": 1}, {}, None, (1, 0)),
        (_subsampled_count, [1, 2, 3, 4], [1, 2, 3], (_subsampled_count, "rng.random"), (4, 3)),
    ],
)
def test_one_noise_per_key_or_per_record_is_a_note_not_a_finding(pipeline, x, x_prime, site, counts):
    """Detects: a probe that reports a correct pipeline drawing one noise per key (a thresholded count, a
    key added: one draw of shape (1, keys)) or per record (a consecutive call per record, a record added)
    as data-dependent control flow; or one that passes over it in silence (no note naming the site and
    the two draw counts, a bare "nothing found"), or measures a shift on draws that are no longer the
    same randomness in both runs. Deterministic; the report reloads equal from JSON."""
    report = probe_pair(pipeline, x, x_prime, seed=1)
    assert not report.flagged and not report.findings
    (where,) = report.draw_count_sites
    if site is not None:
        assert where == _site(*site)
    note = next(n for n in report.notes if n.startswith("draw counts differ"))
    assert where in note and f"draws {counts[0]} value(s)" in note and f"x' {counts[1]} in" in note
    assert "probe_and_audit" in note and "not judged" in report.summary().splitlines()[0]
    assert not any(c.components for c in report.calls)
    check_result(report)


def test_a_branch_is_control_flow_even_where_draw_counts_differ():
    """Detects: a draw-count rule that demotes a real branch: noise whose scale follows the data (the
    same site and size rule, other parameters), or a call made in one run only after a per-key draw;
    the finding names the call where the runs part in each run."""

    def scale_follows_the_data(data, rng):
        return float(np.sum(np.asarray(data) + rng.laplace(scale=len(data), size=len(data))))

    (finding,) = probe_pair(scale_follows_the_data, [1, 2, 3], [1, 2], seed=0).findings
    assert finding.kind == "control-flow" and "scale 3" in finding.message and "scale 2" in finding.message

    def branch_after_per_key_noise(data, rng):
        noisy = float(np.sum(np.asarray(data) + rng.laplace(size=len(data))))
        return noisy + rng.normal() if len(data) >= 3 else noisy

    (finding,) = probe_pair(branch_after_per_key_noise, [1, 2, 3], [1, 2], seed=0).findings
    assert finding.kind == "control-flow" and finding.site == _site(branch_after_per_key_noise, "rng.normal")
    assert finding.numbers == {"call": 1, "calls_x": 2, "calls_x_prime": 1}


def test_noise_only_above_the_true_threshold_is_not_hidden_by_the_draw_count_rule(suite_alpha):
    """Detects: a planted bug made silent by the draw-count rule: noise drawn only for keys whose true count
    reaches the threshold (vectorised, so its draw count follows the data as the correct pipeline's does).

    On no seed is it a finding for the probe (the released keys differ where key 'a' is released from x,
    seed 0, but the runs' noise differs too): on every seed the note names the site, and the follow-up
    audit is the verdict: at 2,000 samples per input
    it certifies delta > 0.5 (the key is released with chance 0.77 from x, never from x': the 1e-6
    lower bound sits near 0.72, power close to 1), false-alarm rate ``suite_alpha`` on a correct pipeline.
    """
    cls, fields, x, x_prime = PLANTED_BUGS["noise-only-above-the-true-threshold"]
    bug = cls(1.0, 0.02, **fields)
    for seed in range(6):
        report = probe_pair(bug, x, x_prime, seed=seed)
        assert not report.findings and report.draw_count_sites
    assert any("different shapes" in n for n in probe_pair(bug, x, x_prime, seed=0).notes)
    families = ("key-presence", "key-value", "key-count")
    result = probe_and_audit(bug, [(x, x_prime)], seed=3, n_samples=2_000, alpha=suite_alpha, event_families=families)
    assert not result.report.flagged and result.report.draw_count_sites
    assert result.violation and result.audit.event.family == "key-presence"
    assert result.audit.delta_lower_bound > 0.5


@pytest.mark.parametrize(
    "epsilon, x, x_prime",
    [
        (1.0, [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 2.0, 3.0, 4.0, 9.0]),
        (0.3, [0.0, 1.0], [0.0, 4.0]),
        (2.0, [5.0] * 3 + [6.0], [5.0] * 4),
    ],
)
def test_a_noise_scale_computed_from_the_data_is_a_calibration_finding(epsilon, x, x_prime):
    """Detects: a noise scale computed from the data's range (diffprivlib's bounds "calculated on the data
    provided"), which the probe used to measure as a shift across two different scales, a number that
    meant nothing. Now it is a noise-calibration finding at the Laplace call, with no shift measured."""
    report = probe_pair(DataBoundsMean(epsilon), x, x_prime, seed=1)
    (finding,) = report.findings
    assert finding.kind == "noise-calibration"
    assert finding.site == _site(DataBoundsMean.__call__, "rng.laplace")
    assert report.calls[0].components == 0 and report.calls[0].shift_l1 is None


@pytest.mark.parametrize(
    "epsilon, seed, straddles", [(0.5, 1, True), (0.5, 2, False), (1.0, 0, True), (1.0, 2, False), (2.0, 5, True)]
)
def test_a_scale_that_follows_an_earlier_noisy_release_is_a_note(epsilon, seed, straddles):
    """Detects: a calibration check that flags a correct adaptive pipeline (its second scale reads the
    released noisy count, post-processing) or that drops the note. On seeds where the noisy counts of 10
    and 9 records fall on either side of 10 the two runs draw the sum's noise at other scales: a note says
    they follow the earlier release; elsewhere the scales agree and the shift is measured."""
    report = probe_pair(SumScaledByNoisyCount(epsilon), [0.5] * 10, [0.5] * 9, seed=seed)
    assert not report.findings
    assert any("follow those releases" in note for note in report.notes) == straddles
    assert (report.calls[1].components == 0) == straddles
    if not straddles:
        assert report.calls[1].shift_l1 == pytest.approx(0.5)


@pytest.mark.parametrize("sigma", [0.5, 2.0])
def test_implied_rho_and_epsilon_at_gaussian_laplace_and_geometric_calls(sigma):
    """Detects: a wrong implied privacy loss: rho = shift**2 / (2 sigma**2) for a normal call,
    epsilon = shift / b for a Laplace call of scale b and -shift log(1 - p) for a geometric one."""

    def releases(data, rng):
        total = float(np.sum(data))
        gaussian = total + rng.normal(0.0, sigma)
        laplace = total + rng.laplace(0.0, sigma)
        geometric = int(total) + rng.geometric(0.25) - rng.geometric(p=0.25)
        return [gaussian, laplace, geometric]

    report = probe_pair(releases, [3.0, 1.0], [1.0, 1.0], seed=2)
    normal, laplace, first_geometric, second_geometric = report.calls
    assert normal.implied_rho == pytest.approx(4.0 / (2 * sigma**2), rel=1e-12)
    assert laplace.implied_epsilon == pytest.approx(2.0 / sigma, rel=1e-12)
    assert first_geometric.implied_epsilon == pytest.approx(-2.0 * np.log(0.75), rel=1e-12)
    assert second_geometric.components == 1 and second_geometric.shift_l1 == 2.0
    assert not report.flagged


def test_randomness_the_probe_does_not_control_is_refused_and_python_random_is_recorded():
    """Detects: a probe that compares two runs whose noise differs (a pipeline with a generator of its own),
    which would read the noise as a shift; Python's random module functions recorded and measured as
    noise calls (random.gauss of sigma 2: rho = 1 / 8 on a shift of 1), numpy's legacy global
    generator replayed but not recorded, and both restored afterwards."""

    def own_generator(data, rng):
        return len(data) + np.random.default_rng().laplace()  # unseeded on purpose: the case refused

    with pytest.raises(dpverify.errors.MechanismError, match="does not control"):
        probe_pair(own_generator, [1, 2], [1], seed=0)
    python_state, numpy_state = random.getstate(), np.random.get_state()
    gauss = random.gauss

    def python_noise(data, rng):
        return len(data) + random.gauss(0.0, 2.0)

    (call,) = probe_pair(python_noise, [1, 2], [1], seed=0).calls
    assert (call.method, call.site) == ("random.gauss", _site(python_noise, "random.gauss"))
    assert call.implied_rho == pytest.approx(1 / 8, rel=1e-12)
    assert probe_pair(python_noise, [1, 2, 3, 4], [1], seed=0, sensitivity=1.0).findings[0].kind == "sensitivity"
    legacy = probe_pair(lambda data, rng: len(data) + np.random.laplace(), [1, 2], [1], seed=0)
    assert not legacy.flagged and not legacy.calls and "not recorded" in legacy.notes[0]
    assert random.gauss is gauss and random.getstate() == python_state
    assert np.array_equal(np.random.get_state()[1], numpy_state[1])


def test_the_report_keeps_the_result_contract():
    """Detects: a report that does not reload equal from JSON, or that reloads a finding of an unknown kind."""
    report = probe_pair(ClippedMean(10.0, 5, 1.0, declared=0.2), [0.0] * 5, [0.0] * 4 + [10.0], seed=7)
    check_result(report)
    assert report.flagged and "sensitivity" in report.summary()
    data = report.to_dict()
    data["findings"][0]["kind"] = "made-up"
    with pytest.raises(dpverify.errors.ResultFormatError, match="unknown finding kind"):
        type(report).from_dict(data)
    with pytest.raises(dpverify.errors.InvalidParameterError, match="seed"):
        probe_pair(ClippedMean(10.0, 5, 1.0), [0.0], [1.0], seed=-1)


def test_probe_and_audit_certifies_the_worst_pair(suite_alpha):
    """Detects: a chain that audits another pair than the probes' worst, or loses the claim on the way.

    The mean declaring sensitivity 1/n with values in [0, 10] spends epsilon 10 on the worst pair,
    ten times its claim of 1: the audit at 20,000 samples per input certifies a bound above 1 (power
    close to 1 at this gap); the correct mean's audit has false-alarm rate ``suite_alpha``. Both audit
    value events only (``float_events=False``): the textbook floating-point Laplace mechanism leaks
    through its low-order bits (Mironov 2012), which the floating-point events certify on the correct
    mean too, and which is not the glue bug under test.
    """
    pairs = replace_one_pairs(5, 10.0)
    options = {"n_samples": 20_000, "alpha": suite_alpha, "float_events": False}
    result = probe_and_audit(ClippedMean(10.0, 5, 1.0, declared=0.2), pairs, seed=5, **options)
    assert result.report.x == repr([0.0] * 5) and result.violation
    assert result.audit.epsilon_lower_bound > 1.0
    check_result(result)
    correct = probe_and_audit(ClippedMean(10.0, 5, 1.0), pairs, seed=5, **options)
    assert not correct.report.flagged and not correct.violation


def test_the_rounding_of_large_released_values_is_no_sensitivity_excess():
    """Detects: a sensitivity check that reads the rounding of released floats as a shift (a query of
    sensitivity 1e-3 released near 1e6 rounds by about 1e-10, more than a relative slack of 1e-9 on
    1e-3 allows). Deterministic: 20 seeds, none may flag; the excess itself is still found."""

    class NearAMillion:
        sensitivity = 1e-3

        def __call__(self, data, rng):
            return 1e6 + 1e-3 * data[0] + rng.laplace(scale=1.0)

    for seed in range(20):
        assert not probe_pair(NearAMillion(), [1.0], [0.0], seed=seed).flagged
    assert probe_pair(NearAMillion(), [1.0], [-0.01], seed=0).findings[0].kind == "sensitivity"
