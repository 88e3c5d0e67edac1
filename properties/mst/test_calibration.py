"""Every noise scale of the private spanning-tree code, pinned at several (epsilon0, D) by distribution.

R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning Trees via
Input Perturbation" (2025): Algorithm 1 perturbs w_e by -(2D/epsilon0) Gumbel(0, 1); Algorithms 2
and 3 and PPSACR select with probability proportional to exp(-epsilon0 w_e / (2D)) (Theorem 3.5);
Appendix A does the same for any matroid; the baselines are PAMST (Pinot 2018: the same
exponential-mechanism step over Prim's cut) and input privatization (Sealfon 2016: Lap(m D /
eps) or Gaussian sigma = D sqrt(m / (2 rho)) under l_inf neighbours, Lap(D / eps) and
sigma = D / sqrt(2 rho) under l1).

Every reference law below is computed here from those formulas (log sizes written out in the
test, PAMST enumerated by a separate recursion), never through the package's own
``gumbel_scale`` / ``selection_log_weights`` / ``laplace_scale`` / ``gaussian_sigma``, so a
wrong scale cannot cancel out. The parameter pairs (epsilon0, D) = (0.3, 1) and (2.5, 0.4) make
every usual wrong formula differ from the right one (D dropped, D^2, epsilon0^2, 1/epsilon0 vs epsilon0,
a missing or extra factor 2).

Statistics: N_TESTS fixed-seed tests, each at suite_alpha / N_TESTS (Bonferroni), so the
module's false-alarm rate is <= suite_alpha = 1e-6. Power against "the scale is off by a factor
1.5 in either direction": for the tree and basis distributions the chi-square power at 10,000
samples is asserted > 0.999 from the exact pmfs (test_stated_power); for noise laws the KS
distance of a 1.5x scale error is >= 0.06 (Gumbel, Laplace, Gaussian alike), against a
critical value <= 0.025 at 15,600 values (0.05 with the DKW fluctuation at 1 - 1e-9).
"""

import math

import numpy as np
import pytest
from scipy import stats

import dpverify
from algorithms.graphs import as_graph_arrays
from algorithms.matroids import UniformMatroid
from algorithms.mst.accounting import (
    accounting_from_epsilon0,
    epsilon_from_rho,
    rho_from_epsilon,
    spanning_forest_accounting,
)
from algorithms.mst.catalogue import complete_graph
from algorithms.mst.exponential import exponential_mechanism_step
from algorithms.mst.matroid_extension import (
    PerturbedMatroidBasisMechanism,
    matroid_basis_accounting,
    private_matroid_basis,
)
from algorithms.mst.perturbation import GumbelPerturbationMechanism, gumbel_perturbed_weights, perturbed_mst
from algorithms.mst.ppsacr import GraphicRemovalRule, ppsacr_set_distribution
from algorithms.mst.privatization import gaussian_privatized_mst, laplace_privatized_mst
from algorithms.mst.samplers import TreeSampler

N_TESTS = 38  # distributional assertions in this module (Bonferroni)
CONFIGS = [(0.3, 1.0), (2.5, 0.4)]  # (epsilon0, D)
BASE = np.array([1.8, 0.0, 3.0, 1.2, 2.4, 0.6])  # intended log-size spread epsilon0 w / (2D)
N = 10_000


def _k4(epsilon0, sens):
    """K4 whose weights give log sizes -BASE under the stated formula epsilon0 w / (2D)."""
    return complete_graph(4, BASE * 2.0 * sens / epsilon0)


def _kruskal_law(g, epsilon0, sens):
    log_sizes = -epsilon0 * g.weights / (2.0 * sens)  # Theorem 3.5, written out
    return ppsacr_set_distribution(log_sizes, g.n - 1, GraphicRemovalRule(g))


