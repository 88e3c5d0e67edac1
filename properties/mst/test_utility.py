"""Utility of the private spanning trees of Pagh et al. 2025: the high-probability bound and Appendix H.

Statistical practice: fixed seeds, one spawned stream per purpose, every
assertion at the per-test false-alarm rate ``suite_alpha`` (1e-6), sample sizes chosen so the
assertion holds on correct code with probability >= 1 - 1e-6 and the alternative it guards
against is detected with power ~1 (each test states its figures).

What the tests establish
------------------------
1. *High-probability bound* (Pagh et al. 2025, utility of Algorithm 1): with Gumbel noise
   of scale beta = 2D/epsilon0, with probability >= 1 - gamma,
   w(T~) - w(T*) <= (n - 1) beta (ln(2m/gamma) + ln ln(2m/gamma)).
   Tested with a one-sided exact binomial test on the number of draws that exceed the bound, and
   separately on the step of the proof where the probability enters (the noise range
   max N - min N exceeds beta (ln(2m/gamma) + ln ln(2m/gamma))), which is nearly tight and so gives
   the test power against a mis-scaled noise. The final bound is loose (the test reports the
   slack); its binomial test therefore only catches grossly mis-scaled noise, shown by a power
   check with 40x the noise.
2. *Algorithm 1 against PAMST* (Appendix H: "the output distribution of our algorithm indeed
   matches PAMST"). This is only approximately true: the output distributions differ (a triangle
   shows it; see the PAMST equality tests) and so do the error distributions, which a two-sample
   Kolmogorov-Smirnov test separates at n = 40 on a designated instance. What holds at reduced
   size (n = 40, Appendix H's U(0, 100) weights, rho = 1, D = 0.1) and is asserted: the ratio of
   mean excess weights mean(Alg 1) / mean(PAMST) lies in [0.5, 1.25] (a 1 - 1e-6 confidence
   interval inside it): the errors are of the same size. Measured ratios were 0.73 to 0.96, i.e.
   Algorithm 1 is, if anything, slightly better than PAMST.
3. *Algorithm 1 against input privatization* (Appendix H): on a dense graph (K_40) Algorithm 1's
   error is stochastically smaller than Sealfon's Gaussian input privatization at the same rho
   (one-sided Mann-Whitney U). The finding reverses on sparse graphs, as the paper's "if the graph
   is not too sparse" says: on G(40, 0.15) the input privatization is better; asserted too.
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.graphs import as_graph_arrays, connected_gnp_graph, minimum_spanning_tree, tree_weight
from algorithms.mst.accounting import epsilon0_from_rho
from algorithms.mst.pamst import pamst_fast
from algorithms.mst.perturbation import batched_perturbed_trees, perturbed_mst
from algorithms.mst.privatization import gaussian_privatized_mst

# One root seed per test; SeedSequence.spawn gives the graph and each mechanism its own stream.
ROOT_SEED = 20_040_004


def _streams(key: int, k: int):
    return [np.random.default_rng(s) for s in np.random.SeedSequence([ROOT_SEED, key]).spawn(k)]


def _bound(n: int, m: int, beta: float, gamma: float) -> tuple[float, float]:
    """(range threshold, error bound): beta (L + ln L) and (n - 1) beta (L + ln L), L = ln(2m/gamma)."""
    log_term = math.log(2 * m / gamma)
    range_threshold = beta * (log_term + math.log(log_term))
    return range_threshold, (n - 1) * range_threshold


def _binomial_exceedance_pvalue(count: int, draws: int, gamma: float) -> float:
    """One-sided exact binomial p-value of H0 "P[exceed] <= gamma": P[Binomial(draws, gamma) >= count]."""
    return float(stats.binom.sf(count - 1, draws, gamma))


def _perturbation_draws(g, epsilon0, sensitivity, draws, rng):
    """Errors w(T~) - w(T*) and noise ranges max N - min N of ``draws`` runs of Algorithm 1.

    Each run is one call of :func:`perturbed_mst` (the public mechanism) returning its noisy
    weights, so the noise N = w~ - w is the noise the mechanism actually used.
    """
    exact = minimum_spanning_tree(g)
    best = tree_weight(g, exact)
    errors = np.empty(draws)
    ranges = np.empty(draws)
    gaps = np.empty(draws)
    for i in range(draws):
        tree, noisy = perturbed_mst(
            g, epsilon0, rng, sensitivity=sensitivity, backend="kruskal", return_noisy_weights=True
        )
        noise = noisy - g.weights
        errors[i] = tree_weight(g, tree) - best
        ranges[i] = noise.max() - noise.min()
        # deterministic link of the two events: error <= N(T*) - N(T~) <= (n - 1) (max N - min N)
        gaps[i] = noise[exact].sum() - noise[tree].sum()
    return errors, ranges, gaps


# Bound test instance: connected G(30, 0.3) with U(0, 100) weights, epsilon0 = 1, D = 1, gamma = 0.05.
BOUND_DRAWS = 4000
BOUND_GAMMA = 0.05


@pytest.fixture(scope="module")
def bound_graph():
    (graph_rng,) = _streams(1, 1)
    return connected_gnp_graph(30, 0.3, graph_rng)


def test_high_probability_error_bound_holds(bound_graph, suite_alpha):
    """The bound holds with probability >= 1 - gamma, at the theorem's event and at the proof's.

    Exact one-sided binomial tests of H0 "P[event] <= gamma" (false alarm <= suite_alpha = 1e-6
    each; together 2e-6). Power: with 4000 draws and gamma = 0.05 a test rejects when at least
    270 draws exceed (rate 0.0675); at a true rate of 0.08 the power is 0.9987, at 0.1 it is
    1 - 2e-13. The noise-range event occurs at rate ~0.017 here and 1.5x the noise scale pushes it
    far above 0.1 (test_bound_tests_catch_mis_scaled_noise). The printed slack (bound divided by
    the empirical 95% quantile of the error, ~50x here) is the figure reported in the issue note.

    Detects: noise larger than the theorem's (the bound then fails; shown by
    test_bound_tests_catch_mis_scaled_noise).
    """
    g = bound_graph
    epsilon0, d = 1.0, 1.0
    beta = 2 * d / epsilon0
    (rng,) = _streams(2, 1)
    errors, ranges, gaps = _perturbation_draws(g, epsilon0, d, BOUND_DRAWS, rng)
    range_threshold, error_bound = _bound(g.n, g.m, beta, BOUND_GAMMA)

    # deterministic inequalities, every draw
    assert np.all(errors <= gaps + 1e-9)
    assert np.all(gaps <= (g.n - 1) * ranges + 1e-9)

    range_count = int(np.sum(ranges > range_threshold))
    error_count = int(np.sum(errors > error_bound))
    p_range = _binomial_exceedance_pvalue(range_count, BOUND_DRAWS, BOUND_GAMMA)
    p_error = _binomial_exceedance_pvalue(error_count, BOUND_DRAWS, BOUND_GAMMA)
    slack = error_bound / np.quantile(errors, 1 - BOUND_GAMMA)
    assert p_range > suite_alpha, f"noise range exceeded in {range_count}/{BOUND_DRAWS} draws (gamma={BOUND_GAMMA})"
    assert p_error > suite_alpha, (
        f"error bound {error_bound:.1f} exceeded in {error_count}/{BOUND_DRAWS} draws (gamma={BOUND_GAMMA})"
    )
    # Report how loose the bound is (for the issue note): bound / empirical (1 - gamma) quantile.
    print(
        f"bound={error_bound:.1f} q95(error)={np.quantile(errors, 0.95):.2f} slack={slack:.1f}x "
        f"max(error)={errors.max():.2f} range-exceedance={range_count / BOUND_DRAWS:.4f}"
    )


def test_bound_tests_catch_mis_scaled_noise(bound_graph, suite_alpha):
    """Power check of the two binomial tests above: they fail on wrongly scaled noise.

    The bound is computed for epsilon0 = 1 while the mechanism runs with epsilon0 / s (noise scale s
    times too large). The proof-step test rejects at s = 1.5; the theorem-level bound, loose by
    a factor ~15-25 here, is only exceeded at a gross scale error (s = 40, where the tree is close to
    uniformly random). Both assertions are "p < suite_alpha" on deterministic seeds.
    """
    g = bound_graph
    epsilon0, d = 1.0, 1.0
    range_threshold, error_bound = _bound(g.n, g.m, 2 * d / epsilon0, BOUND_GAMMA)
    draws = 1000
    rng_a, rng_b = _streams(3, 2)
    _, ranges, _ = _perturbation_draws(g, epsilon0 / 1.5, d, draws, rng_a)
    assert _binomial_exceedance_pvalue(int(np.sum(ranges > range_threshold)), draws, BOUND_GAMMA) < suite_alpha
    errors, _, _ = _perturbation_draws(g, epsilon0 / 40.0, d, draws, rng_b)
    assert _binomial_exceedance_pvalue(int(np.sum(errors > error_bound)), draws, BOUND_GAMMA) < suite_alpha


# ----------------------------------------------------------------------------- Appendix H, reduced size

APPENDIX_RHO = 1.0
APPENDIX_D = 0.1
COMPARISON_DRAWS = 3000
Z_SUITE = stats.norm.isf(1e-6 / 2)  # two-sided 1 - 1e-6 normal quantile, 4.89


def _errors(g, method: str, draws: int, rng) -> np.ndarray:
    """Excess weights w(T~) - w(T*) of ``draws`` private trees at Appendix H's rho and D."""
    best = tree_weight(g, minimum_spanning_tree(g))
    epsilon0 = epsilon0_from_rho(APPENDIX_RHO, g.n - 1)
    if method == "algorithm1":
        trees = batched_perturbed_trees(g, epsilon0, draws, rng, sensitivity=APPENDIX_D)
        return g.weights[trees].sum(axis=1) - best
    if method == "pamst":
        run = lambda: pamst_fast(g, epsilon0, rng, sensitivity=APPENDIX_D)  # noqa: E731
    elif method == "sealfon_gaussian":
        run = lambda: gaussian_privatized_mst(  # noqa: E731
            g, APPENDIX_RHO, rng, sensitivity=APPENDIX_D, backend="kruskal"
        )
    else:
        raise ValueError(method)
    return np.array([tree_weight(g, run()) for _ in range(draws)]) - best


