"""The compiled bandit kernel's noise and confidence terms, pinned against the papers' formulas.

The compiled policies (:mod:`algorithms.bandits.indices`, played by
:mod:`algorithms.bandits._kernels`) build on the counters package's compiled hybrid counter,
tree-based aggregation and Lemma 1 bound (:mod:`algorithms.counters.compiled`), add four Laplace
randomizers and every index formula. Here each one is tested *through the indices the simulator
records*: on the uniform matroid U(K, K) (every arm is played every round)
with a constant reward table x, the index formulas of :mod:`algorithms.bandits.policies`, written
out again below, are inverted to recover the noisy statistic, and the recovered noise must follow
the stated law. A wrong confidence term shifts the recovered noise, a wrong scale stretches it.

References: Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network
Topology Optimization" (2025), Algorithms 1-2 and Lemma 1 (DP-OMM, LDP-OMM); K. Chandak,
"Differentially Private Algorithms for Efficient Online Matroid Optimization" (MSc thesis,
2023), Algorithms 2 and 5 (DPUCB-MAT, DPTS-MAT); X. Chen et al., "(Locally) Differentially
Private Combinatorial Semi-Bandits" (ICML 2020), Algorithms 1-3 (CUCB-LDP1, CUCB-LDP2, CUCB-DP);
Chan, Shi, Song (2011) for the hybrid and binary mechanisms.

Statistics: each recovered Laplace sample z (standardized by the stated scale) gets a KS test
against Lap(0, 1) and an exact scale test (sum |z| ~ Gamma(N, 1) under the law, two-sided);
N_TESTS assertions in all, each at suite_alpha / N_TESTS, so their family's false-alarm rate is
<= 1e-6 (the local-randomizer fits at the end are a second family of 6 at suite_alpha / 6, the
greedy/tie-breaking test a third at suite_alpha). Power: the scale test's z-score for a scale off by a factor r is about
|1 - 1/r| sqrt(N); with N >= 8,000 here a 1.5x error gives > 29 standard errors and even a
10% error (one level of ten) > 9 (rejected at 1e-8 / N_TESTS with probability > 0.999);
a confidence term off by 1.5x shifts the recovered noise by at least one noise scale in the
rounds where it matters, which the KS test sees (distance > 0.1 against a critical value
< 0.03). Parameters: several eps and K, horizons with 5-10 tree levels.
"""

import math

import numpy as np
import pytest
from scipy import stats

from algorithms.bandits import policies as P
from algorithms.bandits.environments import TableEnvironment
from algorithms.bandits.indices import omm as omm_kernels
from algorithms.bandits.simulator import simulate
from algorithms.counters import HybridCounterBank, HybridMechanism, hybrid_structure
from algorithms.matroids import UniformMatroid

N_TESTS = 42  # Laplace/KS assertions of the kernel tests below (Bonferroni family)
X = 0.3  # every observation


def _laplace_pvalues(z):
    """KS against Lap(0, 1) and the exact two-sided scale test (sum |z| ~ Gamma(N, 1))."""
    z = np.ravel(z)
    s = np.abs(z).sum()
    scale_p = 2 * min(stats.gamma.cdf(s, z.size), stats.gamma.sf(s, z.size))
    return stats.kstest(z, stats.laplace.cdf).pvalue, min(scale_p, 1.0)


def _assert_laplace(z, suite_alpha, what):
    ks, scale = _laplace_pvalues(z)
    assert ks > suite_alpha / N_TESTS and scale > suite_alpha / N_TESTS, (what, ks, scale, np.mean(np.abs(z)))


def _indices(policy, K, horizon, runs, seed, value=X, rounds=None):
    table = np.full((horizon, K), value)
    rounds = range(1, horizon + 1) if rounds is None else rounds
    res = simulate(
        UniformMatroid(K, K), TableEnvironment(table), policy, horizon, n_runs=runs, seed=seed, record_indices_at=rounds
    )
    assert res.rank == K
    return res.indices, np.asarray(res.index_rounds)  # (runs, rounds, K)


LDP_CASES = [(0.8, 2), (3.0, 3), (6.0, 4)]  # (eps, K): per-report eps/K = 0.4, 1, 1.5


