"""Verifications this family registers with ``dpverify suite`` (Pagh et al. 2025, private MSTs).

Each runs on built-in catalogue instances (:mod:`.catalogue`) in a few seconds:

- ``private-mst/exponential-step-exact-loss`` -- exact worst-case loss of one selection <= epsilon0,
  and it approaches epsilon0 (Fact 2.7);
- ``private-mst/tree-exact-loss-vs-zcdp-claim`` -- exact loss of the whole tree vs the
  (eps, delta) claimed by zCDP accounting (Theorem 3.2), with the looseness reported;
- ``private-mst/algorithm1-audit`` -- sampled audit of Algorithm 1 on the worst neighbour,
  compared with the exact loss;
- ``private-mst/algorithm1-half-noise-is-caught`` -- the auditor flags Algorithm 1 run with
  half the noise scale;
- ``private-mst/pamst-naive-equals-fast`` -- distribution equality of the two PAMST forms;
- ``private-mst/algorithm2-goodness-of-fit`` -- Algorithm 2 (private Kruskal, sum tree) against
  the exact PPSACR distribution (Theorem 3.5).

Statistical verifications use level ``ALPHA = 1e-6``.
"""

from __future__ import annotations

import numpy as np

__all__ = ["verifications", "ALPHA"]

ALPHA = 1e-6
DELTA = 1e-6


def _step_loss(seed: int):
    from algorithms.mst.catalogue import catalogue, catalogue_graph
    from algorithms.mst.exact import worst_case_step_loss
    from dpverify.verification import VerificationOutcome

    worst_ratio, worst_name = 0.0, ""
    for entry in catalogue():
        loss = worst_case_step_loss(entry.graph, entry.epsilon0)
        ratio = loss.loss / entry.epsilon0
        if ratio > worst_ratio:
            worst_ratio, worst_name = ratio, entry.name
    heavy = worst_case_step_loss(catalogue_graph("triangle-heavy-edge").graph, 1.0)
    passed = worst_ratio <= 1.0 + 1e-12 and heavy.loss > 1.0 - 1e-6
    return VerificationOutcome(
        passed=passed,
        exact_loss=float(heavy.loss),
        details=(
            f"max exact step loss / epsilon0 over {len(catalogue())} catalogue graphs and all sign-pattern "
            f"neighbours = {worst_ratio:.12f} ({worst_name}); heavy-edge triangle at epsilon0 = 1 reaches "
            f"{heavy.loss:.12f}"
        ),
    )


def _tree_loss(seed: int):
    from algorithms.mst.accounting import accounting_from_epsilon0
    from algorithms.mst.catalogue import catalogue_graph
    from algorithms.mst.exact import worst_case_tree_loss
    from dpverify.verification import VerificationOutcome

    parts, passed, exact_max = [], True, 0.0
    for name in ("K4", "four-cycle-chord", "K5"):
        entry = catalogue_graph(name)
        steps = entry.graph.n - 1
        gen = accounting_from_epsilon0(entry.epsilon0, steps, DELTA, conversion="generic")
        br = accounting_from_epsilon0(entry.epsilon0, steps, DELTA, conversion="bounded-range")
        loss = worst_case_tree_loss(entry.graph, entry.epsilon0, epsilons=[gen.epsilon, br.epsilon], deltas=[DELTA])
        exact = loss.epsilon_for_delta[DELTA]
        exact_max = max(exact_max, exact)
        ok = loss.delta_at[br.epsilon] <= DELTA and exact <= br.epsilon <= gen.epsilon
        passed &= ok and loss.epsilon <= loss.basic_composition * (1 + 1e-12)
        parts.append(
            f"{name} (epsilon0={entry.epsilon0}, {steps} steps): exact eps(delta=1e-6)={exact:.3f}, "
            f"pure={loss.epsilon:.3f}, basic={loss.basic_composition:.2f}, zCDP claim generic={gen.epsilon:.2f} "
            f"({gen.epsilon / exact:.1f}x), bounded-range={br.epsilon:.2f} ({br.epsilon / exact:.1f}x)"
        )
    return VerificationOutcome(passed=bool(passed), exact_loss=exact_max, details="; ".join(parts))


def _worst_pair(name: str):
    from algorithms.mst.catalogue import catalogue_graph
    from algorithms.mst.exact import worst_case_tree_loss

    entry = catalogue_graph(name)
    loss = worst_case_tree_loss(entry.graph, entry.epsilon0)
    g_prime = entry.graph.with_weights(entry.graph.weights + np.array(loss.pattern_for_epsilon, float))
    return entry, loss, g_prime


