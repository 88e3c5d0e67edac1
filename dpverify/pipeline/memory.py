"""The memory an audit needs, and refusing by name, before any work, a run that cannot fit.

Memory model of :func:`dpverify.audit` (client process; each worker holds one block):

- the **selection samples**: ``2 * n_selection`` outputs, each as the code book holds it
  (8 bytes per coordinate of a real output or per integer output; integer rows in their own
  integer type; released keys as their mappings and values, and their encoded rows of at most
  ``2 MAX_RELEASED_KEYS + 1`` doubles; other hashable outputs as Python objects);
- the **event families** on them, as each declares in its record
  (:class:`dpverify.events.FamilyMemory`): arrays of ``n_selection`` floats per input held at
  once (projections, sorted copies), and bytes held whatever the sample size (the classifier's
  fit, bounded whatever the output width by
  :data:`dpverify.events.classifier.MAX_FIT_ELEMENTS` float64 elements per matrix). The
  families build one after another, so the most any of them holds counts;
- **certification**: one block per worker, at most :data:`dpverify.pipeline.sampling.BLOCK_BYTES` of
  float64 outputs, and the bookkeeping of its chunks (each chunk's seed, task and counts, at most
  :data:`CHUNK_BYTES` each), which grows with the number of chunks: at least
  :data:`~dpverify.pipeline.sampling.DEFAULT_CHUNKS`, one per :data:`~dpverify.pipeline.sampling.MAX_CHUNK`
  certification samples beyond that, per input.

:func:`audit_memory_bytes` adds these up for one pilot output, and :func:`require_memory`
refuses (:class:`~dpverify.errors.InsufficientMemoryError`) an audit whose estimate exceeds
the memory the operating system reports available.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Mapping

import numpy as np

from ..errors import InsufficientMemoryError
from ..events.registry import family_records
from ..protocols import _record_check, contract_seed, draw_outputs
from ..support import arrays
from .released_keys import MAX_RELEASED_KEYS

#: Which contract stream of the audit's seed the pilot output comes from.
PILOT_STREAM = 2

__all__ = [
    "output_bytes",
    "chunk_bytes",
    "family_memory",
    "audit_memory_bytes",
    "available_memory_bytes",
    "require_memory",
    "pilot_output",
]

#: The certification blocks of the client (:data:`dpverify.pipeline.sampling.BLOCK_BYTES`, 256 MiB).
CERTIFICATION_BYTES = 1 << 28

#: An upper estimate of the bookkeeping of one chunk of the certification's sampling, per input: its
#: seed, its task and its counts while the other chunks run (twice tracemalloc's peak per chunk over an
#: audit drawn one output per chunk).
CHUNK_BYTES = 1 << 11


def output_bytes(output) -> int:
    """Bytes one output takes in the selection sample, as the code book holds it (an estimate)."""
    if arrays.namespace(output) is not None:
        output = arrays.to_numpy(output)
    if isinstance(output, np.ndarray):
        if output.dtype.kind in "biu":
            return max(1, output.nbytes)
        return 8 * max(1, output.size)
    if isinstance(output, (numbers.Real, np.generic)):
        return 8
    if isinstance(output, tuple) and all(isinstance(v, numbers.Real) for v in output):
        return 8 * max(1, len(output))
    if isinstance(output, Mapping):  # released keys: the mapping, its values, and its encoded row (at most)
        values = sum(sys.getsizeof(v) for v in output.values())
        return 8 + sys.getsizeof(output) + values + 8 * (2 * MAX_RELEASED_KEYS + 1)
    return 8 + sys.getsizeof(output)  # a pointer in a list and the object


def family_memory() -> tuple[int, int]:
    """The most arrays of ``n_selection`` floats, and the most fixed bytes, a registered event family holds."""
    records = family_records()
    return max(r.memory.arrays for r in records), max(r.memory.fixed_bytes for r in records)


def _fixed_bytes() -> int:
    """Bytes an audit holds whatever its sample size: the largest family's, and the certification blocks."""
    return family_memory()[1] + CERTIFICATION_BYTES


