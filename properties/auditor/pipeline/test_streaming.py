"""Select-then-stream: the event comes from the selection sample alone; certification is counts.

Deterministic checks (fixed seeds, exact equalities):

- the chosen event does not depend on the certification samples (replace them
  and it is the same);
- client memory does not grow with the certification size;
- counts are identical in this process and on a process pool (the Dask
  cluster is in ``test_dask.py``);
- :func:`dpverify.audit_samples` on arrays, lists, ``.npy`` files and chunk
  streams agrees with itself, and fixes the split before looking.
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

import dpverify
from dpverify.mechanisms.textbook import GeometricMechanism, LaplaceMechanism
from dpverify.pipeline.sampling import count_events
from dpverify.pipeline.selection import select


def test_the_event_does_not_depend_on_the_certification_samples():
    rng = np.random.default_rng(5)
    selection_x = [f"s{v}" for v in rng.integers(0, 50, 4_000)]
    selection_xp = [f"s{v}" for v in rng.integers(0, 60, 4_000)]
    events = set()
    for trial in range(3):
        other = np.random.default_rng(trial)
        cert_x = [f"s{v}" for v in other.integers(0, 500, 20_000)]  # new values, new order
        cert_xp = [f"t{v}" for v in other.integers(0, 500, 20_000)]
        result = dpverify.audit_samples(selection_x + cert_x, selection_xp + cert_xp, epsilon=1.0, n_selection=4_000)
        events.add((result.event.description, result.event.family, result.event.direction))
    assert len(events) == 1


def test_frozen_events_pickle_and_count_identically_everywhere():
    """Every built-in family's event survives pickling, so it can be sent to workers."""
    rng = np.random.default_rng(3)
    for sel_x, sel_xp, inputs in [
        (rng.laplace(size=(3_000, 1)), 1 + rng.laplace(size=(3_000, 1)), (0.0, 1.0)),
        (rng.integers(0, 40, 3_000), rng.integers(2, 42, 3_000), None),
        (rng.normal(size=(3_000, 3)), rng.normal(size=(3_000, 3)) + 0.3, None),
    ]:
        choice = select(sel_x, sel_xp, n_certification=10_000, epsilon=1.0, delta=0.0, alpha=0.05, inputs=inputs)
        codec = choice.codec
        fresh = codec.encode(sel_x[:500])
        copy = pickle.loads(pickle.dumps(choice.choice.event.indicator))
        np.testing.assert_array_equal(copy(fresh), choice.choice.event.indicator(fresh))


def _peak_bytes(n_samples: int) -> int:
    tracemalloc.start()
    # two chunks, so both runs draw full blocks of dpverify.pipeline.sampling.BLOCK_SIZE
    dpverify.audit(
        LaplaceMechanism(1.0),
        0.0,
        1.0,
        epsilon=1.0,
        n_samples=n_samples,
        n_selection=50_000,
        seed=4,
        event_families=["threshold"],
        n_chunks=2,
    )
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak


def test_client_memory_does_not_grow_with_the_certification_size():
    """4e6 vs 1.6e7 samples per input: holding them would add 2 x 1.2e7 x 8 B = 192 MB.

    The large audit counts with the compiled kernels (2**23 certification outputs and more), whose
    first use compiles them once per process (about 45 MB traced, then freed); both sizes are
    measured warm, so the comparison is of what an audit holds, not of the compiler.
    """
    _peak_bytes(16_000_000)  # compiles the counting kernels once
    small, large = _peak_bytes(4_000_000), _peak_bytes(16_000_000)
    assert large - small < 16 * 2**20, (small, large)
    assert large < 120 * 2**20


def test_counts_are_identical_in_process_and_on_a_pool():
    mechanism = GeometricMechanism(0.5)
    choice = select(
        mechanism.sample(0, 2_000, np.random.default_rng(1)),
        mechanism.sample(1, 2_000, np.random.default_rng(2)),
        n_certification=10_000,
        epsilon=0.5,
        delta=0.0,
        alpha=0.05,
    )
    seeds = np.random.SeedSequence(9).spawn(2)
    inputs = [(0, 30_000, seeds[0], "x"), (1, 30_000, seeds[1], "x_prime")]
    here = count_events(mechanism, inputs, choice.codec, [choice.choice.event.indicator], n_chunks=5)
    pool = count_events(mechanism, inputs, choice.codec, [choice.choice.event.indicator], n_chunks=5, executor=2)
    assert [c.counts.tolist() for c in here] == [c.counts.tolist() for c in pool]
    smaller_blocks = count_events(
        mechanism, inputs, choice.codec, [choice.choice.event.indicator], n_chunks=5, block_size=1_000
    )
    assert [c.n for c in smaller_blocks] == [30_000, 30_000]


