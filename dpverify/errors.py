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
    "InvalidNeighboursError",
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


class InvalidNeighboursError(DPVerifyError, ValueError):
    """Neighbouring inputs a search audit cannot use: no pairs, a pair that is not ``(x, x_prime)``,
    a generator that returns equal inputs, or a neighbour generator built with bad parameters."""
