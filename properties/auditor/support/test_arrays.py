"""Mechanisms that return arrays of another library: events counted where the samples live.

The array-API path runs here on ``array-api-strict`` (a minimal library that
refuses anything outside the standard, so no numpy-only call slips into the
device path) and the GPU path where PyTorch with CUDA is present. Each
mechanism draws exactly the numpy samples of its numpy twin and returns them
as the other library's array, so the audits must agree bit for bit; the notes
must say where the counting happened. Deterministic (fixed seeds).
"""

from __future__ import annotations

import numpy as np
import pytest

import dpverify
from dpverify.events.floating import mantissa_codes, mantissa_codes_on
from dpverify.mechanisms import FloatLaplaceMechanism, GridLaplace
from dpverify.mechanisms.output_types import CALIBRATION_CASES, VectorLaplace
from dpverify.mechanisms.textbook import GeometricMechanism
from dpverify.support import arrays

xp = pytest.importorskip("array_api_strict", reason="array-api-strict is in the test extra")


class OnArrays:
    """A numpy mechanism whose ``sample`` returns the other library's array."""

    def __init__(self, inner, to_array):
        self.inner, self.to_array = inner, to_array
        self.epsilon = inner.epsilon

    def sample(self, data, size, rng):
        return self.to_array(self.inner.sample(data, size, rng))

    def __call__(self, data, rng):
        return self.inner(data, rng)


CASES = {
    "real scalar": (GridLaplace(1.0), 0.0, 1.0, {}),
    "integers": (GeometricMechanism(0.5), 0, 1, {}),
    "real vector": (VectorLaplace(1.0), 0.0, 1.0, {}),
    "float leak": (FloatLaplaceMechanism(1.0), 0.0, 1.0, {"event_families": ["reachability", "threshold"]}),
    "float leak, mantissa": (FloatLaplaceMechanism(1.0), 0.0, 1.0, {"event_families": ["mantissa"]}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_array_api_outputs_are_counted_on_the_device_with_identical_results(name):
    inner, x, x_prime, options = CASES[name]
    here = dpverify.audit(inner, x, x_prime, epsilon=inner.epsilon, n_samples=60_000, seed=7, **options)
    there = dpverify.audit(
        OnArrays(inner, xp.asarray), x, x_prime, epsilon=inner.epsilon, n_samples=60_000, seed=7, **options
    )
    assert there.event == here.event
    assert there.epsilon_lower_bound == here.epsilon_lower_bound and there.pvalue == here.pvalue
    assert any("counted on its device" in note for note in there.notes), there.notes


def test_events_that_cannot_run_on_arrays_are_counted_on_the_host_and_said_so():
    inner, x, x_prime = CALIBRATION_CASES["int-rows"]  # integer vectors: a code book of rows
    there = dpverify.audit(OnArrays(inner, xp.asarray), x, x_prime, epsilon=1.0, n_samples=20_000, seed=7)
    here = dpverify.audit(inner, x, x_prime, epsilon=1.0, n_samples=20_000, seed=7)
    assert there.event == here.event and there.epsilon_lower_bound == here.epsilon_lower_bound
    assert any("moved to the host" in note for note in there.notes)


def test_mantissa_codes_on_arrays_equal_the_bit_level_codes():
    rng = np.random.default_rng(0)
    values = np.concatenate(
        [
            rng.laplace(size=20_000),
            rng.laplace(size=1_000) * 1e-310,  # normals and subnormals
            [0.0, -0.0, np.inf, -np.inf, 2.0**-1022, 2.0**-1074, np.finfo(float).max, 2.0**52 + 1],
            np.ldexp(1.0, np.arange(-1074, 1024)),
            np.nextafter(np.ldexp(1.0, np.arange(-1000, 1000)), 0),
        ]
    )
    for top in (900, 1023, 1030, 2046):
        np.testing.assert_array_equal(
            arrays.to_numpy(mantissa_codes_on(xp.asarray(values), top, xp)), mantissa_codes(values, top)
        )


def test_namespace_and_host_copies():
    a = xp.asarray(np.arange(4.0))
    assert arrays.namespace(a) is not None and arrays.namespace(np.arange(3)) is None
    np.testing.assert_array_equal(arrays.to_numpy(a), np.arange(4.0))


def _cuda_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (GPU audits are optional)")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device on this machine")
    pytest.importorskip("array_api_compat", reason="array-api-compat detects torch tensors")
    return torch


def test_torch_gpu_samples_are_counted_on_the_gpu():
    torch = _cuda_torch()

    class TorchGeometric:
        epsilon = 0.5

        def sample(self, data, size, rng):
            g = arrays.torch_generator(rng, "cuda")
            p = 1 - np.exp(-self.epsilon)
            u = torch.rand((2, size), generator=g, device="cuda", dtype=torch.float64)
            noise = torch.floor(torch.log(u) / np.log(1 - p))
            return data + (noise[0] - noise[1]).to(torch.int64)

        def __call__(self, data, rng):
            return int(self.sample(data, 1, rng)[0])

    first = dpverify.audit(TorchGeometric(), 0, 1, epsilon=0.5, n_samples=2_000_000, seed=5)
    again = dpverify.audit(TorchGeometric(), 0, 1, epsilon=0.5, n_samples=2_000_000, seed=5)
    assert first == again and first.replayable  # replays bit for bit on the same device
    assert not first.violation
    assert any("counted on its device" in note for note in first.notes)


def test_torch_generator_is_seeded_from_the_audit_rng():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (GPU audits are optional)")
    a = arrays.torch_generator(np.random.default_rng(1))
    b = arrays.torch_generator(np.random.default_rng(1))
    assert torch.equal(torch.rand(5, generator=a), torch.rand(5, generator=b))


def test_blocks_grow_on_an_accelerator_and_counts_stay_those_of_the_host(monkeypatch):
    """Outputs on an accelerator are drawn in blocks of ``ACCELERATOR_BLOCK_SIZE`` after the first.

    The numpy Laplace draws the same stream whatever the block sizes, so the audit must equal
    the numpy one bit for bit. Detects (each seen failing): blocks grown for events counted on
    the host (integer vectors), and a grown size other than the stated one; a miscount after the
    switch would break the equality with the numpy audit. Deterministic.
    """
    from dpverify.pipeline import sampling

    sizes = []

    class Recording(OnArrays):
        def sample(self, data, size, rng):
            sizes.append(size)
            return super().sample(data, size, rng)

    monkeypatch.setattr(arrays, "on_accelerator", lambda x: True)
    monkeypatch.setattr(sampling, "BLOCK_SIZE", 1_000)
    monkeypatch.setattr(sampling, "ACCELERATOR_BLOCK_SIZE", 7_000)
    inner = GridLaplace(1.0)
    options = {"event_families": ["threshold"], "n_chunks": 2}
    here = dpverify.audit(inner, 0.0, 1.0, epsilon=1.0, n_samples=60_000, seed=7, **options)
    there = dpverify.audit(Recording(inner, xp.asarray), 0.0, 1.0, epsilon=1.0, n_samples=60_000, seed=7, **options)
    assert there.event == here.event and there.epsilon_lower_bound == here.epsilon_lower_bound
    assert 7_000 in sizes and max(sizes) == 7_000

    sizes.clear()  # integer vectors are counted on the host: their blocks keep the host's size
    inner, x, x_prime = CALIBRATION_CASES["int-rows"]
    dpverify.audit(Recording(inner, xp.asarray), x, x_prime, epsilon=1.0, n_samples=20_000, seed=7, n_chunks=2)
    assert sizes and max(sizes) <= 1_000
