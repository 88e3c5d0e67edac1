"""The event families, as declared records: what each is, and the one place they are registered.

An event family proposes the sets S on which an audit compares
P[M(x) in S] and P[M(x') in S]. Each is an :class:`EventFamily` record that
says everything the rest of the auditor asks about it:

- ``name`` and ``kind``: the outputs it applies to (``"discrete"``, ``"real"``,
  ``"released-keys"`` or ``"any"``);
- ``build``: how it builds its candidates from the selection samples,
  ``build(sel_x, sel_x_prime, outputs) -> Candidates`` (:mod:`.candidates`);
- ``uses_inputs``: whether ``build`` is also passed ``inputs=(x, x_prime)``;
- ``uses_mechanism``: whether ``build`` is also passed ``mechanism=``, the audited
  mechanism (None where the caller has none: given samples), to read what it
  declares (a score, :mod:`.declared`);
- ``role``: ``"value"`` for events on the output values (what the mechanism
  computes in exact arithmetic), ``"implementation"`` for events on artefacts
  of how the outputs are represented (the low-order bits of floating-point
  numbers, Mironov 2012): the float/value split of the verdicts and
  ``float_events=False`` ask for roles, never for names;
- ``screening``: whether it ranks candidate pairs during a search's screening
  (:func:`dpverify.search_audit`; a family whose fitting cost is paid once per
  pair and round says no);
- ``memory``: what it holds while it builds (:class:`FamilyMemory`), for the
  memory refusal before drawing (:mod:`dpverify.pipeline.memory`);
- ``opt_in``: whether it is left out of the default set (``event_families=None``)
  and used only where named, so that registering it changes no seeded result of
  an audit that does not name it (:func:`default_families`);
- ``extreme``: whether its events are placed at the extremes of the very samples
  that count them (the other input's count is 0 by construction), which a
  search's screening ranks at the winner's-curse shrinkage
  (:func:`dpverify.audits.choosing.rank_pair`, :func:`extreme_families`);
- ``grows_selection``: where its fit sharpens with the selection rows, the
  predicate on a pair's samples under which a search tops the chosen pair's
  selection up (:func:`grows_selection`).

The drivers read these fields, never a family's name: a third-party family
that declares one is treated as the built-in that declares it.

The built-in families are :data:`BUILTIN_FAMILIES`, an explicit tuple in the
order in which candidates are built and reported (the order is part of every
seeded result). Third parties add theirs after them, in one of two ways:

- an entry point in the group :data:`ENTRY_POINT_GROUP`
  (``dpverify.event_families``) naming an :class:`EventFamily` record or a
  sequence of them, loaded by entry-point name on the first use of the registry
  (:func:`dpverify.plugins.load_group`: one that does not load is left out with a
  warning, and naming it raises its :class:`~dpverify.errors.PluginError`);
- :func:`register_event_family` (a record, or the fields of one), at run time.

References
----------
I. Mironov, "On significance of the least significant bits for differential
privacy", CCS 2012.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from .._validation import (
    check_bool,
    check_callable,
    check_choice,
    check_instance,
    check_known,
    check_name,
    check_optional_callable,
    check_positive_int,
    check_record_or_fields,
)
from ..errors import InvalidParameterError
from ..plugins import Loaded, load_group
from .candidates import Candidates, _rows
from .classifier import MAX_FIT_ELEMENTS, classifier_events
from .declared import declared_score_events
from .discrete import level_set_events, numeric_discrete_events, row_threshold_events, singleton_events
from .floating import mantissa_events, reachability_events
from .learned import count_events_apply, learned_count_events, learned_events, learned_tree_events
from .products import product_events
from .real import real_threshold_events, real_value_events, support_edge_events
from .released_keys import key_count_events, key_presence_events, key_value_events
from .thresholds import shared_sorts

__all__ = [
    "EventFamily",
    "FamilyMemory",
    "BUILTIN_FAMILIES",
    "ENTRY_POINT_GROUP",
    "ROLES",
    "KINDS",
    "register_event_family",
    "unregister_event_family",
    "event_family",
    "family_records",
    "registered_families",
    "family_role",
    "families_of_role",
    "screening_families",
    "extreme_families",
    "grows_selection",
    "default_families",
    "event_families",
    "candidate_events",
    "unfit_reason",
    "outputs_kind",
]

#: What a family's events look at: the output values, or an artefact of their representation.
ROLES = ("value", "implementation")
#: The outputs a family applies to. Released keys (mappings from key to value, :mod:`.released_keys`) are
#: encoded as real rows but are a kind of their own: the real families' projections do not name keys.
KINDS = ("discrete", "real", "released-keys", "any")
#: The entry-point group through which installed packages register event families.
ENTRY_POINT_GROUP = "dpverify.event_families"
#: Arrays of ``n_selection`` float64 values per input that a family holds at once (projections,
#: sorted copies): the bound the memory model applies to every built-in family, and the default.
FAMILY_ARRAYS = 8


@dataclass(frozen=True)
class FamilyMemory:
    """What an event family holds while it builds its candidates.

    Attributes
    ----------
    arrays : int
        Arrays of ``n_selection`` float64 values per input held at once (they grow with the
        selection sample).
    fixed_bytes : int
        Bytes held whatever the sample size (a fitted model's matrices).
    """

    arrays: int = FAMILY_ARRAYS
    fixed_bytes: int = 0

    def __post_init__(self):
        check_positive_int(self.arrays, "FamilyMemory.arrays", minimum=0)
        check_positive_int(self.fixed_bytes, "FamilyMemory.fixed_bytes", minimum=0)


@dataclass(frozen=True)
class EventFamily:
    """An event family and everything the auditor asks about it (see the module docstring).

    Attributes
    ----------
    name : str
        Its name in results and in ``event_families=`` (``Event.family`` of its events may be
        finer, e.g. ``"interval"`` from the ``"threshold"`` family).
    kind : {"discrete", "real", "released-keys", "any"}
        The outputs it applies to.
    build : callable
        ``build(sel_x, sel_x_prime, outputs) -> Candidates`` (with ``inputs=`` when
        ``uses_inputs``); a family with nothing to propose returns ``Candidates.empty(reason)``.
    role : {"value", "implementation"}
        What its events look at (module docstring).
    uses_inputs : bool
        Whether ``build`` is passed ``inputs=(x, x_prime)`` (None when the caller does not
        know them); events may depend on the inputs because they are fixed before any sample
        is drawn.
    uses_mechanism : bool
        Whether ``build`` is passed ``mechanism=``, the audited mechanism (None when the caller
        has none), whose declarations (:class:`dpverify.protocols.DeclaresScore`) are fixed
        before any sample is drawn too.
    screening : bool
        Whether it ranks candidate pairs in a search's screening rounds.
    memory : FamilyMemory
        What it holds while it builds.
    opt_in : bool
        Left out of the default set; used only where ``event_families=`` names it.
    extreme : bool
        Its events are placed at the extremes of the very samples that count them (one input's values
        beyond every value of the other), so that chance tails read as large bounds at the usual
        shrinkage: a search's screening ranks them at the winner's curse over them on vector outputs
        (:func:`dpverify.audits.choosing.rank_pair`). Its events carry the family's name
        (``Event.family``).
    grows_selection : callable or None
        ``grows_selection(samples_x, samples_x_prime) -> bool``: whether the family fits something on
        these outputs that sharpens with the selection rows; where true for a family a search uses, the
        chosen pair's selection is topped up (:func:`dpverify.search_audit`). None: never.
    """

    name: str
    kind: str
    build: Callable = field(repr=False)
    role: str = "value"
    uses_inputs: bool = False
    uses_mechanism: bool = False
    screening: bool = True
    memory: FamilyMemory = field(default_factory=FamilyMemory)
    opt_in: bool = False
    extreme: bool = False
    grows_selection: Callable | None = field(default=None, repr=False)

    def __post_init__(self):
        check_name(self.name, "an event family")
        check_choice(self.kind, "kind", KINDS)
        check_choice(self.role, "role", ROLES)
        check_callable(self.build, f"event family {self.name!r}: build")
        check_bool(self.extreme, f"event family {self.name!r}: extreme")
        check_bool(self.uses_mechanism, f"event family {self.name!r}: uses_mechanism")
        check_optional_callable(self.grows_selection, f"event family {self.name!r}: grows_selection")
        check_instance(self.memory, FamilyMemory, f"event family {self.name!r}: memory must be a FamilyMemory")

    def candidates(self, sel_x, sel_x_prime, outputs, inputs=None, mechanism=None) -> Candidates:
        """The family's candidates on the selection samples (``inputs`` and ``mechanism`` passed when it
        uses them)."""
        extra = {}
        if self.uses_inputs:
            extra["inputs"] = inputs
        if self.uses_mechanism:
            extra["mechanism"] = mechanism
        return self.build(sel_x, sel_x_prime, outputs, **extra)


#: The classifier's three fit matrices and a scoring block, each counted at a fit matrix's size
#: (:data:`dpverify.events.classifier.MAX_FIT_ELEMENTS` float64 elements).
CLASSIFIER_MEMORY = FamilyMemory(fixed_bytes=4 * 8 * MAX_FIT_ELEMENTS)

#: The booster's training features (at most MAX_FIT_ELEMENTS float64 elements), their binned copy, its
#: gradients and one scoring block: within the classifier's bound, so the memory model is unchanged.
LEARNED_MEMORY = FamilyMemory(fixed_bytes=3 * 8 * MAX_FIT_ELEMENTS)

#: The built-in families, in the order in which candidates are built and reported.
BUILTIN_FAMILIES = (
    EventFamily("singleton", "discrete", singleton_events),
    EventFamily("level-set", "discrete", level_set_events),
    EventFamily("numeric-threshold", "discrete", numeric_discrete_events),
    EventFamily("row-threshold", "discrete", row_threshold_events),
    EventFamily("threshold", "real", real_threshold_events),
    EventFamily("real-value", "real", real_value_events),
    EventFamily("mantissa", "real", mantissa_events, role="implementation"),
    EventFamily("reachability", "real", reachability_events, role="implementation", uses_inputs=True),
    EventFamily("classifier", "any", classifier_events, screening=False, memory=CLASSIFIER_MEMORY),
    EventFamily("learned", "real", learned_events, memory=LEARNED_MEMORY, opt_in=True),
    EventFamily("learned-trees", "real", learned_tree_events, memory=LEARNED_MEMORY, screening=False, opt_in=True),
    EventFamily("product", "real", product_events, memory=FamilyMemory(arrays=4), opt_in=True),
    # proposes only on real vector outputs with markers, silently nothing elsewhere (seeded results unchanged)
    EventFamily(
        "learned-counts", "real", learned_count_events, memory=LEARNED_MEMORY, grows_selection=count_events_apply
    ),
    # last: it proposes only where one input's values reach beyond all of the other's, and where it
    # proposes nothing the candidates (and so every seeded result) are those before it was added
    EventFamily("support-edge", "real", support_edge_events, extreme=True),
    # released-key outputs (a mapping key -> value) only: other outputs are not of their kind, so the
    # candidates (and the seeded results) of other audits are those before they were added
    EventFamily("key-presence", "released-keys", key_presence_events),
    EventFamily("key-value", "released-keys", key_value_events),
    EventFamily("key-count", "released-keys", key_count_events),
    # after them: it proposes only where the mechanism declares a score (dpverify.protocols.DeclaresScore), and
    # silently nothing elsewhere, so the seeded results of every other audit are those before it was added
    EventFamily("declared-score", "real", declared_score_events, uses_inputs=True, uses_mechanism=True),
)

_REGISTRY: dict[str, EventFamily] = {}
#: What the entry-point group gave when the registry was built (the plug-ins that did not load).
_LOADED = Loaded(ENTRY_POINT_GROUP)


def _registry() -> dict[str, EventFamily]:
    """The registered families by name, in registration order: the built-ins, then the entry points."""
    if not _REGISTRY:
        global _LOADED
        loaded = _LOADED = load_group(ENTRY_POINT_GROUP, EventFamily)
        for record in (*BUILTIN_FAMILIES, *loaded.records):
            _REGISTRY[record.name] = record
    return _REGISTRY


def _require(name: str) -> None:
    """Raise the :class:`~dpverify.errors.PluginError` of ``name`` if it is a plug-in that did not load."""
    _LOADED.require(name)


def _unknown(name: str) -> InvalidParameterError:
    """The error of a family name that is not registered: its plug-in's error where it did not load."""
    _require(name)
    return InvalidParameterError(
        f"unknown event family {name!r}; registered: {registered_families()}{_LOADED.failed_note()}"
    )


