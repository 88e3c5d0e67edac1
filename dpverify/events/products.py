"""Product events for tuple outputs: a category of one part and a threshold on another, together.

A mechanism that returns a tuple such as ``(index, value)`` (report noisy max
returning both, a sparse vector answer with its position) is audited on real
rows ``(n, d)`` (:mod:`dpverify.pipeline.outputs`); the threshold and
coordinate events look at one part at a time. StatDP combines events across
the parts of such an output (Ding et al. 2018, Section 4: the event
``{index = i and value in I}``); this family proposes
``{o_i = c and o_j >= t}`` and ``{o_i = c and o_j < t}`` where part ``i`` is
*categorical* on the selection sample (at most :data:`MAX_CATEGORIES`
distinct whole values), ``c`` one of its :data:`TOP_CATEGORIES` most frequent
values, and ``t`` a pooled quantile (:data:`PRODUCT_QUANTILES`) of part ``j``
among the selection outputs whose part ``i`` is ``c``. All of it is chosen
on the selection sample; certification counts the frozen events afresh.

The family is opt-in (``event_families=[..., "product"]``) so that the seeded
results of audits that do not name it are unchanged.

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .candidates import Candidates, Event

__all__ = ["CategoryAndThreshold", "product_events", "MAX_CATEGORIES", "TOP_CATEGORIES", "PRODUCT_QUANTILES"]

#: A part with at most this many distinct whole values on the selection sample is categorical.
MAX_CATEGORIES = 32
#: Categories combined with thresholds, the most frequent first.
TOP_CATEGORIES = 8
#: Conditional quantiles of the other part at which thresholds are placed.
PRODUCT_QUANTILES = (0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99)
#: Rows of the selection sample read to decide which parts are categorical.
PROBE_ROWS = 20_000


@dataclass(frozen=True, eq=False)
class CategoryAndThreshold:
    """``o[category_part] == category and (o[value_part] >= threshold) == above`` (picklable)."""

    category_part: int
    category: float
    value_part: int
    threshold: float
    above: bool

    def __call__(self, group) -> np.ndarray:
        g = np.asarray(group, dtype=np.float64)
        in_category = g[:, self.category_part] == self.category
        at_least = g[:, self.value_part] >= self.threshold
        return in_category & (at_least if self.above else ~at_least)


def _categorical_parts(pooled: np.ndarray) -> list[int]:
    parts = []
    for i in range(pooled.shape[1]):
        column = pooled[:, i]
        if np.all(np.isfinite(column)) and np.all(column == np.round(column)):
            if np.unique(column).size <= MAX_CATEGORIES:
                parts.append(i)
    return parts


def product_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Category x threshold events across the parts of tuple outputs (see the module docstring).

    Family ``"product"``, real rows of at least two parts, one of them categorical and another not.
    """
    if sel_x.ndim != 2 or sel_x.shape[1] < 2:
        return Candidates.empty("needs tuple outputs of at least two parts")
    probe = np.concatenate([sel_x[:PROBE_ROWS], sel_x_prime[:PROBE_ROWS]])
    categorical = _categorical_parts(probe)
    others = [j for j in range(sel_x.shape[1]) if j not in categorical]
    if not categorical or not others:
        return Candidates.empty(f"needs a part with at most {MAX_CATEGORIES} whole values and a part with more")
    events, counts_x, counts_xp = [], [], []
    for i in categorical:
        values, counts = np.unique(np.concatenate([sel_x[:, i], sel_x_prime[:, i]]), return_counts=True)
        for c in values[np.argsort(-counts, kind="stable")[:TOP_CATEGORIES]]:
            in_x, in_xp = sel_x[:, i] == c, sel_x_prime[:, i] == c
            for j in others:
                vx, vxp = np.sort(sel_x[in_x, j]), np.sort(sel_x_prime[in_xp, j])
                pooled = np.concatenate([vx, vxp])
                finite = pooled[np.isfinite(pooled)]
                if finite.size == 0:
                    continue
                for t in np.unique(np.quantile(finite, PRODUCT_QUANTILES)):
                    below_x, below_xp = np.searchsorted(vx, t, "left"), np.searchsorted(vxp, t, "left")
                    for above in (True, False):
                        where = f"part {i} = {c:g} and part {j} {'>=' if above else '<'} {t:.6g}"
                        events.append(Event(f"output {where}", "product", CategoryAndThreshold(i, c, j, t, above)))
                        counts_x.append(len(vx) - below_x if above else below_x)
                        counts_xp.append(len(vxp) - below_xp if above else below_xp)
    if not events:
        return Candidates.empty("no category of the selection sample has finite values in another part")
    return Candidates(events, np.asarray(counts_x, dtype=np.int64), np.asarray(counts_xp, dtype=np.int64))