def _bytes_per_sample(output) -> int:
    """Bytes per selection sample of both inputs: the outputs, and the event families' arrays."""
    return 2 * (output_bytes(output) + 8 * family_memory()[0])


def chunk_bytes(n_certification: int, n_chunks: int | None = None) -> int:
    """The bookkeeping of the certification's chunks of both inputs (:data:`CHUNK_BYTES` each): ``n_chunks``
    per input where given, else :func:`~dpverify.pipeline.sampling.default_chunks` of ``n_certification``."""
    if n_certification <= 0:
        return 0
    from .sampling import default_chunks

    chunks = min(n_certification, n_chunks or default_chunks(n_certification))
    return 2 * chunks * CHUNK_BYTES


def audit_memory_bytes(output, n_selection: int, n_certification: int = 0, n_chunks: int | None = None) -> int:
    """Estimated peak memory of an audit whose outputs look like ``output`` (see the module docstring), with
    ``n_certification`` certification samples per input drawn in ``n_chunks`` chunks (the default chunks)."""
    return int(n_selection * _bytes_per_sample(output) + _fixed_bytes() + chunk_bytes(n_certification, n_chunks))


def available_memory_bytes() -> int | None:
    """Memory the operating system reports available (``MemAvailable`` on Linux); None when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        import os

        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        return None


def _gb(n: float) -> str:
    return f"{n / 2**30:.3g} GiB"


def require_memory(
    output, n_selection: int, *, n_certification: int = 0, n_chunks: int | None = None, available: int | None = None
) -> None:
    """Raise :class:`InsufficientMemoryError` when the audit's estimate exceeds the available memory.

    Parameters
    ----------
    output : object
        One output of the mechanism (a pilot draw), after any ``output_key``.
    n_selection : int
        Selection samples per input.
    n_certification, n_chunks : int, optional
        Certification samples per input and the chunks they are drawn in (:func:`chunk_bytes`).
    available : int, optional
        Available bytes (by default :func:`available_memory_bytes`; nothing is checked when unknown).
    """
    available = available_memory_bytes() if available is None else available
    if available is None:
        return
    required = audit_memory_bytes(output, n_selection, n_certification, n_chunks)
    if required <= available:
        return
    chunks = chunk_bytes(n_certification, n_chunks)
    if chunks > available - _fixed_bytes():
        raise InsufficientMemoryError(
            f"the audit would need about {_gb(required)} of memory, {_gb(chunks)} of it to keep track of the "
            f"chunks that draw its {n_certification} certification samples per input, and {_gb(available)} is "
            "available; pass fewer n_samples",
            required_bytes=required,
            available_bytes=available,
        )
    fits = max(0, (available - _fixed_bytes() - chunks) // _bytes_per_sample(output))
    raise InsufficientMemoryError(
        f"the audit would need about {_gb(required)} of memory ({n_selection} selection samples per input "
        f"of {output_bytes(output)} bytes each, twice, plus the event families), and {_gb(available)} "
        f"is available; pass n_selection={fits} or less (or fewer n_samples, or map the outputs to "
        "fewer coordinates with output_key=)",
        required_bytes=required,
        available_bytes=available,
    )


def pilot_output(mechanism, data, audit_seed: np.random.SeedSequence, *, output_key=None):
    """One output of ``mechanism`` on ``data`` from a stream of its own (None when drawing it raised).

    The audit's own draws report a mechanism's errors by name; the pilot only sizes the outputs.
    """
    rng = np.random.default_rng(contract_seed(audit_seed, PILOT_STREAM))
    try:
        out = draw_outputs(mechanism, data, 1, rng)
        _record_check(1)
        out = out[0]
        return out if output_key is None else output_key(out)
    except Exception:
        return None
