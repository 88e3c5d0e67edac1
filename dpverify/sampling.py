"""Drawing outputs of a mechanism reproducibly, in chunks, on any executor.

A *mechanism* is any callable ``mechanism(data, rng)`` returning one output,
``rng`` a :class:`numpy.random.Generator`. An object that also has
``sample(data, size, rng)`` (returning ``size`` outputs: a list, or an array
whose first axis is ``size``) is sampled through that method, which is how a
vectorized mechanism reaches millions of samples per second.

Samples are drawn in a fixed number of chunks, each with its own child of the
caller's :class:`numpy.random.SeedSequence`. The chunks are the same whatever
runs them, so a seed gives identical samples with ``executor=None``, a local
process pool, or any :class:`concurrent.futures.Executor` (a Dask cluster's
``Client.get_executor()`` included).
"""

from __future__ import annotations

import concurrent.futures
import numbers
from dataclasses import dataclass

import numpy as np

from .errors import InvalidParameterError, MechanismError
from .progress import progress_bar

__all__ = ["resolve_seed", "draw", "chunk_sizes", "DEFAULT_CHUNKS"]

#: Chunks per input. Fixed (not tied to the number of workers) so results do
#: not depend on how many workers ran them.
DEFAULT_CHUNKS = 16


def resolve_seed(seed) -> tuple[np.random.SeedSequence, int | list | dict]:
    """Turn ``seed`` into a SeedSequence and the replayable value to record.

    ``None`` draws fresh entropy from the operating system; the returned value
    replays it. Integers, sequences of integers and SeedSequences are accepted;
    a spawned SeedSequence is recorded as ``{"entropy": ..., "spawn_key": [...]}``,
    which is accepted back as a seed.
    """
    if isinstance(seed, np.random.Generator):
        raise InvalidParameterError(
            "seed must be None, an int or a numpy SeedSequence (a Generator cannot be "
            "split into reproducible chunks); pass e.g. seed=1234"
        )
    if isinstance(seed, dict) and set(seed) == {"entropy", "spawn_key"}:
        seed = np.random.SeedSequence(seed["entropy"], spawn_key=tuple(seed["spawn_key"]))
    if isinstance(seed, np.random.SeedSequence):
        sequence = seed
    elif seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        if seed is not None and seed < 0:
            raise InvalidParameterError(f"seed must be a non-negative integer, got {seed!r}")
        sequence = np.random.SeedSequence(seed)
    else:
        try:
            sequence = np.random.SeedSequence(seed)
        except (TypeError, ValueError) as exc:
            raise InvalidParameterError(
                f"seed must be None, a non-negative int, or a SeedSequence, got {seed!r}"
            ) from exc
    entropy = sequence.entropy
    if isinstance(entropy, np.ndarray):
        entropy = [int(v) for v in entropy]
    elif isinstance(entropy, (list, tuple)):
        entropy = [int(v) for v in entropy]
    else:
        entropy = int(entropy)
    if sequence.spawn_key:
        return sequence, {"entropy": entropy, "spawn_key": [int(k) for k in sequence.spawn_key]}
    return sequence, entropy


def chunk_sizes(n: int, n_chunks: int) -> list[int]:
    """Split ``n`` samples into ``min(n, n_chunks)`` near-equal chunks."""
    k = max(1, min(n, n_chunks))
    base, extra = divmod(n, k)
    return [base + (1 if i < extra else 0) for i in range(k)]


@dataclass(frozen=True)
class _Chunk:
    mechanism: object
    data: object
    size: int
    seed: np.random.SeedSequence
    label: str


@dataclass(frozen=True)
class _Failure:
    """A mechanism error carried back from a worker (exceptions may not pickle)."""

    type_name: str
    message: str
    exception: BaseException | None


