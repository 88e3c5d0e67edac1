"""Event families of released-key outputs: key presence, per-key values, and the released-key count.

A mechanism that releases a mapping ``{key: noisy value}`` (thresholded counts,
partition selection, private group-bys) leaks where its threshold is wrong through
the *set* of keys it releases. Its outputs reach the families encoded on a key book
fitted on the selection samples (:mod:`dpverify.pipeline.released_keys`): per key a
presence column and a value column, then the number of keys released
(:func:`layout`). The families are:

``"key-presence"``
    ``{key k released}`` and ``{key k not released}`` per key of the book: where a
    key is released from x and never from x' (a threshold too low, or none), these
    are the events whose probability under x bounds delta from below.
``"key-value"``
    thresholds and intervals on the value of key k among the outputs that release
    it (absence is its own outcome, in none of these events), and ``{k absent or
    value >= t}``, ``{k absent or value < t}``: the value events of the noisy count
    itself (a sensitivity declared too small shows here).
``"key-count"``
    thresholds and intervals on the number of keys released.

Each proposes nothing on other outputs and says so. Thresholds sit at pooled
quantiles of the selection samples (:mod:`.thresholds`), as for real outputs.

References
----------
A. Korolova, K. Kenthapadi, N. Mishra, A. Ntoulas, "Releasing search queries and
clicks privately", WWW 2009 (releasing only the keys whose noisy count clears a
threshold).
R. J. Wilson, C. Y. Zhang, W. Lam, D. Desfontaines, D. Simmons-Marengo, B. Gipson,
"Differentially private SQL with bounded user contribution", PoPETs 2020.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .candidates import Candidates, Event, concat
from .indicators import AtLeast, Below
from .projections import Coordinate
from .thresholds import INTERVAL_POINTS, THRESHOLD_POINTS, format_threshold, pooled_grids, threshold_events

__all__ = [
    "STORAGE",
    "layout",
    "KeyValue",
    "key_presence_events",
    "key_value_events",
    "key_count_events",
]

#: The codec storage of released-key outputs (:class:`dpverify.pipeline.outputs.OutputCodec`).
STORAGE = "released-keys"
_NOT_KEYS = "the outputs are not released keys (a mapping from key to value)"


def layout(n_keys: int) -> tuple[slice, slice, int]:
    """The presence columns, the value columns and the count column of ``n_keys`` keys."""
    return slice(0, n_keys), slice(n_keys, 2 * n_keys), 2 * n_keys


@dataclass(frozen=True, eq=False)
class KeyValue:
    """The value of one key of encoded released-key outputs, ``absent`` where the key is not released.

    ``absent`` NaN puts an absent key in no threshold event; ``inf`` in every ``>=`` one;
    ``-inf`` in every ``<`` one.
    """

    presence: int
    value: int
    absent: float = float("nan")

    def __call__(self, group):
        return np.where(group[:, self.presence] > 0.5, group[:, self.value], self.absent)


def _keys(outputs):
    return outputs.released if getattr(outputs, "storage", None) == STORAGE else None


def _named(found: Candidates, family: str) -> Candidates:
    found.events = [Event(e.description, family, e.indicator) for e in found.events]
    return found


def key_presence_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """``{key k released}`` and ``{key k not released}`` for each key of the key book."""
    keys = _keys(outputs)
    if keys is None:
        return Candidates.empty(_NOT_KEYS)
    if not keys:
        return Candidates.empty("no key was released in the selection samples")
    presence, _, _ = layout(len(keys))
    events, cx, cxp = [], [], []
    for i, key in enumerate(keys):
        column = Coordinate(presence.start + i)
        in_x, in_xp = int(np.count_nonzero(column(sel_x))), int(np.count_nonzero(column(sel_x_prime)))
        events += [
            Event(f"key {key!r} released", "key-presence", AtLeast(column, 0.5)),
            Event(f"key {key!r} not released", "key-presence", Below(column, 0.5)),
        ]
        cx += [in_x, len(sel_x) - in_x]
        cxp += [in_xp, len(sel_x_prime) - in_xp]
    return Candidates(events, np.asarray(cx, dtype=float), np.asarray(cxp, dtype=float))


def _one_key_values(sel_x, sel_x_prime, key, presence: int, value: int) -> Candidates:
    """The value events of one key (module docstring)."""
    released = KeyValue(presence, value)
    vx, vxp = released(sel_x), released(sel_x_prime)
    sx, sxp = np.sort(vx[~np.isnan(vx)]), np.sort(vxp[~np.isnan(vxp)])
    if sx.size + sxp.size == 0:
        return Candidates.empty()
    name = f"value of key {key!r}"
    grids = pooled_grids(np.concatenate([sx, sxp]), THRESHOLD_POINTS, INTERVAL_POINTS)
    within = threshold_events(sx, sxp, grids, released, name)
    thresholds = grids[0]
    absent_x, absent_xp = len(sel_x) - sx.size, len(sel_x_prime) - sxp.size
    at_least = KeyValue(presence, value, float("inf"))
    below = KeyValue(presence, value, -float("inf"))
    text = f"key {key!r} absent or {name}"
    events = [Event(f"{text} >= {format_threshold(t)}", "key-value", AtLeast(at_least, t)) for t in thresholds]
    events += [Event(f"{text} < {format_threshold(t)}", "key-value", Below(below, t)) for t in thresholds]
    bx, bxp = np.searchsorted(sx, thresholds, side="left"), np.searchsorted(sxp, thresholds, side="left")
    cx = np.concatenate([absent_x + sx.size - bx, absent_x + bx])
    cxp = np.concatenate([absent_xp + sxp.size - bxp, absent_xp + bxp])
    return concat([within, Candidates(events, cx.astype(float), cxp.astype(float))])


def key_value_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Threshold and interval events on the value of each key of the key book (module docstring)."""
    keys = _keys(outputs)
    if keys is None:
        return Candidates.empty(_NOT_KEYS)
    presence, values, _ = layout(len(keys))
    parts = [
        _one_key_values(sel_x, sel_x_prime, key, presence.start + i, values.start + i) for i, key in enumerate(keys)
    ]
    found = concat(parts)
    if not found.events:
        return Candidates.empty("no key was released in the selection samples")
    return _named(found, "key-value")


def key_count_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Threshold and interval events on the number of keys released."""
    keys = _keys(outputs)
    if keys is None:
        return Candidates.empty(_NOT_KEYS)
    _, _, count = layout(len(keys))
    column = Coordinate(count)
    sx, sxp = np.sort(column(sel_x)), np.sort(column(sel_x_prime))
    grids = pooled_grids(np.concatenate([sx, sxp]), THRESHOLD_POINTS, INTERVAL_POINTS)
    found = threshold_events(sx, sxp, grids, column, "released-key count")
    return _named(found, "key-count")
