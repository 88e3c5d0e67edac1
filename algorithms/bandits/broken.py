"""Deliberately broken bandit policies, kept apart from the reference implementations.

Nothing here is a policy to use: each function breaks a privacy claim on purpose, so that the
audits (``properties/bandits/test_privacy_audits.py``, the ``dpverify suite`` verification
``matroid-bandits/full-eps-per-arm-is-caught``) can show they catch it. Each broken policy
carries the *unbroken* policy's claim, which is what makes it wrong.

References
----------
.. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023. Theorem 8 (the per-arm budget eps/K).
.. [2] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025. Theorems 1 and 2.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from algorithms.bandits.policies import Policy
from algorithms.errors import InvalidPrivacyParameterError

__all__ = ["BrokenFullBudgetPolicy", "broken_full_budget_per_arm"]


@dataclass(frozen=True)
class BrokenFullBudgetPolicy(Policy):
    """A private policy whose every arm statistic gets the whole eps (not eps/K); claim unchanged.

    Why it is wrong: one round's K observations (all of which may change between neighbouring
    reward tables) each enter a statistic with budget eps, so the round costs up to K eps, not
    eps; the claim still says eps. The two-block audit design of
    :mod:`algorithms.bandits.audits` shows a loss of ``2 (eps - ln(1 + eps/2))`` > eps.
    """

    def arm_epsilon(self, rank: int) -> float:
        """The whole eps for every arm (the bug; the reference policy gives eps/K)."""
        return self.epsilon


def broken_full_budget_per_arm(policy: Policy) -> BrokenFullBudgetPolicy:
    """``policy`` with every arm's statistic given the whole eps instead of eps/K, claim unchanged.

    See :class:`BrokenFullBudgetPolicy` for why this breaks the claim.

    Parameters
    ----------
    policy : Policy
        A private policy whose budget is split per arm.

    Returns
    -------
    BrokenFullBudgetPolicy
        Same code, budget split and claim; ``arm_epsilon(K)`` is eps.

    Raises
    ------
    InvalidPrivacyParameterError
        If ``policy`` is not private.

    Examples
    --------
    >>> from algorithms.bandits import policies as P
    >>> from algorithms.bandits.broken import broken_full_budget_per_arm
    >>> broken_full_budget_per_arm(P.dpucb_mat(2.0)).arm_epsilon(4)
    2.0
    """
    if policy.epsilon is None:
        raise InvalidPrivacyParameterError(f"{policy.name} is not private; nothing to break")
    fields = {f.name: getattr(policy, f.name) for f in dataclasses.fields(Policy)}
    fields["name"] = policy.name + " (full eps per arm; broken)"
    return BrokenFullBudgetPolicy(**fields)
