"""The shared argument checks (dpverify._validation): what each accepts, and the named error it raises."""

import math
import re

import numpy as np
import pytest

from dpverify import InvalidClaimError, InvalidParameterError
from dpverify import _validation as check


@pytest.mark.parametrize("value", [1e-9, 0.5, 1, np.float64(2.0), np.int64(3)])
def test_epsilon_accepts_finite_positive_reals(value):
    assert check.check_epsilon(value) == float(value)
    assert isinstance(check.check_epsilon(value), float)


@pytest.mark.parametrize("value", [0, -1.0, math.inf, math.nan, True, "1", None])
def test_epsilon_refuses_the_rest_as_a_claim_error(value):
    with pytest.raises(InvalidClaimError, match=r"epsilon must be a finite real number > 0, got"):
        check.check_epsilon(value)


def test_epsilon_none_only_where_allowed():
    assert check.check_epsilon(None, allow_none=True) is None
    with pytest.raises(InvalidClaimError, match="or None"):
        check.check_epsilon(0.0, allow_none=True)


@pytest.mark.parametrize("value", [0, 0.0, 1e-6, np.float32(0.5)])
def test_delta_accepts_the_half_open_unit_interval(value):
    assert check.check_delta(value) == float(value)


@pytest.mark.parametrize("value", [1.0, -1e-9, math.nan, False, "0"])
def test_delta_refuses_the_rest(value):
    with pytest.raises(InvalidClaimError, match=r"delta must be a real number in \[0, 1\)"):
        check.check_delta(value)
    with pytest.raises(InvalidParameterError, match=r"delta must be a real number in \[0, 1\)") as info:
        check.check_delta(value, claim=False)
    assert not isinstance(info.value, InvalidClaimError)


@pytest.mark.parametrize("value", [0.0, 1.0, math.nan, True, None])
def test_alpha_and_fractions_are_open_unit_interval(value):
    with pytest.raises(InvalidParameterError, match=r"alpha must be a real number in \(0, 1\)"):
        check.check_alpha(value)
    with pytest.raises(InvalidParameterError, match=r"final_share must be a real number in \(0, 1\)"):
        check.check_fraction(value, "final_share")
    assert check.check_alpha(0.05) == 0.05


def test_positive_int_refuses_floats_bools_and_small_values():
    assert check.check_positive_int(np.int64(7), "n_samples") == 7
    assert check.check_positive_int(0, "seed", minimum=0) == 0
    for bad in (1e5, True, 0, "3", None):
        with pytest.raises(InvalidParameterError, match=r"n_samples must be an integer >= 1, got"):
            check.check_positive_int(bad, "n_samples")
    with pytest.raises(InvalidParameterError, match=">= 2"):
        check.check_positive_int(1, "n_samples", minimum=2)


def test_positive_real_has_a_strict_lower_bound():
    assert check.check_positive_real(2, "sensitivity") == 2.0
    assert check.check_positive_real(1.5, "growth", lower=1.0) == 1.5
    for bad in (0, -1, math.inf, math.nan, True, "2"):
        with pytest.raises(InvalidParameterError, match="sensitivity must be a finite real number > 0"):
            check.check_positive_real(bad, "sensitivity")
    with pytest.raises(InvalidParameterError, match="growth must be a finite real number > 1"):
        check.check_positive_real(1.0, "growth", lower=1.0)


def test_public_functions_share_the_checks():
    """The same bad argument gets the same error and message from every public function."""
    import dpverify
    from dpverify.audits.oracle import oracle_epsilon_bound
    from dpverify.extras.adapters import UnseededMechanism
    from dpverify.mechanisms.textbook import LaplaceMechanism

    with pytest.raises(InvalidClaimError, match="epsilon must be a finite real number > 0"):
        dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=-1.0)
    with pytest.raises(InvalidClaimError, match="epsilon must be a finite real number > 0 or None"):
        UnseededMechanism(lambda x: x, epsilon=-1.0)
    with pytest.raises(InvalidClaimError, match="epsilon must be a finite real number > 0"):
        LaplaceMechanism(math.inf)
    with pytest.raises(InvalidParameterError, match="sensitivity must be a finite real number > 0"):
        LaplaceMechanism(1.0, sensitivity=0)
    with pytest.raises(InvalidParameterError, match=r"alpha must be a real number in \(0, 1\)"):
        oracle_epsilon_bound({0: 1.0}, {1: 1.0}, 10, alpha=1.5)
    with pytest.raises(InvalidParameterError, match=r"alpha must be a real number in \(0, 1\)"):
        dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, alpha=0)
    with pytest.raises(InvalidParameterError, match="n_certification must be an integer >= 1"):
        oracle_epsilon_bound({0: 1.0}, {1: 1.0}, 0)


