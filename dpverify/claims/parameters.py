"""A claim kind's own parameters: a frozen mapping of plain values, and a claim written as text.

A built-in kind keeps its parameters in :class:`~dpverify.PrivacyClaim`'s fields (``epsilon``,
``rho``...). A third-party kind may declare others (any identifier in its ``fields`` that is not
such a field, as ``"kappa"``); a claim of that kind holds them in
:attr:`~dpverify.PrivacyClaim.params`, a :class:`KindParameters`, and reads them as attributes
(``claim.kappa``). They are plain data (numbers, strings, booleans, None, and sequences of them),
so that the claim saves to JSON and reloads equal.

:func:`parse_claim_text` reads the text form the command line's ``--claim`` takes,
``KIND:NAME=VALUE[,NAME=VALUE]``, as the plain data ``{"kind": KIND, NAME: VALUE, ...}`` that
:meth:`~dpverify.PrivacyClaim.from_dict` reads: every registered kind, built-in or not, is stated
the way its JSON states it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import numpy as np

from .. import _validation as check
from ..errors import InvalidClaimError

__all__ = ["KindParameters", "parse_claim_text", "CLAIM_TEXT_FORM"]

#: The form of a claim written as text, as messages and ``--help`` state it.
CLAIM_TEXT_FORM = "KIND:NAME=VALUE[,NAME=VALUE...]"


def _plain(name: str, value):
    """``value`` as a claim parameter: a number, string, bool or None, or a tuple of such (recursively)."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(_plain(name, v) for v in value)
    raise InvalidClaimError(
        f"the claim parameter {name!r} must be plain data (a number, a string, a bool, None, or a sequence of them) "
        f"so that the claim saves to JSON and reloads equal; got {value!r}"
    )


class KindParameters(Mapping):
    """A claim kind's own parameters, name to plain value: frozen, hashable, compared by value.

    Built from any mapping (or pairs); lists and arrays become tuples, numpy scalars Python
    numbers. Saved as a JSON object (:func:`dpverify._results.to_plain` reads any mapping).

    Raises
    ------
    InvalidClaimError
        A name that is not an identifier, or a value that is not plain data.
    """

    __slots__ = ("_values",)

    def __init__(self, values=()):
        values = dict(values)
        for name in values:
            check.check_given(
                isinstance(name, str) and name.isidentifier() and not name.startswith("_") or None,
                f"a claim parameter's name must be an identifier not starting with '_', got {name!r}",
            )
        object.__setattr__(self, "_values", {name: _plain(name, value) for name, value in values.items()})

    def __getitem__(self, name):
        return self._values[name]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def __setattr__(self, name, value):
        raise AttributeError("KindParameters is frozen")

    def __hash__(self):
        return hash(tuple(sorted(self._values.items())))

    def __repr__(self) -> str:
        return repr(self._values)

    def __reduce__(self):
        return (KindParameters, (dict(self._values),))


def _split_top_level(text: str) -> list:
    """``text`` split at the commas outside brackets (a JSON list value keeps its commas)."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += (char in "[{(") - (char in "]})")
        if char == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _value(text: str):
    """A parameter's value: the JSON it parses as (a number, a list, true, null), else the text itself."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_claim_text(text: str) -> dict:
    """The claim written ``KIND:NAME=VALUE[,NAME=VALUE]`` as plain data ``{"kind": KIND, NAME: VALUE}``
    (``KIND`` alone for a kind without parameters).

    A VALUE is read as JSON where it parses (``0.5``, ``[2, 4]``, ``true``), else kept as text
    (``my_module:my_curve``, which a trade-off claim imports). Which names a kind takes, and
    what values, its record says when the data become a claim
    (:meth:`dpverify.PrivacyClaim.from_dict`).

    Raises
    ------
    InvalidClaimError
        No kind, a part without ``=``, an empty or repeated name.
    """
    kind, _, rest = str(text).partition(":")
    form = f"a claim is written {CLAIM_TEXT_FORM} (e.g. zcdp:rho=0.5)"
    check.check_given(kind.strip() or None, f"{form}; got {text!r}, which names no kind")
    data = {"kind": kind.strip()}
    for part in _split_top_level(rest) if rest.strip() else []:
        name, equals, value = part.partition("=")
        name = name.strip()
        check.check_given(equals and name or None, f"{form}; got {part!r} in {text!r}, which is not NAME=VALUE")
        check.check_not_in(name, data, f"{form}; {name!r} is given twice in {text!r}")
        data[name] = _value(value.strip())
    return data
