"""dpverify's search on the peers' own benchmark mechanisms, from the input domain alone, at the peers' budgets.

The mechanisms are those StatDP (Ding et al. 2018) and DP-Sniper (Bichsel et al. 2021)
benchmark, written here from their papers' definitions (:mod:`dpverify.mechanisms`): report
noisy max four ways (Laplace or exponential noise of scale 2/eps, returning the index or the
value), the noisy histogram, and the sparse vector technique in Lyu, Su and Li's six forms
(PVLDB 2017, Figure 1), plus the prefix sums and histogram with geometric noise, whose whole
output vectors have exact distributions. Each is claimed eps = 0.1 and audited at alpha = 0.1
(the peers' 90% confidence) by :func:`dpverify.search_audit` on the neighbours of its input
domain (:func:`dpverify.mechanisms.domains.zoo_domain`: StatDP's patterns on query vectors,
l1 for histograms; streams differing in one item for prefix sums), never on a hand-picked pair.

Budgets, per input, the search's whole budget (``n_samples``; screening draws as many again):
StatDP's default for query-vector cases, 2.1e6 (``--budget statdp``); DP-Sniper's, 7.1e6
(``--budget dpsniper``); by default each case gets the budget of the peer whose figure it is
compared with (``--budget peer``). ``--scale`` multiplies the budget (run small with it).

Columns: the claim; whether the claim is false (exact where the pmf exists); whether the search
flags it, and through which verdict ("value": the value events; "rounding": only the
floating-point events, whose leak is real but not the algorithmic flaw); the value bound (the
value verdict where floating-point events took part, else the verdict); the floating-point
bound (the verdict where a floating-point family took part, else "-"); the best figure a peer
published or measured ("-" where none is known to us); and the exact ceiling where the output
distribution is computable: the best Clopper-Pearson bound any event on any of the search's
candidate pairs could certify with the whole budget per input
(:func:`dpverify.audits.oracle.oracle_epsilon_bound`). A peer figure above the ceiling at its
own budget did not come from a confidence bound on one event at that budget.

As an asv benchmark, ``PeersSearch.track_value_bound`` per case at 2e5 samples per input. As a
script::

    python benchmarks/peers.py [--families noisy_max svt] [--scale 0.05] [--budget peer] [--cases Alg.]

prints a Markdown table.
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import dpverify
from dpverify.audits.oracle import oracle_epsilon_bound
from dpverify.mechanisms import (
    GeometricHistogram,
    GeometricPrefixSums,
    NoisyHistogram,
    NoisyMaxValue,
    ReportNoisyMax,
    SparseVector,
    SparseVectorDworkRoth,
    SparseVectorLeeClifton,
    SparseVectorNoCutoff,
    SparseVectorNoQueryNoise,
    SparseVectorValues,
)
from dpverify.mechanisms.catalogue import ZooEntry
from dpverify.mechanisms.domains import zoo_domain
from dpverify.neighbours import query_vectors, streams
from dpverify.neighbours.domain import InputDomain

if not __package__:  # run as a script: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import WholeRun, case_figure, fmt, select_cases  # noqa: E402

EPS = 0.1
ALPHA = 0.1
SEED = 20261127
#: Samples per input of the peers' runs: StatDP's default for query vectors, DP-Sniper's.
BUDGETS = {"statdp": 2_100_000, "dpsniper": 7_100_000}
ASV_SAMPLES = 200_000
#: Monte Carlo outputs per input behind a sparse vector Alg. 3 pair's estimated ceiling.
VALUES_MONTE_CARLO = 1_000_000
INF = float("inf")


@dataclass(frozen=True)
class PeerCase:
    """A peers' benchmark mechanism, the neighbours of its input domain and what is known of it.

    ``peer`` is the best figure a peer reported at claim 0.1 (None: none known), ``peer_name``
    whose it is (its budget is the case's default); ``pmfs(x, x_prime)`` gives exact pmfs (or
    those of a sufficient statistic), None where the output distribution is not computable;
    there ``pair_ceiling(x, x_prime, n, alpha)``, where given, estimates the ceiling otherwise
    (Monte Carlo over the exact likelihood ratio: :mod:`svt_values_ceiling`).
    """

    name: str
    family: str
    mechanism: object = field(repr=False)
    neighbours: object = field(repr=False)
    broken: bool
    peer: float | None = None
    peer_name: str = "statdp"
    pmfs: object = field(default=None, repr=False)
    pair_ceiling: object = field(default=None, repr=False)


def _domain(mechanism, x, x_prime):
    return zoo_domain(ZooEntry("", mechanism, x, x_prime, INF, False))


def _own(mechanism):
    return lambda x, xp: (mechanism.pmf(x), mechanism.pmf(xp))


def _values_ceiling(mechanism, x, x_prime, n, alpha):
    try:
        from .svt_values_ceiling import monte_carlo_ceiling
    except ImportError:  # run as a script
        from svt_values_ceiling import monte_carlo_ceiling

    return monte_carlo_ceiling(mechanism, x, x_prime, n, alpha=alpha, n_monte_carlo=VALUES_MONTE_CARLO, seed=SEED)


def _cases() -> list[PeerCase]:
    five, ten = ((1.0,) * 5, (2.0,) * 5), ((1.0,) * 10, (2.0,) * 10)
    out = []

    def add(
        name, family, mechanism, example, broken, peer=None, peer_name="statdp", pmfs="own", neighbours=None, **more
    ):
        neighbours = neighbours if neighbours is not None else _domain(mechanism, *example)
        pmfs = _own(mechanism) if pmfs == "own" else pmfs
        out.append(PeerCase(name, family, mechanism, neighbours, broken, peer, peer_name, pmfs, **more))

    add(
        "report noisy max (index), Laplace",
        "noisy_max",
        ReportNoisyMax(EPS, "laplace"),
        five,
        False,
        0.0923,
        "dpsniper",
    )
    add("report noisy max (index), exponential", "noisy_max", ReportNoisyMax(EPS, "exponential"), five, False, 0.0997)
    add("BROKEN noisy max value, Laplace", "noisy_max", NoisyMaxValue(EPS, "laplace"), five, True, 0.2478, "dpsniper")
    add(
        "BROKEN noisy max value, exponential",
        "noisy_max",
        NoisyMaxValue(EPS, "exponential"),
        five,
        True,
        0.35,
        "dpsniper",
    )
    add("noisy histogram (Laplace), 5 counts", "histogram", NoisyHistogram(EPS), five, False, 0.0994, pmfs=None)
    hist = GeometricHistogram(EPS)
    add(
        "geometric histogram, 5 counts",
        "histogram",
        hist,
        five,
        False,
        pmfs=hist.loss_pmfs,
        neighbours=query_vectors(5, norm="l1", domain=InputDomain(low=0, integer=True)),
    )
    add("sparse vector Alg. 1, c = 1", "svt", SparseVector(EPS, threshold=1.0), ten, False, 0.0858, "dpsniper")
    add("sparse vector Alg. 2 (refresh), c = 2", "svt", SparseVectorDworkRoth(EPS, threshold=1.0, cutoff=2), ten, False)
    values = SparseVectorValues(EPS, threshold=1.0, cutoff=2)
    add(
        "BROKEN sparse vector Alg. 3 (values), c = 2",
        "svt",
        values,
        ten,
        True,
        0.135,
        "dpsniper",
        pmfs=None,
        pair_ceiling=functools.partial(_values_ceiling, values),
    )
    add("BROKEN sparse vector Alg. 4, c = 1", "svt", SparseVectorLeeClifton(EPS, threshold=1.0), ten, True)
    add("BROKEN sparse vector Alg. 5", "svt", SparseVectorNoQueryNoise(EPS, threshold=1.0), ten, True, 14.31)
    add("BROKEN sparse vector Alg. 6", "svt", SparseVectorNoCutoff(EPS, threshold=1.0), ten, True)
    for on, broken in (("items", False), ("sums", True)):
        sums = GeometricPrefixSums(EPS, noise_on=on)
        label = "BROKEN prefix sums, noise on each sum" if broken else "prefix sums, noise on each item"
        add(f"{label}, T = 8", "prefix_sums", sums, None, broken, pmfs=sums.loss_pmfs, neighbours=streams(8))
    return out


CASES = {case.name: case for case in _cases()}
FAMILIES = sorted({case.family for case in CASES.values()})


@functools.cache
def _pair_oracle(name: str, x, x_prime, n: int, alpha: float) -> float:
    case = CASES[name]
    if case.pmfs is None:
        return case.pair_ceiling(x, x_prime, n, alpha)
    pmf_x, pmf_xp = case.pmfs(x, x_prime)
    return oracle_epsilon_bound(pmf_x, pmf_xp, n, alpha=alpha).epsilon_lower_bound


def ceiling(name: str, pairs, n: int, alpha: float = ALPHA) -> float:
    """The best bound any event on any of ``pairs`` could certify with ``n`` samples per input (nan: no pmf
    and no estimate)."""
    if CASES[name].pmfs is None and CASES[name].pair_ceiling is None:
        return math.nan
    return max(_pair_oracle(name, x, xp, n, alpha) for x, xp in pairs)


def budget_of(name: str, budget: str = "peer", scale: float = 1.0) -> int:
    """Samples per input of a case: its peer's budget (``"peer"``), or StatDP's or DP-Sniper's, times ``scale``."""
    key = CASES[name].peer_name if budget == "peer" else budget
    return max(2_000, int(round(BUDGETS[key] * scale)))


