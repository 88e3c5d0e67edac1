"""Hypothesis strategies building random matroids constructively (tests only; needs hypothesis).

Every strategy draws the structure directly (no filtering): graphs with isolated vertices,
several components, self-loops and parallel edges; uniform matroids with k above n; partition
matroids with zero capacities; linear matroids with rank-deficient vector sets (extra vectors
drawn as integer combinations of a few generators, zero vectors included).
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from algorithms.matroids.graphic import GraphicMatroid
from algorithms.matroids.linear import LinearMatroid
from algorithms.matroids.simple import PartitionMatroid, UniformMatroid

__all__ = [
    "graphic_matroids",
    "uniform_matroids",
    "partition_matroids",
    "linear_matroids",
    "any_matroid",
]


@st.composite
def graphic_matroids(draw, max_vertices: int = 7, max_edges: int = 12):
    """Graphic matroids of arbitrary multigraphs (possibly disconnected, loops allowed)."""
    n = draw(st.integers(1, max_vertices))
    m = draw(st.integers(0, max_edges))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), min_size=m, max_size=m))
    uv = np.array(pairs, dtype=np.int64).reshape(-1, 2)
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
    gens = np.array(draw(st.lists(st.lists(st.integers(-2, 2), min_size=d, max_size=d),
                                  min_size=r, max_size=r)), dtype=np.float64).reshape(r, d)
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
