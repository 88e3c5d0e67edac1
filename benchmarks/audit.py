"""Audit throughput (samples per second, end to end), memory, and sequential-audit savings.

The target: an audit of a scalar mechanism with a vectorized
``sample`` at 1e7 samples per input must finish in <= 30 s on one core
(target >= 2e6 samples/s, counting the samples of both inputs).

As asv benchmarks: ``AuditThroughput.time_audit`` / ``peakmem_audit`` /
``track_samples_per_second`` over the sample size and the event families
(``"all"`` = every registered family, ``"value"`` = without the
floating-point and classifier families); ``SequentialAudit`` tracks the
samples a sequential audit uses on an obvious violation and on a kept claim.

As a script (one core, prints the figures for the README/issue note)::

    python benchmarks/audit.py --samples 1e7
"""

from __future__ import annotations

import argparse
import time

import dpverify
from dpverify.audits.sequential import sequential_audit
from dpverify.mechanisms.textbook import GeometricMechanism, LaplaceMechanism

SEED = 20240607
#: Families on the output *values* only (no floating-point bit events, no classifier).
VALUE_FAMILIES = ["threshold", "real-value"]


def _families(name):
    return None if name == "all" else VALUE_FAMILIES


def laplace_audit(n_samples: int, families: str = "all"):
    """One audit of the (snapped) Laplace mechanism at its claim, eps = 1, inputs 0 and 1."""
    return dpverify.audit(
        LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=n_samples, seed=SEED, event_families=_families(families)
    )


class AuditThroughput:
    """End-to-end audit of a scalar Laplace mechanism with a vectorized ``sample``."""

    params = [[100_000, 1_000_000, 10_000_000], ["all", "value"]]
    param_names = ["n_samples", "families"]
    timeout = 300
    number = 1
    repeat = 3

    def time_audit(self, n_samples, families):
        laplace_audit(n_samples, families)

    def peakmem_audit(self, n_samples, families):
        laplace_audit(n_samples, families)

    def track_samples_per_second(self, n_samples, families):
        start = time.perf_counter()
        laplace_audit(n_samples, families)
        return 2 * n_samples / (time.perf_counter() - start)

    track_samples_per_second.unit = "samples/s"


class SequentialAudit:
    """Samples per input a sequential audit (budget 1e6, alpha 1e-6) uses."""

    params = [["obvious-violation", "kept-claim"]]
    param_names = ["case"]
    timeout = 300

    def _run(self, case):
        if case == "obvious-violation":  # true eps 1 against a claim of 0.1
            return sequential_audit(
                GeometricMechanism(1.0), 0, 1, epsilon=0.1, n_samples=1_000_000, alpha=1e-6, seed=SEED
            )
        return sequential_audit(GeometricMechanism(0.5), 0, 1, epsilon=0.5, n_samples=1_000_000, alpha=1e-6, seed=SEED)

    def track_samples_used(self, case):
        return self._run(case).n_samples

    track_samples_used.unit = "samples per input"

    def time_sequential_audit(self, case):
        self._run(case)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=float, default=1e7, help="samples per input (default 1e7)")
    args = parser.parse_args(argv)
    n = int(args.samples)
    for families in ("all", "value"):
        start = time.perf_counter()
        result = laplace_audit(n, families)
        seconds = time.perf_counter() - start
        print(
            f"Laplace audit, {n} samples per input, families={families}: {seconds:.2f} s, "
            f"{2 * n / seconds:.3g} samples/s; eps >= {result.epsilon_lower_bound:.4f} "
            f"[{result.event.family}], violation={result.violation}"
        )
    bench = SequentialAudit()
    for case in SequentialAudit.params[0]:
        start = time.perf_counter()
        result = bench._run(case)
        print(
            f"sequential audit ({case}): {result.n_samples} of {result.budget} samples per input, "
            f"{time.perf_counter() - start:.2f} s, violation={result.violation}, "
            f"eps >= {result.epsilon_lower_bound:.4f}"
        )


if __name__ == "__main__":
    main()