def register_event_family(
    family: EventFamily | str,
    kind: str | None = None,
    build: Callable | None = None,
    *,
    uses_inputs: bool = False,
    uses_mechanism: bool = False,
    role: str = "value",
    screening: bool = True,
    memory: FamilyMemory | None = None,
    opt_in: bool = False,
    extreme: bool = False,
    grows_selection: Callable | None = None,
) -> EventFamily:
    """Register an event family: an :class:`EventFamily` record, or the fields of one.

    ``register_event_family(EventFamily("mine", "real", build))`` and
    ``register_event_family("mine", "real", build)`` are the same. A new name is
    added after the registered families; a registered name is replaced in place
    (its position, and so the order of candidates, is kept).

    Returns
    -------
    EventFamily
        The registered record.
    """
    if isinstance(family, EventFamily):
        check_record_or_fields(True, kind is not None or build is not None, "an EventFamily")
        record = family
    else:
        record = EventFamily(
            family,
            kind,
            build,
            role=role,
            uses_inputs=uses_inputs,
            uses_mechanism=uses_mechanism,
            screening=screening,
            memory=FamilyMemory() if memory is None else memory,
            opt_in=opt_in,
            extreme=extreme,
            grows_selection=grows_selection,
        )
    _registry()[record.name] = record
    return record


