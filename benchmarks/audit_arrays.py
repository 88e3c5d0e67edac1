"""Throughput of audits whose mechanism returns arrays of another library (the array-API path).

Certification evaluates the frozen event with the array's own library and moves
only counts back (:mod:`dpverify.support.arrays`). On a CPU with ``array-api-strict``
this measures the overhead of the generic path against plain numpy; on a GPU
machine the same classes measure a device library (set ``DPVERIFY_ARRAY_LIBRARY``
to ``torch`` to have the mechanisms return CUDA tensors when CUDA is present).

``track_samples_per_second`` counts the samples of both inputs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import numpy as np

import dpverify
from dpverify.mechanisms import GridLaplace

if not __package__:  # run as a script: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import WholeRun  # noqa: E402

SEED = 20241122


def _converter():
    library = os.environ.get("DPVERIFY_ARRAY_LIBRARY", "array_api_strict")
    if library == "numpy":
        return lambda a: a
    if library == "torch":
        import torch

        device = "cuda" if torch.cuda.is_available() else "cpu"
        return lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(device)
    import array_api_strict

    return array_api_strict.asarray


class OnArrays:
    """A numpy mechanism whose ``sample`` returns the chosen library's array."""

    def __init__(self, inner, convert):
        self.inner, self.convert, self.epsilon = inner, convert, inner.epsilon

    def sample(self, data, size, rng):
        return self.convert(self.inner.sample(data, size, rng))

    def __call__(self, data, rng):
        return self.inner(data, rng)


class ArrayAudit(WholeRun):
    """A Laplace audit at 4e6 samples per input, numpy outputs against array-API outputs."""

    params = [["numpy", "array-api"]]
    param_names = ["outputs"]
    repeat = 3

    def setup(self, outputs):
        inner = GridLaplace(1.0)
        self.mechanism = inner if outputs == "numpy" else OnArrays(inner, _converter())

    def _run(self):
        return dpverify.audit(
            self.mechanism, 0.0, 1.0, epsilon=1.0, n_samples=4_000_000, seed=SEED, event_families=["threshold"]
        )

    def time_audit(self, outputs):
        self._run()

    def track_samples_per_second(self, outputs):
        start = time.perf_counter()
        self._run()
        return 2 * 4_000_000 / (time.perf_counter() - start)

    track_samples_per_second.unit = "samples/s"


class TorchLaplace:
    """``x + Laplace(1/epsilon)`` drawn by PyTorch on its device (float64), optionally snapped to a grid.

    The noise is the inverse CDF of a uniform, ``-sign(u) log(1 - 2|u|) / epsilon`` with
    ``u`` uniform on (-1/2, 1/2) (float64 ``torch.rand``). Without ``grid`` it leaks through
    its low bits, as the textbook floating-point Laplace does (Mironov, CCS 2012); with a
    power-of-two ``grid`` the rounding marks are gone. The generator is derived from the
    audit's numpy Generator (:func:`dpverify.support.arrays.torch_generator`).
    """

    def __init__(self, epsilon: float, grid: float | None = None, device: str | None = None):
        self.epsilon, self.grid, self.device = float(epsilon), grid, device

    def sample(self, x, size, rng):
        import torch

        from dpverify.support.arrays import torch_generator

        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        u = torch.rand(size, generator=torch_generator(rng, device), device=device, dtype=torch.float64) - 0.5
        y = x - torch.sign(u) * torch.log1p(-2.0 * torch.abs(u)) / self.epsilon
        return y if self.grid is None else torch.round(y / self.grid) * self.grid

    def __call__(self, x, rng):
        return float(self.sample(x, 1, rng)[0])


def _synchronize():
    try:
        import torch

        if torch.cuda.is_available():
            torch.cuda.synchronize()
    except ImportError:
        pass


def _sampling_seconds(mechanism, n_samples: int) -> float:
    """Seconds for the mechanism's ``sample`` to draw ``2 n_samples`` outputs in the audit's blocks."""
    from dpverify.pipeline.sampling import BLOCK_SIZE

    rng = np.random.default_rng(SEED)
    start = time.perf_counter()
    for x in (0.0, 1.0):
        done = 0
        while done < n_samples:
            size = min(BLOCK_SIZE, n_samples - done)
            mechanism.sample(x, size, rng)
            done += size
    _synchronize()
    return time.perf_counter() - start


def _row(label, mechanism, n_samples, executor=None, families=None):
    sample_s = _sampling_seconds(mechanism, n_samples) if executor is None else float("nan")
    start = time.perf_counter()
    result = dpverify.audit(
        mechanism, 0.0, 1.0, epsilon=1.0, n_samples=n_samples, seed=SEED, executor=executor, event_families=families
    )
    _synchronize()
    audit_s = time.perf_counter() - start
    rate = 2 * n_samples / audit_s
    print(
        f"{label:34s} {n_samples:9.0e}  sample {sample_s:8.2f} s  audit {audit_s:8.2f} s  "
        f"{rate:10.3e} samples/s  ratio {sample_s / audit_s:5.2f}  bound {result.epsilon_lower_bound:.4f}  "
        f"violation {result.violation}  family {result.event.family}",
        flush=True,
    )
    return result


def main(argv=None):
    """Samples per second of PyTorch audits on the GPU against the numpy path on the CPU."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--samples", type=float, nargs="+", default=[1e8, 1e9, 1e10], help="samples per input")
    parser.add_argument("--cpu-samples", type=float, nargs="+", default=[1e8], help="samples per input, numpy path")
    parser.add_argument("--workers", type=int, default=0, help="also run the numpy path on a pool of this many")
    parser.add_argument("--worker-samples", type=float, default=1e9, help="samples per input on the pool")
    args = parser.parse_args(argv)
    import torch

    from dpverify.mechanisms import GridLaplace, LaplaceMechanism

    print(f"torch {torch.__version__}, cuda {torch.cuda.is_available()}", flush=True)
    warm = TorchLaplace(1.0, grid=2.0**-20)
    dpverify.audit(warm, 0.0, 1.0, epsilon=1.0, n_samples=100_000, seed=SEED)
    dpverify.audit(GridLaplace(1.0), 0.0, 1.0, epsilon=1.0, n_samples=100_000, seed=SEED)
    for n in args.cpu_samples:
        _row("numpy snapped Laplace (CPU)", GridLaplace(1.0), int(n))
        _row("numpy float Laplace (CPU)", LaplaceMechanism(1.0), int(n))
    if args.workers:
        n = int(args.worker_samples)
        _row(f"numpy snapped Laplace ({args.workers} proc)", GridLaplace(1.0), n, executor=args.workers)
        _row(f"numpy float Laplace ({args.workers} proc)", LaplaceMechanism(1.0), n, executor=args.workers)
    for n in args.samples:
        _row("torch snapped Laplace (GPU)", TorchLaplace(1.0, grid=2.0**-20), int(n))
        _row("torch float Laplace (GPU)", TorchLaplace(1.0), int(n))


if __name__ == "__main__":
    main()
