"""Matroids over the ground set ``range(n_elements)``: independence oracles and greedy bases.

Interface (:class:`Matroid`): ``is_independent(subset)``, ``rank_of(subset)``, ``rank``,
``greedy_max_basis(weights)`` / ``greedy_min_basis(weights)`` (element indices in selection
order; ties broken by the lower index), their batched forms ``greedy_max_basis_batch(weights
(R, n))`` -> ``(R, rank)``, ``greedy_in_order(order)``, and ``tracker()`` returning an
:class:`IndependenceTracker` (``can_add(e)``, ``add(e)``, ``try_add(e)``, ``reset()``,
``elements``).

Kinds: :class:`GraphicMatroid` (edge arrays or networkx; numba union-find greedy),
:class:`UniformMatroid`, :class:`PartitionMatroid`, :class:`LinearMatroid` (real vectors,
incremental Gram-Schmidt with a documented tolerance), :class:`OracleMatroid` (user callable,
axiom-checked on construction). :func:`check_matroid_axioms` (random) and
:func:`check_matroid_axioms_exhaustive` (tiny ground sets) raise
:class:`~algorithms.errors.MatroidAxiomError`.

Seeds: 000 (greedy super arm of OMM / DP-OMM, graphic matroids of RocketFuel), 001 (matroid
bandits on any matroid, linear matroid of thesis Table 6.1), 004 Appendix A (perturb once,
greedy).
"""

from algorithms.errors import MatroidAxiomError
from algorithms.matroids.axioms import (
    MAX_EXHAUSTIVE_ELEMENTS,
    OracleMatroid,
    check_matroid_axioms,
    check_matroid_axioms_exhaustive,
    independence_table,
)
from algorithms.matroids.base import (
    DependentElementError,
    IndependenceTracker,
    Matroid,
    MatroidElementError,
    as_element_array,
)
from algorithms.matroids.graphic import GraphicMatroid
from algorithms.matroids.linear import DEFAULT_RTOL, LinearMatroid
from algorithms.matroids.simple import PartitionMatroid, UniformMatroid

__all__ = [
    "Matroid",
    "IndependenceTracker",
    "MatroidElementError",
    "DependentElementError",
    "MatroidAxiomError",
    "as_element_array",
    "GraphicMatroid",
    "UniformMatroid",
    "PartitionMatroid",
    "LinearMatroid",
    "DEFAULT_RTOL",
    "OracleMatroid",
    "check_matroid_axioms",
    "check_matroid_axioms_exhaustive",
    "independence_table",
    "MAX_EXHAUSTIVE_ELEMENTS",
]
