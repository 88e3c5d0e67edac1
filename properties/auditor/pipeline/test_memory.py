"""Memory stays bounded for every output shape, and a run that cannot fit says so before it starts.

Deterministic checks (fixed seeds; peaks measured with tracemalloc, which sees numpy's allocations).
"""

from __future__ import annotations

import importlib
import sys
import tracemalloc

import numpy as np
import pytest

import dpverify
from dpverify.errors import InsufficientMemoryError
from dpverify.events.classifier import MAX_FULL_WIDTH, classifier_events, feature_count
from dpverify.pipeline.outputs import encode_outputs
from dpverify.pipeline.sampling import BLOCK_BYTES, _block_size
from dpverify.pipeline.selection import select

MB = 1 << 20


def _peak(function, *args, **kwargs):
    tracemalloc.start()
    try:
        function(*args, **kwargs)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class WideLaplace:
    """Laplace noise on every coordinate; counts its vectorized draws."""

    def __init__(self, width):
        self.width, self.drawn = width, 0

    def __call__(self, x, rng):
        return self.sample(x, 1, rng)[0]

    def sample(self, x, size, rng):
        self.drawn += size
        out = rng.laplace(size=(size, self.width))
        out[:, 0] += x
        return out


def test_the_classifier_family_keeps_its_memory_whatever_the_width():
    """Detects the dense (4d + 1)^2 Newton fit on all coordinates: at width 1000 it held a 2000 x 4001
    design matrix five times over and a 4001^2 Hessian (over 500 MB; the kernel killed width 5000 at
    23.8 GB). Now at most 513 features, and featurizing runs in bounded blocks."""
    assert max(feature_count(d) for d in range(1, 300_000, 997)) <= 4 * MAX_FULL_WIDTH + 1
    rng = np.random.default_rng(0)
    width, n = 1_000, 1_000
    sel_x, sel_xp = rng.laplace(size=(n, width)), rng.laplace(size=(n, width))
    sel_xp[:, 0] += 1.0
    outputs = encode_outputs(sel_x, sel_xp)
    peak = _peak(classifier_events, outputs.groups[0], outputs.groups[1], outputs)
    assert peak < 64 * MB, f"classifier events peaked at {peak / MB:.0f} MB on 2 x 8 MB of outputs"


def test_wide_outputs_are_certified_in_bounded_blocks():
    """Detects certification blocks of 2^20 rows whatever the width (22 GB at width 5000)."""
    outputs = encode_outputs(np.zeros((2, 5_000)), np.ones((2, 5_000)))
    assert _block_size(WideLaplace(5_000), outputs.codec) * 5_000 * 8 <= BLOCK_BYTES
    narrow = encode_outputs(np.zeros((2, 8)), np.ones((2, 8)))
    assert _block_size(WideLaplace(8), narrow.codec) == 1 << 20  # narrow outputs keep the seeding of old


def test_integer_rows_are_keyed_within_the_outputs_own_size():
    """Detects the int64 expansion of integer rows: int8 answer rows of width 64 were copied to int64
    several times over (sort keys, stacked groups), about 30 times their own 25 MB here."""
    rng = np.random.default_rng(1)
    n, width = 200_000, 64
    patterns = rng.integers(-1, 2, size=(20, width)).astype(np.int8)
    sel_x, sel_xp = patterns[rng.integers(0, 20, n)], patterns[rng.integers(0, 10, n)]
    peak = _peak(select, sel_x, sel_xp, n_certification=10 * n, epsilon=1.0, delta=0.0, alpha=0.05)
    assert peak < 2 * (sel_x.nbytes + sel_xp.nbytes), f"selection peaked at {peak / MB:.0f} MB"


def test_a_run_that_cannot_fit_says_so_before_it_starts(monkeypatch):
    """Detects an audit that starts drawing its selection and dies of memory: with 1 GiB available,
    2 x 20,000 outputs of 10,000 doubles (3.2 GB) are refused by name after one pilot output."""
    monkeypatch.setattr(importlib.import_module("dpverify.pipeline.memory"), "available_memory_bytes", lambda: 1 << 30)
    mechanism = WideLaplace(10_000)
    with pytest.raises(InsufficientMemoryError, match="n_selection=") as refused:
        dpverify.audit(mechanism, 0.0, 1.0, epsilon=1.0, n_samples=200_000, seed=1)
    assert mechanism.drawn == 1  # the pilot only
    assert refused.value.required_bytes > refused.value.available_bytes == 1 << 30
    fits = dpverify.audit(WideLaplace(10), 0.0, 1.0, epsilon=1.0, n_samples=20_000, seed=1)
    assert not fits.violation


def test_a_delta_curve_that_cannot_fit_says_so_before_it_starts(monkeypatch):
    """Detects delta_lower_bound_curve drawing a selection that cannot fit: with 1 GiB available,
    2 x 20,000 outputs of 10,000 doubles are refused by name after one pilot output."""
    monkeypatch.setattr(sys.modules["dpverify.pipeline.memory"], "available_memory_bytes", lambda: 1 << 30)
    mechanism = WideLaplace(10_000)
    with pytest.raises(InsufficientMemoryError, match="n_selection="):
        dpverify.delta_lower_bound_curve(mechanism, 0.0, 1.0, epsilons=[1.0], n_samples=200_000, seed=1)
    assert mechanism.drawn == 1  # the pilot only
