"""What a replay checks before it runs: fingerprints of a result's mechanism and inputs.

A result records a :class:`Fingerprint` of what it was computed on; a replay computes the
fingerprint of what it is handed and refuses (:class:`~dpverify.errors.ReplayMismatchError`) a
mechanism or inputs whose fingerprint differs (:func:`check_replay_source`), naming which differs.
Every result type that replays goes through this one check (a search audit also checks its
candidate pairs, :func:`dpverify.audits.search.check_replay_candidates`).

What a fingerprint can detect, and what it cannot:

- ``inputs``: a SHA-256 digest (16 hex digits) of the inputs' canonical JSON form (numbers,
  strings, sequences, sets, dicts, numpy arrays, nested). Inputs of another value are detected
  (up to a digest collision); a list and a tuple of the same items, or an int and the equal
  float, have the same digest. Inputs that are not such plain data (a networkx graph, an object
  known only by its ``repr``) get no digest (None): the replay cannot check them, and says so.
- ``mechanism``: where the mechanism is replayable (:func:`dpverify.protocols.check_replayable`),
  ``"outputs:"`` and a digest of the first outputs that check draws on ``x`` from a stream of the
  seed of its own (no audit stream moves). Another mechanism, or the same one with other
  parameters, is detected when it gives other outputs there; one that agrees on those outputs
  (differs only on ``x'``, or on rare outputs) is not. A seed edited in the saved result is
  detected the same way (the outputs under it differ). Where the outputs cannot be fingerprinted
  (the mechanism is not replayable, or its outputs are compared by identity and no
  ``output_key`` was given), ``"type:"`` and the mechanism's qualified type name: another instance
  of the same class with other parameters, or another ``lambda``, is not detected.

A result saved before fingerprints were recorded replays without the check, and says so.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import numbers
import warnings
from dataclasses import dataclass, fields, replace

import numpy as np

from .._results import PlainData
from ..errors import ReplayMismatchError, ReplayNotCheckedWarning
from ..protocols import check_replayable, contract_seed

__all__ = ["Fingerprint", "fingerprint_of", "check_replay_source", "with_notes", "digest"]


class _NotPlain(Exception):
    """A value with no canonical plain form."""


def _canonical(value):
    """``value`` as canonical JSON-able data, or :class:`_NotPlain`."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):  # an integral float reads as the equal int
        value = float(value)
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return _canonical(value.tolist())
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return {"set": sorted(json.dumps(_canonical(v), sort_keys=True) for v in value)}
    if isinstance(value, dict):
        items = sorted((json.dumps(_canonical(k)), _canonical(v)) for k, v in value.items())
        return {"dict": [[k, v] for k, v in items]}
    raise _NotPlain


def digest(value) -> str | None:
    """The SHA-256 digest (16 hex digits) of ``value``'s canonical plain form; None where it has none."""
    try:
        text = json.dumps(_canonical(value), sort_keys=True)
    except (_NotPlain, TypeError, ValueError, RecursionError):
        return None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Fingerprint(PlainData):
    """What a result was computed on, as a replay can check it (see the module docstring).

    Attributes
    ----------
    inputs : str or None
        Digest of the inputs (the pair, or the two pmfs); None: they are not plain data.
    mechanism : str or None
        ``"outputs:<digest>"`` or ``"type:<module.qualname>"``; None for a result of pmfs (no mechanism).
    """

    inputs: str | None
    mechanism: str | None = None

    @classmethod
    def read(cls, data: dict) -> dict:
        """``data`` (a result's ``to_dict()``) with its saved ``fingerprint``, if any, rebuilt."""
        if data.get("fingerprint") is not None:
            data["fingerprint"] = cls(**data["fingerprint"])
        return data


def _type_name(mechanism) -> str:
    plain = inspect.isfunction(mechanism) or inspect.ismethod(mechanism) or isinstance(mechanism, type)
    target = mechanism if plain else type(mechanism)
    return f"type:{getattr(target, '__module__', '?')}.{getattr(target, '__qualname__', type(target).__name__)}"


