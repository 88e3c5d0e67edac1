"""One-run canary audits on the very same scores: dpverify's and its peers' false alarms and tightness.

Every analysis here reads one run's canary scores and their inclusion bits (each canary in with
probability 1/2, independently) and returns a lower bound on epsilon at ``DELTA`` with confidence
``1 - ALPHA``. dpverify's is :func:`dpverify.audits.one_run.one_run_audit` (Steinke, Nasr and
Jagielski 2023). The peers are optional imports: a peer that does not import is reported as
"not installed" and its rows are left out; nothing in ``dpverify`` imports them.

- jax_privacy (``pip install jax-privacy``): ``jax_privacy.auditing.CanaryScoreAuditor`` on the
  included canaries' scores against the excluded ones', its four bounds: ``epsilon_one_run``
  (Steinke et al.), ``epsilon_one_run_fdp`` (Mahloujifar, Melis and Chaudhuri 2025, through a
  Gaussian DP curve), ``epsilon_from_gdp`` (Gaussian DP fitted to Clopper-Pearson boxes) and
  ``epsilon_clopper_pearson`` (a two-sample bound: it assumes independent runs), each with its
  default threshold strategy (Bonferroni over the thresholds).
- opake-auditing (``pip install opake-auditing``): ``opake.auditing.one_run`` (Xiang et al. 2025's
  order statistics) on a coin-flip partition built from the same bits, its ``eps_delta()`` and
  ``gdp()`` methods' ``epsilon_at`` (the Gaussian DP integration on its smallest grid, 1,000 points).
- PrivacyGuard's f-DP analysis (``privacy_guard.analysis.mia.fdp_analysis_node``, from
  github.com/facebookresearch/PrivacyGuard; the PyPI name ``privacy-guard`` is an unrelated tool):
  listed; no adapter is written, so it has no rows even where it imports.

Simulated runs (``m`` canaries each, fixed seeds), and the true epsilon a bound must not exceed:

- ``null``: i.i.d. normal scores, independent of the bits (true epsilon 0);
- ``null, shared effects``: a run-level effect shared by all canaries, ten clusters of canaries
  sharing an effect, heavy-tailed (Student t, 3 degrees of freedom) noise, all independent of the
  bits (true epsilon 0);
- ``ideal eps 2``: randomized response, each score +-1 telling the canary's bit truly with
  probability e^2 / (1 + e^2), independently (the worst case of Steinke et al.'s Theorem 3.1);
- ``eps 1, shared truth rate``: randomized response whose truth rate ``u`` is drawn once per run,
  uniform on [1/2, e / (1 + e)], plus the shared effects above at a tenth of the scale. Given
  ``u`` each canary's likelihood ratio is within [e^-1, e], so the mixture over ``u`` is 1-DP in
  each bit whatever the others are; the canaries interfere through ``u`` (true epsilon at most 1).

A bound above the true epsilon is a false alarm. dpverify is run at ``DELTA`` like the peers and
at delta 0 (every mechanism here is pure DP). Tightness: ideal canaries (randomized response,
+-1 scores) at epsilon 2, 4 and 8 with 1e3, 1e4 and 1e5 canaries; each analysis's bound beside
its ceiling for that canary count, the bound it gives when every score tells its bit (scores
``2 bits - 1``, the same ties), and beside the smaller of the true epsilon and that ceiling.

As an asv benchmark: ``OneRunPeers.track_false_alarms`` (dpverify, 50 runs of 1,000 canaries per
case) and ``OneRunPeers.track_ceiling_fraction`` (dpverify, one run at 1e3 and 1e4 canaries). As
a script::

    python benchmarks/one_run_peers.py [--runs 200] [--canaries 1000] [--tightness-max 100000]

prints both tables in Markdown (run it where the peers are installed to get their rows).

References
----------
T. Steinke, M. Nasr and M. Jagielski, "Privacy Auditing with One (1) Training Run", NeurIPS 2023.
S. Mahloujifar, L. Melis and K. Chaudhuri, "Auditing f-Differential Privacy in One Run", ICML 2025.
"""

from __future__ import annotations

import argparse
import importlib
import math
import time

import numpy as np
from scipy.special import expit

from dpverify.audits.one_run import one_run_audit

ALPHA = 0.05
DELTA = 1e-5
SEED = 20261202
#: Validity cases: name -> true epsilon (the bound a valid analysis exceeds with probability <= ALPHA).
TRUE_EPSILON = {"null": 0.0, "null, shared effects": 0.0, "ideal eps 2": 2.0, "eps 1, shared truth rate": 1.0}
TIGHTNESS_EPSILONS = (2.0, 4.0, 8.0)
TIGHTNESS_CANARIES = (1_000, 10_000, 100_000)
#: opake's Gaussian DP integration grid: its smallest allowed (its default, 1e4 points, costs 5 CPU s a run).
OPAKE_GDP_GRID = 1_000
#: Clusters of canaries sharing an effect in the shared-effects cases.
CLUSTERS = 10


