"""Normalizing raw mechanism outputs into arrays the tests can count.

Two kinds of output are supported:

``"discrete"``
    Hashable values (bool, int, str, tuples of ints, frozensets, ...). Each
    distinct value gets an integer code, shared across all groups encoded
    together; ``labels[code]`` is the value and, for numbers, ``numeric[code]``
    its value as a float (so threshold events can use the order).
``"real"``
    Real numbers or real vectors: a float array of shape ``(n, d)``. Tuples
    whose entries are all floats count as real vectors.

Mixing kinds (say ``int`` and ``float``, or ``bool`` and ``int``) is an error:
the auditor would otherwise compare apples with oranges.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .errors import OutputTypeError

__all__ = ["EncodedOutputs", "encode_outputs"]


@dataclass(frozen=True)
class EncodedOutputs:
    """Outputs of several groups (e.g. samples of M(x) and of M(x')) on one code book.

    Attributes
    ----------
    kind : {"discrete", "real"}
    groups : list of numpy.ndarray
        Discrete: int64 codes of shape (n_i,). Real: float64 of shape (n_i, d).
    labels : list or None
        Discrete: the output value of each code.
    numeric : numpy.ndarray or None
        Discrete outputs that are numbers: the float value of each code.
    """

    kind: str
    groups: list
    labels: list | None = None
    numeric: np.ndarray | None = None

    @property
    def dimension(self) -> int:
        return 1 if self.kind == "discrete" else int(self.groups[0].shape[1])


def _type_kind(t: type) -> str:
    if issubclass(t, (bool, np.bool_)):
        return "bool"
    if issubclass(t, numbers.Integral):
        return "int"
    if issubclass(t, numbers.Real):
        return "float"
    if issubclass(t, np.ndarray):
        return "array"
    if issubclass(t, (list, dict, set, bytearray)):
        raise OutputTypeError(
            f"outputs of type {t.__name__} are unhashable; return a hashable value "
            "(tuple, frozenset, str, int) or a real number / 1-D float array"
        )
    if t.__hash__ is None:
        raise OutputTypeError(
            f"outputs of type {t.__name__} are unhashable; return a hashable value "
            "(tuple, frozenset, str, int) or a real number / 1-D float array"
        )
    return "hashable:" + t.__qualname__


def _array_kind(a: np.ndarray) -> str:
    if a.dtype.kind == "b":
        return "bool"
    if a.dtype.kind in "iu":
        return "int"
    if a.dtype.kind == "f":
        return "float"
    if a.dtype.kind in "OUS":
        return "object"
    raise OutputTypeError(f"arrays of dtype {a.dtype} are not supported outputs")


def _group_kind(raw) -> str:
    if isinstance(raw, np.ndarray):
        kind = _array_kind(raw)
        if kind != "object":
            return kind + ("-rows" if raw.ndim == 2 else "")
        raw = list(raw)
    if len(raw) == 0:
        return "empty"
    kinds = {_type_kind(t) for t in set(map(type, raw))}
    if len(kinds) > 1:
        raise OutputTypeError(
            f"the mechanism returned outputs of mixed types ({', '.join(sorted(kinds))}); "
            "return one type throughout (e.g. always float, or always int)"
        )
    (kind,) = kinds
    if kind == "array":
        return "array-list"
    if kind == "hashable:tuple":
        return "tuple-list"
    return kind + "-list"


def _base_kind(group_kind: str) -> str:
    """Map a group's storage kind to the kind of value it holds."""
    for prefix in ("bool", "int", "float"):
        if group_kind.startswith(prefix):
            return prefix + ("-rows" if group_kind.endswith("-rows") else "")
    return group_kind


def encode_outputs(*raw_groups) -> EncodedOutputs:
    """Encode several groups of raw outputs on one code book.

    Parameters
    ----------
    *raw_groups : list or numpy.ndarray
        Each a list of outputs, or an array whose first axis indexes outputs.

    Raises
    ------
    OutputTypeError
        For unhashable outputs, mixed types across or within groups, NaN values.
    """
    kinds = [_group_kind(g) for g in raw_groups]
    base = {_base_kind(k) for k in kinds if k != "empty"}
    if len(base) > 1:
        raise OutputTypeError(
            f"the mechanism returned outputs of different types on different inputs "
            f"({', '.join(sorted(base))}); return one type throughout"
        )
    kind = base.pop() if base else "int"

    if kind in ("float", "array-list", "tuple-list"):
        arrays = [_as_real(g) for g in raw_groups]
        if arrays[0] is not None and all(a is not None for a in arrays):
            dims = {a.shape[1] for a in arrays if a.shape[0]}
            if len(dims) > 1:
                raise OutputTypeError(f"real vector outputs have different lengths {sorted(dims)}")
            for a in arrays:
                if np.isnan(a).any():
                    raise OutputTypeError("the mechanism returned NaN; outputs must not be NaN")
            return EncodedOutputs("real", arrays)
    if kind in ("float-rows",):
        arrays = [np.asarray(g, dtype=float) for g in raw_groups]
        for a in arrays:
            if np.isnan(a).any():
                raise OutputTypeError("the mechanism returned NaN; outputs must not be NaN")
        return EncodedOutputs("real", arrays)
    if kind in ("int", "bool", "int-rows", "bool-rows"):
        arrays = [np.asarray(g) for g in raw_groups]
        return _encode_integer_arrays(arrays, rows=kind.endswith("-rows"), boolean=kind.startswith("bool"))
    return _encode_hashables(raw_groups)


def _as_real(raw):
    """A float (n, d) array, or None when tuples are not all-real vectors."""
    if isinstance(raw, np.ndarray) and raw.dtype.kind == "f":
        return raw.reshape(len(raw), -1).astype(float, copy=False)
    if len(raw) == 0:
        return np.empty((0, 1))
    first = raw[0]
    if isinstance(first, tuple):
        try:
            arr = np.asarray(raw)
        except ValueError:
            return None
        if arr.dtype.kind != "f" or arr.ndim != 2:
            return None
        return arr.astype(float, copy=False)
    if isinstance(first, np.ndarray):
        try:
            arr = np.stack(raw)
        except ValueError as exc:
            raise OutputTypeError("array outputs have different shapes") from exc
        if arr.dtype.kind == "f":
            return arr.reshape(len(arr), -1).astype(float, copy=False)
        return None
    return np.asarray(raw, dtype=float).reshape(-1, 1)


def _encode_integer_arrays(arrays, *, rows: bool, boolean: bool) -> EncodedOutputs:
    sizes = [len(a) for a in arrays]
    if rows:
        widths = {a.shape[1] for a in arrays if a.size}
        if len(widths) > 1:
            raise OutputTypeError(f"vector outputs have different lengths {sorted(widths)}")
        stacked = np.ascontiguousarray(
            np.concatenate([a.reshape(len(a), -1) for a in arrays], axis=0).astype(np.int64)
        )
        _, first, inverse = np.unique(_row_keys(stacked), return_index=True, return_inverse=True)
        labels = _RowLabels(stacked[first])
        numeric = None
    else:
        stacked = np.concatenate([a.reshape(-1) for a in arrays])
        uniques, inverse = np.unique(stacked, return_inverse=True)
        labels = [bool(v) for v in uniques] if boolean else [int(v) for v in uniques]
        numeric = uniques.astype(float)
    inverse = inverse.reshape(-1).astype(np.int64)
    groups = np.split(inverse, np.cumsum(sizes)[:-1])
    return EncodedOutputs("discrete", groups, labels, numeric)


class _RowLabels(Sequence):
    """Labels of integer-row outputs as tuples, built on access (there may be millions)."""

    def __init__(self, rows: np.ndarray):
        self._rows = rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return tuple(int(v) for v in self._rows[index])


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One sortable key per row of an int64 matrix, equal iff the rows are equal.

    Rows of small integers are packed into a single int64 (mixed radix over
    each column's range); otherwise each row becomes one opaque byte string (a
    void view). Either is far faster than ``np.unique(axis=0)``.
    """
    if rows.shape[1] == 0:
        return np.zeros(len(rows), dtype=np.int64)
    low = rows.min(axis=0)
    span = rows.max(axis=0) - low + 1
    if np.all(span > 0) and float(np.prod(span.astype(float))) < 2.0**62:
        keys = np.zeros(len(rows), dtype=np.int64)
        for column, width in zip((rows - low).T, span):
            keys = keys * int(width) + column
        return keys
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


def _encode_hashables(raw_groups) -> EncodedOutputs:
    table: dict = {}
    groups = []
    for raw in raw_groups:
        items = list(raw) if isinstance(raw, np.ndarray) else raw
        try:
            codes = np.fromiter(
                (table.setdefault(o, len(table)) for o in items), dtype=np.int64, count=len(items)
            )
        except TypeError as exc:
            raise OutputTypeError(
                f"an output is unhashable ({exc}); return hashable values such as tuples or frozensets"
            ) from exc
        groups.append(codes)
    labels = list(table)
    numeric = None
    if labels and all(
        isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in labels
    ):
        numeric = np.asarray(labels, dtype=float)
    return EncodedOutputs("discrete", groups, labels, numeric)
