"""Registry and runner for the verifications behind ``dpverify suite``.

A *verification* is a named, self-contained check (a privacy audit, an exact
privacy-loss computation, a distribution-equality test) with a human-readable
statement and, where it is about privacy, the claim it checks as a
:class:`~dpverify.PrivacyClaim`. Packages register verifications through the entry-point group
``dpverify.verifications``: each entry point names a callable that returns an
iterable of :class:`Verification`. dpverify registers its own textbook
mechanisms the same way, so the runner knows nothing about any algorithm family.
"""

from __future__ import annotations

import fnmatch
import json
import sys
import time
import traceback
from collections.abc import Callable, Iterable

import numpy as np

from .._validation import check_positive_int
from ..errors import PluginError
from ..plugins import load_group, unique_names
from ..verification import Verification, VerificationOutcome, VerificationRecord

__all__ = [
    "Verification",
    "VerificationOutcome",
    "VerificationRecord",
    "registered_verifications",
    "select_verifications",
    "run_suite",
    "time_left",
]

ENTRY_POINT_GROUP = "dpverify.verifications"


def registered_verifications() -> list[Verification]:
    """All verifications registered under ``dpverify.verifications``, sorted by name.

    An entry point that fails to load (:func:`dpverify.plugins.load_group`) is reported as a
    failing verification rather than hidden, so a broken registration cannot make the suite pass.
    """
    loaded = load_group(ENTRY_POINT_GROUP, Verification, call=True)
    failing = [
        Verification(name=f"{name}/<registration>", statement="entry point loads", run=_failing(error))
        for name, error in loaded.failures.items()
    ]
    found = unique_names([*loaded.records, *failing], lambda item: item.name, ENTRY_POINT_GROUP)
    return [found[k] for k in sorted(found)]


def _failing(error: PluginError) -> Callable[[int], VerificationOutcome]:
    def run(seed: int) -> VerificationOutcome:
        raise error

    return run


def select_verifications(verifications: Iterable[Verification], select: str | None) -> list[Verification]:
    """The verifications whose names match the shell-style pattern ``select`` (all when ``None``)."""
    items = list(verifications)
    if select is None:
        return items
    return [v for v in items if fnmatch.fnmatch(v.name, select)]


def verification_seed(seed: int, name: str) -> int:
    """The seed a verification named ``name`` gets from the suite's base ``seed``."""
    child = np.random.SeedSequence([seed, _stable_hash(name)])
    return int(child.generate_state(1)[0])


#: Verifications finished before the suite estimates the time left (one is no sample of the rest).
ESTIMATE_AFTER = 3


def time_left(records, n_total: int, workers: int = 1) -> float | None:
    """Seconds left, from the verifications finished so far (``records``); None before :data:`ESTIMATE_AFTER`.

    The mean work time of a finished verification, less the time it spent compiling numba kernels
    (paid once, by the first verifications), times the verifications left, over the workers. An
    estimate from the wall time since the start would charge the start-up and every compilation to
    each verification left (the first estimate of an 86 s run once said 1322 s).
    """
    records = list(records)
    left = n_total - len(records)
    if left <= 0:
        return 0.0
    if len(records) < min(ESTIMATE_AFTER, n_total):
        return None
    work = [max(0.0, r.seconds - r.compile_seconds) for r in records]
    return sum(work) / len(work) * left / max(1, min(workers, left))


def _workers(executor) -> int:
    """Workers of an executor (``_max_workers`` of the standard pools; 1 where unknown)."""
    return int(getattr(executor, "_max_workers", None) or 1)


def run_suite(
    verifications: Iterable[Verification] | None = None,
    *,
    seed: int = 0,
    select: str | None = None,
    progress: Callable[[str], None] | None = None,
    executor=None,
) -> list[VerificationRecord]:
    """Run verifications and return one record each, in the order given.

    Parameters
    ----------
    verifications : iterable of Verification, optional
        Defaults to :func:`registered_verifications`.
    seed : int or numpy.random.Generator
        Base seed; each verification gets its own seed derived from it and its
        name (:func:`verification_seed`), so the results do not depend on the
        order, on the other verifications or on the executor. A ``Generator``
        is not drawn from: the base seed is the first word of a child spawned
        from its SeedSequence (:func:`dpverify.pipeline.sampling.resolve_seed`), so
        generators made alike give the same records.
    select : str, optional
        A shell-style pattern (``fnmatch``) on names, e.g. ``"textbook/*"``.
    progress : callable, optional
        Called with a line of text: before each verification starts (in order),
        or as each finishes, with an estimate of the time left (on an executor);
        and when a verification compiles numba kernels.
    executor : concurrent.futures.Executor, optional
        Runs the families of verifications (the names up to their first ``/``)
        concurrently, each family in order in one worker, so that the kernels
        its verifications share are compiled once. A process pool or a Dask executor
        needs registered verifications (a worker finds them again by name) or
        picklable ones.
    """
    if isinstance(seed, np.random.Generator):
        from ..pipeline.sampling import resolve_seed

        seed = int(resolve_seed(seed)[0].generate_state(1, np.uint32)[0])
    seed = check_positive_int(seed, "seed", minimum=0)
    items = select_verifications(registered_verifications() if verifications is None else verifications, select)
    if executor is None:
        records = []
        for index, item in enumerate(items):
            if progress is not None:
                left = time_left(records, len(items))
                eta = "" if left is None else f" (about {left:.0f}s left)"
                progress(f"[{index + 1}/{len(items)}] {item.name}{eta}")
            records.append(_run_one(item, seed, progress))
        return records

    from ..reproduction import map_tasks

    registered = {v.name: v for v in registered_verifications()} if verifications is not None else None
    # One task per family (the name up to its first "/"), run in order in one worker: the
    # verifications of a family share compiled kernels, which a first run compiles once
    # instead of once per worker.
    families: dict[str, list[int]] = {}
    for index, item in enumerate(items):
        families.setdefault(item.name.split("/", 1)[0], []).append(index)
    tasks = []
    for indices in families.values():
        # A registered verification travels by name: its ``run`` may be a closure.
        batch = [
            items[i].name if registered is None or _same(registered.get(items[i].name), items[i]) else items[i]
            for i in indices
        ]
        tasks.append((batch, seed, progress is not None))
    done: list = []
    workers = _workers(executor)

    def finished(index, batch_records):
        for record in batch_records:
            done.append(record)
            if progress is not None:
                left = time_left(done, len(items), workers)
                eta = f", about {left:.0f}s left" if left is not None and len(done) < len(items) else ""
                verdict = "pass" if record.passed else "FAIL"
                progress(f"[{len(done)}/{len(items)}] {record.name}: {verdict} ({record.seconds:.1f}s){eta}")

    results = map_tasks(_run_batch, tasks, executor=executor, on_result=finished)
    records: list = [None] * len(items)
    for indices, batch_records in zip(families.values(), results):
        for i, record in zip(indices, batch_records):
            records[i] = record
    return records