def run_case(name: str, n_samples: int, *, alpha: float = ALPHA, seed: int = SEED, with_ceiling: bool = True) -> dict:
    """One row: the search's verdicts and bounds, the peer's figure and the exact ceiling."""
    case = CASES[name]
    start = time.perf_counter()
    result = dpverify.search_audit(
        case.mechanism, case.neighbours, epsilon=EPS, n_samples=n_samples, alpha=alpha, seed=seed
    )
    seconds = time.perf_counter() - start
    verdict = result.value_verdict
    value = result.epsilon_lower_bound if verdict is None else verdict.epsilon_lower_bound
    value_flag = result.violation if verdict is None else verdict.violation
    flagged = "value" if value_flag else ("rounding" if result.violation else "no")
    pairs = [(c.x, c.x_prime) for c in result.candidates]
    top = ceiling(name, pairs, n_samples, alpha) if with_ceiling else math.nan
    return dict(
        case=name,
        n_samples=n_samples,
        claimed=EPS,
        broken=case.broken,
        flagged=flagged,
        value=value,
        float=math.nan if verdict is None else result.epsilon_lower_bound,
        peer=case.peer,
        peer_name=case.peer_name,
        ceiling=top,
        seconds=seconds,
    )


class PeersSearch(WholeRun):
    """The search's value bound on each peers' benchmark case at 2e5 samples per input (from the input domain)."""

    params = [list(CASES)]
    param_names = ["case"]
    timeout = 1800

    def setup_cache(self):
        return {name: run_case(name, ASV_SAMPLES, with_ceiling=False) for name in CASES}

    track_value_bound = case_figure("value", "epsilon")

    def track_flagged(self, rows, name):
        return float(rows[name]["flagged"] != "no")

    track_flagged.unit = "flagged (1) or not (0)"


