"""The ``dpverify`` command line: ``audit``, ``suite`` and ``reproduce``.

Exit codes: 0 when nothing was found wrong, 1 when an audit finds a violation
or a verification fails, 2 on a usage error (bad arguments, bad claim, a
mechanism that cannot be imported).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path

from .errors import DPVerifyError

__all__ = ["main"]

EXIT_OK, EXIT_FOUND, EXIT_USAGE = 0, 1, 2


class _UsageError(Exception):
    pass


def _load_callable(spec: str):
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise _UsageError(f"mechanism must be given as MODULE:CALLABLE (e.g. mymodule:laplace), got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        obj = importlib.import_module(module_name)
    except ImportError as exc:
        raise _UsageError(f"cannot import module {module_name!r}: {exc}") from exc
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise _UsageError(f"module {module_name!r} has no attribute {attribute!r}") from exc
    if isinstance(obj, type):
        obj = obj()  # a class: audit an instance built with no arguments
    if not callable(obj):
        raise _UsageError(f"{spec} is not callable; it must be mechanism(data, rng)")
    return obj


def _json_argument(text: str, flag: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _UsageError(f"{flag} must be JSON (e.g. 0, 1.5, [1, 2], \"a\"): {exc}") from exc


def _as_hashable(value):
    """JSON arrays arrive as lists; tuples keep inputs hashable and comparable."""
    if isinstance(value, list):
        return tuple(_as_hashable(v) for v in value)
    return value


def _cmd_audit(args) -> int:
    from .audit import audit

    mechanism = _load_callable(args.mechanism)
    x = _as_hashable(_json_argument(args.x, "--x"))
    x_prime = _as_hashable(_json_argument(args.x_prime, "--x-prime"))
    result = audit(
        mechanism, x, x_prime, epsilon=args.epsilon, delta=args.delta, n_samples=args.samples,
        alpha=args.alpha, seed=args.seed, executor=args.workers if args.workers > 1 else None,
        progress=not args.json and not args.quiet,
    )
    if args.json:
        print(result.to_json())
    else:
        print(f"dpverify audit of {args.mechanism} on x={args.x}, x'={args.x_prime}")
        print(result.summary())
        print(f"replay: --seed {result.seed}" if isinstance(result.seed, int) else "")
    if args.report:
        from .report import write_report

        written = write_report(result, args.report, mechanism=mechanism, x=x, x_prime=x_prime)
        if not args.json:
            print(f"report written to {written}")
    return EXIT_FOUND if result.violation else EXIT_OK


def _cmd_suite(args) -> int:
    from .suite import format_table, registered_verifications, run_suite, write_report

    items = registered_verifications()
    if args.list:
        for item in items:
            print(f"{item.name}: {item.claim}")
        return EXIT_OK

    def progress(line):
        if not args.quiet:
            print(line, file=sys.stderr, flush=True)

    start = time.perf_counter()
    records = run_suite(items, seed=args.seed, select=args.select, progress=progress)
    if not records:
        print(f"no verification matches {args.select!r} (see dpverify suite --list)", file=sys.stderr)
        return EXIT_USAGE
    print(format_table(records))
    failed = [r for r in records if not r.passed]
    print(
        f"\n{len(records) - len(failed)} passed, {len(failed)} failed "
        f"in {time.perf_counter() - start:.1f}s (seed {args.seed})"
    )
    for r in failed:
        print(f"FAILED {r.name}: {r.details}")
    if args.out:
        write_report(records, args.out, seed=args.seed)
        print(f"report written to {args.out}")
    return EXIT_FOUND if failed else EXIT_OK


def _cmd_reproduce(args) -> int:
    from .reproduce import registered_reproductions

    available = registered_reproductions()
    if args.list or args.name is None:
        for name, item in available.items():
            print(f"{name}: {item.description}")
        return EXIT_OK if args.list else EXIT_USAGE
    if args.name not in available:
        raise _UsageError(f"unknown reproduction {args.name!r}; available: {', '.join(available) or 'none'}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    try:
        paths = available[args.name].run(out, quick=args.quick, seed=args.seed, progress=not args.quiet)
    except ModuleNotFoundError as exc:
        if exc.name == "matplotlib":
            raise _UsageError("reproductions draw with matplotlib: pip install 'dpverify[plot]'") from exc
        raise
    print(f"{args.name}: wrote {len(paths)} files to {out} in {time.perf_counter() - start:.1f}s")
    for path in paths:
        print(f"  {path}")
    return EXIT_OK


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpverify",
        description="Audit differential-privacy claims and run the project's verification suite.",
        epilog="Exit codes: 0 nothing found wrong; 1 an audit found a violation or a verification "
        "failed; 2 usage error (bad arguments or claim, a mechanism that cannot be imported or raises).",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "audit",
        help="audit a mechanism's (eps, delta) claim on one pair of neighbouring inputs",
        description="Draw samples of M(x) and M(x'), select the most telling output event on "
        "part of them and certify it on the rest (Clopper-Pearson). Exit 0: no violation "
        "found; 1: violation at level alpha; 2: usage error.",
    )
    p.add_argument("mechanism", help="MODULE:CALLABLE, a callable mechanism(data, rng) (a class is "
                   "instantiated with no arguments); the current directory is importable")
    p.add_argument("--x", required=True, help="first input, as JSON (arrays become tuples)")
    p.add_argument("--x-prime", required=True, help="neighbouring input, as JSON")
    p.add_argument("--epsilon", type=float, required=True, help="claimed epsilon (> 0)")
    p.add_argument("--delta", type=float, default=0.0, help="claimed delta in [0, 1) (default 0)")
    p.add_argument("--samples", type=int, default=100_000, help="samples per input (default 100000)")
    p.add_argument("--alpha", type=float, default=0.05, help="test level / 1 - confidence (default 0.05)")
    p.add_argument("--seed", type=int, default=None, help="seed (default: fresh, printed for replay)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--report", metavar="FILE", help="also write an HTML report of the audit")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(func=_cmd_audit)

    p = sub.add_parser(
        "suite",
        help="run every registered verification on built-in instances (the main job)",
        description="Run every verification registered under the 'dpverify.verifications' entry "
        "point (textbook mechanisms and the project's algorithms), print a table and exit 1 if "
        "any fails.",
    )
    p.add_argument("--select", metavar="PATTERN", help="only names matching this shell pattern, e.g. 'textbook/*'")
    p.add_argument("--out", metavar="FILE", help="write a JSON report")
    p.add_argument("--seed", type=int, default=0, help="base seed (default 0)")
    p.add_argument("--list", action="store_true", help="list the verifications and exit")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    p.set_defaults(func=_cmd_suite)

    p = sub.add_parser(
        "reproduce",
        help="regenerate a figure of one of the papers (PNG and CSV)",
        description="Regenerate a paper figure; --list shows the available names.",
    )
    p.add_argument("name", nargs="?", help="reproduction name (see --list)")
    p.add_argument("--out", default="dpverify-out", help="output folder (default dpverify-out)")
    p.add_argument("--quick", action="store_true", help="a small, fast version (minutes -> seconds)")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--list", action="store_true", help="list the reproductions and exit")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=_cmd_reproduce)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except _UsageError as exc:
        print(f"dpverify {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except DPVerifyError as exc:
        print(f"dpverify {args.command}: error: {type(exc).__name__}: {exc}", file=sys.stderr)
        if exc.__cause__ is not None:
            print(f"  caused by {type(exc.__cause__).__name__}: {exc.__cause__}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