# The checks the drivers once made inline (the delta curve's grid and split, a search's budgets, audit_pairs'
# pairs and method, given samples' options and claim), now here. Each test detects a check that lets its bad
# value through, or that a driver no longer calls (the driver line of each test).


def test_grid_is_one_to_a_thousand_finite_non_negative_values_sorted_and_unique():
    """Detects besides: an epsilon above 709.78, whose e^eps overflows (a raw OverflowError in the curve's
    selection), or a value that is not a number (a raw ValueError), let through."""
    assert check.check_grid([1.0, 0.0, 1.0], "epsilons").tolist() == [0.0, 1.0]
    assert check.check_grid([check.MAX_EPSILON], "epsilons").tolist() == [check.MAX_EPSILON]
    for bad in ([], [-0.1], [math.inf], [math.nan], np.zeros(1001), [710.0], ["a"], [[1.0], 2.0]):
        with pytest.raises(InvalidParameterError, match=r"epsilons must be 1 to 1000 real values in \[0, 709.78\]"):
            check.check_grid(bad, "epsilons")
    import dpverify
    from dpverify.mechanisms import GeometricMechanism

    for bad in ([-1.0], [800.0]):
        with pytest.raises(InvalidParameterError, match="epsilons must be 1 to 1000"):
            dpverify.delta_lower_bound_curve(GeometricMechanism(1.0), 0, 1, epsilons=bad, n_samples=4_000, seed=1)


def test_count_takes_integers_from_its_minimum_and_refuses_bools_and_floats():
    assert check.check_count(np.int64(3), "n_screening") == 3 and check.check_count(0, "n_refining", minimum=0) == 0
    for bad in (0, -1, 2.0, True, "5", None):
        with pytest.raises(InvalidParameterError, match=r"n_screening must be an integer >= 1, got"):
            check.check_count(bad, "n_screening")
    import dpverify
    from dpverify.mechanisms import GeometricMechanism

    with pytest.raises(InvalidParameterError, match=r"n_refining must be an integer >= 0, got -1"):
        dpverify.search_audit(GeometricMechanism(1.0), [(0, 1)], epsilon=1.0, n_refining=-1, seed=1)


def test_below_is_strict():
    assert check.check_below(9, "n_selection", 10, "n_samples") == 9
    with pytest.raises(InvalidParameterError, match="n_selection must be smaller than n_samples=10, got 10"):
        check.check_below(10, "n_selection", 10, "n_samples")


def test_family_wise_methods_only():
    for method in check.FAMILY_WISE_METHODS:
        assert check.check_family_wise(method) == method
    for bad in ("fdr_bh", "fdr_by", "", None):
        with pytest.raises(InvalidParameterError, match="must control the family-wise error rate"):
            check.check_family_wise(bad)


def test_pairs_are_a_non_empty_list_of_two_tuples():
    assert check.check_pairs(iter([(0, 1), [2, 3]])) == [(0, 1), [2, 3]]
    with pytest.raises(InvalidParameterError, match="at least one"):
        check.check_pairs([])
    with pytest.raises(InvalidParameterError, match=r"pairs\[1\] must be an \(x, x_prime\) pair"):
        check.check_pairs([(0, 1), (0, 1, 2)])


def test_a_driver_that_draws_nothing_refuses_sampling_options_and_needs_a_claim():
    from dpverify import AuditOptions

    check.check_draws_nothing(AuditOptions(), "audit_samples")
    for options in (AuditOptions(executor=2), AuditOptions(n_chunks=4)):
        with pytest.raises(InvalidParameterError, match="audit_samples draws no samples"):
            check.check_draws_nothing(options, "audit_samples")
    check.check_claim_given(1.0, None)
    with pytest.raises(InvalidClaimError, match="audit_samples needs the claim"):
        check.check_claim_given(None, None)


