"""
Checking a paper: a privacy claim and a lemma
=============================================

``algorithms/`` implements the five papers in the bibliography, and ``properties/`` checks their
claims; the pages under "The papers" give every verdict. Two of those checks, small enough to run
here.

**A privacy claim.** Algorithm 1 of Pagh et al. (2025) releases a minimum spanning tree of weights
perturbed with Gumbel noise; each of its n - 1 steps is epsilon0-DP for weights that move by at
most 1 per edge, so the tree is (n - 1) epsilon0-DP by basic composition. On the catalogue's
triangle the exact loss over the whole relation is smaller, and computable.
"""

import numpy as np

import dpverify
from algorithms.bandits.permutation import lemma22_violations, regret_permutation
from algorithms.matroids import GraphicMatroid
from algorithms.mst.audits import TreeOfWeights, weight_neighbours
from algorithms.mst.broken import BrokenGumbelPerturbationMechanism
from algorithms.mst.catalogue import catalogue_graph
from algorithms.mst.exact import worst_case_tree_loss
from algorithms.mst.perturbation import GumbelPerturbationMechanism

entry = catalogue_graph("triangle")
graph, epsilon0 = entry.graph, entry.epsilon0
loss = worst_case_tree_loss(graph, epsilon0)
print("exact worst loss", round(loss.epsilon, 4), "against the claim", loss.basic_composition)

# %%
# A searched audit over the weight relation (every sign pattern around the weights, then l_inf
# moves), held to the exact loss, finds no violation and certifies close to it:
mechanism = TreeOfWeights(GumbelPerturbationMechanism(epsilon0), graph)
kept = dpverify.search_audit(mechanism, weight_neighbours(graph), epsilon=loss.epsilon, n_samples=50_000, seed=31)
print(kept.violation, round(kept.epsilon_lower_bound, 3))

# %%
# A deliberately broken variant with half the Gumbel scale, still claiming (n - 1) epsilon0, is
# caught:
broken = TreeOfWeights(BrokenGumbelPerturbationMechanism(epsilon0, noise_multiplier=0.5), graph)
caught = dpverify.search_audit(
    broken, weight_neighbours(graph), epsilon=loss.basic_composition, n_samples=50_000, seed=41
)
print(caught.violation, round(caught.epsilon_lower_bound, 3))

# %%
# **A lemma that is false.** Chandak (2023) pairs the arms played in a round of a matroid bandit
# with the optimal ones through a permutation pi_t (Section 4.1.3); Lemma 22 states that the
# played set with the arm paired to the k-th optimal arm replaced by that optimal arm is
# independent, for every k. On the 4-vertex diamond graph it is not: with indices J = (0, 1, 2, 3, 4)
# and means mu = (3, 2, 0, 1, 4), replacing the played edge (1, 2) by the optimal edge (0, 2)
# (k = 3; 2 counted from 0) closes the triangle {(2, 3), (0, 2), (0, 3)}.
diamond = GraphicMatroid.from_edges(4, [(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)])
played = diamond.greedy_max_basis(np.array([0.0, 1, 2, 3, 4]))
optimal = diamond.greedy_max_basis(np.array([3.0, 2, 0, 1, 4]))
pi = regret_permutation(diamond, played, optimal)
print("played", played.tolist(), "optimal", optimal.tolist(), "pi", pi.tolist())
print("positions where Lemma 22 fails:", lemma22_violations(diamond, played, optimal, pi))
print("is {(2,3), (0,2), (0,3)} independent?", diamond.is_independent([4, 1, 2]))
