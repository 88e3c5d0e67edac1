"""dpverify: a general auditor for differential-privacy claims.

It knows nothing about any particular algorithm. Given a mechanism (any
callable ``mechanism(data, rng)``) and neighbouring inputs it

- certifies a lower confidence bound on the privacy loss (:func:`audit`;
  :func:`audit_samples` for samples already drawn),
- computes the loss exactly where output distributions are computable
  (:func:`exact_privacy_loss`),
- tests whether samplers share a distribution (:func:`equal_distributions`,
  :func:`goodness_of_fit`),

with sampling in seeded chunks that run on any ``concurrent.futures.Executor``.
"""

from . import _startup  # noqa: F401  (first: a Ctrl-C during the command line's imports ends without a traceback)
from .audit import AuditResult, EventEstimate, ValueVerdict, audit
from .distributions import DistributionTestResult, chi_square_power, equal_distributions, goodness_of_fit
from .errors import (
    DPVerifyError,
    IdenticalInputsError,
    InsufficientSamplesError,
    InvalidClaimError,
    InvalidDistributionError,
    InvalidParameterError,
    MechanismError,
    OutputTypeError,
    SamplerContractError,
    InsufficientMemoryError,
)
from .curves import CertifiedEvent, DeltaCurve, delta_lower_bound_curve
from .exact import ExactPrivacyLoss, exact_privacy_loss
from .samples import audit_samples
from .sequential import Look, SequentialAuditResult, sequential_audit
from . import keys

# Importing these registers their event families (classifier level sets,
# floating-point mantissa and reachability events) with dpverify.events.
from . import classifier_events, floating  # noqa: E402,F401  (registration side effect)

# The result types of the companion modules' public functions (audit_pairs,
# oracle_epsilon_bound, registered_verifications, run_suite): every type a
# public function returns is importable from here.
from .oracle import OracleBound  # noqa: E402
from .suite import Verification, VerificationOutcome, VerificationRecord  # noqa: E402
from .testing import PairAuditResult  # noqa: E402

__all__ = [
    "audit",
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
]

__version__ = "0.1.0"
