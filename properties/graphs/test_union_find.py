"""algorithms/graphs/union_find.py: the one union-find and Kruskal scan, against networkx and scipy."""

import networkx as nx
import numpy as np
import scipy.sparse as sp
from hypothesis import example, given
from hypothesis import strategies as st
from scipy.sparse.csgraph import minimum_spanning_tree as csgraph_mst

from algorithms.graphs import as_graph_arrays
from algorithms.graphs.union_find import component_roots, find, greedy_forest, kruskal_scan, reset, union
from algorithms.mst.strategies import graphs

K4 = as_graph_arrays((4, [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]], np.zeros(6)))


@st.composite
def graphs_and_orders(draw):
    """A graph (possibly disconnected) and a random processing order of its edges."""
    g = draw(graphs())
    order = draw(st.permutations(range(g.m))) if g.m else []
    return g, np.array(order, dtype=np.int64)


def _endpoints(g):
    return np.ascontiguousarray(g.edges[:, 0]), np.ascontiguousarray(g.edges[:, 1])


@given(graphs_and_orders())
@example((K4, np.array([5, 0, 3, 1, 4, 2])))
def test_kruskal_scan_is_networkx_kruskal_on_the_same_order(case):
    g, order = case
    rank = np.empty(g.m)
    rank[order] = np.arange(g.m)  # distinct keys whose sorted order is ``order``
    reference = nx.Graph()
    reference.add_nodes_from(range(g.n))
    reference.add_weighted_edges_from((int(a), int(b), float(r)) for (a, b), r in zip(g.edges, rank))
    chosen = nx.minimum_spanning_edges(reference, algorithm="kruskal", data=True)
    expected = sorted(int(order[int(d["weight"])]) for _, _, d in chosen)
    kept = greedy_forest(g.n, *_endpoints(g), order)
    assert sorted(kept.tolist()) == expected
    assert np.array_equal(kept, order[np.isin(order, kept)])  # kept in the order they come


@given(graphs_and_orders())
def test_kruskal_scan_is_scipy_minimum_spanning_forest_of_the_ranks(case):
    g, order = case
    if g.m == 0:
        return
    rank = np.empty(g.m)
    rank[order] = np.arange(1, g.m + 1)  # positive distinct: csgraph keeps every entry
    mat = sp.csr_matrix((rank, (g.edges[:, 0], g.edges[:, 1])), shape=(g.n, g.n))
    tree = csgraph_mst(mat).tocoo()
    expected = sorted(int(order[int(r) - 1]) for r in tree.data)
    assert sorted(greedy_forest(g.n, *_endpoints(g), order).tolist()) == expected


@given(graphs_and_orders(), st.integers(0, 10))
def test_the_limit_stops_the_scan_after_that_many_kept_edges(case, limit):
    g, order = case
    u, v = _endpoints(g)
    full = greedy_forest(g.n, u, v, order)
    parent, size = np.empty(g.n, dtype=np.int64), np.empty(g.n, dtype=np.int64)
    out = np.full(limit + 1, -7, dtype=np.int64)
    k = kruskal_scan(order, u, v, parent, size, limit, out)
    assert k == min(limit, full.size)
    assert np.array_equal(out[:k], full[:k])
    assert np.all(out[k:] == -7)  # nothing written past the kept edges


@given(st.integers(1, 12), st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=40))
@example(3, [(0, 1), (1, 0), (2, 2), (1, 2), (0, 2)])
def test_union_is_false_exactly_on_pairs_already_in_one_set(n, pairs):
    parent, size = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    reset(parent, size)
    reference = nx.utils.UnionFind(range(n))
    for a, b in pairs:
        a, b = a % n, b % n
        same = reference[a] == reference[b]
        assert union(parent, size, a, b) == (not same), (a, b)
        reference.union(a, b)
        assert (find(parent, a) == find(parent, b)) and find(parent, a) == find(parent, find(parent, a))
    groups = {frozenset(s) for s in reference.to_sets()}
    roots = [find(parent, x) for x in range(n)]
    assert {frozenset(x for x in range(n) if roots[x] == r) for r in set(roots)} == groups
    # union by size: the size stored at every root is its set's size
    assert all(size[r] == roots.count(r) for r in set(roots))


@given(graphs(), st.data())
@example(as_graph_arrays((4, [[0, 1], [2, 3], [0, 2]], np.zeros(3))), None)  # a set of depth 2
def test_component_roots_label_the_components_of_the_given_edges(g, data):
    if data is None:
        chosen = list(range(g.m))
    else:
        chosen = data.draw(st.lists(st.integers(0, max(g.m - 1, 0)), max_size=g.m)) if g.m else []
    roots = component_roots(g.n, *_endpoints(g), np.array(chosen, dtype=np.int64))
    sub = nx.Graph()
    sub.add_nodes_from(range(g.n))
    sub.add_edges_from(map(tuple, g.edges[chosen].tolist()))
    labels = {v: i for i, comp in enumerate(nx.connected_components(sub)) for v in comp}
    for a in range(g.n):
        for b in range(g.n):
            assert (roots[a] == roots[b]) == (labels[a] == labels[b])