def test_below_says_why_where_asked():
    """Detects: check_sizes' own message (the rest certify) lost in the move to the shared check."""
    with pytest.raises(
        InvalidParameterError, match=r"n_selection must be smaller than n_samples=5 \(the rest certify\)"
    ):
        check.check_below(5, "n_selection", 5, "n_samples", " (the rest certify)")
    import dpverify
    from dpverify.mechanisms import GeometricMechanism

    with pytest.raises(InvalidParameterError, match=r"\(the rest certify\), got 1000"):
        dpverify.audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=1000, n_selection=1000, seed=1)


def test_the_options_checks_refuse_a_lone_string_a_non_bool_and_a_non_callable():
    """Detects: ``event_families="threshold"`` read letter by letter, ``float_events=1`` or ``progress="no"``
    taken as True, or an ``output_key`` that fails only when the first output is keyed; each through
    ``AuditOptions`` too."""
    from dpverify import AuditOptions

    assert check.check_names(["threshold"], "event_families") == ("threshold",)
    assert check.check_bool(False, "float_events") is False
    assert check.check_optional_callable(None, "output_key") is None
    for bad in (1, 0, np.bool_(True), None):
        with pytest.raises(InvalidParameterError, match="float_events must be True or False"):
            AuditOptions(float_events=bad)
    for bad in ("yes", "no", 1):  # "no" would have shown progress: any non-empty string is truthy
        with pytest.raises(InvalidParameterError, match="progress must be True or False"):
            AuditOptions(progress=bad)
    with pytest.raises(InvalidParameterError, match="got the string 'threshold'"):
        AuditOptions(event_families="threshold")
    with pytest.raises(InvalidParameterError, match="output_key must be callable or None, got 3"):
        AuditOptions(output_key=3)


def test_no_family_at_all_is_refused_and_no_applicable_family_is_said_as_such():
    """Detects: ``event_families=[]`` audited with no candidate event and reported as "no event separates the
    inputs' selection samples (...) draw more samples", and families named that all fail to apply on the
    outputs reported the same way (more samples would not help: another family would). Deterministic."""
    import dpverify
    from dpverify import AuditOptions
    from dpverify.mechanisms import RandomizedResponse

    for empty in ([], ()):
        with pytest.raises(InvalidParameterError, match="event_families names none"):
            AuditOptions(event_families=empty)
        with pytest.raises(InvalidParameterError, match="event_families names none"):
            dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=2_000, seed=1, event_families=empty)
    for asked in (dict(event_families=["threshold"]), dict(event_families=["mantissa"], float_events=False)):
        result = dpverify.audit(RandomizedResponse(1.0), 0, 1, epsilon=1.0, n_samples=2_000, seed=1, **asked)
        assert any("none of the event families asked for runs on these outputs" in n for n in result.notes)
        assert not any("draw more samples" in n for n in result.notes)


def test_workers_are_whole_numbers_from_one():
    """Detects: a worker count of 0, a bool or a float let through to the pool."""
    assert check.check_workers(np.int64(2), 4) == 2
    for bad in (True, 1.5, "2"):
        with pytest.raises(InvalidParameterError, match="workers must be a whole number >= 1"):
            check.check_workers(bad, 4)
    with pytest.raises(InvalidParameterError, match=r"workers must be >= 1 \(this machine lets the process use 4\)"):
        check.check_workers(0, 4)


def test_seed_checks_moved_from_the_sampling_pipeline():
    """Detects the negative-seed check removed (numpy would raise its own ValueError) or a seed turned into
    another sequence than numpy's own (replays would differ)."""
    assert check.check_seed(7).entropy == np.random.SeedSequence(7).entropy
    assert check.check_seed([1, 2]).entropy == np.random.SeedSequence([1, 2]).entropy
    with pytest.raises(InvalidParameterError, match=r"^seed must be a non-negative integer, got -1$"):
        check.check_seed(-1)
    with pytest.raises(InvalidParameterError, match=r"seed must be None, a non-negative int, or a SeedSequence"):
        check.check_seed(1.5)
    with pytest.raises(InvalidParameterError, match=r"^executor as a worker count must be >= 1, got 0$"):
        check.check_worker_count(0)
    assert check.check_worker_count(np.int64(3)) == 3


