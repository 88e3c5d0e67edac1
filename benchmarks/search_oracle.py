"""How close does a search audit come to the best pair and event? search_audit against the search oracle.

For mechanisms whose output distributions are computable, the *search oracle* is
the best Clopper-Pearson lower bound that any event on any of the search's
candidate pairs could certify with ``n`` samples per input
(:func:`dpverify.audits.oracle.oracle_epsilon_bound` on every candidate, the
largest kept): pair and event chosen with perfect knowledge, no sample spent on
choosing. :func:`dpverify.search_audit` draws the same candidates (the record of
its result), screens them on its own budget and certifies the chosen pair on
``n_samples - n_selection`` fresh samples per input; ``search / oracle`` is what
the search and the event selection cost together. The goal is >= 0.9 at 1e7
samples per input. Column "plain on best pair": :func:`dpverify.audit` handed
the oracle's best pair (what a user who knew the worst pair would get).

Exact distributions as in ``benchmarks/oracle.py``: closed forms (randomized
response, exponential mechanism, geometric, sparse vector Alg. 5), quadrature
(report noisy max, the noisy max returning its value, sparse vector Alg. 1 and 6, the
latter as masks and as answer rows), the pmf of a sufficient statistic
(binary counter with geometric noise), one changed count (geometric histogram). Vector outputs
whose pairs move several coordinates (the geometric histogram on every l1 pattern, prefix sums
with geometric noise) use the pmfs of the whole vector's privacy-loss statistic
(:func:`dpverify.mechanisms.histogram.geometric_loss_pmfs`), whose events are the whole
vector's likelihood-ratio level sets with the same probabilities.

The claims of the other kinds are covered too (``--kind zcdp`` or ``--kind gdp``): the search
certifies the claim's own parameter (rho, mu) and the oracle is
:func:`dpverify.audits.oracle.oracle_claim_bound` (the best event, or partition, chosen from the
exact distributions) on every candidate.

As an asv benchmark, ``SearchOracleRatio.track_ratio_to_oracle`` per case at
2e5 samples per input and the default candidates. As a script::

    python benchmarks/search_oracle.py --samples 1e7 [--cases noisy] [--candidates 64] [--screening 1] \
        [--refining 0.25] [--kind zcdp]

prints a Markdown table.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import dpverify
from dpverify.audits.oracle import oracle_claim_bound, oracle_epsilon_bound
from dpverify.mechanisms import (
    ExponentialMechanism,
    GeometricMechanism,
    NoisyMaxValue,
    RandomizedResponse,
    ReportNoisyMax,
    SparseVector,
    SparseVectorNoQueryNoise,
)
from dpverify.mechanisms.counter import GeometricBinaryCounter, GeometricPrefixSums
from dpverify.mechanisms.histogram import GeometricHistogram, two_sided_geometric_pmf
from dpverify.mechanisms.sparse_vector import SparseVectorDworkRoth, SparseVectorNoCutoff
from dpverify.neighbours import QueryVectors, query_vectors, streams
from dpverify.neighbours.domain import InputDomain

if not __package__:  # run as a script: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import WholeRun, case_figure, fmt, select_cases  # noqa: E402

ALPHA = 0.05
SEED = 20261124
EPS = 0.1
ASV_SAMPLES = 200_000
ASV_CANDIDATES = None  # search_audit's default


@dataclass(frozen=True)
class SearchCase:
    """A mechanism, the neighbours to search, and ``pmfs(x, x_prime) -> (pmf_x, pmf_x_prime)``."""

    name: str
    mechanism: object = field(repr=False)
    neighbours: object = field(repr=False)
    pmfs: object = field(repr=False)


def _own(mechanism):
    return lambda x, xp: (mechanism.pmf(x), mechanism.pmf(xp))


def _cases() -> list[SearchCase]:
    geo = GeometricMechanism(EPS)
    hist = GeometricHistogram(EPS)
    counter = GeometricBinaryCounter(1.0)
    out = [
        SearchCase("randomized response", RandomizedResponse(EPS), [(0, 1), (1, 0)], None),
        SearchCase(
            "geometric",
            geo,
            query_vectors(None),
            lambda x, xp: tuple(two_sided_geometric_pmf([int(x), int(xp)], geo.ratio)),
        ),
        SearchCase("exponential mechanism", ExponentialMechanism(EPS), query_vectors(5), None),
        SearchCase("report noisy max, Laplace", ReportNoisyMax(EPS, "laplace"), query_vectors(5), None),
        SearchCase("report noisy max, exponential", ReportNoisyMax(EPS, "exponential"), query_vectors(5), None),
        SearchCase("BROKEN noisy max value, Laplace", NoisyMaxValue(EPS, "laplace"), query_vectors(5), None),
        SearchCase("BROKEN noisy max value, exponential", NoisyMaxValue(EPS, "exponential"), query_vectors(5), None),
        SearchCase("sparse vector Alg. 1, c = 1, 10 queries", SparseVector(EPS), query_vectors(10), None),
        SearchCase("BROKEN sparse vector Alg. 6, 10 queries", SparseVectorNoCutoff(EPS), query_vectors(10), None),
        SearchCase(
            "BROKEN sparse vector Alg. 6, 10 queries, answer rows",
            SparseVectorNoCutoff(EPS, output="answers"),
            query_vectors(10),
            _own(SparseVectorNoCutoff(EPS)),  # the masks' pmf: the rows are in bijection with them
        ),
        SearchCase(
            "BROKEN sparse vector Alg. 5, 10 queries",
            SparseVectorNoQueryNoise(EPS, threshold=4.0),
            query_vectors(10),
            None,
        ),
        SearchCase(
            "geometric histogram, 5 counts (l1)",
            hist,
            QueryVectors(5, norm="l1", patterns=("one_above", "one_below")),
            hist.coordinate_pmfs,
        ),
        SearchCase(
            "binary counter, geometric, T = 8, eps = 1",
            counter,
            streams(8),
            counter.statistic_pmfs,
        ),
    ]
    out += _vector_cases()
    return [SearchCase(c.name, c.mechanism, c.neighbours, c.pmfs or _own(c.mechanism)) for c in out]


def _vector_cases() -> list[SearchCase]:
    """Vector outputs whose whole-vector distributions are computable (the peers' benchmarks, benchmarks/peers.py)."""
    hist = GeometricHistogram(EPS)
    items, sums = GeometricPrefixSums(EPS, "items"), GeometricPrefixSums(EPS, "sums")
    return [
        SearchCase(
            "geometric histogram, 5 counts, whole vector (every l1 pattern)",
            hist,
            QueryVectors(5, norm="l1", domain=InputDomain(low=0, integer=True)),
            hist.loss_pmfs,
        ),
        SearchCase("prefix sums, geometric noise on items, T = 8", items, streams(8), items.loss_pmfs),
        SearchCase("BROKEN prefix sums, geometric noise on each sum, T = 8", sums, streams(8), sums.loss_pmfs),
        SearchCase(
            "sparse vector Alg. 2 (refresh), c = 2, 10 queries",
            SparseVectorDworkRoth(EPS, 1.0, 2),
            query_vectors(10),
            None,
        ),
    ]


CASES = {case.name: case for case in _cases()}


#: The claims a search of another kind audits: their parameters set the verdicts only, not the bounds compared.
KIND_CLAIMS = {"zcdp": dpverify.PrivacyClaim.zcdp(1.0), "gdp": dpverify.PrivacyClaim.gdp(1.0)}


@functools.cache
def _pair_oracle(name: str, x, x_prime, n: int, alpha: float, kind: str = "dp") -> float:
    pmf_x, pmf_xp = CASES[name].pmfs(x, x_prime)
    if kind != "dp":
        return oracle_claim_bound(pmf_x, pmf_xp, KIND_CLAIMS[kind], n, alpha=alpha).claim_lower_bound
    return oracle_epsilon_bound(pmf_x, pmf_xp, n, alpha=alpha).epsilon_lower_bound


def search_oracle(name: str, pairs, n: int, alpha: float = ALPHA, kind: str = "dp") -> tuple[float, int]:
    """The best oracle bound over ``pairs`` at ``n`` samples per input, and the index of its pair."""
    bounds = [_pair_oracle(name, x, xp, n, alpha, kind) for x, xp in pairs]
    best = max(range(len(bounds)), key=lambda i: bounds[i])
    return bounds[best], best


def compare(
    name: str, n_samples: int, *, n_candidates=None, screening=None, refining=0.0, alpha=ALPHA, seed=SEED, kind="dp"
) -> dict:
    """One row: search bound, search oracle, ratio, the plain audit on the oracle's pair, times.

    ``screening`` and ``refining`` are multiples of ``n_samples`` (None: the default screening); ``kind``
    ``"dp"`` audits the mechanism's epsilon, ``"zcdp"`` or ``"gdp"`` a claim of that kind (bounds on rho, mu)."""
    case = CASES[name]
    stated = dict(epsilon=case.mechanism.epsilon) if kind == "dp" else dict(claim=KIND_CLAIMS[kind])
    n_screening = None if screening is None else int(screening * n_samples)
    n_refining = int(refining * (n_screening or dpverify.audits.search.default_screening_size(n_samples)))
    start = time.perf_counter()
    result = dpverify.search_audit(
        case.mechanism,
        case.neighbours,
        **stated,
        n_samples=n_samples,
        n_candidates=n_candidates,
        n_screening=n_screening,
        n_refining=n_refining,
        alpha=alpha,
        seed=seed,
    )
    seconds = time.perf_counter() - start
    pairs = [(c.x, c.x_prime) for c in result.candidates]
    oracle, best = search_oracle(name, pairs, n_samples, alpha, kind)
    chosen_oracle = _pair_oracle(name, result.x, result.x_prime, n_samples, alpha, kind)
    screened = [(c, _pair_oracle(name, c.x, c.x_prime, n_samples, alpha, kind)) for c in result.candidates]
    start = time.perf_counter()
    plain = dpverify.audit(case.mechanism, *pairs[best], **stated, n_samples=n_samples, alpha=alpha, seed=seed)
    plain_seconds = time.perf_counter() - start
    return dict(
        case=name,
        candidates=len(pairs),
        oracle=oracle,
        oracle_pair=pairs[best],
        chosen_pair=(result.x, result.x_prime),
        chosen_oracle=chosen_oracle,
        search=result.claim_lower_bound,
        ratio=result.claim_lower_bound / oracle if oracle > 0 else float("nan"),
        plain=plain.claim_lower_bound,
        seconds=seconds,
        plain_seconds=plain_seconds,
        screened=screened,
    )


class SearchOracleRatio(WholeRun):
    """search_audit's bound over the search oracle per case, at 2e5 samples per input and the default candidates."""

    params = [list(CASES)]
    param_names = ["case"]
    timeout = 900

    def setup_cache(self):
        return {name: compare(name, ASV_SAMPLES, n_candidates=ASV_CANDIDATES) for name in CASES}

    track_ratio_to_oracle = case_figure("ratio", "search / oracle")
    track_search_bound = case_figure("search", "epsilon")


def _short(pair) -> str:
    text = f"{pair[0]} ~ {pair[1]}"
    return text if len(text) <= 70 else text[:67] + "..."


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=float, default=1e7, help="samples per input (default 1e7)")
    parser.add_argument("--candidates", type=int, default=None, help="candidate pairs (default: search_audit's)")
    parser.add_argument(
        "--screening", type=float, default=None, help="screening budget as a multiple of --samples (default 1)"
    )
    parser.add_argument(
        "--refining", type=float, default=0.0, help="share of the screening budget refining the winner (default 0)"
    )
    parser.add_argument("--cases", nargs="*", default=None, help="substrings of case names (default: all)")
    parser.add_argument("--alpha", type=float, default=ALPHA)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--kind", choices=["dp", "zcdp", "gdp"], default="dp", help="the claim kind audited (default dp: epsilon)"
    )
    parser.add_argument(
        "--report-screening",
        action="store_true",
        help="after each row, every candidate: rounds, samples, last predicted bound, its oracle, its event",
    )
    args = parser.parse_args(argv)
    names = select_cases(CASES, args.cases)
    n = int(args.samples)
    print(
        f"{n:.0e} samples per input, alpha = {args.alpha}, seed {args.seed}, candidates "
        f"{args.candidates or 'default'}, screening {args.screening or 'default'} x samples, refining "
        f"{args.refining} of it, claim kind {args.kind}\n"
    )
    print(
        "| case | pairs | search oracle | search bound | ratio | chosen pair | its oracle | "
        "plain audit on oracle's pair | time search / plain |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    settings = dict(
        n_candidates=args.candidates, screening=args.screening, refining=args.refining, seed=args.seed, kind=args.kind
    )
    for name in names:
        r = compare(name, n, alpha=args.alpha, **settings)
        print(
            f"| {name} | {r['candidates']} | {fmt(r['oracle'])} | {fmt(r['search'])} | {fmt(r['ratio'], 3)} | "
            f"{_short(r['chosen_pair'])} | {fmt(r['chosen_oracle'])} | {fmt(r['plain'])} | "
            f"{r['seconds']:.1f} s / {r['plain_seconds']:.1f} s |",
            flush=True,
        )
        if args.report_screening:
            _print_screening(r)


def _print_screening(row) -> None:
    """What screening saw of each candidate beside the candidate's own oracle (the chosen pair marked)."""
    for i, (c, oracle) in enumerate(row["screened"]):
        mark = "*" if (c.x, c.x_prime) == row["chosen_pair"] else " "
        print(
            f"  {mark}{i:3d} rounds {c.rounds} n {c.n_screened:9d} predicted {c.predicted_bound:9.4f} "
            f"oracle {oracle:.4f} {c.event[:60]}"
        )


if __name__ == "__main__":
    main()
