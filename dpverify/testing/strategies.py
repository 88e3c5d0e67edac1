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

Single inputs that the pair strategies (and the project's other graph strategies)
build on:

- :func:`weighted_graphs` -- weighted simple graphs as plain data
  ``(n, edges, weights)`` (:class:`WeightedGraph`), connected or not, with
  bounds on vertices and edges and a choice of weights (ranges, integers, ties);
  every graph strategy of the project is built on it;
- :func:`edge_weights` -- the weights alone, the same way.

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
          assert_dp(mech, x, x_prime, epsilon=1.0, n_samples=50_000, seed=0, alpha=per_example_alpha(1e-6, 40))

- or draw the pairs first with :func:`draw_pairs` and audit them together with
  :func:`dpverify.audit_pairs`, which applies Holm's correction::

      pairs = draw_pairs(neighbouring_vectors(3, norm="l1"), 50, seed=1)
      result = audit_pairs(mech, pairs, epsilon=1.0, n_samples=50_000, alpha=1e-6, seed=2)
      assert not result.violation, result.worst_result

Both keep the family-wise false-alarm rate at most ``alpha``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from hypothesis import strategies as st

from .._validation import check_choice, check_positive_int, check_positive_real
from ..errors import InvalidParameterError
from ..neighbours.relations import relation as registered_relation
from ..neighbours.vectors import NORMS

__all__ = [
    "weighted_graphs",
    "edge_weights",
    "WeightedGraph",
    "neighbouring_vectors",
    "neighbouring_graphs",
    "neighbouring_streams",
    "GraphPair",
    "draw_pairs",
    "vector_distance",
    "relation_strategy",
]


def vector_distance(x, x_prime, norm: str) -> float:
    """The l1 or l_inf distance between two vectors, as the strategies measure it."""
    diff = np.abs(np.asarray(x, dtype=float) - np.asarray(x_prime, dtype=float))
    if norm == "l1":
        return float(diff.sum())
    if norm == "linf":
        return float(diff.max(initial=0.0))
    check_choice(norm, "norm", NORMS)


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
    check_choice(norm, "norm", NORMS)
    check_positive_real(distance, "distance")
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


def _to_networkx(n, edges, weights):
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_weighted_edges_from((int(u), int(v), float(x)) for (u, v), x in zip(edges, weights))
    return g


class WeightedGraph(NamedTuple):
    """A weighted simple undirected graph as plain data, as :func:`weighted_graphs` draws it.

    ``n`` vertices ``0 .. n-1``; ``edges`` an int64 array of shape (m, 2) with
    ``u < v`` in every row and no pair twice; ``weights`` a float64 array of shape
    (m,), all finite. Unpacks as ``n, edges, weights = graph``, the triple the
    project's graph algorithms accept.
    """

    n: int
    edges: np.ndarray
    weights: np.ndarray

    def to_networkx(self):
        """The graph as a :class:`networkx.Graph` with a ``weight`` on every edge."""
        return _to_networkx(self.n, self.edges, self.weights)


def _check_weight_range(min_weight, max_weight, integer_weights):
    """Validate a weight range; for integer weights return the integer bounds."""
    for name, value in (("min_weight", min_weight), ("max_weight", max_weight)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise InvalidParameterError(f"{name} must be a finite number, got {value!r}")
    if integer_weights:
        min_weight, max_weight = math.ceil(min_weight), math.floor(max_weight)
    if min_weight > max_weight:
        raise InvalidParameterError(
            f"need min_weight <= max_weight{' (integers in the range)' if integer_weights else ''}, "
            f"got {min_weight!r}, {max_weight!r}"
        )
    return min_weight, max_weight


def _weight_values(min_weight, max_weight, integer_weights):
    """Strategy of one weight in ``[min_weight, max_weight]`` (validated bounds), as a float."""
    if integer_weights:
        return st.integers(int(min_weight), int(max_weight)).map(float)
    return st.floats(min_weight, max_weight, allow_nan=False, allow_infinity=False)


def _draw_weights(draw, size, min_weight, max_weight, integer_weights, ties, taken=frozenset()):
    """``size`` weights; with ``ties`` some from a small drawn pool, else distinct and not in ``taken``."""
    values = _weight_values(min_weight, max_weight, integer_weights)
    if ties:
        if size < 2:
            return draw(st.lists(values, min_size=size, max_size=size))
        # A shared pool makes ties common, whatever the range. Each weight draws a fresh
        # value and then a pool index (0: keep the fresh value), so a weight costs the same
        # choices either way and shrinks to a fresh 0 (one_of(values, pool) shrank to the
        # pool's first values instead, which need fewer choices).
        pool = draw(st.lists(values, min_size=1, max_size=3, unique=True))
        weights = []
        for _ in range(size):
            fresh, k = draw(values), draw(st.integers(0, len(pool)))
            weights.append(fresh if k == 0 else pool[k - 1])
        return weights
    if taken:
        values = values.filter(lambda x: x not in taken)
    return draw(st.lists(values, min_size=size, max_size=size, unique=True))


def edge_weights(
    size: int,
    *,
    min_weight: float = -50.0,
    max_weight: float = 50.0,
    integer_weights: bool = False,
    ties: bool = True,
):
    """``size`` finite edge weights, the weights :func:`weighted_graphs` draws.

    Parameters
    ----------
    size : int
        Number of weights (edges).
    min_weight, max_weight : float
        Closed range of every weight; negative and zero weights are valid
        graph weights.
    integer_weights : bool, default False
        Integers of the range (as floats), e.g. the bounded integer weights of
        random spanning trees.
    ties : bool, default True
        Draw some weights from a small pool of shared values, so that equal
        weights are common; ``False``: all weights distinct.

    Returns
    -------
    SearchStrategy of numpy.ndarray
        float64 array of shape ``(size,)``; shrinks toward zeros (or the bound
        nearest zero).
    """
    size = check_positive_int(size, "size", 0)
    lo, hi = _check_weight_range(min_weight, max_weight, integer_weights)
    if integer_weights and not ties and hi - lo + 1 < size:
        raise InvalidParameterError(f"{size} distinct integer weights do not fit in [{lo}, {hi}]")

    @st.composite
    def weights(draw):
        return np.array(_draw_weights(draw, size, lo, hi, integer_weights, ties), dtype=np.float64)

    return weights()


def weighted_graphs(
    *,
    min_vertices: int = 2,
    max_vertices: int = 9,
    connected: bool = False,
    min_edges: int = 0,
    max_edges: int | None = None,
    max_extra_edges: int | None = None,
    min_weight: float = -50.0,
    max_weight: float = 50.0,
    integer_weights: bool = False,
    ties: bool = True,
    min_tree_weight: float | None = None,
    shuffle_edges: bool = False,
):
    """Weighted simple undirected graphs, built constructively: a spanning forest, extra edges, weights.

    The one graph strategy of the project: :func:`neighbouring_graphs` and the
    strategies of ``algorithms`` (minimum spanning trees, random spanning trees,
    graphic matroids) are built on it.

    Parameters
    ----------
    min_vertices, max_vertices : int
        Range of the vertex count ``n`` (``1 <= min_vertices <= max_vertices``);
        equal bounds fix ``n``.
    connected : bool, default False
        Every vertex joins an earlier one (a random spanning tree), so the graph
        is connected. ``False``: each vertex joins an earlier one or starts a new
        component, which gives forests, several components and isolated vertices.
    min_edges : int, default 0
        Fewest edges (extra edges are added to reach it).
    max_edges : int, optional
        Most edges in all. A connected graph needs ``max_edges >= max_vertices - 1``.
    max_extra_edges : int, optional
        Most edges beyond the spanning forest (``0``: trees when ``connected``).
    min_weight, max_weight : float, default -50, 50
        Closed range of the weights (negative and zero weights included by default).
    integer_weights : bool, default False
        Integer weights (stored as floats).
    ties : bool, default True
        Draw some weights from a small pool of shared values, so equal weights
        are common; ``False``: all weights distinct.
    min_tree_weight : float, optional
        Connected graphs only: smallest weight of the spanning tree's edges (the
        other edges keep ``min_weight``), e.g. ``min_weight=0, min_tree_weight=1``:
        the positive edges alone connect the graph.
    shuffle_edges : bool, default False
        Edges in random order (for code whose tie-breaking follows the edge
        index); otherwise sorted.

    Returns
    -------
    SearchStrategy of WeightedGraph
        ``(n, edges, weights)``: int64 ``edges`` of shape (m, 2) with ``u < v``
        and no repeated pair, float64 ``weights`` of shape (m,).

    Raises
    ------
    InvalidParameterError
        When the strategy is built, for bounds no graph satisfies.

    Notes
    -----
    Nothing is filtered. Vertex ``v = 1 .. n-1`` joins a vertex drawn from
    ``0 .. v-1`` (always when ``connected``, with probability about 4/5
    otherwise), then distinct missing pairs are added: a drawn subset, or (when
    the bounds allow) all of them, which gives complete graphs K_n. Weights come
    last. Every choice shrinks toward the smaller graph: fewest vertices, no
    optional edge, a star on vertex 0, zero weights (or the bound nearest zero),
    sorted edges. So a failing example shrinks to two vertices and no edge (one
    edge when connected), or to the smallest graph with the failing feature.

    Examples
    --------
    >>> from hypothesis import find
    >>> find(weighted_graphs(connected=True), lambda g: True)
    WeightedGraph(n=2, edges=array([[0, 1]]), weights=array([0.]))
    """
    min_vertices = check_positive_int(min_vertices, "min_vertices", 1)
    max_vertices = check_positive_int(max_vertices, "max_vertices", min_vertices)
    min_edges = check_positive_int(min_edges, "min_edges", 0)
    if max_edges is not None:
        max_edges = check_positive_int(max_edges, "max_edges", min_edges)
        if connected and max_edges < max_vertices - 1:
            raise InvalidParameterError(
                f"a connected graph on {max_vertices} vertices needs max_edges >= {max_vertices - 1}, got {max_edges}"
            )
    if max_extra_edges is not None:
        max_extra_edges = check_positive_int(max_extra_edges, "max_extra_edges", 0)
        forest = min_vertices - 1 if connected else 0
        if min_edges > forest + max_extra_edges:
            raise InvalidParameterError(
                f"min_edges={min_edges} exceeds the {forest} forest edges plus max_extra_edges={max_extra_edges}"
            )
    if min_edges > min_vertices * (min_vertices - 1) // 2:
        raise InvalidParameterError(
            f"a simple graph on {min_vertices} vertices has fewer than min_edges={min_edges} edges"
        )
    lo, hi = _check_weight_range(min_weight, max_weight, integer_weights)
    tree_lo = lo
    if min_tree_weight is not None:
        if not connected:
            raise InvalidParameterError("min_tree_weight needs connected=True (the tree that connects the graph)")
        _check_weight_range(min_tree_weight, max_weight, integer_weights)
        tree_lo, _ = _check_weight_range(max(min_tree_weight, min_weight), max_weight, integer_weights)
    if integer_weights and not ties:
        most = max_vertices * (max_vertices - 1) // 2
        if max_edges is not None:
            most = min(most, max_edges)
        if max_extra_edges is not None:
            most = min(most, max_vertices - 1 + max_extra_edges)
        if hi - lo + 1 < most or hi - tree_lo + 1 < min(most, max_vertices - 1):
            raise InvalidParameterError(f"up to {most} distinct integer weights do not fit in [{lo}, {hi}]")
    return _weighted_graphs(
        min_vertices,
        max_vertices,
        connected,
        min_edges,
        max_edges,
        max_extra_edges,
        lo,
        hi,
        integer_weights,
        ties,
        tree_lo,
        shuffle_edges,
    )


@st.composite
def _weighted_graphs(
    draw,
    min_vertices,
    max_vertices,
    connected,
    min_edges,
    max_edges,
    max_extra_edges,
    min_weight,
    max_weight,
    integer_weights,
    ties,
    tree_min_weight,
    shuffle_edges,
):
    """The construction of :func:`weighted_graphs` (validated parameters)."""
    n = draw(st.integers(min_vertices, max_vertices))
    # drawn first and always, so that shrinking n keeps the later choices aligned; shrinks to 0
    complete = draw(st.integers(0, 9)) == 9
    room = n * (n - 1) // 2 if max_edges is None else min(n * (n - 1) // 2, max_edges)
    forest = []
    for v in range(1, n):  # one choice per vertex, so shrinking n keeps the later choices aligned
        if connected:
            forest.append((draw(st.integers(0, v - 1)), v))
            continue
        parent = draw(st.integers(0, v)) - 1  # -1 (the shrink target): v starts a new component
        if parent >= 0 and len(forest) < room:
            forest.append((parent, v))
    present = set(forest)
    # colex order: a pair's index does not depend on n, and small indices name small vertices
    missing = [(u, v) for v in range(n) for u in range(v) if (u, v) not in present]
    room -= len(forest)
    if max_extra_edges is not None:
        room = min(room, max_extra_edges)
    need = max(0, min_edges - len(forest))
    if missing and room >= len(missing) and complete:
        extra = missing  # K_n (or the forest's complement, when it fits in the bounds)
    elif missing and room > 0:
        extra = draw(st.lists(st.sampled_from(missing), min_size=need, max_size=room, unique=True))
    else:
        extra = []
    tree_weights = _draw_weights(draw, len(forest), tree_min_weight, max_weight, integer_weights, ties)
    extra_weights = _draw_weights(
        draw, len(extra), min_weight, max_weight, integer_weights, ties, taken=frozenset(tree_weights)
    )
    edges = np.array(forest + extra, dtype=np.int64).reshape(-1, 2)
    weights = np.array(tree_weights + extra_weights, dtype=np.float64)
    if shuffle_edges:
        order = np.array(draw(st.permutations(range(len(edges)))), dtype=np.int64)
    else:
        order = np.lexsort((edges[:, 1], edges[:, 0]))
    return WeightedGraph(n, edges[order].reshape(-1, 2), weights[order])


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
        return tuple(_to_networkx(self.n, self.edges, w) for w in (self.weights, self.weights_prime))


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
        Connected graphs (a random spanning tree, then extra edges); ``False``
        also gives forests, several components and isolated vertices. Every
        graph has at least one edge.
    min_weight, max_weight : float
        Range of the weights of the first graph.
    shift : {"all", "one"}
        Shift every weight (independently, within ``max_shift``) or one edge only.
    as_networkx : bool, default False
        Return two networkx Graphs instead of a :class:`GraphPair`.

    Returns
    -------
    SearchStrategy of GraphPair (or of a pair of networkx.Graph)

    Notes
    -----
    The first graph is drawn by :func:`weighted_graphs` (so weight ties, zero
    and negative weights and complete graphs occur), then the offsets.
    """
    check_positive_real(max_shift, "max_shift")
    if min_vertices < 2 or max_vertices < min_vertices:
        raise InvalidParameterError(f"need 2 <= min_vertices <= max_vertices, got {min_vertices}, {max_vertices}")
    check_choice(shift, "shift", ("all", "one"))
    n, edges, weights = draw(
        weighted_graphs(
            min_vertices=min_vertices,
            max_vertices=max_vertices,
            connected=connected,
            min_edges=1,
            min_weight=min_weight,
            max_weight=max_weight,
        )
    )
    m = len(edges)
    finite = dict(allow_nan=False, allow_infinity=False)
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
    pair = GraphPair(n, edges, weights, weights_prime)
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
    check_choice(relation, "relation", ("substitute", "add-remove"))
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
        other = stream[:i] + stream[i + 1 :]
    else:
        i = draw(st.integers(0, len(stream)))
        other = stream[:i] + [draw(elements)] + stream[i:]
    return tuple(stream), tuple(other)


def draw_pairs(strategy, n: int, seed: int = 0) -> list:
    """Draw ``n`` examples of ``strategy`` reproducibly, for :func:`dpverify.audit_pairs`.

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
    @settings(
        max_examples=n,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(example):
        key = repr(example)
        if key not in keys and len(found) < n:
            keys.add(key)
            found.append(example)

    collect()
    return found


def relation_strategy(name: str, **arguments):
    """The Hypothesis strategy of pairs that the registered relation ``name`` declares.

    The twin of the relation's generator (:mod:`dpverify.neighbours.relations`), e.g.
    ``relation_strategy("streams", max_length=8)`` is
    ``neighbouring_streams(relation="substitute", max_length=8)``.

    Raises
    ------
    InvalidNeighboursError
        No relation of that name is registered, or it declares no strategy.
    """
    return registered_relation(name).hypothesis_strategy(**arguments)
