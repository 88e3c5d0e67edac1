"""algorithms.matroids.graphic: rank, spanning forests, and the compiled greedy against networkx."""

import networkx as nx
import numpy as np
from hypothesis import given

from algorithms.matroids import GraphicMatroid
from algorithms.matroids.strategies import graphic_matroids


@given(graphic_matroids(max_vertices=8, max_edges=14))
def test_graphic_rank_is_vertices_minus_components(m):
    g = nx.MultiGraph()
    g.add_nodes_from(range(m.n_vertices))
    g.add_edges_from(zip(m.u.tolist(), m.v.tolist()))
    assert m.rank == m.n_vertices - nx.number_connected_components(g)


def test_graphic_from_networkx_disconnected_gives_spanning_forest():
    g = nx.Graph([(0, 1), (1, 2), (0, 2), (3, 4)])
    g.add_node(5)
    m = GraphicMatroid.from_networkx(g)
    basis = m.greedy_min_basis(np.arange(m.n_elements, dtype=float))
    forest = nx.Graph([m.edge_list[e] for e in basis])
    assert m.rank == 3 and nx.is_forest(forest) and forest.number_of_edges() == 3


def test_graphic_kernel_matches_networkx_on_a_larger_graph():
    rng = np.random.default_rng(12345)
    g = nx.gnm_random_graph(120, 161, seed=7)
    m = GraphicMatroid.from_networkx(g)
    for _ in range(20):
        w = rng.random(m.n_elements)
        h = nx.Graph()
        h.add_nodes_from(g)
        h.add_weighted_edges_from((a, b, w[i]) for i, (a, b) in enumerate(m.edge_list))
        expected = sum(d["weight"] for _, _, d in nx.maximum_spanning_edges(h, data=True))
        assert np.isclose(w[m.greedy_max_basis(w)].sum(), expected, rtol=0, atol=1e-12)
