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
import time

import numpy as np

import dpverify
from dpverify.mechanisms import GridLaplace

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


class ArrayAudit:
    """A Laplace audit at 4e6 samples per input, numpy outputs against array-API outputs."""

    params = [["numpy", "array-api"]]
    param_names = ["outputs"]
    timeout = 600
    number = 1
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
