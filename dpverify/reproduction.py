"""Registry for the figure reproductions behind ``dpverify reproduce NAME``, and the executors they run on.

What a package implements to register a reproduction, apart from the command line (as
:mod:`dpverify.verification` is for ``dpverify suite``): defining one loads no command line. The
errors it raises (:class:`~dpverify.errors.MissingExtraError`,
:class:`~dpverify.errors.SchedulerUnreachableError`) live in :mod:`dpverify.errors` and are
re-exported here.

Packages register reproductions through the entry-point group
``dpverify.reproductions``: each entry point names a callable returning an
iterable of :class:`Reproduction`.

Scale-out goes through ``concurrent.futures``: :func:`open_executor` gives
nothing (one local worker, run in order), a thread or process pool (``workers``
local workers) or a Dask cluster's executor (``scheduler``), and
:func:`map_tasks` runs independent tasks on it with a progress line per task
and an estimate of the time left. Tasks carry their own seeds (spawned per run
with ``SeedSequence.spawn``, never per worker), so the results do not depend on
the executor or the number of workers.
"""

from __future__ import annotations

import inspect
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import _validation as check
from .errors import CommandUsageError, MissingExtraError, PluginError, SchedulerUnreachableError
from .plugins import load_group, unique_names
from .support.progress import progress_bar

__all__ = [
    "Reproduction",
    "registered_reproductions",
    "reproduction",
    "MissingExtraError",
    "SchedulerUnreachableError",
    "available_workers",
    "open_executor",
    "map_tasks",
    "require_distributed",
]

ENTRY_POINT_GROUP = "dpverify.reproductions"

#: Environment variable Dask itself reads for the scheduler's address.
SCHEDULER_ENV = "DASK_SCHEDULER_ADDRESS"


@dataclass(frozen=True)
class Reproduction:
    """A figure of a paper that can be regenerated.

    Parameters
    ----------
    name : str
        The command-line name, e.g. ``"private-mst-density"``.
    description : str
        What is reproduced (paper, figure, parameters).
    run : callable
        ``run(out_dir: Path, *, quick: bool, seed: int, progress: bool) -> list[Path]``
        writes its PNG and CSV files into ``out_dir`` and returns their paths.
        A ``run`` that also accepts ``executor=`` (a ``concurrent.futures.Executor``
        or ``None``) is given the one ``dpverify reproduce --workers/--scheduler``
        asks for; its results must not depend on it.
    """

    name: str
    description: str
    run: Callable[..., list[Path]] = field(repr=False, compare=False)

    @property
    def accepts_executor(self) -> bool:
        """Whether :attr:`run` takes ``executor=`` (and so can use several workers)."""
        try:
            params = inspect.signature(self.run).parameters
        except (TypeError, ValueError):
            return False
        return "executor" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def registered_reproductions() -> dict[str, Reproduction]:
    """All registered reproductions, by name (an entry point that fails to load is left out with a
    warning, :func:`dpverify.plugins.load_group`; :func:`reproduction` names it)."""
    found = unique_names(_loaded().records, lambda item: item.name, ENTRY_POINT_GROUP)
    return dict(sorted(found.items()))


def reproduction(name: str) -> Reproduction:
    """The registered reproduction ``name``.

    Raises
    ------
    PluginError
        No reproduction of that name, and a reproduction plug-in did not load (it may be the one asked for).
    CommandUsageError
        No reproduction of that name (the message lists the registered ones).
    """
    available = registered_reproductions()
    if name in available:
        return available[name]
    loaded = _loaded()
    if loaded.failures:
        raise PluginError(
            f"no reproduction {name!r} is registered, and a plug-in that may give it did not load: "
            + "; ".join(str(error) for error in loaded.failures.values())
        )
    raise CommandUsageError(f"unknown reproduction {name!r}; available: {', '.join(available) or 'none'}")


