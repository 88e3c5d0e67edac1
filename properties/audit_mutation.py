"""Audit-only mutation run: do the privacy *audits* alone catch a noise scale or budget split off by 1.5x?

The project's mutation script (``mutation.py``, next to this file) runs
each mutant against the targeted tests of its module, calibration tests included. Here every
privacy-critical noise scale or budget split is multiplied by 1.5 and by 1/1.5, one at a time, and
each mutant runs only the privacy audit tests of its family (searched audits, exact losses of the
randomizers; no calibration, distribution-fit or noise-recovery test):

- counters: the searched audits of ``properties/counters/test_counters.py``;
- private spanning trees: the searched audits of ``properties/mst/test_privacy.py``;
- bandits: the audits and exact local-randomizer losses of ``properties/bandits/test_privacy_audits.py``
  (the hybrid counter of DP-OMM is the counters' compiled code: its mutants run both sets); the CUCB
  family's noise lines run the searched audits of their compiled statistics
  (``properties/bandits/test_statistics_audits.py``), as their played super arms barely depend on the
  rewards on the short designs;
- DP-RST: the searched audit of ``properties/random_trees/test_privacy.py``.

The machinery (scratch copy, baseline run, checks that each mutant applies exactly once, fresh
numba cache per run, kill table) is ``mutation.py``'s; only the mutant list differs.

Usage::

    python properties/audit_mutation.py --list
    python properties/audit_mutation.py --check
    python properties/audit_mutation.py                       # all audit mutants
    python properties/audit_mutation.py --group counters      # one family
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _mutation_module():
    """The project's mutation script, next to this file."""
    spec = importlib.util.spec_from_file_location("dpverify_mutation", HERE / "mutation.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


mutation = _mutation_module()
Mutant = mutation.Mutant

CT = "properties/counters/test_counters.py"
A_COUNTERS = [
    CT + "::test_audit_counters_at_claimed_epsilon",
    CT + "::test_searched_audit_of_the_hybrid_counters_binary_part",
    CT + "::test_audit_catches_under_noised_counter",
]
MT = "properties/mst/test_privacy.py"
A_MST = [
    MT + "::test_searched_audit_of_algorithm1_agrees_with_the_exact_loss",
    MT + "::test_half_noise_variant_is_caught",
    MT + "::test_searched_audit_of_private_kruskal_and_pamst_holds_the_exact_loss",
    MT + "::test_searched_audit_of_sealfon_privatization_holds_the_exact_loss",
]
PA = "properties/bandits/test_privacy_audits.py"
A_BANDITS = [
    PA + "::test_searched_audit_holds_the_exact_design_loss",
    PA + "::test_dpucb_mat_comes_within_ten_percent_of_eps_on_one_block",
    PA + "::test_full_budget_per_arm_is_caught",
    PA + "::test_no_violation_at_claim",
    PA + "::test_dp_omm_audit_detects_noise_four_times_too_small",
    PA + "::test_local_randomizer_is_exactly_eps_ldp",
]
ST = "properties/bandits/test_statistics_audits.py"
A_CUCB = [ST + "::test_searched_audit_of_cucb_statistics_holds_the_exact_loss"]
A_TREES = ["properties/random_trees/test_privacy.py::test_searched_audit_agrees_with_the_exact_loss"]

UP, DOWN = "x1.5", "div1.5"  # noise scale times 1.5 (too much noise) / divided by 1.5 (too little)


def _pair(prefix, path, old, up, down, tests, note="", also=()):
    """The two mutants of one line: ``up`` scales the noise (or budget) one way, ``down`` the other."""
    return [
        Mutant(f"{prefix}-{UP}", path, old, up, tests, note=note, also=also),
        Mutant(f"{prefix}-{DOWN}", path, old, down, tests, note=note, also=also),
    ]


def _scaled(prefix, path, line, scaling, tests, note="", also=()):
    """The two mutants of ``line``: its ``scaling`` token ``(old, times 1.5, divided by 1.5)`` replaced."""
    old, up, down = scaling
    assert line.count(old) == 1, (prefix, old)
    return _pair(prefix, path, line, line.replace(old, up), line.replace(old, down), tests, note=note, also=also)


BANKS = "algorithms/counters/banks.py"
COMP = "algorithms/counters/compiled.py"
EXPO = "algorithms/mst/exponential.py"
PERT = "algorithms/mst/perturbation.py"
POL = "algorithms/bandits/policies.py"
OMM = "algorithms/bandits/indices/omm.py"
CUCB = "algorithms/bandits/indices/cucb.py"
DPMAT = "algorithms/bandits/indices/dp_mat.py"
BITS = "algorithms/random_trees/bits.py"

SCALE = "self.scale = self.levels * self.sensitivity / self.epsilon"
LOG = "noise = self.rng.laplace(0.0, 1.0 / self.epsilon, size=flat.size)"
HYB_LOG = "state[c, SINCE] + x + z * (2.0 / epsilon)"
HYB_BIN = "alpha_hat[c, i] = acc + z * (2.0 * (k + 1) / epsilon)"
GUMBEL = "return 2.0 * check_sensitivity(sensitivity) / check_epsilon"
SPLIT = "            return self.epsilon / rank\n"
DPUCB = "est[e] = (buf_sum[e] + rng_pol.laplace(0.0, 1.0 / eps_arm)) / target"
LDP = "xs[q] + rng_pol.laplace(0.0, 1.0 / eps_arm)"
LDP2 = "sums[e] += xs[least] + rng_pol.laplace(0.0, 1.0 / eps_arm)"
DPOMM = "xs[q], rng_pol.laplace(0.0, 1.0), eps_arm)"
TREE = "tree_scale = 2.0 * tree_levels / s.eps_arm"
KEEP = "return 1.0 / (1.0 + math.exp(-epsilon0))"
PAMST_LOGW = "logw = selection_log_weights(g.weights, epsilon0, sensitivity)"
SEALFON = 'return (m * d if _check_relation(neighbouring) == "linf" else d) / eps'

# the scale token of a noise expression, then its value times 1.5 and divided by 1.5
LAPLACE_UNIT = ("1.0 /", "1.5 /", "(1 / 1.5) /")
TWO_OVER = ("2.0 /", "3.0 /", "(2.0 / 1.5) /")
TWO_TIMES = ("2.0 *", "3.0 *", "(2.0 / 1.5) *")

AUDIT_MUTANTS = [
    *_pair(
        "counters-binary-scale",
        BANKS,
        SCALE,
        "self.scale = 1.5 * " + SCALE[13:],
        "self.scale = " + SCALE[13:] + " / 1.5",
        A_COUNTERS,
    ),
    *_scaled("counters-log-scale", BANKS, LOG, LAPLACE_UNIT, A_COUNTERS),
    *_scaled(
        "counters-hybrid-log-scale", COMP, HYB_LOG, TWO_OVER, A_COUNTERS + A_BANDITS, "shared with DP-OMM", ("bandits",)
    ),
    *_scaled(
        "counters-hybrid-bin-scale",
        COMP,
        HYB_BIN,
        ("z * (2.0 *", "z * (3.0 *", "z * ((2.0 / 1.5) *"),
        A_COUNTERS + A_BANDITS,
        "shared with DP-OMM",
        ("bandits",),
    ),
    *_scaled("mst-gumbel-scale", EXPO, GUMBEL, TWO_TIMES, A_MST),
    *_pair(
        "mst-alg1-batch-scale",
        PERT,
        "    scaled = g.weights / beta\n",
        "    scaled = g.weights / (1.5 * beta)\n",
        "    scaled = g.weights / (beta / 1.5)\n",
        A_MST,
        note="the batched sampler only (the exact distributions keep the right scale)",
    ),
    *_pair(
        "mst-pamst-scale",
        "algorithms/mst/pamst.py",
        PAMST_LOGW,
        PAMST_LOGW.replace("epsilon0,", "epsilon0 / 1.5,"),
        PAMST_LOGW.replace("epsilon0,", "1.5 * epsilon0,"),
        A_MST,
        note="PAMST's selection weights (x1.5: epsilon0 / 1.5, more noise)",
    ),
    *_pair(
        "mst-sealfon-scale",
        "algorithms/mst/privatization.py",
        SEALFON,
        SEALFON + " * 1.5",
        SEALFON + " / 1.5",
        A_MST,
        note="Sealfon's Laplace input privatization",
    ),
    *_pair(
        "bandits-split",
        POL,
        SPLIT,
        "            return self.epsilon / (1.5 * rank)\n",
        "            return 1.5 * self.epsilon / rank\n",
        A_BANDITS,
        note="per-arm budget of every per-arm policy (x1.5: more noise)",
    ),
    *_scaled("bandits-dpucb-noise", DPMAT, DPUCB, LAPLACE_UNIT, A_BANDITS, "DPUCB-MAT and DPTS-MAT"),
    *_scaled("bandits-ldpomm-noise", OMM, LDP, LAPLACE_UNIT, A_BANDITS),
    *_scaled(
        "bandits-dpomm-counter-eps",
        OMM,
        DPOMM,
        ("eps_arm)", "eps_arm / 1.5)", "1.5 * eps_arm)"),
        A_BANDITS,
        "DP-OMM's counters' budget (x1.5: more noise)",
    ),
    *_scaled("bandits-ldp1-noise", CUCB, LDP, LAPLACE_UNIT, A_CUCB, "CUCB-LDP1"),
    *_scaled("bandits-ldp2-noise", CUCB, LDP2, LAPLACE_UNIT, A_CUCB, "CUCB-LDP2"),
    *_scaled("bandits-cucbdp-tree-scale", CUCB, TREE, TWO_TIMES, A_CUCB, "CUCB-DP"),
    *_scaled(
        "trees-keep-prob-eps",
        BITS,
        KEEP,
        ("-epsilon0", "-epsilon0 / 1.5", "-1.5 * epsilon0"),
        A_TREES,
        "x1.5: the flip rate of epsilon0 / 1.5 (more noise)",
    ),
]


def main(argv=None) -> int:
    mutation.MUTANTS = AUDIT_MUTANTS
    return mutation.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
