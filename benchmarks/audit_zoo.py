"""Audits of the mechanism zoo (dpverify.mechanisms) against the published DP-Sniper/StatDP bounds.

As an asv benchmark: ``track_lower_bound`` records the certified bound of each
zoo entry at a modest sample size, ``time_audit`` the time of the audit.

As a script, the comparison table (claimed eps = 0.1, 90% confidence
like the published table, at most 1e7 samples per input)::

    python benchmarks/audit_zoo.py --samples 10000000 --out zoo_table.md

writes ``| mechanism | true eps | dpverify bound | samples | DP-Sniper | StatDP |``
rows plus the verdict, the event family that found the bound, and the time.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import dpverify
from dpverify.mechanisms import zoo_entries

if not __package__:  # run as a script: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import markdown_table  # noqa: E402

ALPHA = 0.1
SEED = 20240601


def _names():
    return [e.name for e in zoo_entries()]


def _entry(name):
    return next(e for e in zoo_entries() if e.name == name)


def run_entry(entry, n_samples: int, seed: int = SEED, alpha: float = ALPHA, executor=None):
    """Audit one zoo entry at its claim; returns (AuditResult, seconds)."""
    start = time.perf_counter()
    result = entry.audit(n_samples=n_samples, alpha=alpha, seed=seed, executor=executor)
    return result, time.perf_counter() - start


class AuditZoo:
    """Bound and time of the audit of each zoo entry at 2e5 samples per input."""

    params = [_names()]
    param_names = ["mechanism"]
    timeout = 600
    n_samples = 200_000

    def setup(self, name):
        self.entry = _entry(name)

    def time_audit(self, name):
        run_entry(self.entry, self.n_samples)

    def track_lower_bound(self, name):
        return run_entry(self.entry, self.n_samples)[0].epsilon_lower_bound

    track_lower_bound.unit = "epsilon"


def _fmt_true(value: float) -> str:
    return "inf" if math.isinf(value) else f"{value:.4g}"


def _true_epsilon(entry) -> float:
    """The exact loss on the pair where the mechanism computes it (pmf), else the catalogue's value."""
    exact = getattr(entry.mechanism, "pair_epsilon", None)
    if exact is not None and not entry.broken:
        return exact(entry.x, entry.x_prime)
    return entry.true_epsilon