def _ratio_of_means_interval(a: np.ndarray, b: np.ndarray, z: float) -> tuple[float, float, float]:
    """mean(a)/mean(b) and its delta-method normal interval at quantile z (independent samples)."""
    ma, mb = a.mean(), b.mean()
    ratio = ma / mb
    se = ratio * math.sqrt(a.var(ddof=1) / (a.size * ma**2) + b.var(ddof=1) / (b.size * mb**2))
    return ratio, ratio - z * se, ratio + z * se


def _complete_graph(n: int, rng) -> "object":
    i, j = np.triu_indices(n, k=1)
    return as_graph_arrays((n, np.stack([i, j], axis=1), rng.uniform(0.0, 100.0, size=i.size)))


@pytest.mark.parametrize("density", [0.3, 1.0])
def test_algorithm1_error_is_of_pamst_size(density):
    """Appendix H's "resembles PAMST", stated as what is true at n = 40.

    Statistic: the mean excess weight w(T~) - w(T*) of 3000 independent trees per method on one
    fixed graph (G(40, 0.3) and K_40, U(0, 100) weights, rho = 1, D = 0.1,
    epsilon0 = sqrt(2 rho / (n - 1))). Assertion: the delta-method interval at z = 4.89
    (two-sided 1 - 1e-6) for mean(Alg 1) / mean(PAMST) lies inside [0.5, 1.25].

    Measured (exploration, 2000-3000 trees each): the ratio is below 1 on every instance tried --
    0.73 to 0.96 over eight K_40 instances, 0.89 and 0.96 on G(40, 0.3) instances -- with standard
    error ~0.02. The assertion fails on correct code only if the estimate strays 8 or more standard
    errors from such a value (probability < 1e-15). **Not** asserted, because it is false in
    general: equal means (ratios of 0.73 are clearly below 1) or equal distributions (see
    test_algorithm1_and_pamst_error_distributions_differ). On sparse graphs with a fresh graph per
    run (Appendix H's protocol) PAMST's mean relative error has a heavy tail: at G(40, 0.15),
    2000 runs, mean relative excess 0.00096 (Alg 1) against 0.0065 (PAMST).

    Detects: an Algorithm 1 or PAMST whose error is off Appendix H's "resembles PAMST" (e.g. noise scaled 2x).
    """
    graph_rng, rng_a, rng_p = _streams(10 + int(density * 10), 3)
    g = _complete_graph(40, graph_rng) if density == 1.0 else connected_gnp_graph(40, density, graph_rng)
    err_a = _errors(g, "algorithm1", COMPARISON_DRAWS, rng_a)
    err_p = _errors(g, "pamst", COMPARISON_DRAWS, rng_p)
    ratio, low, high = _ratio_of_means_interval(err_a, err_p, Z_SUITE)
    print(
        f"density={density} mean A1={err_a.mean():.3f} PAMST={err_p.mean():.3f} "
        f"ratio={ratio:.3f} [{low:.3f}, {high:.3f}]"
    )
    assert 0.5 < low and high < 1.25, f"ratio of mean errors {ratio:.3f}, interval [{low:.3f}, {high:.3f}]"