def _pamst_law(g, epsilon0, sens):
    """Prim from vertex 0, each step P[e] ~ exp(-epsilon0 w_e / (2D)) over the cut (enumerated)."""
    logw = -epsilon0 * g.weights / (2.0 * sens)
    out: dict = {}

    def rec(reached, chosen, prob):
        if len(chosen) == g.n - 1:
            key = tuple(sorted(chosen))
            out[key] = out.get(key, 0.0) + prob
            return
        cut = [e for e, (a, b) in enumerate(g.edges.tolist()) if (a in reached) != (b in reached)]
        w = np.exp(logw[cut] - logw[cut].max())
        for e, p in zip(cut, w / w.sum()):
            a, b = g.edges[e]
            rec(reached | {int(a), int(b)}, chosen + [e], prob * p)

    rec({0}, [], 1.0)
    return out


def _fit(sampler, pmf, seed):
    return dpverify.goodness_of_fit(sampler, pmf, n_samples=N, seed=seed).pvalue


TREE_ALGORITHMS = ["algorithm1", "algorithm1-scipy", "algorithm2", "algorithm3", "pamst-fast", "pamst-naive"]
# the batched (numba) samplers at both configurations, the naive PAMST loop at one; the
# unbatched loops at the other configurations run under the thorough profile (they take seconds)
CI_CASES = [(a, *c) for a in ("algorithm1", "algorithm2", "algorithm3", "pamst-fast") for c in CONFIGS]
CI_CASES.append(("pamst-naive", *CONFIGS[1]))
THOROUGH_CASES = [(a, *c) for a in TREE_ALGORITHMS for c in CONFIGS if (a, *c) not in CI_CASES]


@pytest.mark.parametrize("algorithm, epsilon0, sens", CI_CASES)
def test_tree_samplers_follow_the_stated_law(algorithm, epsilon0, sens, suite_alpha):
    """Each tree sampler (batched Algorithm 1, private Kruskal, one-pass Kruskal, PAMST fast and
    naive) fits the law of its paper at (epsilon0, D). 9 tests.

    Detects: a tree sampler whose noise scale is off by 1.5x or more, or whose law is not its paper's (mutants
    mst-*-scale-*, mst-pamst-*).
    """
    _check_tree_sampler(algorithm, epsilon0, sens, suite_alpha)


@pytest.mark.parametrize("algorithm, epsilon0, sens", THOROUGH_CASES)
def test_unbatched_tree_samplers_follow_the_stated_law(algorithm, epsilon0, sens, suite_alpha, thorough):
    """The same for Algorithm 1 with scipy's MST (one call per tree) and the naive PAMST at the
    other configuration; thorough profile only (seconds each). 3 tests.

    Detects: the same errors in the unbatched samplers.
    """
    if not thorough:
        pytest.skip("unbatched samplers: thorough profile (DPVERIFY_PROFILE=thorough)")
    _check_tree_sampler(algorithm, epsilon0, sens, suite_alpha)


def _check_tree_sampler(algorithm, epsilon0, sens, suite_alpha):
    g = _k4(epsilon0, sens)
    law = _pamst_law(g, epsilon0, sens) if algorithm.startswith("pamst") else _kruskal_law(g, epsilon0, sens)
    seed = 100 + TREE_ALGORITHMS.index(algorithm) * 10 + CONFIGS.index((epsilon0, sens))
    sampler = TreeSampler(algorithm, g, epsilon0, sensitivity=sens)
    assert _fit(sampler, law, seed) > suite_alpha / N_TESTS


@pytest.mark.parametrize("epsilon0, sens", CONFIGS)
def test_audited_mechanism_and_exponential_step_follow_the_stated_law(epsilon0, sens, suite_alpha):
    """GumbelPerturbationMechanism (what the audits sample) and one exponential-mechanism step
    over all six edges, P[e] ~ exp(-epsilon0 w_e / (2D)). 2 x 2 tests.

    Detects: an audited mechanism or exponential step at the wrong scale (mutant mst-expmech-step-noise-x2).
    """
    g = _k4(epsilon0, sens)

    class Mech:
        def __init__(self):
            self.m = GumbelPerturbationMechanism(epsilon0, sensitivity=sens)

        def __call__(self, rng):
            return self.m(g, rng)

        def sample(self, size, rng):
            return self.m.sample(g, size, rng)

    assert _fit(Mech(), _kruskal_law(g, epsilon0, sens), 200 + int(10 * epsilon0)) > suite_alpha / N_TESTS
    logw = -epsilon0 * g.weights / (2.0 * sens)
    step = dict(enumerate(np.exp(logw - logw.max()) / np.exp(logw - logw.max()).sum()))
    sampler = lambda rng: exponential_mechanism_step(g.weights, np.arange(g.m), epsilon0, rng, sensitivity=sens)  # noqa: E731
    assert _fit(sampler, step, 300 + int(10 * epsilon0)) > suite_alpha / N_TESTS


