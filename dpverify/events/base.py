"""The former home of the event families, kept so that its public names go on working.

What was here lives in modules of one idea each: :mod:`.registry` (the
declared family records and their registration), :mod:`.candidates`
(:class:`Event`, :class:`Candidates`, :class:`CodeBook`), :mod:`.indicators`
(the picklable indicators), :mod:`.projections`, :mod:`.thresholds`, and the
families of :mod:`.discrete` and :mod:`.real` outputs. Import from those.
"""

from .candidates import Candidates, CodeBook, Event, relabel
from .discrete import (
    MAX_LEVEL_SETS,
    MAX_SINGLETONS,
    level_set_events,
    numeric_discrete_events,
    row_threshold_events,
    singleton_events,
)
from .indicators import AtLeast, Below, CodeSet, CodeValue, Composed, ExactValue, Within
from .projections import Coordinate, Largest, Linear, Total
from .real import DISTINCT_PROBE, MAX_DISCRETE_VALUES, real_threshold_events, real_value_events
from .registry import (
    ROLES,
    candidate_events,
    event_families,
    families_of_role,
    family_role,
    register_event_family,
    registered_families,
)
from .thresholds import INTERVAL_POINTS, THRESHOLD_POINTS, nearest_quantiles, order_statistics, signed_zeros_mixed

__all__ = [
    "Event",
    "Candidates",
    "register_event_family",
    "registered_families",
    "family_role",
    "families_of_role",
    "event_families",
    "candidate_events",
    "CodeBook",
    "relabel",
    "CodeSet",
    "AtLeast",
    "Below",
    "Within",
    "Composed",
    "CodeValue",
    "ExactValue",
    "Coordinate",
    "Total",
    "Largest",
    "Linear",
    "singleton_events",
    "level_set_events",
    "numeric_discrete_events",
    "row_threshold_events",
    "real_threshold_events",
    "real_value_events",
    "nearest_quantiles",
    "order_statistics",
    "signed_zeros_mixed",
    "ROLES",
    "THRESHOLD_POINTS",
    "INTERVAL_POINTS",
    "MAX_DISCRETE_VALUES",
    "DISTINCT_PROBE",
    "MAX_SINGLETONS",
    "MAX_LEVEL_SETS",
]
