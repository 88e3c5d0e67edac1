"""Adapters return released keys natively: OpenDP's thresholded counts (hashmaps) and PipelineDP's private
partition selection are audited as mappings key -> value, with no ``output_key``.

Statistics. Every audit runs at alpha = 1e-6: a correct pipeline is flagged with probability at most
1e-6 per assertion (the audit's guarantee, certified on fresh samples). Power, at the sizes used (the
certification half of the samples, 1e-6 Clopper-Pearson bounds about 5.3 standard errors wide):

- OpenDP, threshold 2 and scale 1 (discrete Laplace Z; a count is released at or above the threshold):
  a key of one row against none is released with chance P[Z >= 1] = 0.269, and 3,000 certification
  samples bound it below by about 0.225, so the delta bound (that, less e times a bound of about 0.005
  on x') sits near 0.21, above the 0.099 = P[Z >= 2] OpenDP 0.16's map states (opendp/opendp#2922).
- PipelineDP with the privacy id taken per row: a partition of one user with 40 rows is selected as one of
  40 users, almost always, against never from x'; the delta bound sits near 0.99 against the claimed 1e-3.

OpenDP and PipelineDP cannot be seeded, so these verdicts rest on the rates above; both tests skip where
the library is absent (CI installs neither).
"""

from __future__ import annotations

import math
from collections import namedtuple
from operator import itemgetter

import pytest

import dpverify
from dpverify.extras.adapters import OpenDPMeasurement, PipelineDPAggregation
from dpverify.extras.adapters.pipelinedp import _released_keys

ALPHA = 1e-6
KEY_FAMILIES = ("key-presence", "key-value", "key-count")


def _audit(mechanism, x, x_prime, n, seed=1):
    return dpverify.audit(
        mechanism, x, x_prime, n_samples=n, alpha=ALPHA, seed=seed, event_families=KEY_FAMILIES, executor=None
    )


class _HashmapShaped:
    """A measurement-shaped object whose output is a hashmap, as OpenDP's thresholded counts return."""

    output_measure = "Approximate(MaxDivergence)"

    def map(self, d_in):
        return (1.0 * d_in, 0.01)

    def __call__(self, data):
        return {key: data.count(key) for key in set(data)}  # every key released: presence leaks


def test_a_hashmap_output_is_audited_as_released_keys_without_output_key():
    """Detects: OpenDP hashmaps refused as unhashable (the behaviour before), or read as whole-dict levels
    instead of "key 'a' released" (the event of a presence leak)."""
    leak = OpenDPMeasurement(_HashmapShaped(), d_in=1)
    result = _audit(leak, ["a", "c", "c"], ["c", "c"], 2_000)
    assert result.violation and result.event.description == "key 'a' released"


def test_pipelinedp_metrics_become_released_keys():
    """Detects: a metric dropped or keyed wrongly when PipelineDP's (partition, metrics) pairs are turned into
    released keys."""
    one = namedtuple("MetricsTuple", ["count"])
    two = namedtuple("MetricsTuple", ["count", "sum"])
    assert _released_keys([("a", one(3.5))]) == {"a": 3.5}
    assert _released_keys([("a", two(3.0, 7.0))]) == {("a", "count"): 3.0, ("a", "sum"): 7.0}


def test_opendp_thresholded_count_is_audited_through_its_released_keys():
    """OpenDP's ``make_count_by >> then_laplace_threshold`` (threshold 2, scale 1) audited through its
    released keys, claim from its privacy map, on one row of a new key against none.

    Such a key is released when ``1 + Z >= 2`` (OpenDP releases counts at or above the threshold: the
    smallest value released is the threshold), with chance ``P[Z >= 1]`` = 0.269 for the discrete
    Laplace ``Z``. Where the map states a smaller delta (0.099 = ``P[Z >= 2]`` in OpenDP 0.16: the public
    issue opendp/opendp#2922) the audit must flag it through "key 'a' released"; where the map states at
    least the release chance it must not. Detects: an audit blind to a key's presence (the whole-dict
    level sets of before, or an output_key that drops keys), and a false alarm on the map at d_in = 2
    (delta 0.47 >= 0.269), which holds for this pair.
    """
    pytest.importorskip(
        "opendp", reason="OpenDP (a 47 MB wheel) is in the 'adapters' extra only: pip install -e '.[adapters]'"
    )
    import opendp.prelude as dp

    dp.enable_features("contrib")
    counts = dp.t.make_count_by(dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance())
    threshold = counts >> dp.m.then_laplace_threshold(scale=1.0, threshold=2)
    release_chance = math.exp(-1) / (1 + math.exp(-1))  # P[Z >= 1], Z discrete Laplace of scale 1
    rest = ["c"] * 20
    at_one = _audit(OpenDPMeasurement(threshold, d_in=1), ["a", *rest], rest, 6_000)
    if threshold.map(1)[1] < release_chance:
        assert at_one.violation and at_one.event.description == "key 'a' released"
        assert at_one.delta_lower_bound > threshold.map(1)[1]
    else:
        assert not at_one.violation
    assert threshold.map(2)[1] >= release_chance
    assert not _audit(OpenDPMeasurement(threshold, d_in=2), ["a", *rest], rest, 6_000).violation


def test_pipelinedp_private_partition_selection_keeps_its_claim_and_a_per_row_privacy_id_is_caught():
    """PipelineDP's count with private partition selection, audited through the partitions it releases.
    Detects: the privacy id taken per row, so a user with 40 rows selects its partition as 40 users would."""
    pipeline_dp = pytest.importorskip("pipeline_dp", reason="PipelineDP is in the 'pipelinedp' extra only")
    one_per_user = {"max_partitions_contributed": 1, "max_contributions_per_partition": 1}
    count = [pipeline_dp.Metrics.COUNT]
    params = pipeline_dp.AggregateParams(noise_kind=pipeline_dp.NoiseKind.LAPLACE, metrics=count, **one_per_user)

    def extractors(privacy_id):  # rows are (user, partition, value); picklable extractors
        return pipeline_dp.DataExtractors(
            partition_extractor=itemgetter(1), privacy_id_extractor=privacy_id, value_extractor=itemgetter(2)
        )

    x_prime = tuple((i, "c", 0) for i in range(30))
    x = x_prime + tuple((99, "a", j) for j in range(40))  # one user, 40 distinct rows
    ok = PipelineDPAggregation(params, extractors(itemgetter(0)), epsilon=1.0, delta=1e-3)
    assert isinstance(ok(x), dict)
    assert not _audit(ok, x, x_prime, 6_000).violation
    wrong = PipelineDPAggregation(params, extractors(tuple), epsilon=1.0, delta=1e-3)
    flagged = _audit(wrong, x, x_prime, 6_000)
    assert flagged.violation and flagged.event.family == "key-presence"
