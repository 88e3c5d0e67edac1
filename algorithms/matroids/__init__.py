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

Used by: Tao et al. 2025 (the greedy super arm of OMM / DP-OMM on the graphic matroids of the
RocketFuel maps), Chandak 2023 (matroid bandits on any matroid; the linear matroid of Table 6.1)
and Pagh et al. 2025, Appendix A (perturb once, then greedy).

References
----------
.. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025.
.. [2] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023.
.. [3] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning Trees
   via Input Perturbation", 2025.
.. [4] J. Oxley, *Matroid Theory*, 2nd ed., Oxford University Press, 2011.
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
