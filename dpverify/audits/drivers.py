"""The audit drivers, each declared once, in its own module, by a :class:`Driver` record.

A driver's record says everything the shared machinery asks about it: the result type it returns,
its named random streams (:func:`dpverify.audits.plan.build_plan` lays them out, in this order),
what its replay takes besides the result and the replay itself (:func:`dpverify.replay`), and which
field of its result records the sample count it was called with. The plan, the replay and the
driver contract test (``properties/auditor/audits/test_driver_contract.py``) read the records, so
that adding a driver touches its module (its record), the list of built-in drivers
(:data:`dpverify.audits.replay.AUDIT_DRIVERS`) and the contract test. A driver of one pair declares its
record with :func:`dpverify.audits.plan.pair_driver`, which writes its replay.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .._validation import check_callable, check_name, check_optional_callable
from ..errors import InvalidParameterError

__all__ = ["Driver", "PAIR_STREAMS", "PAIR_INPUTS"]

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
    """

    name: str
    result: type
    streams: tuple = ()
    inputs: tuple = ()
    replay: Callable | None = field(default=None, repr=False)
    sample_field: str = "n_samples"

    def __post_init__(self):
        check_name(self.name, "a driver")
        check_callable(self.result, f"driver {self.name!r}: result")
        check_optional_callable(self.replay, f"driver {self.name!r}: replay")
        object.__setattr__(self, "streams", tuple(self.streams))
        object.__setattr__(self, "inputs", tuple(self.inputs))

    def replay_inputs(self, result, inputs: tuple) -> tuple:
        """``inputs`` of a replay of ``result``, refused by name when there are not as many as it takes."""
        if len(inputs) != len(self.inputs):
            raise InvalidParameterError(
                f"a {type(result).__name__} replays from {', '.join(self.inputs)}; got {len(inputs)} inputs"
            )
        return inputs