def _same(a: Verification | None, b: Verification) -> bool:
    """Same name, statement, claim and function: the registered verification ``b`` was taken from."""
    if a is None or a != b:
        return False
    return all(getattr(a.run, k, None) == getattr(b.run, k, None) for k in ("__module__", "__qualname__"))


_REGISTRY_CACHE: dict[str, Verification] = {}


def _run_batch(batch, seed: int, announce: bool) -> list[VerificationRecord]:
    """Run verifications in order in a worker; each is a registered name or a Verification."""
    say = (lambda line: print(line, file=sys.stderr, flush=True)) if announce else None
    records = []
    for item in batch:
        if isinstance(item, str):
            if item not in _REGISTRY_CACHE:
                _REGISTRY_CACHE.update({v.name: v for v in registered_verifications()})
            item = _REGISTRY_CACHE[item]
        records.append(_run_one(item, seed, say))
    return records


def _run_one(item: Verification, seed: int, progress) -> VerificationRecord:
    start = time.perf_counter()
    error = None
    with _CompileWatch(item.name, progress) as watch:
        try:
            outcome = item.run(verification_seed(seed, item.name))
        except Exception as exc:
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            outcome = VerificationOutcome(passed=False, details=error)
    return VerificationRecord(
        name=item.name,
        statement=item.statement,
        passed=bool(outcome.passed),
        certified_lower_bound=outcome.certified_lower_bound,
        exact_loss=outcome.exact_loss,
        details=outcome.details,
        seconds=time.perf_counter() - start,
        error=error,
        compile_seconds=watch.seconds,
        claim=item.claim,
    )


class _CompileWatch:
    """Times numba compilations (cache misses) while a verification runs and says when one starts."""

    def __init__(self, name: str, say):
        self.name, self.say = name, say
        self.seconds = 0.0
        self._depth = 0
        self._start = 0.0
        self._told = False
        self._installed = None

    def __enter__(self):
        try:
            from numba.core import event
        except ImportError:  # numba is optional for dpverify itself
            return self
        watch = self

        class Listener(event.Listener):
            def on_start(self, ev):
                if watch._depth == 0:
                    watch._start = time.perf_counter()
                    if watch.say is not None and not watch._told:
                        watch._told = True
                        watch.say(
                            f"    {watch.name}: compiling numba kernels (first run only; cached for the next runs)"
                        )
                watch._depth += 1

            def on_end(self, ev):
                watch._depth -= 1
                if watch._depth == 0:
                    watch.seconds += time.perf_counter() - watch._start

        self._installed = event.install_listener("numba:compile", Listener())
        self._installed.__enter__()
        return self

    def __exit__(self, *exc):
        if self._installed is not None:
            self._installed.__exit__(*exc)
        return False


def _stable_hash(name: str) -> int:
    """A hash of ``name`` that does not change between interpreter runs."""
    value = 0
    for byte in name.encode():
        value = (value * 131 + byte) % (2**61 - 1)
    return value


def format_table(records: list[VerificationRecord]) -> str:
    """Render records as a fixed-width text table: the long statement last, so that a terminal narrower
    than the table cuts the statement, never the verdict or the time."""

    def num(v):
        return "-" if v is None else f"{v:.4g}"

    rows = [("verification", "verdict", "time", "lower bound", "exact", "statement")]
    for r in records:
        rows.append(
            (
                r.name,
                "pass" if r.passed else "FAIL",
                f"{r.seconds:.1f}s",
                num(r.certified_lower_bound),
                num(r.exact_loss),
                r.statement,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    numeric = {2, 3, 4}  # right-aligned, so that 57.6s and 1.2s line up on their units
    lines = [
        "  ".join(
            cell.rjust(w) if i in numeric else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths))
        ).rstrip()
        for row in rows
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write_suite_report(records: list[VerificationRecord], path, *, seed: int) -> None:
    """Write the suite's JSON report."""
    payload = {
        "seed": seed,
        "passed": all(r.passed for r in records),
        "verifications": [r.to_dict() for r in records],
    }
    with open(path, "w") as fh:
        json.dump(payload, fh, indent=2)
