"""Mechanisms that keep their claim exactly, one per kind of output, for calibration.

An auditor must not flag a correct mechanism more often than its level
``alpha``, whatever the mechanism returns. :data:`CALIBRATION_CASES` lists
mechanisms that attain their claim exactly on their pair (or have loss 0), one
per output type the auditor accepts: ints, bools, strings, tuples,
frozensets, integer rows, integer arrays per call, ``None`` mixed with ints,
floats, real vectors, and large output spaces (k-ary randomized response over
1e4 string labels; pure noise over 1e5 labels). ``properties/auditor/pipeline/
test_output_types.py`` and ``benchmarks/audit_zoo.py --by-output-type`` use them.

References
----------
S. L. Warner, "Randomized response: a survey technique for eliminating
evasive answer bias", JASA 1965 (binary and k-ary randomized response).
"""

from __future__ import annotations

import numpy as np

from .additive import GridLaplace

__all__ = ["RandomizedBit", "KaryResponse", "PureNoiseLabels", "VectorLaplace", "CALIBRATION_CASES"]


class RandomizedBit:
    """Binary randomized response at eps, with the output mapped by ``form``."""

    def __init__(self, epsilon, form):
        self.epsilon, self.form = epsilon, form
        self.keep = np.exp(epsilon) / (1 + np.exp(epsilon))

    def bits(self, data, size, rng):
        return np.where(rng.random(size) < self.keep, data, 1 - data)

    def sample(self, data, size, rng):
        return self.form(self.bits(data, size, rng))

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


class KaryResponse:
    """k-ary randomized response over string labels: exact loss eps between inputs 0 and 1."""

    def __init__(self, epsilon, k):
        self.epsilon, self.k = epsilon, k
        self.keep = np.exp(epsilon) / (np.exp(epsilon) + k - 1)

    def sample(self, data, size, rng):
        other = rng.integers(0, self.k - 1, size)
        other = other + (other >= data)  # uniform over the k - 1 other labels
        values = np.where(rng.random(size) < self.keep, data, other)
        return [f"label{v}" for v in values]

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


class PureNoiseLabels:
    """Ignores its input: one of ``k`` string labels uniformly (true loss 0)."""

    epsilon = 1.0

    def __init__(self, k):
        self.k = k

    def sample(self, data, size, rng):
        return [f"v{v}" for v in rng.integers(self.k, size=size)]

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


class VectorLaplace:
    """(fine-grid Laplace of x, an independent one of 0): a real vector, loss eps."""

    def __init__(self, epsilon):
        self.epsilon = epsilon
        self.scalar = GridLaplace(epsilon)

    def sample(self, data, size, rng):
        return np.column_stack([self.scalar.sample(data, size, rng), self.scalar.sample(0.0, size, rng)])

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


class _PerCall:
    """Maps an array of bits to a list of per-output values (picklable)."""

    def __init__(self, form):
        self.form = form

    def __call__(self, bits):
        return [self.form(int(b)) for b in bits]


def _per_call(form):
    return _PerCall(form)


CALIBRATION_CASES = {
    "int": (RandomizedBit(1.0, lambda b: b.astype(np.int64)), 0, 1),
    "bool": (RandomizedBit(1.0, lambda b: b.astype(bool)), 0, 1),
    "str": (RandomizedBit(1.0, _per_call(lambda b: "yes" if b else "no")), 0, 1),
    "tuple": (RandomizedBit(1.0, _per_call(lambda b: (b, "const"))), 0, 1),
    "frozenset": (RandomizedBit(1.0, _per_call(lambda b: frozenset({b}))), 0, 1),
    "int-rows": (RandomizedBit(1.0, lambda b: np.column_stack([b, 1 - b, np.zeros_like(b)])), 0, 1),
    "int-array-per-call": (RandomizedBit(1.0, lambda b: [np.array([v, 1 - v]) for v in b]), 0, 1),
    "None-or-int": (RandomizedBit(1.0, _per_call(lambda b: None if b else 0)), 0, 1),
    "float": (GridLaplace(1.0), 0.0, 1.0),
    "real-vector": (VectorLaplace(1.0), 0.0, 1.0),
    "k-ary-strings-1e4": (KaryResponse(1.0, 10_000), 0, 1),
    "pure-noise-1e5": (PureNoiseLabels(100_000), 0, 1),
}
