"""Audit throughput against the mechanism's own sampling rate, on one core.

An audit at ``n`` samples per input draws ``2 n`` outputs (``n`` of M(x) and
``n`` of M(x'): selection plus certification) and counts the certification
ones in the frozen events. Its throughput is compared with the rate at which
the mechanism's own vectorized ``sample`` draws the same ``2 n`` outputs, in
blocks of :data:`dpverify.pipeline.sampling.BLOCK_SIZE` from one Generator (how the
audit draws them): the *ratio* ``sample seconds / audit seconds`` is the share
of the sampling speed the audit keeps (1 would mean selection, encoding and
counting cost nothing).

Mechanisms: the zoo's Laplace (snapped to 2^-20), the textbook floating-point
Laplace ``x + rng.laplace`` (``float-laplace``, which leaks through its low bits;
Mironov 2012), the textbook floating-point Gaussian ``x + rng.normal`` (``float-gaussian``, sigma 1
claimed (1, 1e-5)-DP, whose audit freezes a classifier score), geometric and randomized
response at eps = 1 on inputs 0 and 1, and the sparse vector technique (Lyu,
Su and Li, "Understanding the Sparse Vector Technique for Differential
Privacy", VLDB 2017, Algorithm 1, c = 1, 10 queries) on the mechanism
catalogue's pair.

As asv benchmarks (``AuditThroughputRatio``): ``time_audit`` of each mechanism
and ``track_ratio`` at :data:`ASV_SAMPLES` samples per input. As a script,
one core, ``executor=None``, default chunks::

    python benchmarks/audit_throughput.py --samples 1e8
    python benchmarks/audit_throughput.py --samples 1e7 --mechanism laplace --repeat 5 --warm
    python benchmarks/audit_throughput.py --samples 3e7 --mechanism laplace --profile 25

prints, per mechanism, the sampling rate, the audit rate (outputs drawn per
second, both inputs), their ratio, the seconds of the selection step alone
(on the audit's selection sample: a fixed cost, at most 2e6 outputs per input)
and the certified bound. ``--repeat`` measures each mechanism that many times
and adds the median and range of the ratio; the first audit of a process pays
for loading numba (0.2-0.5 s), which ``--warm`` leaves out by running one
untimed audit first (what a second audit in the same process costs); ``--cpu``
times both with the process's CPU time instead of wall time.

References
----------
I. Mironov, "On significance of the least significant bits for differential privacy", CCS 2012.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import numpy as np

import dpverify
from dpverify.mechanisms.broken import FloatGaussianMechanism, FloatLaplaceMechanism
from dpverify.mechanisms.sparse_vector import SparseVector
from dpverify.mechanisms.textbook import GeometricMechanism, LaplaceMechanism, RandomizedResponse
from dpverify.pipeline.sampling import BLOCK_SIZE
from dpverify.pipeline.selection import default_selection_size, select

SEED = 20261124
#: The clock of every measurement: wall time, or with ``--cpu`` the process's CPU time
#: (``time.process_time``, all its threads), which other jobs on a shared machine disturb less.
_clock = time.perf_counter
#: Samples per input of the asv benchmarks: the smallest audit that counts with the compiled kernels
#: (dpverify.pipeline.counting.MIN_COMPILED_OUTPUTS certification outputs per input), a few seconds.
ASV_SAMPLES = 10_000_000


def _instances():
    """name -> (mechanism, x, x_prime, claim keywords of ``dpverify.audit``)."""
    svt = SparseVector(0.1, threshold=0.0)
    pure = {"epsilon": 1.0}
    return {
        "laplace": (LaplaceMechanism(1.0), 0.0, 1.0, pure),
        "float-laplace": (FloatLaplaceMechanism(1.0), 0.0, 1.0, pure),
        "float-gaussian": (FloatGaussianMechanism(1.0, 1e-5, sigma=1.0), 0.0, 1.0, {"epsilon": 1.0, "delta": 1e-5}),
        "geometric": (GeometricMechanism(1.0), 0, 1, pure),
        "randomized-response": (RandomizedResponse(1.0), 0, 1, pure),
        "sparse-vector": (svt, (0.0,) * 9 + (1.0,), (1.0,) * 9 + (0.0,), {"epsilon": 0.1}),
    }


MECHANISMS = tuple(_instances())


def sampling_seconds(mechanism, x, x_prime, n_samples: int, seed: int = SEED) -> float:
    """Seconds the mechanism's ``sample`` takes to draw ``n_samples`` outputs of each input in blocks."""
    rng = np.random.default_rng(seed)
    start = _clock()
    for data in (x, x_prime):
        done = 0
        while done < n_samples:
            size = min(BLOCK_SIZE, n_samples - done)
            mechanism.sample(data, size, rng)
            done += size
    return _clock() - start


