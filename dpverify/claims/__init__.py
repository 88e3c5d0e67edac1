"""Privacy claims as data, in the form their source states them.

- :class:`PrivacyClaim`: the one claim type (``PrivacyClaim(epsilon, delta)``,
  ``PrivacyClaim.zcdp(rho)``, ``.renyi(alpha, epsilon)``, ``.gdp(mu)``, ``.tradeoff(f)``);
- :mod:`dpverify.claims.kinds`: a claim kind as a declared record, one module per kind
  (:mod:`~dpverify.claims.approximate`, :mod:`~dpverify.claims.zcdp`,
  :mod:`~dpverify.claims.renyi`, :mod:`~dpverify.claims.gaussian`,
  :mod:`~dpverify.claims.tradeoff`), registered in :mod:`dpverify.claims.registry`;
- :func:`claim_of`, :func:`resolve_claim`: what a mechanism states, and what an audit audits.
"""

from .claim import MODELS, PrivacyClaim, StatesClaim, claim_of, resolve_claim
from .kinds import ClaimKind
from .registry import BUILTIN_KINDS, claim_kind, claim_kinds, register_claim_kind, unregister_claim_kind

__all__ = [
    "PrivacyClaim",
    "StatesClaim",
    "claim_of",
    "resolve_claim",
    "MODELS",
    "BUILTIN_KINDS",
    "ClaimKind",
    "claim_kind",
    "claim_kinds",
    "register_claim_kind",
    "unregister_claim_kind",
]
