"""Ready neighbouring relations for :func:`dpverify.search_audit`: one module per relation.

- :mod:`.vectors`: vectors of query answers (StatDP's patterns; l1 or l_inf; scalars);
- :mod:`.streams`: streams differing in one element, at every class of position;
- :mod:`.graphs`: edge weights differing on one edge (l1) or on all edges (l_inf);
- :mod:`.datasets`: datasets differing by one added or removed record.

Each generator proposes fixed pairs first, then seeded random draws
(:class:`NeighbourGenerator`); :func:`candidate_pairs` also accepts a list of
pairs, a callable ``neighbours(rng)`` and a Hypothesis strategy.

Each relation is also a declared :class:`NeighbourRelation` record
(:mod:`.relations`: its generator, Hypothesis twin, command-line flags and input
domain), registered in one place; third parties add theirs with
:func:`register_relation` or the entry-point group ``dpverify.neighbour_relations``.
"""

from ..errors import InvalidNeighboursError
from ._base import DEFAULT_CANDIDATES, NeighbourGenerator, candidate_pairs
from .datasets import AddRemoveOne, add_remove_one
from .domain import InputDomain
from .graphs import GraphWeights, graph_weights
from .relations import (
    BUILTIN_RELATIONS,
    NeighbourRelation,
    RelationFlag,
    domain_neighbours,
    register_relation,
    registered_relations,
    relation,
    relation_names,
    unregister_relation,
)
from .streams import Streams, position_classes, streams
from .vectors import PATTERNS, QueryVectors, pattern_pair, query_vectors

__all__ = [
    "InvalidNeighboursError",
    "NeighbourGenerator",
    "candidate_pairs",
    "DEFAULT_CANDIDATES",
    "QueryVectors",
    "query_vectors",
    "InputDomain",
    "pattern_pair",
    "PATTERNS",
    "Streams",
    "streams",
    "position_classes",
    "GraphWeights",
    "graph_weights",
    "AddRemoveOne",
    "add_remove_one",
    "NeighbourRelation",
    "RelationFlag",
    "BUILTIN_RELATIONS",
    "register_relation",
    "unregister_relation",
    "relation",
    "registered_relations",
    "relation_names",
    "domain_neighbours",
]
