"""Samples per second of each library adapter (dpverify.extras.adapters), and the time to audit a thresholded count.

Each ``sample`` row wraps a release of its library drawn in one ``sample(x, n)`` call, as the audit draws
it, on one core: a one-count Laplace (or geometric) release at eps = 1, and the pipeline-level calls
(diffprivlib's ``tools.mean``, OpenDP's thresholded count ``then_count_by >> then_laplace_threshold``,
PipelineDP's count with private partition selection). Rows "on 2 workers" draw the same adapter through
the audit's sampling layer (``dpverify.pipeline.sampling.draw``) on a warm process pool of two.
Libraries that are not installed are left out (asv: ``NotImplementedError`` in ``setup``). As a script::

    python -m benchmarks.adapter_rates --samples 20000
    python -m benchmarks.adapter_rates --audit 100000   # also the audits of the thresholded count

prints one row per adapter, and with ``--audit`` the wall time of a ``dpverify.audit`` of the thresholded
count at that many samples per input, as a new user builds it (the chain in one piece) and at library speed
(the chain in two parts; on one process and on a pool of two).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import time

import numpy as np

#: The thresholded count's input: 1000 records over 20 keys (counts of 50, far above the threshold).
RECORDS = [f"k{i % 20}" for i in range(1000)]
#: Its neighbour: one record removed.
RECORDS_PRIME = RECORDS[1:]


def _diffprivlib():
    from diffprivlib.mechanisms import Geometric

    from dpverify.extras.adapters import DiffprivlibMechanism

    return DiffprivlibMechanism(Geometric, epsilon=1.0, sensitivity=1)


def _diffprivlib_mean():
    from diffprivlib import tools

    from dpverify.extras.adapters import DiffprivlibTool

    return DiffprivlibTool(tools.mean, epsilon=1.0, bounds=(0.0, 1.0))


def _opendp(mode):
    import opendp.prelude as dp

    from dpverify.extras.adapters import OpenDPMeasurement

    dp.enable_features("contrib")
    scalar = (dp.atom_domain(T=int), dp.absolute_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
    if mode == "batch":
        vector = (dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
        return OpenDPMeasurement(scalar, d_in=1, batch=vector)
    mech = OpenDPMeasurement(scalar, d_in=1)
    if mode == "per call":
        mech._composition = lambda k: None  # the per-call path
    return mech


def threshold_parts():
    """OpenDP's thresholded count of string records in two parts (module level: a build for a process pool)."""
    import opendp.prelude as dp

    dp.enable_features("contrib")
    counts = (dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()) >> dp.t.then_count_by()
    noise = dp.m.make_laplace_threshold(counts.output_domain, counts.output_metric, scale=1.0, threshold=10)
    return {"transformation": counts, "measurement": noise}


def threshold_chain():
    """The same thresholded count as one chained measurement, as a new user writes it."""
    parts = threshold_parts()
    return parts["transformation"] >> parts["measurement"]


def _threshold(mode):
    from dpverify.extras.adapters import OpenDPMeasurement

    if mode == "parts":
        return OpenDPMeasurement.from_build(threshold_parts, d_in=1)
    mech = OpenDPMeasurement(threshold_chain(), d_in=1)
    if mode == "per call":
        mech._composition = lambda k: None
    return mech


def _pydp():
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    from dpverify.extras.adapters import PyDPMechanism

    return PyDPMechanism(LaplaceMechanism(epsilon=1.0, sensitivity=1.0))


def _row_user(row):
    return row[0]


def _row_partition(row):
    return row[1]


def _row_nothing(row):
    return 0


def _pipelinedp(public):
    import pipeline_dp

    from dpverify.extras.adapters import PipelineDPAggregation

    params = pipeline_dp.AggregateParams(
        noise_kind=pipeline_dp.NoiseKind.LAPLACE,
        metrics=[pipeline_dp.Metrics.COUNT],
        max_partitions_contributed=1,
        max_contributions_per_partition=1,
    )
    extractors = pipeline_dp.DataExtractors(
        partition_extractor=_row_partition, privacy_id_extractor=_row_user, value_extractor=_row_nothing
    )
    if public:
        accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=1.0, total_delta=0.0)
        return PipelineDPAggregation(params, extractors, public_partitions=["a"], budget_accountant=accountant)
    return PipelineDPAggregation(params, extractors, epsilon=1.0, delta=1e-6)


_VALUES = [0.1, 0.5, 0.9] * 10
_ROWS = tuple((user, "a", 0) for user in range(30))

#: name -> (builder, the input to draw on, share of the samples drawn, workers: None for one ``sample`` call)
ADAPTERS = {
    "diffprivlib Geometric": (_diffprivlib, 0, 1.0, None),
    "diffprivlib Geometric, on 2 workers": (_diffprivlib, 0, 1.0, 2),
    "diffprivlib tools.mean (30 values)": (_diffprivlib_mean, _VALUES, 0.25, None),
    "diffprivlib tools.mean (30 values), on 2 workers": (_diffprivlib_mean, _VALUES, 0.25, 2),
    "OpenDP Laplace, per call": (lambda: _opendp("per call"), 0, 0.25, None),
    "OpenDP Laplace, composition (default)": (lambda: _opendp("composition"), 0, 1.0, None),
    "OpenDP Laplace, vector batch": (lambda: _opendp("batch"), 0, 1.0, None),
    "OpenDP thresholded count (1000 records), per call": (lambda: _threshold("per call"), RECORDS, 0.02, None),
    "OpenDP thresholded count (1000 records), composition": (lambda: _threshold("chain"), RECORDS, 0.1, None),
    "OpenDP thresholded count (1000 records), in two parts": (lambda: _threshold("parts"), RECORDS, 0.2, None),
    "OpenDP thresholded count (1000 records), in two parts, on 2 workers": (
        lambda: _threshold("parts"),
        RECORDS,
        0.2,
        2,
    ),
    "python-dp Laplace": (_pydp, 0, 1.0, None),
    "PipelineDP count, public partition": (lambda: _pipelinedp(True), ((1, "a", 0),), 0.05, None),
    "PipelineDP count, private partitions (30 users)": (lambda: _pipelinedp(False), _ROWS, 0.05, None),
    "PipelineDP count, private partitions (30 users), on 2 workers": (lambda: _pipelinedp(False), _ROWS, 0.05, 2),
}


