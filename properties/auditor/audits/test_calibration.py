"""Calibration: the false-violation rate of dpverify.audit on correct mechanisms.

Each audit runs at alpha = 0.05 on a mechanism that attains its claim exactly
on the pair (randomized response, fine-grid Laplace, geometric: the worst case
for false alarms, where some event has ratio exactly e^eps). The audit promises
a false-violation rate <= 0.05.

- CI: 60 audits. Assert the number of violations is at most the
  (1 - suite_alpha) binomial quantile of Bin(60, 0.05) (= 14): false-fail
  probability <= 1e-6 when the promise holds. Power: an auditor whose
  false-violation rate were 0.5 would exceed it with probability > 0.9999.
- thorough: 1200 audits; assert the one-sided Clopper-Pearson lower bound
  (level 1 - suite_alpha) on the rate is <= 0.05, i.e. the measured rate is
  not significantly above 0.05. Also written to the test's stdout with its 95%
  Clopper-Pearson interval (the figure of /work/coord/calibration.md comes
  from ``python benchmarks/audit_zoo.py --calibration 1200``).
"""

from __future__ import annotations

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

import dpverify
from dpverify.mechanisms import GeometricMechanism, GridLaplace, RandomizedResponse

ALPHA = 0.05
N_SAMPLES = 5_000


def _mechanisms():
    return [
        (RandomizedResponse(1.0), 0, 1),
        (GridLaplace(1.0), 0.0, 1.0),
        (GeometricMechanism(1.0), 0, 1),
    ]


def _false_violations(n_audits: int, seed: int) -> int:
    seeds = np.random.SeedSequence(seed).spawn(n_audits)
    mechanisms = _mechanisms()
    count = 0
    for i, s in enumerate(seeds):
        mechanism, x, x_prime = mechanisms[i % len(mechanisms)]
        result = dpverify.audit(
            mechanism, x, x_prime, epsilon=mechanism.epsilon, n_samples=N_SAMPLES, alpha=ALPHA, seed=s
        )
        count += bool(result.violation)
    return count


def test_false_violation_rate_is_at_most_alpha(thorough, suite_alpha):
    n = 1200 if thorough else 60
    violations = _false_violations(n, seed=51)
    low, high = proportion_confint(violations, n, alpha=0.05, method="beta")
    print(f"false-violation rate {violations}/{n} = {violations / n:.4f}, 95% CP interval [{low:.4f}, {high:.4f}]")
    if thorough:
        lower, _ = proportion_confint(violations, n, alpha=2 * suite_alpha, method="beta")
        assert lower <= ALPHA
    else:
        assert violations <= stats.binom.ppf(1 - suite_alpha, n, ALPHA)
