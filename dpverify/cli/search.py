"""``dpverify audit MECHANISM --search RELATION`` and ``--pairs FILE.json``: a search audit from the command line.

The registered neighbouring relations that declare how flags build them
(:mod:`dpverify.neighbours.relations`), by name: ``scalars``, ``vectors``,
``streams``, ``graphs``, ``datasets`` and any a package registers; each record
lists the flags it reads (``--length``, ``--sensitivity``, ``--norm``,
``--patterns``, ``--values``) and those it needs.

``--pairs FILE.json``: a JSON list of ``[x, x_prime]`` pairs (arrays become tuples).

``--domain`` beside ``--x``/``--x-prime`` or ``--pairs`` checks the pairs given against it
(:func:`check_given_domain`), as the drivers check them against the mechanism's declared domain.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from pathlib import Path

from ..errors import InvalidNeighboursError
from ..neighbours.relations import SEARCH_FLAGS, registered_relations

__all__ = [
    "cli_relations",
    "add_search_options",
    "as_hashable",
    "search_neighbours",
    "check_given_domain",
]


def cli_relations() -> dict:
    """The registered relations offered on the command line, by name."""
    return {r.name: r for r in registered_relations() if r.from_flags is not None}


def _flags() -> list:
    """The flags the relations read: the built-in ones in their order, then any other a relation declares."""
    found = {flag.flag: flag for flag in SEARCH_FLAGS}
    for r in cli_relations().values():
        for flag in r.flags:
            found.setdefault(flag.flag, flag)
    return list(found.values())


def _flag_options(flag, positive_int, finite_float) -> dict:
    """The argparse keywords of a relation flag."""
    options = {"default": flag.default, "help": flag.help}
    if flag.kind == "count":
        options["type"] = positive_int
    elif flag.kind == "real":
        options["type"] = finite_float
    elif flag.kind == "choice":
        options["choices"] = flag.choices
    elif flag.kind == "names":
        options.update(nargs="+", metavar="NAME")
    else:
        options["metavar"] = "JSON"
    return options


def add_search_options(p, positive_int, finite_float) -> None:
    """The search flags of ``dpverify audit``."""
    names = list(cli_relations())
    group = p.add_argument_group(
        "search audit (instead of --x/--x-prime)",
        "search the neighbouring inputs for the worst pair on a screening budget, then certify the chosen "
        "pair on fresh samples at the full alpha (dpverify.search_audit)",
    )
    group.add_argument(  # no argparse choices: a relation plug-in that did not load is named by its own error
        "--search", metavar="RELATION", help=f"a ready neighbouring relation: {', '.join(names)}"
    )
    group.add_argument("--pairs", metavar="FILE.json", help="a JSON list of [x, x_prime] pairs to search")
    for flag in _flags():
        group.add_argument(flag.flag, **_flag_options(flag, positive_int, finite_float))
    group.add_argument(
        "--candidates",
        type=positive_int,
        default=None,
        help="pairs drawn from a relation (default 16, and every fixed pair of the relation)",
    )
    group.add_argument(
        "--screening",
        type=positive_int,
        default=None,
        help="screening samples per input (default --samples, at most 8000000)",
    )


def _check_relation_flags(args, usage_error) -> None:
    """Refuse a relation flag, given a value other than its default, that the chosen relation (or
    ``--pairs``) would ignore: the relations' records say which flags each reads."""
    what = f"--search {args.search}" if args.search else "--pairs"
    relations = cli_relations()
    chosen = relations.get(args.search)
    read = {flag.flag for flag in chosen.flags} if chosen is not None else {"--domain"}  # --pairs: checked
    for flag in _flags():
        value = getattr(args, flag.dest, None)
        if value is None or value == flag.default or flag.flag in read:
            continue
        readers = [name for name, r in relations.items() if any(f.flag == flag.flag for f in r.flags)]
        raise usage_error(
            f"{flag.flag} is not used by {what}; it applies to --search {' or '.join(readers)}: leave it out"
        )


