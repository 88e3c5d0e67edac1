"""Released-key outputs: a mapping key -> value is encoded on a frozen, bounded key book, and its events
count what they say.

Invariants (deterministic, Hypothesis where the input is a structure): the encoding's columns (presence,
value, count); the key book's bound and order; a key that certification meets and selection never saw
counted in the count only; type drift, non-numeric values and NaN refused with the fix named; every
candidate event's selection count equal to its indicator's count on the same outputs, and the value
events on "released" outputs never holding an output where the key is absent. An audit of mapping
outputs runs with no ``output_key`` and names the families that did not run.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from dpverify.events.registry import candidate_events
from dpverify.events.released_keys import KeyValue, layout
from dpverify.pipeline.memory import output_bytes
from dpverify.pipeline.outputs import fit_codec
from dpverify.pipeline.released_keys import MAX_RELEASED_KEYS, fit_key_book

KEYS = st.sampled_from(["a", "b", ("c", 1), 7])
MAPPINGS = st.dictionaries(KEYS, st.integers(-5, 5).map(float), max_size=4)


def test_mappings_are_encoded_as_presence_value_and_count_columns():
    """Detects: a value read where the key is absent, a count that leaves out keys outside the book, or
    mappings refused as unhashable (the behaviour before released keys were an output type)."""
    sel_x = [{"a": 3.0, "b": 1.5}, {"a": 2.0}]
    sel_xp = [{"b": 4.0}, {}]
    codec, (ex, exp) = fit_codec(sel_x, sel_xp)
    assert codec.family_kind == "released-keys" and codec.kind == "real"
    keys = codec.released
    assert set(keys) == {"a", "b"} and codec.dimension == 2 * len(keys) + 1
    presence, values, count = layout(len(keys))
    a, b = keys.index("a"), keys.index("b")
    np.testing.assert_array_equal(ex[:, presence][:, [a, b]], [[1, 1], [1, 0]])
    np.testing.assert_array_equal(ex[:, values][:, [a, b]], [[3.0, 1.5], [2.0, 0.0]])
    np.testing.assert_array_equal(exp[:, count], [1, 0])
    unseen = codec.encode([{"z": 1.0, "a": 5.0}])  # "z" is not in the book: counted, no column
    assert unseen[0, count] == 2 and unseen[0, presence.start + a] == 1 and unseen[0, presence].sum() == 1


def test_the_key_book_is_bounded_and_keeps_the_keys_whose_release_differs_most():
    """Detects: a key book that grows with the keys a mechanism can release (memory unbounded), or one
    that keeps the most frequent keys while dropping the one released from x only."""
    common = {f"k{i}": 1.0 for i in range(100)}
    sel_x = [{**common, "leak": 1.0} for _ in range(10)]
    sel_xp = [dict(common) for _ in range(10)]
    keys = fit_key_book([sel_x, sel_xp])
    assert len(keys) == MAX_RELEASED_KEYS and keys[0] == "leak"


@pytest.mark.parametrize(
    ("first", "then", "match"),
    [
        ([{"a": 1.0}], [3], "after"),
        ([3], [{"a": 1.0}], "after"),
        ([{"a": 1.0}], [{"a": "high"}], "output_key"),
        ([{"a": 1.0}], [{"a": float("nan")}], "NaN"),
    ],
)
def test_type_drift_and_values_that_are_not_numbers_are_refused(first, then, match):
    """Detects: a mapping after ints (or the reverse) encoded silently, a string value read as a number,
    or NaN let through (it would meet no threshold and hide a leak)."""
    codec, _ = fit_codec(first)
    with pytest.raises(dpverify.OutputTypeError, match=match):
        codec.encode(then)


@given(st.lists(MAPPINGS, min_size=1, max_size=30), st.lists(MAPPINGS, min_size=1, max_size=30))
def test_every_key_event_counts_what_its_indicator_holds(sel_x, sel_xp):
    """Detects: a selection count that disagrees with the frozen indicator certification applies (the
    event chosen would not be the event certified), or a value event on released outputs that holds an
    output where the key is absent (absence must be its own outcome)."""
    codec, (ex, exp) = fit_codec(sel_x, sel_xp)
    found = candidate_events(ex, exp, codec, ["key-presence", "key-value", "key-count"])
    for event, cx, cxp in zip(found.events, found.counts_x, found.counts_x_prime):
        assert (event.count(ex), event.count(exp)) == (cx, cxp), event.description
    presence, values, _ = layout(len(codec.released))
    for i, key in enumerate(codec.released):
        absent = ex[:, presence.start + i] == 0
        for event in found.events:
            if event.description.startswith(f"value of key {key!r}"):
                assert not event.indicator(ex)[absent].any(), event.description
    assert np.isnan(KeyValue(0, 1)(np.array([[0.0, 9.0, 0.0]])))[0]


def _two_keys(data, rng):
    return {"a": float(rng.normal())} if data else {}


def test_an_audit_of_mappings_needs_no_output_key_and_names_the_families_that_did_not_run():
    """Detects: mappings refused (the behaviour before), a key family run on other outputs or the real
    families run on released keys without a word in the notes (the project's rule: results name the
    families that did not run)."""
    result = dpverify.audit(_two_keys, 1, 0, epsilon=1.0, delta=0.0, n_samples=4_000, seed=3)
    assert result.violation and result.event.family == "key-presence"
    text = " ".join(result.notes)
    assert "'threshold'" in text and "these are released-keys" in text
    other = dpverify.audit(lambda d, rng: d + float(rng.laplace()), 0, 1, epsilon=1.0, n_samples=4_000, seed=3)
    assert "'key-presence', 'key-value', 'key-count' not used: made for released-keys outputs" in " ".join(other.notes)


def test_the_memory_model_counts_a_mapping_with_its_values_and_its_encoded_row():
    """Detects: released keys counted as a bare pointer and a dict header (their float values and encoded
    rows left out), so that the refusal before drawing lets through a selection that cannot fit."""
    one, two = output_bytes({"a": 1.0}), output_bytes({"a": 1.0, "b": 2.0})
    assert one >= 8 * (2 * MAX_RELEASED_KEYS + 1) + sys.getsizeof(1.0) and two > one


def test_a_distribution_test_refuses_released_keys_and_names_the_countable_form():
    """Detects: mappings counted by a distribution test as real vectors without a word, or refused with the
    message for real numbers (which names no way to count them)."""
    with pytest.raises(dpverify.OutputTypeError, match=r"released-keys outputs \(map each mapping"):
        dpverify.equal_distributions(lambda rng: {"a": 1.0}, lambda rng: {}, n_samples=200, seed=1)
