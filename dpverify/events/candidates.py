"""What an event family proposes: events, their selection counts, and code books of derived codes.

A family (:mod:`dpverify.events.registry`) returns :class:`Candidates`: the
events it proposes with their counts on the selection samples. An
:class:`Event` is *frozen* once chosen: its ``indicator`` (:mod:`.indicators`)
maps encoded outputs to membership and travels to the workers that draw the
fresh samples of certification.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .indicators import Composed

__all__ = ["Event", "Candidates", "CodeBook", "relabel", "concat"]


@dataclass(frozen=True)
class Event:
    """An output event S, applicable to encoded outputs of the same code book.

    Attributes
    ----------
    description : str
        Readable description, e.g. ``"output >= 0.52"``.
    family : str
        The family that proposed it (``"singleton"``, ``"level-set"``,
        ``"threshold"``, ``"interval"``, ...).
    indicator : callable
        ``indicator(encoded_group) -> bool array`` (membership per output);
        picklable for certification on other processes.
    role : {"value", "implementation"}
        The role declared by the registered family that proposed it
        (:func:`register_event_family`); set by :func:`candidate_events`.
    """

    description: str
    family: str
    indicator: Callable[[np.ndarray], np.ndarray] = field(repr=False, compare=False)
    role: str = field(default="value", compare=False)

    def count(self, group: np.ndarray) -> int:
        return int(np.count_nonzero(self.indicator(group)))


@dataclass
class Candidates:
    """Events of one family and their counts on the selection samples.

    Counts may be fractional where a family estimates them on a subsample and
    rescales (they only rank candidates; certification counts afresh); ``rows``
    then says on how many rows per input each count was estimated, so that a
    ranking can judge it at its own precision.
    """

    events: list
    counts_x: np.ndarray
    counts_x_prime: np.ndarray
    #: Families that proposed nothing, with the reason (reported in audit results).
    skipped: dict = field(default_factory=dict)
    #: Per event, the selection rows per input its counts were estimated on before rescaling to the
    #: selection size (a learned family's held-out rows); NaN, or None for every event: all of them.
    rows: np.ndarray | None = None

    def counted_rows(self, n_selection: int) -> np.ndarray:
        """Rows per input behind each count: :attr:`rows`, ``n_selection`` where all rows counted."""
        if self.rows is None:
            return np.full(len(self.events), float(n_selection))
        return np.where(np.isnan(self.rows), float(n_selection), np.minimum(self.rows, n_selection))

    @staticmethod
    def empty(reason: str | None = None) -> Candidates:
        found = Candidates([], np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
        if reason:
            found.skipped["_"] = reason
        return found


def relabel(parts: Candidates, encoder, family: str, what: str) -> Candidates:
    """Wrap events over derived codes (``encoder(group)``) as events on the audit's outputs."""
    parts.events = [
        Event(e.description.replace("output in", f"{what} in"), family, Composed(encoder, e.indicator))
        for e in parts.events
    ]
    return parts


@dataclass(frozen=True)
class CodeBook:
    """A code book of its own for a family whose events look at derived codes (a mantissa
    code, a reachability cell, an exact real value) instead of the audit's output codes:
    ``labels[c]`` describes code ``c``; :func:`relabel` maps such events back."""

    labels: list
    numeric: np.ndarray | None = None
    kind: str = "discrete"


def concat(parts) -> Candidates:
    parts = [p for p in parts if p.events]
    if not parts:
        return Candidates.empty()
    return Candidates(
        [e for p in parts for e in p.events],
        np.concatenate([p.counts_x for p in parts]),
        np.concatenate([p.counts_x_prime for p in parts]),
        rows=_rows(parts),
    )


def _rows(parts) -> np.ndarray | None:
    """The rows behind the counts of ``parts`` concatenated (None where every part counted all rows)."""
    if all(p.rows is None for p in parts):
        return None
    return np.concatenate([np.full(len(p.events), np.nan) if p.rows is None else p.rows for p in parts])
