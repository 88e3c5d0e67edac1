"""Pipelines with planted glue bugs, each found by the grey-box probes or their follow-up audit, and the time it took.

The planted pipelines of :mod:`dpverify.mechanisms.glue` (a sensitivity declared too small, the clipping
skipped, a budget charged once for two releases, a threshold on the true count; two of them through
diffprivlib's own mechanisms, replayed by the probe) are probed on their pairs
(:func:`dpverify.probes.probe_search`): found when the probe reports the finding the bug makes. The
released-key pipelines of :data:`dpverify.mechanisms.thresholded.PLANTED_BUGS` (a threshold's delta
miscomputed, released keys leaking presence, a sensitivity declared too small, a budget charged once, noise
drawn only above the true threshold) change how likely a key is released, which no shift at a noise call
shows: they go through :func:`dpverify.probes.probe_and_audit` (the key families, alpha = 1e-6), and are
found when its certified audit flags the claim or the probe reports a finding. Each correct version runs the
same way and counts as flagged by the same rule (the probe's findings for the first group; the audit's
verdict or the probe's findings for the second: both must be clean). Tracked: whether it was flagged and the
wall time; the script also prints the probe's draw-count notes and the largest ratio of a measured shift to
the declared sensitivity, or the audit's event and certified lower bound on delta. As a script::

    python benchmarks/probes.py --samples 100000

prints one row per case (the diffprivlib cases need diffprivlib, the ``adapters`` extra).
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from dataclasses import dataclass, field

from dpverify.mechanisms.glue import (
    ClippedMean,
    CountAndSums,
    DataBoundsMean,
    DiffprivlibDoubledCount,
    DiffprivlibMean,
    SumScaledByNoisyCount,
    replace_one_pairs,
    replace_one_strategy,
    thresholded_on_noisy_count,
    thresholded_on_true_count,
)
from dpverify.mechanisms.thresholded import PLANTED_BUGS, ThresholdedCounts
from dpverify.probes import probe_and_audit, probe_search

EPSILON, DELTA, ALPHA = 1.0, 0.02, 1e-6
KEY_FAMILIES = ("key-presence", "key-value", "key-count")


@dataclass(frozen=True)
class Case:
    """A pipeline, its pairs (a function that makes them: a list, or a Hypothesis strategy), whether a bug is
    planted in it, the finding kind that shows the bug (None: the follow-up audit finds it) and the
    probe's options."""

    pipeline: object
    pairs: object
    planted: bool
    shows: str | None
    options: dict = field(default_factory=dict)


def _counts(_):
    return [([0.2, 0.9, 0.5], [0.2, 0.9]), ([0.0, 1.0], [0.0, 0.0])]


def _records(_):
    return [([1, 2, 3], [1, 2]), ([1] * 5, [1] * 4), ([1] * 2, [1])]


def _means(_):
    return replace_one_pairs(5, 10.0)


def _searched(_):
    return replace_one_strategy(5, 10.0)


def _adaptive(_):
    return [([0.5] * 10, [0.5] * 9), ([0.5] * 9, [0.5] * 10)]


def _key_pair(pair):
    return lambda _: [pair]