def test_adapter_checks_name_what_is_missing():
    """Detects check_callable showing a repr where the adapters name the type, or check_has_method accepting
    an attribute that is not callable."""
    from dpverify.errors import InvalidArgumentTypeError

    with pytest.raises(InvalidArgumentTypeError, match=r"^f must be callable, got int$"):
        check.check_callable(5, "f", InvalidArgumentTypeError, show_type=True)
    with pytest.raises(InvalidParameterError, match=r"^f must be callable, got 5$"):
        check.check_callable(5, "f")

    class NotCallable:
        map = 3

    with pytest.raises(InvalidArgumentTypeError, match="needs map"):
        check.check_has_method(NotCallable(), "map", "needs map")
    assert check.check_not_empty((1,), "p", "partition") == [1]


def test_choice_checks_moved_from_the_mechanisms_and_the_claim_keep_their_messages():
    """Detects a mechanism or a claim that accepts a value outside its choices again (the inline check
    removed), or the claim's model raising InvalidParameterError rather than InvalidClaimError."""
    from dpverify import PrivacyClaim
    from dpverify.mechanisms.counter import NOISES_ON, GeometricPrefixSums
    from dpverify.mechanisms.noisy_max import NOISES, ReportNoisyMax
    from dpverify.mechanisms.sparse_vector import OUTPUTS, SparseVector

    with pytest.raises(InvalidParameterError, match=rf"^noise must be one of {re.escape(str(NOISES))}, got 'cauchy'$"):
        ReportNoisyMax(1.0, noise="cauchy")
    with pytest.raises(InvalidParameterError, match=rf"^output must be one of {re.escape(str(OUTPUTS))}, got 'x'$"):
        SparseVector(1.0, output="x")
    with pytest.raises(InvalidParameterError, match=rf"^noise_on must be one of {re.escape(str(NOISES_ON))}"):
        GeometricPrefixSums(1.0, noise_on="x")
    with pytest.raises(InvalidClaimError, match=r"^model must be one of \('central', 'local'\), got 'shuffle'$"):
        PrivacyClaim(1.0, 0.0, model="shuffle")


def test_registry_checks_moved_from_the_event_families():
    """Detects an event family accepting a memory that is not a FamilyMemory, a record registered beside its
    fields, or unknown family names let through (the inline checks removed)."""
    from dpverify.events import registry

    record = registry.event_family("threshold")
    with pytest.raises(InvalidParameterError, match=r"memory must be a FamilyMemory$"):
        registry.EventFamily("mine", "real", lambda *a: None, memory=3)
    with pytest.raises(InvalidParameterError, match=r"^pass either an EventFamily record or its fields, not both$"):
        registry.register_event_family(record, kind="real")
    with pytest.raises(InvalidParameterError, match=r"^unknown event families \['nope'\]; registered: \["):
        check.check_known(["threshold", "nope"], {"threshold": record}, "event families")


def test_claim_kind_checks_moved_from_the_renyi_and_tradeoff_kinds():
    """Detects repeated Rényi orders, orders <= 1, trade-off points outside the unit square or a growing
    trade-off function accepted as a claim (a check removed from the kinds' domain)."""
    from dpverify import PrivacyClaim

    with pytest.raises(InvalidClaimError, match=r"^Rényi orders must be distinct, got \[2.0, 2.0\]$"):
        PrivacyClaim.renyi([2, 2], [0.5, 0.6])
    with pytest.raises(InvalidClaimError, match=r"^Rényi orders must be finite and > 1, got \[1.0\]$"):
        PrivacyClaim.renyi(1, 0.5)
    with pytest.raises(InvalidClaimError, match=r"^trade-off points must lie in \[0, 1\] x \[0, 1\]$"):
        PrivacyClaim.tradeoff([(0.0, 1.5)])
    with pytest.raises(InvalidClaimError, match="the type II errors must not grow"):
        PrivacyClaim.tradeoff([(0.0, 0.5), (0.5, 0.9)])
    with pytest.raises(InvalidClaimError, match="grows somewhere on"):
        PrivacyClaim.tradeoff(lambda a: a)
    assert check.check_tradeoff_points([(0.5, 0.1), (0.0, 1.0)]) == ((0.0, 1.0), (0.5, 0.1))


def test_query_limits_moved_from_the_sparse_vector():
    """Detects the exact sparse-vector pmf enumerating more queries than its limit (the check removed)."""
    from dpverify.mechanisms.sparse_vector import MAX_PMF_QUERIES, sparse_vector_pmf

    with pytest.raises(InvalidParameterError, match=rf"^at most {MAX_PMF_QUERIES} queries, got {MAX_PMF_QUERIES + 1}$"):
        sparse_vector_pmf(np.zeros(MAX_PMF_QUERIES + 1), 1.0, 1.0, 1.0)
    assert check.check_at_most(3, 3, "queries") == 3


