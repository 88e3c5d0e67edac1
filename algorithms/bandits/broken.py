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

from algorithms.bandits.policies import Policy
from algorithms.errors import InvalidPrivacyParameterError

__all__ = ["broken_full_budget_per_arm"]


def broken_full_budget_per_arm(policy: Policy) -> Policy:
    """``policy`` with every arm's statistic given the whole eps instead of eps/K, claim unchanged.

    Why it is wrong: one round's K observations (all of which may change between neighbouring
    reward tables) each enter a statistic with budget eps, so the round costs up to K eps, not
    eps; the claim still says eps. The two-block audit design of
    :mod:`algorithms.bandits.audits` shows a loss of ``2 (eps - ln(1 + eps/2))`` > eps.

    Parameters
    ----------
    policy : Policy
        A private policy whose budget is split per arm.

    Returns
    -------
    Policy
        Same code and claim; ``budget_split = "full-per-arm (broken)"``, so ``arm_epsilon(K)`` is eps.

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
    return dataclasses.replace(
        policy, name=policy.name + " (full eps per arm; broken)", budget_split="full-per-arm (broken)"
    )
