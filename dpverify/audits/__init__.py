"""The drivers: each answers one question about a privacy claim, on the shared pipeline.

What they share: :mod:`.plan` (the audit plan each driver builds first, with one builder: claim,
options, sizes, seed and named streams), :mod:`.choosing` (the events chosen on selection samples,
and a search's ranking of pairs), :mod:`.certification` (sizes, the checks before drawing,
Clopper-Pearson verdicts, the result of a selection's counts), :mod:`.results` (:class:`AuditResult`
and its parts), :mod:`.findings` (the kind of finding) and :func:`replay` (:mod:`.replay`: an audit
again from its result alone, through :func:`.plan.plan_of_result`). No driver imports another
(:func:`audit_pairs` runs :func:`audit` on each pair).

- :func:`audit` (:mod:`.pair`): a lower confidence bound on the loss of one neighbouring pair;
- :func:`sequential_audit` (:mod:`.sequential`): the same, stopping once the verdict is settled;
- :func:`audit_samples` (:mod:`.given_samples`): samples you already have;
- :func:`delta_lower_bound_curve` (:mod:`.delta_curve`): a simultaneous lower curve on delta(eps);
- :func:`audit_pairs` (:mod:`.family_wise`): many pairs, with a family-wise correction;
- :func:`search_audit` (:mod:`.search`): search the neighbouring pairs for the worst one, certify it fresh;
- :func:`exact_privacy_loss` (:mod:`.exact`), :func:`oracle_epsilon_bound` and :func:`oracle_claim_bound`
  (:mod:`.oracle`): exact losses, and the best bound any event (or partition) could certify, from
  computable distributions;
- :func:`equal_distributions`, :func:`goodness_of_fit` (:mod:`.distributions`): distribution tests;
- :func:`one_run_audit` (:mod:`.one_run`): an (epsilon, delta) bound from many canaries' scores in
  one training run, over their random inclusion bits (Steinke, Nasr and Jagielski 2023);
- :func:`one_run_fdp_audit` (:mod:`.one_run_fdp`): a Gaussian DP (mu) bound, and a test of claims
  with a trade-off curve, from the same canaries (Mahloujifar, Melis and Chaudhuri 2025).
"""

from .delta_curve import CertifiedEvent, DeltaCurve, delta_lower_bound_curve
from .distributions import DistributionTestResult, chi_square_power, equal_distributions, goodness_of_fit
from .exact import ExactPrivacyLoss, exact_privacy_loss
from .family_wise import PairAuditResult, audit_pairs
from .given_samples import audit_samples
from .one_run import OneRunAuditResult, one_run_audit
from .one_run_fdp import OneRunFdpAuditResult, one_run_fdp_audit
from .oracle import OracleBound, OracleClaimBound, oracle_claim_bound, oracle_epsilon_bound
from .pair import audit
from .replay import replay
from .results import AuditResult, EventEstimate, ValueVerdict
from .search import ScreenedCandidate, SearchAuditResult, search_audit
from .sequential import Look, SequentialAuditResult, sequential_audit

__all__ = [
    "audit",
    "replay",
    "AuditResult",
    "EventEstimate",
    "ValueVerdict",
    "search_audit",
    "SearchAuditResult",
    "ScreenedCandidate",
    "sequential_audit",
    "SequentialAuditResult",
    "Look",
    "audit_samples",
    "delta_lower_bound_curve",
    "DeltaCurve",
    "CertifiedEvent",
    "audit_pairs",
    "PairAuditResult",
    "exact_privacy_loss",
    "ExactPrivacyLoss",
    "oracle_epsilon_bound",
    "OracleBound",
    "oracle_claim_bound",
    "OracleClaimBound",
    "equal_distributions",
    "goodness_of_fit",
    "chi_square_power",
    "DistributionTestResult",
    "one_run_audit",
    "OneRunAuditResult",
    "one_run_fdp_audit",
    "OneRunFdpAuditResult",
]