def test_claim_resolution_checks_moved_into_validation():
    """Detects a claim accepted beside epsilon=, a claim that is not a PrivacyClaim, or a zCDP claim with
    rho = 0 handed to an audit (each check removed from the claim's resolution)."""
    from dpverify import PrivacyClaim
    from dpverify.claims import resolve_claim
    from dpverify.mechanisms.textbook import LaplaceMechanism

    mechanism = LaplaceMechanism(1.0)
    with pytest.raises(
        InvalidClaimError, match=r"^pass the claim either as claim= or as epsilon= and delta=, not both"
    ):
        resolve_claim(mechanism, 1.0, None, PrivacyClaim(1.0, 0.0))
    with pytest.raises(InvalidClaimError, match=r"^claim must be a dpverify.PrivacyClaim \(PrivacyClaim\(eps, delta\)"):
        resolve_claim(mechanism, None, None, 1.0)
    with pytest.raises(InvalidClaimError, match=r"^an audit needs rho > 0, got rho=0.0$"):
        resolve_claim(mechanism, None, None, PrivacyClaim.zcdp(0.0))


def test_pipelinedp_budget_checks_moved_into_validation():
    """Detects a PipelineDP aggregation taking a budget_accountant beside epsilon= (the budget given twice),
    or built with no budget at all (either check removed), or the two errors' types swapped."""
    from dpverify.extras.adapters.pipelinedp import PipelineDPAggregation

    class Accountant:
        total_epsilon, total_delta = 1.0, 0.0

    with pytest.raises(
        InvalidParameterError,
        match=r"^give the budget once: a budget_accountant \(its totals are the claim\) or epsilon= and delta=, "
        r"not both$",
    ):
        PipelineDPAggregation(None, None, public_partitions=[0], epsilon=1.0, budget_accountant=Accountant())
    with pytest.raises(
        InvalidClaimError,
        match=r"^PipelineDPAggregation needs the budget: budget_accountant=pipeline_dp.NaiveBudgetAccountant\("
        r"total_epsilon=\.\.\., total_delta=\.\.\.\) or epsilon= \(and delta=\)$",
    ):
        PipelineDPAggregation(None, None, public_partitions=[0], delta=1e-6)
    assert PipelineDPAggregation(None, None, public_partitions=[0], budget_accountant=Accountant()).epsilon == 1.0
    with pytest.raises(InvalidClaimError, match=r"^msg$"):
        check.check_given(None, "msg")
    check.check_not_both(True, False, "msg")


class _Mapped:
    """An OpenDP-shaped measurement whose privacy map returns ``mapped`` (or raises it)."""

    def __init__(self, mapped, output_measure="MaxDivergence"):
        self.mapped, self.output_measure = mapped, output_measure

    def map(self, d_in):
        if isinstance(self.mapped, Exception):
            raise self.mapped
        return self.mapped

    def __call__(self, data):
        return 0


class _Transformation:
    output_metric = "SymmetricDistance()"

    def map(self, d_in):
        return d_in

    def __call__(self, data):
        return data


