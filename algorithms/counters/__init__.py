"""Continual-release counters (notes/algorithms.md Section 2; seeds 000 and 003).

Binary (known horizon), logarithmic and hybrid (no horizon) mechanisms of Chan, Shi and Song
(2011), and tree-based aggregation of vector streams (seed 003, Algorithm 3), as vectorized
*banks* of independent counters (see :mod:`algorithms.counters.banks` for the interface),
single-stream helpers, dpverify mechanisms, and their Laplace-linear structures for exact
privacy loss (:mod:`algorithms.counters.structure`). Each bank exposes its claimed ``epsilon``
and a high-probability ``error_bound`` (seed 000 Lemma 1 applied to its noise terms).
"""

from algorithms.counters.banks import (
    BinaryCounterBank,
    BinaryMechanism,
    CounterBank,
    HybridCounterBank,
    HybridMechanism,
    LogarithmicCounterBank,
    LogarithmicMechanism,
    TreeAggregationBank,
    binary_mechanism_outputs,
    hybrid_mechanism_outputs,
    logarithmic_mechanism_outputs,
    tree_aggregation_outputs,
)
from algorithms.counters.laplace_tails import laplace_sum_deviation_bound
from algorithms.counters.structure import (
    LaplaceLinearStructure,
    binary_levels,
    binary_structure,
    hybrid_structure,
    logarithmic_structure,
)

__all__ = [
    "CounterBank",
    "BinaryCounterBank",
    "LogarithmicCounterBank",
    "HybridCounterBank",
    "TreeAggregationBank",
    "binary_mechanism_outputs",
    "logarithmic_mechanism_outputs",
    "hybrid_mechanism_outputs",
    "tree_aggregation_outputs",
    "BinaryMechanism",
    "LogarithmicMechanism",
    "HybridMechanism",
    "laplace_sum_deviation_bound",
    "LaplaceLinearStructure",
    "binary_levels",
    "binary_structure",
    "logarithmic_structure",
    "hybrid_structure",
]
