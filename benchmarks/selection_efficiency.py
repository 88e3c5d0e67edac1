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

**What any level set of the sample could reach** (``--search-seeds 1 2 ...``). Alg. 2 on the pair a
search at 1e7 should find: for each search seed, the search oracle's pair among the candidates
:func:`dpverify.search_audit` proposes at that seed (:func:`search_pair`), at the split the search
spends on Alg. 2 at 1e7 samples per input (:data:`SEARCH_SELECTION` to select, :data:`SEARCH_CERTIFICATION`
to certify, read off its result's ``draws``). Beside the auditor's own picks, the *idealized* selection
(:func:`idealized_bound`) ranks the outputs by their ratios estimated on all the selection samples and is
*told* which prefix of that ranking certifies most (its expected Clopper-Pearson bound at the exact
probabilities), and certifies that one event at the full alpha: no selection that forms level sets of
the sample's ranking can expect more. Two rankings: the smoothed log ratio ``ln((a + 1/2)/(b + 1/2))``
and its empirical-Bayes shrinkage towards the weighted mean (normal prior, variance by moments; Efron and
Morris 1973), which ranks better where rare outputs' ratios are mostly noise. The columns ``cap``: the
oracle at the certification size, alpha / 3 (three picks) and alpha (one). ``--split`` adds the idealized
selection at other splits of the same samples (selection + certification fixed)::

    python benchmarks/selection_efficiency.py --search-seeds 1 2 3 4 5 6 7 8 [--seeds 8] [--split 2e6 3e6 4e6]

References
----------
M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for Differential Privacy",
PVLDB 10(6), 2017, Figure 1, Algorithms 2 and 6.

B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box Discovery of Differential
Privacy Violations using Classifiers", IEEE S&P 2021 (likelihood-ratio level sets).

B. Efron, C. Morris, "Stein's estimation rule and its competitors -- an empirical Bayes approach",
Journal of the American Statistical Association 68(341), 1973 (the shrinkage of the ranking).
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
#: What ``search_audit`` of Alg. 2 at 1e7 samples per input spends on its chosen pair: the selection (its
#: screening samples, topped up) and the certification, as its result's ``draws`` state them (3e6 screen).
SEARCH_SELECTION = 1_000_000
SEARCH_CERTIFICATION = 6_703_125


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


def search_pair(seed: int) -> tuple:
    """The search oracle's pair of Alg. 2 among the candidates ``search_audit(..., query_vectors(10), seed=seed)``
    proposes (their default number), and its exact pmfs as ``(labels, p, q)``."""
    from dpverify.audits.search import _proposed_pairs
    from dpverify.neighbours import query_vectors
    from dpverify.pipeline.sampling import resolve_seed

    mechanism = SparseVectorDworkRoth(EPS, 1.0, 2)
    pairs, _ = _proposed_pairs(query_vectors(10), None, resolve_seed(seed)[0])
    pmfs = [(mechanism.pmf(x), mechanism.pmf(xp)) for x, xp in pairs]
    bounds = [oracle_epsilon_bound(*pmf, N_ORACLE, alpha=ALPHA).epsilon_lower_bound for pmf in pmfs]
    best = int(np.argmax(bounds))
    return pairs[best], _as_arrays(*pmfs[best])


def _shrunk_log_ratio(a, b):
    """The smoothed log ratios ``ln((a + 1/2)/(b + 1/2))`` shrunk towards their precision-weighted mean by the
    normal empirical-Bayes factor ``tau^2 / (tau^2 + v)`` (``v`` each estimate's delta-method variance,
    ``tau^2`` the spread of the true ratios by moments)."""
    ratio = np.log(a + 0.5) - np.log(b + 0.5)
    variance = 1 / (a + 0.5) + 1 / (b + 0.5)
    mean = np.sum(ratio / variance) / np.sum(1 / variance)
    spread = max(0.0, (np.sum((ratio - mean) ** 2) - np.sum(variance)) / max(1, len(ratio) - 1))
    return mean + spread / (spread + variance) * (ratio - mean)


RANKINGS = {
    "log ratio": lambda a, b: np.log(a + 0.5) - np.log(b + 0.5),
    "shrunk": _shrunk_log_ratio,
}


def idealized_bound(
    p, q, n_selection: int, n_certification: int, seed: int, ranking: str = "log ratio", share: float = 1.0
) -> float:
    """The expected certified bound of the best prefix of the outputs ranked on one draw of ``n_selection``
    samples per input (``ranking`` of :data:`RANKINGS`; on ``share`` of them, 1/2 for the level-set family's
    ranking half), the prefix chosen with the exact probabilities ``p``, ``q`` and certified alone on
    ``n_certification`` samples at :data:`ALPHA`."""
    rng = np.random.default_rng(seed)
    ranked = int(share * n_selection)
    a, b = rng.multinomial(ranked, p), rng.multinomial(ranked, q)
    best = 0.0
    for mass_p, mass_q, count_p, count_q in ((p, q, a, b), (q, p, b, a)):
        order = np.argsort(-RANKINGS[ranking](count_p, count_q), kind="stable")
        for in_p, in_q in zip(np.cumsum(mass_p[order]), np.cumsum(mass_q[order])):
            m = n_certification
            best = max(best, float(clopper_pearson_epsilon_bound(in_p * m, m, in_q * m, m, ALPHA)))
    return best


def search_split_rows(search_seeds, draws, splits=()) -> list[dict]:
    """One row per search seed: its pair's oracle at :data:`N_ORACLE`, and over ``draws`` selection draws
    (seeds 0..draws-1) the ratios to it of the auditor's picks and of :func:`idealized_bound` (each ranking)
    at the search's split, the caps, and the idealized bound (shrunk ranking) at each selection size of
    ``splits`` with the certification ``SEARCH_SELECTION + SEARCH_CERTIFICATION`` less it."""
    rows = []
    total = SEARCH_SELECTION + SEARCH_CERTIFICATION
    for search_seed in search_seeds:
        pair, (labels, p, q) = search_pair(search_seed)
        pmfs = (dict(zip(labels.tolist(), p)), dict(zip(labels.tolist(), q)))
        oracle = oracle_epsilon_bound(*pmfs, N_ORACLE, alpha=ALPHA).epsilon_lower_bound
        row = dict(seed=search_seed, pair=pair, oracle=oracle)
        for alpha, key in ((ALPHA / 3, "cap3"), (ALPHA, "cap1")):
            row[key] = oracle_epsilon_bound(*pmfs, SEARCH_CERTIFICATION, alpha=alpha).epsilon_lower_bound / oracle
        sizes = (SEARCH_SELECTION, SEARCH_CERTIFICATION)
        row["picks"] = np.mean([picks_expected_bound(labels, p, q, *sizes, s) for s in range(draws)]) / oracle
        for ranking in RANKINGS:
            row[ranking] = np.mean([idealized_bound(p, q, *sizes, s, ranking) for s in range(draws)]) / oracle
        row["half"] = np.mean([idealized_bound(p, q, *sizes, s, share=0.5) for s in range(draws)]) / oracle
        row["splits"] = {
            int(n): np.mean([idealized_bound(p, q, int(n), total - int(n), s, "shrunk") for s in range(draws)]) / oracle
            for n in splits
        }
        rows.append(row)
    return rows


def _print_search_split(search_seeds, draws, splits) -> None:
    print(
        f"Alg. 2 (refresh), the search oracle's pair of each search seed; selection {SEARCH_SELECTION}, "
        f"certification {SEARCH_CERTIFICATION} per input; mean over {draws} selection draws; ratios to the "
        f"pair's oracle at {N_ORACLE:.0e}, alpha = {ALPHA}\n"
    )
    split_heads = "".join(f" idealized, shrunk, selection {n:.3g} |" for n in splits)
    print(
        "| search seed | oracle | auditor's picks | idealized, log ratio on half | idealized, log ratio | "
        f"idealized, shrunk | cap (3 picks) | cap (1 pick) |{split_heads}"
    )
    print("|---" * (8 + len(splits)) + "|")
    rows = search_split_rows(search_seeds, draws, splits)
    for r in rows:
        extra = "".join(f" {v:.3f} |" for v in r["splits"].values())
        print(
            f"| {r['seed']} | {r['oracle']:.4f} | {r['picks']:.3f} | {r['half']:.3f} | {r['log ratio']:.3f} | "
            f"{r['shrunk']:.3f} | "
            f"{r['cap3']:.3f} | {r['cap1']:.3f} |{extra}",
            flush=True,
        )
    keys = ["picks", "half", "log ratio", "shrunk", "cap3", "cap1"]
    means = " | ".join(f"{np.mean([r[k] for r in rows]):.3f}" for k in keys)
    split_means = "".join(f" {np.mean([r['splits'][int(n)] for r in rows]):.3f} |" for n in splits)
    print(f"| mean | | {means} |{split_means}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--selection", type=float, nargs="+", default=[2.34e6, 4e6], help="selection samples per input")
    parser.add_argument("--seeds", type=int, default=12, help="selection draws per size (seeds 0..S-1)")
    parser.add_argument("--cases", nargs="*", default=None, help="substrings of case names (default: all)")
    parser.add_argument(
        "--search-seeds", type=int, nargs="*", default=None, help="Alg. 2 at the search's split: these search seeds"
    )
    parser.add_argument("--split", type=float, nargs="*", default=(), help="with --search-seeds: selection sizes")
    args = parser.parse_args(argv)
    if args.search_seeds:
        _print_search_split(args.search_seeds, args.seeds, args.split)
        return
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
