"""What does choosing the event cost on discrete outputs? The expected bound of the selection's picks.

A search's bound falls short of the search oracle for three reasons: screening picks a worse pair,
the selection picks a worse event, and certification draws a count below its expectation. This
script isolates the second. For a pair whose output pmfs are exact, it draws selection samples from
the pmfs themselves (multinomial counts, no mechanism run), runs the auditor's own event selection
(:func:`dpverify.pipeline.selection.select`, every default family, three picks) and scores its
picks at their *expected* counts: the Clopper-Pearson bound each pick would certify on
``n_certification`` samples at alpha divided by the number of picks (the audit's Bonferroni), the
best pick kept. The ratio to :func:`dpverify.audits.oracle.oracle_epsilon_bound` at ``n_oracle``
samples (the search oracle's budget) is then what selection and the selection/certification split
cost together, free of certification noise. Column "cap": the oracle at ``n_certification`` and
alpha / 3, the most any three-pick audit could expect.

Cases: sparse vector Alg. 2 with refreshed thresholds (Lyu, Su and Li 2017, Algorithm 2; c = 2,
10 queries, 56 outputs whose log ratios all lie within 0.05 of 0) on the all-ones/all-zeros pair,
and Alg. 6 (no cutoff, 1,024 masks) on the half-half pair. As a script::

    python benchmarks/selection_efficiency.py --selection 2.34e6 4e6 9e6 [--seeds 12] [--cases "Alg. 2"]

prints a Markdown table (mean and range over seeds).

References
----------
M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for Differential Privacy",
PVLDB 10(6), 2017, Figure 1, Algorithms 2 and 6.

B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box Discovery of Differential
Privacy Violations using Classifiers", IEEE S&P 2021 (likelihood-ratio level sets).
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np

from dpverify.audits.oracle import oracle_epsilon_bound
from dpverify.mechanisms.sparse_vector import SparseVectorDworkRoth, SparseVectorNoCutoff
from dpverify.pipeline.selection import select
from dpverify.support.bounds import clopper_pearson_epsilon_bound

EPS = 0.1
ALPHA = 0.05
N_ORACLE = 10_000_000
N_CERTIFICATION = 9_000_000


def _cases() -> dict:
    """name -> (mechanism, x, x_prime)."""
    return {
        "sparse vector Alg. 2 (refresh), c = 2, 10 queries": (
            SparseVectorDworkRoth(EPS, 1.0, 2),
            (1.0,) * 10,
            (0.0,) * 10,
        ),
        "BROKEN sparse vector Alg. 6, 10 queries (masks)": (
            SparseVectorNoCutoff(EPS),
            (1.0,) * 10,
            (0.0,) * 5 + (2.0,) * 5,
        ),
    }


def _as_arrays(pmf_x: dict, pmf_x_prime: dict):
    labels = sorted(set(pmf_x) | set(pmf_x_prime))
    p = np.array([pmf_x.get(k, 0.0) for k in labels])
    q = np.array([pmf_x_prime.get(k, 0.0) for k in labels])
    return np.array(labels), p / p.sum(), q / q.sum()


def picks_expected_bound(labels, p, q, n_selection: int, n_certification: int, seed: int, alpha: float = ALPHA):
    """The best expected certified bound of the picks the selection makes on one draw of ``n_selection``
    samples per input from the pmfs ``p`` and ``q`` over ``labels``."""
    rng = np.random.default_rng(seed)
    sel_x = labels[rng.choice(len(labels), size=n_selection, p=p)]
    sel_x_prime = labels[rng.choice(len(labels), size=n_selection, p=q)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        selection = select(sel_x, sel_x_prime, n_certification=n_certification, epsilon=EPS, delta=0.0, alpha=alpha)
    codes = selection.codec.encode(labels)
    picks = selection.verdict_choices
    best = 0.0
    for choice in picks:
        inside = np.asarray(choice.event.indicator(codes), dtype=bool)
        mass_p, mass_q = p[inside].sum(), q[inside].sum()
        if choice.direction == "x_prime":
            mass_p, mass_q = mass_q, mass_p
        bound = clopper_pearson_epsilon_bound(
            mass_p * n_certification, n_certification, mass_q * n_certification, n_certification, alpha / len(picks)
        )
        best = max(best, float(bound))
    return best


def efficiency(name: str, n_selection: int, seeds, n_certification: int = N_CERTIFICATION) -> dict:
    """Ratios of the picks' expected bound to the oracle at :data:`N_ORACLE`, one per seed, and the cap."""
    mechanism, x, x_prime = _cases()[name]
    labels, p, q = _as_arrays(mechanism.pmf(x), mechanism.pmf(x_prime))
    pmfs = (dict(zip(labels.tolist(), p)), dict(zip(labels.tolist(), q)))
    oracle = oracle_epsilon_bound(*pmfs, N_ORACLE, alpha=ALPHA).epsilon_lower_bound
    cap = oracle_epsilon_bound(*pmfs, n_certification, alpha=ALPHA / 3).epsilon_lower_bound
    bounds = np.array([picks_expected_bound(labels, p, q, n_selection, n_certification, s) for s in seeds])
    return dict(case=name, n_selection=n_selection, oracle=oracle, cap=cap / oracle, ratios=bounds / oracle)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--selection", type=float, nargs="+", default=[2.34e6, 4e6], help="selection samples per input")
    parser.add_argument("--seeds", type=int, default=12, help="selection draws per size (seeds 0..S-1)")
    parser.add_argument("--cases", nargs="*", default=None, help="substrings of case names (default: all)")
    args = parser.parse_args(argv)
    names = [n for n in _cases() if args.cases is None or any(c in n for c in args.cases)]
    print(f"oracle at {N_ORACLE:.0e} samples per input, picks certified on {N_CERTIFICATION:.0e}, alpha = {ALPHA}")
    print()
    print("| case | selection per input | oracle | picks / oracle, mean (range) | cap |")
    print("|---|---|---|---|---|")
    for name in names:
        for n in args.selection:
            r = efficiency(name, int(n), range(args.seeds))
            ratios = r["ratios"]
            print(
                f"| {name} | {n:.3g} | {r['oracle']:.4g} | {ratios.mean():.3f} "
                f"({ratios.min():.3f}-{ratios.max():.3f}) | {r['cap']:.3f} |"
            )


if __name__ == "__main__":
    main()
