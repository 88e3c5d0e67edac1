"""The adapters of :mod:`dpverify.extras.adapters` audit library mechanisms correctly.

For each adapter: a correct, float-safe mechanism (discrete outputs) keeps its claim, and a
deliberately misconfigured one (a sensitivity or neighbour distance understated by a factor 2,
so the true loss is twice the claim) is flagged.

Statistics. Every audit runs at alpha = 1e-6, so a correct mechanism is flagged with
probability at most 1e-6 per assertion (the audit's guarantee; outputs are integers, so no
floating-point event applies). Power: on the misconfigured mechanisms the true loss is 2 x the
claim; at the sample sizes used the certified lower bound lands near 1.6-1.9 x the claim (a
margin of many standard errors), so a miss is far rarer than 1e-6. The seeded adapters use fixed
seeds; OpenDP and the unseeded adapter cannot be seeded, so their verdicts rest on those rates.

diffprivlib is in the ``test`` extra; OpenDP (a 47 MB wheel) only in the ``adapters`` extra, so
its library test skips where it is absent; the OpenDP adapter's logic is also tested with a
measurement-shaped object that needs no library.
"""

import math
import secrets

import numpy as np
import pytest

import dpverify
from dpverify.errors import InvalidClaimError
from dpverify.extras.adapters import OpenDPMeasurement, RandomStateMechanism, UnseededMechanism

ALPHA = 1e-6


def _audit(mech, x, x_prime, n, seed=1, **options):
    return dpverify.audit(
        mech, x, x_prime, epsilon=mech.epsilon, delta=mech.delta, n_samples=n, alpha=ALPHA, seed=seed, **options
    )


# --------------------------------------------------------------------------- RandomState


def _legacy_geometric(epsilon, sensitivity):
    """Two-sided geometric noise drawn from a RandomState, as legacy-numpy code does."""
    p = 1.0 - math.exp(-epsilon / sensitivity)
    return lambda x, rs: int(x) + int(rs.geometric(p) - rs.geometric(p))


def test_random_state_adapter_replays_from_the_generator():
    mech = RandomStateMechanism(_legacy_geometric(1.0, 1), epsilon=1.0)
    a = mech.sample(0, 50, np.random.default_rng(4))
    assert a == mech.sample(0, 50, np.random.default_rng(4))
    assert a != mech.sample(0, 50, np.random.default_rng(5))
    assert mech(0, np.random.default_rng(4)) == mech(0, np.random.default_rng(4))
    assert mech.replayable is True
    r1, r2 = (_audit(mech, 0, 1, 20_000, seed=3) for _ in range(2))
    assert r1 == r2 and r1.replayable


def test_random_state_adapter_keeps_a_correct_claim_and_flags_a_wrong_one():
    ok = RandomStateMechanism(_legacy_geometric(1.0, 1), epsilon=1.0)
    assert not _audit(ok, 0, 1, 20_000).violation
    # sensitivity declared 1 for a query whose neighbours differ by 2: true loss 2
    assert _audit(ok, 0, 2, 20_000).violation


def test_diffprivlib_geometric_through_the_random_state_adapter():
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    from diffprivlib.mechanisms import Geometric

    def count(x, rs, sensitivity=1):
        return Geometric(epsilon=1.0, sensitivity=sensitivity, random_state=rs).randomise(int(x))

    ok = RandomStateMechanism(count, epsilon=1.0)
    first = ok.sample(3, 20, np.random.default_rng(0))
    assert first == ok.sample(3, 20, np.random.default_rng(0))  # diffprivlib really uses the state
    result = _audit(ok, 0, 1, 20_000)
    assert not result.violation and result.replayable
    # a per-record contribution of up to 2 with sensitivity=1 declared
    flagged = _audit(ok, 0, 2, 20_000)
    assert flagged.violation and flagged.epsilon_lower_bound > 1.5
    # the same query with the sensitivity stated correctly keeps eps = 1 on that pair
    fixed = RandomStateMechanism(lambda x, rs: count(x, rs, sensitivity=2), epsilon=1.0)
    assert not _audit(fixed, 0, 2, 20_000).violation


def test_random_state_adapter_rejects_bad_claims():
    for bad in (0.0, -1.0, math.inf, math.nan, "1"):
        with pytest.raises(InvalidClaimError, match="epsilon"):
            RandomStateMechanism(_legacy_geometric(1.0, 1), epsilon=bad)
    with pytest.raises(InvalidClaimError, match="delta"):
        RandomStateMechanism(_legacy_geometric(1.0, 1), epsilon=1.0, delta=1.0)
    with pytest.raises(TypeError, match="callable"):
        RandomStateMechanism(3, epsilon=1.0)


# --------------------------------------------------------------------------- unseeded


