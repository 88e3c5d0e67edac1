"""The audit plan under every driver (dpverify.audits.plan, dpverify.audits.choosing).

Deterministic (fixed seeds; the available memory fixed at 1 GiB where a refusal is checked): no
false alarm. Each test names the wrong implementation it detects.
"""

from __future__ import annotations

import numpy as np
import pytest

import dpverify
from dpverify.audits import choosing, delta_curve, family_wise, given_samples, pair, search, sequential
from dpverify.audits import plan as plan_module
from dpverify.audits.certification import check_sizes
from dpverify.audits.drivers import builtin_drivers, driver_of
from dpverify.audits.plan import AuditPlan, build_plan, plan_of_result
from dpverify.errors import IdenticalInputsError, InsufficientMemoryError, NotReplayableError
from dpverify.mechanisms import GeometricMechanism
from dpverify.pipeline import memory
from dpverify.pipeline.sampling import children, resolve_seed

PAIRS = [(0, 1), (1, 3)]


#: A counted mechanism refuses to draw more than this (a refusal that came too late fails, not swaps).
LIMIT = 10**6


class Counted:
    """A geometric mechanism that counts the outputs drawn from it (its call and its vectorized sample), and
    raises rather than draw more than :data:`LIMIT` in all."""

    def __init__(self):
        self.inner = GeometricMechanism(1.0)
        self.epsilon = 1.0
        self.drawn = 0

    def _count(self, size):
        self.drawn += size
        if self.drawn > LIMIT:
            raise RuntimeError(f"drew {self.drawn} outputs")

    def __call__(self, data, rng):
        self._count(1)
        return self.inner(data, rng)

    def sample(self, data, size, rng):
        self._count(size)
        return self.inner.sample(data, size, rng)


def test_the_plan_of_an_audit_fixes_claim_sizes_seed_and_named_streams():
    """Detects: a plan whose split is not the audit's (``check_sizes``), whose streams are not the seed's
    children in the order the driver's record names them (reordering them changes every seeded result), or
    whose result fields lose the claim, level or seed."""
    plan = build_plan(pair.DRIVER, GeometricMechanism(1.0), (0, 1), (0.5, None, None), 30_000, 7, None, None)
    assert isinstance(plan, AuditPlan) and plan.driver == "audit"
    assert (plan.epsilon, plan.delta, plan.alpha) == (0.5, 0.0, 0.05)
    n_samples, n_selection = check_sizes(30_000, None, epsilon=0.5, delta=0.0, alpha=0.05)
    assert (plan.n_samples, plan.n_selection, plan.n_certification) == (n_samples, n_selection, n_samples - n_selection)
    sequence, recorded = resolve_seed(7)
    assert plan.seed == recorded
    expected = children(sequence, 5)  # the spawn index of each stream, as the audits before the plan laid them out
    names = ("selection_x", "selection_x_prime", "certification_x", "certification_x_prime", "more")
    assert pair.DRIVER.streams == names
    assert [plan.streams[name].spawn_key for name in names] == [s.spawn_key for s in expected]
    fields = plan.result_fields()
    assert fields["claim"] == dpverify.PrivacyClaim(0.5, 0.0) and fields["seed"] == recorded
    grown = plan.with_selection(n_selection * 2)
    assert (grown.n_selection, grown.n_certification) == (2 * n_selection, n_samples - 2 * n_selection)
    assert grown.result_fields(alpha=0.01)["alpha"] == 0.01 and grown.result_fields()["n_selection"] == 2 * n_selection


def test_the_plan_checks_the_inputs_and_the_stated_claim():
    """Detects: a builder that skips the inputs check, or loses the note on a claim that differs from the
    mechanism's stated one."""
    with pytest.raises(IdenticalInputsError):
        build_plan(pair.DRIVER, GeometricMechanism(1.0), (1, 1), (1.0, None, None), 20_000, 1, None, None)
    plan = build_plan(pair.DRIVER, Counted(), (0, 1), (2.0, None, None), 20_000, 1, None, None)
    assert plan.claim_notes and "differs" in plan.claim_notes[0]


DRIVERS = {
    "audit": (pair, lambda m: dpverify.audit(m, 0, 1, epsilon=1.0, n_samples=20_000, seed=3)),
    "search_audit": (search, lambda m: dpverify.search_audit(m, PAIRS, epsilon=1.0, n_samples=20_000, seed=3)),
    "sequential_audit": (
        sequential,
        lambda m: dpverify.sequential_audit(m, 0, 1, epsilon=1.0, n_samples=40_000, seed=3),
    ),
    "delta_lower_bound_curve": (
        delta_curve,
        lambda m: dpverify.delta_lower_bound_curve(m, 0, 1, epsilons=[0.5, 1.0], n_samples=20_000, seed=3),
    ),
    "audit_samples": (
        given_samples,
        lambda m: dpverify.audit_samples(*(np.random.default_rng(3).geometric(0.5, (2, 4_000))), epsilon=1.0),
    ),
    "audit_pairs": (family_wise, lambda m: dpverify.audit_pairs(m, PAIRS, epsilon=1.0, n_samples=10_000, seed=3)),
}