def audit_seconds(mechanism, x, x_prime, claim: dict, n_samples: int, seed: int = SEED):
    """``(seconds, AuditResult)`` of one end-to-end audit on this process (``executor=None``)."""
    start = _clock()
    result = dpverify.audit(mechanism, x, x_prime, n_samples=n_samples, seed=seed, **claim)
    return _clock() - start, result


def selection_seconds(mechanism, x, x_prime, claim: dict, n_samples: int, seed: int = SEED) -> float:
    """Seconds the selection step takes on the default selection sample of an audit of ``n_samples``.

    The selection sample (at most :data:`dpverify.pipeline.selection.MAX_SELECTION` outputs per input) is drawn
    first and not timed: this is the fixed cost of choosing the events (code book, candidates, scores).
    """
    n_selection = default_selection_size(n_samples)
    rng = np.random.default_rng(seed)
    sel_x, sel_x_prime = mechanism.sample(x, n_selection, rng), mechanism.sample(x_prime, n_selection, rng)
    start = _clock()
    select(
        sel_x,
        sel_x_prime,
        n_certification=n_samples - n_selection,
        epsilon=claim["epsilon"],
        delta=claim.get("delta", 0.0),
        alpha=0.05,
        inputs=(x, x_prime),
    )
    return _clock() - start


def throughput_ratio(name: str, n_samples: int, selection: bool = False) -> dict:
    """Sampling and audit rates (outputs per second, both inputs) of one mechanism, and their ratio.

    With ``selection`` the seconds of the selection step alone are measured too (``selection_seconds``).
    """
    mechanism, x, x_prime, claim = _instances()[name]
    t_sample = sampling_seconds(mechanism, x, x_prime, n_samples)
    t_audit, result = audit_seconds(mechanism, x, x_prime, claim, n_samples)
    t_select = selection_seconds(mechanism, x, x_prime, claim, n_samples) if selection else float("nan")
    drawn = 2 * n_samples
    return {
        "mechanism": name,
        "n_samples": n_samples,
        "sample_rate": drawn / t_sample,
        "audit_rate": drawn / t_audit,
        "ratio": t_sample / t_audit,
        "audit_seconds": t_audit,
        "selection_seconds": t_select,
        "epsilon_lower_bound": result.epsilon_lower_bound,
        "event": result.event.description,
    }


class AuditThroughputRatio:
    """Time of an audit and its throughput as a share of the mechanism's sampling rate."""

    params = [list(MECHANISMS)]
    param_names = ["mechanism"]
    timeout = 300
    number = 1
    repeat = 2

    def setup(self, name):
        self.instance = _instances()[name]

    def time_audit(self, name):
        mechanism, x, x_prime, claim = self.instance
        audit_seconds(mechanism, x, x_prime, claim, ASV_SAMPLES)

    def track_ratio(self, name):
        return throughput_ratio(name, ASV_SAMPLES)["ratio"]

    track_ratio.unit = "audit rate / sample() rate"


#: The floating-point Laplace audit, ``audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0,
#: n_samples=1e8, seed=1)``: its selection freezes events of the mantissa and classifier families, whose
#: certification counts once ran at half the sampling rate (0.22 of it on CPU time at load, before the
#: compiled classifier score of dpverify.pipeline.counting.count_scores; 0.61 after).
FLOAT_EVENTS_SAMPLES = 100_000_000
FLOAT_EVENTS_SEED = 1


