"""Released-key outputs: a mapping from partition key to a noisy value, as a fixed-width real vector.

Thresholded counts (OpenDP), partition selection (PipelineDP), group-bys (Tumult)
return a mapping ``{key: value}`` whose *set of keys* is itself random: a key is
released only when its noisy count clears a threshold. The events such pipelines
leak through are "key k released", "the value of key k is at least t" and "this
many keys were released", not level sets of whole mappings. An audit therefore
encodes each mapping, against a **key book** fitted on the selection samples
alone and then frozen, as one row of ``2 K + 1`` doubles:

- columns ``0 .. K-1``: 1.0 where key ``keys[k]`` is released, else 0.0;
- columns ``K .. 2K-1``: the value of key ``keys[k]`` where released, else 0.0
  (absence is read from the presence column, never from the value);
- column ``2K``: the number of keys released, those outside the key book included.

The key book holds at most :data:`MAX_RELEASED_KEYS` keys, so memory grows with the
samples times ``2 K + 1``, never with the number of distinct keys a mechanism can
release. It keeps the keys whose release rate differs most between the selection
groups (ties: the most often released, then the first seen); a key certification
meets that the book lacks is counted in column ``2K`` only, a treatment fixed before
any certification sample is drawn, as unseen discrete outputs are
(:mod:`dpverify.pipeline.outputs`).

Values must be real numbers (bools and ints are read as floats); NaN is refused.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping

import numpy as np

from ..errors import OutputTypeError
from ..events.released_keys import STORAGE, layout

__all__ = ["MAX_RELEASED_KEYS", "STORAGE", "fit_key_book", "encode_released", "layout"]

#: The most keys a key book holds (each adds two columns to the encoded outputs).
MAX_RELEASED_KEYS = 16


def _presence_counts(group) -> dict:
    counts: dict = {}
    for output in group:
        for key in output:
            counts[key] = counts.get(key, 0) + 1
    return counts


def fit_key_book(groups) -> tuple:
    """The key book of some groups of mapping outputs (the selection samples): at most
    :data:`MAX_RELEASED_KEYS` keys, those whose release rate differs most between the groups first."""
    per_group = [(_presence_counts(g), max(len(g), 1)) for g in groups]
    order: dict = {}
    for counts, _ in per_group:
        for key in counts:
            order.setdefault(key, len(order))

    def rank(key):
        rates = [counts.get(key, 0) / n for counts, n in per_group]
        return (-(max(rates) - min(rates)), -sum(rates), order[key])

    return tuple(sorted(order, key=rank)[:MAX_RELEASED_KEYS])


def _value(key, value) -> float:
    if type(value) is float and value == value:  # the common case, without the abstract-class check
        return value
    if not isinstance(value, numbers.Real):
        raise OutputTypeError(
            f"released key {key!r} maps to a {type(value).__name__}; released-key outputs map keys to real "
            "numbers (pass output_key= to map each output to a mapping of numbers or another form)"
        )
    v = float(value)
    if v != v:
        raise OutputTypeError(f"released key {key!r} maps to NaN; values must not be NaN")
    return v


def encode_released(outputs, keys: tuple) -> np.ndarray:
    """Mapping outputs as the ``(n, 2 K + 1)`` rows of the module docstring, on the key book ``keys``."""
    k = len(keys)
    index = {key: i for i, key in enumerate(keys)}
    presence, values, count = layout(k)
    rows = np.zeros((len(outputs), 2 * k + 1))
    for r, output in enumerate(outputs):
        if not isinstance(output, Mapping):
            raise OutputTypeError(
                f"the mechanism returned a {type(output).__name__} after mappings; return one type throughout"
            )
        rows[r, count] = len(output)
        for key, value in output.items():
            v = _value(key, value)
            i = index.get(key)
            if i is not None:
                rows[r, presence.start + i] = 1.0
                rows[r, values.start + i] = v
    return rows