def _system_randomized_response(keep_probability):
    """Randomized response on a bit with OS entropy (no seed can control it)."""
    scale = 10**6
    threshold = round(keep_probability * scale)
    return lambda bit: int(bit) if secrets.randbelow(scale) < threshold else 1 - int(bit)


def test_unseeded_adapter_says_replay_is_impossible():
    mech = UnseededMechanism(_system_randomized_response(0.75), epsilon=math.log(3))
    assert mech.replayable is False
    result = _audit(mech, 0, 1, 20_000)
    assert not result.violation
    assert result.replayable is False  # the audit reads the attribute


def test_unseeded_adapter_flags_a_wrong_claim():
    # keep probability 0.75 is ln 3 = 1.10-DP; claiming half of it must be flagged
    mech = UnseededMechanism(_system_randomized_response(0.75), epsilon=math.log(3) / 2)
    result = _audit(mech, 0, 1, 20_000)
    assert result.violation and result.epsilon_lower_bound > 0.8 * math.log(3)


# --------------------------------------------------------------------------- OpenDP


class _MeasurementShaped:
    """OpenDP's measurement interface (call, ``map``, ``output_measure``) without OpenDP."""

    def __init__(self, keep_probability, claimed_epsilon_per_unit, output_measure="MaxDivergence"):
        self.rr = _system_randomized_response(keep_probability)
        self.per_unit = claimed_epsilon_per_unit
        self.output_measure = output_measure

    def map(self, d_in):
        return d_in * self.per_unit

    def __call__(self, data):
        assert isinstance(data, list)  # the adapter hands OpenDP lists, not tuples
        return [self.rr(b) for b in data]


class _RenyiShaped(_MeasurementShaped):
    """A Rényi measurement: its map is a curve, the exact Rényi curve of the randomized response times 1.5."""

    def __init__(self, keep_probability):
        super().__init__(keep_probability, 1.0, "RenyiDivergence")
        self.keep = keep_probability

    def map(self, d_in):
        p, q = self.keep, 1 - self.keep

        def curve(alpha):
            return 1.5 * math.log(p**alpha * q ** (1 - alpha) + q**alpha * p ** (1 - alpha)) / (alpha - 1)

        return curve


def _audit_claim(mechanism, x, x_prime, n):
    """An audit of the claim the adapter states, in its kind (no epsilon passed)."""
    return dpverify.audit(mechanism, x, x_prime, n_samples=n, seed=3, alpha=1e-6)


def test_opendp_adapter_reads_the_claim_from_the_privacy_map():
    m = OpenDPMeasurement(_MeasurementShaped(0.75, math.log(3)), d_in=2)
    assert m.epsilon == pytest.approx(2 * math.log(3)) and m.delta == 0.0 and m.replayable is False
    out = m((0, 1), None)
    assert isinstance(out, tuple) and len(out) == 2
    # one differing bit: loss ln 3 <= the claim for d_in = 1
    ok = OpenDPMeasurement(_MeasurementShaped(0.75, math.log(3)), d_in=1)
    assert not _audit(ok, (0, 1), (1, 1), 20_000).violation
    # a map that understates the loss by 2 is caught
    wrong = OpenDPMeasurement(_MeasurementShaped(0.75, math.log(3) / 2), d_in=1)
    assert _audit(wrong, (0, 1), (1, 1), 20_000).violation


def test_opendp_adapter_reads_zcdp_and_renyi_measures_in_their_kind():
    """Detects a zCDP (or Rényi) measurement refused, converted to one (eps, delta) point, or read with
    the wrong parameter: randomized response with keep 3/4 has exact rho 0.549; stated as rho = 0.6 it holds,
    stated as rho = 0.3 it is violated, both audited as zCDP."""
    kept = OpenDPMeasurement(_MeasurementShaped(0.75, 0.6, "ZeroConcentratedDivergence"), d_in=1)
    assert kept.claim.kind == "zcdp" and kept.claim.rho == pytest.approx(0.6) and kept.epsilon is None
    assert not _audit_claim(kept, (0, 1), (1, 1), 200_000).violation
    broken = OpenDPMeasurement(_MeasurementShaped(0.75, 0.3, "ZeroConcentratedDivergence"), d_in=1)
    result = _audit_claim(broken, (0, 1), (1, 1), 200_000)
    assert result.claim.kind == "zcdp" and result.violation
    renyi = OpenDPMeasurement(_RenyiShaped(0.75), d_in=1)
    assert renyi.claim.kind == "renyi" and len(renyi.claim.orders) > 1
    assert not _audit_claim(renyi, (0, 1), (1, 1), 200_000).violation
    with pytest.raises(InvalidClaimError, match="rho"):
        OpenDPMeasurement(_MeasurementShaped(0.75, 0.0, "ZeroConcentratedDivergence"), d_in=1)


