"""The neighbouring relations, as declared records: what each is, and the one place they are registered.

A neighbouring relation says which pairs of inputs a privacy claim is about.
Each is a :class:`NeighbourRelation` record holding everything the rest of
dpverify asks about it:

- ``build``: its generator, ``build(**parameters) -> neighbours`` (a
  :class:`~dpverify.neighbours.NeighbourGenerator`, or a callable
  ``neighbours(rng) -> (x, x_prime)``) for :func:`dpverify.search_audit`;
- ``flags`` and ``from_flags``: the command-line flags it reads
  (``dpverify audit --search NAME``, :mod:`dpverify.cli.search`) and how they
  build it; a relation without ``from_flags`` is not offered on the command line;
- ``strategy``: its Hypothesis twin, ``"module:function"`` (imported on use, so
  that this layer never imports Hypothesis or :mod:`dpverify.testing`), with
  ``strategy_arguments`` fixed for this relation;
- ``domain``: the input domain it needs, ``domain(x, x_prime) -> parameters``
  (of ``build``) when an example pair lies in it, else None; ``inferred`` says
  whether the relation may be picked from an example pair's shape alone
  (:func:`domain_neighbours`, which :func:`dpverify.mechanisms.domains.zoo_domain` uses).

The built-in relations are :data:`BUILTIN_RELATIONS`, an explicit tuple; third
parties add theirs with :func:`register_relation` or through the entry-point
group :data:`ENTRY_POINT_GROUP` (``dpverify.neighbour_relations``, naming a
record or a sequence of them; :func:`dpverify.plugins.load_group` leaves one that does
not load out with a warning, and naming it raises its :class:`~dpverify.errors.PluginError`).

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018 (the input patterns of StatDP).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .._validation import check_callable, check_choice, check_name
from ..errors import InvalidNeighboursError
from ..plugins import Loaded, load_group
from .datasets import add_remove_one
from .graphs import graph_weights
from .streams import streams
from .vectors import NORMS, query_vectors

__all__ = [
    "NeighbourRelation",
    "RelationFlag",
    "BUILTIN_RELATIONS",
    "SEARCH_FLAGS",
    "ENTRY_POINT_GROUP",
    "register_relation",
    "unregister_relation",
    "relation",
    "registered_relations",
    "relation_names",
    "domain_neighbours",
    "bit_pairs",
]

#: The entry-point group through which installed packages register neighbouring relations.
ENTRY_POINT_GROUP = "dpverify.neighbour_relations"
#: What a flag's value is on the command line.
FLAG_KINDS = ("count", "real", "choice", "names", "json")


@dataclass(frozen=True)
class RelationFlag:
    """A command-line flag of ``dpverify audit --search`` that relations read.

    Attributes
    ----------
    flag : str
        E.g. ``"--length"``; relations read it as the attribute ``length`` of the parsed arguments.
    help : str
    kind : {"count", "real", "choice", "names", "json"}
        An integer >= 1, a finite real, one of ``choices``, one or more names, or JSON text.
    default : object
    choices : tuple, optional
    """

    flag: str
    help: str
    kind: str
    default: object = None
    choices: tuple | None = None

    def __post_init__(self):
        if not isinstance(self.flag, str) or not self.flag.startswith("--"):
            raise InvalidNeighboursError(f"a relation flag must start with '--', got {self.flag!r}")
        check_choice(self.kind, "kind", FLAG_KINDS, error=InvalidNeighboursError)

    @property
    def dest(self) -> str:
        """The attribute of the parsed arguments that holds the flag's value."""
        return self.flag[2:].replace("-", "_")


LENGTH = RelationFlag("--length", "vector/stream length, vertices, records", "count")
SENSITIVITY = RelationFlag("--sensitivity", "largest move (default 1)", "real", default=1.0)
NORM = RelationFlag("--norm", "vectors: linf (default); graphs: l1", "choice", choices=NORMS)
PATTERNS = RelationFlag("--patterns", "vectors: StatDP pattern names", "names")
VALUES = RelationFlag("--values", "streams/datasets: the element domain", "json")
DOMAIN = RelationFlag(
    "--domain",
    'the input domain, JSON {"low", "high", "integer", "step"} (default: the mechanism\'s input_domain, '
    "else any reals): --search scalars/vectors propose no pair outside it; --x/--x-prime and --pairs are "
    "checked against it",
    "json",
)
#: The flags of the built-in relations, in the order the command line lists them.
SEARCH_FLAGS = (LENGTH, SENSITIVITY, NORM, PATTERNS, VALUES, DOMAIN)