@pytest.mark.parametrize("epsilon0, sens", CONFIGS)
@pytest.mark.parametrize("maximize", [True, False])
def test_matroid_extension_follows_the_stated_law(epsilon0, sens, maximize, suite_alpha):
    """Appendix A on the uniform matroid U(3, 6): the basis is top-3 PPSACR with log sizes
    +-epsilon0 w / (2D) (+ for a maximum-weight basis, - for a minimum one), for the single draw and
    the batched mechanism. 2 x 2 x 2 tests; the claim composes rank = 3 steps.

    Detects: a matroid extension with the wrong scale, sign or step count (mutants mst-matroid-*).
    """
    matroid = UniformMatroid(6, 3)
    w = BASE * 2.0 * sens / epsilon0
    sign = 1.0 if maximize else -1.0
    law = ppsacr_set_distribution(sign * epsilon0 * w / (2.0 * sens), 3, None)
    mech = PerturbedMatroidBasisMechanism(matroid, epsilon0, sensitivity=sens, maximize=maximize)

    def single(rng):
        return tuple(private_matroid_basis(matroid, w, epsilon0, rng, sensitivity=sens, maximize=maximize).tolist())

    class Batched:
        def __call__(self, rng):
            return mech(w, rng)

        def sample(self, size, rng):
            return mech.sample(w, size, rng)

    seed = 400 + 10 * int(maximize) + CONFIGS.index((epsilon0, sens))
    assert _fit(single, law, seed) > suite_alpha / N_TESTS
    assert _fit(Batched(), law, seed + 5) > suite_alpha / N_TESTS
    claim = matroid_basis_accounting(matroid, epsilon0, 1e-6, sensitivity=sens)
    assert claim.steps == 3 and claim.rho == pytest.approx(3 * epsilon0**2 / 2)


def _ks_pvalue(values, cdf):
    return stats.kstest(np.ravel(values), cdf).pvalue


GUMBEL_CONFIGS = [(0.3, 1.0), (2.5, 0.4), (1.7, 3.0)]


@pytest.mark.parametrize("epsilon0, sens", GUMBEL_CONFIGS)
def test_algorithm1_noise_is_gumbel_of_scale_2d_over_eps0(epsilon0, sens, suite_alpha):
    """(w - w~) / (2D / epsilon0) is Gumbel(0, 1) for gumbel_perturbed_weights and for the noisy
    weights perturbed_mst returns (20 draws of 780 edges of K40 each). 3 x 2 KS tests; the
    sign is pinned too (w + beta G would give a reflected Gumbel, KS distance 0.21).

    Detects: a Gumbel scale other than 2D/epsilon0 or the wrong sign (mutants mst-alg1-noise-*,
    mst-gumbel-scale-*).
    """
    g = complete_graph(40, np.random.default_rng(5).uniform(0, 10, 780))
    beta = 2.0 * sens / epsilon0
    rng = np.random.default_rng(int(epsilon0 * 100 + sens))
    a = np.concatenate([g.weights - gumbel_perturbed_weights(g, epsilon0, rng, sensitivity=sens) for _ in range(20)])
    b = np.concatenate(
        [g.weights - perturbed_mst(g, epsilon0, rng, sensitivity=sens, return_noisy_weights=True)[1] for _ in range(20)]
    )
    assert _ks_pvalue(a / beta, stats.gumbel_r.cdf) > suite_alpha / N_TESTS
    assert _ks_pvalue(b / beta, stats.gumbel_r.cdf) > suite_alpha / N_TESTS