def table(n_samples: int, *, seed: int = SEED, executor=None, progress: bool = True, only: str = "") -> str:
    """The markdown table of the zoo audits (see the module docstring)."""
    head = [
        f"Claimed eps = 0.1 (Gaussian: delta = 1e-5), alpha = {ALPHA} (90% confidence), seed {seed}, "
        f"default selection size; `python benchmarks/audit_zoo.py --samples {n_samples}`.",
        "",
        "| mechanism | true eps | dpverify bound | samples | DP-Sniper | StatDP | verdict | event family | time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    entries = [entry for entry in zoo_entries() if only in entry.name]
    rows = (_row(entry, n_samples, seed=seed, executor=executor) for entry in entries)
    return markdown_table(head, rows, progress=progress)


def _row(entry, n_samples: int, *, seed: int, executor) -> str:
    """The table's row of one zoo entry (an error is reported in it, not hidden)."""
    try:
        result, seconds = run_entry(entry, n_samples, seed=seed, executor=executor)
    except Exception as exc:
        return (
            f"| {entry.name} | {_fmt_true(_true_epsilon(entry))} | ERROR {type(exc).__name__}: "
            f"{str(exc)[:80]} | {n_samples:.0e} | {entry.dp_sniper} | {entry.statdp} | - | - | - |"
        )
    verdict = "violation" if result.violation else "no violation"
    ok = result.violation == entry.broken
    return (
        f"| {entry.name} | {_fmt_true(_true_epsilon(entry))} | {result.epsilon_lower_bound:.4f} | "
        f"{n_samples:.0e} | {entry.dp_sniper} | {entry.statdp} | {verdict}{'' if ok else ' (UNEXPECTED)'} | "
        f"{result.event.family} | {seconds:.0f} s |"
    )


def calibration(n_audits: int, seed: int = 51, n_samples: int = 5_000, alpha: float = 0.05) -> str:
    """False-violation rate of ``n_audits`` audits of correct mechanisms at ``alpha``.

    Same design as properties/auditor/audits/test_calibration.py: randomized response,
    fine-grid Laplace and geometric mechanism at eps = 1 on pairs where they attain
    the claim, cycled; each audit has its own spawned seed.
    """
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    from dpverify.mechanisms import GeometricMechanism, GridLaplace, RandomizedResponse

    mechanisms = [(RandomizedResponse(1.0), 0, 1), (GridLaplace(1.0), 0.0, 1.0), (GeometricMechanism(1.0), 0, 1)]
    seeds = np.random.SeedSequence(seed).spawn(n_audits)
    start = time.perf_counter()
    per = [0, 0, 0]
    for i, s in enumerate(seeds):
        mechanism, x, x_prime = mechanisms[i % 3]
        r = dpverify.audit(mechanism, x, x_prime, epsilon=mechanism.epsilon, n_samples=n_samples, alpha=alpha, seed=s)
        per[i % 3] += bool(r.violation)
    k = sum(per)
    low, high = proportion_confint(k, n_audits, alpha=0.05, method="beta")
    return (
        f"false-violation rate at alpha = {alpha}: {k}/{n_audits} = {k / n_audits:.4f}, "
        f"95% Clopper-Pearson interval [{low:.4f}, {high:.4f}] "
        f"(randomized response {per[0]}, fine-grid Laplace {per[1]}, geometric {per[2]}; "
        f"{n_samples} samples per input per audit, seed {seed}, {time.perf_counter() - start:.0f} s)"
    )


def calibration_by_output_type(n_audits: int, seed: int = 71, n_samples: int = 5_000, alpha: float = 0.05) -> str:
    """False-violation rate per output type (``dpverify.mechanisms.output_types``), as a Markdown table."""
    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    from dpverify.mechanisms.output_types import CALIBRATION_CASES

    rows = ["| output type | false violations | rate | 95% Clopper-Pearson interval |", "|---|---|---|---|"]
    total = 0
    for name, (mechanism, x, x_prime) in sorted(CALIBRATION_CASES.items()):
        seeds = np.random.SeedSequence([seed, len(name)]).spawn(n_audits)
        k = sum(
            dpverify.audit(
                mechanism, x, x_prime, epsilon=mechanism.epsilon, n_samples=n_samples, alpha=alpha, seed=s
            ).violation
            for s in seeds
        )
        total += k
        low, high = proportion_confint(k, n_audits, alpha=0.05, method="beta")
        rows.append(f"| {name} | {k}/{n_audits} | {k / n_audits:.3f} | [{low:.3f}, {high:.3f}] |")
    n = n_audits * len(CALIBRATION_CASES)
    low, high = proportion_confint(total, n, alpha=0.05, method="beta")
    rows.append(f"| all | {total}/{n} | {total / n:.4f} | [{low:.4f}, {high:.4f}] |")
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=float, default=1e7, help="samples per input (default 1e7)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=1, help="local worker processes")
    parser.add_argument("--out", default=None, help="write the markdown table here")
    parser.add_argument("--only", default="", help="only entries whose name contains this text")
    parser.add_argument(
        "--calibration", type=int, default=0, help="instead of the table, run this many calibration audits"
    )
    parser.add_argument(
        "--by-output-type",
        type=int,
        default=0,
        help="instead of the table, this many calibration audits per output type",
    )
    args = parser.parse_args(argv)
    if args.by_output_type:
        print(calibration_by_output_type(args.by_output_type))
        return
    if args.calibration:
        print(calibration(args.calibration, seed=args.seed if args.seed != SEED else 51))
        return
    text = table(int(args.samples), seed=args.seed, executor=args.workers, only=args.only)
    if args.out:
        with open(args.out, "w") as handle:
            handle.write(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