def test_opendp_adapter_refuses_measures_it_cannot_audit():
    with pytest.raises(InvalidClaimError, match="SmoothedMaxDivergence"):
        OpenDPMeasurement(_MeasurementShaped(0.75, 1.0, "SmoothedMaxDivergence"), d_in=1)
    with pytest.raises(InvalidClaimError, match="epsilon = 0"):
        OpenDPMeasurement(_MeasurementShaped(0.75, 1.0), d_in=0)
    with pytest.raises(TypeError, match="privacy map"):
        OpenDPMeasurement(lambda x: x, d_in=1)


def test_opendp_measurements():
    pytest.importorskip(
        "opendp", reason="OpenDP (a 47 MB wheel) is in the 'adapters' extra only: pip install -e '.[adapters]'"
    )
    import opendp.prelude as dp

    dp.enable_features("contrib")
    # integer Laplace (OpenDP samples it exactly): claim eps = 1 at d_in = 1, kept
    count = OpenDPMeasurement(
        (dp.atom_domain(T=int), dp.absolute_distance(T=int)) >> dp.m.then_laplace(scale=1.0), d_in=1
    )
    assert count.epsilon == pytest.approx(1.0) and count.delta == 0.0
    assert not _audit(count, 0, 1, 6_000).violation
    # a bounded sum under the symmetric distance: replacing a record is distance 2, not 1.
    # Auditing replacement pairs with the claim for d_in = 1 (a classic misconfiguration) is caught.
    total = (
        (dp.vector_domain(dp.atom_domain(bounds=(-1, 1))), dp.symmetric_distance())
        >> dp.t.then_sum()
        >> dp.m.then_laplace(scale=1.0)
    )
    wrong = OpenDPMeasurement(total, d_in=1)
    flagged = _audit(wrong, (0, 0, -1), (0, 0, 1), 6_000)
    assert flagged.violation and flagged.epsilon_lower_bound > 1.2
    assert not _audit(OpenDPMeasurement(total, d_in=2), (0, 0, -1), (0, 0, 1), 6_000).violation
    # (epsilon, delta) measurements: the claim comes from the map too; zCDP ones are audited as zCDP
    gauss = (dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float)) >> dp.m.then_gaussian(scale=1.0)
    native = OpenDPMeasurement(gauss, d_in=1.0)
    assert native.claim.kind == "zcdp" and native.claim.rho == pytest.approx(0.5)
    # OpenDP's Gaussian samples floats exactly (no rounding leak): rho = 1/2 holds, and d_in = 0.5 (rho 1/8) on a
    # pair 1 apart is a misconfiguration the zCDP audit catches
    assert not _audit_claim(native, 0.0, 1.0, 100_000).violation
    assert _audit_claim(OpenDPMeasurement(gauss, d_in=0.5), 0.0, 1.0, 100_000).violation
    approx = OpenDPMeasurement(dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(gauss), 1e-6), d_in=1.0)
    assert approx.delta == 1e-6 and 0 < approx.epsilon < 10


# --------------------------------------------------------------------------- library speed


class _CountedBuilds:
    """diffprivlib's Geometric built from a RandomState; counts the builds."""

    def __init__(self, sensitivity=1):
        self.sensitivity, self.builds = sensitivity, 0

    def __call__(self, random_state):
        from diffprivlib.mechanisms import Geometric

        self.builds += 1
        return Geometric(epsilon=1.0, sensitivity=self.sensitivity, random_state=random_state)


def test_build_once_adapter_builds_one_mechanism_per_batch():
    """Detects the per-sample rebuild of diffprivlib's documented pattern (GaussianAnalytic:
    600 samples/s rebuilt against 90,000 built once). Verdicts at alpha = 1e-6 as above."""
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    from dpverify.extras.adapters import BuildOnceMechanism

    build = _CountedBuilds()
    ok = BuildOnceMechanism(build, epsilon=1.0)
    first = ok.sample(0, 1_000, np.random.default_rng(2))
    assert build.builds == 1 and first == ok.sample(0, 1_000, np.random.default_rng(2))
    result = _audit(ok, 0, 1, 20_000)
    assert not result.violation and result.replayable
    flagged = _audit(ok, 0, 2, 20_000)  # sensitivity 1 declared for inputs two apart: true loss 2
    assert flagged.violation and flagged.epsilon_lower_bound > 1.5


class _IgnoresItsInputs:
    """A vector "measurement" that releases 0 whatever the data: not the scalar measurement."""

    def __call__(self, data):
        return [0 for _ in data]


