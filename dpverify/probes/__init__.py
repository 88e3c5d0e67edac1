"""Grey-box probes of a DP pipeline: control flow, sensitivity and budget, from recorded randomness.

A black-box audit (:func:`dpverify.audit`) samples a mechanism's outputs and certifies a bound;
a grey-box probe runs the pipeline twice, on x and on x', with the same recorded randomness, and
reads from the difference where the code's glue departs from what it declares: a branch the data
chose, a query that moved more than the declared sensitivity, a budget spent twice (Cebere, Erb,
Desfontaines, Bellet and Fitzsimons 2026). :func:`probe_and_audit` chains the two: the probes
choose the pair, the audit certifies a bound on it.

- :func:`probe_pair`, :func:`probe_search`, :func:`probe_and_audit` (:mod:`.probe`);
- :class:`ProbeReport`, :class:`ProbeFinding`, :class:`NoiseCall`, :class:`ProbeAuditResult`
  (:mod:`.report`);
- :class:`RecordingGenerator`, the numpy Generator stand-in that records the calls (:mod:`.recording`);
- :data:`UNSEEDABLE_LIBRARIES` and the replay of diffprivlib's own noise (:mod:`.libraries`).

References
----------
T. Cebere, D. Erb, D. Desfontaines, A. Bellet and J. Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries", Proceedings on Privacy Enhancing
Technologies (PoPETs), 2026.
"""

from .libraries import UNSEEDABLE_LIBRARIES
from .probe import EPSILON_METHODS, probe_and_audit, probe_pair, probe_search
from .recording import NOISE_SCALES, RecordingGenerator
from .report import FINDING_KINDS, NoiseCall, ProbeAuditResult, ProbeFinding, ProbeReport

__all__ = [
    "probe_pair",
    "probe_search",
    "probe_and_audit",
    "ProbeReport",
    "ProbeFinding",
    "NoiseCall",
    "ProbeAuditResult",
    "RecordingGenerator",
    "FINDING_KINDS",
    "NOISE_SCALES",
    "EPSILON_METHODS",
    "UNSEEDABLE_LIBRARIES",
]
