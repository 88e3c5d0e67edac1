"""dpverify: a general auditor for differential-privacy claims.

It knows nothing about any particular algorithm. Given a mechanism (any
callable ``mechanism(data, rng)``) and neighbouring inputs it

- certifies a lower confidence bound on the privacy loss (:func:`audit`;
  :func:`search_audit` over a neighbouring relation (:mod:`dpverify.neighbours`);
  :func:`audit_samples` for samples already drawn; :func:`sequential_audit`;
  :func:`delta_lower_bound_curve`),
- computes the loss exactly where output distributions are computable
  (:func:`exact_privacy_loss`),
- tests whether samplers share a distribution (:func:`equal_distributions`,
  :func:`goodness_of_fit`),

with sampling in seeded chunks that run on any ``concurrent.futures.Executor``.

``import dpverify`` loads the vocabulary (errors, claims, options, neighbouring relations); the
drivers and the libraries they need (scipy, numba, statsmodels) load at first use, so that the
import costs a fraction of ``import scipy.stats`` and the command line installs its Ctrl-C handler
(:mod:`dpverify.cli._startup`) before they load.

The package in layers, lowest first; a module imports only its own layer or lower ones
(``properties/test_layout.py`` checks it):

- :mod:`dpverify.errors`, ``_validation`` (the argument checks), ``_results`` (the base of
  every result) and the leaf helpers of :mod:`dpverify.support` (arrays, progress);
- the vocabulary: :mod:`dpverify.claims` (the privacy claim), :mod:`dpverify.options`
  (the audit options), :mod:`dpverify.protocols` (the mechanism contracts),
  :mod:`dpverify.keys` (ready ``output_key`` functions), :mod:`dpverify.verification`
  (what ``dpverify suite`` runs), :mod:`dpverify.reproduction` (what ``dpverify reproduce``
  runs, and the executors), :mod:`dpverify.neighbours` (neighbouring relations to search);
- :mod:`dpverify.events`: the event families, each declaring its role;
- :mod:`dpverify.pipeline`: outputs, sampling, the sampler check, selection, bounds;
- :mod:`dpverify.audits`: the result types, certification, the drivers and replay;
- :mod:`dpverify.mechanisms` (the textbook zoo, correct and broken, with claims) and
  :mod:`dpverify.testing` (pytest assertions and Hypothesis strategies);
- :mod:`dpverify.cli` (the command line and the suite's runner), :mod:`dpverify.extras`
  (what needs an optional dependency: adapters of DP libraries, reports).
"""

from typing import TYPE_CHECKING

from . import keys, neighbours
from .claims import PrivacyClaim
from .errors import *  # noqa: F403 (every named error; the list is errors.__all__)
from .errors import __all__ as _ERRORS
from .options import AuditOptions
from .verification import Verification, VerificationOutcome, VerificationRecord

if TYPE_CHECKING:  # the names the drivers' package gives, imported at first use (see __getattr__)
    from .audits import (
        AuditResult,
        CertifiedEvent,
        DeltaCurve,
        DistributionTestResult,
        EventEstimate,
        ExactPrivacyLoss,
        Look,
        OneRunAuditResult,
        OneRunFdpAuditResult,
        OracleBound,
        OracleClaimBound,
        PairAuditResult,
        SearchAuditResult,
        SequentialAuditResult,
        ValueVerdict,
        audit,
        audit_pairs,
        audit_samples,
        chi_square_power,
        delta_lower_bound_curve,
        equal_distributions,
        exact_privacy_loss,
        goodness_of_fit,
        one_run_audit,
        one_run_fdp_audit,
        oracle_claim_bound,
        oracle_epsilon_bound,
        replay,
        search_audit,
        sequential_audit,
    )

__all__ = [
    "audit",
    "audit_pairs",
    "oracle_epsilon_bound",
    "oracle_claim_bound",
    "OracleClaimBound",
    "replay",
    "search_audit",
    "SearchAuditResult",
    "neighbours",
    "AuditOptions",
    "PrivacyClaim",
    "audit_samples",
    "AuditResult",
    "EventEstimate",
    "ValueVerdict",
    "sequential_audit",
    "SequentialAuditResult",
    "Look",
    "PairAuditResult",
    "OracleBound",
    "Verification",
    "VerificationOutcome",
    "VerificationRecord",
    "keys",
    "delta_lower_bound_curve",
    "DeltaCurve",
    "CertifiedEvent",
    "exact_privacy_loss",
    "ExactPrivacyLoss",
    "equal_distributions",
    "goodness_of_fit",
    "chi_square_power",
    "DistributionTestResult",
    "one_run_audit",
    "OneRunAuditResult",
    "one_run_fdp_audit",
    "OneRunFdpAuditResult",
    *_ERRORS,
]

__version__ = "0.1.0"

#: Names of :mod:`dpverify.audits` given here at their first use (those of ``__all__`` not imported
#: above): ``import dpverify`` loads the vocabulary (errors, claims, options) only, so that the
#: command line (:func:`dpverify.cli.main`) installs its Ctrl-C handler before the drivers load.
_FROM_AUDITS = frozenset(name for name in __all__ if name not in globals())


#: Subpackages and modules that ``import dpverify`` bound before it loaded lazily; still reachable as
#: attributes (``dpverify.audits.pair``), imported at first access.
_SUBMODULES = frozenset(("audits", "events", "pipeline", "protocols", "mechanisms", "testing", "cli", "extras"))


def __getattr__(name: str):
    if name in _FROM_AUDITS:
        from . import audits

        return getattr(audits, name)
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'dpverify' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | _FROM_AUDITS | _SUBMODULES)