PEER_NAMES = {"statdp": "StatDP", "dpsniper": "DP-Sniper"}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--families", nargs="*", choices=FAMILIES, default=None, help="mechanism families (default: all)"
    )
    parser.add_argument("--cases", nargs="*", default=None, help="substrings of case names (default: all)")
    parser.add_argument(
        "--budget",
        choices=["peer", *BUDGETS],
        default="peer",
        help="samples per input: each case's peer's budget (default), StatDP's 2.1e6 or DP-Sniper's 7.1e6",
    )
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiplies the budget (default 1; e.g. 0.1 to run small)"
    )
    parser.add_argument("--alpha", type=float, default=ALPHA, help=f"level (default {ALPHA}, the peers' 90%%)")
    parser.add_argument("--seed", type=int, default=SEED, help=f"seed of every search (default {SEED})")
    args = parser.parse_args(argv)
    names = [n for n in select_cases(CASES, args.cases) if not args.families or CASES[n].family in args.families]
    print(
        f"claimed eps = {EPS}, alpha = {args.alpha}, seed {args.seed}, budget {args.budget} x {args.scale:g}; "
        "search_audit from the input domain\n"
    )
    print(
        "| case | samples per input | broken? | flagged? | value bound | float bound | best peer | "
        "exact ceiling | time |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name in names:
        r = run_case(name, budget_of(name, args.budget, args.scale), alpha=args.alpha, seed=args.seed)
        peer = "-" if r["peer"] is None else f"{r['peer']:g} ({PEER_NAMES[r['peer_name']]})"
        print(
            f"| {name} | {r['n_samples']:.2g} | {'yes' if r['broken'] else 'no'} | {r['flagged']} | "
            f"{fmt(r['value'])} | {fmt(r['float'])} | {peer} | {fmt(r['ceiling'])} | {r['seconds']:.1f} s |",
            flush=True,
        )


if __name__ == "__main__":
    main()
