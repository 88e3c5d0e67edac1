"""Event families: the sets S on which an audit compares P[M(x) in S] and P[M(x') in S].

Each family is a declared :class:`EventFamily` record (:mod:`.registry`): its
name, the outputs it applies to, how it builds its candidates from the
selection samples, its role (``"value"`` for events on the output values,
``"implementation"`` for artefacts of their representation, Mironov 2012),
whether it ranks pairs in a search's screening, and its memory. The built-in
families are the explicit tuple :data:`BUILTIN_FAMILIES`, in the order in
which candidates are built and reported; third parties register theirs with
:func:`register_event_family` or through the entry-point group
``dpverify.event_families`` (docs/extending.md). Selection and verdicts ask
for roles (:func:`families_of_role`), never for family names.

Modules, one idea each: :mod:`.registry`, :mod:`.candidates` (what a family
returns), :mod:`.indicators` (picklable membership tests), :mod:`.projections`
and :mod:`.thresholds` (their shared machinery), and the families:
:mod:`.discrete`, :mod:`.real`, :mod:`.floating` (mantissa codes and
reachability cells) and :mod:`.classifier` (level sets of a learned score).
"""

from . import base, classifier, floating
from .candidates import Candidates, Event
from .registry import (
    BUILTIN_FAMILIES,
    ENTRY_POINT_GROUP,
    EventFamily,
    FamilyMemory,
    candidate_events,
    default_families,
    event_families,
    event_family,
    extreme_families,
    families_of_role,
    family_records,
    family_role,
    grows_selection,
    register_event_family,
    registered_families,
    screening_families,
    unregister_event_family,
)

__all__ = [
    "Candidates",
    "Event",
    "EventFamily",
    "FamilyMemory",
    "BUILTIN_FAMILIES",
    "ENTRY_POINT_GROUP",
    "candidate_events",
    "default_families",
    "extreme_families",
    "grows_selection",
    "event_families",
    "event_family",
    "family_records",
    "families_of_role",
    "family_role",
    "register_event_family",
    "registered_families",
    "screening_families",
    "unregister_event_family",
    "base",
    "floating",
    "classifier",
]
