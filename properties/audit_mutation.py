"""Audit-only mutation run: do the privacy *audits* alone catch a noise scale or budget split off by 1.3x?

The project's mutation script (``mutation.py``, next to this file) runs
each mutant against the targeted tests of its module, calibration tests included. Here every
privacy-critical noise scale, budget split and sensitivity is multiplied by 1.3 and divided by 1.3,
one at a time, and each mutant runs only the tests marked ``privacy_audit`` (``pytest -m
privacy_audit``: searched audits, exact losses; no calibration, distribution-fit or noise-recovery
test) of its family's folder:

- counters: ``properties/counters`` (the hybrid counter of DP-OMM is the counters' compiled code: its
  mutants run the bandits' audits too);
- private spanning trees: ``properties/mst``;
- bandits: ``properties/bandits``;
- DP-RST: ``properties/random_trees``;
- zoo: the auditor's own mechanisms (``dpverify.mechanisms``), ``properties/auditor/mechanisms/test_zoo.py``.

Besides the factor mutants, the lines the issue names as missed by the audits (one bit-flip mask
shared by all edges, the exponential mechanism without its factor 2, sparse vector's query noise
halved, a Gaussian sigma wrong only above eps = 8.4) are mutated in the way that bug was written.

The machinery (scratch copy, baseline run, checks that each mutant applies exactly once, fresh
numba cache per run, kill table) is ``mutation.py``'s; only the mutant list and the marker differ.

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

#: The tests of each family: its folder, run with ``-m privacy_audit`` (the marker, not a list of names).
A_COUNTERS = ["properties/counters"]
A_MST = ["properties/mst"]
A_BANDITS = ["properties/bandits"]
A_TREES = ["properties/random_trees"]
A_ZOO = ["properties/auditor/mechanisms/test_zoo.py"]
MARKER = ["-m", "privacy_audit"]

FACTOR = "1.3"
UP, DOWN = f"x{FACTOR}", f"div{FACTOR}"  # noise scale times 1.3 (too much noise) / divided by 1.3 (too little)


def _pair(prefix, path, old, up, down, tests, note="", also=()):
    """The two mutants of one line: ``up`` scales the noise (or budget) one way, ``down`` the other."""
    return [
        Mutant(f"{prefix}-{UP}", path, old, up, tests, note=note, also=also),
        Mutant(f"{prefix}-{DOWN}", path, old, down, tests, note=note, also=also),
    ]


def _scaled(prefix, path, line, scaling, tests, note="", also=()):
    """The two mutants of ``line``: its ``scaling`` token ``(old, times 1.3, divided by 1.3)`` replaced."""
    old, up, down = scaling
    assert line.count(old) == 1, (prefix, old)
    return _pair(prefix, path, line, line.replace(old, up), line.replace(old, down), tests, note=note, also=also)


def _times(token: str, value: str) -> tuple:
    """``(token, token with value * 1.3, token with value / 1.3)`` for a token containing ``value``."""
    return token, token.replace(value, f"({value} * {FACTOR})", 1), token.replace(value, f"({value} / {FACTOR})", 1)


BANKS = "algorithms/counters/banks.py"
COMP = "algorithms/counters/compiled.py"
EXPO = "algorithms/mst/exponential.py"
PERT = "algorithms/mst/perturbation.py"
PRIV = "algorithms/mst/privatization.py"
POL = "algorithms/bandits/policies.py"
OMM = "algorithms/bandits/indices/omm.py"
CUCB = "algorithms/bandits/indices/cucb.py"
DPMAT = "algorithms/bandits/indices/dp_mat.py"
BITS = "algorithms/random_trees/bits.py"
TEXTBOOK = "dpverify/mechanisms/textbook.py"
SVT = "dpverify/mechanisms/sparse_vector.py"
ADDITIVE = "dpverify/mechanisms/additive.py"

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
SEALFON_L2 = 'l2 = d * math.sqrt(m) if _check_relation(neighbouring) == "linf" else d'
SEALFON_RHO = "return l2 / math.sqrt(2.0 * rho)"
MASK = "shape = (l, w.size) if size is None else (int(size), l, w.size)"
EXP_LOGITS = "logits = self.epsilon * u / (2 * self.sensitivity)"
SVT_QUERY = "self.query_scale = 2.0 * self.cutoff / eps2"
GAUSS_SIGMA = "    return math.exp(brentq(gap, lo, hi, xtol=1e-14, rtol=1e-14))"

AUDIT_MUTANTS = [
    *_scaled("counters-binary-scale", BANKS, SCALE, _times(SCALE, "self.levels"), A_COUNTERS),
    *_scaled("counters-log-scale", BANKS, LOG, _times(LOG, "1.0 / self.epsilon"), A_COUNTERS),
    *_scaled(
        "counters-hybrid-log-scale",
        COMP,
        HYB_LOG,
        _times(HYB_LOG, "2.0 / epsilon"),
        A_COUNTERS + A_BANDITS,
        "shared with DP-OMM",
        ("bandits",),
    ),
    *_scaled(
        "counters-hybrid-bin-scale",
        COMP,
        HYB_BIN,
        _times(HYB_BIN, "(k + 1)"),
        A_COUNTERS + A_BANDITS,
        "the binary part's per-level budget; shared with DP-OMM",
        ("bandits",),
    ),
    *_scaled(
        "mst-gumbel-scale", EXPO, GUMBEL, _times(GUMBEL, "2.0"), A_MST, "x1.3 ~ Gumbel scale taken as its std (1.28x)"
    ),
    *_pair(
        "mst-alg1-batch-scale",
        PERT,
        "    scaled = g.weights / beta\n",
        f"    scaled = g.weights / ({FACTOR} * beta)\n",
        f"    scaled = g.weights / (beta / {FACTOR})\n",
        A_MST,
        note="the batched sampler only (the exact distributions keep the right scale)",
    ),
    *_scaled(
        "mst-pamst-scale",
        "algorithms/mst/pamst.py",
        PAMST_LOGW,
        (
            PAMST_LOGW,
            PAMST_LOGW.replace("epsilon0,", f"epsilon0 / {FACTOR},"),
            PAMST_LOGW.replace("epsilon0,", f"{FACTOR} * epsilon0,"),
        ),
        A_MST,
        note="PAMST's selection weights (x1.3: epsilon0 / 1.3, more noise)",
    ),
    *_pair(
        "mst-sealfon-scale", PRIV, SEALFON, f"{SEALFON} * {FACTOR}", f"{SEALFON} / {FACTOR}", A_MST, "Sealfon's Laplace"
    ),
    *_pair(
        "mst-sealfon-gauss-l2",
        PRIV,
        SEALFON_L2,
        SEALFON_L2.replace("d * math.sqrt(m)", f"{FACTOR} * d * math.sqrt(m)"),
        SEALFON_L2.replace("d * math.sqrt(m)", f"d * math.sqrt(m) / {FACTOR}"),
        A_MST,
        "Sealfon's Gaussian: its l2 sensitivity (a zCDP claim)",
    ),
    *_pair(
        "mst-sealfon-gauss-sigma",
        PRIV,
        SEALFON_RHO,
        f"{SEALFON_RHO} * {FACTOR}",
        f"{SEALFON_RHO} / {FACTOR}",
        A_MST,
        "Sealfon's Gaussian sigma from rho",
    ),
    *_pair(
        "bandits-split",
        POL,
        SPLIT,
        f"            return self.epsilon / ({FACTOR} * rank)\n",
        f"            return {FACTOR} * self.epsilon / rank\n",
        A_BANDITS,
        note="per-arm budget of every per-arm policy (x1.3: more noise)",
    ),
    *_scaled("bandits-dpucb-noise", DPMAT, DPUCB, _times(DPUCB, "1.0 / eps_arm"), A_BANDITS, "DPUCB-MAT and DPTS-MAT"),
    *_scaled("bandits-ldpomm-noise", OMM, LDP, _times(LDP, "1.0 / eps_arm"), A_BANDITS),
    *_scaled(
        "bandits-dpomm-counter-eps",
        OMM,
        DPOMM,
        ("eps_arm)", f"eps_arm / {FACTOR})", f"{FACTOR} * eps_arm)"),
        A_BANDITS,
        "DP-OMM's counters' budget (x1.3: more noise)",
    ),
    *_scaled("bandits-ldp1-noise", CUCB, LDP, _times(LDP, "1.0 / eps_arm"), A_BANDITS, "CUCB-LDP1"),
    *_scaled("bandits-ldp2-noise", CUCB, LDP2, _times(LDP2, "1.0 / eps_arm"), A_BANDITS, "CUCB-LDP2"),
    *_scaled("bandits-cucbdp-tree-scale", CUCB, TREE, _times(TREE, "2.0"), A_BANDITS, "CUCB-DP"),
    *_scaled(
        "trees-keep-prob-eps",
        BITS,
        KEEP,
        ("-epsilon0", f"-epsilon0 / {FACTOR}", f"-{FACTOR} * epsilon0"),
        A_TREES,
        "x1.3: the flip rate of epsilon0 / 1.3 (more noise)",
    ),
    Mutant(
        "trees-shared-mask",
        BITS,
        MASK,
        MASK.replace("(l, w.size)", "(l, 1)").replace("(int(size), l, w.size)", "(int(size), l, 1)"),
        A_TREES,
        note="one bit-flip mask shared by all edges (the output reveals it: infinite loss)",
    ),
    *_scaled("zoo-exponential-scale", TEXTBOOK, EXP_LOGITS, _times(EXP_LOGITS, "2"), A_ZOO, "exponential mechanism"),
    Mutant(
        "zoo-exponential-no-factor-2",
        TEXTBOOK,
        EXP_LOGITS,
        "logits = self.epsilon * u / self.sensitivity",
        A_ZOO,
        note="the exponential mechanism without its factor 2",
    ),
    *_scaled(
        "zoo-sparse-vector-query-scale", SVT, SVT_QUERY, _times(SVT_QUERY, "2.0"), A_ZOO, "Lyu Alg. 1 query noise"
    ),
    *_pair(
        "zoo-gaussian-sigma-above-8.4",
        ADDITIVE,
        GAUSS_SIGMA,
        f"{GAUSS_SIGMA} * ({FACTOR} if epsilon > 8.4 else 1.0)",
        f"{GAUSS_SIGMA} / ({FACTOR} if epsilon > 8.4 else 1.0)",
        A_ZOO,
        "the analytic Gaussian's sigma, wrong only above eps = 8.4",
    ),
    Mutant(
        "zoo-sparse-vector-query-halved",
        SVT,
        SVT_QUERY,
        "self.query_scale = 1.0 * self.cutoff / eps2",
        A_ZOO,
        note="sparse vector's query noise halved (the monotone-query scale used for any queries)",
    ),
]


def main(argv=None) -> int:
    mutation.MUTANTS = AUDIT_MUTANTS
    mutation.PYTEST_ARGS = MARKER
    return mutation.main(argv)


if __name__ == "__main__":
    raise SystemExit(main())
