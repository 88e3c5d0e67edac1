"""The base of every dpverify result: plain data, JSON, a summary and a replay.

Every result class a public function returns derives from :class:`Result`:

- ``to_dict()`` gives plain Python data (dicts, lists, str, int, float, bool, None)
  that :func:`json.dumps` accepts, and ``from_dict`` reads it back;
- ``to_json()``/``from_json()`` save and reload it as text;
- ``summary()`` says in a few lines what it found;
- ``replay(...)`` runs the computation behind it again from the result alone (and
  the mechanism and inputs, which a result does not hold), or raises
  :class:`~dpverify.errors.NotReplayableError` saying why it cannot.

**One JSON convention for non-finite numbers**: they stay floats in ``to_dict()``
and ``to_json()`` writes them as ``Infinity``, ``-Infinity`` and ``NaN``, as
Python's :mod:`json` does (and reads). Strings ``"inf"``, ``"-inf"`` and ``"nan"``
(how suite reports of dpverify 0.1 wrote them) are read back as floats where a float
field expects a number (:func:`read_float`).

Outputs of a mechanism that are not plain data (frozensets, arrays, tuples) become
lists, anything else its ``repr``; ``from_dict`` turns lists back into tuples where a
result holds outputs.
"""

from __future__ import annotations

import dataclasses
import json
import math
import numbers
from collections.abc import Mapping

import numpy as np

from .errors import DPVerifyError, NotReplayableError, ResultFormatError

__all__ = [
    "to_plain",
    "dataclass_to_dict",
    "PlainData",
    "Result",
    "short_repr",
    "read_float",
    "as_tuples",
    "SavedRepr",
    "subclasses",
    "type_contradictions",
    "a_name",
]

#: Non-finite numbers as strings (the suite report's convention before 0.2), read back as floats.
_NON_FINITE = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}
_NON_FINITE |= {"infinity": float("inf"), "-infinity": float("-inf")}


def to_plain(value):
    """``value`` as JSON-serialisable plain data (recursively)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_dict = getattr(value, "to_dict", None)
        if callable(to_dict):
            return to_dict()
        return dataclass_to_dict(value)
    if isinstance(value, Mapping):
        return {k if isinstance(k, str) else repr(k): to_plain(v) for k, v in value.items()}
    if isinstance(value, (frozenset, set)):
        return sorted((to_plain(v) for v in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return repr(value)


def dataclass_to_dict(result, **fields) -> dict:
    """The fields of a dataclass instance as plain data; ``fields`` add or replace entries."""
    data = {f.name: to_plain(getattr(result, f.name)) for f in dataclasses.fields(result)}
    data.update({k: to_plain(v) for k, v in fields.items()})
    return data


class PlainData:
    """Mixin for a result dataclass: :meth:`to_dict` gives its fields as plain data."""

    def to_dict(self) -> dict:
        """The fields as JSON-serialisable plain data (arrays, tuples and sets as lists)."""
        return dataclass_to_dict(self)


def read_float(value):
    """``value``, with a non-finite number written as a string (``"inf"``, ``"-inf"``, ``"nan"``) as a float."""
    if isinstance(value, str) and value.strip().lower() in _NON_FINITE:
        return _NON_FINITE[value.strip().lower()]
    return value


class SavedRepr(str):
    """An output saved as its ``repr`` (it was not plain data): ``repr()`` gives the saved text back, and it
    equals the output it was saved from (any object whose ``repr`` is that text), so that a result reloaded
    from JSON equals the result saved. Its hash is the text's: keep it out of sets that hold the outputs."""

    def __repr__(self) -> str:
        return str(self)

    def __eq__(self, other) -> bool:
        return str(self) == repr(other)

    def __ne__(self, other) -> bool:
        return not self == other

    __hash__ = str.__hash__


def as_tuples(value):
    """Lists (as JSON gives back outputs saved as tuples, sets or arrays) as tuples, recursively."""
    if isinstance(value, list):
        return tuple(as_tuples(v) for v in value)
    return value


#: The annotations :func:`type_contradictions` checks, and the values each admits.
_ANNOTATED_TYPES = {
    "float": (numbers.Real, "a number"),
    "int": (numbers.Integral, "an integer"),
    "bool": ((bool, np.bool_), "true or false"),
    "dict": (Mapping, "a mapping"),
    "str": (str, "a string"),
}


