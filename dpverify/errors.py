"""Named exceptions of dpverify; each message says what is wrong and what is allowed."""

__all__ = [
    "DPVerifyError",
    "InvalidClaimError",
    "InvalidParameterError",
    "InsufficientSamplesError",
    "MechanismError",
    "OutputTypeError",
    "IdenticalInputsError",
    "InvalidDistributionError",
    "SamplerContractError",
    "InsufficientMemoryError",
    "InvalidNeighboursError",
    "OutsideDomainError",
    "ResultFormatError",
    "NotReplayableError",
    "MissingExtraError",
    "SchedulerUnreachableError",
    "PluginError",
    "ReplayMismatchError",
    "ReplayNotCheckedWarning",
    "InvalidArgumentTypeError",
    "CommandUsageError",
    "CommandFailure",
]


class DPVerifyError(Exception):
    """Base class of every error dpverify raises on bad input."""


class InvalidClaimError(DPVerifyError, ValueError):
    """A privacy claim outside its domain: epsilon must be finite and > 0, delta in [0, 1)."""


class InvalidParameterError(DPVerifyError, ValueError):
    """An audit or test parameter outside its domain (alpha, sample sizes, chunk counts)."""


class InsufficientSamplesError(DPVerifyError, ValueError):
    """Too few samples to certify anything at the requested confidence.

    Attributes
    ----------
    required : int
        The smallest ``n_samples`` (per input) that could certify a violation.
    """

    def __init__(self, message: str, required: int):
        super().__init__(message)
        self.required = required


class MechanismError(DPVerifyError, RuntimeError):
    """The mechanism under audit raised; the original error is chained as ``__cause__``."""


class OutputTypeError(DPVerifyError, TypeError):
    """Outputs that are unhashable, of mixed types, or of a kind a test cannot use."""


class IdenticalInputsError(DPVerifyError, ValueError):
    """``x`` and ``x_prime`` are equal: an audit needs two different neighbouring inputs."""


class InvalidDistributionError(DPVerifyError, ValueError):
    """A probability mass function with negative, non-finite or non-normalized masses."""


class SamplerContractError(MechanismError):
    """A vectorized ``sample(data, size, rng)`` that breaks its contract.

    It returned a number of outputs other than ``size``, or outputs whose
    distribution differs from that of ``mechanism(data, rng)`` (a test of the
    two on a small batch rejected their equality).
    """


class InsufficientMemoryError(DPVerifyError, MemoryError):
    """The audit would need more memory than the machine has available; raised before any work.

    Attributes
    ----------
    required_bytes : int
        The estimate of :func:`dpverify.pipeline.memory.audit_memory_bytes`.
    available_bytes : int
        The memory the operating system reported available.
    """

    def __init__(self, message: str, required_bytes: int, available_bytes: int):
        super().__init__(message)
        self.required_bytes = required_bytes
        self.available_bytes = available_bytes

    def __reduce__(self):
        return (type(self), (str(self), self.required_bytes, self.available_bytes))


class InvalidNeighboursError(DPVerifyError, ValueError):
    """Neighbouring inputs a search audit cannot use: no pairs, a pair that is not ``(x, x_prime)``,
    a generator that returns equal inputs, or a neighbour generator built with bad parameters."""


class OutsideDomainError(InvalidNeighboursError):
    """An input outside the input domain its mechanism declares (``input_domain``, or ``--domain`` on the
    command line): the message names the input, the domain and what it allows."""


class ResultFormatError(DPVerifyError, ValueError):
    """Saved data (``to_json``/``to_dict`` of a result) that the result type asked to read cannot hold.

    Raised, for example, for keys that no result of the asked type (nor of its subclasses) has,
    instead of the constructor's ``TypeError``; the message names the type that wrote them where
    one here can.
    """


class NotReplayableError(InvalidParameterError):
    """A result that cannot be run again: it records no seed (samples given, not drawn), it was
    saved before its options were recorded, or its type has no replay (the message says which)."""


class MissingExtraError(DPVerifyError, ImportError):
    """An optional dependency is not installed; the message names the extra that provides it."""


class SchedulerUnreachableError(DPVerifyError, ConnectionError):
    """The Dask scheduler given (``scheduler=``, ``--scheduler``, ``$DASK_SCHEDULER_ADDRESS``) cannot be reached."""


class PluginError(DPVerifyError, RuntimeError):
    """A plug-in (an entry point of a ``dpverify.*`` group, :mod:`dpverify.plugins`) that does not load,
    or two plug-ins of one name; the message names the entry point, its target and the exception
    (chained as ``__cause__``). A plug-in that does not load is left out with a warning and this error
    is raised only where it is used by name; the command line exits 3 with it."""


class ReplayMismatchError(DPVerifyError, ValueError):
    """A replay handed another mechanism or other inputs than its result was computed on (as its
    fingerprint tells, :mod:`dpverify.audits.fingerprint`), or a search's neighbours that propose
    other candidate pairs: the replay could only return another audit, so it is refused."""


class ReplayNotCheckedWarning(DPVerifyError, UserWarning):
    """A replay that could not check part of what it was handed (inputs or a mechanism with no
    fingerprint, :mod:`dpverify.audits.fingerprint`), on a result type with no ``notes`` to say so."""


class InvalidArgumentTypeError(DPVerifyError, TypeError):
    """An argument of the wrong kind: not callable, not a class, or an object without the method a
    wrapper calls (an adapter's mechanism without ``add_noise``, a measurement without a privacy map)."""


class CommandUsageError(DPVerifyError):
    """The command line asks for something that cannot be done (exit 2); the message says what."""


class CommandFailure(DPVerifyError):
    """The command line failed for a reason other than its arguments (exit 3): a module that raised on
    import, an output that cannot be written; the message says what."""
