"""``dpverify audit ... --search RELATION`` and ``--pairs FILE.json``: a search audit from the command line.

The ready neighbour generators of :mod:`dpverify.neighbours`, by name:

- ``scalars``: real answers moved by ``--sensitivity`` (one above, one below);
- ``vectors``: ``--length`` query answers, StatDP's patterns (``--patterns``), ``--norm`` l1 or linf;
- ``streams``: ``--length`` elements from ``--values`` (JSON list; default ``[0, 1]``), one differs;
- ``graphs``: weights on the complete graph of ``--length`` vertices, one edge (l1) or all (linf) moved;
- ``datasets``: ``--length`` records from ``--values``, one added or removed.

``--pairs FILE.json``: a JSON list of ``[x, x_prime]`` pairs (arrays become tuples).
"""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["RELATIONS", "RELATION_FLAGS", "add_search_options", "as_hashable", "search_neighbours"]

RELATIONS = ("scalars", "vectors", "streams", "graphs", "datasets")


def add_search_options(p, positive_int, finite_float) -> None:
    """The search flags of ``dpverify audit``."""
    group = p.add_argument_group(
        "search audit (instead of --x/--x-prime)",
        "search the neighbouring inputs for the worst pair on a screening budget, then certify the chosen "
        "pair on fresh samples at the full alpha (dpverify.search_audit)",
    )
    group.add_argument(
        "--search", choices=RELATIONS, metavar="RELATION", help=f"a ready neighbouring relation: {', '.join(RELATIONS)}"
    )
    group.add_argument("--pairs", metavar="FILE.json", help="a JSON list of [x, x_prime] pairs to search")
    group.add_argument("--length", type=positive_int, default=None, help="vector/stream length, vertices, records")
    group.add_argument("--sensitivity", type=finite_float, default=1.0, help="largest move (default 1)")
    group.add_argument("--norm", choices=("l1", "linf"), default=None, help="vectors: linf (default); graphs: l1")
    group.add_argument("--patterns", nargs="+", default=None, metavar="NAME", help="vectors: StatDP pattern names")
    group.add_argument("--values", default=None, metavar="JSON", help="streams/datasets: the element domain")
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


#: The relation flags, the attribute argparse gives each, and the relations that read it.
RELATION_FLAGS = {
    "--norm": ("norm", ("vectors", "graphs")),
    "--patterns": ("patterns", ("vectors",)),
    "--values": ("values", ("streams", "datasets")),
    "--length": ("length", ("vectors", "streams", "graphs", "datasets")),
}


def _check_relation_flags(args, usage_error) -> None:
    """Refuse a relation flag that the chosen relation (or ``--pairs``) would ignore."""
    what = f"--search {args.search}" if args.search else "--pairs"
    for flag, (attribute, relations) in RELATION_FLAGS.items():
        if getattr(args, attribute, None) is not None and args.search not in relations:
            raise usage_error(
                f"{flag} is not used by {what}; it applies to --search {' or '.join(relations)}: leave it out"
            )


def as_hashable(value):
    """JSON arrays arrive as lists; tuples keep inputs hashable and comparable."""
    if isinstance(value, list):
        return tuple(as_hashable(v) for v in value)
    return value


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
        return None
    _check_relation_flags(args, usage_error)
    if args.pairs:
        try:
            pairs = json.loads(Path(args.pairs).read_text())
        except (OSError, json.JSONDecodeError) as exc:
            raise usage_error(f"cannot read --pairs {args.pairs}: {exc}") from exc
        if not isinstance(pairs, list):
            raise usage_error("--pairs must hold a JSON list of [x, x_prime] pairs")
        return [as_hashable(pair) for pair in pairs]
    values = None
    if args.values is not None:
        try:
            values = as_hashable(json.loads(args.values))
        except json.JSONDecodeError as exc:
            raise usage_error(f"--values must be a JSON list: {exc}") from exc
    length = args.length
    if args.search != "scalars" and length is None:
        raise usage_error(f"--search {args.search} needs --length")
    try:
        if args.search == "scalars":
            return nb.query_vectors(None, args.sensitivity)
        if args.search == "vectors":
            return nb.query_vectors(length, args.sensitivity, args.norm or "linf", args.patterns)
        if args.search == "streams":
            return nb.streams(length, values or (0, 1))
        if args.search == "graphs":
            return nb.graph_weights(length, args.sensitivity, args.norm or "l1")
        return nb.add_remove_one(values or (0, 1), length)
    except nb.InvalidNeighboursError as exc:
        raise usage_error(str(exc)) from exc
