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

The package in layers, lowest first; a module imports only its own layer or lower ones
(``properties/test_layout.py`` checks it):

- :mod:`dpverify.errors`, ``_validation`` (the argument checks) and the leaf helpers
  :mod:`dpverify.extras.arrays` and :mod:`dpverify.extras.progress`;
- the vocabulary: :mod:`dpverify.claims` (the privacy claim), :mod:`dpverify.options`
  (the audit options), :mod:`dpverify.protocols` (the mechanism contracts),
  :mod:`dpverify.keys` (ready ``output_key`` functions), :mod:`dpverify.verification`
  (what ``dpverify suite`` runs), :mod:`dpverify.neighbours` (neighbouring relations to
  search);
- :mod:`dpverify.events`: the event families, each declaring its role;
- :mod:`dpverify.pipeline`: outputs, sampling, the sampler check, selection, bounds;
- :mod:`dpverify.audits`: the result types, certification, the drivers and replay;
- :mod:`dpverify.mechanisms` (the textbook zoo, correct and broken, with claims) and
  :mod:`dpverify.testing` (pytest assertions and Hypothesis strategies);
- :mod:`dpverify.cli` (the command line and its registries), :mod:`dpverify.extras`
  (adapters of DP libraries and reports).
"""

from .cli import _startup  # noqa: F401  (first: a Ctrl-C during the command line's imports ends without a traceback)

# isort: split
from . import keys, neighbours
from .audits import (
    AuditResult,
    CertifiedEvent,
    DeltaCurve,
    DistributionTestResult,
    EventEstimate,
    ExactPrivacyLoss,
    Look,
    OracleBound,
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
    oracle_epsilon_bound,
    replay,
    search_audit,
    sequential_audit,
)
from .claims import PrivacyClaim
from .errors import (
    DPVerifyError,
    IdenticalInputsError,
    InsufficientMemoryError,
    InsufficientSamplesError,
    InvalidClaimError,
    InvalidDistributionError,
    InvalidNeighboursError,
    InvalidParameterError,
    MechanismError,
    OutputTypeError,
    ReplayMismatchError,
    SamplerContractError,
)
from .options import AuditOptions
from .verification import Verification, VerificationOutcome, VerificationRecord

__all__ = [
    "audit",
    "audit_pairs",
    "oracle_epsilon_bound",
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
    "ReplayMismatchError",
]

__version__ = "0.1.0"
