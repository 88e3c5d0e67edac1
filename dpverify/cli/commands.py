"""The ``dpverify`` command line: ``audit``, ``audit-samples``, ``suite`` and ``reproduce``.

Exit codes (the same for every subcommand, so that a CI job can tell a finding
from a crash):

- 0: nothing was found wrong;
- 1: an audit found a violation, or a verification of the suite failed;
- 2: usage error (bad arguments or claim, a mechanism that cannot be imported
  or built, an unknown name);
- 3: any other failure (the mechanism raised or returned unusable outputs, an
  output file cannot be written, a missing optional extra, a plug-in the command
  uses that does not load, an internal error);
- 130: interrupted (Ctrl-C);
- 141: the reader of the output went away (``dpverify ... | head``), quietly, as a program that
  SIGPIPE ends (128 + 13).

No traceback is printed unless ``--debug`` is given. A plug-in that does not load
(:mod:`dpverify.plugins`) is named once on standard error, ``dpverify: warning: ...``,
and changes no exit code of a command that does not use it.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

from .._validation import MAX_EPSILON, check_one_claim  # the API's bound: both accept the same claims
from ..errors import CommandFailure, CommandUsageError, DPVerifyError

__all__ = [
    "main",
    "build_parser",
    "EXIT_OK",
    "EXIT_FOUND",
    "EXIT_USAGE",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_READER_GONE",
]

EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_READER_GONE = 0, 1, 2, 3, 130, 141

EXIT_CODES_HELP = (
    "Exit codes: 0 nothing found wrong; 1 a violation was found or a verification failed; "
    "2 usage error (bad arguments or claim, a mechanism that cannot be imported or built); "
    "3 any other failure (the mechanism raised, unwritable output, missing extra, a plug-in the command "
    "uses that does not load, internal error); "
    "130 interrupted; 141 the reader of the output went away (| head). Add --debug for a traceback."
)


#: Exit 2 and exit 3 (the named errors of :mod:`dpverify.errors`, under the names this module used).
_UsageError = CommandUsageError
_Failure = CommandFailure


# --------------------------------------------------------------------------------------
# argument types: checked by argparse, before any work
# --------------------------------------------------------------------------------------


def _whole(text: str) -> int:
    """A whole number, written as an integer or as an integral float (``1e7``, ``2.0e5``)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not value.is_integer():
        raise argparse.ArgumentTypeError(f"expected a whole number (e.g. 100000 or 1e5), got {text!r}") from None
    return int(value)