#: K_40 drawn by ``connected_gnp_graph(40, 1.0, default_rng(1))``: an instance (one of eight tried)
#: where the two error distributions differ clearly (mean ratio 0.73).
DIFFERING_INSTANCE_SEED = 1


def test_algorithm1_and_pamst_error_distributions_differ(suite_alpha):
    """The paper's "matches PAMST" is approximate: on a designated K_40 the errors differ.

    Test: two-sample Kolmogorov-Smirnov on 3000 excess weights per method, p < suite_alpha.
    This is an existence claim on one designated instance (the exact output distributions also
    differ on a triangle; that is checked exactly elsewhere). Power: in exploration at 2000 per
    side this instance gave KS p = 5e-42, so a p-value above 1e-6 with 3000 per side is
    practically impossible when the distributions differ as measured. Over eight K_40 instances
    the KS p-values ranged from 0.13 to 5e-42: the size of the difference depends on the graph.
    """
    g = connected_gnp_graph(40, 1.0, np.random.default_rng(DIFFERING_INSTANCE_SEED))
    rng_a, rng_p = _streams(20, 2)
    err_a = _errors(g, "algorithm1", COMPARISON_DRAWS, rng_a)
    err_p = _errors(g, "pamst", COMPARISON_DRAWS, rng_p)
    result = stats.ks_2samp(err_a, err_p)
    print(f"mean A1={err_a.mean():.3f} PAMST={err_p.mean():.3f} KS={result.statistic:.3f} p={result.pvalue:.3g}")
    assert result.pvalue < suite_alpha


