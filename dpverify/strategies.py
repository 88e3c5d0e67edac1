"""Hypothesis strategies for neighbouring inputs, to search for the pair that breaks a claim.

Each strategy draws a pair ``(x, x_prime)`` of inputs that are neighbours
under a stated relation, built constructively (no filtering):

- :func:`neighbouring_vectors` -- real or integer vectors within l1 or l_inf
  distance ``distance`` (query answers, histograms, counts);
- :func:`neighbouring_graphs` -- weighted graphs on one topology whose weights
  differ by at most ``max_shift`` on every edge (the weight-neighbouring
  relation of private spanning trees: the topology is public, the weights
  private), as :class:`GraphPair` or networkx graphs;
- :func:`neighbouring_streams` -- sequences differing in one element
  (substitution, or insertion/deletion).

Searching many pairs needs a multiple-testing correction (Holm 1979): every audit of a
correct mechanism raises a false alarm with probability up to its ``alpha``,
so a search over ``m`` pairs at ``alpha`` each raises one with probability up
to ``m * alpha`` (``@given`` with 100 examples and ``alpha = 0.05`` fails on
correct code in most runs). Either

- assert inside ``@given`` at ``dpverify.testing.per_example_alpha(alpha, n)``
  (Bonferroni over the ``n`` examples Hypothesis may run)::

      @settings(max_examples=40)
      @given(pair=neighbouring_vectors(3, norm="l1", distance=1.0))
      def test_laplace_sum(pair):
          x, x_prime = pair
          assert_dp(mech, x, x_prime, epsilon=1.0, n_samples=50_000, seed=0,
                    alpha=per_example_alpha(1e-6, 40))

- or draw the pairs first with :func:`draw_pairs` and audit them together with
  :func:`dpverify.testing.audit_pairs`, which applies Holm's correction::

      pairs = draw_pairs(neighbouring_vectors(3, norm="l1"), 50, seed=1)
      result = audit_pairs(mech, pairs, epsilon=1.0, n_samples=50_000, alpha=1e-6, seed=2)
      assert not result.violation, result.worst_result

Both keep the family-wise false-alarm rate at most ``alpha``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

from .errors import InvalidParameterError

__all__ = [
    "neighbouring_vectors",
    "neighbouring_graphs",
    "neighbouring_streams",
    "GraphPair",
    "draw_pairs",
    "vector_distance",
]


def vector_distance(x, x_prime, norm: str) -> float:
    """The l1 or l_inf distance between two vectors, as the strategies measure it."""
    diff = np.abs(np.asarray(x, dtype=float) - np.asarray(x_prime, dtype=float))
    if norm == "l1":
        return float(diff.sum())
    if norm == "linf":
        return float(diff.max(initial=0.0))
    raise InvalidParameterError(f"norm must be 'l1' or 'linf', got {norm!r}")


def _check_positive(value, name):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or not np.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def _shrink_into_ball(x, x_prime, norm, distance):
    """Pull ``x_prime`` toward ``x`` until rounding no longer pushes it past ``distance``."""
    offset = x_prime - x
    step = 1e-12
    while vector_distance(x, x_prime, norm) > distance:
        if step >= 1.0:
            return x.copy()
        x_prime = x + offset * (1.0 - step)
        step *= 2.0
    return x_prime


@st.composite
def neighbouring_vectors(
    draw,
    dimension: int | None = None,
    *,
    norm: str = "l1",
    distance: float = 1.0,
    integer: bool = False,
    min_distance: float = 0.0,
    min_value: float = -100.0,
    max_value: float = 100.0,
    max_dimension: int = 8,
):
    """Pairs of vectors ``(x, x_prime)`` with ``0 < ||x - x_prime||_norm <= distance``.

    Parameters
    ----------
    dimension : int, optional
        Length of the vectors; drawn from 1..``max_dimension`` when omitted.
    norm : {"l1", "linf"}
        The distance that defines neighbours (l1: sensitivity of sums and
        histograms; l_inf: every coordinate moves by at most ``distance``).
    distance : float, default 1
        The neighbouring radius (the sensitivity a mechanism is calibrated to).
    integer : bool, default False
        Integer vectors (counts); ``distance`` must then be an integer >= 1.
    min_distance : float, default 0
        Real vectors only: the offset's radius is drawn in
        ``[min_distance, distance]`` (up to one rounding step), e.g.
        ``min_distance=distance`` for pairs on the sphere, where a mechanism
        calibrated to ``distance`` is tight.
    min_value, max_value : float
        Range of the entries of ``x``.

    Returns
    -------
    SearchStrategy of (numpy.ndarray, numpy.ndarray)
        Two float64 (or int64) arrays of equal length that differ.

    Notes
    -----
    The offset is drawn constructively: a direction on the unit sphere of the
    norm, scaled by a radius in (0, distance]. Float rounding of
    ``x + offset`` is corrected by pulling ``x_prime`` back toward ``x`` so the
    distance bound holds exactly as :func:`vector_distance` measures it.
    """
    if norm not in ("l1", "linf"):
        raise InvalidParameterError(f"norm must be 'l1' or 'linf', got {norm!r}")
    _check_positive(distance, "distance")
    d = dimension if dimension is not None else draw(st.integers(1, max_dimension))
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise InvalidParameterError(f"dimension must be an integer >= 1, got {dimension!r}")
    if integer:
        if int(distance) != distance:
            raise InvalidParameterError(f"integer vectors need an integer distance >= 1, got {distance!r}")
        lo, hi = int(np.ceil(min_value)), int(np.floor(max_value))
        x = np.array(draw(st.lists(st.integers(lo, hi), min_size=d, max_size=d)), dtype=np.int64)
        radius = int(distance)
        if norm == "linf":
            offset = draw(st.lists(st.integers(-radius, radius), min_size=d, max_size=d))
            offset = np.array(offset, dtype=np.int64)
            if not offset.any():  # make them differ: move one coordinate by the full radius
                i = draw(st.integers(0, d - 1))
                offset[i] = draw(st.sampled_from([-radius, radius]))
        else:
            budget = draw(st.integers(1, radius))
            offset = np.zeros(d, dtype=np.int64)
            for _ in range(budget):  # spend the l1 budget one unit at a time
                offset[draw(st.integers(0, d - 1))] += draw(st.sampled_from([-1, 1]))
            if not offset.any():
                offset[draw(st.integers(0, d - 1))] = 1
        return x, x + offset
    elements = st.floats(min_value, max_value, allow_nan=False, allow_infinity=False)
    x = np.array(draw(st.lists(elements, min_size=d, max_size=d)), dtype=float)
    unit = st.floats(0.0, 1.0, allow_nan=False)
    shape = np.array(draw(st.lists(unit, min_size=d, max_size=d)), dtype=float)
    signs = np.array(draw(st.lists(st.sampled_from([-1.0, 1.0]), min_size=d, max_size=d)))
    if not shape.any():
        shape[draw(st.integers(0, d - 1))] = 1.0
    shape = shape / (shape.sum() if norm == "l1" else shape.max())
    if not 0.0 <= min_distance <= distance:
        raise InvalidParameterError(f"need 0 <= min_distance <= distance, got {min_distance!r}")
    if min_distance > 0:
        radius = draw(st.floats(min_distance, distance, allow_nan=False))
    else:
        radius = distance * draw(st.floats(0.0, 1.0, exclude_min=True, allow_nan=False))
    x_prime = _shrink_into_ball(x, x + signs * shape * radius, norm, distance)
    if np.array_equal(x, x_prime):
        # the offset was lost to rounding: move the smallest coordinate by one float step
        i = int(np.argmin(np.abs(x)))
        x_prime = x.copy()
        x_prime[i] = np.nextafter(x[i], np.inf)
        x_prime = _shrink_into_ball(x, x_prime, norm, distance)
        if np.array_equal(x, x_prime):
            raise InvalidParameterError(
                f"distance={distance!r} is below the float spacing of values in "
                f"[{min_value}, {max_value}]; use a larger distance or a smaller value range"
            )
    return x, x_prime


class GraphPair(NamedTuple):
    """Two weightings of one graph: ``n`` vertices, ``edges`` (m, 2) int64 with ``u < v``.

    ``weights`` and ``weights_prime`` are float64 of shape (m,) with
    ``max |weights - weights_prime| <= max_shift`` (and the pair differs).
    ``first`` and ``second`` give the ``(n, edges, weights)`` triples the
    project's graph algorithms accept.
    """

    n: int
    edges: np.ndarray
    weights: np.ndarray
    weights_prime: np.ndarray

    @property
    def first(self):
        return (self.n, self.edges, self.weights)

    @property
    def second(self):
        return (self.n, self.edges, self.weights_prime)

    def to_networkx(self):
        """The pair as two :class:`networkx.Graph` with a ``weight`` on every edge."""
        import networkx as nx

        graphs = []
        for w in (self.weights, self.weights_prime):
            g = nx.Graph()
            g.add_nodes_from(range(self.n))
            g.add_weighted_edges_from((int(u), int(v), float(x)) for (u, v), x in zip(self.edges, w))
            graphs.append(g)
        return tuple(graphs)


@st.composite
def neighbouring_graphs(
    draw,
    *,
    min_vertices: int = 2,
    max_vertices: int = 10,
    max_shift: float = 1.0,
    connected: bool = True,
    min_weight: float = -10.0,
    max_weight: float = 10.0,
    shift: str = "all",
    as_networkx: bool = False,
):
    """Pairs of weighted graphs on one topology whose edge weights differ by at most ``max_shift``.

    Parameters
    ----------
    min_vertices, max_vertices : int
        Range of the vertex count (``min_vertices >= 2``).
    max_shift : float, default 1
        The neighbouring radius: ``|w_e - w'_e| <= max_shift`` for every edge e
        (l_inf on the weight vector; Pagh et al. 2025, Section 2).
    connected : bool, default True
        Build a random spanning tree first (each vertex joins an earlier one),
        then add extra edges; ``False`` may also leave vertices isolated.
    min_weight, max_weight : float
        Range of the weights of the first graph.
    shift : {"all", "one"}
        Shift every weight (independently, within ``max_shift``) or one edge only.
    as_networkx : bool, default False
        Return two networkx Graphs instead of a :class:`GraphPair`.

    Returns
    -------
    SearchStrategy of GraphPair (or of a pair of networkx.Graph)
    """
    _check_positive(max_shift, "max_shift")
    if min_vertices < 2 or max_vertices < min_vertices:
        raise InvalidParameterError(
            f"need 2 <= min_vertices <= max_vertices, got {min_vertices}, {max_vertices}"
        )
    if shift not in ("all", "one"):
        raise InvalidParameterError(f"shift must be 'all' or 'one', got {shift!r}")
    n = draw(st.integers(min_vertices, max_vertices))
    pairs = set()
    if connected:
        for v in range(1, n):  # a random spanning tree, built constructively
            pairs.add((draw(st.integers(0, v - 1)), v))
    all_pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
    extra = draw(st.lists(st.sampled_from(all_pairs), max_size=2 * n))
    pairs.update(extra)
    if not pairs:
        pairs.add(all_pairs[draw(st.integers(0, len(all_pairs) - 1))])
    edges = np.array(sorted(pairs), dtype=np.int64).reshape(-1, 2)
    m = len(edges)
    finite = dict(allow_nan=False, allow_infinity=False)
    weights = np.array(draw(st.lists(st.floats(min_weight, max_weight, **finite), min_size=m, max_size=m)))
    shift_unit = st.floats(-1.0, 1.0, **finite)
    if shift == "all":
        offsets = np.array(draw(st.lists(shift_unit, min_size=m, max_size=m))) * max_shift
    else:
        offsets = np.zeros(m)
        offsets[draw(st.integers(0, m - 1))] = draw(shift_unit) * max_shift
    weights_prime = _shrink_into_ball(weights, weights + offsets, "linf", max_shift)
    if np.array_equal(weights, weights_prime):
        i = draw(st.integers(0, m - 1))
        weights_prime = weights.copy()
        weights_prime[i] = np.nextafter(weights[i], np.inf)
    pair = GraphPair(n, edges, weights.astype(float), weights_prime.astype(float))
    return pair.to_networkx() if as_networkx else pair


@st.composite
def neighbouring_streams(
    draw,
    elements=None,
    *,
    min_length: int = 1,
    max_length: int = 20,
    relation: str = "substitute",
):
    """Pairs of streams (tuples) that differ in one element.

    Parameters
    ----------
    elements : SearchStrategy, optional
        Strategy of stream elements; bits (0/1) by default.
    min_length, max_length : int
        Range of the length of the first stream.
    relation : {"substitute", "add-remove"}
        ``"substitute"``: same length, exactly one position holds a different
        value (bounded DP). ``"add-remove"``: the second stream is the first
        with one element inserted or deleted (unbounded DP).

    Returns
    -------
    SearchStrategy of (tuple, tuple)
    """
    if relation not in ("substitute", "add-remove"):
        raise InvalidParameterError(f"relation must be 'substitute' or 'add-remove', got {relation!r}")
    if min_length < (1 if relation == "substitute" else 0) or max_length < min_length:
        raise InvalidParameterError(f"bad length range [{min_length}, {max_length}] for {relation!r}")
    elements = st.integers(0, 1) if elements is None else elements
    stream = draw(st.lists(elements, min_size=min_length, max_size=max_length))
    if relation == "substitute":
        i = draw(st.integers(0, len(stream) - 1))
        old = stream[i]
        new = draw(elements.filter(lambda v: v != old))
        other = list(stream)
        other[i] = new
        return tuple(stream), tuple(other)
    if stream and draw(st.booleans()):
        i = draw(st.integers(0, len(stream) - 1))
        other = stream[:i] + stream[i + 1:]
    else:
        i = draw(st.integers(0, len(stream)))
        other = stream[:i] + [draw(elements)] + stream[i:]
    return tuple(stream), tuple(other)


def draw_pairs(strategy, n: int, seed: int = 0) -> list:
    """Draw ``n`` examples of ``strategy`` reproducibly, for :func:`dpverify.testing.audit_pairs`.

    Runs Hypothesis' generation phase only (no shrinking, no example
    database) under ``hypothesis.seed(seed)``, so the same seed gives the
    same list. Hypothesis may return fewer than ``n`` distinct examples for a
    small search space; duplicates are kept out.

    Parameters
    ----------
    strategy : SearchStrategy
        E.g. ``neighbouring_vectors(3, norm="l1")``.
    n : int
        Number of examples wanted.
    seed : int
        Seed of Hypothesis' generation.

    Returns
    -------
    list
    """
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameterError(f"n must be an integer >= 1, got {n!r}")
    found: list = []
    keys: set = set()

    @hypothesis_seed(int(seed))
    @settings(max_examples=n, database=None, phases=[Phase.generate], deadline=None,
              derandomize=False, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example):
        key = repr(example)
        if key not in keys and len(found) < n:
            keys.add(key)
            found.append(example)

    collect()
    return found