def unregister_event_family(name: str) -> None:
    """Remove a family that :func:`register_event_family` or an entry point added (not a built-in)."""
    if name in {record.name for record in BUILTIN_FAMILIES}:
        raise InvalidParameterError(f"{name!r} is a built-in event family; leave it out with event_families=")
    if _registry().pop(name, None) is None:
        raise InvalidParameterError(f"no event family {name!r} is registered; registered: {registered_families()}")


def event_family(name: str) -> EventFamily:
    """The record of the registered family ``name``."""
    record = _registry().get(name)
    if record is None:
        raise _unknown(name)
    return record


def family_records() -> tuple[EventFamily, ...]:
    """The records of all registered families, in registration order."""
    return tuple(_registry().values())


def registered_families() -> list[str]:
    """The names of all registered families, in registration order."""
    return list(_registry())


def family_role(name: str) -> str:
    """The role a registered family declared (``"value"`` or ``"implementation"``)."""
    return _registry()[name].role


def families_of_role(role: str) -> tuple[str, ...]:
    """The registered families of ``role``, in registration order."""
    return tuple(record.name for record in _registry().values() if record.role == role)


def screening_families() -> tuple[str, ...]:
    """The registered families that rank candidate pairs in a search's screening, in registration order."""
    return tuple(record.name for record in _registry().values() if record.screening)