def test_audit_samples_reads_arrays_lists_files_and_streams_alike(tmp_path):
    rng = np.random.default_rng(8)
    a = rng.geometric(0.4, 60_000)
    b = rng.geometric(0.4, 60_000) + 1
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)

    def chunks(values):
        return (values[i : i + 7_000] for i in range(0, len(values), 7_000))

    results = [
        dpverify.audit_samples(a, b, epsilon=0.5, n_selection=10_000),
        dpverify.audit_samples(list(a), list(b), epsilon=0.5, n_selection=10_000),
        dpverify.audit_samples(tmp_path / "a.npy", str(tmp_path / "b.npy"), epsilon=0.5, n_selection=10_000),
        dpverify.audit_samples(chunks(a), chunks(b), epsilon=0.5, n_selection=10_000),
    ]
    assert len({(r.epsilon_lower_bound, r.event.description) for r in results}) == 1
    assert results[0].violation and results[0].event.n_certification == 50_000


def test_audit_samples_names_what_is_missing(tmp_path):
    with pytest.raises(dpverify.InsufficientSamplesError, match="only"):
        dpverify.audit_samples(np.zeros(100), np.ones(100), epsilon=1.0, n_selection=500)
    with pytest.raises(dpverify.InsufficientSamplesError, match="left to certify"):
        dpverify.audit_samples(np.zeros(510), np.ones(510), epsilon=1.0, n_selection=500)
    with pytest.raises(dpverify.InvalidParameterError, match=".npy"):
        dpverify.audit_samples(tmp_path / "a.csv", tmp_path / "b.csv", epsilon=1.0)


def test_sequential_audit_counts_a_stable_event_once_and_stops_early():
    result = dpverify.sequential_audit(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilon=0.1, n_samples=10**6, seed=3, alpha=1e-6
    )
    assert result.violation and result.stopped_early and result.n_samples < 10**5
    kept = dpverify.sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=1.0, n_samples=200_000, seed=3, alpha=0.05)
    assert not kept.stopped_early and len(kept.looks) == len(kept.schedule)


def test_a_large_repeating_discrete_output_space_gets_a_larger_selection():
    from dpverify.mechanisms.output_types import KaryResponse

    # 500 labels, each seen ~80 times in the default selection of 20,000 per input: grown to a fifth
    grown = dpverify.audit(KaryResponse(1.0, 500), 0, 1, epsilon=1.0, n_samples=200_000, seed=1)
    assert grown.n_selection == 40_000 and grown.event.n_certification == 160_000
    # the same audit with the selection size given: kept as given
    fixed = dpverify.audit(KaryResponse(1.0, 500), 0, 1, epsilon=1.0, n_samples=200_000, seed=1, n_selection=20_000)
    assert fixed.n_selection == 20_000
    # outputs that barely repeat: more selection samples would not rank them, so no growth
    sparse = dpverify.audit(KaryResponse(1.0, 100_000), 0, 1, epsilon=1.0, n_samples=200_000, seed=1)
    assert sparse.n_selection == 20_000


def test_a_mechanism_that_cannot_reach_the_workers_is_named_not_an_internal_error():
    with pytest.raises(dpverify.InvalidParameterError, match="cannot be sent to the executor"):
        dpverify.audit(
            lambda x, rng: x + int(rng.integers(0, 2)), 0, 1, epsilon=1.0, n_samples=5_000, seed=1, executor=2
        )


def test_several_certified_events_pay_bonferroni_exactly():
    """m events certified together: each at alpha/m, p-value m * min p (a missing factor would show)."""
    from dpverify.audits.certification import certify, certify_best
    from dpverify.events.base import Event
    from dpverify.pipeline.selection import Choice

    choices = [Choice(Event(f"e{i}", "test", None), "x") for i in range(3)]
    counts_x, counts_xp = np.array([600, 550, 500]), np.array([300, 330, 350])
    eps_lb, _, pvalue, estimate = certify_best(
        choices, counts_x, counts_xp, 2_000, 2_000, epsilon=0.5, delta=0.0, alpha=0.05
    )
    singles = [
        certify(c, a, b, 2_000, 2_000, epsilon=0.5, delta=0.0, alpha=0.05 / 3)
        for c, a, b in zip(choices, counts_x, counts_xp)
    ]
    assert eps_lb == max(s[0] for s in singles) and estimate.description == "e0"
    unadjusted = [
        certify(c, a, b, 2_000, 2_000, epsilon=0.5, delta=0.0, alpha=0.05)[2]
        for c, a, b in zip(choices, counts_x, counts_xp)
    ]
    assert pvalue == pytest.approx(min(1.0, 3 * min(unadjusted)))
    assert eps_lb < certify(choices[0], 600, 300, 2_000, 2_000, epsilon=0.5, delta=0.0, alpha=0.05)[0]