def fingerprint_of(mechanism, inputs: tuple, replayability=None) -> Fingerprint:
    """The fingerprint of ``mechanism`` on ``inputs``.

    Parameters
    ----------
    mechanism : callable or None
        The mechanism (None for a result of pmfs).
    inputs : tuple
        What the mechanism ran on (``(x, x_prime)``), or the pmfs.
    replayability : Replayability, optional
        What :func:`dpverify.protocols.check_replayable` found on ``x``: its ``first_outputs``
        fingerprint the mechanism where it has them.
    """
    if mechanism is None:
        return Fingerprint(digest(inputs))
    outputs = None if replayability is None else replayability.first_outputs
    drawn = None if outputs is None else digest(outputs)
    return Fingerprint(digest(inputs), f"outputs:{drawn}" if drawn else _type_name(mechanism))


_WHAT = {
    "inputs": "the inputs given are not those it was computed on",
    "mechanism": "the mechanism given is not the one it was computed on, or the recorded seed is not the seed it "
    "ran with ('outputs:' digests the mechanism's first outputs under the recorded seed, 'type:' names its type)",
}


def check_replay_source(result, given: Fingerprint, where: str = ""):
    """Refuse a replay of ``result`` on another mechanism or other inputs; say what it could not check.

    Parameters
    ----------
    result : Result
        The result replayed; its ``fingerprint`` (None: saved before fingerprints were recorded).
    given : Fingerprint
        The fingerprint of what the replay was handed (:func:`fingerprint_of`).
    where : str
        Which part of the result, for the message (``"pair 2"``).

    Returns
    -------
    tuple of str
        Notes for the replayed result: what could not be checked (empty when everything was).

    Raises
    ------
    ReplayMismatchError
        A recorded part of the fingerprint differs from the one given.
    """
    recorded = getattr(result, "fingerprint", None)
    name = type(result).__name__ + (f" ({where})" if where else "")
    if recorded is None:
        return (
            f"this {name} records no fingerprint (saved by an older dpverify): the replay could not check "
            "that it ran on the same mechanism and inputs",
        )
    notes = []
    for part in (f.name for f in fields(Fingerprint)):
        was, now = getattr(recorded, part), getattr(given, part)
        if was is not None and now is not None and was != now:
            raise ReplayMismatchError(
                f"cannot replay this {name}: {_WHAT[part]} (fingerprint {now}, recorded "
                f"{was}); a replay runs the same computation on the same mechanism and inputs (what a fingerprint "
                "detects: dpverify.audits.fingerprint). Pass those, or run the driver anew for a new audit"
            )
        if was != now:
            notes.append(
                f"the replay could not check the {part} of this {name}: no fingerprint of them was recorded or "
                "could be made (not plain data)"
            )
    return tuple(notes)


def with_notes(result, notes: tuple):
    """``result`` with ``notes`` added (to its ``notes``, or as a :class:`ReplayNotCheckedWarning`
    where its type has no notes)."""
    if not notes:
        return result
    if "notes" in {f.name for f in fields(result)}:
        return replace(result, notes=tuple(result.notes) + tuple(notes))
    for note in notes:
        warnings.warn(note, ReplayNotCheckedWarning, stacklevel=3)
    return result


def check_source(result, plan, mechanism, x, x_prime, where: str = "") -> tuple:
    """Refuse ``result``'s replay on another mechanism or other inputs (its fingerprint, drawn on the
    contract stream of the seed its driver drew it on, ``plan``); the notes of what could not be checked."""
    replayability = check_replayable(mechanism, x, contract_seed(plan.sequence), output_key=plan.options.output_key)
    return check_replay_source(result, fingerprint_of(mechanism, (x, x_prime), replayability), where)


def checked_pmfs(result, again):
    """``again``, the replay of a result of pmfs, once its fingerprint matches the recorded one (both are
    computed by the driver from the pmfs it validated)."""
    return with_notes(again, check_replay_source(result, again.fingerprint))
