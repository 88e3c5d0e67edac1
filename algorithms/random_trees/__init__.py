"""Differentially private random spanning trees (DP-RST 2025).

The package re-exports the pipeline and its samplers (the entry points a user calls).

Modules
-------
bits
    Bit decomposition of integer weights, per-bit randomized response, reconstruction,
    exact pmf of a noisy weight (Sections 4.1-4.3, Lemma 5.2).
samplers
    Weighted spanning tree samplers (P[T] proportional to prod w(e)): Wilson's algorithm,
    Aldous-Broder, the paper's add-edge / drop-from-cycle chain (Algorithms 1 and 3).
exact
    Enumeration of spanning trees, matrix-tree normalizer, exact chain laws and mixing,
    exact DP-RST output law, Theorem 5.3 evaluated under three readings.
pipeline
    DP-RST (Algorithm 4) as a function and as dpverify mechanisms, with the paper's privacy
    claim (Lemma 4.4) and the exact loss of the weight release as data.
catalogue
    Small graphs with integer weights for exact checks.
verifications
    The family's ``dpverify suite`` entries.

References
----------
.. [1] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
   under double-blind review, 2025.
"""

from algorithms.random_trees.down_up import down_up_spanning_trees
from algorithms.random_trees.pipeline import DPRandomSpanningTree, dp_random_spanning_tree, lemma_4_4_claimed_epsilon
from algorithms.random_trees.samplers import (
    aldous_broder_spanning_trees,
    exchange_chain_spanning_trees,
    wilson_spanning_trees,
)

__all__ = [
    "down_up_spanning_trees",
    "DPRandomSpanningTree",
    "dp_random_spanning_tree",
    "lemma_4_4_claimed_epsilon",
    "aldous_broder_spanning_trees",
    "exchange_chain_spanning_trees",
    "wilson_spanning_trees",
]