def test_opendp_checks_moved_into_validation():
    """Detects the OpenDP adapter accepting a Transformation, a map that fails or is epsilon = 0, an unsupported
    output measure, a rho <= 0 or a Rényi curve it cannot evaluate (each check removed), or a message or error
    type changed in the move."""
    from dpverify.errors import InvalidArgumentTypeError
    from dpverify.extras.adapters import OpenDPMeasurement

    with pytest.raises(
        InvalidParameterError,
        match=r"^this is an OpenDP Transformation \(output metric SymmetricDistance\(\)\), not a Measurement: it "
        r"adds no noise and has no privacy claim; chain a mechanism onto it first, e\.g\. transformation >> "
        r"dp\.m\.then_laplace\(scale=\.\.\.\)$",
    ):
        OpenDPMeasurement(_Transformation(), d_in=1)
    with pytest.raises(
        InvalidParameterError,
        match=r"^measurement\.map\(d_in='1'\) failed \(TypeError: wrong\); d_in must be a distance in the "
        r"measurement's input metric \(an int for integer and symmetric distances, a float for real ones\)$",
    ) as info:
        OpenDPMeasurement(_Mapped(TypeError("wrong")), d_in="1")
    assert isinstance(info.value.__cause__, TypeError) and not isinstance(info.value, InvalidArgumentTypeError)
    with pytest.raises(
        InvalidClaimError,
        match=r"^the measurement's output measure is 'SmoothedMaxDivergence'; supported: 'MaxDivergence' \(pure "
        r"epsilon\), 'Approximate\(MaxDivergence\)' \(\(epsilon, delta\)\), 'ZeroConcentratedDivergence' "
        r"\(rho-zCDP\) and 'RenyiDivergence' \(a Renyi curve\)\. Convert first, e\.g\. "
        r"dp\.c\.make_fix_delta\(dp\.c\.make_zCDP_to_approxDP\(m\), delta\)$",
    ):
        OpenDPMeasurement(_Mapped(1.0, "SmoothedMaxDivergence"), d_in=1)
    with pytest.raises(
        InvalidClaimError,
        match=r"^measurement\.map\(2\) is epsilon = 0: an audit needs a claim > 0 \(is d_in = 2 right\?\)$",
    ):
        OpenDPMeasurement(_Mapped(0), d_in=2)
    for rho in (0.0, math.nan, math.inf, "x"):
        with pytest.raises(
            InvalidClaimError,
            match=rf"^measurement\.map\(1\) is rho = {re.escape(repr(rho))}: an audit needs a finite rho > 0 "
            r"\(is d_in right\?\)$",
        ):
            OpenDPMeasurement(_Mapped(rho, "ZeroConcentratedDivergence"), d_in=1)
    assert OpenDPMeasurement(_Mapped(0.5, "ZeroConcentratedDivergence"), d_in=1).native_claim.rho == 0.5
    with pytest.raises(
        InvalidClaimError,
        match=r"^measurement\.map\(1\) is a Renyi curve that could not be evaluated at the orders .* "
        r"\(TypeError: 'str' object is not callable\)$",
    ) as info:
        OpenDPMeasurement(_Mapped("curve", "RenyiDivergence"), d_in=1)
    assert isinstance(info.value.__cause__, TypeError)
    assert OpenDPMeasurement(_Mapped(0.5), d_in=1).epsilon == 0.5


def test_tumult_budget_checks_moved_into_validation():
    """Detects a Tumult budget of another kind read as (epsilon, delta), a budget that is not numbers, or a
    rho that is not finite > 0 accepted (each check removed), or a message or error type changed in the move."""
    from dpverify.extras.adapters.tumult import budget_claim, zcdp_budget_claim

    def budget(kind, **fields):
        made = type(kind, (), {"__repr__": lambda self: kind})()
        made.__dict__.update(fields)
        return made

    with pytest.raises(
        InvalidClaimError,
        match=r"^a Tumult RhoZCDPBudget is not an \(epsilon, delta\) budget; supported: PureDPBudget and "
        r"ApproxDPBudget$",
    ):
        budget_claim(budget("RhoZCDPBudget", rho=1.0))
    with pytest.raises(
        InvalidClaimError, match=r"^the Tumult budget ApproxDPBudget is not a finite \(epsilon, delta\)$"
    ) as info:
        budget_claim(budget("ApproxDPBudget", epsilon=1.0, delta="x"))
    assert isinstance(info.value.__cause__, ValueError)
    assert budget_claim(budget("PureDPBudget", epsilon=2)) == (2.0, 0.0)
    assert budget_claim(budget("ApproxDPBudget", epsilon=1, delta=1e-6)) == (1.0, 1e-6)
    with pytest.raises(InvalidClaimError, match=r"^the Tumult budget RhoZCDPBudget is not a finite rho$"):
        zcdp_budget_claim(budget("RhoZCDPBudget"))
    for rho in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(
            InvalidClaimError, match=r"^the Tumult budget RhoZCDPBudget needs a finite rho > 0 to be audited$"
        ):
            zcdp_budget_claim(budget("RhoZCDPBudget", rho=rho))
    assert zcdp_budget_claim(budget("RhoZCDPBudget", rho=0.5)).rho == 0.5
    assert zcdp_budget_claim(budget("PureDPBudget", epsilon=1.0)) is None