def _positive_int(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {value}")
    return value


def _workers(text: str) -> int:
    from ..reproduction import available_workers

    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(
            f"must be >= 1 (this process may use {available_workers()} cores), got {value}"
        )
    return value


def _seed(text: str) -> int:
    value = _whole(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed must be a non-negative integer, got {value}")
    return value


def _finite_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be finite, got {text!r}")
    return value


def _epsilon(text: str) -> float:
    value = _finite_float(text)
    if value > MAX_EPSILON:
        raise argparse.ArgumentTypeError(
            f"{value:g} is too large: the audit compares probabilities with e^epsilon, which must be a finite "
            f"double, so epsilon must be at most {MAX_EPSILON:.2f}"
        )
    return value


# --------------------------------------------------------------------------------------
# checks made before the work
# --------------------------------------------------------------------------------------


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
    except SyntaxError as exc:
        where = f"{exc.filename}, line {exc.lineno}" if exc.filename else module_name
        raise _UsageError(f"cannot import module {module_name!r}: syntax error in {where}: {exc.msg}") from exc
    except Exception as exc:
        raise _Failure(f"importing module {module_name!r} raised {type(exc).__name__}: {exc}") from exc
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError as exc:
            raise _UsageError(f"module {module_name!r} has no attribute {attribute!r}") from exc
    if isinstance(obj, type):
        obj = _instantiate(obj, spec)
    if not callable(obj):
        raise _UsageError(f"{spec} is not callable; it must be mechanism(data, rng)")
    return obj


def _instantiate(cls: type, spec: str):
    """A class is audited through an instance built with no arguments."""
    try:
        inspect.signature(cls).bind()
    except TypeError as exc:
        raise _UsageError(
            f"{spec} is a class whose constructor needs arguments ({exc}); the command line builds it with "
            f"no arguments. Name an instance or a function instead (MODULE:name), e.g. "
            f"'mechanism = {cls.__name__}(...)' in {cls.__module__}"
        ) from exc
    except ValueError:  # no signature to inspect (a builtin); try it
        pass
    try:
        return cls()
    except Exception as exc:
        raise _Failure(f"building {spec}() raised {type(exc).__name__}: {exc}") from exc


def _json_argument(text: str, flag: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise _UsageError(f'{flag} must be JSON (e.g. 0, 1.5, [1, 2], "a"): {exc}') from exc


def _json_input(text: str, flag: str):
    """An input given as JSON; arrays become tuples, so that inputs stay hashable and comparable."""
    from .search import as_hashable

    return as_hashable(_json_argument(text, flag))


def _writable_file(path, flag: str) -> Path:
    """Create the missing folders of ``path`` and check that the file can be written, before the work."""
    path = Path(path)
    if path.is_dir():
        raise _UsageError(f"{flag} {path} is a folder; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _Failure(f"cannot create the folder of {flag} {path}: {exc.strerror or exc}") from exc
    target = path if path.exists() else path.parent
    if not os.access(target, os.W_OK):
        raise _Failure(f"cannot write {flag} {path}: permission denied")
    return path


def _writable_folder(path, flag: str) -> Path:
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise _UsageError(f"{flag} {path} exists and is not a folder") from exc
    except OSError as exc:
        raise _Failure(f"cannot create {flag} folder {path}: {exc.strerror or exc}") from exc
    if not os.access(path, os.W_OK):
        raise _Failure(f"cannot write into {flag} folder {path}: permission denied")
    return path


def _scheduler(args) -> str | None:
    """``--scheduler``, else ``$DASK_SCHEDULER_ADDRESS``; checks that dask.distributed is installed."""
    from ..reproduction import SCHEDULER_ENV, require_distributed

    address = getattr(args, "scheduler", None) or os.environ.get(SCHEDULER_ENV) or None
    if address:
        require_distributed()
    return address


def _say(args, text: str) -> None:
    if not getattr(args, "quiet", False):
        print(text, file=sys.stderr, flush=True)


def _human_seconds(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def _estimate_cost(mechanism, x, samples: int, workers: int) -> tuple[float, float] | None:
    """Seconds per sample of ``mechanism`` on ``x`` from a short pilot, and the implied total seconds.

    The pilot draws from its own generator (seed 0), so the audit's results do
    not change. ``None`` when the pilot raises (the audit will report why).
    """
    import numpy as np

    from ..protocols import is_vectorized

    rng = np.random.default_rng(0)
    try:
        if is_vectorized(mechanism):
            k = 1000
            mechanism.sample(x, 10, rng)
            start = time.perf_counter()
            mechanism.sample(x, k, rng)
            per = (time.perf_counter() - start) / k
        else:
            mechanism(x, rng)
            k, start = 0, time.perf_counter()
            while k < 2000 and time.perf_counter() - start < 0.25:
                mechanism(x, rng)
                k += 1
            per = (time.perf_counter() - start) / k
    except Exception:
        return None
    return per, 2 * samples * per / max(1, workers)


# --------------------------------------------------------------------------------------
# subcommands
# --------------------------------------------------------------------------------------


def _cmd_audit(args) -> int:
    from ..audits.pair import audit
    from .search import check_given_domain, search_neighbours

    neighbours = search_neighbours(args, _UsageError)
    mechanism = _load_callable(args.mechanism)
    if neighbours is not None:
        return _cmd_search_audit(args, mechanism, neighbours)
    x = _json_input(args.x, "--x")
    x_prime = _json_input(args.x_prime, "--x-prime")
    check_given_domain(args, [(x, x_prime)], "--x/--x-prime", _UsageError)
    _require_claim(args, mechanism)
    report = _writable_file(args.report, "--report") if args.report else None
    executor_context = _executor(args)  # checks --scheduler before the pilot
    _warn_if_long(args, mechanism, x)
    with executor_context as executor:
        result = audit(mechanism, x, x_prime, **_audit_arguments(args), executor=executor)
    _print_result(args, result, f"dpverify audit of {args.mechanism} on x={args.x}, x'={args.x_prime}")
    _write_audit_report(args, report, result, mechanism, x, x_prime)
    return EXIT_FOUND if result.violation else EXIT_OK


def _cmd_search_audit(args, mechanism, neighbours) -> int:
    from ..audits.search import search_audit

    _require_claim(args, mechanism)
    report = _writable_file(args.report, "--report") if args.report else None
    with _executor(args) as executor:
        result = search_audit(
            mechanism,
            neighbours,
            n_candidates=args.candidates,
            n_screening=args.screening,
            **_audit_arguments(args),
            executor=executor,
        )
    _print_result(args, result, f"dpverify search audit of {args.mechanism}")
    _write_audit_report(args, report, result, mechanism, result.x, result.x_prime)
    return EXIT_FOUND if result.violation else EXIT_OK


def _claim_of_flags(args):
    """The claim of ``--claim``, ``--rho``, ``--mu`` or ``--renyi`` (None without them).

    Raises
    ------
    InvalidClaimError
        More than one claim flag, or one beside ``--epsilon``/``--delta``; a ``--claim`` of an
        unknown kind or parameter (:meth:`dpverify.PrivacyClaim.from_text`).
    """
    from ..claims import PrivacyClaim

    given = {
        "--claim": None if args.claim is None else PrivacyClaim.from_text(args.claim),
        "--rho": None if args.rho is None else PrivacyClaim.zcdp(args.rho),
        "--mu": None if args.mu is None else PrivacyClaim.gdp(args.mu),
        "--renyi": None if args.renyi is None else PrivacyClaim.renyi(args.renyi[0], args.renyi[1]),
    }
    named = [flag for flag, claim in given.items() if claim is not None]
    if args.epsilon is not None or args.delta is not None:
        named = ["--epsilon/--delta", *named] if named else []
    check_one_claim(named, ["--epsilon/--delta", *given])
    return next((claim for claim in given.values() if claim is not None), None)


def _require_claim(args, mechanism) -> None:
    """Refuse, in the command line's words, a run with no claim flag where ``mechanism`` (None: samples given,
    no mechanism) states no claim (:func:`dpverify.claims.stated_claim`)."""
    from ..claims import stated_claim

    flags = (args.epsilon, args.claim, args.rho, args.mu, args.renyi)
    if any(flag is not None for flag in flags) or (mechanism is not None and stated_claim(mechanism) is not None):
        return
    where = (
        "the mechanism states none (no `claim` attribute holding a dpverify.PrivacyClaim, no real `epsilon`)"
        if mechanism is not None
        else "there is no mechanism here to state one"
    )
    raise _UsageError(f"no claim given: pass --epsilon (and --delta), --claim, --rho, --mu or --renyi; {where}")


def _claim_arguments(args) -> dict:
    """The claim and the options that ``audit``, ``search_audit`` and ``audit_samples`` share.

    With no claim flag the mechanism's stated claim is audited (as from Python,
    :func:`dpverify.claims.resolve_claim`)."""
    return dict(
        epsilon=args.epsilon,
        delta=args.delta,
        claim=_claim_of_flags(args),
        alpha=args.alpha,
        n_selection=args.n_selection,
        float_events=not args.no_float_events,
    )


def _audit_arguments(args) -> dict:
    """``_claim_arguments`` and what an audit that draws its own samples adds."""
    return dict(
        _claim_arguments(args),
        n_samples=args.samples,
        seed=args.seed,
        progress=not args.json and not args.quiet,
    )


def _executor(args):
    """The executor of ``--workers`` and ``--scheduler`` (a context manager)."""
    from ..reproduction import open_executor

    return open_executor(args.workers, _scheduler(args), processes=True)


def _warn_if_long(args, mechanism, x) -> None:
    """From :data:`LARGE_SAMPLES` samples per input, say how long a run of a minute or more will take."""
    if args.samples < LARGE_SAMPLES:
        return
    estimate = _estimate_cost(mechanism, x, args.samples, args.workers)
    if estimate is not None and estimate[1] >= 60:
        print(
            f"dpverify audit: {args.samples:,} samples per input at about {estimate[0] * 1e6:.3g} us per "
            f"sample (a short pilot of this mechanism) will take roughly {_human_seconds(estimate[1])} "
            f"with {args.workers} worker(s); Ctrl-C stops it. Fewer --samples, more --workers or a "
            f"vectorized mechanism.sample(data, size, rng) make it shorter.",
            file=sys.stderr,
            flush=True,
        )


def _print_result(args, result, heading: str) -> None:
    """The result as JSON (``--json``), else the heading, the summary and how to replay it."""
    if args.json:
        print(result.to_json())
        return
    print(heading)
    print(result.summary())
    if isinstance(getattr(result, "seed", None), int) and result.replayable:
        print(f"replay: --seed {result.seed}")


def _write_audit_report(args, report, result, mechanism, x, x_prime) -> None:
    if report is None:
        return
    from ..extras.report import write_report

    written = _write_output(report, "--report", write_report, result, report, mechanism=mechanism, x=x, x_prime=x_prime)
    if not args.json:
        print(f"report written to {written}")


def _write_output(path, flag: str, writer, *arguments, **keywords):
    """``writer(*arguments, **keywords)``; an unwritable ``path`` becomes a failure naming ``flag``."""
    try:
        return writer(*arguments, **keywords)
    except OSError as exc:
        raise _Failure(f"cannot write {flag} {path}: {exc.strerror or exc}") from exc


def _cmd_audit_samples(args) -> int:
    from ..audits.given_samples import audit_samples

    inputs = None
    if (args.x is None) != (args.x_prime is None):
        raise _UsageError("give both --x and --x-prime (the inputs the samples came from), or neither")
    if args.x is not None:
        inputs = (_json_input(args.x, "--x"), _json_input(args.x_prime, "--x-prime"))
    _require_claim(args, None)
    for path in (args.samples_x, args.samples_x_prime):
        if not Path(path).is_file():
            raise _UsageError(f"no such file: {path} (give two .npy files of samples)")
    result = audit_samples(args.samples_x, args.samples_x_prime, inputs=inputs, **_claim_arguments(args))
    _print_result(args, result, f"dpverify audit-samples of {args.samples_x} and {args.samples_x_prime}")
    return EXIT_FOUND if result.violation else EXIT_OK


#: From this many samples per input the audit says up front how long it will take.
LARGE_SAMPLES = 10_000_000


def _cmd_suite(args) -> int:
    from ..reproduction import open_executor
    from .suite import format_table, registered_verifications, run_suite, select_verifications, write_suite_report

    items = registered_verifications()
    if args.list:
        for item in items:
            print(f"{item.name}: {item.statement}")
        return EXIT_OK
    selected = select_verifications(items, args.select)
    if not selected:
        raise _UsageError(f"no verification matches {args.select!r} (see dpverify suite --list)")
    out = _writable_file(args.out, "--out") if args.out else None
    scheduler = _scheduler(args)
    workers = min(args.workers, len(selected))

    def progress(line):
        print(line, file=sys.stderr, flush=True)

    start = time.perf_counter()
    where = f"Dask scheduler {scheduler}" if scheduler else f"{workers} worker{'s' * (workers > 1)}"
    _say(args, f"dpverify suite: {len(selected)} verifications on {where} (seed {args.seed})")
    with open_executor(workers, scheduler, processes=True) as executor:
        records = run_suite(selected, seed=args.seed, progress=None if args.quiet else progress, executor=executor)
    print(format_table(records))
    failed = [r for r in records if not r.passed]
    compiled = [r for r in records if r.compile_seconds >= 0.5]
    note = ""
    if compiled:
        note = (
            f"; {len(compiled)} verification{'s' * (len(compiled) > 1)} compiled numba kernels "
            f"({sum(r.compile_seconds for r in compiled):.0f}s of worker time; cached for the next run)"
        )
    print(
        f"\n{len(records) - len(failed)} passed, {len(failed)} failed "
        f"in {time.perf_counter() - start:.1f}s (seed {args.seed}){note}"
    )
    for r in failed:
        print(f"FAILED {r.name}: {r.details}")
    if out is not None:
        _write_output(out, "--out", write_suite_report, records, out, seed=args.seed)
        print(f"report written to {out}")
    return EXIT_FOUND if failed else EXIT_OK


def _cmd_reproduce(args) -> int:
    import importlib.util

    from ..reproduction import open_executor, registered_reproductions, reproduction

    available = registered_reproductions()
    if args.list or args.name is None:
        for name, item in available.items():
            print(f"{name}: {item.description}")
        if not args.list:
            raise _UsageError("name a reproduction (one of the above)")
        return EXIT_OK
    item = reproduction(args.name)  # an unknown name is a usage error, one of a broken plug-in its PluginError
    if importlib.util.find_spec("matplotlib") is None:
        from ..reproduction import MissingExtraError

        raise MissingExtraError(
            "reproductions draw with matplotlib, which is not installed: pip install 'dpverify[plot]'"
        )
    out = _writable_folder(args.out, "--out")
    scheduler = _scheduler(args)
    start = time.perf_counter()
    if item.accepts_executor:
        where = f"Dask scheduler {scheduler}" if scheduler else f"{args.workers} worker{'s' * (args.workers > 1)}"
        _say(args, f"dpverify reproduce {args.name}: runs on {where} (seed {args.seed})")
        with open_executor(args.workers, scheduler) as executor:
            paths = item.run(out, quick=args.quick, seed=args.seed, progress=not args.quiet, executor=executor)
    else:
        if args.workers > 1 or scheduler:
            _say(
                args,
                f"dpverify reproduce {args.name}: this reproduction runs in one process "
                f"(it does not take an executor); --workers/--scheduler are ignored",
            )
        paths = item.run(out, quick=args.quick, seed=args.seed, progress=not args.quiet)
    print(f"{args.name}: wrote {len(paths)} files to {out} in {time.perf_counter() - start:.1f}s")
    for path in paths:
        print(f"  {path}")
    return EXIT_OK


# --------------------------------------------------------------------------------------
# parser and entry point
# --------------------------------------------------------------------------------------


def _add_common(p, *, workers_default, workers_help) -> None:
    p.add_argument("--workers", type=_workers, default=workers_default, metavar="N", help=workers_help)
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on a Dask cluster (e.g. tcp://scheduler:8786; default $DASK_SCHEDULER_ADDRESS "
        "when set); needs the dask extra",
    )
    p.add_argument("--debug", action="store_true", help="print the full traceback of an error")


def _add_selection_options(p) -> None:
    p.add_argument(
        "--n-selection",
        type=_positive_int,
        default=None,
        metavar="N",
        help="samples per input that choose the event (default: a tenth, between 20000 and "
        "2000000; the rest certify it)",
    )
    p.add_argument(
        "--no-float-events",
        action="store_true",
        help="leave out the floating-point event families: judge the output values only",
    )


def _claim_help() -> str:
    """``--claim``'s help: the form, and every registered kind (third-party ones included) with its parameters."""
    from ..claims import claim_kind, claim_kinds

    kinds = "; ".join(f"{name}: {', '.join(claim_kind(name).fields) or '(none)'}" for name in claim_kinds())
    return (
        "audit a claim of any registered kind instead, its parameters by name, each VALUE read as JSON where it "
        f"parses (zcdp:rho=0.5, renyi:orders=[2,4],renyi_epsilons=[0.5,1]); kinds and their parameters: {kinds}"
    ).replace("%", "%%")  # argparse formats help with %


def _add_claim_options(p, *, epsilon_help: str, stated: bool = True) -> None:
    """The claim flags; ``stated``: the command has a mechanism, whose stated claim the flags may leave to it."""
    from ..claims.parameters import CLAIM_TEXT_FORM

    p.add_argument(
        "--epsilon",
        type=_epsilon,
        default=None,
        help=epsilon_help
        + (
            "; omitted (with no --claim/--rho/--mu/--renyi), the claim the mechanism states"
            if stated
            else "; this or one of --claim/--rho/--mu/--renyi is required"
        ),
    )
    p.add_argument(
        "--delta",
        type=_finite_float,
        default=None,
        help="claimed delta in [0, 1) (default: "
        + ("the stated delta at the stated epsilon, else 0)" if stated else "0)"),
    )
    p.add_argument("--claim", metavar=CLAIM_TEXT_FORM, default=None, help=_claim_help())
    p.add_argument("--rho", type=_finite_float, default=None, help="audit a rho-zCDP claim instead (rho > 0)")
    p.add_argument("--mu", type=_finite_float, default=None, help="audit a mu-Gaussian DP claim instead (mu > 0)")
    p.add_argument(
        "--renyi",
        type=_finite_float,
        nargs=2,
        metavar=("ALPHA", "EPS"),
        default=None,
        help="audit an (ALPHA, EPS)-Rényi DP claim instead (order ALPHA > 1, EPS > 0)",
    )
    p.add_argument("--alpha", type=_finite_float, default=0.05, help="test level / 1 - confidence (default 0.05)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="dpverify",
        description="Audit differential-privacy claims and run the project's verification suite.",
        epilog=EXIT_CODES_HELP,
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for add in (_add_audit_parser, _add_audit_samples_parser, _add_suite_parser, _add_reproduce_parser):
        add(sub)
    return parser


def _exit_codes(done: str, usage: str, failure: str, *, found: str | None = None) -> str:
    """A command's epilog: what each of the exit codes (:data:`EXIT_CODES_HELP`) means for it."""
    finding = f"1: {found}; " if found else ""
    return (
        f"Exit 0: {done}; {finding}2: usage error ({usage}); 3: any other failure ({failure}); "
        "130: interrupted; 141: the reader of the output went away (| head). No traceback unless --debug."
    )


def _add_audit_parser(sub) -> None:
    from .search import add_search_options

    p = sub.add_parser(
        "audit",
        help="audit a mechanism's privacy claim (of any kind: (eps, delta), zCDP, Rényi, Gaussian DP, trade-off "
        "curve) on one pair of neighbouring inputs, or search a neighbouring relation for the worst pair",
        description="Draw samples of M(x) and M(x'), select the most telling output event on "
        "part of them and certify it on the rest (Clopper-Pearson). From 1e7 samples per input "
        "it first says how long the run will take. With --search RELATION or --pairs FILE.json "
        "instead of --x/--x-prime, screen many neighbouring pairs first and certify the worst "
        "one found on fresh samples (the false-alarm rate stays alpha).",
        epilog=_exit_codes(
            "no violation found",
            "bad arguments or claim, a mechanism that cannot be imported or built",
            "the mechanism raised or returned unusable outputs, the report cannot be written, internal error",
            found="violation at level alpha",
        ),
    )
    p.add_argument(
        "mechanism",
        help="MODULE:CALLABLE, a callable mechanism(data, rng) (a class is "
        "instantiated with no arguments); the current directory is importable",
    )
    p.add_argument("--x", help="first input, as JSON (arrays become tuples)")
    p.add_argument("--x-prime", help="neighbouring input, as JSON")
    _add_claim_options(
        p, epsilon_help=f"claimed epsilon (> 0 and at most {MAX_EPSILON:.2f}, where e^epsilon overflows)"
    )
    p.add_argument("--samples", type=_positive_int, default=100_000, help="samples per input (default 100000)")
    p.add_argument("--seed", type=_seed, default=None, help="non-negative seed (default: fresh, printed for replay)")
    _add_selection_options(p)
    _add_common(p, workers_default=1, workers_help="local worker processes for the sampling (default 1)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument(
        "--report", metavar="FILE", help="also write an HTML report of the audit (missing folders are created)"
    )
    p.add_argument("--quiet", action="store_true", help="no progress output")
    add_search_options(p, _positive_int, _finite_float)
    p.set_defaults(func=_cmd_audit)


def _add_audit_samples_parser(sub) -> None:
    p = sub.add_parser(
        "audit-samples",
        help="audit a privacy claim (of any kind) on samples already drawn (two .npy files)",
        description="The audit of 'dpverify audit' on given samples of M(x) and M(x'): the first "
        "--n-selection samples of each file choose the event, the rest certify it (streamed from "
        "the memory-mapped files). The samples of each file must be i.i.d. in the order stored.",
        epilog=_exit_codes(
            "no violation found",
            "bad arguments or claim, missing files, too few samples",
            "unreadable or unusable samples, internal error",
            found="violation at level alpha",
        ),
    )
    p.add_argument("samples_x", metavar="X.npy", help="samples of M(x), first axis indexes samples")
    p.add_argument("samples_x_prime", metavar="X_PRIME.npy", help="samples of M(x')")
    _add_claim_options(p, epsilon_help=f"claimed epsilon (> 0 and at most {MAX_EPSILON:.2f})", stated=False)
    p.add_argument(
        "--x",
        default=None,
        help="optional: the input of the first file, as JSON (lets the floating-point reachability events run)",
    )
    p.add_argument("--x-prime", default=None, help="optional: the input of the second file, as JSON")
    _add_selection_options(p)
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--debug", action="store_true", help="print the full traceback of an error")
    p.set_defaults(func=_cmd_audit_samples)


def _add_run_options(p, *, seed_help: str, listed: str, runs_at_once: str) -> None:
    """``--seed``, ``--workers`` (default: every core), ``--scheduler``, ``--debug``, ``--list`` and ``--quiet``."""
    from ..reproduction import available_workers

    cores = available_workers()
    p.add_argument("--seed", type=_seed, default=0, help=seed_help)
    _add_common(
        p,
        workers_default=cores,
        workers_help=f"{runs_at_once} (default: every core this process may use, here {cores})",
    )
    p.add_argument("--list", action="store_true", help=f"list the {listed} and exit")
    p.add_argument("--quiet", action="store_true", help="no progress lines")


def _add_suite_parser(sub) -> None:
    p = sub.add_parser(
        "suite",
        help="run every registered verification on built-in instances (the main job)",
        description="Run every verification registered under the 'dpverify.verifications' entry "
        "point (textbook mechanisms and the project's algorithms) and print a table. Each "
        "verification's seed is derived from --seed and its name, so the results do not depend "
        "on --workers. The first run compiles numba kernels (cached afterwards) and says so.",
        epilog=_exit_codes(
            "every verification passed",
            "bad arguments, no verification matches --select",
            "the report cannot be written, missing extra, internal error",
            found="one failed",
        ),
    )
    p.add_argument("--select", metavar="PATTERN", help="only names matching this shell pattern, e.g. 'textbook/*'")
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write a JSON report (missing folders are created, and the file is checked to be writable before the run)",
    )
    _add_run_options(
        p,
        seed_help="non-negative base seed (default 0)",
        listed="verifications",
        runs_at_once=("verifications run at once, in separate processes"),
    )
    p.set_defaults(func=_cmd_suite)


def _add_reproduce_parser(sub) -> None:
    p = sub.add_parser(
        "reproduce",
        help="regenerate a figure of one of the papers (PNG and CSV)",
        description="Regenerate a paper figure; --list shows the available names. The simulation "
        "runs are independent tasks with their own seeds, so the files do not depend on --workers "
        "or --scheduler. Needs the plot extra (matplotlib), checked before any work.",
        epilog=_exit_codes(
            "files written",
            "unknown or missing name, bad arguments",
            "the plot extra is missing, --out cannot be written, internal error",
        ),
    )
    p.add_argument("name", nargs="?", help="reproduction name (see --list)")
    p.add_argument("--out", default="dpverify-out", help="output folder, created if missing (default dpverify-out)")
    p.add_argument("--quick", action="store_true", help="a small, fast version (minutes -> seconds)")
    _add_run_options(
        p,
        seed_help="non-negative seed (default 0)",
        listed="reproductions",
        runs_at_once=("local threads running the simulation runs"),
    )
    p.set_defaults(func=_cmd_reproduce)


def _exit_code_of(exc: BaseException) -> int:
    if isinstance(exc, _UsageError):
        return EXIT_USAGE
    if isinstance(exc, DPVerifyError):
        # Values outside their domain (claims, parameters, sample sizes, equal inputs) are the
        # caller's to fix; a mechanism that raises or returns unusable outputs, and a missing
        # extra, are failures.
        return EXIT_USAGE if isinstance(exc, ValueError) else EXIT_FAILURE
    return EXIT_FAILURE


def _message_of(exc: BaseException) -> str:
    if isinstance(exc, (_UsageError, _Failure)):
        return str(exc)
    if isinstance(exc, DPVerifyError):
        text = f"{type(exc).__name__}: {exc}"
        if exc.__cause__ is not None:
            text += f"\n  caused by {type(exc.__cause__).__name__}: {exc.__cause__}"
        return text
    if isinstance(exc, MemoryError):
        return "out of memory; use fewer --samples"
    if type(exc).__module__ != "builtins":
        # a named error of the code that ran (a verification, a reproduction, a data loader) says
        # what is wrong itself: e.g. a missing data set
        return f"{type(exc).__name__}: {exc}"
    return f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)"


def main(argv=None) -> int:
    """Run the command line; returns the exit code (see the module docstring)."""
    with warnings.catch_warnings():  # restores the warning display on the way out (main runs in tests too)
        warnings.showwarning = _show_warning
        try:
            code = _run(argv)
            sys.stdout.flush()  # here, not at exit: a reader gone is then handled below
            return code
        except BrokenPipeError:
            return _reader_gone()


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A plug-in's warning as one line, ``dpverify: warning: ...``; others as Python shows them."""
    from ..plugins import PluginWarning

    if issubclass(category, PluginWarning):
        print(f"dpverify: warning: {message}", file=sys.stderr if file is None else file, flush=True)
    else:
        print(warnings.formatwarning(message, category, filename, lineno, line), file=file or sys.stderr, end="")


def _reader_gone() -> int:
    """Standard output's reader went away (``| head``): stop without a word, as a program SIGPIPE ends.

    Standard output is pointed at the null device first, so that Python's flush at exit does not fail
    a second time (the recipe of the Python documentation, "Note on SIGPIPE")."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):  # a standard output without a file descriptor (captured): nothing to flush
        pass
    return EXIT_READER_GONE


def _run(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:
        raise
    except KeyboardInterrupt:
        return _interrupted(args, argv)
    except Exception as exc:  # every error becomes a message and an exit code
        if _caused_by_interrupt(exc):  # e.g. an ImportError of a module whose import Ctrl-C cut short
            return _interrupted(args, argv)
        if args.debug:
            traceback.print_exc()
        print(f"dpverify {args.command}: error: {_message_of(exc)}", file=sys.stderr, flush=True)
        return _exit_code_of(exc)


def _caused_by_interrupt(exc: BaseException) -> bool:
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _interrupted(args, argv) -> int:
    # The executors have cancelled their pending tasks on the way out (open_executor).
    print(f"\ndpverify {args.command}: interrupted", file=sys.stderr, flush=True)
    if argv is None:
        # The console script: do not wait for a compiled run still busy in a worker thread.
        sys.stdout.flush()
        os._exit(EXIT_INTERRUPTED)
    return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
