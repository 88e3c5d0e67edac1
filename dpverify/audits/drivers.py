"""The audit drivers, each declared once, in its own module, by a :class:`Driver` record.

A driver's record says everything the shared machinery asks about it: the result type it returns,
its named random streams (:func:`dpverify.audits.plan.build_plan` lays them out, in this order),
what its replay takes besides the result and the replay itself (:func:`dpverify.replay`), and which
field of its result records the sample count it was called with. A driver of one pair declares its
record with :func:`dpverify.audits.plan.pair_driver`, which writes its replay.

There is no list of drivers to keep: :func:`builtin_drivers` reads the records the modules of
:mod:`dpverify.audits` declare (:func:`declared_drivers`), and :func:`driver_for` looks a result type's
replay up among them. The plan, the replay (``result.replay(...)``, :func:`dpverify.replay`) and the
driver contract test (``properties/auditor/audits/test_driver_contract.py``) read the records, so that
adding a driver touches its module (its record) and the contract test (its call). Importing a module
registers nothing.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field

from .._results import a_name
from .._validation import check_callable, check_choice, check_name, check_optional_callable
from ..errors import InvalidParameterError, NotReplayableError

__all__ = [
    "Driver",
    "ReplayedByItsDriver",
    "PAIR_STREAMS",
    "PAIR_INPUTS",
    "SOURCES",
    "builtin_drivers",
    "declared_drivers",
    "driver_for",
    "driver_of",
]

#: The package whose modules declare the built-in drivers.
PACKAGE = "dpverify.audits"
#: What a driver computes from: outputs of a mechanism (drawn from it, or given as samples; the driver
#: contract checks these), or two computable distributions (pmfs).
SOURCES = ("samples", "pmfs")

#: The streams of a driver that selects and certifies on one pair (the first four of :func:`dpverify.audit`'s).
PAIR_STREAMS = ("selection_x", "selection_x_prime", "certification_x", "certification_x_prime")
#: What the replay of a driver of one pair takes besides the result.
PAIR_INPUTS = ("mechanism", "x", "x_prime")


@dataclass(frozen=True)
class Driver:
    """One driver: what the plan, the replay and the driver contract read about it.

    Attributes
    ----------
    name : str
        The driver's name (the function's), as its errors and plan name it.
    result : type
        The result type it returns (the type its replay is looked up by).
    streams : tuple of str
        Its named random streams, children of the run's SeedSequence in this order (the index of a name is
        its spawn index: reordering them changes every seeded result); empty for a driver that draws
        nothing or spawns per pair.
    inputs : tuple of str
        What its replay takes besides the result (``("mechanism", "x", "x_prime")``); empty: no replay.
    replay : callable or None
        ``replay(result, *inputs, executor=None, progress=False)``, the driver again from the result
        alone; None: its results cannot be replayed (given samples: there is no seed).
    sample_field : str
        The result field that holds the ``n_samples`` the driver was called with (a sequential audit's
        ``budget``).
    source : {"samples", "pmfs"}
        What it computes from (:data:`SOURCES`): a mechanism's outputs, or two pmfs.
    """

    name: str
    result: type
    streams: tuple = ()
    inputs: tuple = ()
    replay: Callable | None = field(default=None, repr=False)
    sample_field: str = "n_samples"
    source: str = "samples"

    def __post_init__(self):
        check_name(self.name, "a driver")
        check_choice(self.source, f"driver {self.name!r}: source", SOURCES)
        check_callable(self.result, f"driver {self.name!r}: result")
        check_optional_callable(self.replay, f"driver {self.name!r}: replay")
        object.__setattr__(self, "streams", tuple(self.streams))
        object.__setattr__(self, "inputs", tuple(self.inputs))

    def replay_inputs(self, result, inputs: tuple) -> tuple:
        """``inputs`` of a replay of ``result``, refused by name when there are not as many as it takes."""
        if len(inputs) != len(self.inputs):
            raise InvalidParameterError(
                f"{a_name(type(result).__name__)} replays from {', '.join(self.inputs)}; got {len(inputs)} inputs"
            )
        return inputs


def declared_drivers(package: str) -> tuple[Driver, ...]:
    """The :class:`Driver` records that the modules of ``package`` declare, in module-name order.

    Each module of the package (not its subpackages) is imported and its module-level ``Driver`` values
    are read; a record imported into another module (a driver that runs another) is read once.

    Raises
    ------
    InvalidParameterError
        Two records give one name (a plan or a message could not tell them apart).
    """
    found: dict[str, Driver] = {}
    root = importlib.import_module(package)
    for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{package}.{info.name}")
        for record in vars(module).values():
            if isinstance(record, Driver) and found.setdefault(record.name, record) is not record:
                raise InvalidParameterError(f"two driver records are named {record.name!r} (in {module.__name__})")
    return tuple(found.values())


@functools.cache
def builtin_drivers() -> tuple[Driver, ...]:
    """The built-in drivers: the records the modules of :mod:`dpverify.audits` declare (:func:`declared_drivers`)."""
    return declared_drivers(PACKAGE)


def driver_for(result_type: type) -> Driver | None:
    """The built-in driver that replays results of exactly ``result_type`` (the record of that result type
    with a replay), or None. What ``result.replay(...)`` looks up."""
    for record in builtin_drivers():
        if record.result is result_type and record.replay is not None:
            return record
    return None


def driver_of(result) -> Driver:
    """The built-in driver that replays ``result``: the record of its type, or of its nearest base type
    (an audit of given samples returns an :class:`~dpverify.AuditResult` too: the record that replays it
    is :func:`dpverify.audit`'s).

    Raises
    ------
    NotReplayableError
        No built-in driver replays a result of its type or of a base type.
    """
    for cls in type(result).__mro__:
        record = driver_for(cls)
        if record is not None:
            return record
    raise NotReplayableError(f"no built-in driver replays {a_name(type(result).__name__)}")


class ReplayedByItsDriver:
    """Mixin of a result type that a driver returns and replays: :meth:`replay` runs the replay the driver's
    record declares, looked up by the result's exact type (:func:`driver_for`)."""

    def replay(self, *inputs, executor=None, progress: bool = False):
        """Run the computation behind this result again, as :meth:`dpverify._results.Result.replay` says, with
        the replay of the driver's record (:func:`dpverify.replay` lists what each type takes)."""
        record = driver_for(type(self))
        if record is None:  # a subclass no record returns: refused by name
            return super().replay(*inputs, executor=executor, progress=progress)
        return record.replay(self, *inputs, executor=executor, progress=progress)
