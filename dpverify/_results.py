"""Plain data for result objects: what ``to_dict()`` of every dpverify result returns.

Every result class a public function returns has ``to_dict()`` giving plain
Python data (dicts, lists, str, int, float, bool, None) that :func:`json.dumps`
accepts. Non-finite floats stay floats (``json.dumps`` writes ``Infinity``,
as the results' own ``from_dict`` expect); outputs of a mechanism that are
not plain data (frozensets, arrays, tuples) become lists, anything else its
``repr``.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["to_plain", "dataclass_to_dict", "PlainData", "short_repr"]


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
    if isinstance(value, dict):
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


def short_repr(value, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for messages."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
