"""Private minimum spanning trees (Pagh et al. 2025).

The package re-exports the algorithms and their accounting (the entry points a user calls);
the test helpers stay in their modules:

- :mod:`.accounting` -- :class:`~.accounting.ZCDPAccounting`, (eps, delta) <-> rho <-> epsilon0 with the
  ``"generic"`` (epsilon0^2/2) and ``"bounded-range"`` (epsilon0^2/8) conversions;
- :mod:`.exponential` -- the exponential-mechanism step in log space;
- :mod:`.perturbation` -- Algorithm 1 (Gumbel input perturbation + any MST backend) and the
  batched numba sampler :class:`~.perturbation.GumbelPerturbationMechanism`;
- :mod:`.kruskal` -- Algorithm 2 (private Kruskal, Appendix E sum tree) and Algorithm 3
  (one-pass Kruskal);
- :mod:`.ppsacr` -- PPSACR, One-Shot-PPSACR, exact sequence probabilities and distributions;
- :mod:`.pamst` -- PAMST, naive and fast (exponential clocks);
- :mod:`.privatization` -- Sealfon's input privatization (Laplace / Gaussian, l_inf / l1);
- :mod:`.matroid_extension` -- Appendix A: perturb once, greedy on any matroid;
- :mod:`.exact` -- exact output distributions and exact worst-case privacy losses;
- :mod:`.catalogue`, :mod:`.samplers`, :mod:`.strategies` -- small graphs, samplers and
  Hypothesis strategies for the verifications in ``properties/mst``;
- :mod:`.broken` -- deliberately broken variants (a claim the audits must refute), kept apart
  from the reference implementations;
- :mod:`.verifications` -- what ``dpverify suite`` runs; :mod:`.experiments`,
  :mod:`.reproduce` -- Appendix H.

Graphs are validated by :func:`algorithms.graphs.as_graph_arrays`; trees are edge indices.

References
----------
.. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning Trees
   via Input Perturbation", 2025.
"""

from algorithms.mst.accounting import (
    ZCDPAccounting,
    accounting_from_epsilon0,
    accounting_from_epsilon_delta,
    accounting_from_rho,
    spanning_forest_accounting,
)
from algorithms.mst.kruskal import one_pass_kruskal, private_kruskal
from algorithms.mst.matroid_extension import private_matroid_basis
from algorithms.mst.pamst import pamst_fast, pamst_naive
from algorithms.mst.perturbation import GumbelPerturbationMechanism, perturbed_mst
from algorithms.mst.ppsacr import one_shot_ppsacr, ppsacr
from algorithms.mst.privatization import gaussian_privatized_mst, laplace_privatized_mst

__all__ = [
    "ZCDPAccounting",
    "accounting_from_epsilon0",
    "accounting_from_rho",
    "accounting_from_epsilon_delta",
    "spanning_forest_accounting",
    "private_kruskal",
    "one_pass_kruskal",
    "private_matroid_basis",
    "pamst_fast",
    "pamst_naive",
    "GumbelPerturbationMechanism",
    "perturbed_mst",
    "one_shot_ppsacr",
    "ppsacr",
    "gaussian_privatized_mst",
    "laplace_privatized_mst",
]