def _audit(seed: int):
    import dpverify
    from algorithms.mst.perturbation import GumbelPerturbationMechanism
    from dpverify.verification import VerificationOutcome

    entry, loss, g_prime = _worst_pair("triangle")
    mech = GumbelPerturbationMechanism(entry.epsilon0)
    res = dpverify.audit(
        mech, entry.graph, g_prime, epsilon=loss.basic_composition, n_samples=400_000, alpha=ALPHA, seed=seed
    )
    return VerificationOutcome(
        passed=not res.violation,
        certified_lower_bound=float(res.epsilon_lower_bound),
        exact_loss=float(loss.epsilon),
        details=(
            f"triangle, worst sign-pattern neighbour, claim eps={loss.basic_composition} (pure, basic "
            f"composition): certified lower bound {res.epsilon_lower_bound:.3f} vs exact {loss.epsilon:.3f}; "
            f"p-value {res.pvalue:.3g}"
        ),
    )


def _half_noise(seed: int):
    import dpverify
    from algorithms.mst.broken import BrokenGumbelPerturbationMechanism
    from algorithms.mst.exact import worst_case_tree_loss
    from dpverify.verification import VerificationOutcome

    entry, loss, _ = _worst_pair("triangle")
    broken_loss = worst_case_tree_loss(entry.graph, 2 * entry.epsilon0)
    g_prime = entry.graph.with_weights(entry.graph.weights + np.array(broken_loss.pattern_for_epsilon, float))
    broken = BrokenGumbelPerturbationMechanism(entry.epsilon0, noise_multiplier=0.5)
    res = dpverify.audit(
        broken, entry.graph, g_prime, epsilon=loss.basic_composition, n_samples=400_000, alpha=ALPHA, seed=seed
    )
    return VerificationOutcome(
        passed=bool(res.violation),
        certified_lower_bound=float(res.epsilon_lower_bound),
        exact_loss=float(broken_loss.epsilon),
        details=(
            f"Algorithm 1 with half the Gumbel scale claiming eps={loss.basic_composition}: violation="
            f"{res.violation}, certified {res.epsilon_lower_bound:.3f} (exact {broken_loss.epsilon:.3f})"
        ),
    )


def _pamst_equal(seed: int):
    import dpverify
    from algorithms.mst.catalogue import catalogue_graph
    from algorithms.mst.samplers import TreeSampler
    from dpverify.verification import VerificationOutcome

    entry = catalogue_graph("K4")
    res = dpverify.equal_distributions(
        TreeSampler("pamst-naive", entry.graph, entry.epsilon0),
        TreeSampler("pamst-fast", entry.graph, entry.epsilon0),
        n_samples=20_000,
        seed=seed,
    )
    return VerificationOutcome(
        passed=res.pvalue > ALPHA,
        details=f"K4, 20k samples each: chi-square p-value {res.pvalue:.3g} (df {res.df}); fails below {ALPHA}",
    )


def _algorithm2_fit(seed: int):
    import dpverify
    from algorithms.mst.catalogue import catalogue_graph
    from algorithms.mst.exact import exact_tree_distribution
    from algorithms.mst.samplers import TreeSampler
    from dpverify.verification import VerificationOutcome

    entry = catalogue_graph("K5")
    pmf = exact_tree_distribution(entry.graph, entry.epsilon0)
    res = dpverify.goodness_of_fit(
        TreeSampler("algorithm2", entry.graph, entry.epsilon0), pmf, n_samples=200_000, seed=seed
    )
    return VerificationOutcome(
        passed=res.pvalue > ALPHA,
        details=(
            f"K5 ({len(pmf)} trees), 200k samples of private Kruskal vs the exact PPSACR pmf: p-value "
            f"{res.pvalue:.3g} (df {res.df}); fails below {ALPHA}"
        ),
    )


def verifications():
    """Return the list of :class:`dpverify.verification.Verification` of this family."""
    from dpverify.verification import Verification

    return [
        Verification(
            "private-mst/exponential-step-exact-loss",
            "one selection is epsilon0-DP (Pagh et al. 2025, Fact 2.7)",
            _step_loss,
        ),
        Verification(
            "private-mst/tree-exact-loss-vs-zcdp-claim",
            "n-1 selections are (rho + 2 sqrt(rho ln 1/delta), delta)-DP, rho = (n-1) epsilon0^2/2 "
            "(Pagh et al. 2025, Thm 3.2)",
            _tree_loss,
        ),
        Verification(
            "private-mst/algorithm1-audit", "Algorithm 1 is (n-1) epsilon0-DP (pure, basic composition)", _audit
        ),
        Verification(
            "private-mst/algorithm1-half-noise-is-caught",
            "the auditor flags Algorithm 1 with half its noise scale",
            _half_noise,
        ),
        Verification("private-mst/pamst-naive-equals-fast", "fast PAMST has naive PAMST's distribution", _pamst_equal),
        Verification(
            "private-mst/algorithm2-goodness-of-fit",
            "private Kruskal has the PPSACR distribution (Pagh et al. 2025, Thm 3.5)",
            _algorithm2_fit,
        ),
    ]
