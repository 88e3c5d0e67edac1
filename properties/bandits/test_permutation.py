"""The regret permutation pi_t of Chandak 2023, Section 4.1.3 (algorithms.bandits.permutation).

Deterministic invariants only (no statistics):

- Hypothesis over random matroids of all four kinds (disconnected multigraphs, rank-deficient
  vector sets, partition and uniform matroids) with random distinct indices J_t and means mu:
  pi_t is a permutation (Corollary 13) and properties (1), (2), (3) hold.
- Lemma 22 is FALSE as stated: an explicit counterexample on the 4-vertex "diamond" graph, and
  the counts of rounds where it fails over the exhaustive catalogue (pinned exactly).
- Exhaustive catalogue over every graphic matroid of a graph with at most 5 vertices (all 52
  graphs of networkx's atlas with 1..5 vertices, up to isomorphism):
  (a) *literally* every ordering of the indices and every ordering of the means for graphs with
      at most 7 edges (8 under the thorough profile); pi_t depends on the means only through
      A* and its order, so the mean orderings are reduced to the distinct ordered A* they
      produce (an exact reduction);
  (b) a complete catalogue for all graphs (up to 10 edges): every ordered basis as A^t (every
      ordered basis is the greedy output of some J), every ordered basis as A* (same for mu),
      and, for property (3), the *extreme* index J for that A^t: each non-selected arm e gets
      the largest index any J producing A^t can give it (just below a^t_{j(e)}, where j(e) is
      the first prefix spanning e). pi_t, properties (1), (2) and Lemma 22 depend only on the
      two ordered bases; property (3) can only fail when J(a*) is raised, so the extreme J
      covers every J producing A^t. Hence (b) decides the claims for all orderings.
  The bitmask kernel used for the catalogue is checked against ``regret_permutation``.
- The per-round regret decomposition identity on simulated OMM rounds.
"""

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from networkx.generators.atlas import graph_atlas_g

from algorithms.bandits.permutation import (
    check_pairs_on_table,
    check_regret_permutation,
    greedy_on_table,
    lemma22_violations,
    regret_decomposition,
    regret_permutation,
)
from algorithms.matroids import GraphicMatroid, LinearMatroid, independence_table
from algorithms.matroids.strategies import any_matroid

CLAIMED_FIELDS = ("not_permutation", "property1", "property2", "property3", "case2_failed")


def _round(matroid, J, mu):
    played = matroid.greedy_max_basis(J)
    optimal = matroid.greedy_max_basis(mu)
    return played, optimal, regret_permutation(matroid, played, optimal)


@given(any_matroid(max_elements=10), st.data())
@example(GraphicMatroid(4, [0, 0, 0, 1, 2], [1, 2, 3, 2, 3]), None)
@example(LinearMatroid([[1, 0], [2, 0], [0, 1], [1, 1], [0, 0]]), None)
def test_pi_is_a_permutation_with_properties_1_2_3(matroid, data):
    """Detects: a pi_t construction that breaks Corollary 13 or properties (1)-(3), e.g. case 2 without the
    independence test (mutant claims-permutation-case2-independence)."""
    n = matroid.n_elements
    if data is None:  # pinned examples: fixed orders
        J, mu = np.arange(n, dtype=float), np.arange(n, dtype=float)[::-1].copy()
    else:
        J = np.array(data.draw(st.permutations(range(n))), dtype=float)
        mu = np.array(data.draw(st.permutations(range(n))), dtype=float) / max(n, 1)
    played, optimal, pi = _round(matroid, J, mu)
    check_regret_permutation(matroid, played, optimal, pi, J)
    # pi_t only pairs arms, so the round's regret splits exactly (Chandak 2023, eq. (a) after 4.6)
    regret, terms = regret_decomposition(played, optimal, pi, mu)
    assert regret == pytest.approx(terms.sum(), abs=1e-12)