CASES = {
    "clipped mean, sensitivity 1/n declared (diffprivlib #104)": Case(
        ClippedMean(10.0, 5, EPSILON, declared=0.2), _means, True, "sensitivity"
    ),
    "clipped mean, correct": Case(ClippedMean(10.0, 5, EPSILON), _means, False, "sensitivity"),
    "mean, clipping skipped, Hypothesis search (smartnoise-sdk #621)": Case(
        ClippedMean(10.0, 5, EPSILON, clip=False), _searched, True, "sensitivity", {"max_examples": 25}
    ),
    "clipped mean, correct, Hypothesis search": Case(
        ClippedMean(10.0, 5, EPSILON), _searched, False, "sensitivity", {"max_examples": 25}
    ),
    "count and sum, budget charged once": Case(
        CountAndSums(EPSILON, 2, split=False), _counts, True, "budget", {"epsilon": EPSILON}
    ),
    "count and sum, budget split": Case(CountAndSums(EPSILON, 2), _counts, False, "budget", {"epsilon": EPSILON}),
    "mean, bounds from the data (diffprivlib's bounds calculated on the data)": Case(
        DataBoundsMean(EPSILON), _means, True, "noise-calibration"
    ),
    "sum scaled by a noisy count, correct (adaptive)": Case(
        SumScaledByNoisyCount(EPSILON), _adaptive, False, "noise-calibration"
    ),
    "threshold on the true count": Case(thresholded_on_true_count, _records, True, "control-flow"),
    "threshold on the noisy count": Case(thresholded_on_noisy_count, _records, False, "control-flow"),
    "thresholded count, correct (probe, then audit)": Case(
        ThresholdedCounts(EPSILON, DELTA), _key_pair(({"a": 1, "b": 50}, {"b": 50})), False, None
    ),
    **{
        f"{name} (probe, then audit)": Case(cls(EPSILON, DELTA, **fields), _key_pair((x, xp)), True, None)
        for name, (cls, fields, x, xp) in PLANTED_BUGS.items()
    },
}
if importlib.util.find_spec("diffprivlib") is not None:
    import diffprivlib.mechanisms  # noqa: F401 (imported here, so that its import is not timed with a case)

    CASES.update(
        {
            "diffprivlib Laplace, sensitivity 1 for a doubled count (diffprivlib #105/#110)": Case(
                DiffprivlibDoubledCount(EPSILON, 1.0), _records, True, "sensitivity"
            ),
            "diffprivlib Laplace, doubled count, correct": Case(
                DiffprivlibDoubledCount(EPSILON, 2.0), _records, False, "sensitivity"
            ),
            "diffprivlib Laplace, mean never clipped (smartnoise-sdk #621)": Case(
                DiffprivlibMean(10.0, clip=False), _means, True, "sensitivity"
            ),
            "diffprivlib Laplace, clipped mean, correct": Case(
                DiffprivlibMean(10.0, clip=True), _means, False, "sensitivity"
            ),
        }
    )


def run(name: str, n_samples: int, seed: int = 1) -> dict:
    """Probe (and, for the released-key cases, audit) case ``name``: its verdict, what flagged it (``probe``,
    ``audit``, both joined by ``+``, or empty), the probe's finding kinds and draw-count sites, and the wall time."""
    case = CASES[name]
    start = time.perf_counter()
    pairs = case.pairs(None)
    if case.shows is None:
        result = probe_and_audit(
            case.pipeline,
            pairs,
            seed=seed,
            n_samples=n_samples,
            alpha=ALPHA,
            event_families=KEY_FAMILIES,
            **case.options,
        )
        report = result.report
        flagged = result.violation or report.flagged
        found_by = "+".join(name for name, found in (("probe", report.flagged), ("audit", result.violation)) if found)
        event = result.audit.event.description if result.audit.event is not None else "-"
        detail = f"{event}, delta >= {result.audit.delta_lower_bound:.4f}"
    else:
        report = probe_search(case.pipeline, pairs, seed=seed, **case.options)
        flagged = report.flagged
        found_by = "probe" if flagged else ""
        detail = f"largest shift / declared sensitivity {report.excess():.4g}"
    seconds = time.perf_counter() - start
    kinds = sorted({f.kind for f in report.findings})
    return {
        "flagged": flagged,
        "found_by": found_by,
        "probe_findings": kinds,
        "draw_count_sites": len(report.draw_count_sites),
        "detail": detail,
        "seconds": seconds,
    }


class PlantedGlueBugs:
    """Each planted bug found (and no correct pipeline flagged), with the time it took."""

    params = [list(CASES)]
    param_names = ["case"]
    number = 1
    repeat = 1
    timeout = 300

    def setup(self, name):
        self.outcome = run(name, 100_000)

    def time_probe_or_audit(self, name):
        run(name, 100_000)

    def track_flagged(self, name):
        return int(self.outcome["flagged"])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000, help="the audits' samples per input")
    args = parser.parse_args(argv)
    print(
        "| case | planted | flagged | by | probe findings | draw-count notes | measured | time (s) |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for name, case in CASES.items():
        o = run(name, args.samples)
        findings = ", ".join(o["probe_findings"]) or "-"
        print(
            f"| {name} | {case.planted} | {o['flagged']} | {o['found_by'] or '-'} | {findings} "
            f"| {o['draw_count_sites']} | {o['detail']} | {o['seconds']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
