"""Wide correlated real vectors: how much of the exact loss a plain audit certifies, and at what CPU.

Cases (the pair is fixed, so the reference is exact):

- the binary mechanism's prefix sums with real node noise
  (:class:`dpverify.mechanisms.counter.RealBinaryCounter`), T = 4 and 8, on the stream of zeros
  against the first item set (the item every level holds, L = bit_length(T) nodes): Laplace noise
  audited against its eps claim (eps = 0.1, the zoo's claim; exact loss on the pair
  ``k eps / L = eps``), Gaussian noise against its rho claim (rho = 0.005 = 0.1^2 / 2; exact rho on
  the pair ``k rho / L = rho``). The reference is the exact loss of the unrounded output vector on
  the pair (:meth:`~dpverify.mechanisms.counter.RealBinaryCounter.pair_epsilon`, ``pair_rho``): the
  outputs are an invertible linear image of the node noises, so the loss is that of the ``k`` shifted
  nodes; the grid rounding is post-processing and can only lower it.
- a Gaussian on 1, 3 and 5 coordinates (:class:`dpverify.mechanisms.concentrated.ZCDPGaussian`,
  rho = 0.005), every coordinate shifted by ``1 / sqrt(d)`` (l2 shift 1, so the exact rho is the
  same for every d): the CPU of a d-dimensional output against the scalar's for the same bound.

Each cell: the mean certified bound over seeds as a fraction of the exact value (min-max), and the
mean CPU seconds of one audit (``time.process_time``: this process, including the mechanism's own
draws, reported apart in the column "draws" as the CPU of ``mechanism.sample`` for the same rows).

As a script::

    python benchmarks/wide_vectors.py --samples 1e6 4e6 --seeds 1 2 3 4 5 [--cases counter gaussian]

prints a Markdown table. As an asv benchmark, ``WideVectorRatio.track_ratio_to_exact`` per case at
2e5 samples per input (one seed), and ``WideVectorCost.track_cpu_over_scalar``: the CPU of the Gaussian's
audit on d = 3 and 5 coordinates over the scalar's, at 4e6 samples per input (seed 1, each audit run once
before the one timed, so that neither pays numba's first load in the process).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dpverify
from dpverify.mechanisms.concentrated import ZCDPGaussian
from dpverify.mechanisms.counter import RealBinaryCounter

EPSILON = 0.1
RHO = 0.005


def _counter_case(length: int, noise: str):
    mechanism = RealBinaryCounter(EPSILON if noise == "laplace" else RHO, noise)
    x, x_prime = [0] * length, [1] + [0] * (length - 1)
    exact = mechanism.pair_epsilon(x, x_prime) if noise == "laplace" else mechanism.pair_rho(x, x_prime)
    kind = "eps" if noise == "laplace" else "zCDP"
    return f"prefix sums, {noise} nodes, T = {length} ({kind})", mechanism, x, x_prime, exact


def _gaussian_case(d: int):
    mechanism = ZCDPGaussian(RHO)
    x, x_prime = (0.0, 1.0) if d == 1 else (np.zeros(d), np.full(d, 1 / np.sqrt(d)))
    return f"Gaussian, d = {d} (zCDP)", mechanism, x, x_prime, RHO


CASES = {
    "counter": [_counter_case(t, noise) for noise in ("laplace", "gaussian") for t in (4, 8)],
    "gaussian": [_gaussian_case(d) for d in (1, 3, 5)],
}


def run_case(case, n_samples: int, seed: int) -> tuple[float, float]:
    """(certified bound / exact, CPU seconds) of one plain audit."""
    _, mechanism, x, x_prime, exact = case
    start = time.process_time()
    result = dpverify.audit(mechanism, x, x_prime, n_samples=n_samples, seed=seed)
    return result.claim_lower_bound / exact, time.process_time() - start


def draw_seconds(case, n_samples: int) -> float:
    """CPU seconds of the mechanism's own draws of ``n_samples`` outputs per input."""
    _, mechanism, x, x_prime, _ = case
    rng = np.random.default_rng(0)
    start = time.process_time()
    for data in (x, x_prime):
        for begin in range(0, n_samples, 1 << 16):
            mechanism.sample(data, min(1 << 16, n_samples - begin), rng)
    return time.process_time() - start


class WideVectorRatio:
    """asv: the certified fraction of the exact loss per case at 2e5 samples per input."""

    params = [[case[0] for cases in CASES.values() for case in cases]]
    param_names = ["case"]
    timeout = 300

    def track_ratio_to_exact(self, name):
        case = next(c for cases in CASES.values() for c in cases if c[0] == name)
        return run_case(case, 200_000, 1)[0]


class WideVectorCost:
    """asv: CPU of the d-coordinate Gaussian's audit over the scalar's at 4e6 samples per input."""

    params = [[3, 5]]
    param_names = ["d"]
    timeout = 300

    def track_cpu_over_scalar(self, d):
        seconds = []
        for case in (_gaussian_case(1), _gaussian_case(d)):
            run_case(case, 4_000_000, 1)  # kernels loaded and compiled before the timed audit
            seconds.append(run_case(case, 4_000_000, 1)[1])
        return seconds[1] / seconds[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=float, nargs="+", default=[1e6, 4e6])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    parser.add_argument("--cases", nargs="+", default=list(CASES), choices=list(CASES))
    args = parser.parse_args()
    print("| case | samples per input | bound / exact, mean (min-max) | CPU s per audit | draws CPU s |")
    print("|---|---|---|---|---|")
    for group in args.cases:
        for case in CASES[group]:
            for n in args.samples:
                runs = [run_case(case, int(n), seed) for seed in args.seeds]
                ratios = np.array([r for r, _ in runs])
                cpu = np.mean([s for _, s in runs])
                print(
                    f"| {case[0]} | {n:.0e} | {ratios.mean():.3f} ({ratios.min():.3f}-{ratios.max():.3f}) "
                    f"| {cpu:.2f} | {draw_seconds(case, int(n)):.2f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