@pytest.mark.parametrize("driver", sorted(DRIVERS))
def test_every_driver_builds_one_plan_and_its_result_records_it(driver, monkeypatch):
    """Every driver calls the one builder, once, under its own name, and its result records the plan's seed
    and options. Detects: a driver that sizes, seeds or checks on its own (bypassing ``build_plan``), or one
    whose result records another seed or other options than its plan."""
    module, run = DRIVERS[driver]
    built = []

    def spy(name, *args, **kwargs):
        built.append(plan_module.build_plan(name, *args, **kwargs))
        return built[-1]

    monkeypatch.setattr(module, "build_plan", spy)
    result = run(GeometricMechanism(1.0))
    own = [p for p in built if p.driver == driver]
    assert len(own) == 1, [p.driver for p in built]
    assert result.seed == own[0].seed
    if driver not in ("audit_pairs",):
        assert result.options == own[0].options


def test_a_search_refuses_an_absurd_screening_budget_before_drawing(monkeypatch):
    """The issue's search that grew to 3.6 GB: ``n_screening=10**9`` is refused by name after one pilot
    output, and the message says the budget that fits. Detects: screening before the memory check (the
    mechanism would be drawn from), or a check that sizes one pair's selection instead of what the
    screening holds."""
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 1 << 30)
    mechanism = Counted()
    with pytest.raises(InsufficientMemoryError, match=r"n_screening=\d+ or less"):
        dpverify.search_audit(mechanism, PAIRS, epsilon=1.0, n_screening=10**9, seed=1)
    assert mechanism.drawn <= 1


def test_a_search_counts_the_chosen_pairs_largest_selection_before_drawing(monkeypatch):
    """A search may top its chosen pair's selection up to ``WINNER_GROWN_SHARE * n_samples`` (outputs that
    repeat); the memory check before drawing counts that top-up. At 1e7 samples per input a plain selection
    of 2e6 outputs per input needs about 787 MiB by the memory model, the top-up to 4e6 about 1,061 MiB,
    and a screening of 2,000 almost nothing: with 900 MiB available the search is refused after one pilot
    output. Detects: a check that counts the screening and the plain selection alone (the top-up then
    grows past what was checked; tried: the search draws)."""
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 900 << 20)
    mechanism = Counted()
    with pytest.raises(InsufficientMemoryError, match="chosen pair's selection"):
        dpverify.search_audit(mechanism, PAIRS, epsilon=1.0, n_samples=10**7, n_screening=2_000, seed=1)
    assert mechanism.drawn <= 1


def test_a_sequential_audit_counts_its_kept_batches_before_drawing(monkeypatch):
    """A sequential audit keeps its certification batches but the last, to count later looks' events on them
    without drawing them again. At 1e8 samples per input its largest selection, 2e6 outputs per input, needs
    about 787 MiB by the memory model; with about 5e7 kept besides, over 7 GiB: with 2 GiB available it is
    refused after one pilot output, and the message says what is kept. Detects: a check that counts the
    selection alone (the kept batches then grow past what was checked; tried: the audit draws)."""
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 2 << 30)
    mechanism = Counted()
    with pytest.raises(InsufficientMemoryError, match="keeps its certification batches"):
        dpverify.sequential_audit(mechanism, 0, 1, epsilon=1.0, n_samples=10**8, seed=1)
    assert mechanism.drawn <= 1


def test_a_delta_curve_refuses_an_absurd_selection_before_drawing(monkeypatch):
    """Detects: a delta curve that draws its selection (or runs the sampler check) before the memory check."""
    monkeypatch.setattr(memory, "available_memory_bytes", lambda: 1 << 30)
    mechanism = Counted()
    with pytest.raises(InsufficientMemoryError):
        dpverify.delta_lower_bound_curve(mechanism, 0, 1, epsilons=[1.0], n_samples=10**13, n_selection=10**12, seed=1)
    assert mechanism.drawn <= 1


def test_a_search_runs_the_sampler_check_on_the_chosen_pair(monkeypatch):
    """The checks before drawing, in a search: memory before screening, the sampler check on the pair that is
    certified. Detects: the sampler check on the first candidate (or none) instead of the chosen pair."""
    checked = []
    original = search.check_sampler

    def spy(plan, mechanism, x, x_prime, pilot=None):
        checked.append((x, x_prime))
        return original(plan, mechanism, x, x_prime, pilot)

    monkeypatch.setattr(search, "check_sampler", spy)
    pairs = [(0, 0 + 1), (0, 5)]  # the second leaks more: it is chosen
    result = dpverify.search_audit(GeometricMechanism(1.0), pairs, epsilon=1.0, n_samples=20_000, seed=2)
    assert (result.x, result.x_prime) == (0, 5)
    assert checked == [(0, 5)]