def rates(name: str, n: int) -> tuple[float, float | None]:
    """Samples per second of wall time and per second of this process's CPU time (None on a pool) of the
    adapter ``name`` drawing ``n * share`` outputs (one ``sample`` call, or ``draw`` on a warm pool)."""
    from dpverify.pipeline.sampling import draw

    build, x, share, workers = ADAPTERS[name]
    mech = build()
    size = max(10, int(n * share))
    mech.sample(x, 10, np.random.default_rng(0))  # warm
    if workers is None:
        start, cpu = time.perf_counter(), time.process_time()
        mech.sample(x, size, np.random.default_rng(1))
        return size / (time.perf_counter() - start), size / (time.process_time() - cpu)
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        draw(mech, x, 4 * workers, np.random.SeedSequence(0), executor=pool, n_chunks=2 * workers)  # warm
        start = time.perf_counter()
        draw(mech, x, size, np.random.SeedSequence(1), executor=pool)
        return size / (time.perf_counter() - start), None


def samples_per_second(name: str, n: int) -> float:
    """Samples per second (wall time) of the adapter ``name`` drawing ``n * share`` outputs."""
    return rates(name, n)[0]


def seconds_to_audit_thresholded_count(n_samples: int, mode: str, workers: int | None = None) -> float:
    """Wall time of ``dpverify.audit`` of the thresholded count on a record removed, ``n_samples`` per input,
    audited through its released keys (:mod:`dpverify.pipeline.released_keys`)."""
    return time_to_audit_thresholded_count(n_samples, mode, workers)[0]


def time_to_audit_thresholded_count(n_samples: int, mode: str, workers: int | None = None) -> tuple[float, float]:
    """Wall and this process's CPU seconds of the audit of :func:`seconds_to_audit_thresholded_count`."""
    import dpverify

    mech = _threshold(mode)
    start, cpu = time.perf_counter(), time.process_time()
    dpverify.audit(
        mech,
        RECORDS,
        RECORDS_PRIME,
        epsilon=mech.epsilon,
        delta=mech.delta,
        n_samples=n_samples,
        seed=1,
        executor=workers,
    )
    return time.perf_counter() - start, time.process_time() - cpu


def _installed(build, name: str) -> None:
    """``build()``, or asv's ``NotImplementedError`` (the benchmark is left out) where its library is absent."""
    try:
        build()
    except ImportError as exc:
        raise NotImplementedError(f"{name}: {exc}") from exc


class AdapterRates:
    """Samples per second of each adapter whose library is installed."""

    params = [list(ADAPTERS)]
    param_names = ["adapter"]
    number = 1
    repeat = 1
    timeout = 300

    def setup(self, name):
        _installed(ADAPTERS[name][0], name)

    def track_samples_per_second(self, name):
        return samples_per_second(name, 20_000)

    track_samples_per_second.unit = "samples/s"


class ThresholdedCountAudit:
    """Seconds to audit OpenDP's thresholded count at 1e5 samples per input (chain in one piece; in two parts)."""

    params = [["composition", "two parts", "two parts, 2 workers"]]
    param_names = ["adapter"]
    number = 1
    repeat = 1
    timeout = 900

    def setup(self, mode):
        _installed(threshold_parts, "OpenDP")

    def track_seconds(self, mode):
        adapter, workers = {
            "composition": ("chain", None),
            "two parts": ("parts", None),
            "two parts, 2 workers": ("parts", 2),
        }[mode]
        return seconds_to_audit_thresholded_count(100_000, adapter, workers)

    track_seconds.unit = "s"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--audit", type=int, default=0, help="also audit the thresholded count at this many samples")
    parser.add_argument("--only", default="", help="only the adapters whose name contains this")
    args = parser.parse_args(argv)
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print("| adapter | samples/s | per CPU second |\n|---|---|---|")
    for name in ADAPTERS:
        if args.only not in name:
            continue
        try:
            wall, cpu = rates(name, args.samples)
            row = f"{wall:,.0f} | " + ("-" if cpu is None else f"{cpu:,.0f}")
        except ImportError as exc:
            row = f"not installed ({exc.name}) | -"
        print(f"| {name} | {row} |", flush=True)
    if args.audit:
        print(f"\n| thresholded count audit, {args.audit:,} samples per input | seconds | CPU seconds |\n|---|---|---|")
        for label, mode, workers in (
            ("in one piece (composition)", "chain", None),
            ("in two parts", "parts", None),
            ("in two parts, 2 workers", "parts", 2),
        ):
            wall, cpu = time_to_audit_thresholded_count(args.audit, mode, workers)
            print(f"| {label} | {wall:.1f} | {cpu:.1f}{' (this process)' if workers else ''} |", flush=True)
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
