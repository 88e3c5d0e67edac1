"""Continual-release counters (algorithms.counters): structure, exact privacy, audits, error bounds.

Exact privacy: every counter releases y = A (M x + Z) with independent Laplace Z; the
structures (built from the dyadic definitions of Chan, Shi, Song 2011) give the exact
loss of the whole output sequence when A is injective. The streaming banks are tied to the
structures by (i) a deterministic check of the data part (same seed, two streams: the output
difference is A M (x - x')) and (ii) a Kolmogorov-Smirnov test that the recovered node noise
A^-1 (y - prefix sums) / b is standard Laplace. Sampled audits complete the picture: dpverify.audit
of the raw output vectors on one pair, and dpverify.search_audit of the neighbouring relation
(streams differing in one item, every position class) on a post-processing that keeps the worst
pair's likelihood-ratio event (algorithms.counters.audits.NodeThresholds; post-processing cannot
increase the loss, so a violation found on it is a violation of the counter); counters with a
noise scale 1.5x or 2x too small are caught, and one 1.5x too large fails the power check.
"""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import dpverify
from algorithms.bandits.concentration import laplace_sum_tail_mixture
from algorithms.counters import (
    BinaryCounterBank,
    BinaryMechanism,
    HybridCounterBank,
    HybridMechanism,
    LogarithmicCounterBank,
    LogarithmicMechanism,
    TreeAggregationBank,
    binary_mechanism_outputs,
    binary_structure,
    hybrid_mechanism_outputs,
    hybrid_structure,
    logarithmic_mechanism_outputs,
    logarithmic_structure,
    tree_aggregation_outputs,
)
from algorithms.counters.audits import NodeThresholds, hybrid_binary_nodes, nodes_loss, position_event_loss
from algorithms.counters.broken import BrokenBinaryMechanism
from algorithms.errors import (
    AlgorithmInputError,
    InvalidHorizonError,
    InvalidPrivacyParameterError,
    InvalidRewardError,
)
from dpverify.neighbours import streams

EPS = 1.0


def _floor_pow2(t):
    return 1 << (int(t).bit_length() - 1)


# ---- structures ------------------------------------------------------------------------------


def test_structures_release_prefix_sums():
    rng = np.random.default_rng(1)
    for T in range(1, 71):
        x = rng.random(T)
        c = np.cumsum(x)
        assert np.allclose(binary_structure(T, EPS).noiseless_outputs(x), c)
        assert np.allclose(hybrid_structure(T, EPS).noiseless_outputs(x), c)
        log_expected = np.array([c[_floor_pow2(t) - 1] for t in range(1, T + 1)])
        assert np.allclose(logarithmic_structure(T, EPS).noiseless_outputs(x), log_expected)


@pytest.mark.privacy_audit
def test_exact_epsilon_of_the_output_sequences():
    """Detects: a counter whose whole output sequence loses more (or less) than its claimed epsilon (exact)."""
    for T in range(1, 65):
        b = binary_structure(T, EPS)
        assert b.is_injective() and b.exact_epsilon() == pytest.approx(EPS, rel=1e-12)
        assert b.worst_position() == 0  # the first item is in all L nodes
        assert logarithmic_structure(T, EPS).exact_epsilon() == pytest.approx(EPS, rel=1e-12)
        # hybrid with horizon-2^k binary instances: eps/2 (1 + k/(k+1)), k = floor(log2 T) - 1
        k = max(int(T).bit_length() - 2, 0)
        expected = EPS / 2 * (1 + k / (k + 1)) if T >= 2 else EPS / 2
        assert hybrid_structure(T, EPS).exact_epsilon() == pytest.approx(expected, rel=1e-12)
        assert hybrid_structure(T, EPS).exact_epsilon() <= EPS
    # a horizon longer than the stream: only the first T outputs are released
    assert binary_structure(10, EPS, horizon=100).exact_epsilon() == pytest.approx(4 / 7 * EPS)
    # tree aggregation (Chen et al. 2020): l1 change <= s of one vector, scale L s / eps per coordinate
    tree = TreeAggregationBank(1, 3, EPS, horizon=16, l1_sensitivity=4.0, rng=0)
    assert tree.structure(16).exact_epsilon(sensitivity=4.0) == pytest.approx(EPS, rel=1e-12)


