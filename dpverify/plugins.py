"""The one loader of dpverify's entry points, for every extension group, with one error type.

Installed packages extend dpverify through entry-point groups (:data:`GROUPS`): event
families, neighbouring relations and claim kinds name a declared record or a sequence of
them; verifications and reproductions name a callable that returns an iterable of them.
Every registry reads its built-in tuple first and then :func:`load_group`, which loads
the group's entry points in entry-point name order and returns what loaded beside what
did not.

A plug-in that fails to load (it raises on import, names the wrong kind of record, or
its callable raises) is a :class:`~dpverify.errors.PluginError` naming the entry point,
its target and the exception. It is reported once per process as a
:class:`PluginWarning` and left out, so it never takes down what does not use it (the
command line's ``--help``, an audit with the built-in families); a registry asked for
it by name raises that error (:meth:`Loaded.require`), and the command line exits with
its failure code (3), never the code of a finding (1).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import entry_points

from .errors import PluginError

__all__ = ["GROUPS", "Loaded", "PluginWarning", "load_group", "unique_names"]

#: The entry-point groups dpverify reads, and what one plug-in of each is called in messages.
GROUPS = {
    "dpverify.event_families": "event family",
    "dpverify.neighbour_relations": "neighbouring relation",
    "dpverify.claim_kinds": "claim kind",
    "dpverify.verifications": "verification",
    "dpverify.reproductions": "reproduction",
}

#: The plug-ins already reported in this process, by (group, entry-point name, message).
_REPORTED: set = set()


class PluginWarning(UserWarning):
    """A plug-in that does not load: it is left out, and a use of it by name raises its PluginError."""


@dataclass(frozen=True)
class Loaded:
    """What one entry-point group gave.

    Attributes
    ----------
    group : str
    records : tuple
        The records of the plug-ins that loaded, in entry-point name order.
    failures : dict
        Entry-point name to the :class:`~dpverify.errors.PluginError` of each plug-in that
        did not load.
    """

    group: str
    records: tuple = ()
    failures: dict = field(default_factory=dict)

    def require(self, name: str) -> None:
        """Raise the error of the failed plug-in ``name`` (an entry-point name), if it failed."""
        if name in self.failures:
            raise self.failures[name]

    def failed_note(self) -> str:
        """``"; plug-ins that did not load: a, b"``, or ``""``: for the messages of unknown names."""
        return f"; plug-ins that did not load: {', '.join(self.failures)}" if self.failures else ""


def load_group(group: str, record_type: type, *, call: bool = False, check: Callable | None = None) -> Loaded:
    """Load the entry points of ``group``, each naming records of ``record_type``.

    Parameters
    ----------
    group : str
        One of :data:`GROUPS`.
    record_type : type
        The record class each plug-in must give (``EventFamily``, ``NeighbourRelation``, ...).
    call : bool
        The entry point names a callable returning the records (verifications, reproductions)
        instead of the records themselves.
    check : callable, optional
        ``check(record)`` raises for a record the registry refuses (a built-in's name): the
        plug-in is then one that did not load.

    Returns
    -------
    Loaded
        The records that loaded and the errors of those that did not (each also reported once
        as a :class:`PluginWarning`).
    """
    what = GROUPS[group]
    records, failures = [], {}
    for ep in sorted(entry_points(group=group), key=lambda ep: ep.name):
        try:
            found = _records_of(ep, record_type, call)
            for record in found if check is not None else ():
                check(record)
        except Exception as exc:  # any failure of third-party code is reported by name, not raised
            error = _error_of(ep, what, group, exc)
            failures[ep.name] = error
            _report(group, ep.name, error)
            continue
        records.extend(found)
    return Loaded(group, tuple(records), failures)


def _records_of(ep, record_type: type, call: bool) -> list:
    declared = ep.load()
    if call:
        declared = declared()
    found = [declared] if isinstance(declared, record_type) else list(declared)
    wrong = [type(record).__name__ for record in found if not isinstance(record, record_type)]
    if wrong:
        raise TypeError(f"it must give {record_type.__name__} records, got {', '.join(wrong)}")
    return found


def _error_of(ep, what: str, group: str, exc: Exception) -> PluginError:
    error = PluginError(
        f"the {what} plug-in {ep.name!r} ({ep.value}, entry-point group {group}) does not load: "
        f"{type(exc).__name__}: {exc}"
    )
    error.__cause__ = exc
    return error


def _report(group: str, name: str, error: PluginError) -> None:
    key = (group, name, str(error))
    if key not in _REPORTED:
        _REPORTED.add(key)
        warnings.warn(f"{error}; it is left out", PluginWarning, stacklevel=4)


def unique_names(records, name: Callable, group: str) -> dict:
    """The records by ``name(record)``, refusing two of one name (a :class:`PluginError` naming it)."""
    found = {}
    for record in records:
        key = name(record)
        if key in found:
            raise PluginError(f"two {GROUPS[group]} plug-ins give the name {key!r}; names must be unique")
        found[key] = record
    return found