SEALFON = [(0.4, 2.0, "linf"), (3.0, 0.5, "linf"), (0.4, 2.0, "l1"), (3.0, 0.5, "l1")]  # (eps or rho, D, relation)


@pytest.mark.parametrize("param, sens, relation", SEALFON)
def test_input_privatization_noise_follows_its_calibration(param, sens, relation, suite_alpha):
    """Sealfon's baseline: noisy - w is Lap(m D / eps) (l_inf) or Lap(D / eps) (l1), and
    N(0, sigma^2) with sigma = D sqrt(m / (2 rho)) (l_inf) or D / sqrt(2 rho) (l1); K40 weights,
    20 releases each. 4 x 2 KS tests.

    Detects: input privatization with a wrong scale, a dropped m or sqrt(m), or rho misread (mutants
    mst-sealfon-*).
    """
    g = complete_graph(40, np.random.default_rng(6).uniform(0, 10, 780))
    m = g.m
    rng = np.random.default_rng(int(param * 10) + (0 if relation == "linf" else 7))
    b = (m * sens if relation == "linf" else sens) / param
    sigma = (sens * math.sqrt(m) if relation == "linf" else sens) / math.sqrt(2.0 * param)
    lap = np.concatenate(
        [
            laplace_privatized_mst(g, param, rng, sensitivity=sens, neighbouring=relation, return_noisy_weights=True)[1]
            - g.weights
            for _ in range(20)
        ]
    )
    gau = np.concatenate(
        [
            gaussian_privatized_mst(g, param, rng, sensitivity=sens, neighbouring=relation, return_noisy_weights=True)[
                1
            ]
            - g.weights
            for _ in range(20)
        ]
    )
    assert _ks_pvalue(lap / b, stats.laplace.cdf) > suite_alpha / N_TESTS
    assert _ks_pvalue(gau / sigma, stats.norm.cdf) > suite_alpha / N_TESTS


def test_stated_power(suite_alpha):
    """The power claims of the module docstring, computed from exact laws (no sampling)."""
    level = suite_alpha / N_TESTS
    for epsilon0, sens in CONFIGS:
        g = _k4(epsilon0, sens)
        for r in (1.5, 1 / 1.5):  # noise scale times r = epsilon0 divided by r
            for law in (_kruskal_law, _pamst_law):
                assert dpverify.chi_square_power(law(g, epsilon0, sens), law(g, epsilon0 / r, sens), N, level) > 0.999
        for sign in (1.0, -1.0):
            law = lambda s, sign=sign: ppsacr_set_distribution(sign * BASE * s, 3, None)  # noqa: E731
            assert dpverify.chi_square_power(law(1.0), law(1.5), N, level) > 0.999
            assert dpverify.chi_square_power(law(1.0), law(1 / 1.5), N, level) > 0.999
    # noise laws: KS distance of a 1.5x scale error vs the critical value at 15,600 values
    x = np.linspace(-30, 30, 600_001)
    for cdf in (stats.gumbel_r.cdf, stats.laplace.cdf, stats.norm.cdf):
        for r in (1.5, 1 / 1.5):
            assert np.abs(cdf(x) - cdf(x / r)).max() > 0.06
    critical = stats.kstwo.isf(level, 15_600)
    dkw = math.sqrt(math.log(2 / 1e-9) / (2 * 15_600))  # sampling fluctuation at 1 - 1e-9
    assert critical < 0.025 and critical + dkw < 0.06