# ---- banks versus structures ----------------------------------------------------------------

#: kind -> (mechanism factory, structure factory), both at ``eps`` (default EPS).
_MECHANISMS = {
    "binary": (lambda eps=EPS: BinaryMechanism(eps), lambda T, eps=EPS: binary_structure(T, eps)),
    "logarithmic": (lambda eps=EPS: LogarithmicMechanism(eps), lambda T, eps=EPS: logarithmic_structure(T, eps)),
    "hybrid": (lambda eps=EPS: HybridMechanism(eps), lambda T, eps=EPS: hybrid_structure(T, eps)),
}


@given(st.sampled_from(sorted(_MECHANISMS)), st.integers(1, 40), st.data())
def test_bank_data_part_matches_structure(kind, T, data):
    make, structure = _MECHANISMS[kind]
    unit = st.floats(0, 1, allow_nan=False)
    x = np.array(data.draw(st.lists(unit, min_size=T, max_size=T)))
    xp = np.array(data.draw(st.lists(unit, min_size=T, max_size=T)))
    seed = data.draw(st.integers(0, 2**32 - 1))
    y = make().sample(x, 3, seed)
    yp = make().sample(xp, 3, seed)  # same seed: identical noise (draws do not depend on data)
    S = structure(T)
    assert np.allclose(y - yp, S.noiseless_outputs(x) - S.noiseless_outputs(xp), atol=1e-9)


@given(st.integers(1, 20), st.integers(1, 4), st.integers(0, 2**32 - 1), st.data())
def test_tree_aggregation_data_part(T, d, seed, data):
    X = np.array(data.draw(st.lists(st.lists(st.floats(0, 1), min_size=d, max_size=d), min_size=T, max_size=T)))
    Y = tree_aggregation_outputs(X, EPS, 2.0, rng=seed)
    Y0 = tree_aggregation_outputs(np.zeros_like(X), EPS, 2.0, rng=seed)
    assert np.allclose(Y - Y0, np.cumsum(X, axis=0), atol=1e-9)


@pytest.mark.parametrize("kind", sorted(_MECHANISMS))
def test_bank_noise_is_the_structure_laplace(kind, suite_alpha):
    """KS test of the recovered, standardized node noise against Lap(0, 1).

    False alarm <= suite_alpha. 3000 runs x 40 nodes = 1.2e5 values; the same test on the
    half-scale binary counter (below) rejects with p < 1e-100, and a single level of 6 with a
    doubled scale shifts the KS statistic by ~0.03 (critical value ~0.007).
    """
    make, structure = _MECHANISMS[kind]
    T = 40
    x = np.random.default_rng(7).random(T)
    S = structure(T)
    used = S.used_nodes()
    y = make().sample(x, 3000, 11)
    z = (y - S.noiseless_outputs(x)) @ np.linalg.pinv(S.output_map[:, used]).T / S.scales[used]
    assert stats.kstest(z.ravel(), stats.laplace.cdf).pvalue > suite_alpha


def test_half_scale_counter_noise_is_rejected(suite_alpha):
    """Detects: nothing in the counters: it shows the KS test rejects the half-scale broken counter (power)."""
    S = binary_structure(40, EPS)
    x = np.random.default_rng(7).random(40)
    y = BrokenBinaryMechanism(EPS, scale_factor=0.5).sample(x, 3000, 11)
    z = np.linalg.solve(S.output_map, (y - S.noiseless_outputs(x)).T).T / S.scales
    assert stats.kstest(z.ravel(), stats.laplace.cdf).pvalue < suite_alpha


