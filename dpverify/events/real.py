"""Event families of real outputs: thresholds and intervals on projections, and exact values.

Each family is ``family(sel_x, sel_x_prime, outputs) -> Candidates`` on the
selection samples as (n, d) float arrays. Thresholds on a few projections
approximate the likelihood-ratio level sets (StatDP); scalar outputs with few
distinct values also get the discrete families on their exact values.

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

import numpy as np

from .candidates import Candidates, CodeBook, Event, concat
from .discrete import level_set_events, singleton_events
from .indicators import Composed, ExactValue
from .projections import vector_projections
from .thresholds import threshold_candidates

__all__ = ["MAX_DISCRETE_VALUES", "DISTINCT_PROBE", "real_threshold_events", "real_value_events"]

#: Real outputs with at most this many distinct values also get discrete events.
MAX_DISCRETE_VALUES = 1024


def real_threshold_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds and intervals on coordinates and simple projections of real outputs."""
    parts = [
        threshold_candidates(project(sel_x), project(sel_x_prime), project, name)
        for name, project in vector_projections(sel_x, sel_x_prime)
    ]
    return concat(parts)


#: Outputs of M(x) whose distinct values :func:`real_value_events` counts first: continuous outputs
#: show more than MAX_DISCRETE_VALUES among them, and the sort of all selection outputs is skipped.
DISTINCT_PROBE = 4 * MAX_DISCRETE_VALUES


def real_value_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Discrete events on exact values, for scalar real outputs with few distinct values."""
    if sel_x.shape[1] != 1:
        return Candidates.empty()
    many = f"the outputs take more than {MAX_DISCRETE_VALUES} values or never repeat"
    if np.unique(sel_x[:DISTINCT_PROBE, 0]).size > MAX_DISCRETE_VALUES:  # a subset has too many already
        return Candidates.empty(many)
    pooled = np.concatenate([sel_x[:, 0], sel_x_prime[:, 0]])
    values = np.unique(pooled)
    if values.size > MAX_DISCRETE_VALUES or values.size == pooled.size:
        return Candidates.empty(many)
    encode = ExactValue(values)
    view = CodeBook([float(v) for v in values])
    parts = [family(encode(sel_x), encode(sel_x_prime), view) for family in (singleton_events, level_set_events)]
    merged = concat(parts)
    merged.events = [Event(e.description, e.family, Composed(encode, e.indicator)) for e in merged.events]
    return merged
