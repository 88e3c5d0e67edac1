"""Turning raw mechanism outputs into arrays that events can count.

An audit looks at outputs twice: once to *choose* an event (a bounded
selection sample, held in memory) and once to *certify* it (a stream of fresh
samples, never held whole). :class:`OutputCodec` is built from the selection
samples alone and then frozen; certification encodes every streamed block
with it. Nothing about the certification samples can therefore reach the
choice of the event: not their values, not their order of appearance.

Two kinds of output are supported (and mappings, below):

``"discrete"``
    Hashable values: bool, int, str, tuples, frozensets, ``None`` mixed with
    one of these, and integer (or bool) numpy arrays, one per output. Each
    value seen in the selection samples gets an integer code (``labels[code]``
    is the value; for numbers ``numeric[code]`` is its value as a float).
    **A value never seen in the selection samples is encoded as -1**: it
    belongs to no event built from the code book (singletons, level sets,
    thresholds on discrete values), which is a fixed treatment decided before
    any certification sample is drawn.
``"real"``
    Real numbers or real vectors (a float array of shape ``(n, d)``), ``inf``
    included. Tuples whose entries are all floats count as real vectors.
    Events on real values classify every output, seen or not, by its value.

Mappings from keys to real numbers (released keys: a thresholded count's
``{key: noisy count}``) are encoded as real rows on a key book fitted on the
selection samples alone (:mod:`.released_keys`); the event families see them
as their own kind, ``"released-keys"`` (:attr:`OutputCodec.family_kind`).

Outputs that compare by identity (an object without ``__eq__``, such as a
``networkx.Graph``) are refused with :class:`~dpverify.OutputTypeError`: every
output would look distinct and a leak would pass in silence. Map them to a
hashable or numeric form with ``output_key=`` (see :mod:`dpverify.keys`).
Mixing kinds (``int`` with ``float``, ``bool`` with ``int``) is an error too,
and so is NaN.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import DPVerifyError, MechanismError, OutputTypeError
from . import released_keys

__all__ = ["OutputCodec", "EncodedOutputs", "fit_codec", "encode_outputs", "apply_output_key"]

_UNHASHABLE = (
    "outputs of type {name} are unhashable; return a hashable value (tuple, frozenset, str, int), "
    "a real number, a numpy array or a mapping from keys to numbers, or pass output_key= to map each "
    "output to one"
)
_IDENTITY = (
    "outputs of type {name} compare by identity (the class defines no __eq__), so every output "
    "would look distinct and the audit could not see a leak; pass output_key= to map each output "
    "to a hashable or numeric value (dpverify.keys.weighted_edges for networkx graphs, "
    "dpverify.keys.array_tuple for arrays)"
)


def apply_output_key(raw, output_key):
    """``[output_key(o) for o in raw]`` (``raw`` unchanged when ``output_key`` is None).

    Raises
    ------
    MechanismError
        ``output_key`` raised (the error it raised is chained), as for a mechanism that raises.
    """
    if output_key is None:
        return raw
    try:
        return [output_key(o) for o in raw]
    except DPVerifyError:
        raise
    except Exception as exc:
        raise MechanismError(f"output_key raised {type(exc).__name__} on an output: {exc}") from exc


def _type_kind(t: type) -> str:
    """The kind of one Python output type; raises for unusable types."""
    if issubclass(t, (bool, np.bool_)):
        return "bool"
    if issubclass(t, numbers.Integral):
        return "int"
    if issubclass(t, numbers.Real):
        return "float"
    if issubclass(t, np.ndarray):
        return "array"
    if t is type(None):
        return "none"
    if issubclass(t, Mapping):
        return "mapping"
    if issubclass(t, (list, dict, set, bytearray)) or t.__hash__ is None:
        raise OutputTypeError(_UNHASHABLE.format(name=t.__name__))
    if t.__eq__ is object.__eq__:
        raise OutputTypeError(_IDENTITY.format(name=t.__qualname__))
    return "hashable:" + t.__qualname__


def _array_storage(a: np.ndarray) -> str:
    kind = a.dtype.kind
    if kind in "OUS":
        return "object"
    if kind not in "biuf":
        raise OutputTypeError(f"arrays of dtype {a.dtype} are not supported outputs")
    base = {"b": "bool", "i": "int", "u": "int", "f": "real"}[kind]
    if base == "real":
        return "real"
    return base + ("-rows" if a.ndim >= 2 else "")


def _list_storage(raw) -> str:
    kinds = {_type_kind(t) for t in set(map(type, raw))}
    if not kinds:
        return "empty"
    if kinds == {"array"}:
        return "array-list"
    if len(kinds) == 2 and "none" in kinds and not kinds & {"float", "array", "mapping"}:
        (other,) = kinds - {"none"}
        return "hashable:" + other.removeprefix("hashable:")  # e.g. a count, or None for a dropped partition
    if len(kinds) > 1:
        raise OutputTypeError(
            f"the outputs are of mixed types ({', '.join(sorted(kinds))}); a mechanism returns, and given "
            "samples hold, one type throughout (e.g. always float, or always int; None may be mixed "
            "with one discrete type)"
        )
    (kind,) = kinds
    if kind == "float":
        return "real"
    if kind in ("int", "bool"):
        return kind
    if kind == "hashable:tuple":
        return "tuple-list"
    if kind == "none":
        return "hashable:NoneType"
    if kind == "mapping":
        return released_keys.STORAGE
    return kind


def _storage(raw) -> str:
    """How a group of outputs is stored: ``int``, ``bool``, ``int-rows``, ``real``, ``hashable`` ..."""
    if isinstance(raw, np.ndarray):
        storage = _array_storage(raw)
        if storage != "object":
            return storage
        raw = list(raw)
    if len(raw) == 0:
        return "empty"
    return _list_storage(raw)


def _check_no_nan(a: np.ndarray) -> np.ndarray:
    if np.isnan(a).any():
        raise OutputTypeError(
            "an output is NaN; outputs must not be NaN (inf is allowed); map NaN to a "
            "value with output_key= if it is a legitimate output"
        )
    return a


def _stack_arrays(raw) -> np.ndarray:
    try:
        arr = np.stack([np.asarray(o) for o in raw])
    except ValueError as exc:
        raise OutputTypeError("array outputs have different shapes; return arrays of one shape") from exc
    return arr


def _real_tuples(raw) -> np.ndarray | None:
    """Tuples of floats as an (n, d) float array; None when they are not all-real vectors."""
    try:
        arr = np.asarray(raw)
    except ValueError:
        return None
    if arr.dtype.kind != "f" or arr.ndim != 2:
        return None
    return arr


def _integer_tuples(raw) -> np.ndarray | None:
    """Tuples of ints (or of bools) of one length as a 2-D array; None otherwise."""
    try:
        arr = np.asarray(raw)
    except ValueError:
        return None
    if arr.dtype.kind not in "biu" or arr.ndim != 2:
        return None
    return arr


def normalize(raw):
    """Raw outputs as ``(storage, values)``: an array for numbers, a list for other hashables.

    ``storage`` is ``"real"`` (float (n, d) array), ``"int"``/``"bool"`` (1-D
    array), ``"int-rows"``/``"bool-rows"`` (2-D integer array, in the
    outputs' own integer type: int8 rows stay int8), ``"hashable"`` (list) or
    ``"empty"``.
    """
    storage = _storage(raw)
    if storage == "array-list":
        arr = _stack_arrays(raw)
        storage = _array_storage(arr)
        raw = arr
        if storage == "object":
            raise OutputTypeError("arrays of strings or objects are not supported outputs; use tuples")
    if storage == "tuple-list":
        arr = _real_tuples(raw)
        if arr is not None:
            return "real", _check_no_nan(arr.astype(np.float64, copy=False))
        arr = _integer_tuples(raw)
        if arr is not None:
            return _array_storage(arr), arr.astype(np.int64)
        return "hashable:tuple", list(raw)
    if storage == "real":
        arr = np.asarray(raw, dtype=np.float64)
        return "real", _check_no_nan(arr.reshape(len(arr), -1))
    if storage in ("int", "bool"):
        return storage, np.asarray(raw).reshape(-1)
    if storage in ("int-rows", "bool-rows"):  # kept in their own integer type: keys are made block by block
        arr = np.asarray(raw)
        arr = arr.reshape(len(arr), -1)
        return storage, arr.astype(np.int8) if arr.dtype.kind == "b" else arr
    if storage.startswith("hashable") or storage == released_keys.STORAGE:
        return storage, list(raw)
    return storage, raw


# --------------------------------------------------------------------------
# the frozen code book
# --------------------------------------------------------------------------


class _RowLabels(Sequence):
    """Labels of integer-row outputs as tuples, built on access (there may be millions)."""

    def __init__(self, rows: np.ndarray, boolean: bool = False):
        self._rows = rows
        self._cast = bool if boolean else int

    @property
    def rows(self) -> np.ndarray:
        """The label rows as one int64 array (code i is row i)."""
        return self._rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        return tuple(self._cast(v) for v in self._rows[index])


def _row_keys(rows: np.ndarray) -> np.ndarray:
    """One opaque, sortable byte-string key per row of a C-contiguous int64 matrix."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if rows.shape[1] == 0:
        return np.zeros(len(rows), dtype="V1")
    return rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel()


#: Entries of integer rows keyed at once: the int64 keys of a block take 8 MiB, so the memory of
#: fitting and encoding rows follows the outputs' own size and the code book, not 8 bytes per
#: entry of every output.
ROW_BLOCK_ELEMENTS = 1 << 20


def _row_block(rows: np.ndarray) -> int:
    return max(1, ROW_BLOCK_ELEMENTS // max(1, rows.shape[1]))


def _row_blocks(rows: np.ndarray):
    block = _row_block(rows)
    for start in range(0, len(rows), block):
        yield rows[start : start + block]


def _unique_row_keys(groups) -> np.ndarray:
    """The sorted distinct keys (:func:`_row_keys`) of the rows of some integer matrices, block by block."""
    parts = [np.unique(_row_keys(block)) for g in groups for block in _row_blocks(g)]
    if not parts:
        return _row_keys(np.zeros((0, 0), dtype=np.int64))
    return np.unique(np.concatenate(parts))


def _rows_of_keys(keys: np.ndarray, width: int) -> np.ndarray:
    """The int64 rows that :func:`_row_keys` turned into ``keys``."""
    if width == 0:
        return np.zeros((len(keys), 0), dtype=np.int64)
    return np.ascontiguousarray(keys).view(np.int64).reshape(len(keys), width)


def _lookup_rows(keys: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """:func:`_lookup_sorted` of the keys of integer rows, block by block."""
    out = np.empty(len(rows), dtype=np.int64)
    for start, block in zip(range(0, len(rows), _row_block(rows)), _row_blocks(rows)):
        out[start : start + len(block)] = _lookup_sorted(keys, _row_keys(block))
    return out


def _lookup_sorted(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Index of each value in the sorted ``keys`` array, -1 where absent."""
    if keys.size == 0:
        return np.full(len(values), -1, dtype=np.int64)
    if _within_consecutive_keys(keys, values):  # the index is the offset from the first key
        return (values - keys[0]).astype(np.int64, copy=False)
    pos = np.searchsorted(keys, values)
    pos = np.minimum(pos, keys.size - 1)
    return np.where(keys[pos] == values, pos, -1).astype(np.int64, copy=False)


def _within_consecutive_keys(keys: np.ndarray, values: np.ndarray) -> bool:
    """Whether the sorted integer ``keys`` are consecutive and hold every one of ``values`` (same dtype)."""
    if keys.dtype.kind not in "iu" or values.dtype != keys.dtype or values.ndim != 1 or values.size == 0:
        return False
    low, high = keys[0], keys[-1]
    return int(high) - int(low) == keys.size - 1 and values.min() >= low and values.max() <= high


@dataclass(frozen=True, eq=False)
class OutputCodec:
    """The code book of an audit, fitted on its selection samples only (picklable).

    Attributes
    ----------
    kind : {"discrete", "real"}
    storage : str
        ``"real"``, ``"int"``, ``"bool"``, ``"int-rows"``, ``"bool-rows"`` or ``"hashable"``.
    dimension : int
        Length of real vectors (1 for scalars and for discrete outputs).
    labels : sequence or None
        Discrete: the output value of each code.
    numeric : numpy.ndarray or None
        Discrete outputs that are numbers: the float value of each code.
    """

    kind: str
    storage: str
    dimension: int = 1
    labels: Sequence | None = None
    numeric: np.ndarray | None = None
    _keys: np.ndarray | None = None  # sorted values (int/bool) or sorted row keys (rows)
    _table: dict | None = None  # hashable label -> code
    released: tuple | None = None  # released-key outputs: the key book (:mod:`.released_keys`)

    @property
    def family_kind(self) -> str:
        """The outputs' kind as the event families see it: ``"released-keys"`` for mappings, else :attr:`kind`."""
        return released_keys.STORAGE if self.storage == released_keys.STORAGE else self.kind

    @property
    def n_codes(self) -> int:
        return 0 if self.labels is None else len(self.labels)

    def encode(self, raw) -> np.ndarray:
        """Encode raw outputs (a list, or an array whose first axis indexes outputs).

        Discrete: int64 codes, -1 for values absent from the code book. Real:
        a float64 array of shape (n, dimension).

        Raises
        ------
        OutputTypeError
            Outputs of another kind than those the code book was built from
            (e.g. strings where selection saw floats), NaN, unusable types.
        """
        storage, values = normalize(raw)
        if storage == "empty":
            return np.zeros((0, self.dimension)) if self.kind == "real" else np.zeros(0, np.int64)
        if self.storage == "int-real" and storage not in ("int", "bool", "int-rows", "bool-rows"):
            raise OutputTypeError(self._mismatch(storage))
        if (storage == released_keys.STORAGE) != (self.storage == released_keys.STORAGE):
            raise OutputTypeError(self._mismatch(storage))
        if storage == released_keys.STORAGE:
            return released_keys.encode_released(values, self.released)
        if self.kind == "real":
            if storage in ("int", "bool", "int-rows", "bool-rows"):
                storage, values = "real", np.asarray(values, dtype=np.float64).reshape(len(values), -1)
            if storage != "real":
                raise OutputTypeError(self._mismatch(storage))
            if values.shape[1] != self.dimension:
                raise OutputTypeError(
                    f"real vector outputs have different lengths ({values.shape[1]} and {self.dimension})"
                )
            return values
        if storage == "real":
            raise OutputTypeError(self._mismatch(storage))
        allowed = self._types
        if allowed is not None and _value_type(storage) not in allowed:
            raise OutputTypeError(self._mismatch(_value_type(storage)))
        if storage == self.storage and storage in ("int", "bool"):
            return _lookup_sorted(self._keys, values.astype(self._keys.dtype, copy=False))
        if storage == self.storage and storage.endswith("-rows"):
            if values.shape[1] != self._width:
                return np.full(len(values), -1, dtype=np.int64)
            return _lookup_rows(self._keys, values)
        if self._table is None and {storage, self.storage} <= {"int", "bool", "int-rows", "bool-rows"}:
            raise OutputTypeError(self._mismatch(storage))
        return self._encode_items(values)

    @property
    def array_ready(self) -> bool:
        """Whether :meth:`encode_array` can encode on another array library's device."""
        return (self.kind == "real" and self.storage != released_keys.STORAGE) or self.storage in ("int", "bool")

    def encode_array(self, raw, xp):
        """:meth:`encode` for an array of the library ``xp``, computed there (see :mod:`dpverify.support.arrays`)."""
        from ..support import arrays

        n = raw.shape[0]
        if self.kind == "real":
            if self.storage == "int-real" and not arrays.is_integral(raw, xp):
                raise OutputTypeError(self._mismatch("real"))
            values = xp.reshape(arrays.astype(raw, xp.float64, xp), (n, -1))
            if values.shape[1] != self.dimension:
                raise OutputTypeError(
                    f"real vector outputs have different lengths ({values.shape[1]} and {self.dimension})"
                )
            if bool(xp.any(xp.isnan(values))):
                _check_no_nan(np.array([np.nan]))
            return values
        if not arrays.is_integral(raw, xp):
            raise OutputTypeError(self._mismatch("real"))
        values = xp.reshape(arrays.astype(raw, xp.int64, xp), (n,))
        keys = arrays.asarray_like(self._keys.astype(np.int64), raw, xp)
        if keys.shape[0] == 0:
            return xp.full((n,), -1, dtype=xp.int64)
        pos = xp.minimum(xp.searchsorted(keys, values), keys.shape[0] - 1)
        return xp.where(xp.take(keys, pos) == values, pos, -1)

    @property
    def _width(self) -> int:
        return len(self.labels[0]) if self.labels is not None and len(self.labels) else 0

    def _encode_items(self, values) -> np.ndarray:
        if isinstance(values, np.ndarray):  # numbers or rows met by a hashable code book
            values = [tuple(v.tolist()) for v in values] if values.ndim == 2 else values.tolist()
        table = self._table
        if table is None:  # a numeric code book met by other values (e.g. None): those are unseen
            table = self._numeric_table()
        try:
            return np.fromiter((table.get(v, -1) for v in values), dtype=np.int64, count=len(values))
        except TypeError as exc:
            raise OutputTypeError(f"an output is unhashable ({exc}); {_UNHASHABLE.format(name='it')}") from exc

    @property
    def _types(self) -> set | None:
        """Value types a discrete code book accepts in certification; None: any hashable type.

        Another type than the selection showed is a type drift and raises (strings after
        ints); ``None`` is always accepted, and a code book of ``None`` alone accepts any
        hashable value (a mechanism that rarely releases a value may show none in selection).
        Accepted values the code book lacks are coded -1.
        """
        if "_type_set" not in self.__dict__:
            if self.storage in ("int", "bool", "int-rows", "bool-rows"):
                kinds = {self.storage.removesuffix("-rows")}
                cached = kinds | {"NoneType", "int-rows", "bool-rows"}
            else:
                cached = {_value_type(_list_storage([label])) for label in self.labels}
                if cached <= {"NoneType"}:
                    cached = None
                else:
                    cached |= {"NoneType", "int-rows", "bool-rows"}
                    if "tuple-list" in cached:
                        cached |= {"tuple"}
            object.__setattr__(self, "_type_set", cached)
        return self.__dict__["_type_set"]

    def _numeric_table(self) -> dict:
        """A label -> code dict for int/bool/row code books (built when other values turn up)."""
        cached = self.__dict__.get("_items_table")
        if cached is None:
            cached = {label: code for code, label in enumerate(self.labels)}
            object.__setattr__(self, "_items_table", cached)
        return cached

    def _mismatch(self, storage: str) -> str:
        return f"{storage} outputs came after {self.storage} outputs; return (or give) one type throughout"


#: Integer outputs with more distinct values than this in selection are audited by value
#: (kind "real"): a code book would leave most certification outputs unseen.
MAX_INTEGER_CODES = 1024


def _distinct_integers(storage: str, groups) -> int:
    stacked = [np.asarray(g) for g in groups if len(g)]
    if not stacked:
        return 0
    if storage.endswith("-rows"):
        return len(_unique_row_keys(stacked))
    return len(np.unique(np.concatenate([g.reshape(-1) for g in stacked])))


#: Integer outputs in ``[0, KEY_COUNT_SPAN)`` find their distinct values by counting, not hashing.
KEY_COUNT_SPAN = 1 << 16


def _integer_keys(groups) -> np.ndarray:
    """The distinct values of int or bool groups, sorted (``np.unique`` of their concatenation).

    Small non-negative integers (a code, a count, a category) are found by ``bincount``:
    about 2 ns an output against 10 for ``unique``'s hash table, and no concatenated copy.
    """
    flat = [np.asarray(g).reshape(-1) for g in groups]
    dtype = np.result_type(*flat)
    present = [f for f in flat if f.size]
    if dtype.kind != "i" or not present or min(int(f.min()) for f in present) < 0:
        return np.unique(np.concatenate(flat))
    high = max(int(f.max()) for f in present)
    if high >= KEY_COUNT_SPAN:
        return np.unique(np.concatenate(flat))
    seen = np.zeros(high + 1, dtype=bool)
    for f in present:
        seen |= np.bincount(f, minlength=high + 1) > 0
    return np.flatnonzero(seen).astype(dtype)


def _fit_discrete(storage: str, groups, keys=None) -> OutputCodec:
    if storage in ("int", "bool"):
        keys = _integer_keys(groups) if keys is None else keys
        cast = bool if storage == "bool" else int
        labels = [cast(v) for v in keys]
        return OutputCodec("discrete", storage, 1, labels, keys.astype(float), keys, None)
    if storage in ("int-rows", "bool-rows"):
        widths = {g.shape[1] for g in groups if len(g)}
        if len(widths) > 1:
            raise OutputTypeError(f"vector outputs have different lengths {sorted(widths)}")
        width = widths.pop() if widths else 0
        keys = _unique_row_keys([g for g in groups if len(g)])
        labels = _RowLabels(_rows_of_keys(keys, width), boolean=storage == "bool-rows")
        table = None
        return OutputCodec("discrete", storage, 1, labels, None, keys, table)
    table: dict = {}
    for g in groups:
        items = [tuple(v.tolist()) for v in g] if isinstance(g, np.ndarray) and g.ndim == 2 else g
        if isinstance(items, np.ndarray):
            items = items.tolist()
        try:
            for o in items:
                table.setdefault(o, len(table))
        except TypeError as exc:
            raise OutputTypeError(f"an output is unhashable ({exc}); {_UNHASHABLE.format(name='it')}") from exc
    labels = list(table)
    numeric = None
    if labels and all(isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in labels):
        numeric = np.asarray(labels, dtype=float)
    return OutputCodec("discrete", "hashable", 1, labels, numeric, None, table)


def _value_type(storage: str) -> str:
    """The type of value a storage holds (``None`` mixed in does not count)."""
    return storage.removeprefix("hashable:")


def _common_storage(storages) -> str:
    """One storage for all groups; raises when the groups hold different types of value."""
    present = {s for s in storages if s != "empty"}
    if not present:
        return "int"
    types = {_value_type(s) for s in present} - {"NoneType"}
    if len(types) > 1:
        raise OutputTypeError(
            f"the outputs of the two inputs are of different types ({', '.join(sorted(types))}); a mechanism "
            "returns, and given samples hold, one type throughout (samples of one dtype in both files)"
        )
    if len(present) == 1:
        storage = present.pop()
        return "hashable" if storage.startswith("hashable") else storage
    return "hashable"  # None on one input, or on one of them only


def _check_coordinates(width: int) -> None:
    """Refuse vector outputs of no coordinates (empty arrays or tuples): every event family reads coordinates."""
    if width == 0:
        raise OutputTypeError(
            "the outputs have no coordinates (empty arrays or empty tuples), so no event can tell M(x) from "
            "M(x'); return at least one number per output, or map the outputs to a hashable value with output_key="
        )


def fit_codec(*raw_groups) -> tuple[OutputCodec, list]:
    """Build the code book from some groups of raw outputs and encode them with it.

    Parameters
    ----------
    *raw_groups : list or numpy.ndarray
        Each a list of outputs, or an array whose first axis indexes outputs
        (in an audit: the selection samples of M(x) and of M(x')).

    Returns
    -------
    codec : OutputCodec
    encoded : list of numpy.ndarray
        Each group encoded with ``codec`` (no code is -1 here).

    Raises
    ------
    OutputTypeError
        Unhashable or identity-compared outputs, mixed types across or within
        groups, NaN values, vector outputs of no coordinates.
    """
    normalized = [normalize(g) for g in raw_groups]
    storage = _common_storage([s for s, _ in normalized])
    if storage == "real":
        arrays = [v if s != "empty" else None for s, v in normalized]
        dims = {a.shape[1] for a in arrays if a is not None and len(a)}
        if len(dims) > 1:
            raise OutputTypeError(f"real vector outputs have different lengths {sorted(dims)}")
        d = dims.pop() if dims else 1
        _check_coordinates(d)
        codec = OutputCodec("real", "real", d)
        return codec, [a if a is not None else np.zeros((0, d)) for a in arrays]
    values = [v for s, v in normalized if s != "empty"]
    if storage == released_keys.STORAGE:
        keys = released_keys.fit_key_book(values)
        codec = OutputCodec("real", storage, 2 * len(keys) + 1, released=keys)
        return codec, [codec.encode(v) if s != "empty" else np.zeros((0, codec.dimension)) for s, v in normalized]
    if storage.endswith("-rows"):
        widths = sorted({v.shape[1] for v in values if len(v)})
        if len(widths) > 1:
            raise OutputTypeError(f"integer vector outputs have different lengths {widths}")
        _check_coordinates(widths[0] if widths else next(v.shape[1] for v in values))
    keys = _integer_keys(values) if storage == "int" and values else None  # sorted once: count and codes
    distinct = len(keys) if keys is not None else _distinct_integers(storage, values) if storage == "int-rows" else 0
    if distinct > MAX_INTEGER_CODES:
        arrays = [np.asarray(v, dtype=np.float64).reshape(len(v), -1) if s != "empty" else None for s, v in normalized]
        d = next(a.shape[1] for a in arrays if a is not None)
        codec = OutputCodec("real", "int-real", d)
        return codec, [a if a is not None else np.zeros((0, d)) for a in arrays]
    if storage.startswith("hashable"):
        values = [_as_items(s, v) for s, v in normalized if s != "empty"]
    codec = _fit_discrete(storage, values, keys)
    return codec, [codec.encode(v) if s != "empty" else np.zeros(0, np.int64) for s, v in normalized]


def _as_items(storage: str, values):
    if isinstance(values, np.ndarray):
        return [tuple(v.tolist()) for v in values] if values.ndim == 2 else values.tolist()
    return values


@dataclass(frozen=True)
class EncodedOutputs:
    """Several groups of outputs encoded on one code book (for tests that count every sample).

    Distribution-equality tests have no selection step, so they build the code
    book from all their samples; audits never do (:func:`fit_codec`).

    Attributes
    ----------
    kind : {"discrete", "real"}
    groups : list of numpy.ndarray
    labels, numeric
        As in :class:`OutputCodec`.
    codec : OutputCodec
    """

    kind: str
    groups: list
    labels: Sequence | None = None
    numeric: np.ndarray | None = None
    codec: OutputCodec | None = None

    @property
    def dimension(self) -> int:
        return 1 if self.kind == "discrete" else int(self.groups[0].shape[1])


def encode_outputs(*raw_groups) -> EncodedOutputs:
    """Encode several groups of raw outputs on one code book built from all of them.

    See :func:`fit_codec` for what is accepted and raised.
    """
    codec, groups = fit_codec(*raw_groups)
    return EncodedOutputs(codec.kind, groups, codec.labels, codec.numeric, codec)