def test_opendp_batch_is_checked_against_the_measurement():
    """Detects a batch measurement used unchecked: one that ignores its inputs is refused by name
    (the sampler check: false-alarm rate 1e-8; here the Kolmogorov distance is about 0.75)."""
    m = OpenDPMeasurement(_MeasurementShaped(0.75, math.log(3)), d_in=1, batch=_IgnoresItsInputs())
    with pytest.raises(dpverify.SamplerContractError):
        _audit(m, (0, 1), (1, 1), 20_000)


def test_opendp_batch_draws_many_samples_in_one_call():
    """The batch measurement agrees with the scalar one and keeps its claim (alpha = 1e-6)."""
    pytest.importorskip("opendp", reason="OpenDP is in the 'adapters' extra only: pip install -e '.[adapters]'")
    import opendp.prelude as dp

    dp.enable_features("contrib")
    scalar = (dp.atom_domain(T=int), dp.absolute_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
    vector = (dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
    count = OpenDPMeasurement(scalar, d_in=1, batch=vector)
    assert len(count.sample(0, 500)) == 500
    assert not _audit(count, 0, 1, 20_000).violation
    assert _audit(count, 0, 2, 20_000).violation  # inputs two apart: true loss 2 against the claim of 1


# --------------------------------------------------------------------------- python-dp


def test_pydp_mechanisms_keep_their_claim_and_run_on_a_pool():
    """python-dp's Laplace on integers (discrete outputs): the claim is kept on inputs one apart and
    violated two apart (alpha = 1e-6, as above). Detects an adapter that cannot go to a process
    pool (python-dp objects do not pickle: the adapter rebuilds them from their parameters)."""
    pytest.importorskip("pydp", reason="python-dp is in the 'pydp' extra only: pip install -e '.[pydp]'")
    from pydp.algorithms.numerical_mechanisms import GaussianMechanism, LaplaceMechanism

    from dpverify.extras.adapters import PyDPMechanism

    laplace = PyDPMechanism(LaplaceMechanism(epsilon=1.0, sensitivity=1.0))
    assert (laplace.epsilon, laplace.delta, laplace.replayable) == (1.0, 0.0, False)
    gaussian = PyDPMechanism(GaussianMechanism(epsilon=1.0, delta=1e-5, sensitivity=1.0))
    assert gaussian.delta == 1e-5
    kept = dpverify.audit(laplace, 0, 1, epsilon=1.0, n_samples=20_000, alpha=ALPHA, seed=1, executor=2)
    assert not kept.violation and not kept.replayable
    assert _audit(laplace, 0, 2, 20_000).violation


# --------------------------------------------------------------------------- PipelineDP


def _user(row):
    return row[0]


def _whole_row(row):
    return row


def _partition(row):
    return row[1]


def _nothing(row):
    return 0


def _pipelinedp_count(privacy_id=_user):
    """PipelineDP's Laplace count on one partition, one contribution per user (privacy ids read by ``privacy_id``):
    its parameters and extractors; skips without PipelineDP."""
    pipeline_dp = pytest.importorskip("pipeline_dp", reason="PipelineDP is in the 'pipelinedp' extra only")
    params = pipeline_dp.AggregateParams(
        noise_kind=pipeline_dp.NoiseKind.LAPLACE,
        metrics=[pipeline_dp.Metrics.COUNT],
        max_partitions_contributed=1,
        max_contributions_per_partition=1,
    )
    extractors = pipeline_dp.DataExtractors(
        partition_extractor=_partition, privacy_id_extractor=privacy_id, value_extractor=_nothing
    )
    return params, extractors


def test_pipelinedp_count_keeps_its_budget_and_a_wrong_privacy_id_is_caught():
    """A count on one public partition, one contribution per user: x' adds a user with two rows,
    bounded to one, so the loss is the budget's eps = 1. Detects the classic misconfiguration of a
    privacy id taken per row (each row its own "user"): the count moves by 2, loss 2, flagged.
    Verdicts at alpha = 1e-6 (correct: false alarm <= 1e-6; broken: the bound lands near 1.7)."""
    params, extractors = _pipelinedp_count()
    from dpverify.extras.adapters import PipelineDPAggregation

    x, x_prime = ((1, "a", 0),), ((1, "a", 0), (2, "a", 1), (2, "a", 2))
    ok = PipelineDPAggregation(params, extractors, public_partitions=["a"], epsilon=1.0)
    assert ok(x).shape == (1,) and ok.replayable is False
    assert not _audit(ok, x, x_prime, 20_000).violation
    wrong = PipelineDPAggregation(params, _pipelinedp_count(_whole_row)[1], public_partitions=["a"], epsilon=1.0)
    flagged = _audit(wrong, x, x_prime, 20_000)
    assert flagged.violation and flagged.finding == "value"


class _TransformationShaped:
    """OpenDP's Transformation interface: callable, a stability map, an output metric, no measure."""

    output_metric = "AbsoluteDistance(i32)"

    def map(self, d_in):
        return d_in

    def __call__(self, data):
        return sum(data)


def test_opendp_adapter_names_a_transformation_and_a_refused_distance():
    """Detects a Transformation reported as an "unknown output measure", and OpenDP's own TypeError
    for a d_in of the wrong type escaping unnamed."""
    with pytest.raises(dpverify.InvalidParameterError, match="Transformation"):
        OpenDPMeasurement(_TransformationShaped(), d_in=1)

    class RefusesFloats(_MeasurementShaped):
        def map(self, d_in):
            if not isinstance(d_in, int):
                raise TypeError("inferred type is f64, expected i32")
            return super().map(d_in)

    with pytest.raises(dpverify.InvalidParameterError, match="d_in=1.5"):
        OpenDPMeasurement(RefusesFloats(0.75, 1.0), d_in=1.5)
    dp = pytest.importorskip("opendp.prelude", reason="OpenDP is in the 'adapters' extra only")
    dp.enable_features("contrib")
    total = (dp.vector_domain(dp.atom_domain(bounds=(-1, 1))), dp.symmetric_distance()) >> dp.t.then_sum()
    with pytest.raises(dpverify.InvalidParameterError, match="Transformation"):
        OpenDPMeasurement(total, d_in=1)
    laplace = (dp.atom_domain(T=int), dp.absolute_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
    with pytest.raises(dpverify.InvalidParameterError, match="d_in"):
        OpenDPMeasurement(laplace, d_in=1.5)


# --------------------------------------------------------------------------- the claim in the library's words


def test_diffprivlib_claim_is_read_from_the_mechanism():
    """Detects the epsilon typed twice (once to diffprivlib, once to the audit): the adapter reads the
    built mechanism's epsilon and delta, audits replay, and a sensitivity understated by 2 is flagged
    (true loss 2 against the stated 1; alpha = 1e-6 as above)."""
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    from diffprivlib.mechanisms import GaussianAnalytic, Geometric

    from dpverify.extras.adapters import DiffprivlibMechanism

    mech = DiffprivlibMechanism(Geometric, epsilon=1.0, sensitivity=1)
    assert (mech.epsilon, mech.delta, mech.replayable) == (1.0, 0.0, True)
    assert "Geometric(epsilon=1.0, sensitivity=1)" in mech.claim.source
    assert DiffprivlibMechanism(GaussianAnalytic, epsilon=0.5, delta=1e-5, sensitivity=1.0).delta == 1e-5
    kept = dpverify.audit(mech, 0, 1, n_samples=20_000, alpha=ALPHA, seed=1)
    assert not kept.violation and kept.claimed_epsilon == 1.0
    assert dpverify.audit(mech, 0, 1, n_samples=20_000, alpha=ALPHA, seed=1) == kept
    assert dpverify.audit(mech, 0, 2, n_samples=20_000, alpha=ALPHA, seed=1).violation


def test_pipelinedp_budget_is_read_from_its_accountant():
    """Detects the budget typed twice: with budget_accountant= the claim is its totals; both is refused."""
    params, extractors = _pipelinedp_count()
    import pipeline_dp

    from dpverify.extras.adapters import PipelineDPAggregation

    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=0.7, total_delta=0.0)
    mech = PipelineDPAggregation(params, extractors, public_partitions=["a"], budget_accountant=accountant)
    assert (mech.epsilon, mech.delta) == (0.7, 0.0)
    assert mech(((1, "a", 0),)).shape == (1,)
    with pytest.raises(dpverify.InvalidParameterError, match="once"):
        PipelineDPAggregation(params, extractors, public_partitions=["a"], budget_accountant=accountant, epsilon=0.7)


class PureDPBudget:
    """Tumult's budget interface (class name and ``epsilon``), for the claim reading without Tumult."""

    def __init__(self, epsilon):
        self.epsilon = epsilon


class RhoZCDPBudget:
    def __init__(self, rho):
        self.rho = rho


def test_tumult_budget_is_the_claim():
    """Detects a Tumult budget read wrongly, or a zCDP budget (Tumult's default) read as anything but rho-zCDP
    (no Tumult needed)."""
    from dpverify.extras.adapters import TumultQuery
    from dpverify.extras.adapters.tumult import budget_claim

    assert budget_claim(PureDPBudget(0.5)) == (0.5, 0.0)
    query = TumultQuery("count", budget=PureDPBudget(0.5), columns=["user"])
    assert (query.epsilon, query.delta, query.replayable) == (0.5, 0.0, False)
    zcdp = TumultQuery("count", budget=RhoZCDPBudget(0.1), columns=["user"])
    assert zcdp.claim == dpverify.PrivacyClaim.zcdp(0.1).with_meta(source=zcdp.claim_source)
    with pytest.raises(InvalidClaimError, match="rho"):
        TumultQuery("count", budget=RhoZCDPBudget(float("inf")), columns=["user"])


def test_tumult_outputs_are_released_keys_and_counts():
    """Detects a Tumult group-by read as anything but its released keys, a count read as anything but its
    value, an input of no rows refused although its column types were given, and Spark's workers started
    in another interpreter than Tumult's (every evaluation then raises). Needs Tumult Analytics, which runs
    in an environment of its own (numpy < 2, Spark): each output is one Spark job (seconds), so this
    checks outputs, not privacy; no statistical decision, nothing here fails by chance."""
    pytest.importorskip(
        "tmlt.analytics",
        reason="Tumult Analytics pins numpy < 2 (and needs Spark): it does not install beside this project's "
        "numpy 2; test it from an environment of its own",
    )
    from tmlt.analytics import KeySet, QueryBuilder
    from tmlt.analytics import PureDPBudget as Budget

    from dpverify.extras.adapters import TumultQuery

    count = TumultQuery(QueryBuilder("data").count(), budget=Budget(1.0), columns={"user": "STRING"})
    for rows in ([("a",), ("b",)], []):
        out = count(rows)
        assert out.shape == (1,) and out[0] == round(out[0])
    keys = KeySet.from_dict({"city": ["x", "y"]})
    grouped = TumultQuery(QueryBuilder("data").groupby(keys).count(), budget=Budget(1.0), columns=["user", "city"])
    released = grouped([("a", "x"), ("b", "x"), ("c", "y")])
    assert set(released) == {"x", "y"} and all(v == round(v) for v in released.values())
    with pytest.raises(dpverify.InvalidParameterError, match="types"):
        grouped([])


def test_opendp_samples_by_composition_without_a_batch():
    """Without batch=, sample() draws a composition of the measurement per call (16,000 against 5,800
    samples/s per call, measured), and its outputs keep the claim (alpha = 1e-6)."""
    pytest.importorskip("opendp", reason="OpenDP is in the 'adapters' extra only: pip install -e '.[adapters]'")
    import opendp.prelude as dp

    from dpverify.extras.adapters import opendp as adapter

    dp.enable_features("contrib")
    scalar = (dp.atom_domain(T=int), dp.absolute_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
    mech = OpenDPMeasurement(scalar, d_in=1)
    assert len(mech.sample(0, adapter.COMPOSED + 3)) == adapter.COMPOSED + 3
    assert mech._compositions and all(c is not None for c in mech._compositions.values())
    assert not _audit(mech, 0, 1, 20_000).violation


# --------------------------------------------------------------------------- OpenDP chains at library speed


class _BitShaped:
    """A measurement double on one bit: randomized response, its map ``d_in * per_unit``."""

    output_measure = "MaxDivergence"

    def __init__(self, keep_probability, per_unit):
        self.rr, self.per_unit = _system_randomized_response(keep_probability), per_unit

    def map(self, d_in):
        return d_in * self.per_unit

    def __call__(self, bit):
        return self.rr(bit)


class _CountedSum(_TransformationShaped):
    """A transformation double (sum of bits, stability 1) that counts its calls and chains with ``>>``."""

    def __init__(self):
        self.calls = 0

    def __call__(self, data):
        self.calls += 1
        return sum(data)

    def __rshift__(self, measurement):
        return _ChainShaped(self, measurement)


class _ChainShaped:
    """``transformation >> measurement`` as OpenDP chains them: the map and the call composed."""

    def __init__(self, transformation, measurement):
        self.transformation, self.noise = transformation, measurement
        self.output_measure = measurement.output_measure

    def map(self, d_in):
        return self.noise.map(self.transformation.map(d_in))

    def __call__(self, data):
        return self.noise(self.transformation(data))


def _split_double():
    """A module-level build for OpenDPMeasurement.from_build: the chain given as its two parts."""
    return {"transformation": _CountedSum(), "measurement": _BitShaped(0.75, math.log(3))}


def test_opendp_chain_given_apart_transforms_once_per_batch_and_keeps_the_chain_claim():
    """Detects ``sample`` running the transformation once per output (what ``transformation=`` exists to
    avoid: its calls are counted), a claim read from the noise alone instead of the chain, and split
    outputs not distributed as the chain's (the noise drawn on another input's transformation: the
    audit's sampler check, which compares ``sample`` with the chain's calls first, refuses it, so the
    input (1, 0) differs from its tail): a sum of bits then randomized response keep 3/4 (loss ln 3 on
    sums one apart) keeps its claim ln 3 and is flagged at ln 3 / 2 (alpha = 1e-6 each, as above)."""
    t = _CountedSum()
    mech = OpenDPMeasurement(_BitShaped(0.75, 2.0), d_in=1, transformation=t)
    assert mech.measurement.transformation is t and mech.epsilon == 2.0
    assert len(mech.sample((0, 1, 0), 500)) == 500 and t.calls == 1
    kept = OpenDPMeasurement(_BitShaped(0.75, math.log(3)), d_in=1, transformation=_CountedSum())
    assert not _audit(kept, (1, 0), (0, 0), 20_000).violation
    halved = OpenDPMeasurement(_BitShaped(0.75, math.log(3) / 2), d_in=1, transformation=_CountedSum())
    assert _audit(halved, (1, 0), (0, 0), 20_000).violation


def test_opendp_adapter_from_build_goes_to_a_process_pool():
    """Detects an OpenDP adapter that cannot be drawn on a process pool even when built by a module-level
    function (it is sent as that function and rebuilt), one sent without it (a native handle), and a build
    whose result is not what the class takes."""
    import pickle

    from dpverify.pipeline.sampling import draw

    mech = OpenDPMeasurement.from_build(_split_double, d_in=1)
    again = pickle.loads(pickle.dumps(mech))
    assert again.epsilon == mech.epsilon == pytest.approx(math.log(3)) and again.transformation is not None
    outputs = draw(mech, (0, 1), 400, np.random.SeedSequence(1), executor=2)
    assert len(outputs) == 400 and set(outputs) <= {0, 1}
    with pytest.raises(pickle.PicklingError, match="from_build"):
        pickle.dumps(OpenDPMeasurement(_BitShaped(0.75, 1.0), d_in=1))
    with pytest.raises(dpverify.InvalidParameterError, match="keys"):
        OpenDPMeasurement.from_build(lambda: {"noise": _BitShaped(0.75, 1.0)}, d_in=1)
    with pytest.raises(dpverify.InvalidParameterError, match="not both"):
        OpenDPMeasurement(_BitShaped(0.75, 1.0), d_in=1, transformation=_CountedSum(), batch=_IgnoresItsInputs())
    with pytest.raises(dpverify.InvalidParameterError, match="not a Measurement"):
        OpenDPMeasurement(_BitShaped(0.75, 1.0), d_in=1, transformation=_BitShaped(0.75, 1.0))


def _thresholded_count_parts():
    """OpenDP's thresholded count of string records, as its two parts (a module-level build)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    counts = (dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()) >> dp.t.then_count_by()
    noise = dp.m.make_laplace_threshold(counts.output_domain, counts.output_metric, scale=0.5, threshold=10)
    return {"transformation": counts, "measurement": noise}


def _released(counts: dict):
    """A released-key dict as one hashable output (the released-key output type is not this test's subject)."""
    return tuple(sorted(counts.items()))


def test_opendp_thresholded_count_split_keeps_its_claim_on_a_pool_and_flags_a_wrong_distance():
    """OpenDP's ``then_count_by >> then_laplace_threshold`` (scale 1/2: epsilon 2 per unit of d_in, delta
    from the threshold), given apart and built by a module-level function. Replacing one record moves
    two counts: symmetric distance 2, true loss 4. Audited at d_in = 2 on a process pool of two it keeps
    its claim; at d_in = 1 (claim 2) it is flagged (alpha = 1e-6 each; counts 30 and 29-31 sit far above
    the threshold 10, so both keys are released in all but ~1e-8 of outputs and the loss is the two
    counts' 4). Detects split outputs that are not the chain's, a pool route that breaks OpenDP, and an
    OpenDP Context query's resolved measurement read with another claim than its map."""
    pytest.importorskip("opendp", reason="OpenDP is in the 'adapters' extra only: pip install -e '.[adapters]'")
    x, x_prime = ["a"] * 30 + ["b"] * 30, ["a"] * 31 + ["b"] * 29
    replace = OpenDPMeasurement.from_build(_thresholded_count_parts, d_in=2)
    whole = _thresholded_count_parts()
    assert (replace.epsilon, replace.delta) == (whole["transformation"] >> whole["measurement"]).map(2)
    assert not _audit(replace, x, x_prime, 6_000, output_key=_released, executor=2).violation
    wrong = OpenDPMeasurement.from_build(_thresholded_count_parts, d_in=1)
    flagged = _audit(wrong, x, x_prime, 6_000, output_key=_released)
    assert flagged.violation and flagged.epsilon_lower_bound > 2.5
    import opendp.prelude as dp  # OpenDP's Context API: a query resolves to the measurement the adapter takes

    context = dp.Context.compositor(
        data=x,
        privacy_unit=dp.unit_of(contributions=1),
        privacy_loss=dp.loss_of(epsilon=1.0, delta=1e-6),
        split_evenly_over=1,
    )
    resolved = context.query().count_by().laplace_threshold(threshold=60).resolve()
    from_context = OpenDPMeasurement(resolved, d_in=1)
    assert (from_context.epsilon, from_context.delta) == resolved.map(1)


# --------------------------------------------------------------------------- diffprivlib tools, worker counts


def _histogram_counts(returned):
    """diffprivlib's histogram release without its bin edges (fixed here by ``range``)."""
    return tuple(int(v) for v in returned[0])


def test_diffprivlib_histogram_tool_keeps_its_claim_and_a_replaced_record_is_flagged():
    """diffprivlib's ``tools.histogram`` is epsilon-DP under adding or removing a record (counts move by
    1); replacing one moves two counts (true loss 2 eps). At eps = 1 with two bins: a record added keeps
    the claim, a record replaced is flagged (alpha = 1e-6 each; the outputs are integer counts). Detects a
    claim not read from the tool's epsilon (e.g. its default where one was given), a random_state not
    passed (the audit would not replay), and outputs not the tool's."""
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    from diffprivlib import tools

    from dpverify.extras.adapters import DiffprivlibTool

    hist = DiffprivlibTool(tools.histogram, output=_histogram_counts, epsilon=1.0, bins=2, range=(0.0, 1.0))
    assert (hist.epsilon, hist.delta) == (1.0, 0.0) and DiffprivlibTool(tools.count_nonzero).epsilon == 1.0
    assert [DiffprivlibTool(tools.mean, epsilon=e, bounds=(0, 1)).epsilon for e in (0.25, 3.0)] == [0.25, 3.0]
    x = [0.2, 0.2, 0.2, 0.7, 0.7, 0.7]
    added, replaced = x + [0.2], [0.2, 0.2, 0.7, 0.7, 0.7, 0.7]
    kept = _audit(hist, x, added, 8_000)
    assert not kept.violation and kept.replayable
    flagged = _audit(hist, x, replaced, 8_000)
    assert flagged.violation and flagged.epsilon_lower_bound > 1.2


def _undercharging_mean(array, epsilon=1.0, bounds=None, random_state=None, accountant=None):
    """A tool that spends its epsilon on the noise but charges its accountant half of it."""
    accountant.spend(epsilon / 2, 0.0)
    return float(np.mean(array)) + random_state.laplace(0.0, 1.0 / (epsilon * len(array)))


def test_diffprivlib_tool_checks_the_budget_charged_and_its_parameters():
    """Detects a tool that charges its accountant less than the epsilon it spends (the budget charged is
    the claim's half) passing unnoticed, and a parameter diffprivlib would ignore (``bound`` for ``bounds``)."""
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    from diffprivlib import tools

    from dpverify.extras.adapters import DiffprivlibTool

    with pytest.raises(InvalidClaimError, match="charged"):
        DiffprivlibTool(_undercharging_mean, bounds=(0, 1)).sample([0.5], 3, np.random.default_rng(0))
    with pytest.raises(dpverify.InvalidParameterError, match="bound"):
        DiffprivlibTool(tools.mean, bound=(0, 1))
    with pytest.raises(dpverify.InvalidParameterError, match="random_state"):
        DiffprivlibTool(tools.mean, bounds=(0, 1), random_state=1)


def test_diffprivlib_adapters_draw_the_same_outputs_on_any_number_of_workers():
    """Detects seeded outputs that depend on the executor (one process, a pool of two, three threads):
    each chunk is seeded from its own spawned SeedSequence, whoever draws it, and the adapters seed the
    library's RandomState from that chunk's Generator only."""
    pytest.importorskip("diffprivlib", reason="diffprivlib is in the 'test' and 'adapters' extras")
    import concurrent.futures

    from diffprivlib import tools
    from diffprivlib.mechanisms import Geometric

    from dpverify.extras.adapters import DiffprivlibMechanism, DiffprivlibTool
    from dpverify.pipeline.sampling import draw

    for mech, data in (
        (DiffprivlibMechanism(Geometric, epsilon=1.0, sensitivity=1), 3),
        (DiffprivlibTool(tools.mean, epsilon=1.0, bounds=(0.0, 1.0)), [0.1, 0.5, 0.9]),
    ):
        one = draw(mech, data, 320, np.random.SeedSequence(7))
        with concurrent.futures.ThreadPoolExecutor(3) as threads:
            for executor in (2, threads):
                assert np.array_equal(draw(mech, data, 320, np.random.SeedSequence(7), executor=executor), one)
        assert not np.array_equal(draw(mech, data, 320, np.random.SeedSequence(8)), one)