def _check_no_search_flags(args, usage_error) -> None:
    """Refuse, beside ``--x/--x-prime``, a search flag given a value other than its default (``--domain`` aside:
    it checks the pair): one pair is audited as given, and the flag would be ignored without a word."""
    given = [
        flag.flag
        for flag in _flags()
        if flag.flag != "--domain" and getattr(args, flag.dest, None) not in (None, flag.default)
    ]
    given += [flag for flag, value in (("--candidates", args.candidates), ("--screening", args.screening)) if value]
    if given:
        raise usage_error(
            f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to a search (--search RELATION or "
            "--pairs FILE.json); --x/--x-prime audit one pair as given: leave "
            f"{'it' if len(given) == 1 else 'them'} out"
        )


def _cli_relation(name: str, usage_error):
    """The relation ``--search NAME`` asks for; a plug-in of that name that did not load raises its
    :class:`~dpverify.errors.PluginError` (exit 3), an unknown name is a usage error (exit 2)."""
    from ..neighbours import relation

    found = cli_relations().get(name)
    if found is None:
        with contextlib.suppress(InvalidNeighboursError):  # unknown: the usage error below
            relation(name)  # a plug-in of that name that did not load raises its PluginError here
        offered = ", ".join(cli_relations())
        raise usage_error(f"--search {name!r} is not a relation offered here; choose from {offered}")
    return found


def as_hashable(value):
    """JSON arrays arrive as lists; tuples keep inputs hashable and comparable."""
    if isinstance(value, list):
        return tuple(as_hashable(v) for v in value)
    return value


def check_given_domain(args, pairs, what: str, usage_error) -> None:
    """Check every pair of ``pairs`` (given by ``what``: ``--x/--x-prime``, ``--pairs``) against ``--domain``,
    if given: :class:`~dpverify.errors.OutsideDomainError` for a pair outside it (a bad ``--domain`` is a
    usage error)."""
    if getattr(args, "domain", None) is None:
        return
    from ..errors import InvalidNeighboursError
    from ..neighbours.domain import as_domain, check_in_domain

    try:
        domain = as_domain(json.loads(args.domain))
    except (json.JSONDecodeError, InvalidNeighboursError) as exc:
        raise usage_error(f"--domain must be a JSON object of low, high, integer, step: {exc}") from exc
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, tuple) and len(pair) == 2):
            continue  # not a pair: the driver names it
        where = f" (pair {i} of {what})" if len(pairs) > 1 else f" ({what})"
        check_in_domain(domain, *pair, owner="--domain", where=where)


def search_neighbours(args, usage_error):
    """The neighbours the flags ask for, or None when no search was asked for.

    ``usage_error(message)`` builds the exception to raise for bad flags.
    """
    from .. import neighbours as nb

    given = [
        flag
        for flag, value in (
            ("--x/--x-prime", args.x or args.x_prime),
            ("--search", args.search),
            ("--pairs", args.pairs),
        )
        if value
    ]
    if len(given) != 1:
        raise usage_error(
            "give exactly one of --x and --x-prime, --search RELATION or --pairs FILE.json"
            + (f" (got {', '.join(given)})" if given else "")
        )
    if args.x or args.x_prime:
        if not (args.x and args.x_prime):
            raise usage_error("--x and --x-prime go together")
        _check_no_search_flags(args, usage_error)
        return None
    _check_relation_flags(args, usage_error)
    if args.pairs:
        try:
            pairs = json.loads(Path(args.pairs).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise usage_error(f"cannot read --pairs {args.pairs}: {exc}") from exc
        if not isinstance(pairs, list):
            raise usage_error("--pairs must hold a JSON list of [x, x_prime] pairs")
        pairs = [as_hashable(pair) for pair in pairs]
        check_given_domain(args, pairs, "--pairs", usage_error)
        return pairs
    relation = _cli_relation(args.search, usage_error)
    flags = vars(args).copy()
    for flag in _flags():
        if flag.kind == "json" and flags.get(flag.dest) is not None:
            try:
                flags[flag.dest] = as_hashable(json.loads(flags[flag.dest]))
            except json.JSONDecodeError as exc:
                raise usage_error(f"{flag.flag} must be a JSON list: {exc}") from exc
    for flag in relation.required:
        if flags.get(flag.dest) is None:
            raise usage_error(f"--search {args.search} needs {flag.flag}")
    try:
        return relation.from_flags(argparse.Namespace(**flags))
    except nb.InvalidNeighboursError as exc:
        raise usage_error(str(exc)) from exc
