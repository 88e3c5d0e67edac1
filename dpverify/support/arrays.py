"""Counting events where the samples live: mechanisms that return PyTorch, CuPy or JAX arrays.

Extra: ``pip install 'dpverify[arrays]'`` (array-api-compat); the array library itself is the user's.

A vectorized mechanism may return the ``size`` outputs of ``sample(data, size,
rng)`` as an array of any library that follows the Python array API standard
(detected with ``array-api-compat`` when it is installed, else through the
array's own ``__array_namespace__``). Then

- the selection sample is moved to the host (it is small) and the event is
  chosen there as usual;
- certification evaluates the frozen event **on the device**, with the
  array library's own functions, and moves only the counts back.

Events that can run on arrays: thresholds and intervals on coordinates and
projections of real outputs, level sets and singletons on integer outputs
(sorted lookups), the floating-point reachability events (TwoSum is plain
arithmetic) and the exact-value events. The others (the classifier, the
mantissa codes, integer vectors) are evaluated on the host, and the audit
says so in ``result.notes``. numpy stays the only array library the core
requires; the others are imported only by the mechanisms that use them.

Seeding stays reproducible: the mechanism receives a numpy Generator as
always, and :func:`torch_generator`, :func:`jax_key` and
:func:`cupy_random_state` derive the array library's own generator from it,
so an audit replays bit for bit on the same device.

References
----------
Data API Consortium, "Python array API standard", 2023.12
(https://data-apis.org/array-api/).
J. Jin, E. McMurtry, B. I. P. Rubinstein, O. Ohrimenko, "Are We There Yet?
Timing and Floating-Point Attacks on Differential Privacy Systems", IEEE S&P
2022 (floating-point attacks on the noise samplers of GPU libraries).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "namespace",
    "to_numpy",
    "count",
    "torch_generator",
    "jax_key",
    "cupy_random_state",
]


def namespace(x):
    """The array API namespace of a non-numpy array, or None for numpy arrays and other objects."""
    if isinstance(x, (np.ndarray, list, tuple)) or x is None:
        return None
    try:
        import array_api_compat
    except ImportError:
        array_api_compat = None
    if array_api_compat is not None:
        try:
            if array_api_compat.is_numpy_array(x):
                return None
            return array_api_compat.array_namespace(x)
        except TypeError:
            return None
    get = getattr(x, "__array_namespace__", None)
    if get is not None:
        return get()
    if type(x).__module__.split(".")[0] in ("torch", "jax", "jaxlib", "cupy"):
        from ..errors import OutputTypeError

        raise OutputTypeError(
            f"the mechanism returned a {type(x).__module__}.{type(x).__name__}; install array-api-compat "
            "(pip install 'dpverify[arrays]') so that dpverify can count its samples on the device"
        )
    return None


def to_numpy(x) -> np.ndarray:
    """A host numpy copy of an array of any library (CuPy ``get``, torch ``cpu``, DLPack)."""
    if hasattr(x, "get") and type(x).__module__.split(".")[0] == "cupy":
        return x.get()
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        return x.detach().cpu().numpy()
    try:
        return np.from_dlpack(x)
    except (TypeError, BufferError, RuntimeError, AttributeError):
        return np.asarray(x)


def device_of(x):
    return getattr(x, "device", None)


def on_accelerator(x) -> bool:
    """Whether ``x`` lives on an accelerator (a GPU, say) rather than in host memory.

    Read from the name of its device (``cuda:0``, ``<CUDA Device 0>``,
    ``CudaDevice(id=0)``): a device whose name says CPU, or none, is the host.
    """
    device = device_of(x)
    return device is not None and "cpu" not in str(device).lower()


def asarray_like(values, like, xp):
    """``values`` (numpy) as an array of ``xp`` on the device of ``like``."""
    device = device_of(like)
    if device is None:
        return xp.asarray(values)
    return xp.asarray(values, device=device)


def astype(x, dtype, xp):
    if hasattr(xp, "astype"):
        return xp.astype(x, dtype)
    return x.astype(dtype)


def clip(x, low: float, high: float, xp):
    """``x`` clipped to ``[low, high]`` (NaN stays NaN), as ``maximum`` then ``minimum`` with 0-d arrays.

    The same values as ``xp.clip``; array-api-compat's generic ``clip`` broadcasts and copies its
    bounds on every call, about 1 ms per call on a GPU.
    """
    return xp.minimum(
        xp.maximum(x, asarray_like(np.asarray(low, dtype=np.float64), x, xp)),
        asarray_like(np.asarray(high, dtype=np.float64), x, xp),
    )


def count(mask, xp) -> int:
    """Number of True entries of a boolean array of ``xp`` (one number leaves the device)."""
    return int(xp.sum(astype(mask, xp.int64, xp)))


def is_integral(x, xp) -> bool:
    if hasattr(xp, "isdtype"):
        return bool(xp.isdtype(x.dtype, ("integral", "bool")))
    return np.dtype(str(x.dtype).split(".")[-1]).kind in "biu"


# --------------------------------------------------------------------------
# the array library's own generator, from the audit's numpy Generator
# --------------------------------------------------------------------------


def _seed(rng: np.random.Generator, bits: int = 63) -> int:
    return int(rng.integers(0, 2**bits, dtype=np.uint64 if bits > 63 else np.int64))


def torch_generator(rng: np.random.Generator, device="cpu"):
    """A ``torch.Generator`` on ``device`` seeded from ``rng`` (draws one integer from it)."""
    import torch

    generator = torch.Generator(device=device)
    generator.manual_seed(_seed(rng))
    return generator


def jax_key(rng: np.random.Generator):
    """A ``jax.random`` key seeded from ``rng`` (draws one integer from it)."""
    import jax

    return jax.random.key(_seed(rng, 32))


def cupy_random_state(rng: np.random.Generator):
    """A ``cupy.random.RandomState`` seeded from ``rng`` (draws one integer from it)."""
    import cupy

    return cupy.random.RandomState(_seed(rng, 32))
