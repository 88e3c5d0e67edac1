"""Mutation testing of the privacy-critical modules: does the test suite catch realistic bugs?

Each *mutant* is one realistic bug (a noise scale times 2, 1/2 or 1.5, a forgotten budget split,
an off-by-one level count, a wrong sign, dropped noise, a wrong epsilon in a local randomizer, a
wrong Clopper-Pearson tail, ...), written as an exact text substitution in one source file. The
script copies the working tree to a scratch directory (so that nobody else's test run ever sees
a mutated file), applies the mutants one at a time there, runs the targeted tests of the mutated
module with ``python -m pytest <files> -x -q -p no:cacheprovider -n 0``, restores the file, and
prints a table of killed / survived mutants and the kill rate.

A mutant is *killed* when the targeted tests fail (exit status 1), or when they cannot even be
collected (status 2-4: reported as "error", counted as killed). It *survives* when they pass.
Before the mutants, the unmutated copy is tested once; if that fails the run stops, since every
mutant would then look killed. Before that, every chosen mutant is checked against the copy
(``check_mutants``): its file exists, its original text occurs exactly once there (or at its
``occurrence``), every test file it names exists, ids are unique and no two mutants make the same
substitution; any problem stops the run, since a mutant that silently did not apply, or ran a
shrunken test selection, would count as a false "survived" or "killed". ``--check`` does only
this, on the working tree, for all mutants (seconds; no tests run).

The ``claims`` group has one mutant per claim test of the papers (a theorem's regret growth, a
lemma's privacy claim, a refutation's counterexample, an audit's power): each names the claim test
alone (a file or a pytest node id ``path::test``) and breaks the implementation, or the claim formula
the test compares with, in the way that test's docstring says it detects (its "Detects:" line).
Killing it shows that that test, not the suite at large, can fail. A mutant whose claim test runs
only under the thorough profile carries ``profile="thorough"``: its tests (and their baseline) run
with ``DPVERIFY_PROFILE=thorough``, and the dataset tests find the maps through
``DPVERIFY_ROCKETFUEL`` (set to the repository's ``../shared/datasets/rocketfuel`` unless given), since
a skipped test would count as a false "survived".

Code shared by two groups (``algorithms/counters/compiled.py``: the hybrid counter, the binary
step and Lemma 1, used by the counter banks and the bandit kernel) is mutated once, under one id,
with the tests of both; ``also`` names the other group so that ``--group`` of either selects it.

Usage::

    python properties/mutation.py                 # all mutants, the working tree
    python properties/mutation.py --list          # ids and descriptions only
    python properties/mutation.py --check         # every mutant applies to the tree? (no tests)
    python properties/mutation.py --only counters-binary-scale-x2,bounds-cp-lower-one-sided-alpha
    python properties/mutation.py --group counters --group mst
    python properties/mutation.py --group claims      # one mutant per claim test of the papers
    python properties/mutation.py --source-rev HEAD~5   # the tests of an older commit

``--source-rev REV`` copies the tree of a git revision instead of the working tree (to measure
the kill rate of an older test suite against the same mutants). Numba's cache lives in the
scratch directory (``NUMBA_CACHE_DIR``), so the repository's own cache is not touched, and every
test run (the baseline and each mutant) starts from an empty one: numba invalidates a cached
function when *its own* file changes, not when a compiled function it calls from another file
does (``algorithms.counters.compiled`` is called from the banks and the bandit indices), so a
shared cache would run the unmutated code in the callers (a false "survived") or, after the file
is restored, the mutant's (a false result for the next mutant). Each run compiles afresh.

No dependency beyond the project's own (pytest, numba, ...); ``mutmut`` is not needed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# ---- targeted test sets (sharp calibration tests first: with -x a killed mutant stops early) --

T_COUNTERS = ["properties/counters/test_calibration.py", "properties/counters/test_counters.py"]
T_MST = [
    "properties/mst/test_calibration.py",
    "properties/mst/test_accounting_and_parameters.py",
    "properties/mst/test_privacy.py",
    "properties/mst/test_exact_distributions.py",
    "properties/mst/test_matroid_extension.py",
    "properties/mst/test_utility.py",
]
T_BANDITS = [
    "properties/bandits/test_calibration.py",
    "properties/bandits/test_privacy_audits.py",
    "properties/bandits/test_simulator.py",
]
T_TREES = [
    "properties/random_trees/test_bits.py",
    "properties/random_trees/test_privacy.py",
]
# code shared by the counters and the bandit kernel (algorithms/counters/compiled.py)
T_SHARED_C = T_COUNTERS + T_BANDITS
T_SHARED_B = T_BANDITS + T_COUNTERS
# Lemma 1's coefficients: the counter and DP-OMM bounds built on them are compared with each other,
# one shared implementation since the split, so that only the tests of the lemma itself (exact
# tails, its stated looseness, the written-out formula) can tell a wrong coefficient
T_LEMMA1 = T_SHARED_B + ["properties/bandits/test_concentration.py"]
RB = "properties/bandits/test_regret_bounds.py"
RG = "properties/bandits/test_regret_growth.py"
PA = "properties/bandits/test_privacy_audits.py"
FC = "properties/bandits/test_figure_claims.py"
RC = "properties/bandits/test_regret_constants.py::test_regret_constant_matches_its_calibration_at_two_budgets"
T_AUDITOR = [
    "properties/auditor/support/test_bounds.py",
    "properties/auditor/audits/test_distributions.py",
    "properties/auditor/audits/test_audit.py",
]


@dataclass(frozen=True)
class Mutant:
    id: str
    path: str
    old: str
    new: str
    tests: list = field(default_factory=list)
    occurrence: int | None = None  # None: ``old`` must occur exactly once; else 0-based occurrence
    note: str = ""
    also: tuple = ()  # further groups (shared code: ``--group`` of either selects the mutant)
    profile: str = ""  # DPVERIFY_PROFILE for its tests ("thorough" for claim tests that run only there)

    @property
    def group(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def groups(self) -> tuple:
        return (self.group, *self.also)


BANKS = "algorithms/counters/banks.py"
STRUCT = "algorithms/counters/structure.py"
EXPO = "algorithms/mst/exponential.py"
PERT = "algorithms/mst/perturbation.py"
KRUS = "algorithms/mst/kruskal.py"
PAMST = "algorithms/mst/pamst.py"
MEXT = "algorithms/mst/matroid_extension.py"
PRIV = "algorithms/mst/privatization.py"
ACC = "algorithms/mst/accounting.py"
POL = "algorithms/bandits/policies.py"
KER = "algorithms/bandits/_kernels.py"
OMM = "algorithms/bandits/indices/omm.py"
CUCB = "algorithms/bandits/indices/cucb.py"
DPMAT = "algorithms/bandits/indices/dp_mat.py"
COMP = "algorithms/counters/compiled.py"
AUD = "algorithms/bandits/audits.py"
BITS = "algorithms/random_trees/bits.py"
BOUNDS = "dpverify/support/bounds.py"
DIST = "dpverify/audits/distributions.py"

# each Clopper-Pearson bound has a scalar and an array path; both read these two lines (occurrence 0: lower, 1: upper)
CP_HALF = "    half = np.asarray(alpha, dtype=float) / 2\n"
CP_COUNT = "    count = np.asarray(count, dtype=float)\n"
HYB_LOG = "state[c, SINCE] + x + z * (2.0 / epsilon)"
HYB_BIN = "alpha_hat[c, i] = acc + z * (2.0 * (k + 1) / epsilon)"
LEMMA1_SUM = "return 2.0 * scale * np.sqrt(2.0 * n), 4.0 * scale"
LEMMA1_MEAN = "return 2.0 * scale * np.sqrt(2.0 * log_term), 4.0 * scale * log_term"
LDP_REPORT = "xs[q] + rng_pol.laplace(0.0, 1.0 / eps_arm)"
LDP2_REPORT = "sums[e] += xs[least] + rng_pol.laplace(0.0, 1.0 / eps_arm)"


def _ldp_report_mutants(prefix: str, path: str, note: str) -> list[Mutant]:
    """The local report ``x + Lap(1/eps_arm)`` at one site: noise x2, x0.5 and dropped."""
    return [
        Mutant(f"{prefix}-noise-x2", path, LDP_REPORT, LDP_REPORT.replace("1.0 /", "2.0 /"), T_BANDITS, note=note),
        Mutant(f"{prefix}-noise-x0.5", path, LDP_REPORT, LDP_REPORT.replace("1.0 /", "0.5 /"), T_BANDITS, note=note),
        Mutant(f"{prefix}-noise-dropped", path, LDP_REPORT, "xs[q]", T_BANDITS, note=note),
    ]


MUTANTS = [
    # ---- counters ------------------------------------------------------------------------
    Mutant(
        "counters-binary-scale-x2",
        BANKS,
        "self.scale = self.levels * self.sensitivity / self.epsilon",
        "self.scale = 2 * self.levels * self.sensitivity / self.epsilon",
        T_COUNTERS,
    ),
    Mutant(
        "counters-binary-scale-x0.5",
        BANKS,
        "self.scale = self.levels * self.sensitivity / self.epsilon",
        "self.scale = 0.5 * self.levels * self.sensitivity / self.epsilon",
        T_COUNTERS,
    ),
    Mutant(
        "counters-binary-levels-minus1",
        BANKS,
        "self.levels = binary_levels(self.horizon)",
        "self.levels = max(binary_levels(self.horizon) - 1, 1)",
        T_COUNTERS,
    ),
    Mutant(
        "counters-binary-levels-plus1",
        BANKS,
        "self.levels = binary_levels(self.horizon)",
        "self.levels = binary_levels(self.horizon) + 1",
        T_COUNTERS,
    ),
    Mutant(
        "counters-binary-eps-squared",
        BANKS,
        "self.scale = self.levels * self.sensitivity / self.epsilon",
        "self.scale = self.levels * self.sensitivity / self.epsilon ** 2",
        T_COUNTERS,
        note="coincides with the right scale at eps = 1",
    ),
    Mutant(
        "counters-binary-no-sensitivity",
        BANKS,
        "self.scale = self.levels * self.sensitivity / self.epsilon",
        "self.scale = self.levels / self.epsilon",
        T_COUNTERS,
        note="tree aggregation loses its l1 sensitivity",
    ),
    Mutant(
        "counters-levels-log2-floor",
        STRUCT,
        "return int(horizon).bit_length()",
        "return max(int(horizon).bit_length() - 1, 1)",
        T_COUNTERS,
    ),
    # hybrid counter, binary step and Lemma 1 bound: compiled once (counters/compiled.py) for the
    # counter banks and DP-OMM / CUCB-DP in the bandit kernel, so these run both test sets
    Mutant(
        "counters-hybrid-log-scale-x0.5",
        COMP,
        HYB_LOG,
        "state[c, SINCE] + x + z * (1.0 / epsilon)",
        T_SHARED_C,
        also=("bandits",),
        note="logarithmic part without the eps/2 split (was also bandits-hybrid-log-noise-x0.5: one shared line now)",
    ),
    Mutant(
        "counters-hybrid-log-scale-x1.5",
        COMP,
        HYB_LOG,
        "state[c, SINCE] + x + z * (3.0 / epsilon)",
        T_SHARED_C,
        also=("bandits",),
    ),
    Mutant(
        "counters-hybrid-bin-levels-minus1",
        COMP,
        HYB_BIN,
        "alpha_hat[c, i] = acc + z * (2.0 * max(k, 1) / epsilon)",
        T_SHARED_C,
        also=("bandits",),
        note="was also bandits-hybrid-bin-levels-minus1: one shared line now",
    ),
    Mutant(
        "counters-hybrid-bin-levels-plus1",
        COMP,
        HYB_BIN,
        "alpha_hat[c, i] = acc + z * (2.0 * (k + 2) / epsilon)",
        T_SHARED_C,
        also=("bandits",),
    ),
    Mutant(
        "counters-hybrid-bin-no-split",
        COMP,
        HYB_BIN,
        "alpha_hat[c, i] = acc + z * ((k + 1) / epsilon)",
        T_SHARED_C,
        also=("bandits",),
        note="was also bandits-hybrid-bin-no-split: one shared line now",
    ),
    Mutant(
        "counters-hybrid-eps-times",
        COMP,
        HYB_LOG,
        "state[c, SINCE] + x + z * (2.0 * epsilon)",
        T_SHARED_C,
        also=("bandits",),
        note="coincides at eps = 1",
    ),
    Mutant(
        "counters-log-scale-x2",
        BANKS,
        "noise = self.rng.laplace(0.0, 1.0 / self.epsilon, size=flat.size)",
        "noise = self.rng.laplace(0.0, 2.0 / self.epsilon, size=flat.size)",
        T_COUNTERS,
    ),
    Mutant(
        "counters-log-scale-x0.5",
        BANKS,
        "noise = self.rng.laplace(0.0, 1.0 / self.epsilon, size=flat.size)",
        "noise = self.rng.laplace(0.0, 0.5 / self.epsilon, size=flat.size)",
        T_COUNTERS,
    ),
    Mutant(
        "counters-binary-noise-dropped",
        COMP,
        "alpha_hat[c, i] = new + noise",
        "alpha_hat[c, i] = new",
        T_SHARED_C,
        also=("bandits",),
        note="binary step shared with CUCB-DP's tree aggregation",
    ),
    Mutant(
        "counters-hybrid-bound-levels",
        COMP,
        "lemma1_coefficients(popcount, 2.0 * (k + 1.0) / epsilon)",
        "lemma1_coefficients(popcount, 2.0 * k / epsilon)",
        T_SHARED_C,
        also=("bandits",),
        note="also DP-OMM's bound: was bandits-dpomm-bound-b2 too (max(k, 1) there, the same for k >= 1)",
    ),
    Mutant(
        "counters-tree-sensitivity-dropped",
        BANKS,
        "rng, sensitivity=l1_sensitivity)",
        "rng, sensitivity=1.0)",
        T_COUNTERS,
    ),
    # ---- claims: one mutant per claim test of the papers (the test named is the one that must fail) ----
    Mutant(
        "claims-split-eps-squared",
        POL,
        "            return self.epsilon / rank\n",
        "            return self.epsilon**2 / rank\n",
        [RB + "::test_regret_grows_in_one_over_epsilon_no_faster_than_claimed"],
        note="noise grows like 1/eps^2 too fast in 1/eps: Tao Thm 1, Chen Thms 2/4, Chandak Thm 9 fits",
    ),
    Mutant(
        "claims-dp-mat-states-2eps",
        POL,
        "    claim = PrivacyClaim(eps, neighbouring=NEIGHBOURS",
        "    claim = PrivacyClaim(stated or eps, neighbouring=NEIGHBOURS",
        [PA + "::test_stated_claim_is_kept_and_nearly_attained_on_one_block"],
        note="DPUCB-MAT and DPTS-MAT state the thesis' 2 eps (Theorems 8 and 10) instead of the eps they attain",
    ),
    Mutant(
        "claims-split-rank-cubed",
        POL,
        "            return self.epsilon / rank\n",
        "            return self.epsilon / rank**3\n",
        [RG + "::test_regret_grows_in_k_no_faster_than_claimed"],
        note="budget split over K^3: LDP-OMM regret grows like K^2.24, faster than Tao et al. Thm 2's K^2",
    ),
    Mutant(
        "claims-split-eps-ignored",
        POL,
        "            return self.epsilon / rank\n",
        "            return 1.0 / rank\n",
        [RB + "::test_cucb_ldp1_and_cucb_dp_regret_falls_with_epsilon"],
        note="noise fixed at eps = 1 whatever eps",
    ),
    Mutant(
        "claims-cucb-ldp-radius-not-shrinking",
        CUCB,
        "np.sqrt(2.0 * ln_T / (eps_arm * eps_arm * n))",
        "np.sqrt(2.0 * ln_T / (eps_arm * eps_arm))",
        [RB + "::test_cucb_ldp1_and_cucb_dp_regret_is_sublinear"],
        note="CUCB-LDP radius without 1/T_e: linear regret",
    ),
    Mutant(
        "claims-ldp-omm-radius-linear-in-t",
        OMM,
        "r = np.sqrt(2.0 * lnt)",
        "r = np.sqrt(2.0 * np.exp(lnt))",
        [RG + "::test_regret_slope_in_ln_t_does_not_grow_faster_than_claimed"],
        occurrence=1,
        note="LDP-OMM's UCB radius sqrt(2 t / T_e) (ln t forgotten): regret not O(ln T)",
    ),
    Mutant(
        "claims-dp-omm-counters-at-4eps",
        OMM,
        "xs[q], rng_pol.laplace(0.0, 1.0), eps_arm)",
        "xs[q], rng_pol.laplace(0.0, 1.0), 4.0 * eps_arm)",
        [PA + "::test_no_violation_at_claim"],
        note="DP-OMM's counters 4x under-noised: its audit's detectable error",
    ),
    Mutant(
        "claims-dp-omm-counters-at-quarter-eps",
        OMM,
        "xs[q], rng_pol.laplace(0.0, 1.0), eps_arm)",
        "xs[q], rng_pol.laplace(0.0, 1.0), 0.25 * eps_arm)",
        [PA + "::test_dp_omm_audit_detects_noise_four_times_too_small"],
        note="DP-OMM over-noised 4x: the audit's power check no longer sees a violation at 4 eps",
    ),
    Mutant(
        "claims-thesis-lp-dp-constraint",
        "algorithms/bandits/adversary.py",
        "row[k * m + y] = -e\n",
        "row[k * m + y] = -e * e\n",
        ["properties/bandits/test_thesis_adversary.py::test_theorem4_lp_optimum_equals_the_bound"],
        note="the LP over 2 eps-DP mechanisms: Chandak Thm 4's optimum no longer 1/(1+e^eps)",
    ),
    Mutant(
        "claims-thesis-figure21-line",
        "algorithms/bandits/adversary.py",
        "return 0.5 - epsilon / 4.0",
        "return 0.5 - epsilon / 5.0",
        ["properties/bandits/test_thesis_adversary.py::test_figure21_line_is_below_and_tight_to_third_order"],
        note="a line that is not the tangent: Figure 2.1's third-order tightness fails",
    ),
    Mutant(
        "claims-thesis-lemma19-lhs",
        "algorithms/bandits/adversary.py",
        "return _telescoped(gaps, lambda d: 1 / (d * d))",
        "return _telescoped(gaps, lambda d: 1 / d)",
        ["properties/bandits/test_thesis_adversary.py::test_lemma19_constant_two_is_approached"],
    ),
    Mutant(
        "claims-permutation-case2-independence",
        "algorithms/bandits/permutation.py",
        "if cand not in in_B and tracker.can_add(cand):",
        "if cand not in in_B:",
        ["properties/bandits/test_permutation.py"],
        note="pi_t's case 2 without the independence test: Corollary 13's property (2) fails",
    ),
    Mutant(
        "claims-lemma52-formula",
        BITS,
        "return keep_probability(epsilon0) ** bit_count(k)",
        "return keep_probability(epsilon0) ** (bit_count(k) + 1)",
        ["properties/random_trees/test_bits.py::test_lemma_5_2_exact_reconstruction_probability"],
        note="a false Lemma 5.2 (t^(l+1)) against the exact pmf",
    ),
    Mutant(
        "claims-lemma44-claim-k-squared",
        "algorithms/random_trees/pipeline.py",
        "return epsilon0 * math.sqrt(8.0 * k * math.log(1.0 / delta))",
        "return epsilon0 * math.sqrt(8.0 * k * k * math.log(1.0 / delta))",
        ["properties/random_trees/test_privacy.py::test_lemma_4_4_fails_above_its_delta_threshold"],
        note="a claim that covers the exact loss further: the pinned failing region disappears",
    ),
    Mutant(
        "claims-theorem53-bound-n",
        "algorithms/random_trees/exact.py",
        "** (_bits.bit_count(k) * (int(n) - 1))",
        "** (_bits.bit_count(k) * int(n))",
        ["properties/random_trees/test_theorem_5_3.py::test_smallest_counterexample_triangle_with_k_2"],
        note="a weaker Theorem 5.3 (t^(l n)): the triangle counterexample no longer refutes it",
    ),
    Mutant(
        "claims-theorem53-pointwise-flip-or",
        "algorithms/random_trees/pointwise_bound.py",
        "flipped[e] ^= 1 << i",
        "flipped[e] |= 1 << i",
        ["properties/random_trees/test_theorem_5_3.py::test_pointwise_upper_bound_brackets_the_exact_probability"],
        note="a bit flip that can only set bits: the rigorous bound's single-flip term is wrong",
    ),
    Mutant(
        "claims-down-up-unweighted-add",
        "algorithms/random_trees/down_up.py",
        "                    acc += weights[e]\n",
        "                    acc += 1.0\n",
        ["properties/random_trees/test_down_up.py::test_down_up_sampler_matches_its_exact_s_step_law"],
        note="the up step ignores the weights: not the walk whose law is reversible for mu",
    ),
    Mutant(
        "claims-lower-bound-disconnection",
        "algorithms/mst/lower_bounds.py",
        "return float(1 - conn[n])",
        "return float(1 - conn[n - 1])",
        ["properties/mst/test_lower_bounds.py::test_exact_disconnection_probability_small_cases"],
        note="Lemma F.1's exact disconnection probability of G(n, p) off by one vertex",
    ),
    Mutant(
        "claims-dpucb-privacy-term-x10",
        DPMAT,
        "J[e] = est[e] + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)",
        "J[e] = est[e] + np.sqrt(3.0 * lk / te) + 30.0 * lk / (eps_arm * te)",
        [FC + "::test_thesis_figure_6_1_private_close_to_non_private"],
        note="DPUCB-MAT's privacy term 10x too large: no longer close to non-private (Chandak Fig. 6.1)",
    ),
    Mutant(
        "claims-dpts-shift-x10",
        DPMAT,
        "rng_pol.normal(est[e] + 3.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        "rng_pol.normal(est[e] + 30.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        [FC + "::test_thesis_figure_6_3a_thompson_sampling_beats_ucb_at_eps_2"],
        note="DPTS-MAT's sampling shift 10x: it no longer beats DPUCB-MAT (Chandak Fig. 6.3a)",
    ),
    Mutant(
        "claims-split-eps-fixed-2",
        POL,
        "            return self.epsilon / rank\n",
        "            return 2.0 / rank\n",
        [FC + "::test_thesis_figure_6_3b_thompson_beats_ucb_and_regret_rises_with_one_over_eps"],
        note="noise calibrated for eps = 2 whatever eps: regret no longer rises with 1/eps (Chandak Fig. 6.3b)",
    ),
    Mutant(
        "claims-dpucb-log-term-linear",
        DPMAT,
        "lk = np.log(s.rank * t)",
        "lk = s.rank * t",
        [FC + "::test_thesis_figure_6_3a_regret_over_ln_n_levels_off"],
        profile="thorough",
        note="ln(K t) forgotten in the index of DPUCB-MAT (and DPTS-MAT, one function): regret not logarithmic "
        "(Chandak Fig. 6.3a, thorough profile)",
    ),
    Mutant(
        "claims-dp-omm-counters-at-tenth-eps",
        OMM,
        "xs[q], rng_pol.laplace(0.0, 1.0), eps_arm)",
        "xs[q], rng_pol.laplace(0.0, 1.0), 0.1 * eps_arm)",
        [FC + "::test_tao_figure_1_dp_omm_below_ldp_omm"],
        profile="thorough",
        note="DP-OMM's counters 10x over-noised: no longer below LDP-OMM (Tao Fig. 1; thorough, RocketFuel)",
    ),
    Mutant(
        "claims-mst-alg1-budget-over-all-edges",
        "algorithms/mst/experiments.py",
        "epsilon0 = epsilon0_from_rho(rho, n - 1)",
        "epsilon0 = epsilon0_from_rho(rho, n * (n - 1) // 2)",
        [
            "properties/mst/test_figure_claims.py::test_appendix_h_a_algorithm1_close_to_pamst_and_better_than_input_privatization"
        ],
        occurrence=0,
        note="Algorithm 1 splits rho over all m edges: no longer close to PAMST (Pagh et al. App. H(a))",
    ),
    # ---- private spanning trees ------------------------------------------------------------
    Mutant(
        "mst-gumbel-scale-x0.5",
        EXPO,
        "return 2.0 * check_sensitivity(sensitivity) / check_epsilon",
        "return 1.0 * check_sensitivity(sensitivity) / check_epsilon",
        T_MST,
    ),
    Mutant(
        "mst-gumbel-scale-x1.5",
        EXPO,
        "return 2.0 * check_sensitivity(sensitivity) / check_epsilon",
        "return 3.0 * check_sensitivity(sensitivity) / check_epsilon",
        T_MST,
    ),
    Mutant(
        "mst-gumbel-scale-no-sensitivity",
        EXPO,
        "return 2.0 * check_sensitivity(sensitivity) / check_epsilon",
        "return 2.0 / check_epsilon",
        T_MST,
        note="sensitivity D ignored (coincides at D = 1)",
    ),
    Mutant(
        "mst-gumbel-scale-sensitivity-squared",
        EXPO,
        "return 2.0 * check_sensitivity(sensitivity) / check_epsilon",
        "return 2.0 * check_sensitivity(sensitivity) ** 2 / check_epsilon",
        T_MST,
    ),
    Mutant("mst-alg1-noise-x2", PERT, "    noisy *= beta\n", "    noisy *= 2 * beta\n", T_MST),
    Mutant("mst-alg1-noise-sign", PERT, "    noisy *= beta\n", "    noisy *= -beta\n", T_MST),
    Mutant(
        "mst-alg1-batch-scale-x1.5",
        PERT,
        "    scaled = g.weights / beta\n",
        "    scaled = g.weights / (1.5 * beta)\n",
        T_MST,
    ),
    Mutant(
        "mst-alg1-batch-no-sensitivity",
        PERT,
        "    beta = gumbel_scale(epsilon0, sensitivity)\n    rng",
        "    beta = gumbel_scale(epsilon0, 1.0)\n    rng",
        T_MST,
    ),
    Mutant(
        "mst-alg1-batch-log-threshold",
        PERT,
        "use_log = spread > 600.0",
        "use_log = spread > 6.0e5",
        T_MST,
        note="linear-space keys overflow for a huge weight spread",
    ),
    Mutant(
        "mst-alg3-batch-scale-x1.5",
        KRUS,
        "keys = g.weights[None, :] + beta * np.log(exps)",
        "keys = g.weights[None, :] + 1.5 * beta * np.log(exps)",
        T_MST,
    ),
    Mutant(
        "mst-alg2-logweights-x2",
        EXPO,
        "return -np.asarray(weights, dtype=np.float64) / gumbel_scale",
        "return -2.0 * np.asarray(weights, dtype=np.float64) / gumbel_scale",
        T_MST,
    ),
    Mutant(
        "mst-expmech-step-noise-x2",
        EXPO,
        "logw + rng.gumbel(size=cand.size)",
        "logw + 2.0 * rng.gumbel(size=cand.size)",
        T_MST,
    ),
    Mutant(
        "mst-pamst-naive-noise-x1.5",
        PAMST,
        "(lw - lw.max()) + rng.gumbel(size=cut.size)",
        "(lw - lw.max()) + 1.5 * rng.gumbel(size=cut.size)",
        T_MST,
    ),
    Mutant(
        "mst-matroid-max-scale-x2",
        MEXT,
        "basis = matroid.greedy_max_basis(w + beta * g)",
        "basis = matroid.greedy_max_basis(w + 2 * beta * g)",
        T_MST,
    ),
    Mutant(
        "mst-matroid-min-sign",
        MEXT,
        "basis = matroid.greedy_min_basis(w - beta * g)",
        "basis = matroid.greedy_min_basis(w + beta * g)",
        T_MST,
    ),
    Mutant(
        "mst-matroid-batch-scale-x0.5",
        MEXT,
        "bases = self.matroid.greedy_max_basis_batch(w + beta * g)",
        "bases = self.matroid.greedy_max_basis_batch(w + 0.5 * beta * g)",
        T_MST,
    ),
    Mutant(
        "mst-matroid-claim-steps",
        MEXT,
        "epsilon0, int(matroid.rank), check_delta(delta)",
        "epsilon0, max(int(matroid.rank) - 1, 1), check_delta(delta)",
        T_MST,
    ),
    Mutant(
        "mst-sealfon-laplace-no-m",
        PRIV,
        'return (m * d if _check_relation(neighbouring) == "linf" else d) / eps',
        'return (d if _check_relation(neighbouring) == "linf" else d) / eps',
        T_MST,
    ),
    Mutant(
        "mst-sealfon-laplace-noise-x0.5",
        PRIV,
        "rng).laplace(scale=b, size=g.m)",
        "rng).laplace(scale=b / 2, size=g.m)",
        T_MST,
    ),
    Mutant(
        "mst-sealfon-gauss-noise-x1.5",
        PRIV,
        "rng).normal(scale=sigma, size=g.m)",
        "rng).normal(scale=1.5 * sigma, size=g.m)",
        T_MST,
    ),
    Mutant("mst-sealfon-gauss-rho", PRIV, "return l2 / math.sqrt(2.0 * rho)", "return l2 / math.sqrt(rho)", T_MST),
    Mutant(
        "mst-sealfon-gauss-sqrt-m-dropped",
        PRIV,
        'l2 = d * math.sqrt(m) if _check_relation(neighbouring) == "linf" else d',
        'l2 = d if _check_relation(neighbouring) == "linf" else d',
        T_MST,
    ),
    Mutant("mst-acc-bounded-range", ACC, '"bounded-range": 0.125}', '"bounded-range": 0.25}', T_MST),
    Mutant(
        "mst-acc-eps-from-rho",
        ACC,
        "return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))",
        "return rho + math.sqrt(rho * math.log(1.0 / delta))",
        T_MST,
    ),
    Mutant(
        "mst-acc-rho-from-eps",
        ACC,
        "return (math.sqrt(epsilon + log_inv) - math.sqrt(log_inv)) ** 2",
        "return (math.sqrt(epsilon + log_inv) - math.sqrt(log_inv)) ** 2 / 2",
        T_MST,
    ),
    Mutant(
        "mst-acc-forest-steps-helper",
        ACC,
        "steps = max(g.n - number_of_components(g), 1)",
        "steps = max(g.n - 1, 1)",
        T_MST,
    ),
    # ---- bandits ---------------------------------------------------------------------------
    Mutant(
        "bandits-split-dropped",
        POL,
        "            return self.epsilon / rank\n",
        "            return self.epsilon\n",
        T_BANDITS,
        note="every arm gets the full eps",
    ),
    Mutant(
        "bandits-split-x2",
        POL,
        "            return self.epsilon / rank\n",
        "            return 2 * self.epsilon / rank\n",
        T_BANDITS,
    ),
    Mutant(
        "bandits-split-rank-minus1",
        POL,
        "            return self.epsilon / rank\n",
        "            return self.epsilon / max(rank - 1, 1)\n",
        T_BANDITS,
    ),
    # LDP-OMM (indices/omm.py) and CUCB-LDP1 (indices/cucb.py) do not share the report line:
    # each noise mutant exists at both sites
    *_ldp_report_mutants("bandits-ldp", OMM, "LDP-OMM's report"),
    *_ldp_report_mutants("bandits-ldp1", CUCB, "CUCB-LDP1's report"),
    Mutant(
        "bandits-ldp2-noise-eps-over-K",
        CUCB,
        LDP2_REPORT,
        "sums[e] += xs[least] + rng_pol.laplace(0.0, s.rank / eps_arm)",
        T_BANDITS,
        note="the single report gets eps/K",
    ),
    Mutant(
        "bandits-ldp2-noise-x0.5",
        CUCB,
        LDP2_REPORT,
        "sums[e] += xs[least] + rng_pol.laplace(0.0, 0.5 / eps_arm)",
        T_BANDITS,
    ),
    Mutant(
        "bandits-dpucb-noise-x1.5",
        DPMAT,
        "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / eps_arm)) / target",
        "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.5 / eps_arm)) / target",
        T_BANDITS,
    ),
    Mutant(
        "bandits-dpucb-noise-x0.5",
        DPMAT,
        "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / eps_arm)) / target",
        "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 0.5 / eps_arm)) / target",
        T_BANDITS,
    ),
    # DP-OMM's hybrid counter is the counters' compiled one: its noise mutants are the
    # counters-hybrid-* above (they run the bandit tests too)
    Mutant(
        "bandits-cucbdp-tree-scale-x0.5",
        CUCB,
        "tree_scale = 2.0 * tree_levels / s.eps_arm",
        "tree_scale = 1.0 * tree_levels / s.eps_arm",
        T_BANDITS,
    ),
    Mutant(
        "bandits-cucbdp-tree-levels-minus1",
        CUCB,
        "tree_scale = 2.0 * tree_levels / s.eps_arm",
        "tree_scale = 2.0 * (tree_levels - 1) / s.eps_arm",
        T_BANDITS,
    ),
    # Lemma 1 (counters/compiled.py): the mean form is LDP-OMM's privacy term, the sum form
    # DP-OMM's (and the counter banks') noise bound
    Mutant(
        "bandits-ldpomm-c2-x0.5",
        COMP,
        LEMMA1_MEAN,
        "return 2.0 * scale * np.sqrt(2.0 * log_term), 2.0 * scale * log_term",
        T_LEMMA1,
        also=("counters",),
    ),
    Mutant(
        "bandits-ldpomm-c1-x2",
        COMP,
        LEMMA1_MEAN,
        "return 4.0 * scale * np.sqrt(2.0 * log_term), 4.0 * scale * log_term",
        T_LEMMA1,
        also=("counters",),
    ),
    Mutant(
        "bandits-dpucb-radius-x1.5",
        DPMAT,
        "J[e] = est[e] + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)",
        "J[e] = est[e] + np.sqrt(3.0 * lk / te) + 4.5 * lk / (eps_arm * te)",
        T_BANDITS,
    ),
    Mutant(
        "bandits-dpts-shift-x0.5",
        DPMAT,
        "rng_pol.normal(est[e] + 3.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        "rng_pol.normal(est[e] + 1.5 * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        T_BANDITS,
    ),
    Mutant(
        "bandits-cucb-ldp-radius-eps",
        CUCB,
        "4.0 * np.sqrt(2.0 * ln_T / (eps_arm * eps_arm * n))",
        "4.0 * np.sqrt(2.0 * ln_T / (eps_arm * n))",
        T_BANDITS,
        note="eps instead of eps^2 (coincides at 1)",
    ),
    Mutant(
        "bandits-cucbdp-radius-x0.5",
        CUCB,
        "12.0 * ln_T**3 / (eps_arm * n)",
        "6.0 * ln_T**3 / (eps_arm * n)",
        T_BANDITS,
    ),
    Mutant(
        "bandits-dpomm-bound-c1",
        COMP,
        LEMMA1_SUM,
        "return 1.0 * scale * np.sqrt(2.0 * n), 4.0 * scale",
        T_LEMMA1,
        also=("counters",),
        note="sub-Gaussian factor halved, in every Lemma 1 bound (the bound then fails for large n)",
    ),
    Mutant(
        "bandits-dpomm-bound-d1",
        COMP,
        LEMMA1_SUM,
        "return 2.0 * scale * np.sqrt(2.0 * n), 2.0 * scale",
        T_LEMMA1,
        also=("counters",),
        note="sub-exponential factor halved, in every Lemma 1 bound (still holds: caught by its stated looseness)",
    ),
    # bandits-dpomm-bound-b2 is counters-hybrid-bound-levels now (one shared line)
    Mutant(
        "bandits-tie-shuffle-off",
        KER,
        "        if j - i > 1:\n",
        "        if j - i > 1000:\n",
        T_BANDITS,
        note="ties keep the previous round's order",
    ),
    Mutant(
        "bandits-tie-shuffle-sattolo",
        KER,
        "b = i + int(rng.integers(0, a - i + 1))",
        "b = i + int(rng.integers(0, a - i))",
        T_BANDITS,
        note="off-by-one Fisher-Yates: only cyclic shuffles",
    ),
    Mutant(
        "bandits-local-randomizer-x2",
        AUD,
        "rng.laplace(0.0, 1.0 / self.eps_report, size=(int(size), x.size))",
        "rng.laplace(0.0, 2.0 / self.eps_report, size=(int(size), x.size))",
        T_BANDITS,
    ),
    # ---- DP random spanning trees -----------------------------------------------------------
    Mutant(
        "trees-keep-prob-half-eps",
        BITS,
        "return 1.0 / (1.0 + math.exp(-epsilon0))",
        "return 1.0 / (1.0 + math.exp(-epsilon0 / 2))",
        T_TREES,
    ),
    Mutant(
        "trees-keep-prob-1.5-eps",
        BITS,
        "return 1.0 / (1.0 + math.exp(-epsilon0))",
        "return 1.0 / (1.0 + math.exp(-1.5 * epsilon0))",
        T_TREES,
    ),
    Mutant(
        "trees-batch-eps-x1.5",
        BITS,
        "    t = keep_probability(epsilon0)\n    rng = np.random.default_rng(rng)\n    shape",
        "    t = keep_probability(1.5 * epsilon0)\n    rng = np.random.default_rng(rng)\n    shape",
        T_TREES,
    ),
    Mutant(
        "trees-batch-eps-squared",
        BITS,
        "    t = keep_probability(epsilon0)\n    rng = np.random.default_rng(rng)\n    shape",
        "    t = keep_probability(2 * epsilon0 * epsilon0)\n    rng = np.random.default_rng(rng)\n    shape",
        T_TREES,
        note="coincides with the right rate at epsilon0 = 0.5",
    ),
    Mutant(
        "trees-flip-rate-inverted", BITS, "flips = rng.random(shape) >= t", "flips = rng.random(shape) < t", T_TREES
    ),
    Mutant(
        "trees-flip-strict",
        BITS,
        "flips = rng.random(shape) >= t",
        "flips = rng.random(shape) > t",
        T_TREES,
        note="equivalent: differs only when a uniform double equals t exactly",
    ),
    Mutant("trees-bit-count", BITS, "return (k - 1).bit_length()", "return k.bit_length()", T_TREES),
    # ---- auditor statistics -----------------------------------------------------------------
    # one Clopper-Pearson implementation serves the selection, the bound and the p-value
    Mutant(
        "bounds-cp-lower-one-sided-alpha",
        BOUNDS,
        CP_HALF,
        "    half = np.asarray(alpha, dtype=float)\n",
        T_AUDITOR,
        occurrence=0,  # clopper_pearson_lower (its scalar and array paths both read ``half``)
    ),
    Mutant(
        "bounds-cp-lower-params",
        BOUNDS,
        CP_COUNT,
        "    count = np.asarray(count, dtype=float) + 1\n",
        T_AUDITOR,
        occurrence=0,  # the lower bound's Beta(count + 1, nobs - count) quantile: one success too many
    ),
    Mutant(
        "bounds-cp-upper-alpha",
        BOUNDS,
        CP_HALF,
        "    half = np.asarray(alpha, dtype=float) * 0.75\n",
        T_AUDITOR,
        occurrence=1,  # clopper_pearson_upper
    ),
    Mutant(
        "bounds-cp-upper-params",
        BOUNDS,
        CP_COUNT,
        "    count = np.asarray(count, dtype=float) - 1\n",
        T_AUDITOR,
        occurrence=1,  # the upper bound's Beta(count, nobs - count + 1) quantile: one success too few
    ),
    Mutant(
        "bounds-pvalue-delta-dropped",
        BOUNDS,
        "return p_lo - delta - math.exp(epsilon) * q_hi",
        "return p_lo - math.exp(epsilon) * q_hi",
        T_AUDITOR,
    ),
    Mutant(
        "bounds-pvalue-bisection-end",
        BOUNDS,
        "    return math.exp(high)\n",
        "    return math.exp(low)\n",
        T_AUDITOR,
        note="the bisection ends at adjacent doubles: the p-value one double too small",
    ),
    Mutant(
        "bounds-eps-bound-delta-sign",
        BOUNDS,
        "np.log(np.maximum(p_lo - delta, 0.0))",
        "np.log(np.maximum(p_lo + delta, 0.0))",
        T_AUDITOR,
    ),
    Mutant(
        "dist-gof-unseen-dropped",
        DIST,
        "unseen_mass = [float(v) for key, v in pmf.items() if key not in seen]",
        "unseen_mass = []",
        T_AUDITOR,
    ),
    Mutant("dist-pooling-off", DIST, "    rare = expected < min_expected\n", "    rare = expected < 0.0\n", T_AUDITOR),
    Mutant(
        "dist-gof-impossible-ignored",
        DIST,
        "impossible = np.flatnonzero((probability == 0) & (counts > 0))",
        "impossible = np.flatnonzero((probability < 0) & (counts > 0))",
        T_AUDITOR,
    ),
    Mutant(
        "dist-gtest-back",
        DIST,
        '_METHODS = {"chi2": "pearson"}',
        '_METHODS = {"chi2": "log-likelihood"}',
        T_AUDITOR,
        note="the anti-conservative G statistic silently used for chi2",
    ),
    # ---- floatrule: one float rule for every claim kind (issue 38) ----
    Mutant(
        "partition-float-events-skipped",
        "dpverify/pipeline/partition.py",
        "events, notes = _event_partitions("
        "enc_x, enc_xp, codec, claim, n_certification, alpha, scored=scored, **requested)",
        "events, notes = [], ()",
        ["properties/auditor/test_every_check_runs.py"],
        note="zCDP and Rényi audits skip the floating-point families without a word (the old gate)",
    ),
    # runtime branch: superlinear steps against the measured running-time law of DP-RST Section 6
    Mutant(
        "claims-connectivity-check-relabel-quadratic",
        "algorithms/random_trees/samplers.py",
        "    adj = sp.coo_matrix((np.ones(u.size), (u, v)), shape=(topo.n, topo.n)).tocsr()\n"
        "    n_comp, labels = connected_components(adj, directed=False)\n",
        "    labels = np.arange(topo.n)\n"
        "    for a, b in zip(u.tolist(), v.tolist()):\n"
        "        labels[labels == labels[b]] = labels[a]\n"
        "    n_comp = np.unique(labels).size\n",
        [
            "properties/random_trees/test_section_6_operations.py::"
            "test_whole_algorithm_cpu_time_grows_no_faster_than_the_paper_order[dp_random_spanning_tree]"
        ],
        note="the sampler's connectivity check merges components by relabelling, O(m n): DP-RST Section 6's "
        "running time is no longer near-linear in m",
    ),
    Mutant(
        "claims-perturbation-append-quadratic",
        BITS,
        "    mask = np.tensordot(flips.astype(np.int64), powers, axes=([-2], [0]))\n    return w ^ mask\n",
        "    mask = np.tensordot(flips.astype(np.int64), powers, axes=([-2], [0]))\n"
        "    out = np.empty(0, dtype=np.int64)\n"
        "    for e in range(w.size):\n"
        "        out = np.append(out, w[e] ^ mask[..., e])\n"
        "    return out.reshape(w.size, -1).T.reshape(mask.shape)\n",
        [
            "properties/random_trees/test_section_6_operations.py::"
            "test_whole_algorithm_cpu_time_grows_no_faster_than_the_paper_order"
        ],
        note="the perturbation grows its output with np.append per edge, O(m^2) copying (DP-RST Lemma 6.1)",
    ),
    # regret branch: regret constants K-fold, budgets and noise scales 3x, a figure's shape (claims group)
    Mutant(
        "claims-regret-dp-omm-bonus-times-k",
        OMM,
        "r = np.sqrt(2.0 * lnt)",
        "r = s.rank * np.sqrt(2.0 * lnt)",
        [RC + "[DP-OMM]"],
        occurrence=0,
        note="DP-OMM's exploration bonus sqrt(2 ln t / T_e) times K: its regret constant moves",
    ),
    Mutant(
        "claims-regret-dp-omm-noise-bound-times-k",
        OMM,
        "J[e] = (s.noisy_sum[e] + b) * s.inv_n[e] + r * s.isq_n[e]",
        "J[e] = (s.noisy_sum[e] + s.rank * b) * s.inv_n[e] + r * s.isq_n[e]",
        [RC + "[DP-OMM]"],
        note="DP-OMM's counter-noise bound B times K in the index (Tao et al. Thm 1's private term K-fold)",
    ),
    Mutant(
        "claims-regret-ldp-omm-noise-bound-times-k",
        OMM,
        "J[e] = s.mean_n[e] + r * s.isq_n[e] + lemma1_max(c1, c2, s.isq_n[e], s.inv_n[e])",
        "J[e] = s.mean_n[e] + r * s.isq_n[e] + s.rank * lemma1_max(c1, c2, s.isq_n[e], s.inv_n[e])",
        [RC + "[LDP-OMM]"],
        note="LDP-OMM's Lemma 1 term times K (Tao et al. Thm 2's constant K-fold)",
    ),
    Mutant(
        "claims-regret-dpucb-bonus-times-k",
        DPMAT,
        "J[e] = est[e] + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)",
        "J[e] = est[e] + s.rank * np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)",
        [RC + "[DPUCB-MAT]"],
        note="DPUCB-MAT's radius sqrt(3 ln(Kt) / T_e) times K",
    ),
    Mutant(
        "claims-regret-dpts-shift-times-k",
        DPMAT,
        "rng_pol.normal(est[e] + 3.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        "rng_pol.normal(est[e] + 3.0 * s.rank * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        [RC + "[DPTS-MAT]"],
        note="DPTS-MAT's privacy shift 3 ln(Kt) / (eps0 T_e) times K (Chandak Thm 11's private term K-fold)",
    ),
    Mutant(
        "claims-regret-cucb-ldp-radius-times-k",
        CUCB,
        "clipped(s.sums[e] / n + 4.0 * np.sqrt(",
        "clipped(s.sums[e] / n + 4.0 * s.rank * np.sqrt(",
        [RC + "[CUCB-LDP1]", RC + "[CUCB-LDP2]"],
        note="CUCB-LDP1/2's radius times K (Chen et al. Thms 2 and 4's constant K-fold)",
    ),
    Mutant(
        "claims-regret-cucb-dp-privacy-term-times-k",
        CUCB,
        "+ 12.0 * ln_T**3 / (eps_arm * n)",
        "+ 12.0 * s.rank * ln_T**3 / (eps_arm * n)",
        [RC + "[CUCB-DP]"],
        note="CUCB-DP's privacy term 12 K ln^3 T / (eps T_e) times K (Chen et al. Thm 8's private term K-fold)",
    ),
    Mutant(
        "claims-regret-split-third",
        POL,
        "            return self.epsilon / rank\n",
        "            return self.epsilon / (3.0 * rank)\n",
        [RC + "[LDP-OMM]"],
        note="budget eps/(3K) per arm: every noise scale and its bound 3x (LDP-OMM named; every policy's test fails)",
    ),
    Mutant(
        "claims-regret-split-times-3",
        POL,
        "            return self.epsilon / rank\n",
        "            return 3.0 * self.epsilon / rank\n",
        [RC + "[CUCB-LDP1]"],
        note="budget 3 eps/K per arm: every noise scale and its bound 1/3 (CUCB-LDP1 named)",
    ),
    Mutant(
        "claims-regret-ldp-omm-report-noise-x3",
        OMM,
        "observe_mean(s, basis[q], xs[q] + rng_pol.laplace(0.0, 1.0 / eps_arm))",
        "observe_mean(s, basis[q], xs[q] + rng_pol.laplace(0.0, 3.0 / eps_arm))",
        ["properties/bandits/test_calibration.py::test_ldp_omm_reports_and_index"],
        note="LDP-OMM's report noise 3x with its bound right: regret moves under 7% (not a regret test's to see); "
        "the calibration test pins the scale",
    ),
    Mutant(
        "claims-regret-dpmat-batch-noise-third",
        DPMAT,
        "rng_pol.laplace(0.0, 1.0 / eps_arm)) / target",
        "rng_pol.laplace(0.0, 1.0 / (3.0 * eps_arm))) / target",
        ["properties/bandits/test_calibration.py::test_dpucb_mat_batches_and_index"],
        note="DPUCB-MAT/DPTS-MAT batch noise 1/3 with the index right: regret moves under 4%; calibration pins it",
    ),
    Mutant(
        "claims-regret-figure1-dp-omm-unsplit",
        OMM,
        "    eps_arm = s.eps_arm\n    for q in range(k_taken):\n        e = basis[q]\n        s.counts[e] += 1\n",
        "    eps_arm = s.eps_arm * s.rank\n    for q in range(k_taken):\n"
        "        e = basis[q]\n        s.counts[e] += 1\n",
        [FC + "::test_tao_figure_1_gap_widens_on_as6461_and_every_curve_keeps_its_shape"],
        note="DP-OMM's counters and their bound at the whole eps per arm (split forgotten): its Tao Fig. 1 curves "
        "bend (figure shape)",
    ),
    # bandits branch
    Mutant(
        "claims-dpts-posterior-reads-open-batch",
        DPMAT,
        "J[e] = rng_pol.normal(est[e] + 3.0 * lk / (eps_arm * te), 1.0 / np.sqrt(te))",
        "J[e] = rng_pol.normal((est[e] * te + s.buf_sum[e]) / (te + s.buf_n[e]) + 3.0 * lk / (eps_arm * te), "
        "1.0 / np.sqrt(te + s.buf_n[e]))",
        [PA + "::test_unreleased_observation_does_not_move_the_played_arms"],
        note="DPTS-MAT's Thompson posterior pools the open batch's unreleased observations (no longer private)",
    ),
    Mutant(
        "claims-dpucb-index-reads-open-batch",
        DPMAT,
        "J[e] = est[e] + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)",
        "J[e] = (est[e] * te + s.buf_sum[e]) / (te + s.buf_n[e]) + np.sqrt(3.0 * lk / te) + 3.0 * lk / (eps_arm * te)",
        [PA + "::test_unreleased_observation_does_not_move_the_played_arms"],
        note="DPUCB-MAT's mean pools the open batch's unreleased observations",
    ),
    Mutant(
        "claims-dp-mat-batch-budget-twice",
        DPMAT,
        "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / eps_arm)) / target",
        "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / (2.0 * eps_arm))) / target",
        ["properties/bandits/test_statistics_audits.py::test_searched_audit_of_policy_statistics_holds_the_exact_loss"],
        note="DPUCB-MAT's and DPTS-MAT's batch noise calibrated to 2 eps0: the policy spends 2 eps",
    ),
    Mutant(
        "claims-dp-mat-batch-not-emptied",
        DPMAT,
        "            buf_sum[e] = 0.0\n",
        "",
        ["properties/bandits/test_statistics_audits.py::test_searched_audit_of_policy_statistics_holds_the_exact_loss"],
        note="a released batch stays in the buffer: each observation enters every later release (2 eps over 3 rounds)",
    ),
    Mutant(
        "claims-dpts-full-eps-per-arm",
        POL,
        '"DPTS-MAT": _PrivateDesign(K.DPTS_MAT, "per-arm",',
        '"DPTS-MAT": _PrivateDesign(K.DPTS_MAT, "single-report",',
        ["properties/bandits/test_statistics_audits.py::test_searched_audit_of_policy_statistics_holds_the_exact_loss"],
        note="DPTS-MAT gives each arm's batch the whole eps (no eps/K split): the policy spends K eps",
    ),
    # released-keys branch: the thresholded count and the released-key encoding and events (group "keys")
    Mutant(
        "keys-threshold-offset-dropped",
        "dpverify/mechanisms/thresholded.py",
        "return s * (1.0 + math.log(1.0 / (2.0 * self.delta)) / self.epsilon)",
        "return s * (0.0 + math.log(1.0 / (2.0 * self.delta)) / self.epsilon)",
        ["properties/auditor/mechanisms/test_thresholded.py"],
        note="the correct threshold forgets the count a present key holds: true delta e^eps delta",
    ),
    Mutant(
        "keys-value-counts-absent",
        "dpverify/events/released_keys.py",
        "return np.where(group[:, self.presence] > 0.5, group[:, self.value], self.absent)",
        "return group[:, self.value]",
        ["properties/auditor/pipeline/test_released_keys.py"],
        note="a key's value events read 0 where the key is absent (absence no longer an outcome of its own)",
    ),
    Mutant(
        "keys-count-book-only",
        "dpverify/pipeline/released_keys.py",
        "rows[r, count] = len(output)",
        "rows[r, count] = sum(key in index for key in output)",
        ["properties/auditor/pipeline/test_released_keys.py"],
        note="the released-key count leaves out the keys outside the key book",
    ),
    Mutant(
        "keys-book-most-frequent",
        "dpverify/pipeline/released_keys.py",
        "return (-(max(rates) - min(rates)), -sum(rates), order[key])",
        "return (-sum(rates), order[key])",
        ["properties/auditor/pipeline/test_released_keys.py"],
        note="the key book keeps the most released keys and may drop the one released from x only",
    ),
    # adapter-speed branch: library adapters at library speed (issue 42)
    Mutant(
        "adapters-tool-charge-unchecked",
        "dpverify/extras/adapters/diffprivlib.py",
        "        self._check_charged(accountant.spent_budget, int(size))\n",
        "",
        [
            "properties/auditor/extras/test_adapters.py::test_diffprivlib_tool_checks_the_budget_charged_and_its_parameters"
        ],
        note="a diffprivlib tool that charges its accountant half the epsilon it spends passes unnoticed",
    ),
    Mutant(
        "adapters-tool-unseeded",
        "dpverify/extras/adapters/diffprivlib.py",
        "random_state, accountant = _random_state(rng), BudgetAccountant()",
        "random_state, accountant = np.random.RandomState(), BudgetAccountant()",
        [
            "properties/auditor/extras/test_adapters.py::"
            "test_diffprivlib_adapters_draw_the_same_outputs_on_any_number_of_workers"
        ],
        note="the tool's RandomState seeded from the OS: seeded outputs differ between runs and worker counts",
    ),
    Mutant(
        "adapters-opendp-parts-other-input",
        "dpverify/extras/adapters/opendp.py",
        "            data = self.transformation(data)\n",
        "            data = self.transformation(data[1:])\n",
        [
            "properties/auditor/extras/test_adapters.py::"
            "test_opendp_chain_given_apart_transforms_once_per_batch_and_keeps_the_chain_claim"
        ],
        note="a chain given in two parts samples its noise on another input's transformation (one record dropped)",
    ),
    # one-run-peers branch: the one-run audit's guesses and union bound (group "onerun")
    Mutant(
        "onerun-guesses-all-included",
        "dpverify/audits/one_run.py",
        "    ranked = included[order]\n",
        "    ranked = np.ones_like(included[order])\n",
        ["properties/auditor/training/test_one_run_peers.py::test_interfering_canaries_keep_the_false_alarm_rate"],
        note="every 'in' guess counted correct, as if all canaries were included: null runs certify 4.26",
    ),
    Mutant(
        "onerun-no-union-bound",
        "dpverify/audits/one_run.py",
        "    level = alpha / len(points)\n",
        "    level = alpha\n",
        ["properties/auditor/training/test_one_run_peers.py::test_interfering_canaries_keep_the_false_alarm_rate"],
        note="each (k+, k-) of the grid tested at alpha, the best kept: about a fifth of null runs flagged",
    ),
    # probe-draws branch: the grey-box probe's draw-count rule (group "probes")
    Mutant(
        "probes-draw-count-ignores-parameters",
        "dpverify/probes/probe.py",
        "a.site == b.site and a.parameters is not None and a.parameters == b.parameters",
        "a.site == b.site",
        ["properties/auditor/probes/test_planted_glue_bugs.py"],
        note="noise whose scale follows the data, drawn at one site, is a draw-count note instead of control flow",
    ),
    Mutant(
        "probes-every-divergence-a-draw-count",
        "dpverify/probes/probe.py",
        "            return _Comparison(same, parted=(start, start_prime))\n",
        "            pass\n",
        ["properties/auditor/probes/test_planted_glue_bugs.py"],
        note="a call made in one run only (a threshold on the true count) is no control-flow finding",
    ),
    # noise-calibration (lead, 2026-12-02): noise parameters that differ between the runs (group "probes")
    Mutant(
        "probes-calibration-not-checked",
        "dpverify/probes/probe.py",
        "    if _parameters_differ(draw, base_xp.draws[i]):\n",
        "    if False:\n",
        ["properties/auditor/probes/test_planted_glue_bugs.py"],
        note="a scale computed from the data measured as a shift across two scales, and no finding",
    ),
    Mutant(
        "probes-calibration-ignores-earlier-releases",
        "dpverify/probes/probe.py",
        "    if not _parameters_differ(aligned.draws[i], draw):\n",
        "    if False:\n",
        ["properties/auditor/probes/test_planted_glue_bugs.py"],
        note="a correct adaptive pipeline (its scale reads a released noisy count) given a calibration finding",
    ),
    # tailcut-power branch: the cells' choice guarded against the winner's curse (group "partition")
    Mutant(
        "partition-guard-off",
        "dpverify/pipeline/partition.py",
        "GUARD_TOLERANCE = 0.1\n",
        'GUARD_TOLERANCE = float("inf")\n',
        [
            "properties/auditor/test_claim_kinds.py::"
            "test_a_weak_gaussian_is_not_cut_where_its_selection_fell_short_by_chance"
        ],
        note="every candidate eligible: the cells predicted largest at half a standard error, a chance tail cut, win",
    ),
]


def _copy_tree(dest: Path, rev: str | None) -> None:
    if rev is None:
        files = (
            subprocess.run(
                ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True, check=True
            )
            .stdout.decode()
            .split("\0")
        )
        for f in filter(None, files):
            src = REPO / f
            if src.is_file():
                (dest / f).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dest / f)
    else:
        archive = subprocess.run(["git", "archive", rev], cwd=REPO, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


#: Extra pytest arguments of every run (``audit_mutation.py`` selects its tests with ``-m privacy_audit``).
PYTEST_ARGS: list = []


def _test_file(test: str) -> str:
    """The file or folder of a test selection (``path`` or a pytest node id ``path::name``)."""
    return test.split("::", 1)[0]


def _pytest(root: Path, tests, timeout: float, env) -> tuple[str, float]:
    files = [t for t in tests if (root / _test_file(t)).exists()]
    if not files:
        return "no-tests", 0.0
    cmd = [sys.executable, "-m", "pytest", *files, "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *PYTEST_ARGS]
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - start
    elapsed = time.perf_counter() - start
    return {0: "survived", 1: "killed"}.get(proc.returncode, "error"), elapsed


def check_mutants(root: Path, mutants, strict: bool = True) -> list[str]:
    """Every problem that would make a mutant's result meaningless, before anything runs.

    A mutant whose file is gone, whose anchor ``old`` no longer occurs exactly once (or at its
    ``occurrence``), or one of whose test files is gone would otherwise be skipped or run a
    shrunken test selection and count as a false "killed" / "survived". Ids must be unique, a
    mutant must change its text, and two mutants may not apply the same substitution. With
    ``strict=False`` (an older revision) a missing file or anchor is not a problem (``n/a``).
    """
    problems = []
    seen_ids, seen_subst = set(), {}
    for m in mutants:
        if m.id in seen_ids:
            problems.append(f"{m.id}: duplicate id")
        seen_ids.add(m.id)
        key = (m.path, m.old, m.new, m.occurrence)
        if key in seen_subst:
            problems.append(f"{m.id}: the same substitution as {seen_subst[key]}")
        seen_subst.setdefault(key, m.id)
        if m.old == m.new:
            problems.append(f"{m.id}: the mutated text equals the original")
        if not m.tests:
            problems.append(f"{m.id}: no tests")
        if strict:
            for t in m.tests:
                if not (root / _test_file(t)).exists():
                    problems.append(f"{m.id}: test file {t} not found")
        path = root / m.path
        if not path.is_file():
            if strict:
                problems.append(f"{m.id}: {m.path} not found")
            continue
        count = path.read_text().count(m.old)
        if count == 0 and not strict:
            continue
        if m.occurrence is None and count != 1:
            problems.append(f"{m.id}: expected exactly one occurrence of its text in {m.path}, found {count}")
        elif m.occurrence is not None and count <= m.occurrence:
            problems.append(f"{m.id}: occurrence {m.occurrence} not found in {m.path} ({count} occurrences)")
    return problems


def _apply(root: Path, m: Mutant, strict: bool) -> str | None:
    """Write the mutant into the copy; return the original text (None: not applicable here)."""
    path = root / m.path
    text = path.read_text()
    count = text.count(m.old)
    if count == 0 and not strict:
        return None  # an older revision without this code
    if m.occurrence is None and count != 1:
        raise SystemExit(f"mutant {m.id}: expected exactly one occurrence in {m.path}, found {count}")
    if m.occurrence is not None and count <= m.occurrence:
        raise SystemExit(f"mutant {m.id}: occurrence {m.occurrence} not found in {m.path}")
    if m.occurrence is None:
        mutated = text.replace(m.old, m.new)
    else:
        parts = text.split(m.old)
        k = m.occurrence + 1
        mutated = m.old.join(parts[:k]) + m.new + m.old.join(parts[k:])
    path.write_text(mutated)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--only", default="", help="comma-separated mutant ids")
    ap.add_argument(
        "--group",
        action="append",
        default=[],
        help="counters, mst, bandits, trees, bounds, dist, claims, keys (repeatable)",
    )
    ap.add_argument("--source-rev", default=None, help="test a git revision's tree instead of the working tree")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per mutant's test run")
    ap.add_argument("--skip-baseline", action="store_true", help="do not test the unmutated copy first")
    ap.add_argument(
        "--check", action="store_true", help="only check that every mutant applies to the working tree, then exit"
    )
    args = ap.parse_args(argv)

    chosen = MUTANTS
    if args.only:
        ids = set(args.only.split(","))
        unknown = ids - {m.id for m in MUTANTS}
        if unknown:
            raise SystemExit(f"unknown mutant ids: {sorted(unknown)}")
        chosen = [m for m in MUTANTS if m.id in ids]
    if args.group:
        chosen = [m for m in chosen if set(m.groups) & set(args.group)]
    if args.list:
        for m in chosen:
            print(f"{m.id:40s} {m.path}: {m.note}")
        return 0
    if args.check:
        problems = check_mutants(REPO, MUTANTS)
        if problems:
            print("mutants that would not apply as written:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 2
        print(f"all {len(MUTANTS)} mutants apply: each text occurs once in its file, every test file exists")
        return 0

    with tempfile.TemporaryDirectory(prefix="dpverify-mutation-") as tmp:
        root = Path(tmp) / "repo"
        root.mkdir()
        _copy_tree(root, args.source_rev)
        # the copy is what gets mutated: check it too (an older revision: only what can be checked)
        problems = check_mutants(root, chosen, strict=args.source_rev is None)
        if problems:
            print("mutants that would not apply as written:\n  " + "\n  ".join(problems), file=sys.stderr)
            return 2
        base_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        base_env.pop("PYTHONPATH", None)
        # the copy lives elsewhere: point the dataset tests at the maps the repository would find
        base_env.setdefault("DPVERIFY_ROCKETFUEL", str(REPO.parent / "shared" / "datasets" / "rocketfuel"))

        def fresh_env(name: str) -> dict:
            # an empty numba cache per run: see the module docstring (cross-file staleness)
            cache = Path(tmp) / f"numba-cache-{name}"
            shutil.rmtree(cache, ignore_errors=True)
            return dict(base_env, NUMBA_CACHE_DIR=str(cache))

        if not args.skip_baseline:
            # the unmutated tests, once per profile that the chosen mutants run them under
            for profile in dict.fromkeys(m.profile for m in chosen):
                tests = list(dict.fromkeys(t for m in chosen if m.profile == profile for t in m.tests))
                env = fresh_env("baseline")
                if profile:
                    env["DPVERIFY_PROFILE"] = profile
                status, secs = _pytest(root, tests, 4 * args.timeout, env)
                shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
                print(f"baseline (unmutated{', ' + profile if profile else ''}): {status} in {secs:.0f} s", flush=True)
                if status != "survived":
                    print("the unmutated tests do not pass: fix that first", file=sys.stderr)
                    return 2
        rows = []
        for m in chosen:
            path = root / m.path
            if not path.is_file():
                rows.append((m, "no-file", 0.0))
                continue
            original = _apply(root, m, strict=args.source_rev is None)
            if original is None:
                rows.append((m, "n/a", 0.0))
                print(f"n/a       {m.id} (code not present in this revision)", flush=True)
                continue
            env = fresh_env(m.id)
            if m.profile:
                env["DPVERIFY_PROFILE"] = m.profile
            try:
                status, secs = _pytest(root, m.tests, args.timeout, env)
            finally:
                path.write_text(original)
                shutil.rmtree(env["NUMBA_CACHE_DIR"], ignore_errors=True)
            rows.append((m, status, secs))
            print(f"{status:9s} {secs:6.1f} s  {m.id}", flush=True)

    killed = sum(s in ("killed", "error", "timeout") for _, s, _ in rows)
    counted = sum(s not in ("no-file", "no-tests", "n/a") for _, s, _ in rows)
    print()
    print(f"{'mutant':42s} {'status':9s} {'seconds':>7s}  note")
    for m, s, secs in rows:
        print(f"{m.id:42s} {s:9s} {secs:7.1f}  {m.note}")
    rate = killed / counted if counted else float("nan")
    print(f"\nkilled {killed} of {counted} mutants: kill rate {rate:.1%}")
    survivors = [m.id for m, s, _ in rows if s == "survived"]
    if survivors:
        print("survivors: " + ", ".join(survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