def _admits(annotation: str, value) -> tuple[bool, str]:
    """Whether ``value`` is of the plain type ``annotation`` names (``"float"``, ``"int | None"``...), and its
    name; true for any annotation :data:`_ANNOTATED_TYPES` does not list."""
    base, _, rest = annotation.partition(" | ")
    if base not in _ANNOTATED_TYPES or rest not in ("", "None"):
        return True, ""
    kinds, name = _ANNOTATED_TYPES[base]
    if value is None:
        return rest == "None", name
    numeric_bool = base != "bool" and isinstance(value, (bool, np.bool_))
    return isinstance(value, kinds) and not numeric_bool, name


def type_contradictions(record, prefix: str = "") -> list[str]:
    """The fields of dataclass ``record``, and of the plain-data records its fields hold (an event, a value
    verdict), whose value is not of the type the field is annotated with (a number, an integer, true or
    false; None only where the annotation allows it), in words: what a hand-edited JSON file can put where
    the reader would later compare or format a number."""
    found = []
    for f in dataclasses.fields(record):
        value = getattr(record, f.name)
        if isinstance(value, PlainData) and dataclasses.is_dataclass(value):
            found += type_contradictions(value, f"{prefix}{f.name}.")
            continue
        ok, name = _admits(str(f.type), value)
        if not ok:
            found.append(f"{prefix}{f.name}={short_repr(value)} is not {name}")
    return found


def _float_fields(cls) -> set:
    """The fields of dataclass ``cls`` annotated as (possibly optional) floats."""
    return {f.name for f in dataclasses.fields(cls) if "float" in str(f.type)}


