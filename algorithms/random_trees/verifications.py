"""Verifications this family registers with ``dpverify suite`` (DP-RST 2025, DP random spanning trees).

- ``random-spanning-trees/weight-release-exact-loss`` -- exact loss of the noisy weight
  release on the worst-case neighbours ``2^(l-1) - 1 -> 2^(l-1)`` equals ``l * epsilon0`` and
  the paper's Lemma 4.4 claim ``(epsilon0 sqrt(8 k ln(1/delta)), delta)`` holds; its slack is
  reported.
- ``random-spanning-trees/weight-release-audit`` -- sampled audit (dpverify.audit) of the
  same release at the exact claim ``l * epsilon0``: no violation, certified bound close to it.
- ``random-spanning-trees/tree-release-exact-loss`` -- exact (eps, delta) of the released
  tree (sum over every noisy weight vector) on K4, below ``l * epsilon0``.
- ``random-spanning-trees/wilson-goodness-of-fit`` -- Wilson's sampler against the exact
  product measure on K4 with weights 1..3.

Statistical verifications use level ``ALPHA = 1e-6``.
"""

from __future__ import annotations

__all__ = ["verifications", "ALPHA"]

ALPHA = 1e-6
DELTA = 1e-5
K = 8
EPS0 = 0.5


def _weight_release_exact(seed: int):
    from algorithms.random_trees.bits import noisy_weight_pmf_dict
    from algorithms.random_trees.pipeline import (
        exact_weight_release_epsilon,
        lemma_4_4_claimed_epsilon,
        worst_case_neighbours,
    )
    from dpverify import exact_privacy_loss
    from dpverify.verification import VerificationOutcome

    lo, hi = worst_case_neighbours(K)
    loss = exact_privacy_loss(noisy_weight_pmf_dict(lo, K, EPS0), noisy_weight_pmf_dict(hi, K, EPS0))
    expected = exact_weight_release_epsilon(EPS0, K)
    claimed = lemma_4_4_claimed_epsilon(EPS0, K, DELTA)
    delta_at_claim = loss.delta(claimed)
    passed = abs(loss.epsilon - expected) < 1e-9 and delta_at_claim <= DELTA
    return VerificationOutcome(
        passed=passed,
        exact_loss=float(loss.epsilon),
        details=(
            f"k={K}, epsilon0={EPS0}, neighbours {lo}->{hi}: exact loss {loss.epsilon:.6f} = l*epsilon0 "
            f"{expected:.6f}; Lemma 4.4 claims eps={claimed:.4f} at delta={DELTA:g} (exact delta there "
            f"{delta_at_claim:.3g}): holds with slack x{claimed / loss.epsilon:.2f}"
        ),
    )


def _weight_release_audit(seed: int):
    from algorithms.random_trees.pipeline import (
        SingleWeightRelease,
        exact_weight_release_epsilon,
        worst_case_neighbours,
    )
    from dpverify import audit
    from dpverify.verification import VerificationOutcome

    lo, hi = worst_case_neighbours(K)
    exact_eps = exact_weight_release_epsilon(EPS0, K)
    result = audit(
        SingleWeightRelease(k=K, epsilon0=EPS0), lo, hi, epsilon=exact_eps, n_samples=200_000, alpha=ALPHA, seed=seed
    )
    return VerificationOutcome(
        passed=not result.violation,
        certified_lower_bound=float(result.epsilon_lower_bound),
        exact_loss=float(exact_eps),
        details=f"event {result.event}; p-value {result.pvalue:.3g}; certified {result.epsilon_lower_bound:.4f} "
        f"of exact {exact_eps:.4f}",
    )


def _tree_release_exact(seed: int):
    import numpy as np

    from algorithms.random_trees.catalogue import catalogue_entry
    from algorithms.random_trees.exact import exact_dp_rst_pair
    from algorithms.random_trees.pipeline import exact_weight_release_epsilon, worst_case_neighbours
    from dpverify import exact_privacy_loss
    from dpverify.verification import VerificationOutcome

    entry = catalogue_entry("k4")
    lo, hi = worst_case_neighbours(entry.k)
    w = entry.weights
    e = int(np.flatnonzero(w == lo)[0])
    w2 = w.copy()
    w2[e] = hi
    epsilon0 = 1.0
    p, q = exact_dp_rst_pair(entry.graph, w, w2, k=entry.k, epsilon0=epsilon0)
    loss = exact_privacy_loss(p, q)
    bound = exact_weight_release_epsilon(epsilon0, entry.k)
    return VerificationOutcome(
        passed=bool(loss.epsilon <= bound + 1e-12),
        exact_loss=float(loss.epsilon),
        details=(
            f"K4 weights {w.tolist()}, edge {e}: {lo}->{hi}, k={entry.k}, epsilon0={epsilon0}: tree release exact "
            f"eps={loss.epsilon:.4f} (eps at delta=1e-5: {loss.epsilon_for_delta(1e-5):.4f}) vs weight "
            f"release {bound:.4f}"
        ),
    )


def _wilson_fit(seed: int):
    from algorithms.random_trees.catalogue import catalogue_entry
    from algorithms.random_trees.exact import exact_tree_distribution
    from algorithms.random_trees.samplers import WilsonSampler
    from dpverify import goodness_of_fit
    from dpverify.verification import VerificationOutcome

    graph = catalogue_entry("k4").graph
    result = goodness_of_fit(WilsonSampler(graph), exact_tree_distribution(graph), n_samples=100_000, seed=seed)
    return VerificationOutcome(
        passed=bool(result.pvalue > ALPHA),
        details=f"chi-square {result.statistic:.2f} on {result.df} df, p-value {result.pvalue:.3g} (alpha {ALPHA:g})",
    )


def verifications():
    """Return the list of :class:`dpverify.verification.Verification` of this family."""
    from dpverify.verification import Verification

    return [
        Verification(
            "random-spanning-trees/weight-release-exact-loss",
            f"Lemma 4.4: (epsilon0 sqrt(8k ln 1/delta), delta)-DP, k={K}, epsilon0={EPS0}, delta={DELTA:g}",
            _weight_release_exact,
        ),
        Verification(
            "random-spanning-trees/weight-release-audit",
            f"noisy weights are l*epsilon0 = {EPS0 * 3:g}-DP (k={K}, epsilon0={EPS0})",
            _weight_release_audit,
        ),
        Verification(
            "random-spanning-trees/tree-release-exact-loss",
            "tree release <= l*epsilon0 (post-processing), K4, k=4, epsilon0=1",
            _tree_release_exact,
        ),
        Verification(
            "random-spanning-trees/wilson-goodness-of-fit",
            "Wilson samples P[T] ~ prod w(e) (K4, weights 1..3)",
            _wilson_fit,
        ),
    ]
