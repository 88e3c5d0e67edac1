"""Pagh et al. 2025, Appendix H(a): the mutual-information (Chow-Liu) figure's claims.

The experiment (``algorithms.mst.experiments``): bits in a flip chain (flip 0.05), the complete graph of
negated pairwise mutual informations, whose minimum spanning tree is the path; each method spends
rho-zCDP on the whole tree; the figure plots weight(private tree) / weight(true MST) (1 is exact, 0 is
no information, since every weight is negative). The text claims that Algorithm 1 (input perturbation)
is close to PAMST and better than input privatization (Sealfon), and the figure orders the methods.

Measured, 10 runs per rho (median ratio; Algorithm 1, PAMST, input privatization):

- n = 1000 (the paper's size): rho = 1.001: 0.967, 0.928, 0.067; 4.001: 0.9986, 0.9980, 0.30;
  rho = 0.001: all near 0.01 (no information at this budget; no ordering claimed there).
- n = 200: rho >= 1.001: 1.0, 1.0 (0.999 at 1.001), and 0.92-0.985.

So the ordering holds, and Algorithm 1 is close to PAMST: on this graph it is even slightly better
(at n = 1000, rho = 1.001 the two bands are disjoint). Input privatization is far behind at n = 1000
(0.07-0.30: its noise grows like sqrt(m) = 707 edges' worth), much less so at n = 200.

Statistics: with the seed fixed the assertions are deterministic. "Every run of one method beats every
run of another" over 10 + 10 runs has probability 1 / C(20, 10) = 5.4e-6 under exchangeable (equal)
laws, so it is a rank test at that level per rho.
"""

import numpy as np
import pytest

from algorithms.mst.experiments import MutualInformationSettings, mutual_information_experiment

pytestmark = pytest.mark.paper_claim

RHOS = (1.001, 2.001, 3.001, 4.001)


def _ratios(n: int, rhos, seed: int) -> dict:
    rows = mutual_information_experiment(MutualInformationSettings(n=n, rhos=tuple(rhos), runs=10), seed=seed)
    out: dict = {}
    for row in rows:
        out.setdefault((row.x, row.method), []).append(row.ratio)
    return {key: np.array(value) for key, value in out.items()}


def test_appendix_h_a_algorithm1_close_to_pamst_and_better_than_input_privatization():
    """n = 200, rho in {1.001, 2.001, 3.001, 4.001}, 10 runs each (seed 1, about 2 s).

    At every rho every Algorithm 1 run and every PAMST run beats every input-privatization run (input
    privatization's best 0.94-0.99 against their worst 0.998-1.0), and the medians of Algorithm 1 and
    PAMST differ by at most 0.01 (measured <= 0.002). Detects: an Algorithm 1 with the noise of input
    privatization (its Gumbel scale multiplied by sqrt(m), or the budget split over all m edges instead of
    the n - 1 steps) and a PAMST whose per-step budget is wrong.
    """
    ratios = _ratios(200, RHOS, seed=1)
    for rho in RHOS:
        worst_private_tree = min(ratios[(rho, "algorithm1")].min(), ratios[(rho, "pamst")].min())
        assert worst_private_tree > ratios[(rho, "sealfon_gaussian")].max(), rho
        assert abs(np.median(ratios[(rho, "algorithm1")]) - np.median(ratios[(rho, "pamst")])) <= 0.01, rho


def test_appendix_h_a_at_the_papers_size(thorough):
    """n = 1000 (the paper's size), rho in {1.001, 4.001}, 10 runs (thorough profile: about 20 s).

    Every Algorithm 1 and PAMST run beats every input-privatization run (0.07 and 0.30 against >= 0.92),
    and Algorithm 1's median is at least PAMST's (0.967 against 0.928; 0.9986 against 0.9980).
    Detects: as the default-size test, at the size where input privatization's sqrt(m) noise shows fully.
    """
    if not thorough:
        pytest.skip("thorough profile: n = 1000")
    ratios = _ratios(1000, (1.001, 4.001), seed=1)
    for rho in (1.001, 4.001):
        worst_private_tree = min(ratios[(rho, "algorithm1")].min(), ratios[(rho, "pamst")].min())
        assert worst_private_tree > ratios[(rho, "sealfon_gaussian")].max(), rho
        assert np.median(ratios[(rho, "algorithm1")]) >= np.median(ratios[(rho, "pamst")]), rho
