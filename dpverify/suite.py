"""Registry and runner for the verifications behind ``dpverify suite``.

A *verification* is a named, self-contained check (a privacy audit, an exact
privacy-loss computation, a distribution-equality test) with a human-readable
claim. Packages register verifications through the entry-point group
``dpverify.verifications``: each entry point names a callable that returns an
iterable of :class:`Verification`. dpverify registers its own textbook
mechanisms the same way, so the runner knows nothing about any algorithm family.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import json
import time
import traceback
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Callable, Iterable

import numpy as np

__all__ = [
    "Verification",
    "VerificationOutcome",
    "VerificationRecord",
    "registered_verifications",
    "run_suite",
]

ENTRY_POINT_GROUP = "dpverify.verifications"


@dataclass(frozen=True)
class VerificationOutcome:
    """What one verification found.

    Attributes
    ----------
    passed : bool
        Whether the verified claim survived.
    certified_lower_bound : float or None
        A ``1 - alpha`` lower confidence bound on the privacy loss (or the
        statistic the check certifies), when the verification samples.
    exact_loss : float or None
        The exact privacy loss, where the output distribution is computable.
    details : str
        One or two sentences a reader can act on (event, p-value, slack).
    """

    passed: bool
    certified_lower_bound: float | None = None
    exact_loss: float | None = None
    details: str = ""


@dataclass(frozen=True)
class Verification:
    """A named check that ``dpverify suite`` runs.

    Parameters
    ----------
    name : str
        Unique, slash-separated name, e.g. ``"textbook/laplace"``.
    claim : str
        The claim verified, e.g. ``"eps = 1 (pure DP)"``.
    run : callable
        ``run(seed) -> VerificationOutcome``; must be deterministic given the seed.
    """

    name: str
    claim: str
    run: Callable[[int], VerificationOutcome] = field(repr=False, compare=False)


@dataclass(frozen=True)
class VerificationRecord:
    """A row of the suite report: a verification, its outcome and its time."""

    name: str
    claim: str
    passed: bool
    certified_lower_bound: float | None
    exact_loss: float | None
    details: str
    seconds: float
    error: str | None = None

    def to_dict(self) -> dict:
        return _jsonable(dataclasses.asdict(self))


def _jsonable(obj):
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, float) and not np.isfinite(obj):
        return str(obj)
    return obj


def registered_verifications() -> list[Verification]:
    """All verifications registered under ``dpverify.verifications``, sorted by name.

    An entry point that fails to import is reported as a failing verification
    rather than hidden, so a broken registration cannot make the suite pass.
    """
    found: dict[str, Verification] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            items = list(ep.load()())
        except Exception as exc:  # surfaced as a failing row
            message = f"{type(exc).__name__}: {exc}"
            items = [
                Verification(
                    name=f"{ep.name}/<registration>",
                    claim="entry point loads",
                    run=_failing(message),
                )
            ]
        for item in items:
            if item.name in found:
                raise ValueError(f"two verifications are named {item.name!r}")
            found[item.name] = item
    return [found[k] for k in sorted(found)]


def _failing(message: str) -> Callable[[int], VerificationOutcome]:
    def run(seed: int) -> VerificationOutcome:
        raise RuntimeError(message)

    return run


def run_suite(
    verifications: Iterable[Verification] | None = None,
    *,
    seed: int = 0,
    select: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[VerificationRecord]:
    """Run verifications and return one record each.

    Parameters
    ----------
    verifications : iterable of Verification, optional
        Defaults to :func:`registered_verifications`.
    seed : int
        Base seed; each verification gets its own stream spawned from it, in
        the order of the sorted names, so adding a verification does not change
        the seeds of the others that sort before it.
    select : str, optional
        A shell-style pattern (``fnmatch``) on names, e.g. ``"textbook/*"``.
    progress : callable, optional
        Called with a line of text before each verification starts.
    """
    items = list(registered_verifications() if verifications is None else verifications)
    if select is not None:
        items = [v for v in items if fnmatch.fnmatch(v.name, select)]
    records = []
    for index, item in enumerate(items):
        child = np.random.SeedSequence([seed, _stable_hash(item.name)])
        child_seed = int(child.generate_state(1)[0])
        if progress is not None:
            progress(f"[{index + 1}/{len(items)}] {item.name}")
        start = time.perf_counter()
        error = None
        try:
            outcome = item.run(child_seed)
        except Exception as exc:
            error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
            outcome = VerificationOutcome(passed=False, details=error)
        records.append(
            VerificationRecord(
                name=item.name,
                claim=item.claim,
                passed=bool(outcome.passed),
                certified_lower_bound=outcome.certified_lower_bound,
                exact_loss=outcome.exact_loss,
                details=outcome.details,
                seconds=time.perf_counter() - start,
                error=error,
            )
        )
    return records


def _stable_hash(name: str) -> int:
    """A hash of ``name`` that does not change between interpreter runs."""
    value = 0
    for byte in name.encode():
        value = (value * 131 + byte) % (2**61 - 1)
    return value


def format_table(records: list[VerificationRecord]) -> str:
    """Render records as a fixed-width text table."""

    def num(v):
        return "-" if v is None else f"{v:.4g}"

    rows = [("verification", "claim", "lower bound", "exact", "verdict", "time")]
    for r in records:
        rows.append(
            (
                r.name,
                r.claim,
                num(r.certified_lower_bound),
                num(r.exact_loss),
                "pass" if r.passed else "FAIL",
                f"{r.seconds:.1f}s",
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def write_report(records: list[VerificationRecord], path, *, seed: int) -> None:
    """Write the suite's JSON report."""
    payload = {
        "seed": seed,
        "passed": all(r.passed for r in records),
        "verifications": [r.to_dict() for r in records],
    }
    with open(path, "w") as fh:
        json.dump(payload, fh, indent=2)