def _loaded():
    return load_group(ENTRY_POINT_GROUP, Reproduction, call=True)


def available_workers() -> int:
    """The number of cores this process may use (``os.sched_getaffinity``), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def _check_workers(workers) -> int:
    """``workers`` as an int >= 1, or :class:`InvalidParameterError`."""
    return check.check_workers(workers, available_workers())


def _ignore_sigint() -> None:  # pragma: no cover - runs in worker processes
    """Worker processes leave Ctrl-C to the parent, which cancels and stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def require_distributed():
    """Import ``distributed`` or raise :class:`MissingExtraError` naming the ``dask`` extra."""
    try:
        import distributed
    except ImportError as exc:
        raise MissingExtraError(
            "a Dask scheduler was given but dask.distributed is not installed: pip install 'dpverify[dask]'"
        ) from exc
    return distributed


@contextmanager
def open_executor(
    workers: int | None = None, scheduler: str | None = None, *, processes: bool = False
) -> Iterator[Executor | None]:
    """An executor for independent tasks, shut down (pending tasks cancelled) on the way out.

    Parameters
    ----------
    workers : int, optional
        Local workers; default :func:`available_workers`. ``1`` yields ``None``
        (run in order, in this thread).
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``); takes precedence over
        ``workers``. Needs the ``dask`` extra (:class:`MissingExtraError`).
    processes : bool
        Local processes instead of threads (for tasks that hold the GIL). Tasks
        must then be picklable, as they must for Dask.
    """
    if scheduler:
        distributed = require_distributed()
        try:
            client = distributed.Client(scheduler)
        except (OSError, TimeoutError) as exc:
            raise SchedulerUnreachableError(
                f"cannot reach the Dask scheduler at {scheduler!r} ({type(exc).__name__}: {exc}); check the "
                f"address (tcp://host:port) or leave --scheduler and $DASK_SCHEDULER_ADDRESS unset to run locally"
            ) from exc
        executor = client.get_executor(pure=False)
        try:
            yield executor
        except BaseException:
            executor.shutdown(wait=False)  # cancels the pending tasks on the cluster
            raise
        finally:
            client.close()
        return
    workers = available_workers() if workers is None else _check_workers(workers)
    if workers == 1:
        yield None
        return
    if processes:
        import multiprocessing

        # fork where there is one: the workers start at once with what this process has imported
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method), initializer=_ignore_sigint)
    else:
        pool = ThreadPoolExecutor(workers)
    try:
        yield pool
    except BaseException:
        # a process pool forgets its processes on shutdown: take them first
        processes = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()  # a running task would otherwise finish first
        raise
    else:
        pool.shutdown(wait=True)


def map_tasks(
    fn: Callable,
    tasks: Sequence,
    *,
    executor: Executor | None = None,
    progress: bool = False,
    desc: str = "",
    on_result: Callable | None = None,
) -> list:
    """``[fn(*task) for task in tasks]``, on ``executor`` when given, with progress per task.

    Results come back in the order of ``tasks`` whatever the executor. On an
    error or ``KeyboardInterrupt`` the tasks not yet started are cancelled before
    the exception propagates. ``on_result(index, result)``, when given, is called
    in this thread as each task finishes.
    """
    tasks = list(tasks)
    results: list = [None] * len(tasks)
    with progress_bar(total=len(tasks), desc=desc, enabled=progress) as bar:
        if executor is None:
            for i, task in enumerate(tasks):
                results[i] = fn(*task)
                if on_result is not None:
                    on_result(i, results[i])
                bar.update(1)
            return results
        futures = {}
        try:
            for i, task in enumerate(tasks):
                futures[executor.submit(fn, *task)] = i
            pending = set(futures)
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    i = futures[future]
                    results[i] = future.result()
                    if on_result is not None:
                        on_result(i, results[i])
                    bar.update(1)
        except BaseException:
            for future in futures:
                future.cancel()
            raise
    return results