def test_lemma22_counterexample_on_the_diamond_graph():
    """Detects: a Lemma 22 check that cannot see its failure (the pinned diamond-graph round must violate it while
    (1)-(3) hold)."""
    # edges 0:(0,1) 1:(0,2) 2:(0,3) 3:(1,2) 4:(2,3); J = (0,1,2,3,4), mu = (3,2,0,1,4)
    m = GraphicMatroid.from_edges(4, [(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)])
    J = np.array([0.0, 1, 2, 3, 4])
    mu = np.array([3.0, 2, 0, 1, 4])
    played, optimal, pi = _round(m, J, mu)
    assert played.tolist() == [4, 3, 2] and optimal.tolist() == [4, 0, 1]
    assert pi.tolist() == [0, 2, 1]
    check_regret_permutation(m, played, optimal, pi, J)  # Cor. 13, (1)-(3) hold
    # Lemma 22 with k = 3: replace a^t_{pi^-1(3)} = a^t_2 = edge (1,2) by a*_3 = edge (0,2):
    # {(2,3), (0,2), (0,3)} is a triangle, so the "independent" set of Lemma 22 is dependent
    assert lemma22_violations(m, played, optimal, pi) == [2]
    assert not m.is_independent([4, 1, 2])


# ---- exhaustive catalogue ----------------------------------------------------------------------


def _small_graphs():
    return [g for g in graph_atlas_g() if 1 <= g.number_of_nodes() <= 5]


def _ordered_bases(table, m, K):
    bases = [c for c in itertools.combinations(range(m), K) if table[sum(1 << e for e in c)]]
    return np.array([p for b in bases for p in itertools.permutations(b)], dtype=np.int64).reshape(-1, K)


def _extreme_index(table, P, m):
    K = len(P)
    J = np.empty(m)
    for k, a in enumerate(P):
        J[a] = K - k
    members = set(P.tolist())
    for e in range(m):
        if e in members:
            continue
        mask = 0
        for j, a in enumerate(P):
            mask |= 1 << int(a)
            if not table[mask | (1 << e)]:
                J[e] = K - j - 0.5
                break
    return J


def _ordered_basis_pairs_by_formula() -> int:
    """Sum over the catalogue of (ordered bases)^2: a graph's bases are its maximal spanning forests, one spanning
    tree per component (Kirchhoff's count, ``nx.number_of_spanning_trees``), each in rank! orders."""
    total = 0
    for g in _small_graphs():
        rank = g.number_of_nodes() - nx.number_connected_components(g)
        if rank == 0:
            continue
        forests = math.prod(round(nx.number_of_spanning_trees(g.subgraph(c))) for c in nx.connected_components(g))
        total += (forests * math.factorial(rank)) ** 2
    return total


def _total(counts, fields):
    return sum(counts[f] for f in fields)


def test_exhaustive_catalogue_all_graphs_up_to_5_vertices():
    """Detects: a pi_t or Lemma 22 checker that changes the exhaustive counts (3,982,280 violating rounds, pinned) or
    breaks property (2); the number of pairs checked is the formula's (Kirchhoff's count of each graph's bases)."""
    totals = dict.fromkeys(("pairs", "lemma22_rounds") + CLAIMED_FIELDS, 0)
    n_graphs = 0
    for g in _small_graphs():
        m = GraphicMatroid.from_networkx(g)
        if m.rank == 0:
            continue
        n_graphs += 1
        table = independence_table(m)
        P = _ordered_bases(table, m.n_elements, m.rank)
        J = np.array([_extreme_index(table, p, m.n_elements) for p in P])
        counts = check_pairs_on_table(table, P, J, P)
        assert counts["pairs"] == P.shape[0] ** 2
        for f in totals:
            totals[f] += counts[f]
    print(f"pi_t catalogue: {n_graphs} graphs, {totals}")
    assert n_graphs == 47  # 52 atlas graphs with 1..5 vertices, 5 of them edgeless
    assert totals["pairs"] == 15_631_044
    assert _total(totals, CLAIMED_FIELDS) == 0
    assert totals["pairs"] == _ordered_basis_pairs_by_formula()
    assert totals["lemma22_rounds"] == 3_982_280  # Lemma 22 is false (see the counterexample test)


def _literal_rounds(m, table):
    """All J orderings (rows P with their J) and the distinct ordered A* over all mu orderings."""
    n, K = m.n_elements, m.rank
    P, J, O = [], [], set()
    for perm in itertools.permutations(range(n)):
        order = np.array(perm, dtype=np.int64)  # elements by index (or mean) descending
        basis = greedy_on_table(table, order, K)
        assert basis.tolist() == m.greedy_max_basis(n - np.argsort(order)).tolist()
        P.append(basis)
        Jrow = np.empty(n)
        Jrow[order] = np.arange(n, 0, -1)
        J.append(Jrow)
        O.add(tuple(basis.tolist()))
    return np.array(P), np.array(J), np.array(sorted(O), dtype=np.int64)