def test_single_stream_helpers_match_banks():
    x = np.random.default_rng(3).random(13)
    assert np.allclose(binary_mechanism_outputs(x, EPS, 5), BinaryMechanism(EPS).sample(x, 1, 5)[0])
    assert np.allclose(logarithmic_mechanism_outputs(x, EPS, 5), LogarithmicMechanism(EPS).sample(x, 1, 5)[0])
    assert np.allclose(hybrid_mechanism_outputs(x, EPS, 5), HybridMechanism(EPS).sample(x, 1, 5)[0])


# ---- audits -----------------------------------------------------------------------------------


def _neighbours(structure, T, seed):
    x = np.random.default_rng(seed).uniform(0.2, 0.8, T)
    i = structure.worst_position()
    x[i] = 1.0
    xp = x.copy()
    xp[i] = 0.0
    return x, xp, i


AUDIT_T = 8


# Searched audits: the neighbouring relation (streams of AUDIT_T items over {0, 1} differing in one
# item, every position class of dpverify.neighbours.streams on three bases: 18 pairs) is searched by
# dpverify.search_audit on the counter post-processed by NodeThresholds (its output is a 0/1 vector,
# so an audit's coordinate events include the likelihood-ratio event of the worst pair). AUDIT_T = 8
# gives the binary counter four tree levels (scale 4/eps) and the hybrid counter a logarithmic part
# of four nodes plus binary instances of up to three levels.
#: Samples per input of each counter's search (its whole budget: screening, selection and certification).
SEARCH_SAMPLES = {"binary": 400_000, "logarithmic": 120_000, "hybrid": 400_000}
SEARCH_SEEDS = {"binary": 111, "logarithmic": 112, "hybrid": 113}


def _search_counter(mechanism, structure, claim, n_samples, seed, alpha, thorough=False, nodes=None):
    """Search audit over streams(AUDIT_T): its 18 fixed pairs; under the thorough profile also random
    streams (64 candidates) and twice the samples (measured: bounds 0.92, 0.94, 0.77 of 1, 1, 0.83)."""
    return dpverify.search_audit(
        NodeThresholds(mechanism, structure, nodes=nodes),
        streams(AUDIT_T),
        epsilon=claim,
        n_samples=2 * n_samples if thorough else n_samples,
        n_candidates=64 if thorough else len(streams(AUDIT_T).fixed_pairs()),
        alpha=alpha,
        seed=seed,
    )


#: Power floor of every searched counter audit: this share of the exact loss (issue 39: at least 0.8).
POWER_SHARE = 0.8


@pytest.mark.privacy_audit
@pytest.mark.parametrize("kind", sorted(_MECHANISMS))
def test_audit_counters_at_claimed_epsilon(kind, suite_alpha, thorough):
    """dpverify.audit of the raw outputs on one pair, and a search audit of the relation at the exact loss.

    The searched audit is held to the counter's *exact* loss (the tightest true claim: eps for the
    binary and logarithmic counters, (eps/2)(1 + 2/3) for the hybrid at T = 8), so that a noise scale
    1.5x too small (loss 1.5x the exact one) is a violation, and its certified lower bound must exceed
    ``POWER_SHARE`` = 0.8 of the exact loss, so that a scale 1.5x too large (loss 0.67x) fails the power
    check. False alarm: each "no violation" <= suite_alpha (search_audit's guarantee, however many pairs
    screened); the power check on correct code fails only if screening misses the worst pair or the
    Clopper-Pearson bound falls > 20% below the truth: measured at these seeds, with ``n_samples`` the whole
    search budget, 0.86 (binary), 0.93 (logarithmic), 0.92 (hybrid) of the exact loss.
    The second parameter value, eps = 2: ``test_searched_counter_audit_at_a_second_epsilon``.
    Detects: binary, logarithmic or hybrid noise off by 1.5x in either direction, a level miscount.
    """
    make, structure = _MECHANISMS[kind]
    S = structure(AUDIT_T)
    x, xp, i = _neighbours(S, AUDIT_T, 5)
    raw = dpverify.audit(make(), x, xp, epsilon=EPS, n_samples=20_000, alpha=suite_alpha, seed=101)
    assert not raw.violation
    exact = S.exact_epsilon()
    res = _search_counter(make(), S, exact, SEARCH_SAMPLES[kind], SEARCH_SEEDS[kind], suite_alpha, thorough)
    print(
        f"{kind}: exact loss {exact:.4f}; raw bound {raw.epsilon_lower_bound:.3f}; searched bound "
        f"{res.epsilon_lower_bound:.3f} on {res.x} ~ {res.x_prime} (claim {EPS})"
    )
    assert not res.violation
    assert res.epsilon_lower_bound > POWER_SHARE * exact


