"""The textbook mechanisms' verifications for ``dpverify suite``: audits at their claims, exact losses,
and an under-noised Laplace that an audit must catch."""

from __future__ import annotations

from ..audits.pair import audit
from ..protocols import has_exact_pmf
from ..verification import Verification, VerificationOutcome
from .broken import BrokenLaplaceMechanism
from .textbook import ExponentialMechanism, GeometricMechanism, LaplaceMechanism, RandomizedResponse

__all__ = ["textbook_verifications"]


# --------------------------------------------------------------------------
# verifications for `dpverify suite`
# --------------------------------------------------------------------------


#: Default instances: (name, mechanism, x, x_prime). All but the exponential
#: mechanism attain the claim on this pair (its exact loss there is 0.746).
def _default_instances():
    return [
        ("randomized-response", RandomizedResponse(1.0), 0, 1),
        ("laplace", LaplaceMechanism(1.0), 0.0, 1.0),
        ("geometric", GeometricMechanism(1.0), 0, 1),
        ("exponential", ExponentialMechanism(1.0), (1.0, 0.0, 0.0, 0.0), (0.0, 1.0, 1.0, 1.0)),
    ]


SUITE_SAMPLES = 200_000
SUITE_ALPHA = 1e-3


def _audit_verification(name, mechanism, x, x_prime, expect_violation=False):
    def run(seed):
        result = audit(
            mechanism, x, x_prime, epsilon=mechanism.epsilon, n_samples=SUITE_SAMPLES, alpha=SUITE_ALPHA, seed=seed
        )
        exact = mechanism.pair_epsilon(x, x_prime) if hasattr(mechanism, "pair_epsilon") else None
        passed = result.violation == expect_violation
        return VerificationOutcome(
            passed=passed,
            certified_lower_bound=result.epsilon_lower_bound,
            exact_loss=exact,
            details=f"p-value {result.pvalue:.3g}; event {result.event}",
        )

    verb = "is caught" if expect_violation else "keeps its claim"
    return Verification(
        name=f"textbook/{name}",
        statement=f"eps={mechanism.epsilon:g} ({verb}; audit, alpha={SUITE_ALPHA:g})",
        run=run,
        claim=mechanism.claim,
    )


def _exact_verification(name, mechanism, x, x_prime):
    def run(seed):
        exact = mechanism.pair_epsilon(x, x_prime)
        passed = exact <= mechanism.epsilon * (1 + 1e-12)
        return VerificationOutcome(
            passed=passed, exact_loss=exact, details=f"exact loss {exact:.6g} vs claim {mechanism.epsilon:g}"
        )

    return Verification(
        name=f"textbook/{name}-exact",
        statement=f"eps={mechanism.epsilon:g} (exact pmf)",
        run=run,
        claim=mechanism.claim,
    )


def textbook_verifications():
    """Audits of the textbook mechanisms at their claims, exact losses, and a broken one caught."""
    items = []
    for name, mechanism, x, x_prime in _default_instances():
        items.append(_audit_verification(name, mechanism, x, x_prime))
        if has_exact_pmf(mechanism):
            items.append(_exact_verification(name, mechanism, x, x_prime))
    broken = BrokenLaplaceMechanism(1.0)
    items.append(_audit_verification("laplace-half-noise", broken, 0.0, 1.0, expect_violation=True))
    return items