@pytest.mark.parametrize("eps, K", LDP_CASES)
def test_ldp_omm_reports_and_index(eps, K, suite_alpha):
    """LDP-OMM: every observation is reported as x + Lap(K / eps) and
    J = mean + sqrt(2 ln t / n) + max{(2/e) sqrt(2 ln(2 t^4) / n), (4/e) ln(2 t^4) / n}, e = eps/K.

    Horizon 64 reaches both branches of the max (the first from n ~ 30 on). The recovered
    increments S_{t+1} - S_t - x of the noisy sums are the reports' noise. 3 x 2 tests.

    Detects: a report scale other than K/eps (e.g. Lap(1/eps) per arm: every arm given the whole eps) and a
    wrong Lemma 1 term in the index (mutants bandits-ldp-noise-*, bandits-split-*).
    """
    H, R = 64, 500
    J, rounds = _indices(P.ldp_omm(eps), K, H, R, seed=int(eps * 10) + K)
    e = eps / K
    t = rounds[1:].astype(float)  # rounds 2..H: n = t - 1 observations
    n = t - 1
    l2 = np.log(2 * t**4)
    radius = np.sqrt(2 * np.log(t) / n) + np.maximum((2 / e) * np.sqrt(2 * l2 / n), (4 / e) * l2 / n)
    S = n[None, :, None] * (J[:, 1:, :] - radius[None, :, None])
    noise = np.diff(np.concatenate([np.zeros((R, 1, K)), S], axis=1), axis=1) - X
    _assert_laplace(noise * e, suite_alpha, "LDP-OMM")


CUCB_LDP_CASES = [(80.0, 2), (180.0, 3)]  # large eps: the index stays below its clip at 1


@pytest.mark.parametrize("eps, K", CUCB_LDP_CASES)
def test_cucb_ldp1_reports_and_radius(eps, K, suite_alpha):
    """CUCB-LDP1: all K played arms report x + Lap(K / eps);
    J = min{mean + 4 sqrt(2 K^2 ln T / (eps^2 n)), 1}. With x = 0 and eps/K = 40 or 60 the index
    reaches 1 with probability < 1e-12 (asserted: no recorded index is clipped). 2 x 2 tests.

    Detects: a report scale other than K/eps or a radius with the wrong eps (mutants bandits-ldp1-noise-*,
    bandits-cucb-ldp-radius-eps).
    """
    H, R = 48, 500
    J, rounds = _indices(P.cucb_ldp1(eps, horizon=H), K, H, R, seed=7 + K, value=0.0)
    e = eps / K
    n = rounds[1:].astype(float) - 1
    assert np.all(J[:, 1:, :] < 1.0)
    radius = 4 * np.sqrt(2 * math.log(H) / (e * e * n))
    S = n[None, :, None] * (J[:, 1:, :] - radius[None, :, None])
    noise = np.diff(np.concatenate([np.zeros((R, 1, K)), S], axis=1), axis=1)
    _assert_laplace(noise * e, suite_alpha, "CUCB-LDP1")


@pytest.mark.parametrize("eps, K", [(40.0, 2), (60.0, 3)])
def test_cucb_ldp2_single_report_gets_all_of_eps(eps, K, suite_alpha):
    """CUCB-LDP2: only the least-observed played arm reports, x + Lap(1 / eps) (the whole eps,
    not eps/K); J = min{mean + 4 sqrt(2 ln T / (eps^2 n)), 1}. After j full cycles of K rounds
    every arm has exactly j reports; the increments between cycles are the reports' noise
    (each report is a fresh draw whichever arm gets it). 2 x 2 tests.

    Detects: a single report that splits eps it need not split (Lap(K/eps); mutant
    bandits-ldp2-noise-eps-over-K) or a half scale.
    """
    H, R = 1 + 16 * K, 800
    cycles = np.arange(1, 17)
    J, rounds = _indices(P.cucb_ldp2(eps, horizon=H), K, H, R, seed=11 + K, value=0.0, rounds=1 + K * cycles)
    assert np.all(J < 1.0)
    radius = 4 * np.sqrt(2 * math.log(H) / (eps * eps * cycles))
    S = cycles[None, :, None] * (J - radius[None, :, None])
    noise = np.diff(np.concatenate([np.zeros((R, 1, K)), S], axis=1), axis=1)
    _assert_laplace(noise * eps, suite_alpha, "CUCB-LDP2")