@pytest.mark.parametrize("epsilon0", [0.05, 0.3, 2.5])
@pytest.mark.parametrize("steps", [2, 9, 999])
def test_accounting_at_several_values(epsilon0, steps):
    """zCDP accounting restated from the paper (Theorem 3.2) and Bun & Steinke (2016): rho =
    steps * c * epsilon0^2 with c = 1/2 (generic) or 1/8 (bounded range); eps(rho, delta) =
    rho + 2 sqrt(rho ln(1/delta)); its inverse. Deterministic.

    Detects: a wrong zCDP constant or conversion (mutants mst-acc-bounded-range, mst-acc-eps-from-rho,
    mst-acc-rho-from-eps).
    """
    for delta in (1e-3, 1e-9):
        L = math.log(1 / delta)
        for conversion, c in (("generic", 0.5), ("bounded-range", 0.125)):
            claim = accounting_from_epsilon0(epsilon0, steps, delta, conversion=conversion)
            rho = steps * c * epsilon0**2
            assert claim.rho == pytest.approx(rho, rel=1e-12)
            assert claim.epsilon == pytest.approx(rho + 2 * math.sqrt(rho * L), rel=1e-12)
            assert claim.basic_composition_epsilon == pytest.approx(steps * epsilon0, rel=1e-12)
        assert epsilon_from_rho(epsilon0, delta) == pytest.approx(epsilon0 + 2 * math.sqrt(epsilon0 * L), rel=1e-12)
        assert rho_from_epsilon(epsilon0 * steps, delta) == pytest.approx(
            (math.sqrt(epsilon0 * steps + L) - math.sqrt(L)) ** 2, rel=1e-12
        )


def test_forest_claims_count_one_step_per_forest_edge():
    """n - c steps for a spanning forest: 7 vertices in 3 components -> 4 steps, for the helper
    and for the audited mechanism.

    Detects: a claim that counts n - 1 steps on a forest (mutants mst-acc-forest-steps*).
    """
    forest = as_graph_arrays((7, [[0, 1], [1, 2], [0, 2], [3, 4], [4, 5]], [1.0, 2.0, 3.0, 1.0, 2.0]))
    for claim in (
        spanning_forest_accounting(forest, 0.7, 1e-6),
        GumbelPerturbationMechanism(0.7).privacy_accounting(forest, 1e-6),
    ):
        assert claim.steps == 4 and claim.rho == pytest.approx(4 * 0.7**2 / 2)


FLOAT_SAMPLERS = ["algorithm1", "algorithm2", "algorithm3", "pamst-fast"]


@pytest.mark.parametrize("algorithm", FLOAT_SAMPLERS)
def test_samplers_keep_the_law_at_float_extremes(algorithm, suite_alpha):
    """epsilon0 = 10, weights near +-1e3 (log sizes near -+5000, e^5000 overflows a double): on a
    4-cycle with a chord, the two light edges are always taken and the third edge is chosen
    among two heavy near-tied edges (log sizes differing by 0.5: probabilities 0.62 / 0.38) --
    a sampler that left log space would see infinite or zero keys and pick one of them
    deterministically. Goodness of fit to the law written out here, 4 x 2 tests at
    suite_alpha / 8 (power: a deterministic pick puts mass 0 on a 0.38 outcome, p-value ~0).
    Also at a spread just below the batched sampler's log-space threshold (w / beta spans 590,
    keys up to e^590 in linear space)."""
    for case, (w, epsilon0, sens) in enumerate(
        [
            ([-1e3, -999.0, 1e3, 1e3 + 0.1, 1e3 + 5.0], 10.0, 1.0),  # log path
            ([0.0, 1.0, 118.0, 118.1, 120.0], 10.0, 1.0),  # w/beta spans 600: linear path edge
        ]
    ):
        g = as_graph_arrays((4, [[0, 1], [1, 2], [2, 3], [0, 3], [0, 2]], w))
        law = _kruskal_law(g, epsilon0, sens) if algorithm != "pamst-fast" else _pamst_law(g, epsilon0, sens)
        sampler = TreeSampler(algorithm, g, epsilon0, sensitivity=sens)
        seed = 500 + 10 * case + FLOAT_SAMPLERS.index(algorithm)
        res = dpverify.goodness_of_fit(sampler, law, n_samples=N, seed=seed)
        assert res.pvalue > suite_alpha / (2 * len(FLOAT_SAMPLERS)), (algorithm, case, res)
