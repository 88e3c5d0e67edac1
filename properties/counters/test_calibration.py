"""Every counter's noise calibration, pinned at several epsilons and horizons with 3+ tree levels.

The structures of :mod:`algorithms.counters.structure` are built from the dyadic definitions of
Chan, Shi and Song (2011), "Private and continual release of statistics" (binary mechanism:
L = floor(log2 T) + 1 levels, Lap(L s / eps) per p-sum; logarithmic: Lap(1/eps); hybrid: eps/2
to each part, a binary instance of horizon 2^k with k + 1 levels). Their exact loss is checked
against the claim at several eps. The streaming banks are then tied to them by distribution:
the node noise recovered from a bank's outputs, divided by the structure's scale, must be
standard Laplace (one-sample Kolmogorov-Smirnov per node group).

Statistics: KS_TESTS tests, each at suite_alpha / KS_TESTS (Bonferroni): false alarm <= 1e-6
for the module. Power: a Laplace scale off by a factor r has KS distance
max_x |F(x) - F(x / r)| = 0.074 for r = 1.5 or 1/1.5 (0.12 for r = 2); the smallest group has
4000 x 6 = 24,000 values, whose critical value at 1e-6 / 12 is 0.020, so a group whose scale
is off by 1.5 or more is rejected with probability > 1 - 1e-9. The eps values (0.3, 2.5) are
chosen so that no wrong formula of the usual kind (eps^2 for eps, 2 eps for 2 / eps, a level
count off by one) coincides with the right one, which eps = 1 or two-level horizons allow.
"""

import numpy as np
import pytest
from scipy import stats

from algorithms.counters import (
    BinaryMechanism,
    HybridMechanism,
    LogarithmicMechanism,
    TreeAggregationBank,
    binary_levels,
    binary_structure,
    hybrid_structure,
    logarithmic_structure,
)

EPSILONS = (0.3, 2.5)
T = 40  # binary: 6 levels; hybrid: binary instances with k = 1..4 (2..5 levels)
RUNS = 4000
KS_TESTS = 12  # the number of KS assertions below (Bonferroni)


@pytest.mark.privacy_audit
@pytest.mark.parametrize("eps", (0.3, 1.0, 2.5, 7.0))
def test_exact_loss_of_the_structures_at_several_epsilons(eps):
    """Exact pure-DP loss of the whole output sequence (no sampling): binary = eps for every
    horizon (L levels, item 1 is in all L nodes), logarithmic = eps, hybrid =
    eps/2 (1 + k/(k+1)) with k = floor(log2 T) - 1, tree aggregation = eps at its l1
    sensitivity. Level counts: L = floor(log2 T) + 1 (3 levels from T = 4 on).

    Detects: a counter whose exact loss is not its claim at some epsilon (a level count off by one, a missing
    sensitivity, a wrong budget split; mutants counters-*).
    """
    for horizon, levels in ((1, 1), (3, 2), (4, 3), (7, 3), (8, 4), (40, 6), (64, 7), (100, 7)):
        assert binary_levels(horizon) == levels
    for t in (4, 5, 7, 8, 13, 16, 31, 40):
        assert binary_structure(t, eps).exact_epsilon() == pytest.approx(eps, rel=1e-12)
        assert binary_structure(t, eps, sensitivity=3.0).exact_epsilon(sensitivity=3.0) == pytest.approx(eps)
        assert logarithmic_structure(t, eps).exact_epsilon() == pytest.approx(eps, rel=1e-12)
        k = int(t).bit_length() - 2
        assert hybrid_structure(t, eps).exact_epsilon() == pytest.approx(eps / 2 * (1 + k / (k + 1)), rel=1e-12)
    # a horizon beyond the stream: L from the horizon, only the first outputs released
    assert binary_structure(10, eps, horizon=100).exact_epsilon() == pytest.approx(4 / 7 * eps, rel=1e-12)
    bank = TreeAggregationBank(1, 2, eps, horizon=40, l1_sensitivity=3.0, rng=0)
    assert bank.scale == pytest.approx(6 * 3.0 / eps, rel=1e-12)
    assert bank.structure(40).exact_epsilon(sensitivity=3.0) == pytest.approx(eps, rel=1e-12)


def _standardized_node_noise(outputs, structure, stream):
    """Node noise A^+ (y - noiseless) divided by the structure's scale, columns = used nodes."""
    used = structure.used_nodes()
    recover = np.linalg.pinv(structure.output_map[:, used])
    z = (outputs - structure.noiseless_outputs(stream)) @ recover.T
    return z / structure.scales[used], used


def _ks(values):
    return stats.kstest(np.ravel(values), stats.laplace.cdf).pvalue