@pytest.mark.parametrize("eps, K", LDP_CASES)
def test_dpucb_mat_batches_and_index(eps, K, suite_alpha):
    """DPUCB-MAT: a batch of 2^s observations is released as (sum + Lap(K / eps)) / 2^s and
    J = w~ + sqrt(3 ln(K t) / T_e) + 3 ln(K t) / (e T_e), e = eps/K. Batches of 1, 2, ..., 32
    complete at counts 1, 3, 7, ..., 63; the index of the next round recovers each release.
    3 x 2 tests.

    Detects: a batch release whose Laplace scale is not K/eps, or a wrong privacy term in the index (mutants
    bandits-dpucb-*).
    """
    H, R = 64, 1500
    done = np.array([1, 3, 7, 15, 31, 63])
    te = np.array([1, 2, 4, 8, 16, 32], dtype=float)
    J, rounds = _indices(P.dpucb_mat(eps), K, H, R, seed=21 + K, rounds=done + 1)
    e = eps / K
    lk = np.log(K * (done + 1.0))
    est = J - (np.sqrt(3 * lk / te) + 3 * lk / (e * te))[None, :, None]
    noise = (est - X) * te[None, :, None]
    _assert_laplace(noise * e, suite_alpha, "DPUCB-MAT")


@pytest.mark.parametrize("eps, K", [(1.0, 2), (4.5, 3)])
def test_dpts_mat_first_sample(eps, K, suite_alpha):
    """DPTS-MAT at round 2 (batch of 1): J ~ N(x + Lap(K/eps) + 3 ln(2K) / (eps/K), 1). Two-sample
    KS against numpy draws of that law (2,000 x K values each: critical value < 0.07 at the
    test's level). Power: the shift 3 ln(2K) / e off by 1.5x moves the law by >= 1.4 standard
    deviations (KS distance > 0.4); the Laplace release itself is shared with DPUCB-MAT and
    pinned there. 2 tests.

    Detects: a sampling shift 3 ln(2K)/(eps/K) off by 1.5x or more (mutant bandits-dpts-shift-x0.5).
    """
    R = 2000
    J, _ = _indices(P.dpts_mat(eps), K, 2, R, seed=31 + K, rounds=[2])
    e = eps / K
    rng = np.random.default_rng(32 + K)
    ref = X + rng.laplace(0, 1 / e, J.size) + 3 * math.log(2 * K) / e + rng.normal(0, 1, J.size)
    assert stats.ks_2samp(J.ravel(), ref).pvalue > suite_alpha / N_TESTS


@pytest.mark.parametrize("eps, K", [(0.7, 2), (3.0, 3)])
def test_dp_omm_counter_and_bound(eps, K, suite_alpha):
    """DP-OMM: each arm's observations go through a hybrid counter with eps' = eps/K, and
    J = (S~ + B(n, t)) / n + sqrt(2 ln t / n), B the counter's noise bound at delta = t^-4
    (``HybridCounterBank.error_bound_at``, the reference). The recovered S~ sequence (n = 1..47)
    is the hybrid counter's output; its node noise, recovered through the hybrid structure
    (logarithmic nodes Lap(2/e'), binary nodes of the instance after 2^k Lap(2(k+1)/e'), k up to
    4), must be standard Laplace after standardizing, per part. 2 x 4 tests.

    Detects: DP-OMM's per-arm counter at the wrong eps' (every arm given the whole eps, a 2x error the audit
    cannot see) and a wrong noise bound in the index.
    """
    H, R = 48, 1000
    J, rounds = _indices(P.dp_omm(eps), K, H, R, seed=41 + K)
    e = eps / K
    t = rounds[1:].astype(float)
    n = (t - 1).astype(int)
    bank = HybridCounterBank((1,), e)
    bound = np.array([float(bank.error_bound_at(int(k), float(tt) ** -4)) for k, tt in zip(n, t)])
    S = n[None, :, None] * (J[:, 1:, :] - np.sqrt(2 * np.log(t) / n)[None, :, None]) - bound[None, :, None]
    T = H - 1
    structure = hybrid_structure(T, e)
    used = structure.used_nodes()
    y = np.moveaxis(S, 2, 1).reshape(R * K, T)
    z = (y - structure.noiseless_outputs(np.full(T, X))) @ np.linalg.pinv(structure.output_map[:, used]).T
    z = z / structure.scales[used]
    n_log = int(T).bit_length()
    _assert_laplace(z[:, :n_log], suite_alpha, "DP-OMM logarithmic part")
    _assert_laplace(z[:, n_log:], suite_alpha, "DP-OMM binary part")


