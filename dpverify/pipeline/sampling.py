"""Drawing outputs of a mechanism reproducibly, in chunks, on any executor.

A *mechanism* is any callable ``mechanism(data, rng)`` returning one output,
``rng`` a :class:`numpy.random.Generator`. An object that also has
``sample(data, size, rng)`` (returning ``size`` outputs: a list, or an array
whose first axis is ``size``) is sampled through that method, which is how a
vectorized mechanism reaches millions of samples per second.

Samples are drawn in a fixed number of chunks, each with its own child of the
caller's :class:`numpy.random.SeedSequence`; inside a chunk, in blocks of a
fixed size from one Generator. The chunks are the same whatever runs them, so
a seed gives identical results with ``executor=None``, a local process pool,
any :class:`concurrent.futures.Executor`, or a Dask ``distributed.Client``.

Two ways to draw:

:func:`draw`
    returns the outputs (used for the bounded selection sample of an audit);
:func:`count_events`
    returns only how many outputs fall in each of a few frozen events (the
    certification stream). Each worker draws its chunk block by block,
    encodes the block with the audit's code book and counts; neither the
    workers nor the client ever hold more than one block per worker, so
    memory does not grow with the number of samples.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import numbers
import pickle
from dataclasses import dataclass

import numpy as np

from .._results import PlainData
from .._validation import check_seed, check_worker_count
from ..errors import DPVerifyError, InvalidParameterError, MechanismError, OutputTypeError, SamplerContractError
from ..protocols import _LEDGERS, _PURPOSE, CHECKS, draw_outputs, is_vectorized, record_draws
from ..support import arrays
from ..support.progress import progress_bar
from .counting import MIN_COMPILED_OUTPUTS, compile_counter
from .outputs import apply_output_key

__all__ = [
    "resolve_seed",
    "draw",
    "count_events",
    "EventCounts",
    "chunk_sizes",
    "children",
    "concatenate_outputs",
    "default_chunks",
    "DEFAULT_CHUNKS",
    "BLOCK_SIZE",
    "DrawLedger",
    "drawing_ledger",
    "drawing_for",
    "record_draws",
    "CHECKS",
]

#: Fewest chunks per input. Fixed (not tied to the number of workers) so
#: results do not depend on how many workers ran them.
DEFAULT_CHUNKS = 16
#: Largest chunk a default chunking makes (more chunks for larger runs, for
#: load balance on clusters and finer progress).
MAX_CHUNK = 1 << 24
#: Outputs a worker draws at once from a vectorized ``sample`` (bounded memory).
BLOCK_SIZE = 1 << 20
#: Outputs a worker draws at once from a per-call mechanism.
CALL_BLOCK_SIZE = 1 << 14


def resolve_seed(seed) -> tuple[np.random.SeedSequence, int | list | dict]:
    """Turn ``seed`` into a SeedSequence and the replayable value to record.

    Parameters
    ----------
    seed : None, int, sequence of int, dict, numpy.random.SeedSequence or numpy.random.Generator
        ``None`` draws fresh entropy from the operating system; the returned
        value replays it. Integers, sequences of integers and SeedSequences are
        used as given (a SeedSequence is not advanced). A spawned
        SeedSequence is recorded as ``{"entropy": ..., "spawn_key": [...]}``,
        which is accepted back as a seed. A :class:`numpy.random.Generator`
        gives a child spawned from its bit generator's SeedSequence (the
        generator's stream is not advanced; its spawn counter is); a generator
        without a SeedSequence (built from a raw state) gives a SeedSequence
        seeded with 128 bits drawn from it.

    Returns
    -------
    sequence : numpy.random.SeedSequence
        The root of the run's random streams (split with :func:`children`).
    recorded : int, list of int or dict
        A plain, JSON-serialisable value that ``resolve_seed`` maps back to
        an equal sequence.

    Raises
    ------
    InvalidParameterError
        A negative integer, or anything numpy cannot seed from.

    Notes
    -----
    Spawning rather than drawing follows numpy's guidance for parallel
    streams (independent children of one SeedSequence); it keeps the run
    replayable from a plain recorded value, which a generator's state is not.
    """
    if isinstance(seed, np.random.Generator):
        seed = _spawn_from(seed)
    if isinstance(seed, dict) and set(seed) == {"entropy", "spawn_key"}:
        seed = np.random.SeedSequence(seed["entropy"], spawn_key=tuple(seed["spawn_key"]))
    if isinstance(seed, np.random.SeedSequence):
        sequence = seed
    else:
        sequence = check_seed(seed)
    entropy = sequence.entropy
    if isinstance(entropy, (np.ndarray, list, tuple)):
        entropy = [int(v) for v in entropy]
    else:
        entropy = int(entropy)
    if sequence.spawn_key:
        return sequence, {"entropy": entropy, "spawn_key": [int(k) for k in sequence.spawn_key]}
    return sequence, entropy


def _spawn_from(generator: np.random.Generator) -> np.random.SeedSequence:
    """A child SeedSequence of ``generator`` (see :func:`resolve_seed`)."""
    parent = getattr(generator.bit_generator, "seed_seq", None)
    if isinstance(parent, np.random.SeedSequence):
        return parent.spawn(1)[0]
    entropy = generator.integers(0, 2**32, size=4, dtype=np.uint64)
    return np.random.SeedSequence([int(v) for v in entropy])


def children(seed: np.random.SeedSequence, n: int) -> list[np.random.SeedSequence]:
    """The first ``n`` children of ``seed``, as ``seed.spawn(n)`` on a fresh sequence would give.

    Unlike :meth:`~numpy.random.SeedSequence.spawn` this does not advance
    ``seed``: drawing twice from one seed draws the same samples (a
    sequential audit re-counts earlier batches this way).
    """
    return [
        np.random.SeedSequence(seed.entropy, spawn_key=tuple(seed.spawn_key) + (i,), pool_size=seed.pool_size)
        for i in range(n)
    ]


def chunk_sizes(n: int, n_chunks: int) -> list[int]:
    """Split ``n`` samples into ``min(n, n_chunks)`` near-equal chunks."""
    k = max(1, min(n, n_chunks))
    base, extra = divmod(n, k)
    return [base + (1 if i < extra else 0) for i in range(k)]


def default_chunks(n: int) -> int:
    """Chunks for ``n`` samples per input: at least 16, at most :data:`MAX_CHUNK` samples each."""
    return max(DEFAULT_CHUNKS, -(-int(n) // MAX_CHUNK))


# --------------------------------------------------------------------------
# what was drawn, and for what
# --------------------------------------------------------------------------

#: The purposes outside the ``n_samples`` budget: the contract checks only. Every other draw, an audit's own
#: or an earlier batch a sequential audit counts again (it keeps those outputs rather than drawing them twice,
#: :func:`count_events` with ``keep_outputs``), is within it.
OUTSIDE_BUDGET = (CHECKS,)


class DrawLedger:
    """Outputs drawn per input, by purpose, as :func:`draw` and :func:`count_events` recorded them.

    Every draw of this module records, in the process that asked for it (whatever executor ran the
    chunks), how many outputs of which side (``label``: ``"x"`` or ``"x_prime"``) it drew and for what
    (the purpose set by :func:`drawing_for`), in every ledger open around it (:func:`drawing_ledger`).
    A driver opens one and reports :meth:`per_input`: the budget it spent is read off the draws, not
    off its plan, so the two cannot drift apart.
    """

    def __init__(self) -> None:
        self.drawn: dict = {}  # (purpose, label) -> outputs

    def record(self, purpose: str, label: str, n: int) -> None:
        """Record ``n`` outputs of side ``label`` drawn for ``purpose``."""
        key = (purpose, label)
        self.drawn[key] = self.drawn.get(key, 0) + int(n)

    def per_input(self, *, outside: bool = False) -> dict:
        """Outputs per input by purpose, in the order first drawn: the larger side's count (both sides
        draw alike except in the contract checks); the purposes within the ``n_samples`` budget, or with
        ``outside`` those outside it (:data:`OUTSIDE_BUDGET`: the contract checks)."""
        out: dict = {}
        for (purpose, _), n in self.drawn.items():
            if (purpose in OUTSIDE_BUDGET) == outside:
                out[purpose] = max(out.get(purpose, 0), n)
        return out

    def total_calls(self) -> int:
        """Outputs drawn over both sides and every purpose (what a counting mechanism counts)."""
        return sum(self.drawn.values())


@contextlib.contextmanager
def drawing_ledger():
    """Open a :class:`DrawLedger` that every draw in the block records into (and into the ledgers
    already open around it, so an outer driver sees its inner audits' draws)."""
    ledger = DrawLedger()
    token = _LEDGERS.set((*_LEDGERS.get(), ledger))
    try:
        yield ledger
    finally:
        _LEDGERS.reset(token)


@contextlib.contextmanager
def drawing_for(purpose: str):
    """Record the draws of the block under ``purpose`` (``"screening"``, ``"certification"``...)."""
    token = _PURPOSE.set(purpose)
    try:
        yield
    finally:
        _PURPOSE.reset(token)


# --------------------------------------------------------------------------
# one chunk, on a worker
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Failure:
    """An error carried back from a worker (exceptions may not pickle)."""

    type_name: str
    message: str
    exception: BaseException | None
    from_mechanism: bool


def _failure(exc: BaseException, from_mechanism: bool) -> _Failure:
    try:
        pickle.dumps(exc)
        carried = exc
    except Exception:
        carried = None
    return _Failure(type(exc).__name__, str(exc), carried, from_mechanism)


def _state(rng: np.random.Generator):
    return rng.bit_generator.state["state"]


def _draw_block(mechanism, data, size: int, rng):
    """``size`` raw outputs of the mechanism (its vectorized ``sample`` when it has one)."""
    return draw_outputs(mechanism, data, size, rng)


#: Largest block of vectorized outputs a worker holds, in bytes (float64 entries): wide outputs
#: get fewer rows per block than :data:`BLOCK_SIZE` (outputs of up to 32 coordinates keep it).
BLOCK_BYTES = 1 << 28


def _output_width(codec) -> int:
    """Entries per output in the code book's terms (coordinates of real vectors, width of integer rows)."""
    rows = getattr(getattr(codec, "labels", None), "rows", None)
    if rows is not None and getattr(rows, "ndim", 0) == 2:
        return max(1, rows.shape[1])
    return max(1, int(getattr(codec, "dimension", 1) or 1))


#: Most outputs a block holds when they live on an accelerator and are counted there (a GPU's
#: per-block cost is the launch of a few dozen kernels, which a block this large spreads over enough
#: outputs to make it negligible per output), and most bytes of float64 entries it holds there.
ACCELERATOR_BLOCK_SIZE = 1 << 24
ACCELERATOR_BLOCK_BYTES = 1 << 28


def _accelerator_block_size(codec) -> int:
    """Outputs drawn at once after a first block showed that they live, and are counted, on an accelerator."""
    return max(1, min(ACCELERATOR_BLOCK_SIZE, ACCELERATOR_BLOCK_BYTES // (8 * _output_width(codec))))


def _block_size(mechanism, codec=None) -> int:
    """Outputs drawn at once: a function of the mechanism's contract and the code book (so of the seed)."""
    if not is_vectorized(mechanism):
        return CALL_BLOCK_SIZE
    if codec is None:
        return BLOCK_SIZE
    return max(1, min(BLOCK_SIZE, BLOCK_BYTES // (8 * _output_width(codec))))


@dataclass(frozen=True)
class _DrawTask:
    mechanism: object
    data: object
    size: int
    seed: np.random.SeedSequence
    output_key: object = None


@dataclass(frozen=True)
class _Drawn:
    outputs: object
    rng_used: bool


def _draw_chunk(task: _DrawTask):
    rng = np.random.default_rng(task.seed)
    before = _state(rng)
    try:
        raw = _draw_block(task.mechanism, task.data, task.size, rng)
    except Exception as exc:  # carried back and re-raised as MechanismError
        return _failure(exc, True)
    try:
        if arrays.namespace(raw) is not None:  # selection samples move to the host
            raw = arrays.to_numpy(raw)
        raw = apply_output_key(raw, task.output_key)
    except Exception as exc:
        return _failure(exc, False)
    return _Drawn(raw, _state(rng) != before)


@dataclass(frozen=True)
class _CountTask:
    mechanism: object
    data: object
    size: int
    seed: np.random.SeedSequence
    codec: object
    indicators: tuple
    output_key: object = None
    block_size: int = BLOCK_SIZE
    compiled: bool = False  # count with dpverify.pipeline.counting's kernels where they apply
    grow_on_accelerator: bool = False  # blocks after the first of :func:`_accelerator_block_size`
    keep: bool = False  # also return the outputs counted (on the host, after output_key)


@dataclass(frozen=True)
class _Counted:
    counts: np.ndarray
    size: int
    rng_used: bool
    where: frozenset = frozenset()  # "device" and/or "host" for arrays of other libraries
    outputs: object = None  # the outputs counted, where the task keeps them


def _on_device(task: _CountTask) -> bool:
    return (
        task.output_key is None
        and task.codec.array_ready
        and all(getattr(i, "array_ready", False) for i in task.indicators)
    )


def _count_block(task: _CountTask, raw, counts, where: set, counter=None) -> None:
    xp = arrays.namespace(raw)
    if xp is not None:
        if _on_device(task):
            encoded = task.codec.encode_array(raw, xp)
            for i, indicator in enumerate(task.indicators):
                counts[i] += arrays.count(indicator.on(encoded, xp), xp)
            where.add("device")
            return
        raw = arrays.to_numpy(raw)
        where.add("host")
    raw = apply_output_key(raw, task.output_key)
    remaining = range(len(task.indicators))
    if counter is not None and counter.accepts(raw):  # one compiled pass (dpverify.pipeline.counting)
        counter.count(raw, counts)
        remaining = counter.rest
        if not remaining:
            return
    encoded = task.codec.encode(raw)
    projected = {}  # id(projection) -> its values on this block: cells and thresholds of one score share it
    for i in remaining:
        counts[i] += int(np.count_nonzero(_membership(task.indicators[i], encoded, projected)))


def _membership(indicator, encoded, projected: dict):
    """``indicator(encoded)``, reading a projection's values from ``projected`` where the indicator takes them
    (``of_values``; the same values, computed once per block for every indicator on that projection)."""
    projection = getattr(indicator, "projection", None)
    if projection is None or not hasattr(indicator, "of_values"):
        return indicator(encoded)
    key = id(projection)
    if key not in projected:
        projected[key] = (projection, projection(encoded))  # the projection is kept: its id stays its own
    return indicator.of_values(projected[key][1])


#: glibc serves allocations above its mmap threshold with fresh pages (zeroed by the kernel at first
#: touch) and raises the threshold to the size of a freed mapped block, up to 32 MiB.
_MMAP_THRESHOLD_MAX = 32 << 20
#: Outputs of a draw from which :func:`_reuse_freed_memory` takes effect (selection samples this large
#: make temporaries above glibc's first mmap threshold).
LARGE_DRAW_BYTES = 1 << 20
_freed_memory_reused = False


def _reuse_freed_memory() -> None:
    """Let the allocator reuse freed memory instead of mapping fresh pages for each block and selection.

    Once per process: a block just under 32 MiB is allocated (untouched) and freed, which raises glibc's
    mmap threshold to its largest value, and with it the heap's trim threshold to 64 MiB (Linux;
    elsewhere nothing changes). A mechanism's ``sample`` then writes into reused memory, and an audit's
    selection reuses the heap that earlier temporaries grew instead of faulting in fresh pages on first
    touch (measured: docs/auditor/benchmarks.md). The process
    keeps at most 64 MiB of freed memory for it. Called where an audit draws large numpy outputs; results
    do not depend on it.
    """
    global _freed_memory_reused
    if not _freed_memory_reused:
        _freed_memory_reused = True
        # A mapped block of exactly 32 MiB would be one page too large to count (glibc's chunk adds a header).
        del_me = np.empty(_MMAP_THRESHOLD_MAX - 8192, dtype=np.uint8)
        del del_me


#: The counter of the last chunk counted in this process: ``(codec, indicators, counter)``. The chunks of one
#: count share their code book and indicators, and a counter only reads its program (each count makes its
#: own arrays), so a process compiles the events once per count, not once per chunk (0.1-0.3 ms each).
#: :func:`count_events` forgets it when its count ends (a pool's worker keeps it until its next count).
_last_counter: tuple | None = None


def _compiled_counter(task: _CountTask):
    """:func:`dpverify.pipeline.counting.compile_counter` of the task's events, reused from the last chunk
    where the code book and the indicators are the same objects."""
    global _last_counter
    last = _last_counter
    if (
        last is not None
        and last[0] is task.codec
        and len(last[1]) == len(task.indicators)
        and all(a is b for a, b in zip(last[1], task.indicators))
    ):
        return last[2]
    counter = compile_counter(task.codec, task.indicators)
    _last_counter = (task.codec, tuple(task.indicators), counter)
    return counter


def _forget_counter() -> None:
    global _last_counter
    _last_counter = None


def _count_chunk(task: _CountTask):
    rng = np.random.default_rng(task.seed)
    before = _state(rng)
    counts = np.zeros(len(task.indicators), dtype=np.int64)
    where: set = set()
    counter = _compiled_counter(task) if task.compiled else None
    if counter is not None and task.codec.kind == "real":
        _reuse_freed_memory()
    done, block_size, kept = 0, task.block_size, []
    while done < task.size:
        size = min(block_size, task.size - done)
        try:
            raw = _draw_block(task.mechanism, task.data, size, rng)
        except Exception as exc:
            return _failure(exc, True)
        try:
            if task.keep:
                kept.append(_on_host(raw, task.output_key))
            _count_block(task, raw, counts, where, counter)
        except Exception as exc:
            return _failure(exc, False)
        if done == 0 and task.grow_on_accelerator and arrays.on_accelerator(raw) and _on_device(task):
            block_size = max(block_size, _accelerator_block_size(task.codec))
        done += size
    outputs = concatenate_outputs(kept) if task.keep else None
    return _Counted(counts, task.size, _state(rng) != before, frozenset(where), outputs)


def _on_host(raw, output_key):
    """A block of raw outputs as the selection samples hold them: on the host, after ``output_key``."""
    if arrays.namespace(raw) is not None:
        raw = arrays.to_numpy(raw)
    return apply_output_key(raw, output_key)


# --------------------------------------------------------------------------
# running chunks
# --------------------------------------------------------------------------


def _describe(data) -> str:
    text = repr(data)
    return text if len(text) <= 120 else text[:117] + "..."


@contextlib.contextmanager
def _executor(executor):
    """The executor to submit chunks to (None: this process), owning a pool made from a count."""
    if isinstance(executor, numbers.Integral) and not isinstance(executor, bool):
        if check_worker_count(executor) == 1:
            yield None
            return
        pool = concurrent.futures.ProcessPoolExecutor(max_workers=int(executor))
        try:
            yield pool
        except BaseException:
            _stop(pool)
            raise
        else:
            pool.shutdown()
        return
    if executor is None or isinstance(executor, concurrent.futures.Executor):
        yield executor
        return
    if callable(getattr(executor, "get_executor", None)):  # a dask.distributed Client
        yield executor.get_executor(pure=False)
        return
    raise InvalidParameterError(
        "executor must be None, a worker count, a concurrent.futures.Executor or a "
        f"dask.distributed Client, got {type(executor).__name__}"
    )


def _stop(pool: concurrent.futures.ProcessPoolExecutor) -> None:
    """Stop a pool this module made, at once: cancel what has not started and end its workers.

    A plain ``shutdown(wait=False)`` leaves the pool's manager thread waiting for busy (or,
    after a task failed to pickle, stuck) workers, and Python joins that thread at exit: the
    process would hang after the error was reported.
    """
    for process in list(getattr(pool, "_processes", {}).values()):  # private, but the only handle
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _run(function, tasks, weights, executor, progress: bool, desc: str) -> list:
    """``[function(t) for t in tasks]`` on the executor; Ctrl-C cancels what has not started."""
    with _executor(executor) as pool, progress_bar(total=sum(weights), desc=desc, enabled=progress) as bar:
        if pool is None:
            results = []
            for task, weight in zip(tasks, weights):
                results.append(function(task))
                bar.update(weight)
            return results
        try:
            if isinstance(pool, concurrent.futures.ProcessPoolExecutor) and tasks:
                pickle.dumps(tasks[0])  # fail here, by name, rather than in the pool's feeder thread
            futures = {pool.submit(function, task): i for i, task in enumerate(tasks)}
            results = [None] * len(tasks)
            try:
                for future in concurrent.futures.as_completed(futures):
                    i = futures[future]
                    results[i] = future.result()
                    bar.update(weights[i])
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
        except (pickle.PicklingError, TypeError, AttributeError, ValueError) as exc:
            if not _is_pickling_error(exc):
                raise
            raise InvalidParameterError(
                f"the mechanism, its input or an event cannot be sent to the executor's workers ({exc}); "
                "define the mechanism at module level (not in __main__, a function or a lambda), or run "
                "with executor=None"
            ) from exc
        return results


def _is_pickling_error(exc: BaseException) -> bool:
    """Whether ``exc`` says that a task could not be pickled for another process."""
    text = str(exc).lower()
    return isinstance(exc, pickle.PicklingError) or "pickle" in text or "serializ" in text


def _raise_failures(results, labels, data_by_label) -> None:
    for result, label in zip(results, labels):
        if isinstance(result, _Failure):
            if result.type_name == SamplerContractError.__name__:
                raise SamplerContractError(
                    f"the mechanism's vectorized sampler breaks its contract on input {label} = "
                    f"{_describe(data_by_label[label])}: {result.message}"
                ) from result.exception
            if result.from_mechanism:
                raise MechanismError(
                    f"the mechanism raised {result.type_name} on input {label} = "
                    f"{_describe(data_by_label[label])}: {result.message}"
                ) from result.exception
            if isinstance(result.exception, DPVerifyError):
                raise result.exception
            raise MechanismError(
                f"the outputs of input {label} could not be read ({result.type_name}: {result.message})"
            ) from result.exception


def concatenate_outputs(parts):
    """Batches of raw outputs as one batch (arrays stay arrays; anything else becomes a list).

    Raises
    ------
    OutputTypeError
        Arrays whose outputs (rows) have different shapes, e.g. vectors of different widths.
    """
    if all(isinstance(p, np.ndarray) for p in parts):
        shapes = sorted({tuple(p.shape[1:]) for p in parts if p.ndim >= 1})
        if len(shapes) > 1 and all(p.ndim >= 2 for p in parts):
            raise OutputTypeError(
                f"batches of outputs have rows of different shapes {shapes}: every output must have the same "
                "length (one shape throughout)"
            )
        try:
            return np.concatenate(parts, axis=0)
        except ValueError:
            pass
    combined: list = []
    for p in parts:
        combined.extend(list(p))
    return combined


def _concatenate_drawn(results: list):
    """:func:`concatenate_outputs` of the chunks' outputs, releasing each chunk once copied.

    Arrays of one row shape are copied into one preallocated array, so the peak is the
    outputs plus one chunk, not twice the outputs. ``results`` is emptied.
    """
    parts = [r.outputs for r in results]
    results.clear()
    first = parts[0] if parts else None
    if not all(isinstance(p, np.ndarray) for p in parts) or any(
        p.shape[1:] != first.shape[1:] or p.dtype != first.dtype for p in parts
    ):
        return concatenate_outputs(parts)
    out = np.empty((sum(len(p) for p in parts),) + first.shape[1:], dtype=first.dtype)
    start = 0
    for i in range(len(parts)):
        out[start : start + len(parts[i])] = parts[i]
        start += len(parts[i])
        parts[i] = None
    return out


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
    output_key=None,
    return_rng_used: bool = False,
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
        Parent of the chunks' seeds (its first children, see :func:`children`;
        pass a dedicated child of the caller's sequence for each input).
    label : str
        Name of the input in error messages (``"x"`` or ``"x_prime"``).
    executor : None, int, concurrent.futures.Executor or distributed.Client
        ``None`` runs in this process; an int starts a local process pool of that
        many workers for this call; an Executor or Dask Client is used as given.
    n_chunks : int
        Number of chunks (fixed, so results do not depend on the executor).
    progress : bool
        Show a progress bar over chunks.
    output_key : callable, optional
        Applied to every output on the worker (see :mod:`dpverify.keys`).
    return_rng_used : bool
        Also return whether the mechanism drew from the ``rng`` it was given.

    Returns
    -------
    list or numpy.ndarray
        The outputs, in chunk order (and the ``rng_used`` flag when asked).

    Raises
    ------
    MechanismError
        If the mechanism raised; names the input and chains the original error.
    """
    sizes = chunk_sizes(n, n_chunks)
    seeds = children(seed, len(sizes))
    tasks = [_DrawTask(mechanism, data, size, s, output_key) for size, s in zip(sizes, seeds)]
    results = _run(_draw_chunk, tasks, sizes, executor, progress, desc=f"sampling M({label})")
    record_draws(label, n)
    _raise_failures(results, [label] * len(results), {label: data})
    rng_used = any(r.rng_used for r in results)
    outputs = _concatenate_drawn(results)
    if isinstance(outputs, np.ndarray) and outputs.nbytes >= LARGE_DRAW_BYTES:
        _reuse_freed_memory()
    if return_rng_used:
        return outputs, rng_used
    return outputs


@dataclass(frozen=True)
class EventCounts(PlainData):
    """How many of ``n`` fresh outputs of one input fell in each event.

    Attributes
    ----------
    counts : numpy.ndarray
        One count per event, in the order the events were given.
    n : int
        Outputs drawn.
    rng_used : bool
        Whether the mechanism drew from the ``rng`` it was given (False: the
        seed does not control it, and the run cannot be replayed).
    where : frozenset
        For outputs of another array library: ``"device"`` where the events
        were counted with that library, ``"host"`` where the outputs had to be
        moved to numpy first (empty for numpy outputs).
    """

    counts: np.ndarray
    n: int
    rng_used: bool
    where: frozenset = frozenset()


def count_events(
    mechanism,
    inputs,
    codec,
    indicators,
    *,
    executor=None,
    n_chunks=None,
    progress: bool = False,
    output_key=None,
    block_size: int | None = None,
    desc: str = "certifying",
    keep_outputs: bool = False,
) -> list[EventCounts] | tuple[list[EventCounts], list]:
    """Stream fresh outputs of each input and count them in frozen events.

    Parameters
    ----------
    mechanism : callable
        As for :func:`draw`.
    inputs : list of (data, n, seed, label)
        For each input: the data, the number of outputs, the SeedSequence
        whose children seed the chunks, and a label for error messages.
    codec : dpverify.pipeline.outputs.OutputCodec
        Encodes each block of raw outputs (built from other samples).
    indicators : sequence of callable
        ``indicator(encoded_block) -> bool array``; picklable to run elsewhere.
    executor, progress, output_key
        As for :func:`draw`. The chunks of all inputs go to the executor together.
    n_chunks : int, optional
        Chunks per input; :func:`default_chunks` of the largest ``n`` by default.
    block_size : int, optional
        Outputs drawn at once inside a chunk (bounds each worker's memory);
        part of the seeding, so change it only together with the seed. By
        default :data:`BLOCK_SIZE` for a vectorized ``sample`` (fewer for outputs
        wider than 32 entries: at most :data:`BLOCK_BYTES` of float64 per block)
        and :data:`CALL_BLOCK_SIZE` for calls; when the first block of a chunk
        comes back on an accelerator and its events are counted there, the
        following blocks hold :data:`ACCELERATOR_BLOCK_SIZE` outputs (at most
        :data:`ACCELERATOR_BLOCK_BYTES` of float64 on the device).
    keep_outputs : bool
        Also return the outputs counted, so that events chosen later can be counted on them without
        drawing them again (a sequential audit's earlier certification batches): they are held in
        memory, on the host and after ``output_key``, as :func:`draw` returns them.

    Returns
    -------
    list of EventCounts
        One per input. Integer counts: identical whatever executor ran the chunks.
        With ``keep_outputs``, a pair: that list, and the outputs of each input (in chunk order).
    """
    indicators = tuple(indicators)
    if n_chunks is None:
        n_chunks = default_chunks(max(n for _, n, _, _ in inputs))
    grow = block_size is None
    if grow:
        block_size = _block_size(mechanism, codec)
    tasks, owners, weights = [], [], []
    # numpy's cost grows with the coordinates an output has, the kernels' load once per process
    compiled = max((n for _, n, _, _ in inputs), default=0) * _output_width(codec) >= MIN_COMPILED_OUTPUTS
    for index, (data, n, seed, _label) in enumerate(inputs):
        sizes = chunk_sizes(n, n_chunks) if n > 0 else []
        for size, child in zip(sizes, children(seed, len(sizes))):
            task = _CountTask(
                mechanism, data, size, child, codec, indicators, output_key, block_size, compiled, grow, keep_outputs
            )
            tasks.append(task)
            owners.append(index)
            weights.append(size)
    try:
        results = _run(_count_chunk, tasks, weights, executor, progress, desc=desc)
    finally:
        _forget_counter()  # this process holds no audit's code book and events once its count is done
    for _data, n, _seed, label in inputs:
        record_draws(label, n, default="certification")
    labels = [inputs[i][3] for i in owners]
    _raise_failures(results, labels, {label: data for data, _, _, label in inputs})
    out = []
    for index, (_, n, _, _) in enumerate(inputs):
        mine = [r for r, owner in zip(results, owners) if owner == index]
        counts = np.sum([r.counts for r in mine], axis=0) if mine else np.zeros(len(indicators), np.int64)
        where = frozenset().union(*(r.where for r in mine)) if mine else frozenset()
        out.append(EventCounts(np.asarray(counts, dtype=np.int64), int(n), any(r.rng_used for r in mine), where))
    if keep_outputs:
        kept = [[r.outputs for r, owner in zip(results, owners) if owner == index] for index in range(len(inputs))]
        return out, [concatenate_outputs(parts) if parts else [] for parts in kept]
    return out