@pytest.mark.privacy_audit
@pytest.mark.parametrize("kind", sorted(_MECHANISMS))
def test_searched_counter_audit_at_a_second_epsilon(kind, suite_alpha, thorough):
    """The searched audit of ``test_audit_counters_at_claimed_epsilon`` at eps = 2 (exact loss 2, 2 and 1.67),
    with half its samples, so that each counter is held to its exact loss at two parameter values.

    False alarm: "no violation" <= suite_alpha (search_audit's guarantee). Power check: certified > 0.8 of the
    exact loss (measured at these seeds 0.94 binary, 0.91 logarithmic, 0.91 hybrid).
    Detects: a noise scale that is right at eps = 1 and wrong elsewhere (e.g. not inversely proportional to
    eps), 1.5x off at eps = 2 either way.
    """
    eps = 2 * EPS
    make, structure = _MECHANISMS[kind]
    S = structure(AUDIT_T, eps)
    exact = S.exact_epsilon()
    n = SEARCH_SAMPLES[kind] // 2
    res = _search_counter(make(eps), S, exact, n, SEARCH_SEEDS[kind], suite_alpha, thorough)
    print(f"{kind} at eps {eps}: exact loss {exact:.4f}; searched bound {res.epsilon_lower_bound:.3f}")
    assert not res.violation
    assert res.epsilon_lower_bound > POWER_SHARE * exact


HYBRID_BINARY_SAMPLES = 400_000