@dataclass(frozen=True)
class NeighbourRelation:
    """A neighbouring relation and everything dpverify asks about it (see the module docstring).

    Attributes
    ----------
    name : str
        Its name (``dpverify audit --search NAME``).
    summary : str
        One line, for the command line's help and the documentation.
    build : callable
        ``build(**parameters) -> neighbours``.
    flags : tuple of RelationFlag
        The command-line flags it reads.
    required : tuple of RelationFlag
        Those of ``flags`` it cannot do without.
    from_flags : callable or None
        ``from_flags(args) -> neighbours`` from the parsed arguments; None: not on the command line.
    strategy : str or None
        ``"module:function"`` of its Hypothesis strategy of pairs.
    strategy_arguments : dict
        Keyword arguments that make that strategy this relation's.
    domain : callable or None
        ``domain(x, x_prime) -> dict or None``: the parameters of ``build`` for which the pair
        lies in the relation's input domain (None: it does not).
    inferred : bool
        Whether :func:`domain_neighbours` may pick it from a pair's shape alone (a relation that
        needs the mechanism's word, such as two bits, says no).
    """

    name: str
    summary: str
    build: Callable = field(repr=False)
    flags: tuple = ()
    required: tuple = ()
    from_flags: Callable | None = field(default=None, repr=False)
    strategy: str | None = None
    strategy_arguments: dict = field(default_factory=dict)
    domain: Callable | None = field(default=None, repr=False)
    inferred: bool = True

    def __post_init__(self):
        check_name(self.name, "a relation", error=InvalidNeighboursError)
        check_callable(self.build, f"relation {self.name!r}: build", error=InvalidNeighboursError)
        if any(not isinstance(f, RelationFlag) for f in self.flags) or not set(self.required) <= set(self.flags):
            raise InvalidNeighboursError(
                f"relation {self.name!r}: flags must be RelationFlag records, and required ones among them"
            )
        if self.strategy is not None and (not isinstance(self.strategy, str) or ":" not in self.strategy):
            raise InvalidNeighboursError(f"relation {self.name!r}: strategy must read 'module:function'")

    def hypothesis_strategy(self, **arguments):
        """Its Hypothesis strategy of pairs (``arguments`` add to or override ``strategy_arguments``)."""
        if self.strategy is None:
            raise InvalidNeighboursError(f"relation {self.name!r} declares no Hypothesis strategy")
        module, _, function = self.strategy.partition(":")
        factory = getattr(importlib.import_module(module), function)
        return factory(**{**self.strategy_arguments, **arguments})

    def neighbours_of(self, x, x_prime, **parameters):
        """Its neighbours on the input domain that holds ``(x, x_prime)``, or None when none does."""
        found = None if self.domain is None else self.domain(x, x_prime)
        return None if found is None else self.build(**{**found, **parameters})


def bit_pairs(rng: np.random.Generator) -> tuple:
    """A pair of different bits (randomized response's whole domain), in random order."""
    bit = int(rng.integers(2))
    return bit, 1 - bit


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _bits_domain(x, x_prime):
    return {} if _is_integer(x) and {x, x_prime} == {0, 1} else None


def _scalar_domain(x, x_prime):
    return {} if np.ndim(x) == 0 else None


def _vector_domain(x, x_prime):
    return {"length": len(x)} if np.ndim(x) == 1 else None


def _bits(**parameters):
    return bit_pairs


def _scalars(sensitivity=1.0, domain=None):
    return query_vectors(None, sensitivity, domain=domain)


