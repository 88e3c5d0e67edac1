"""The code book (dpverify.pipeline.outputs): deterministic invariants, searched with Hypothesis.

An audit's verdict is only as valid as its encoding: a certification output
must get the code of the equal selection output, or -1 when selection never
showed it, whatever the output type and however the values are stored (lists,
arrays, tuples, None mixed in).
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from dpverify.pipeline.outputs import fit_codec

scalars = st.one_of(
    st.lists(st.integers(-5, 5), min_size=1, max_size=30),
    st.lists(st.text(alphabet="ab", max_size=3), min_size=1, max_size=30),
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), min_size=1, max_size=30),
    st.lists(st.frozensets(st.integers(0, 3), max_size=2), min_size=1, max_size=30),
    st.lists(st.one_of(st.none(), st.integers(0, 4)), min_size=1, max_size=30),
)


def _split(values, cut):
    cut = max(1, min(cut, len(values) - 1)) if len(values) > 1 else 1
    return values[:cut], values[cut:] or values[:1]


@given(scalars, st.integers(0, 30), st.lists(st.integers(-7, 7), max_size=20))
def test_equal_outputs_get_equal_codes_and_unseen_ones_minus_one(values, cut, extra):
    selection_x, selection_x_prime = _split(values, cut)
    codec, (codes_x, codes_x_prime) = fit_codec(selection_x, selection_x_prime)
    seen = {}
    for value, code in zip(selection_x + selection_x_prime, np.concatenate([codes_x, codes_x_prime])):
        assert code >= 0
        assert seen.setdefault(value, code) == code  # equal values, one code
    assert len(set(seen.values())) == len(seen) == codec.n_codes  # different values, different codes
    fresh = list(values)
    if all(isinstance(v, int) or v is None for v in values):
        fresh = fresh + extra  # integers the selection may never have shown
    encoded = codec.encode(fresh)
    for value, code in zip(fresh, encoded):
        assert code == seen.get(value, -1)


@given(
    st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=2, max_size=40),
    st.lists(st.lists(st.integers(-4, 4), min_size=3, max_size=3), min_size=1, max_size=20),
)
def test_integer_rows_are_coded_by_row_whatever_their_container(rows, fresh_rows):
    rows = np.array(rows)
    half = len(rows) // 2
    codec, (codes_x, codes_x_prime) = fit_codec(rows[:half], rows[half:])
    table = {tuple(r): c for r, c in zip(rows.tolist(), np.concatenate([codes_x, codes_x_prime]))}
    fresh = np.array(fresh_rows)
    expected = [table.get(tuple(r), -1) for r in fresh.tolist()]
    assert codec.encode(fresh).tolist() == expected  # one array
    assert codec.encode([tuple(r) for r in fresh.tolist()]).tolist() == expected  # tuples
    assert codec.encode(list(fresh)).tolist() == expected  # an array per output