def extreme_families() -> tuple[str, ...]:
    """The registered families that declare their events placed at the samples' own extremes (``extreme``)."""
    return tuple(record.name for record in _registry().values() if record.extreme)


def grows_selection(families, samples_x, samples_x_prime) -> bool:
    """Whether a family of ``families`` (None: :func:`default_families`) declares a fit that sharpens with
    the selection rows on these outputs (``EventFamily.grows_selection``)."""
    records = [event_family(name) for name in (default_families() if families is None else families)]
    return any(r.grows_selection is not None and r.grows_selection(samples_x, samples_x_prime) for r in records)


def default_families() -> tuple[str, ...]:
    """The registered families used when none are named (every one not declared ``opt_in``)."""
    return tuple(record.name for record in _registry().values() if not record.opt_in)


def event_families(kind: str) -> dict[str, Callable]:
    """The builders of the registered families that apply to outputs of ``kind``."""
    return {record.name: record.build for record in _applicable(kind)}


def _applicable(kind: str) -> list[EventFamily]:
    return [record for record in _registry().values() if record.kind in (kind, "any")]


def outputs_kind(outputs) -> str:
    """The kind of outputs the families see: ``outputs.family_kind`` where the code book declares one (released
    keys, encoded as real rows, are their own kind), else ``outputs.kind``."""
    return getattr(outputs, "family_kind", outputs.kind)


def unfit_reason(record: EventFamily, outputs_kind: str) -> str | None:
    """Why the family ``record`` does not run on outputs of ``outputs_kind``; None where it applies."""
    if record.kind in (outputs_kind, "any"):
        return None
    return f"made for {record.kind} outputs, these are {outputs_kind}"


def candidate_events(sel_x, sel_x_prime, outputs, families=None, inputs=None, mechanism=None) -> Candidates:
    """All candidate events of the applicable families, with their selection counts.

    ``inputs`` is the audited pair ``(x, x_prime)`` (or None), handed to the
    families that declare ``uses_inputs``; ``mechanism`` the audited mechanism
    (or None), handed to those that declare ``uses_mechanism``.
    """
    registry = _registry()
    kind = outputs_kind(outputs)
    chosen = {record.name: record for record in _applicable(kind)}
    if families is None:
        chosen = {name: record for name, record in chosen.items() if not record.opt_in}
        families = [record.name for record in registry.values() if not record.opt_in]
    else:
        for name in set(families) - set(registry):
            _require(name)  # a plug-in that did not load: its own error
        check_known(families, registry, "event families")
        chosen = {n: chosen[n] for n in families if n in chosen}
    skipped = {name: unfit_reason(registry[name], kind) for name in families if name not in chosen}
    events, cx, cxp, parts = [], [], [], []
    with shared_sorts():  # families that sort the same projection sort it once
        found_by_family = {
            name: record.candidates(sel_x, sel_x_prime, outputs, inputs=inputs, mechanism=mechanism)
            for name, record in chosen.items()
        }
    for name, record in chosen.items():
        found = found_by_family[name]
        if not found.events:
            if "_" in found.skipped:  # families say why when the reason helps the reader
                skipped[name] = found.skipped["_"]
            continue
        role = record.role
        events.extend(e if e.role == role else replace(e, role=role) for e in found.events)
        cx.append(np.asarray(found.counts_x, dtype=float))
        cxp.append(np.asarray(found.counts_x_prime, dtype=float))
        parts.append(found)
    if not events:
        return Candidates([], np.zeros(0), np.zeros(0), skipped)
    return Candidates(events, np.concatenate(cx), np.concatenate(cxp), skipped, rows=_rows(parts))
