"""The registry of claim kinds: the built-in tuple, then the entry points, then run-time registrations.

The built-in kinds are the explicit tuple :data:`BUILTIN_KINDS`, one record per module of
:mod:`dpverify.claims`. A third party adds a kind with :func:`register_claim_kind` or through
the ``dpverify.claim_kinds`` entry-point group (each entry point names a
:class:`~dpverify.claims.kinds.ClaimKind`), loaded by :func:`dpverify.plugins.load_group`: one
that does not load, or gives a built-in kind's name, is left out with a warning, and naming it
raises its :class:`~dpverify.errors.PluginError`. The registry reads the tuple and the group on
first use; importing a module registers nothing.
"""

from __future__ import annotations

from .. import _validation as check
from ..errors import InvalidClaimError
from ..plugins import Loaded, load_group
from .approximate import APPROXIMATE_DP
from .gaussian import GAUSSIAN_DP
from .kinds import ENTRY_POINT_GROUP, ClaimKind
from .renyi import RENYI
from .tradeoff import TRADEOFF
from .zcdp import ZCDP

__all__ = ["BUILTIN_KINDS", "register_claim_kind", "unregister_claim_kind", "claim_kind", "claim_kinds"]

#: The built-in claim kinds, in the order they are listed.
BUILTIN_KINDS = (APPROXIMATE_DP, ZCDP, RENYI, GAUSSIAN_DP, TRADEOFF)

_KINDS: dict[str, ClaimKind] = {}
#: What the entry-point group gave when the registry was built (the plug-ins that did not load).
_LOADED = Loaded(ENTRY_POINT_GROUP)


def _not_builtin(kind: ClaimKind) -> None:
    """Refuse a plug-in that gives a built-in kind's name (it would change what that claim means)."""
    check.check_not_in(kind.name, {k.name for k in BUILTIN_KINDS}, f"{kind.name!r} is a built-in claim kind")


def _registry() -> dict[str, ClaimKind]:
    """The registered kinds by name: the built-ins, then the entry points (by entry-point name)."""
    global _LOADED
    if not _KINDS:
        _LOADED = load_group(ENTRY_POINT_GROUP, ClaimKind, check=_not_builtin)
        for kind in (*BUILTIN_KINDS, *_LOADED.records):
            _KINDS[kind.name] = kind
    return _KINDS


def register_claim_kind(kind: ClaimKind) -> ClaimKind:
    """Register ``kind`` under its name (a registered name cannot be replaced); returns it."""
    check.check_instance(
        kind, ClaimKind, f"register_claim_kind takes a dpverify.claims.ClaimKind, got {kind!r}", InvalidClaimError
    )
    existing = _registry().get(kind.name)
    check.check_not_both(
        existing is not None,
        existing is not kind,
        f"a claim kind named {kind.name!r} is already registered",
        InvalidClaimError,
    )
    _KINDS[kind.name] = kind
    return kind


def unregister_claim_kind(name: str) -> None:
    """Remove a kind that :func:`register_claim_kind` or an entry point added (not a built-in)."""
    builtin = {k.name for k in BUILTIN_KINDS}
    check.check_not_in(name, builtin, f"{name!r} is a built-in claim kind and cannot be removed")
    message = f"no claim kind {name!r} is registered; registered: {list(_registry())}"
    check.check_given(_registry().pop(name, None), message)


def claim_kinds() -> tuple[str, ...]:
    """The names of every registered claim kind (the built-ins first)."""
    return tuple(_registry())


def claim_kind(name: str) -> ClaimKind:
    """The registered :class:`ClaimKind` called ``name``.

    Raises
    ------
    InvalidClaimError
        No kind of that name (the message lists the registered ones).
    PluginError
        ``name`` is a claim-kind plug-in that did not load (:mod:`dpverify.plugins`).
    """
    kind = _registry().get(name)
    if kind is None:
        _LOADED.require(name)
    message = f"unknown claim kind {name!r}; registered kinds: {list(_KINDS)}{_LOADED.failed_note()}"
    return check.check_given(kind, message)