#: max edges -> ((J order, A*) rounds checked, rounds where Lemma 22 fails), exact counts of the literal enumeration
LITERAL_COUNTS = {7: (10_833_288, 1_233_376), 8: (93_086_088, 16_339_296)}


def test_every_ordering_of_indices_and_means_small_graphs(thorough):
    """Detects: a pi_t construction that breaks Corollary 13 for some ordering of J and mu on small graphs, or a
    change in the enumeration or the Lemma 22 checker (the counts are pinned exactly)."""
    max_edges = 8 if thorough else 7
    pairs = lemma22 = 0
    for g in _small_graphs():
        m = GraphicMatroid.from_networkx(g)
        if m.rank == 0 or m.n_elements > max_edges:
            continue
        table = independence_table(m)
        P, J, O = _literal_rounds(m, table)
        counts = check_pairs_on_table(table, P, J, O)
        assert _total(counts, CLAIMED_FIELDS) == 0, (list(g.edges()), counts)
        pairs += counts["pairs"]
        lemma22 += counts["lemma22_rounds"]
    print(f"literal orderings up to {max_edges} edges: {pairs} (J order, A*) rounds, Lemma 22 fails in {lemma22}")
    assert (pairs, lemma22) == LITERAL_COUNTS[max_edges]  # Lemma 22 fails in about 1 round in 6-11


def test_bitmask_kernel_agrees_with_regret_permutation():
    # 4-cycle with a chord and K4: every pair of ordered bases through both implementations
    for edges in ([(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)], list(itertools.combinations(range(4), 2))):
        m = GraphicMatroid.from_edges(4, edges)
        table = independence_table(m)
        P = _ordered_bases(table, m.n_elements, m.rank)
        P = P[:: max(1, P.shape[0] // 24)]
        J = np.array([_extreme_index(table, p, m.n_elements) for p in P])
        lemma22 = 0
        for r in range(P.shape[0]):
            for s in range(P.shape[0]):
                pi = regret_permutation(m, P[r], P[s])
                check_regret_permutation(m, P[r], P[s], pi, J[r])
                lemma22 += bool(lemma22_violations(m, P[r], P[s], pi))
        counts = check_pairs_on_table(table, P, J, P)
        assert _total(counts, CLAIMED_FIELDS) == 0
        assert counts["lemma22_rounds"] == lemma22


# ---- regret decomposition on simulated OMM rounds --------------------------------------------


def test_regret_decomposition_identity_on_omm_rounds():
    """OMM (Kveton et al. 2014) on a disconnected random graph with Bernoulli arms:
    every round's pi_t satisfies Cor. 13 and (1)-(3), and the round's regret equals
    sum_k mu(a_k^*) - mu(a^t_{pi^-1(k)}).

    Detects: a regret decomposition over the pairs of pi_t that does not sum to the round's regret.
    """
    rng = np.random.default_rng(20240601)
    g = nx.disjoint_union(nx.gnm_random_graph(7, 12, seed=3), nx.gnm_random_graph(4, 5, seed=4))
    m = GraphicMatroid.from_networkx(g)
    n = m.n_elements
    mu = rng.permutation(n) / n * 0.8 + 0.1
    optimal = m.greedy_max_basis(mu)
    sums = np.zeros(n)
    counts = np.zeros(n)
    suboptimal_rounds = 0
    for t in range(1, 301):
        with np.errstate(divide="ignore", invalid="ignore"):
            J = np.where(counts > 0, sums / counts + np.sqrt(2 * np.log(t) / counts), np.inf)
        J = J + 1e-9 * rng.random(n)  # distinct indices (ties have probability 0 in the thesis)
        played = m.greedy_max_basis(J)
        pi = regret_permutation(m, played, optimal)
        check_regret_permutation(m, played, optimal, pi, J)
        regret, terms = regret_decomposition(played, optimal, pi, mu)
        assert regret == pytest.approx(terms.sum(), abs=1e-12)
        suboptimal_rounds += regret > 0
        x = rng.random(played.size) < mu[played]
        sums[played] += x
        counts[played] += 1
    assert suboptimal_rounds > 0  # the identity was exercised on rounds with positive regret
