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

The package in layers (each depends only on those above it):

- :mod:`dpverify.errors`, :mod:`dpverify.claims`, :mod:`dpverify.options`,
  :mod:`dpverify.keys`: the vocabulary (named errors, the privacy claim, the
  audit options, ready ``output_key`` functions);
- :mod:`dpverify.pipeline`: outputs, sampling, selection, bounds;
- :mod:`dpverify.events`: the event families, each declaring its role;
- :mod:`dpverify.audits`: the drivers;
- :mod:`dpverify.mechanisms`: the textbook zoo, correct and broken;
- :mod:`dpverify.testing`: pytest assertions and Hypothesis strategies;
- :mod:`dpverify.extras`: parts that need an optional dependency;
- :mod:`dpverify.cli`: the command line and the registries it runs.
"""

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
    audit_samples,
    chi_square_power,
    delta_lower_bound_curve,
    equal_distributions,
    exact_privacy_loss,
    goodness_of_fit,
    search_audit,
    sequential_audit,
)
from .claims import PrivacyClaim
from .cli.suite import Verification, VerificationOutcome, VerificationRecord
from .errors import (
    DPVerifyError,
    IdenticalInputsError,
    InsufficientSamplesError,
    InvalidClaimError,
    InvalidDistributionError,
    InvalidNeighboursError,
    InvalidParameterError,
    MechanismError,
    OutputTypeError,
)
from .options import AuditOptions

__all__ = [
    "audit",
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
    "InvalidNeighboursError",
]

__version__ = "0.1.0"
