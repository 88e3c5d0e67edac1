"""Samples per second of each library adapter's ``sample`` (dpverify.extras.adapters), one core.

Each adapter wraps a one-count Laplace (or geometric) release at eps = 1 of its library, drawn in one
``sample(0, n)`` call, as the audit draws it. Libraries that are not installed are left out (asv:
``NotImplementedError`` in ``setup``). As a script::

    python benchmarks/adapter_rates.py --samples 20000

prints one row per adapter (OpenDP three ways: per call, by composition, with a vector batch).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _diffprivlib():
    from diffprivlib.mechanisms import Geometric

    from dpverify.extras.adapters import DiffprivlibMechanism

    return DiffprivlibMechanism(Geometric, epsilon=1.0, sensitivity=1)


def _opendp(mode):
    import opendp.prelude as dp

    from dpverify.extras.adapters import OpenDPMeasurement, opendp

    dp.enable_features("contrib")
    scalar = (dp.atom_domain(T=int), dp.absolute_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
    if mode == "batch":
        vector = (dp.vector_domain(dp.atom_domain(T=int)), dp.l1_distance(T=int)) >> dp.m.then_laplace(scale=1.0)
        return OpenDPMeasurement(scalar, d_in=1, batch=vector)
    mech = OpenDPMeasurement(scalar, d_in=1)
    if mode == "per call":
        mech._composition = lambda k: None  # the per-call path
    assert opendp.COMPOSED > 0
    return mech


def _pydp():
    from pydp.algorithms.numerical_mechanisms import LaplaceMechanism

    from dpverify.extras.adapters import PyDPMechanism

    return PyDPMechanism(LaplaceMechanism(epsilon=1.0, sensitivity=1.0))


def _pipelinedp():
    import pipeline_dp

    from dpverify.extras.adapters import PipelineDPAggregation

    params = pipeline_dp.AggregateParams(
        noise_kind=pipeline_dp.NoiseKind.LAPLACE,
        metrics=[pipeline_dp.Metrics.COUNT],
        max_partitions_contributed=1,
        max_contributions_per_partition=1,
    )
    extractors = pipeline_dp.DataExtractors(
        partition_extractor=lambda r: r[1], privacy_id_extractor=lambda r: r[0], value_extractor=lambda r: 0
    )
    accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=1.0, total_delta=0.0)
    return PipelineDPAggregation(params, extractors, public_partitions=["a"], budget_accountant=accountant)


#: name -> (builder, the input to draw on, samples per measurement)
ADAPTERS = {
    "diffprivlib Geometric": (_diffprivlib, 0, 1.0),
    "OpenDP Laplace, per call": (lambda: _opendp("per call"), 0, 0.25),
    "OpenDP Laplace, composition (default)": (lambda: _opendp("composition"), 0, 1.0),
    "OpenDP Laplace, vector batch": (lambda: _opendp("batch"), 0, 1.0),
    "python-dp Laplace": (_pydp, 0, 1.0),
    "PipelineDP count": (_pipelinedp, ((1, "a", 0),), 0.01),
}


def samples_per_second(name: str, n: int) -> float:
    """Samples per second of one ``sample(x, n * share)`` call of the adapter ``name``."""
    build, x, share = ADAPTERS[name]
    mech = build()
    size = max(10, int(n * share))
    mech.sample(x, 10, np.random.default_rng(0))  # warm
    start = time.perf_counter()
    mech.sample(x, size, np.random.default_rng(1))
    return size / (time.perf_counter() - start)


class AdapterRates:
    """Samples per second of each adapter whose library is installed."""

    params = [list(ADAPTERS)]
    param_names = ["adapter"]
    number = 1
    repeat = 1
    timeout = 300

    def setup(self, name):
        try:
            ADAPTERS[name][0]()
        except ImportError as exc:
            raise NotImplementedError(f"{name}: {exc}") from exc

    def track_samples_per_second(self, name):
        return samples_per_second(name, 20_000)

    track_samples_per_second.unit = "samples/s"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000)
    args = parser.parse_args(argv)
    print("| adapter | samples/s |\n|---|---|")
    for name in ADAPTERS:
        try:
            rate = f"{samples_per_second(name, args.samples):,.0f}"
        except ImportError as exc:
            rate = f"not installed ({exc.name})"
        print(f"| {name} | {rate} |", flush=True)


if __name__ == "__main__":
    main()
