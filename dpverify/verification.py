"""What ``dpverify suite`` runs: a named verification, its outcome, and its row in the report.

A package registers verifications through the entry-point group
``dpverify.verifications`` (each entry point names a callable returning an
iterable of :class:`Verification`); the runner is :mod:`dpverify.cli.suite`.
These types are the contract a verification implements, apart from the runner,
so that implementing one does not load the command line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ._results import Result, dataclass_to_dict
from ._validation import check_optional_claim
from .claims import PrivacyClaim

__all__ = ["Verification", "VerificationOutcome", "VerificationRecord"]

#: Why a verification's outcome or row does not replay on its own.
_RUN_THE_SUITE = "it is a verification's outcome: run `dpverify suite --seed SEED` (the report's seed) again"


@dataclass(frozen=True)
class VerificationOutcome(Result):
    """What one verification found.

    Attributes
    ----------
    passed : bool
        Whether the verified claim survived.
    certified_lower_bound : float or None
        A ``1 - alpha`` lower confidence bound on the privacy loss (or the
        statistic the check certifies), when the verification samples.
    exact_loss : float or None
        The exact privacy loss, where the output distribution is computable.
    details : str
        One or two sentences a reader can act on (event, p-value, slack).
    """

    passed: bool
    certified_lower_bound: float | None = None
    exact_loss: float | None = None
    details: str = ""

    _NOT_REPLAYABLE = _RUN_THE_SUITE


@dataclass(frozen=True)
class Verification:
    """A named check that ``dpverify suite`` runs.

    Parameters
    ----------
    name : str
        Unique, slash-separated name, e.g. ``"textbook/laplace"``.
    statement : str
        What is verified, in words, e.g. ``"eps = 1 (pure DP)"`` or ``"the tree spans"``.
    run : callable
        ``run(seed) -> VerificationOutcome``; must be deterministic given the seed.
    claim : dpverify.PrivacyClaim or None
        The privacy claim the check is about, as data, where it is about one.

    Raises
    ------
    InvalidParameterError
        ``claim`` that is not a :class:`~dpverify.PrivacyClaim` (the words go in ``statement``).
    """

    name: str
    statement: str
    run: Callable[[int], VerificationOutcome] = field(repr=False, compare=False)
    claim: PrivacyClaim | None = None

    def __post_init__(self):
        check_optional_claim(self.claim, PrivacyClaim)


@dataclass(frozen=True)
class VerificationRecord(Result):
    """A row of the suite report: a verification (its statement and claim), its outcome and its time."""

    name: str
    statement: str
    passed: bool
    certified_lower_bound: float | None
    exact_loss: float | None
    details: str
    seconds: float
    error: str | None = None
    compile_seconds: float = 0.0
    claim: PrivacyClaim | None = None

    _NOT_REPLAYABLE = _RUN_THE_SUITE

    def to_dict(self) -> dict:
        """The fields as JSON-serialisable plain data (non-finite numbers as floats, the claim as a dict)."""
        return dataclass_to_dict(self, claim=None if self.claim is None else self.claim.to_dict())

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)  # reads the "inf" strings of dpverify 0.1 reports
        if data.get("claim") is not None:
            data["claim"] = PrivacyClaim.from_dict(data["claim"])
        return data