@pytest.mark.parametrize("eps", EPSILONS)
def test_binary_bank_noise_follows_its_stated_law(eps, suite_alpha):
    """Binary mechanism, horizon = T (6 levels) and horizon 100 > T (7 levels): every p-sum's
    noise is Lap(L / eps). 2 x 2 KS tests (see the module docstring for size and power).

    Detects: a binary-mechanism scale off by 1.5x or more, or a level count off by one (mutants
    counters-binary-*).
    """
    x = np.random.default_rng(1).random(T)
    for horizon, seed in ((None, 11), (100, 12)):
        S = binary_structure(T, eps, horizon=horizon)
        y = BinaryMechanism(eps, horizon=horizon).sample(x, RUNS, seed)
        z, _ = _standardized_node_noise(y, S, x)
        assert _ks(z) > suite_alpha / KS_TESTS, (eps, horizon)


@pytest.mark.parametrize("eps", EPSILONS)
def test_logarithmic_bank_noise_follows_its_stated_law(eps, suite_alpha):
    """Logarithmic mechanism: each of the 6 releases adds Lap(1 / eps). 2 KS tests.

    Detects: a logarithmic-mechanism scale off by 1.5x or more (mutants counters-log-scale-*).
    """
    x = np.random.default_rng(2).random(T)
    S = logarithmic_structure(T, eps)
    z, _ = _standardized_node_noise(LogarithmicMechanism(eps).sample(x, RUNS, 21), S, x)
    assert _ks(z) > suite_alpha / KS_TESTS


@pytest.mark.parametrize("eps", EPSILONS)
def test_hybrid_bank_noise_follows_its_stated_law(eps, suite_alpha):
    """Hybrid mechanism: the logarithmic nodes carry Lap(2 / eps) (its eps/2 share) and the
    nodes of the binary instance after 2^k carry Lap(2 (k + 1) / eps), k = 1..4 here. Each
    part is tested on its own (2 x 2 KS tests), so an error confined to the logarithmic part
    (6 of 40 nodes) is not diluted by the binary part, and vice versa.

    Detects: an error confined to one part of the hybrid counter (mutants counters-hybrid-*).
    """
    x = np.random.default_rng(3).random(T)
    S = hybrid_structure(T, eps)
    z, used = _standardized_node_noise(HybridMechanism(eps).sample(x, RUNS, 31), S, x)
    log_nodes = np.isclose(S.scales[used], 2.0 / eps)
    n_log = int(T).bit_length()
    assert log_nodes[:n_log].all() and log_nodes.sum() == n_log  # the structure's own layout
    assert _ks(z[:, :n_log]) > suite_alpha / KS_TESTS
    assert _ks(z[:, n_log:]) > suite_alpha / KS_TESTS


@pytest.mark.parametrize("eps", EPSILONS)
def test_tree_aggregation_noise_follows_its_stated_law(eps, suite_alpha):
    """Tree-based aggregation (Chen et al. 2020, "(Locally) Differentially Private Combinatorial
    Semi-Bandits", Algorithm 3): vector streams of dimension 2 with l1 sensitivity 3; every
    coordinate of every node carries Lap(L * 3 / eps), L = 6. 2 KS tests.

    Detects: tree aggregation without its l1 sensitivity (mutant counters-tree-sensitivity-dropped) or a scale
    off by 1.5x.
    """
    d, sens = 2, 3.0
    X = np.random.default_rng(4).random((T, d))
    bank = TreeAggregationBank(RUNS, d, eps, horizon=T, l1_sensitivity=sens, rng=41)
    Y = np.stack([bank.add_vectors(np.broadcast_to(X[t], (RUNS, d))) for t in range(T)], axis=1)  # (R, T, d)
    S = binary_structure(T, eps, sensitivity=sens)
    z = np.concatenate([_standardized_node_noise(Y[:, :, c], S, X[:, c])[0] for c in range(d)], axis=1)
    assert _ks(z) > suite_alpha / KS_TESTS


def test_ks_power_against_a_1_5_scale_error(suite_alpha):
    """The stated power, computed: KS distance of Lap(1.5) and Lap(1/1.5) from Lap(1) is 0.074,
    and the critical value for the smallest group (24,000 values) at suite_alpha / KS_TESTS is
    below 0.021, so such an error is rejected whatever the sampling fluctuation (< 0.03 at
    1 - 1e-9 by the DKW inequality)."""
    grid = np.linspace(-20, 20, 400_001)
    for r in (1.5, 1 / 1.5):
        distance = np.abs(stats.laplace.cdf(grid) - stats.laplace.cdf(grid / r)).max()
        assert distance > 0.073
    n = RUNS * int(T).bit_length()
    critical = stats.kstwo.isf(suite_alpha / KS_TESTS, n)
    dkw = np.sqrt(np.log(2 / 1e-9) / (2 * n))
    assert critical < 0.021 and critical + dkw < 0.073