@pytest.mark.parametrize(
    "density, better",
    [(1.0, "algorithm1"), (0.15, "sealfon_gaussian")],
)
def test_algorithm1_beats_input_privatization_on_dense_graphs_only(density, better, suite_alpha):
    """Appendix H: Algorithm 1 beats input privatization on dense graphs; sparse graphs reverse it.

    Same rho = 1 for both (Gaussian sigma = D sqrt(m/(2 rho)) grows with m; Algorithm 1's Gumbel
    scale 2D/epsilon0 grows with n). Test: one-sided Mann-Whitney U that the winner's excess weight is
    stochastically smaller, 3000 trees each, p < suite_alpha. Measured at n = 40 with these
    seeds: K_40 mean excess 6.1 (Alg 1) vs 14.4 (Sealfon), p < 1e-300; G(40, 0.15) 0.78 vs 0.41,
    p = 3e-20 (other instances in exploration: 3.6 vs 11.1 and 0.79 vs 0.24). With effects of this
    size at 3000 per side a p-value above 1e-6 on correct code is practically impossible.

    Detects: a reversed ordering of Algorithm 1 and input privatization (e.g. the privatization under-noised).
    """
    graph_rng, rng_a, rng_s = _streams(30 + int(density * 100), 3)
    g = _complete_graph(40, graph_rng) if density == 1.0 else connected_gnp_graph(40, density, graph_rng)
    err = {
        "algorithm1": _errors(g, "algorithm1", COMPARISON_DRAWS, rng_a),
        "sealfon_gaussian": _errors(g, "sealfon_gaussian", COMPARISON_DRAWS, rng_s),
    }
    worse = "sealfon_gaussian" if better == "algorithm1" else "algorithm1"
    result = stats.mannwhitneyu(err[better], err[worse], alternative="less")
    print(
        f"density={density} mean A1={err['algorithm1'].mean():.3f} "
        f"Sealfon={err['sealfon_gaussian'].mean():.3f} p={result.pvalue:.3g}"
    )
    assert result.pvalue < suite_alpha