def test_claim_kind_registry_checks_moved_into_validation():
    """Detects a claim kind reading something other than events or cells, one missing its bound, a non-kind
    registered, a name registered twice, a built-in removed, an unknown name removed or looked up without
    the error (each check removed), or a message or error type changed in the move."""
    from dpverify.claims import ClaimKind, claim_kind, claim_kinds, register_claim_kind, unregister_claim_kind

    fields = {**claim_kind("gdp").__dict__, "name": "test-validation-kind"}  # a built-in kind under another name
    with pytest.raises(InvalidClaimError, match=r"^a claim kind reads one of \('events', 'cells'\), got 'rows'$"):
        ClaimKind(**{**fields, "reads": "rows"})
    with pytest.raises(
        InvalidClaimError,
        match=r"^claim kind 'test-validation-kind' reads cells and must define \['orders', 'cells_bound'\]$",
    ):
        ClaimKind(**{**fields, "reads": "cells"})
    with pytest.raises(InvalidClaimError, match=r"^register_claim_kind takes a dpverify.claims.ClaimKind, got 3$"):
        register_claim_kind(3)
    kind = register_claim_kind(ClaimKind(**fields))
    try:
        assert register_claim_kind(kind) is kind and claim_kind(kind.name) is kind
        with pytest.raises(
            InvalidClaimError, match=r"^a claim kind named 'test-validation-kind' is already registered$"
        ):
            register_claim_kind(ClaimKind(**fields))
    finally:
        unregister_claim_kind(kind.name)
    with pytest.raises(InvalidClaimError, match=r"^'zcdp' is a built-in claim kind and cannot be removed$"):
        unregister_claim_kind("zcdp")
    registered = re.escape(str(list(claim_kinds())))
    with pytest.raises(InvalidClaimError, match=rf"^no claim kind 'nope' is registered; registered: {registered}$"):
        unregister_claim_kind("nope")
    with pytest.raises(InvalidClaimError, match=rf"^unknown claim kind 'nope'; registered kinds: {registered}$"):
        claim_kind("nope")


def test_claim_form_checks_moved_into_validation():
    """Detects a claim that states fields of another kind, a delta beside a non-(epsilon, delta) kind, no
    epsilon, no Rényi orders, no or a raising trade-off function, a mechanism's claim attribute that is not
    a PrivacyClaim or no claim at all accepted (each check removed), or a message or error type changed."""
    from dpverify import PrivacyClaim
    from dpverify.claims import resolve_claim
    from dpverify.claims.claim import claim_of

    with pytest.raises(InvalidClaimError, match=r"^a .* claim states \['rho'\]; it cannot also state \['mu'\]$"):
        PrivacyClaim(kind="zcdp", rho=0.5, mu=1.0)
    with pytest.raises(InvalidClaimError, match=r"^a .* claim has no delta \(got delta=0\.1\)$"):
        PrivacyClaim(kind="zcdp", rho=0.5, delta=0.1)
    with pytest.raises(
        InvalidClaimError,
        match=r"^an \(epsilon, delta\) claim needs epsilon: PrivacyClaim\(epsilon, delta\); for another kind use "
        r"PrivacyClaim\.zcdp\(rho\), \.renyi\(alpha, epsilon\), \.gdp\(mu\) or \.tradeoff\(f\)$",
    ):
        PrivacyClaim(None, 0.0)
    with pytest.raises(
        InvalidClaimError, match=r"^a Rényi claim needs its orders and epsilons: PrivacyClaim\.renyi\(alpha, epsilon\)$"
    ):
        PrivacyClaim(kind="renyi", orders=(2.0,))
    with pytest.raises(InvalidClaimError, match=r"^a trade-off claim needs its function: PrivacyClaim\.tradeoff\(f\)$"):
        PrivacyClaim(kind="tradeoff")

    def raising(alpha):
        raise ZeroDivisionError("no")

    with pytest.raises(
        InvalidClaimError,
        match=r"^the trade-off function raised on type I errors in \[0, 1\]: ZeroDivisionError\('no'\)$",
    ) as info:
        PrivacyClaim.tradeoff(raising)
    assert isinstance(info.value.__cause__, ZeroDivisionError)

    class Stating:
        claim = 3

    class Silent:
        def __call__(self, x, rng=None):
            return 0

    with pytest.raises(
        InvalidClaimError, match=r"^Stating\.claim must be a dpverify\.claims\.PrivacyClaim \(or None\), got 3$"
    ):
        claim_of(Stating())
    assert claim_of(Silent()) is None
    with pytest.raises(InvalidClaimError, match=r"^no claim given, and the mechanism states no claim \(a dpverify"):
        resolve_claim(Silent(), None, None, None)