@pytest.mark.parametrize("eps", [0.4, 2.5])
def test_kernel_hybrid_counter_equals_the_reference_bank_in_distribution(eps, suite_alpha):
    """DP-OMM's per-arm counter as the simulator draws it (``hybrid_counter_batch``, one Laplace draw
    per item in numba) against ``HybridCounterBank`` (the same compiled counter, noise drawn
    vectorized in numpy): same node-noise law per part (2 x 2 one-sample tests, as for DP-OMM)
    and the same output law as the reference bank at counts 1, 2, 3, 5, 8, 16, 31, 45 (two-sample
    KS at each count, Bonferroni over the 8 inside the assertion). Horizon 45: binary instances
    with k = 1..4 (2-5 levels). 2 x 3 tests.

    Detects: a compiled counter whose node noise or output law differs from the reference bank's (e.g. the
    logarithmic part without its eps/2 split).
    """
    T, R = 45, 3000
    stream = np.random.default_rng(5).random(T)
    kern = omm_kernels.hybrid_counter_batch(stream, eps, R, np.random.default_rng(int(eps * 10)))
    ref = HybridMechanism(eps).sample(stream, R, int(eps * 10) + 1)
    S = hybrid_structure(T, eps)
    used = S.used_nodes()
    z = (kern - S.noiseless_outputs(stream)) @ np.linalg.pinv(S.output_map[:, used]).T / S.scales[used]
    n_log = int(T).bit_length()
    _assert_laplace(z[:, :n_log], suite_alpha, "kernel counter, logarithmic part")
    _assert_laplace(z[:, n_log:], suite_alpha, "kernel counter, binary part")
    counts = [1, 2, 3, 5, 8, 16, 31, 45]
    p = min(stats.ks_2samp(kern[:, c - 1], ref[:, c - 1]).pvalue for c in counts) * len(counts)
    assert p > suite_alpha / N_TESTS


def test_cucb_dp_tree_noise(suite_alpha):
    """CUCB-DP: tree-based aggregation over rounds with L = floor(log2 T) + 1 = 10 levels
    (T = 512) and Lap(2 K L / eps) = Lap(2 L / e) per node, e = eps/K;
    J = min{S~/n + sqrt(4 ln(m T) / n) + 12 K ln^3 T / (eps n), 1}. The index is below 1 from
    n ~ 200 on (asserted); the released sums at t = 256, 384, 448, ..., 511 differ by one fresh
    node each (levels 8 down to 0), 10 iid Lap(2L/e) per arm and run. K = m = 2, eps = 200.
    2 tests; the scale test resolves even one level too few or too many (10%).

    Detects: tree-aggregation noise with the wrong scale or level count (mutants bandits-cucbdp-tree-*).
    """
    T, K, eps, R = 512, 2, 200.0, 800
    e = eps / K
    ts = np.array([256, 384, 448, 480, 496, 504, 508, 510, 511])
    J, _ = _indices(P.cucb_dp(eps, horizon=T), K, T, R, seed=51, value=0.0, rounds=ts + 1)
    assert np.all(J < 1.0)
    n = ts.astype(float)
    radius = np.sqrt(4 * math.log(K * T) / n) + 12 * math.log(T) ** 3 / (e * n)
    sums = n[None, :, None] * (J - radius[None, :, None])  # x = 0: the released sums are noise
    nodes = np.diff(np.concatenate([np.zeros((R, 1, K)), sums], axis=1), axis=1)
    L = int(T).bit_length()
    assert L == 10
    _assert_laplace(nodes / (2 * L / e), suite_alpha, "CUCB-DP")


@pytest.mark.parametrize("eps", [0.3, 2.5, 7.0])
def test_kernel_noise_bound_equals_the_counter_bound(eps):
    """``dp_omm_noise_bound`` (DP-OMM's bound with delta = t^-4) equals
    ``HybridCounterBank.error_bound_at`` at delta = t^-4, for counts 1..300 (every k up to 8,
    powers of two included) and several rounds. Deterministic.

    Detects: DP-OMM's confidence term at another delta than t^-4 or with other logarithm rounding than the
    counter's (deterministic).
    """
    bank = HybridCounterBank((1,), eps)
    for t in (2.0, 17.0, 300.0, 5000.0):
        for n in range(1, 301):
            assert omm_kernels.dp_omm_noise_bound(n, eps, t) == pytest.approx(
                float(bank.error_bound_at(n, t**-4)), rel=1e-12
            )


LOCAL_CASES = [
    ("LDP-OMM", 0.6, 2),
    ("LDP-OMM", 5.0, 3),
    ("CUCB-LDP1", 0.9, 3),
    ("CUCB-LDP1", 4.0, 2),
    ("CUCB-LDP2", 0.7, 3),
    ("CUCB-LDP2", 3.0, 2),
]


