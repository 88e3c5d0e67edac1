"""Verifications this family registers with ``dpverify suite``: matroid bandits.

Sources: Tao et al. 2025; Chandak 2023; Chen et al. 2020.

Built-in instances, a few seconds each (plus a one-time numba compile):

- ``matroid-bandits/dpucb-mat-audit`` -- DPUCB-MAT (Chandak 2023, Alg. 2) on the two-block design of
  :mod:`algorithms.bandits.audits` audited at eps (tighter than the thesis' 2 eps, Theorem 8);
  reports the certified lower bound against the design's true event loss;
- ``matroid-bandits/full-eps-per-arm-is-caught`` -- the same policy giving every arm the whole eps
  (instead of eps/K; :func:`algorithms.bandits.broken.broken_full_budget_per_arm`) must be flagged
  at the unchanged claim;
- ``matroid-bandits/ldp-omm-audit`` and ``matroid-bandits/dp-omm-audit`` -- Tao et al. 2025, Algorithms 2
  and 1 at their claims;
- ``matroid-bandits/ldp-randomizer-exact-loss`` -- LDP-OMM's local randomizer (x + Lap(K/eps) per
  played arm) has exact loss eps on a discretization (tail bins attain it);
- ``matroid-bandits/dp-omm-bound-equals-counter-bound`` -- DP-OMM's confidence term (its form with
  delta = t^-4) equals ``HybridCounterBank.error_bound_at`` (both call the one compiled hybrid bound;
  this pins DP-OMM's choice of delta and the rounding of its logarithms).

Statistical verifications use level ``ALPHA = 1e-6``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["verifications", "ALPHA"]

ALPHA = 1e-6
EPS = 4.0
#: The LDP-OMM report's exact loss is computed at this epsilon.
LDP_EXACT_EPS = 2.0


def _audit(policy, claim, n, seed):
    import dpverify
    from algorithms.bandits.audits import PlayedSuperArms, two_block_instance

    matroid, x, x_prime, horizon = two_block_instance()
    return dpverify.audit(
        PlayedSuperArms(matroid, policy, horizon), x, x_prime, epsilon=claim, n_samples=n, alpha=ALPHA, seed=seed
    )


def _dpucb(seed: int):
    from algorithms.bandits import policies as P
    from algorithms.bandits.audits import two_block_event_loss
    from dpverify.verification import VerificationOutcome

    res = _audit(P.dpucb_mat(EPS), EPS, 100_000, seed)
    true = two_block_event_loss(EPS / 2)
    return VerificationOutcome(
        passed=not res.violation,
        certified_lower_bound=float(res.epsilon_lower_bound),
        details=(
            f"claim eps={EPS:g} (thesis Theorem 8 states {2 * EPS:g}); certified lower bound "
            f"{res.epsilon_lower_bound:.3f} vs true loss {true:.3f} of the design's event; p={res.pvalue:.3g}"
        ),
    )


def _broken(seed: int):
    from algorithms.bandits import policies as P
    from algorithms.bandits.audits import two_block_event_loss
    from algorithms.bandits.broken import broken_full_budget_per_arm
    from dpverify.verification import VerificationOutcome

    res = _audit(broken_full_budget_per_arm(P.dpucb_mat(EPS)), EPS, 100_000, seed)
    return VerificationOutcome(
        passed=bool(res.violation),
        certified_lower_bound=float(res.epsilon_lower_bound),
        details=(
            f"broken variant (eps per arm, claim {EPS:g}) flagged={res.violation}; lower bound "
            f"{res.epsilon_lower_bound:.3f} (true event loss {two_block_event_loss(EPS):.3f})"
        ),
    )


def _policy_audit(factory):
    def run(seed: int):
        from dpverify.verification import VerificationOutcome

        res = _audit(factory(EPS), EPS, 50_000, seed)
        return VerificationOutcome(
            passed=not res.violation,
            certified_lower_bound=float(res.epsilon_lower_bound),
            details=f"claim eps={EPS:g}; certified lower bound {res.epsilon_lower_bound:.3f}; p={res.pvalue:.3g}",
        )

    return run


def _ldp_exact(seed: int):
    import dpverify
    from algorithms.bandits import policies as P
    from algorithms.bandits.audits import LaplaceLocalRandomizer, discretized_report_pmf
    from dpverify.verification import VerificationOutcome

    rank, eps = 3, LDP_EXACT_EPS
    edges = np.linspace(-4.0, 5.0, 10)
    rnd = LaplaceLocalRandomizer(P.ldp_omm(eps), rank)
    loss = dpverify.exact_privacy_loss(
        discretized_report_pmf(rnd, np.zeros(rank), edges), discretized_report_pmf(rnd, np.ones(rank), edges)
    ).epsilon
    return VerificationOutcome(
        passed=bool(loss <= eps * (1 + 1e-9)),
        exact_loss=float(loss),
        details=f"K={rank}, eps={eps}: exact loss of the binned report on (0,0,0) vs (1,1,1) = {loss:.12f}",
    )


def _bound_equal(seed: int):
    from algorithms.bandits.indices.omm import dp_omm_noise_bound
    from algorithms.counters.banks import HybridCounterBank
    from dpverify.verification import VerificationOutcome

    eps = 0.37
    bank = HybridCounterBank((1,), eps)
    worst = 0.0
    for n in range(1, 300):
        for t in (n + 1, 2 * n + 3, 10_000):
            ours = dp_omm_noise_bound(n, eps, float(t))
            theirs = float(bank.error_bound_at(n, float(t) ** -4))
            worst = max(worst, abs(ours - theirs) / theirs)
    return VerificationOutcome(
        passed=worst < 1e-12, details=f"max relative difference over n<300, three t each: {worst:.2e}"
    )


def verifications():
    """Return the list of :class:`dpverify.verification.Verification` of this family."""
    from algorithms.bandits import policies as P
    from dpverify.verification import Verification

    return [
        Verification(
            "matroid-bandits/dpucb-mat-audit",
            f"DPUCB-MAT eps={EPS:g}-DP (Chandak 2023, Alg. 2)",
            _dpucb,
            claim=P.dpucb_mat(EPS).claim,
        ),
        Verification(
            "matroid-bandits/full-eps-per-arm-is-caught",
            "auditor flags eps per arm instead of eps/K",
            _broken,
            claim=P.dpucb_mat(EPS).claim,
        ),
        Verification(
            "matroid-bandits/ldp-omm-audit",
            f"LDP-OMM eps={EPS:g} (Tao et al. 2025, Thm 2)",
            _policy_audit(P.ldp_omm),
            claim=P.ldp_omm(EPS).claim,
        ),
        Verification(
            "matroid-bandits/dp-omm-audit",
            f"DP-OMM eps={EPS:g}-DP (Tao et al. 2025, Thm 1)",
            _policy_audit(P.dp_omm),
            claim=P.dp_omm(EPS).claim,
        ),
        Verification(
            "matroid-bandits/ldp-randomizer-exact-loss",
            "LDP-OMM report is exactly eps-LDP",
            _ldp_exact,
            claim=P.ldp_omm(LDP_EXACT_EPS).claim,
        ),
        Verification(
            "matroid-bandits/dp-omm-bound-equals-counter-bound",
            "simulator's DP-OMM confidence term = HybridCounterBank bound (Tao et al. 2025, Lemma 1)",
            _bound_equal,
        ),
    ]