def randomized_response(truth_rate, bits, rng) -> np.ndarray:
    """+-1 scores telling each bit truly with probability ``truth_rate`` (one per run, broadcast)."""
    truthful = rng.random(bits.shape) < np.asarray(truth_rate)[..., None]
    return np.where(bits == truthful, 1.0, -1.0)


def shared_effects(runs, m, rng, scale=1.0) -> np.ndarray:
    """A run-level effect, ``CLUSTERS`` cluster effects (sd 3) and Student t(3) noise, independent of any bit."""
    run_effect = rng.normal(size=(runs, 1))
    cluster = rng.integers(0, CLUSTERS, size=m)
    cluster_effect = 3.0 * rng.normal(size=(runs, CLUSTERS))[:, cluster]
    return scale * (run_effect + cluster_effect + rng.standard_t(3, size=(runs, m)))


def _shared_truth_rate(bits, rng) -> np.ndarray:
    """Randomized response at a truth rate drawn per run in [1/2, e / (1 + e)], plus shared effects / 10."""
    rate = rng.uniform(0.5, expit(1.0), size=bits.shape[0])
    return randomized_response(rate, bits, rng) + shared_effects(*bits.shape, rng, scale=0.1)


#: Each case's scores from its bits (shape (runs, m)) and the generator.
SCORES = {
    "null": lambda bits, rng: rng.normal(size=bits.shape),
    "null, shared effects": lambda bits, rng: shared_effects(*bits.shape, rng),
    "ideal eps 2": lambda bits, rng: randomized_response(np.full(bits.shape[0], expit(2.0)), bits, rng),
    "eps 1, shared truth rate": _shared_truth_rate,
}


def simulated_runs(case, runs, m, seed=SEED) -> tuple:
    """``(scores, bits)``, each of shape (runs, m), of a case of :data:`TRUE_EPSILON`."""
    if case not in SCORES:
        raise ValueError(f"unknown case {case!r}; the cases are {list(SCORES)}")
    rng = np.random.default_rng([seed, list(SCORES).index(case)])
    bits = rng.random((runs, m)) < 0.5
    return SCORES[case](bits, rng), bits


def dpverify_steinke(scores, bits, delta=DELTA) -> float:
    """dpverify's one-run bound (its default guess grid)."""
    return one_run_audit(scores, bits, delta=delta, alpha=ALPHA).epsilon_lower_bound


def dpverify_steinke_pure(scores, bits) -> float:
    """dpverify's one-run bound at delta 0 (every simulated mechanism here is pure DP)."""
    return dpverify_steinke(scores, bits, delta=0.0)


def _jax_privacy_analyses() -> dict:
    """jax_privacy's CanaryScoreAuditor bounds, each ``(scores, bits) -> epsilon``."""
    from jax_privacy.auditing import CanaryScoreAuditor

    def bound(method):
        def analysis(scores, bits):
            auditor = CanaryScoreAuditor(scores[bits], scores[~bits])
            return float(getattr(auditor, method)(ALPHA, DELTA))

        return analysis

    methods = ("epsilon_one_run", "epsilon_one_run_fdp", "epsilon_from_gdp", "epsilon_clopper_pearson")
    return {f"jax_privacy {method}": bound(method) for method in methods}


def _opake_analyses() -> dict:
    """opake-auditing's one-run estimate (Xiang et al. 2025), its (epsilon, delta) and Gaussian DP methods."""
    import opake.auditing as opake_auditing
    from opake.auditing.types import CoinFlip

    def estimate(scores, bits):
        ids = np.arange(scores.size)
        coins = CoinFlip(scores.size, ids, bits, ids[bits], ids[~bits], scores.size)
        return opake_auditing.one_run(opake_auditing.canary_scores(scores, canary_indices=ids), coin_flip=coins)

    def eps_delta(scores, bits):
        return float(estimate(scores, bits).eps_delta().epsilon_at(delta=DELTA, significance=ALPHA))

    def gdp(scores, bits):
        method = estimate(scores, bits).gdp(grid_size=OPAKE_GDP_GRID)
        return float(method.epsilon_at(delta=DELTA, significance=ALPHA))

    return {"opake eps_delta": eps_delta, "opake gdp": gdp}


def _privacy_guard_analyses() -> dict:
    importlib.import_module("privacy_guard.analysis.mia.fdp_analysis_node")
    raise NotImplementedError("installed, but no adapter is written for its f-DP analysis yet")


#: Peer -> (how to install it, the loader of its analyses).
PEERS = {
    "jax_privacy": ("pip install jax-privacy", _jax_privacy_analyses),
    "opake-auditing": ("pip install opake-auditing", _opake_analyses),
    "PrivacyGuard": ("from github.com/facebookresearch/PrivacyGuard (not on PyPI)", _privacy_guard_analyses),
}


