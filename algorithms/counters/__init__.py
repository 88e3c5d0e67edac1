"""Continual-release counters (Chan, Shi, Song 2011; Tao et al. 2025; Chen et al. 2020).

Binary (known horizon), logarithmic and hybrid (no horizon) mechanisms of Chan, Shi and Song
(2011), and tree-based aggregation of vector streams (Chen et al. 2020, Algorithm 3), as vectorized
*banks* of independent counters (see :mod:`algorithms.counters.banks` for the interface),
single-stream helpers, dpverify mechanisms, and their Laplace-linear structures for exact
privacy loss (:mod:`algorithms.counters.structure`). Each bank exposes its claimed ``epsilon``
and a high-probability ``error_bound`` (Tao et al. 2025, Lemma 1 applied to its noise terms).

References
----------
.. [1] T.-H. H. Chan, E. Shi, D. Song, "Private and Continual Release of Statistics", ACM TISSEC
   14(3), 2011.
.. [2] C. Dwork, M. Naor, T. Pitassi, G. N. Rothblum, "Differential Privacy under Continual
   Observation", STOC 2010.
.. [3] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025. Algorithm 1.
.. [4] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 3.
"""

from algorithms.counters import banks
from algorithms.counters.banks import *  # noqa: F403  (the names of banks.__all__)
from algorithms.counters.laplace_tails import laplace_sum_deviation_bound
from algorithms.counters.structure import (
    LaplaceLinearStructure,
    binary_levels,
    binary_structure,
    hybrid_structure,
    logarithmic_structure,
)

__all__ = [
    *banks.__all__,
    "laplace_sum_deviation_bound",
    "LaplaceLinearStructure",
    "binary_levels",
    "binary_structure",
    "logarithmic_structure",
    "hybrid_structure",
]
