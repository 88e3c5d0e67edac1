"""Privacy claims as data, in the form their source states them.

- :class:`PrivacyClaim`: the one claim type (``PrivacyClaim(epsilon, delta)``,
  ``PrivacyClaim.zcdp(rho)``, ``.renyi(alpha, epsilon)``, ``.gdp(mu)``, ``.tradeoff(f)``, and
  ``PrivacyClaim.of(kind, **parameters)`` for any registered kind);
- :mod:`dpverify.claims.kinds`: a claim kind as a declared record, one module per kind
  (:mod:`~dpverify.claims.approximate`, :mod:`~dpverify.claims.zcdp`,
  :mod:`~dpverify.claims.renyi`, :mod:`~dpverify.claims.gaussian`,
  :mod:`~dpverify.claims.tradeoff`), registered in :mod:`dpverify.claims.registry`;
- :class:`~dpverify.claims.parameters.KindParameters`: the parameters of a kind's own
  (:attr:`PrivacyClaim.params`), and the text form ``KIND:NAME=VALUE[,NAME=VALUE]`` of a claim
  (:meth:`PrivacyClaim.from_text`, the command line's ``--claim``);
- :func:`claim_of`, :func:`stated_claim`, :func:`resolve_claim`: what a mechanism states, and what an audit
  audits.
"""

from .claim import MODELS, PrivacyClaim, StatesClaim, claim_of, resolve_claim, stated_claim
from .kinds import ClaimKind
from .parameters import KindParameters
from .registry import BUILTIN_KINDS, claim_kind, claim_kinds, register_claim_kind, unregister_claim_kind

__all__ = [
    "PrivacyClaim",
    "StatesClaim",
    "claim_of",
    "stated_claim",
    "resolve_claim",
    "MODELS",
    "BUILTIN_KINDS",
    "ClaimKind",
    "KindParameters",
    "claim_kind",
    "claim_kinds",
    "register_claim_kind",
    "unregister_claim_kind",
]