def analyses() -> tuple:
    """``(analyses, absent)``: name -> ``(scores, bits) -> epsilon`` for dpverify and every peer that
    imports; peer -> why it has no rows (not installed, with how to install it, or not wired)."""
    found = {"dpverify one_run_audit": dpverify_steinke, "dpverify one_run_audit, delta 0": dpverify_steinke_pure}
    absent = {}
    for peer, (install, load) in PEERS.items():
        try:
            found.update(load())
        except ImportError as error:
            absent[peer] = f"not installed ({install}): {error}"
        except NotImplementedError as error:
            absent[peer] = str(error)
    return found, absent


def false_alarms(case, analysis, runs, m) -> np.ndarray:
    """The bounds of ``analysis`` on each of ``runs`` simulated runs of ``case``."""
    scores, bits = simulated_runs(case, runs, m)
    return np.array([analysis(s, b) for s, b in zip(scores, bits)])


def ideal_run(epsilon, m, seed=SEED) -> tuple:
    """One run of ``m`` ideal canaries (randomized response at ``epsilon``): ``(scores, bits)``."""
    rng = np.random.default_rng([seed, m, int(epsilon * 1000)])
    bits = rng.random(m) < 0.5
    return randomized_response(expit(epsilon), bits, rng), bits


def tightness(analysis, epsilon, m) -> tuple:
    """``(bound, ceiling)`` of ``analysis`` on one run of ideal canaries and on scores that tell every bit."""
    scores, bits = ideal_run(epsilon, m)
    return analysis(scores, bits), analysis(np.where(bits, 1.0, -1.0), bits)


class OneRunPeers:
    """dpverify's one-run audit on the simulated runs (the peers only in the script)."""

    timeout = 600

    def track_false_alarms(self, case):
        return int(np.sum(false_alarms(case, dpverify_steinke, 50, 1000) > TRUE_EPSILON[case]))

    track_false_alarms.params = list(TRUE_EPSILON)
    track_false_alarms.param_names = ["case"]
    track_false_alarms.unit = "false alarms in 50 runs"

    def track_ceiling_fraction(self, epsilon, m):
        bound, ceiling = tightness(dpverify_steinke, epsilon, m)
        return bound / ceiling

    track_ceiling_fraction.params = (list(TIGHTNESS_EPSILONS), [1_000, 10_000])
    track_ceiling_fraction.param_names = ["epsilon", "canaries"]
    track_ceiling_fraction.unit = "certified / ceiling"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--canaries", type=int, default=1000)
    parser.add_argument("--analyses", nargs="*", default=(), help="only the analyses whose name contains one of these")
    parser.add_argument("--tightness-max", type=int, default=100_000, help="largest canary count (tightness)")
    args = parser.parse_args(argv)
    found, absent = analyses()
    if args.analyses:
        found = {name: f for name, f in found.items() if any(part in name for part in args.analyses)}
    for peer, why in absent.items():
        print(f"- {peer}: {why}")
    print(f"\nFalse alarms: {args.runs} runs of {args.canaries} canaries, alpha {ALPHA}, delta {DELTA:g}\n")
    print("| case | true eps | analysis | false alarms | median bound | largest bound | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for case, true_epsilon in TRUE_EPSILON.items():
        for name, analysis in found.items():
            start = time.process_time()
            bounds = false_alarms(case, analysis, args.runs, args.canaries)
            seconds = time.process_time() - start
            over = int(np.sum(bounds > true_epsilon))
            print(
                f"| {case} | {true_epsilon:g} | {name} | {over} / {args.runs} | {np.median(bounds):.3g} "
                f"| {bounds.max():.3g} | {seconds:.1f} |"
            )
    print(f"\nTightness: one run of ideal canaries, alpha {ALPHA}, delta {DELTA:g}\n")
    columns = ("true eps", "canaries", "analysis", "certified", "ceiling", "/ ceiling", "/ min(true, ceiling)", "CPU s")
    print("| " + " | ".join(columns) + " |")
    print("|---|---|---|---|---|---|---|---|")
    for epsilon in TIGHTNESS_EPSILONS:
        for m in (m for m in TIGHTNESS_CANARIES if m <= args.tightness_max):
            for name, analysis in found.items():
                start = time.process_time()
                bound, ceiling = tightness(analysis, epsilon, m)
                share = bound / ceiling if ceiling > 0 else math.nan
                reachable = bound / min(epsilon, ceiling) if ceiling > 0 else math.nan
                print(
                    f"| {epsilon:g} | {m} | {name} | {bound:.3f} | {ceiling:.3f} | {share:.3f} | {reachable:.3f} "
                    f"| {time.process_time() - start:.1f} |"
                )


if __name__ == "__main__":
    main()