class Result(PlainData):
    """Base of every result type: ``to_dict``/``from_dict``, ``to_json``/``from_json``, ``summary``, ``replay``.

    A subclass is a frozen dataclass. It lists in ``_DERIVED`` the keys ``to_dict()`` adds that are
    not fields (a property such as ``violation``), overrides :meth:`_parse` to rebuild nested
    results and outputs from plain data, and sets ``_NOT_REPLAYABLE`` to the reason when no result of
    its type can be run again. A type that a driver replays takes its ``replay`` from
    :class:`dpverify.audits.drivers.ReplayedByItsDriver` (the driver's record declares the replay).

    **One validation path on reload**: :meth:`from_dict` (and so :meth:`from_json`) refuses data that
    no result of the type holds (unknown or missing fields, a value the constructor or a nested
    reader refuses, such as an unknown claim kind) and a result that contradicts itself
    (:meth:`contradictions`: a NaN where a number is recorded, a verdict that its p-value or its
    bound contradicts), each with a :class:`~dpverify.errors.ResultFormatError` that says what.
    """

    #: Keys of ``to_dict()`` that are computed from the fields, not fields themselves.
    _DERIVED: tuple = ()
    #: Why a result of this type cannot be replayed; None when a driver's record declares its replay.
    _NOT_REPLAYABLE: str | None = None

    def __eq__(self, other):
        """Field by field (those with ``compare``), arrays element by element: what a dataclass's ``==``
        does where a field holds an array (a subclass with such fields sets ``eq=False`` to use it)."""
        if type(other) is not type(self):
            return NotImplemented
        return all(
            _same_value(getattr(self, f.name), getattr(other, f.name)) for f in dataclasses.fields(self) if f.compare
        )

    def __hash__(self):
        return hash((type(self).__name__, self.to_json()))

    @classmethod
    def _parse(cls, data: dict) -> dict:
        """The constructor's keywords from ``to_dict()`` data: checked (:meth:`_check_keys`) here,
        nested values rebuilt by a subclass's override (which calls this first)."""
        return cls._check_keys(data)

    @classmethod
    def _check_keys(cls, data) -> dict:
        if not isinstance(data, dict):
            raise ResultFormatError(
                f"{cls.__name__}.from_dict needs the dict that to_dict() gave, got {type(data).__name__}"
            )
        data = {k: v for k, v in data.items() if k not in cls._DERIVED}
        fields = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - fields)
        if unknown:
            writers = [
                c.__name__ for c in subclasses(Result) if set(data) - set(c._DERIVED) <= {f.name for f in _fields(c)}
            ]
            hint = f"; it reads as {' or '.join(writers)} (use its from_dict)" if writers else ""
            raise ResultFormatError(
                f"{cls.__name__} has no fields {unknown}: this is not the data of {cls.__name__} "
                f"(its fields are {sorted(fields)}){hint}"
            )
        missing = sorted(f.name for f in dataclasses.fields(cls) if f.name not in data and _required(f))
        if missing:
            raise ResultFormatError(f"the data of {a_name(cls.__name__)} lacks the fields {missing}")
        floats = _float_fields(cls)
        return {k: read_float(v) if k in floats else v for k, v in data.items()}

    @classmethod
    def from_dict(cls, data: dict):
        """The result whose ``to_dict()`` gave ``data``, checked (see the class docstring).

        Raises
        ------
        ResultFormatError
            ``data`` is not a dict, has keys this type has no field for, lacks required fields, holds a
            value that cannot be read (an unknown claim kind), or describes a result that contradicts
            itself (:meth:`contradictions`).
        """
        try:
            result = cls(**cls._parse(data))
        except ResultFormatError:
            raise
        except (DPVerifyError, TypeError, ValueError, KeyError, AttributeError) as exc:
            raise ResultFormatError(
                f"the data cannot be read as {a_name(cls.__name__)}: {type(exc).__name__}: {exc}"
            ) from exc
        found = result.contradictions()
        if found:
            raise ResultFormatError(
                f"the data of this {cls.__name__} contradicts itself (edited by hand?): {'; '.join(found)}. A result "
                "is reloaded only as to_json() wrote it"
            )
        return result

    def contradictions(self) -> list:
        """What in this result contradicts the rest, in words: a value not of its field's type (a string
        where a number is recorded, :func:`type_contradictions`), a NaN in a number field, a p-value
        outside [0, 1] or a level outside (0, 1), a ``violation`` other than ``pvalue <= alpha``; a
        subclass adds its own (a bound that contradicts the verdict). Empty for a result as the dpverify
        functions assemble it."""
        found = type_contradictions(self)
        if found:
            return found
        found = [
            f"{f.name} is NaN"
            for f in dataclasses.fields(self)
            if f.name in _float_fields(type(self))
            and isinstance(getattr(self, f.name), float)
            and math.isnan(getattr(self, f.name))
        ]
        pvalue, alpha = getattr(self, "pvalue", None), getattr(self, "alpha", None)
        if not found and pvalue is not None and not 0.0 <= pvalue <= 1.0:
            found.append(f"pvalue={pvalue!r} is not a probability")
        if not found and alpha is not None and not 0.0 < alpha < 1.0:
            found.append(f"alpha={alpha!r} is not a level in (0, 1)")
        names = {f.name for f in dataclasses.fields(self)}
        if found or "violation" not in names or pvalue is None or alpha is None:
            return found
        if self.violation != (pvalue <= alpha):
            found.append(f"violation={self.violation} but pvalue={pvalue!r} and alpha={alpha!r}")
        return found

    def to_json(self) -> str:
        """``to_dict()`` as JSON text (non-finite numbers as ``Infinity``, ``-Infinity``, ``NaN``)."""
        return json.dumps(self.to_dict(), indent=2)

    @classmethod
    def from_json(cls, text: str):
        """The result saved by :meth:`to_json` (see :meth:`from_dict`)."""
        try:
            data = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise ResultFormatError(f"{cls.__name__}.from_json needs the JSON text to_json() wrote: {exc}") from exc
        return cls.from_dict(data)

    def summary(self) -> str:
        """A few readable lines: what was computed and what it found."""
        lines = [f"{type(self).__name__}:"]
        lines += [f"  {f.name}: {short_repr(getattr(self, f.name))}" for f in dataclasses.fields(self) if f.repr]
        return "\n".join(lines)

    def replay(self, *inputs, executor=None, progress: bool = False):
        """Run the computation behind this result again: same seed, sizes and options.

        Parameters
        ----------
        *inputs
            What the result does not hold: the mechanism and its inputs, as the result type's
            replay documents (:func:`dpverify.replay`).
        executor, progress
            Where and how visibly the replay runs; they change no result.

        Returns
        -------
        Result
            Of the same type; equal to this one where the computation is replayable.

        Raises
        ------
        NotReplayableError
            This type of result cannot be replayed, or this result records too little to be.
        """
        why = self._NOT_REPLAYABLE or "no driver's record declares a replay of its type"
        raise NotReplayableError(f"{a_name(type(self).__name__)} cannot be replayed: {why}")


def _same_value(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f" == b.dtype.kind))
    return bool(a == b)


def subclasses(cls) -> list:
    """Every subclass of ``cls``, recursively."""
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *subclasses(sub)]
    return found


def _fields(cls) -> tuple:
    return dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()


def _required(field: dataclasses.Field) -> bool:
    return field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING


def a_name(name: str) -> str:
    """``name`` (a type's name) with its indefinite article: "an AuditResult", "a DeltaCurve"."""
    return f"{'an' if name[:1] in 'AEIOU' else 'a'} {name}"


def short_repr(value, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