@pytest.mark.parametrize("name, eps, K", LOCAL_CASES)
def test_local_randomizers_at_several_eps(name, eps, K, suite_alpha):
    """The local randomizer of each LDP policy (``LaplaceLocalRandomizer``) at two (eps, K):
    per-report scale K/eps (LDP-OMM, CUCB-LDP1: K reports) or 1/eps (CUCB-LDP2: one report);
    the binned report's exact loss between all-zeros and all-ones observations is eps (tail
    bins attain the density ratio), and the sampled reports fit the binned law written out
    here (goodness of fit, 6 tests at suite_alpha / 6; power > 0.999 against a scale off by 1.5,
    asserted).

    Detects: a local randomizer whose exact loss is not eps at some (eps, K) (a scale pinned at one epsilon
    only).
    """
    import dpverify
    from algorithms.bandits.audits import LaplaceLocalRandomizer, discretized_report_pmf

    policy = P.POLICY_FACTORIES[name](eps)
    rnd = LaplaceLocalRandomizer(policy, K)
    n_reports = 1 if name == "CUCB-LDP2" else K
    scale = 1 / eps if name == "CUCB-LDP2" else K / eps
    assert rnd.n_reports == n_reports
    edges = np.linspace(-3 * scale, 1 + 3 * scale, 6)
    zero, one = np.zeros(n_reports), np.ones(n_reports)
    loss = dpverify.exact_privacy_loss(
        discretized_report_pmf(rnd, zero, edges), discretized_report_pmf(rnd, one, edges)
    )
    assert loss.epsilon == pytest.approx(eps, rel=1e-9)

    def law(x, b):
        per = [np.diff(np.concatenate([[0.0], stats.laplace.cdf(edges, loc=xi, scale=b), [1.0]])) for xi in x]
        out = {(): 1.0}
        for p in per:
            out = {k + (i,): v * p[i] for k, v in out.items() for i in range(p.size)}
        return out

    x = np.linspace(0.1, 0.9, n_reports)
    n = 20_000
    for r in (1.5, 1 / 1.5):
        assert dpverify.chi_square_power(law(x, scale), law(x, r * scale), n, suite_alpha / 6) > 0.999

    class Binned:
        def sample(self, size, rng):
            bins = np.searchsorted(edges, rnd.sample(x, size, rng), side="left")
            return [tuple(row) for row in bins.tolist()]

        def __call__(self, rng):
            return self.sample(1, rng)[0]

    seed = 60 + LOCAL_CASES.index((name, eps, K))
    assert dpverify.goodness_of_fit(Binned(), law(x, scale), n_samples=n, seed=seed).pvalue > suite_alpha / 6


def test_kernel_greedy_and_tie_breaking_against_the_matroid_package(suite_alpha, at_input):
    """The kernel's greedy with uniformly random tie-breaking, against the reference greedy of
    ``algorithms.matroids`` on uniformly random orders, by distribution: OMM on the graphic
    matroid of K4 with a constant reward table; round 1 has six tied +inf indices, round 2 has
    the three unplayed arms tied at +inf and the three played arms tied at 0.5 + sqrt(2 ln 2).
    The pair (round-1 basis, round-2 basis) has 16 x 16 possible values; the reference draws
    round 1 as the greedy basis of a random permutation and round 2 as the greedy basis of
    weights 2 + U (unplayed) and 1 + U (played), U iid uniform. Chi-square two-sample test at
    suite_alpha (false alarm <= 1e-6). Power: a tie-break that keeps the previous order
    (round 2 replaying round 1's order among played arms) or a greedy that ignores dependence
    changes the law by > 0.1 in total variation; at 20,000 samples each such a change has
    noncentrality > 400, rejected with probability ~1.

    Detects: biased tie-breaking in the kernel's greedy (mutants bandits-tie-shuffle-*).
    """
    import dpverify
    from algorithms.bandits.audits import PlayedSuperArms
    from algorithms.matroids import GraphicMatroid

    u, v = np.array([0, 0, 0, 1, 1, 2]), np.array([1, 2, 3, 2, 3, 3])
    matroid = GraphicMatroid(4, u, v)
    mech = PlayedSuperArms(matroid, P.omm(), 2)
    table = np.full((2, 6), 0.5)

    def mask(basis):
        return int(sum(1 << int(e) for e in basis))

    class Reference:
        def sample(self, size, rng):
            out = []
            for _ in range(size):
                first = matroid.greedy_max_basis(rng.permutation(6).astype(float))
                w = 2.0 + rng.random(6)
                w[first] -= 1.0
                out.append((mask(first), mask(matroid.greedy_max_basis(w))))
            return out

        def __call__(self, rng):
            return self.sample(1, rng)[0]

    res = dpverify.equal_distributions(at_input(mech, table), Reference(), n_samples=20_000, seed=71)
    assert res.pvalue > suite_alpha