class FloatOutputThroughputRatio:
    """Throughput of the floating-point audits as a share of the sampling rate, at 1e7 and 1e8
    samples per input (seed 1): the snapped Laplace, whose frozen events include the classifier's
    score, thresholds and mantissa codes, the textbook ``x + rng.laplace``, whose leak the
    mantissa and reachability events certify, and the textbook ``x + rng.normal``, whose frozen
    event is a classifier score.

    ``track_ratio`` times the process's first audit (numba loaded on the way, 0.2-0.5 s);
    ``track_warm_ratio`` an audit after an untimed one, the cost of every later audit of a process.
    """

    params = [["laplace", "float-laplace", "float-gaussian"], [10_000_000, FLOAT_EVENTS_SAMPLES]]
    param_names = ["mechanism", "n_samples"]
    timeout = 600
    number = 1
    repeat = 1

    def _ratio(self, name, n_samples):
        mechanism, x, x_prime, claim = _instances()[name]
        t_sample = sampling_seconds(mechanism, x, x_prime, n_samples, seed=FLOAT_EVENTS_SEED)
        t_audit, _ = audit_seconds(mechanism, x, x_prime, claim, n_samples, seed=FLOAT_EVENTS_SEED)
        return t_sample / t_audit

    def track_ratio(self, name, n_samples):
        return self._ratio(name, n_samples)

    track_ratio.unit = "audit rate / sample() rate"

    def track_warm_ratio(self, name, n_samples):
        mechanism, x, x_prime, claim = _instances()[name]
        audit_seconds(mechanism, x, x_prime, claim, ASV_SAMPLES, seed=FLOAT_EVENTS_SEED + 1)  # loads numba
        return self._ratio(name, n_samples)

    track_warm_ratio.unit = "audit rate / sample() rate"


def _integral(text: str) -> int:
    value = float(text)
    if not value.is_integer() or value < 2:
        raise argparse.ArgumentTypeError(f"expected an integer >= 2 (1e8 is fine), got {text!r}")
    return int(value)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=_integral, default=10_000_000, help="samples per input (1e8 accepted)")
    parser.add_argument("--mechanism", choices=MECHANISMS, action="append", help="repeat for several (default: all)")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile the audit, print N lines")
    parser.add_argument("--repeat", type=int, default=1, metavar="N", help="measure each mechanism N times")
    parser.add_argument("--warm", action="store_true", help="run one untimed audit first (numba loaded)")
    parser.add_argument("--cpu", action="store_true", help="time with the process's CPU time, not wall time")
    args = parser.parse_args(argv)
    global _clock
    _clock = time.process_time if args.cpu else time.perf_counter
    print(
        "| mechanism | samples per input | sample() rate /s | audit rate /s | ratio | audit s | selection s | bound |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in args.mechanism or MECHANISMS:
        if args.warm:
            mechanism, x, x_prime, claim = _instances()[name]
            audit_seconds(mechanism, x, x_prime, claim, ASV_SAMPLES, seed=SEED + 1)
        if args.profile:
            mechanism, x, x_prime, claim = _instances()[name]
            profiler = cProfile.Profile()
            profiler.runcall(audit_seconds, mechanism, x, x_prime, claim, args.samples)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)
            continue
        ratios = []
        for _ in range(args.repeat):
            row = throughput_ratio(name, args.samples, selection=True)
            ratios.append(row["ratio"])
            print(
                f"| {name} | {row['n_samples']:.3g} | {row['sample_rate']:.3g} | {row['audit_rate']:.3g} | "
                f"{row['ratio']:.2f} | {row['audit_seconds']:.2f} | {row['selection_seconds']:.2f} | "
                f"{row['epsilon_lower_bound']:.4g} |",
                flush=True,
            )
        if args.repeat > 1:
            print(
                f"| {name}: median of {args.repeat} | | | | {statistics.median(ratios):.2f} "
                f"({min(ratios):.2f}-{max(ratios):.2f}) | | | |",
                flush=True,
            )


if __name__ == "__main__":
    main()
