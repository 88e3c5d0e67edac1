"""Hypothesis strategies building random matroids constructively (tests only; needs hypothesis).

Every strategy draws the structure directly (no filtering): graphs with isolated vertices,
several components, self-loops and parallel edges (a simple graph from
:func:`dpverify.testing.strategies.weighted_graphs`, the project's one graph strategy, then loops and
parallel copies); uniform matroids with k above n; partition matroids with zero capacities;
linear matroids with rank-deficient vector sets (extra vectors drawn as integer combinations of
a few generators, zero vectors included).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from algorithms.matroids.graphic import GraphicMatroid
from algorithms.matroids.linear import LinearMatroid
from algorithms.matroids.simple import PartitionMatroid, UniformMatroid
from dpverify.testing.strategies import weighted_graphs

__all__ = [
    "graphic_matroids",
    "uniform_matroids",
    "partition_matroids",
    "linear_matroids",
    "any_matroid",
]


@st.composite
def graphic_matroids(draw, max_vertices: int = 7, max_edges: int = 12):
    """Graphic matroids of multigraphs on 1..``max_vertices`` vertices with at most ``max_edges`` edges.

    A simple graph (possibly disconnected, isolated vertices included) from
    :func:`dpverify.testing.strategies.weighted_graphs`, then self-loops and parallel copies of
    its edges (either orientation), all in random order. Shrinks to one vertex and no edge.
    """
    n, edges, _ = draw(weighted_graphs(min_vertices=1, max_vertices=max_vertices, max_edges=max_edges))
    pairs = [tuple(e) for e in edges.tolist()]
    loops = st.integers(0, n - 1).map(lambda v: (v, v))
    if pairs:
        copies = st.tuples(st.sampled_from(pairs), st.booleans()).map(lambda c: c[0][::-1] if c[1] else c[0])
        multi = st.one_of(loops, copies)
    else:
        multi = loops
    pairs += draw(st.lists(multi, max_size=max_edges - len(pairs)))
    order = draw(st.permutations(range(len(pairs))))
    uv = np.array([pairs[i] for i in order], dtype=np.int64).reshape(-1, 2)
    return GraphicMatroid(n, uv[:, 0], uv[:, 1])


@st.composite
def uniform_matroids(draw, max_elements: int = 9):
    n = draw(st.integers(0, max_elements))
    k = draw(st.integers(0, n + 1))
    return UniformMatroid(n, k)


@st.composite
def partition_matroids(draw, max_elements: int = 9, max_blocks: int = 4):
    b = draw(st.integers(1, max_blocks))
    n = draw(st.integers(0, max_elements))
    blocks = draw(st.lists(st.integers(0, b - 1), min_size=n, max_size=n))
    caps = draw(st.lists(st.integers(0, 3), min_size=b, max_size=b))
    return PartitionMatroid(np.array(blocks, dtype=np.int64), np.array(caps, dtype=np.int64))


@st.composite
def linear_matroids(draw, max_elements: int = 9, max_dim: int = 4):
    """Vectors with small integer entries; many are combinations of few generators (rank-deficient)."""
    d = draw(st.integers(1, max_dim))
    r = draw(st.integers(0, d))
    gens = np.array(
        draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d), min_size=r, max_size=r)), dtype=np.float64
    ).reshape(r, d)
    n = draw(st.integers(0, max_elements))
    rows = []
    for _ in range(n):
        if r and draw(st.booleans()):
            coef = np.array(draw(st.lists(st.integers(-2, 2), min_size=r, max_size=r)), dtype=np.float64)
            rows.append(coef @ gens)
        else:
            rows.append(np.array(draw(st.lists(st.integers(-2, 2), min_size=d, max_size=d)), dtype=np.float64))
    vectors = np.array(rows, dtype=np.float64).reshape(n, d)
    return LinearMatroid(vectors)


def any_matroid(max_elements: int = 9):
    """One of the four kinds, each at most ``max_elements`` elements."""
    return st.one_of(
        graphic_matroids(max_edges=max_elements),
        uniform_matroids(max_elements),
        partition_matroids(max_elements),
        linear_matroids(max_elements),
    )