def _draw_chunk(chunk: _Chunk):
    rng = np.random.default_rng(chunk.seed)
    try:
        sample = getattr(chunk.mechanism, "sample", None)
        if callable(sample):
            out = sample(chunk.data, chunk.size, rng)
            if isinstance(out, np.ndarray):
                if out.ndim == 0 or out.shape[0] != chunk.size:
                    raise ValueError(
                        f"sample(data, size={chunk.size}, rng) returned an array of shape "
                        f"{out.shape}; its first axis must be size"
                    )
                return out
            out = list(out)
            if len(out) != chunk.size:
                raise ValueError(
                    f"sample(data, size={chunk.size}, rng) returned {len(out)} outputs"
                )
            return out
        mechanism = chunk.mechanism
        data = chunk.data
        return [mechanism(data, rng) for _ in range(chunk.size)]
    except Exception as exc:  # carried back and re-raised as MechanismError
        try:
            import pickle

            pickle.dumps(exc)
            carried = exc
        except Exception:
            carried = None
        return _Failure(type(exc).__name__, str(exc), carried)


def _describe(data) -> str:
    text = repr(data)
    return text if len(text) <= 120 else text[:117] + "..."


def draw(
    mechanism,
    data,
    n: int,
    seed: np.random.SeedSequence,
    *,
    label: str = "x",
    executor=None,
    n_chunks: int = DEFAULT_CHUNKS,
    progress: bool = False,
):
    """Draw ``n`` outputs of ``mechanism(data, .)`` in reproducible chunks.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, rng)``, optionally with ``sample(data, size, rng)``.
    data : object
        The input passed to the mechanism.
    n : int
        Number of outputs.
    seed : numpy.random.SeedSequence
        Parent of the chunks' seeds (``seed.spawn`` is called once per draw, so
        pass a dedicated child for each input).
    label : str
        Name of the input in error messages (``"x"`` or ``"x_prime"``).
    executor : None, int or concurrent.futures.Executor
        ``None`` runs in this process; an int starts a local process pool of that
        many workers for this call; an Executor is used as given.
    n_chunks : int
        Number of chunks (fixed, so results do not depend on the executor).
    progress : bool
        Show a progress bar over chunks.

    Returns
    -------
    list or numpy.ndarray
        The outputs, in chunk order.

    Raises
    ------
    MechanismError
        If the mechanism raised; names the input and chains the original error.
    """
    sizes = chunk_sizes(n, n_chunks)
    seeds = seed.spawn(len(sizes))
    chunks = [_Chunk(mechanism, data, size, s, label) for size, s in zip(sizes, seeds)]
    results = _run_chunks(chunks, executor, progress, desc=f"sampling M({label})")
    for result in results:
        if isinstance(result, _Failure):
            error = MechanismError(
                f"the mechanism raised {result.type_name} on input {label} = "
                f"{_describe(data)}: {result.message}"
            )
            raise error from result.exception
    if all(isinstance(r, np.ndarray) for r in results):
        try:
            return np.concatenate(results, axis=0)
        except ValueError:
            pass
    combined: list = []
    for r in results:
        combined.extend(list(r))
    return combined


def _run_chunks(chunks, executor, progress: bool, desc: str):
    owned = None
    if isinstance(executor, numbers.Integral) and not isinstance(executor, bool):
        if executor < 1:
            raise InvalidParameterError(f"executor as a worker count must be >= 1, got {executor}")
        if executor == 1:
            executor = None
        else:
            owned = executor = concurrent.futures.ProcessPoolExecutor(max_workers=int(executor))
    elif executor is not None and not isinstance(executor, concurrent.futures.Executor):
        raise InvalidParameterError(
            "executor must be None, a worker count, or a concurrent.futures.Executor, "
            f"got {type(executor).__name__}"
        )
    try:
        with progress_bar(total=len(chunks), desc=desc, enabled=progress) as bar:
            if executor is None:
                results = []
                for chunk in chunks:
                    results.append(_draw_chunk(chunk))
                    bar.update(1)
                return results
            futures = {executor.submit(_draw_chunk, chunk): i for i, chunk in enumerate(chunks)}
            results = [None] * len(chunks)
            for future in concurrent.futures.as_completed(futures):
                results[futures[future]] = future.result()
                bar.update(1)
            return results
    finally:
        if owned is not None:
            owned.shutdown()