def test_select_for_claim_is_select_with_the_plans_nine_keywords(monkeypatch):
    """The call four drivers once wrote out with the same keywords, now made from the plan. Detects: a
    selection sized by another claim than the plan's, at another certification size or level than asked (a
    sequential look's own), or with the families or float switch of other options."""
    seen = {}
    real_select = choosing.select

    def spy(sel_x, sel_x_prime, **kwargs):
        seen.update(kwargs)
        return real_select(sel_x, sel_x_prime, **kwargs)

    monkeypatch.setattr(choosing, "select", spy)
    rng = np.random.default_rng(4)
    sel_x, sel_xp = rng.geometric(0.5, 3_000), rng.geometric(0.35, 3_000)
    fields = dict(float_events=False, event_families=("threshold", "singleton"))
    plan = build_plan(pair.DRIVER, GeometricMechanism(1.0), (0, 1), (0.7, 1e-3, None), 50_000, 1, None, fields)
    mechanism = GeometricMechanism(1.0)
    choosing.select_for_claim(plan, sel_x, sel_xp, inputs=(0, 1), alpha=0.01, n_certification=777, mechanism=mechanism)
    assert seen == dict(
        n_certification=777,
        epsilon=0.7,
        delta=1e-3,
        alpha=0.01,
        event_families=plan.options.families,
        float_events=False,
        inputs=(0, 1),
        claim=plan.claim,
        mechanism=mechanism,
    )
    seen.clear()
    choosing.select_for_claim(plan, sel_x, sel_xp, inputs=None)
    assert (seen["n_certification"], seen["alpha"]) == (plan.n_certification, plan.alpha)
    claimed = (None, None, dpverify.PrivacyClaim.gdp(1.0))
    gdp = build_plan(pair.DRIVER, GeometricMechanism(1.0), (0, 1), claimed, 50_000, 1, None, None)
    choosing.select_for_claim(gdp, sel_x, sel_xp, inputs=(0, 1))
    assert (seen["epsilon"], seen["delta"], seen["claim"]) == (1.0, 0.0, gdp.claim)  # sized as an eps = 1 claim


@pytest.mark.parametrize("driver", ["audit", "sequential_audit", "search_audit", "delta_lower_bound_curve"])
def test_the_plan_of_a_result_is_the_plan_it_ran_under(driver):
    """``plan_of_result`` reads back what the run fixed (replay hands it to the driver). Detects: a replay
    plan with another claim, sample count (a sequential audit's budget, not the samples it used), seed,
    options or streams than the run's."""
    module, run = DRIVERS[driver]
    result = run(GeometricMechanism(1.0))
    recorded = plan_of_result(result, driver_of(result))
    assert recorded.driver == driver
    assert recorded.seed == result.seed and recorded.options == result.options
    assert recorded.n_samples == getattr(result, "budget", None) or result.n_samples
    assert list(recorded.streams) == list(next(d for d in builtin_drivers() if d.name == driver).streams)
    if driver != "delta_lower_bound_curve":
        assert recorded.claim == result.audited_claim


def test_the_plan_of_a_sequential_result_replays_its_budget():
    """Detects: a replay plan that reads the samples a sequential audit used instead of its budget (the
    replay would run a smaller audit)."""
    result = dpverify.sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=0.3, n_samples=40_000, seed=3)
    assert result.stopped_early and result.n_samples < 40_000
    assert plan_of_result(result, sequential.DRIVER).n_samples == 40_000


def test_a_result_of_given_samples_has_no_plan_to_replay():
    """Detects: a replay plan invented for a result with no seed."""
    rng = np.random.default_rng(1)
    result = dpverify.audit_samples(rng.geometric(0.5, 4_000), rng.geometric(0.35, 4_000), epsilon=1.0)
    with pytest.raises(NotReplayableError, match="no seed"):
        plan_of_result(result, pair.DRIVER)


def test_the_sequential_plan_holds_its_looks():
    """Detects: looks sized after drawing (or elsewhere than the plan): the result's schedule and the plan's
    memory size (the largest look's selection) must be the plan's."""
    sizes = sequential._look_sizes(1_000, 2.0, 0.5)
    plan = build_plan(
        sequential.DRIVER, GeometricMechanism(1.0), (0, 1), (1.0, None, None), 40_000, 3, None, None, sizes=sizes
    )
    result = dpverify.sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=40_000, seed=3)
    assert plan.design.schedule == result.schedule
    assert plan.n_selection == max(s for s, _ in plan.design.splits)
    assert result.plan == plan.design.recorded()