@pytest.mark.privacy_audit
@pytest.mark.parametrize(
    "eps, n_samples", [(EPS, HYBRID_BINARY_SAMPLES), (2 * EPS, HYBRID_BINARY_SAMPLES // 2)], ids=["eps1", "eps2"]
)
def test_searched_audit_of_the_hybrid_counters_binary_part(eps, n_samples, suite_alpha, thorough):
    """Search audit of the hybrid counter's binary nodes alone, held to their exact loss, at eps = 1 and 2.

    ``NodeThresholds`` over the binary part's nodes (:func:`hybrid_binary_nodes`) is a
    post-processing whose exact loss (:func:`nodes_loss`: eps/3 at T = 8, item 5, first of the
    block after 4) is set by the binary part's noise scale alone, so a binary scale 1.5x too large
    gives 2/3 of it (below the power floor 0.8) and one 1.5x too small gives 1.5x (a
    violation). On the whole output the same errors move the loss only from 0.83 to 0.72 or 1.0,
    too little for the whole-output audit's floor. False alarm: "no violation" <= suite_alpha
    (search_audit's guarantee); the power floor fails on correct code only if the search misses
    item 5 or the bound falls > 20% below eps/3 (measured 0.85 of it at eps = 1 with 200,000 samples,
    0.86 at eps = 2 with 100,000). Power: the 1.5x too-large mutant certifies at most its true
    2/3 < 0.8 of the reference with probability >= 1 - suite_alpha (measured 0.18 of 1/3 at eps = 1); the 1.5x
    too-small one certified 0.45 > 1/3 (a violation).
    Detects: the hybrid counter's binary-part noise scale off by 1.5x in either direction.
    """
    S = hybrid_structure(AUDIT_T, eps)
    nodes = hybrid_binary_nodes(S)
    exact = nodes_loss(S, nodes)
    assert exact == pytest.approx(eps / 3)
    res = _search_counter(HybridMechanism(eps), S, exact, n_samples, 114, suite_alpha, thorough, nodes=nodes)
    print(f"hybrid binary part: exact {exact:.4f}, searched bound {res.epsilon_lower_bound:.3f} on {res.x_prime}")
    assert not res.violation
    assert res.epsilon_lower_bound > POWER_SHARE * exact


@pytest.mark.privacy_audit
@pytest.mark.parametrize("factor", [0.5, 1 / 1.5])
def test_audit_catches_under_noised_counter(factor, suite_alpha):
    """Binary counter with its noise scale times ``factor`` (exact loss eps / factor: 2 or 1.5).

    The searched audit at the claim eps finds position 0 of the all-zeros stream and certifies a
    violation (measured bound 1.35 at factor 2/3; power ~1 at suite_alpha). False alarm: none by
    chance (the assertion is that a violation is found)."""
    S = binary_structure(AUDIT_T, EPS)
    broken = BrokenBinaryMechanism(EPS, scale_factor=factor)
    res = _search_counter(broken, S, EPS, SEARCH_SAMPLES["binary"], 103, suite_alpha)
    print(f"binary x{factor:.3g}: certified lower bound {res.epsilon_lower_bound:.3f} (exact {1 / factor:.3f})")
    assert res.violation


# ---- error bounds ----------------------------------------------------------------------------


def test_error_bounds_hold_exactly_for_single_counts():
    """The bound is Lemma 1 applied to each Laplace part; check each part's exact tail.

    Detects: an error bound below the exact Laplace tail (a wrong Lemma 1 coefficient in the counters' bound).
    """
    delta = 0.05
    bank = BinaryCounterBank(1, EPS, horizon=1024)
    hyb = HybridCounterBank(1, EPS)
    log = LogarithmicCounterBank(1, EPS)
    for t in range(1, 1025):
        n_terms = bin(t).count("1")
        p = 2 * laplace_sum_tail_mixture(n_terms, bank.scale, float(bank.error_bound_at(t, delta)))
        assert p <= delta
        k = int(t).bit_length() - 1
        s = t - (1 << k)
        log_bias = t - (1 << k)
        p_log = 2 * laplace_sum_tail_mixture(k + 1, 1 / EPS, float(log.error_bound_at(t, delta)) - log_bias)
        assert p_log <= delta
        # hybrid: the union bound splits delta over the logarithmic and binary parts
        from algorithms.counters import laplace_sum_deviation_bound as lemma

        d_log = delta if s == 0 else delta / 2
        b_log = float(lemma(k + 1, 2 / EPS, d_log))
        assert 2 * laplace_sum_tail_mixture(k + 1, 2 / EPS, b_log) <= d_log
        if s:
            b_bin = float(lemma(bin(s).count("1"), 2 * (k + 1) / EPS, delta / 2))
            assert 2 * laplace_sum_tail_mixture(bin(s).count("1"), 2 * (k + 1) / EPS, b_bin) <= delta / 2
            assert float(hyb.error_bound_at(t, delta)) == pytest.approx(b_log + b_bin)


@pytest.mark.parametrize("kind", ["binary", "logarithmic", "hybrid"])
def test_error_bounds_hold_on_simulated_banks(kind, suite_alpha):
    """Banks of 20,000 counters on random streams; at 8 checkpoints the failure frequency of
    the bound (delta = 0.05) is tested against 0.05 (one-sided exact binomial, Holm over the
    checkpoints at family level suite_alpha). Power: a true failure rate >= 0.065 at a
    checkpoint is rejected with probability > 0.99."""
    delta = 0.05
    R, T = 20_000, 300
    rng = np.random.default_rng(2024)
    bank = {
        "binary": lambda: BinaryCounterBank(R, EPS, horizon=T, rng=rng),
        "logarithmic": lambda: LogarithmicCounterBank(R, EPS, rng=rng),
        "hybrid": lambda: HybridCounterBank(R, EPS, rng=rng),
    }[kind]()
    checkpoints = {1, 2, 3, 7, 64, 100, 255, 300}
    pvalues = []
    for t in range(1, T + 1):
        out = bank.add(None, rng.random(R))
        if t in checkpoints:
            failures = int((np.abs(out - bank.true_sums()) > bank.error_bound(delta)).sum())
            pvalues.append(stats.binomtest(failures, R, delta, alternative="greater").pvalue)
    m = len(pvalues)
    holm = [p * (m - j) for j, p in enumerate(sorted(pvalues))]
    assert min(holm) > suite_alpha


# ---- bad input --------------------------------------------------------------------------------


def test_bad_input_raises_named_errors():
    with pytest.raises(InvalidPrivacyParameterError):
        HybridCounterBank(3, 0.0)
    with pytest.raises(InvalidHorizonError):
        BinaryCounterBank(3, 1.0, horizon=0)
    bank = BinaryCounterBank(2, 1.0, horizon=1, rng=0)
    with pytest.raises(InvalidRewardError):
        bank.add([0], [1.5])
    bank.add([0], [0.5])
    with pytest.raises(InvalidHorizonError):
        bank.add([0], [0.5])
    assert bank.counts.tolist() == [1, 0]
    with pytest.raises(AlgorithmInputError, match="same counter twice"):
        HybridCounterBank(3, 1.0).add([1, 1], [0.1, 0.2])
    with pytest.raises(InvalidHorizonError):
        hybrid_mechanism_outputs([], 1.0)


@pytest.mark.parametrize("bad", ["2", True, 0, -1.0, np.nan, np.inf, None])
def test_epsilon_and_horizon_use_the_shared_checks(bad):
    # one set of checks (algorithms._validation): bools and strings are never numbers
    for make in (
        lambda: HybridCounterBank(3, bad),
        lambda: BinaryCounterBank(3, bad, horizon=4),
        lambda: HybridMechanism(bad),
        lambda: BinaryCounterBank(3, 1.0, horizon=4, sensitivity=bad),
    ):
        with pytest.raises(InvalidPrivacyParameterError, match="must be a finite real number > 0"):
            make()
    if bad is not None:
        with pytest.raises(InvalidHorizonError, match="must be an integer >= 1"):
            BinaryCounterBank(3, 1.0, horizon=bad)


def test_horizon_zero_is_not_the_stream_length():
    # regression: ``horizon or len(stream)`` read horizon=0 as "no horizon given"
    with pytest.raises(InvalidHorizonError):
        BinaryMechanism(1.0, horizon=0)
    with pytest.raises(InvalidHorizonError):
        binary_mechanism_outputs([0.5, 0.5], 1.0, rng=0, horizon=0)
    with pytest.raises(InvalidHorizonError):
        tree_aggregation_outputs(np.zeros((2, 2)), 1.0, 2.0, rng=0, horizon=0)


def test_items_above_one_are_rejected_and_there_is_no_value_range():
    # the claim (sensitivity 1) assumes items in [0, 1]; the value_range knob that widened it is gone
    with pytest.raises(TypeError):
        BinaryCounterBank(2, 1.0, horizon=4, value_range=(0.0, 2.0))
    with pytest.raises(InvalidRewardError):
        HybridCounterBank(2, 1.0).add([0], [-0.1])


def test_bank_indexing_forms_agree():
    a = HybridCounterBank((4, 5), EPS, rng=9)
    b = HybridCounterBank((4, 5), EPS, rng=9)
    rows, cols = np.array([0, 2, 3]), np.array([1, 4, 0])
    mask = np.zeros((4, 5), dtype=bool)
    mask[rows, cols] = True
    flat = np.flatnonzero(mask)
    for _ in range(5):
        assert np.allclose(a.add((rows, cols), 0.5), b.add(mask, 0.5)[np.argsort(np.argsort(flat))])
    assert a.counts[2, 4] == 5 and a.counts.sum() == 15


def _hybrid_bound_written_out(t: int, epsilon: float, delta: float) -> float:
    """Tao et al. 2025, Lemma 1 applied to the hybrid counter's noise at count t, in plain Python.

    t = 2^k + j: the logarithmic part sums k + 1 nodes Lap(b1), b1 = 2/eps; for j > 0 the binary
    part adds popcount(j) nodes Lap(b2), b2 = 2 (k + 1)/eps, and delta is split in two halves.
    Lemma 1 for a sum of n Lap(b): max{2 b sqrt(2 n L), 4 b L}, L = ln(2/delta).
    """

    def lemma1_sum(n: int, b: float, L: float) -> float:
        return max(2 * b * math.sqrt(2 * n * L), 4 * b * L)

    k = t.bit_length() - 1
    j = t - (1 << k)
    b1, b2 = 2 / epsilon, 2 * (k + 1) / epsilon
    if j == 0:
        return lemma1_sum(k + 1, b1, math.log(2 / delta))
    half = math.log(4 / delta)
    return lemma1_sum(k + 1, b1, half) + lemma1_sum(bin(j).count("1"), b2, half)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
@pytest.mark.parametrize("delta", [0.5, 0.05, 1e-6])
def test_hybrid_error_bound_is_lemma1_written_out(epsilon, delta):
    """The hybrid bank's bound (shared with DP-OMM's index) against the formula written out here,
    for t = 1..1024: at delta = 0.5 the sub-Gaussian term dominates for large counts, at 1e-6 the
    sub-exponential one, so a wrong coefficient in either term fails."""
    t = np.arange(1, 1025)
    got = HybridCounterBank(1, epsilon).error_bound_at(t, delta)
    expected = [_hybrid_bound_written_out(int(x), epsilon, delta) for x in t]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize("epsilon", [0.25, 2.0])
def test_dp_omm_noise_bound_is_lemma1_written_out_at_delta_t_to_the_minus_4(epsilon):
    from algorithms.bandits.indices.omm import dp_omm_noise_bound

    for t in (2, 17, 300, 5000):
        for count in (1, 2, 3, 7, 8, 100, t):
            expected = _hybrid_bound_written_out(count, epsilon, float(t) ** -4)
            assert dp_omm_noise_bound(count, epsilon, float(t)) == pytest.approx(expected, rel=1e-12)


@given(st.sampled_from(sorted(_MECHANISMS)), st.integers(1, 20), st.data())
def test_node_thresholds_report_the_nodes_above_the_threshold(kind, T, data):
    """NodeThresholds without noise (eps = 1e12): bit i is 1 exactly when every node containing i
    has sum >= 1; the event loss of the worst position is the structure's exact loss."""
    make_eps = {"binary": BinaryMechanism, "logarithmic": LogarithmicMechanism, "hybrid": HybridMechanism}[kind]
    structure = {"binary": binary_structure, "logarithmic": logarithmic_structure, "hybrid": hybrid_structure}[kind]
    x = np.array(data.draw(st.lists(st.sampled_from([0.0, 1.0]), min_size=T, max_size=T)))
    S = structure(T, 1e12)
    bits = NodeThresholds(make_eps(1e12), S).sample(x, 2, rng=3)
    used = S.used_nodes()
    sums = S.incidence[used] @ x
    expected = np.array([all(sums[k] >= 1 for k in np.flatnonzero(S.incidence[used, i])) for i in range(T)])
    assert np.array_equal(bits, np.vstack([expected, expected]).astype(np.int64))
    kept = used[::2]  # a subset of the nodes: only those decide the bits
    bits = NodeThresholds(make_eps(1e12), S, nodes=kept).sample(x, 1, rng=3)[0]
    sums = S.incidence[kept] @ x
    assert np.array_equal(bits, [all(sums[S.incidence[kept, i] > 0] >= 1) for i in range(T)])
    S1 = structure(T, EPS)
    assert position_event_loss(S1, S1.worst_position()) == pytest.approx(S1.exact_epsilon(), rel=1e-12)
    assert nodes_loss(S1) == pytest.approx(S1.exact_epsilon(), rel=1e-12)
