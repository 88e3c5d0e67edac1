"""A privacy claim as data: what a mechanism promises, for which neighbours, and on whose word.

One claim type serves the auditor and every algorithm family (cf. OpenDP, where a
measurement carries its privacy map, and DP-Auditorium's ``PureDp`` and
``ApproximateDp`` configs). A mechanism states its claim as a ``claim``
attribute holding a :class:`PrivacyClaim`; :func:`claim_of` reads it, and the
audit drivers use it when they are not given an epsilon. The families'
own accounting (a zCDP ``rho``, an ``epsilon0`` per step, per-arm budgets)
derives from, or leads to, such a claim and lives beside it in the family.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import _validation as check
from ._results import PlainData
from .errors import InvalidClaimError

__all__ = ["PrivacyClaim", "StatesClaim", "claim_of", "resolve_claim", "MODELS"]

#: Where the privacy holds: on the mechanism's whole output (central) or on each report a
#: user sends (local).
MODELS = ("central", "local")


@dataclass(frozen=True)
class PrivacyClaim(PlainData):
    """An (epsilon, delta)-DP guarantee and where it comes from (``PrivacyClaim(**claim.to_dict())`` reloads it).

    Attributes
    ----------
    epsilon : float
        Claimed epsilon, finite and >= 0 (0 claims that no output reveals
        anything, as where no two inputs are neighbours). An audit needs
        epsilon > 0 and checks its own domain when it reads the claim.
    delta : float, default 0
        Claimed delta, in [0, 1).
    neighbouring : str
        The neighbouring relation the claim is for, in words (``"add/remove one
        record"``, ``"one weight moves by at most 1"``...).
    source : str
        Where the claim is stated (paper and theorem, library accounting, ...).
    model : {"central", "local"}
        Whether the claim covers the whole output or each user's report.
    stated_epsilon : float or None
        The epsilon the source states, where it differs from ``epsilon`` (a
        paper that states ``2 eps`` for what its proof gives as ``eps``).

    Examples
    --------
    >>> from dpverify.claims import PrivacyClaim
    >>> PrivacyClaim(1.0, source="Dwork and Roth 2014, Theorem 3.6")
    PrivacyClaim(epsilon=1.0, delta=0.0, neighbouring='', source='Dwork and Roth 2014, Theorem 3.6', model='central', stated_epsilon=None)
    """  # noqa: E501

    epsilon: float
    delta: float = 0.0
    neighbouring: str = ""
    source: str = ""
    model: str = "central"
    stated_epsilon: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "epsilon", check.check_claimed_epsilon(self.epsilon))
        object.__setattr__(self, "delta", check.check_delta(self.delta))
        if self.model not in MODELS:
            raise InvalidClaimError(f"model must be one of {MODELS}, got {self.model!r}")
        if self.stated_epsilon is not None:
            object.__setattr__(
                self, "stated_epsilon", check.check_claimed_epsilon(self.stated_epsilon, "stated_epsilon")
            )

    @property
    def is_pure(self) -> bool:
        """True for a pure claim (``delta == 0``)."""
        return self.delta == 0.0

    def __str__(self) -> str:
        text = f"eps={self.epsilon:g}" + (f", delta={self.delta:g}" if self.delta else "")
        return text + (f" ({self.source})" if self.source else "")

    @classmethod
    def from_dict(cls, data: dict) -> PrivacyClaim:
        return cls(**data)


def claim_of(mechanism) -> PrivacyClaim | None:
    """The claim ``mechanism`` states (its ``claim`` attribute), or None when it states none.

    Raises
    ------
    InvalidClaimError
        A ``claim`` attribute that is not a :class:`PrivacyClaim`.
    """
    claim = getattr(mechanism, "claim", None)
    if claim is None or isinstance(claim, PrivacyClaim):
        return claim
    raise InvalidClaimError(
        f"{type(mechanism).__name__}.claim must be a dpverify.claims.PrivacyClaim (or None), got {claim!r}"
    )


def resolve_claim(mechanism, epsilon=None, delta=None) -> tuple[PrivacyClaim, tuple]:
    """The claim to audit: ``epsilon`` and ``delta`` where given, the rest from the mechanism's claim.

    Returns the claim and the notes an audit result should carry: a note when
    the audited claim differs from the one the mechanism states, so that a
    mistyped or forgotten ``delta`` is never silent.

    Raises
    ------
    InvalidClaimError
        No ``epsilon`` given and the mechanism states no claim, or values out
        of their domains.
    """
    stated = claim_of(mechanism)
    if epsilon is None:
        if stated is None:
            raise InvalidClaimError(
                "no epsilon given, and the mechanism states no claim (a dpverify.claims.PrivacyClaim as its "
                "`claim` attribute): pass epsilon= (and delta= for an approximate claim)"
            )
        epsilon = stated.epsilon
    epsilon = check.check_epsilon(epsilon)  # the audit's domain: > 0 and finite
    if delta is None:
        delta = stated.delta if stated is not None and epsilon == stated.epsilon else 0.0
    claim = PrivacyClaim(epsilon, delta)
    if stated is None or (claim.epsilon, claim.delta) == (stated.epsilon, stated.delta):
        return claim, ()
    return claim, (
        f"the audited claim ({claim}) differs from the one the mechanism states ({stated}); "
        "omit epsilon and delta to audit the stated claim",
    )


class StatesClaim:
    """Mixin for a mechanism whose privacy parameters are its claim: ``claim`` from ``epsilon`` and ``delta``.

    A class sets :attr:`claim_neighbouring` (its relation, a template formatted
    with the instance's attributes, e.g. ``"|x - x'| <= {sensitivity:g}"``) and
    :attr:`claim_source`. A deliberately broken subclass states the claim its
    parameters make, which is false; that is what an audit must catch.
    """

    #: The neighbouring relation, formatted with the instance's attributes.
    claim_neighbouring: str = ""
    #: Where the claim is stated.
    claim_source: str = ""

    @property
    def claim(self) -> PrivacyClaim:
        """The claim this mechanism states (:class:`PrivacyClaim`)."""
        return PrivacyClaim(
            self.epsilon,
            getattr(self, "delta", 0.0),
            neighbouring=self.claim_neighbouring.format(**vars(self)),
            source=self.claim_source,
        )