#: The built-in relations; :func:`domain_neighbours` tries them in this order.
BUILTIN_RELATIONS = (
    NeighbourRelation(
        "scalars",
        "real answers moved by --sensitivity (one above, one below)",
        _scalars,
        flags=(SENSITIVITY, DOMAIN),
        from_flags=lambda args: query_vectors(None, args.sensitivity, domain=args.domain),
        domain=_scalar_domain,
    ),
    NeighbourRelation(
        "vectors",
        "--length query answers, StatDP's patterns (--patterns), --norm l1 or linf",
        query_vectors,
        flags=(LENGTH, SENSITIVITY, NORM, PATTERNS, DOMAIN),
        required=(LENGTH,),
        from_flags=lambda args: query_vectors(
            args.length, args.sensitivity, args.norm or "linf", args.patterns, domain=args.domain
        ),
        strategy="dpverify.testing.strategies:neighbouring_vectors",
        strategy_arguments={"norm": "linf"},
        domain=_vector_domain,
    ),
    NeighbourRelation(
        "streams",
        "--length elements from --values (JSON list; default [0, 1]), one differs",
        streams,
        flags=(LENGTH, VALUES),
        required=(LENGTH,),
        from_flags=lambda args: streams(args.length, args.values or (0, 1)),
        strategy="dpverify.testing.strategies:neighbouring_streams",
        strategy_arguments={"relation": "substitute"},
    ),
    NeighbourRelation(
        "graphs",
        "weights on the complete graph of --length vertices, one edge (l1) or all (linf) moved",
        graph_weights,
        flags=(LENGTH, SENSITIVITY, NORM),
        required=(LENGTH,),
        from_flags=lambda args: graph_weights(args.length, args.sensitivity, args.norm or "l1"),
        strategy="dpverify.testing.strategies:neighbouring_graphs",
        strategy_arguments={"shift": "one"},
    ),
    NeighbourRelation(
        "datasets",
        "--length records from --values, one added or removed",
        add_remove_one,
        flags=(LENGTH, VALUES),
        required=(LENGTH,),
        from_flags=lambda args: add_remove_one(args.values or (0, 1), args.length),
        strategy="dpverify.testing.strategies:neighbouring_streams",
        strategy_arguments={"relation": "add-remove"},
    ),
    NeighbourRelation(
        "bits",
        "two different bits (randomized response's whole domain)",
        _bits,
        domain=_bits_domain,
        inferred=False,
    ),
)

_REGISTRY: dict[str, NeighbourRelation] = {}
#: What the entry-point group gave when the registry was built (the plug-ins that did not load).
_LOADED = Loaded(ENTRY_POINT_GROUP)


def _registry() -> dict[str, NeighbourRelation]:
    """The registered relations by name: the built-ins, then the entry points (by entry-point name)."""
    if not _REGISTRY:
        global _LOADED
        loaded = _LOADED = load_group(ENTRY_POINT_GROUP, NeighbourRelation)
        for record in (*BUILTIN_RELATIONS, *loaded.records):
            _REGISTRY[record.name] = record
    return _REGISTRY


def register_relation(record: NeighbourRelation) -> NeighbourRelation:
    """Register ``record`` (a registered name is replaced in place); returns it."""
    if not isinstance(record, NeighbourRelation):
        raise InvalidNeighboursError(f"register_relation takes a NeighbourRelation, got {type(record).__name__}")
    _registry()[record.name] = record
    return record


def unregister_relation(name: str) -> None:
    """Remove a relation that :func:`register_relation` or an entry point added (not a built-in)."""
    if name in {record.name for record in BUILTIN_RELATIONS}:
        raise InvalidNeighboursError(f"{name!r} is a built-in relation")
    if _registry().pop(name, None) is None:
        raise InvalidNeighboursError(f"no relation {name!r} is registered; registered: {relation_names()}")


def relation(name: str) -> NeighbourRelation:
    """The record of the registered relation ``name``."""
    found = _registry().get(name)
    if found is None:
        _LOADED.require(name)  # a plug-in that did not load: its own error
        note = _LOADED.failed_note()
        raise InvalidNeighboursError(f"unknown relation {name!r}; registered: {relation_names()}{note}")
    return found


def registered_relations() -> tuple[NeighbourRelation, ...]:
    """The registered relations, in registration order."""
    return tuple(_registry().values())


def relation_names() -> list[str]:
    """The names of the registered relations, in registration order."""
    return list(_registry())


def domain_neighbours(x, x_prime, name: str | None = None, **parameters):
    """The neighbours of the relation whose input domain holds ``(x, x_prime)``.

    Parameters
    ----------
    x, x_prime : object
        An example pair of the inputs.
    name : str, optional
        The relation (a mechanism's word, e.g. ``"bits"``); by default the first registered
        relation that may be inferred and whose domain holds the pair.
    **parameters
        Passed to the relation's ``build`` (e.g. ``norm="l1"``).

    Raises
    ------
    InvalidNeighboursError
        The named relation's domain does not hold the pair, or no relation's does.
    """
    if name is not None:
        found = relation(name).neighbours_of(x, x_prime, **parameters)
        if found is None:
            raise InvalidNeighboursError(f"the pair ({x!r}, {x_prime!r}) is not in the input domain of {name!r}")
        return found
    for record in registered_relations():
        found = record.neighbours_of(x, x_prime, **parameters) if record.inferred else None
        if found is not None:
            return found
    raise InvalidNeighboursError(f"no registered relation's input domain holds the pair ({x!r}, {x_prime!r})")
