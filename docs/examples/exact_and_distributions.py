"""
Exact losses and distribution tests
===================================

Where the output distributions are computable, no sampling is needed: ``exact_privacy_loss``
gives the exact epsilon and the delta(eps) curve (the hockey-stick divergence). Where two samplers
should have one law (an algorithm and its faster twin, say), ``equal_distributions`` tests it,
and ``goodness_of_fit`` tests a sampler against a known pmf (chi-square tests with rare
categories pooled).
"""

import math

import dpverify

# %%
# Randomized response with epsilon = 1 (Warner 1965): tell the truth with probability e/(1 + e).
p = math.e / (1 + math.e)
loss = dpverify.exact_privacy_loss({0: p, 1: 1 - p}, {0: 1 - p, 1: p})
print(round(loss.epsilon, 12))
print(loss.delta(0.5))  # the smallest delta for which (0.5, delta)-DP holds on this pair


# %%
# Two samplers of one law: a fair die drawn two ways.
def die(rng):
    return int(rng.integers(1, 7))


def die_by_uniform(rng):
    return 1 + int(6 * rng.random())


same = dpverify.equal_distributions(die, die_by_uniform, n_samples=20_000, seed=1)
print(same.violation, round(same.to_dict()["pvalue"], 3))


# %%
# A loaded die against the fair pmf:
def loaded(rng):
    return 6 if rng.random() < 0.2 else int(rng.integers(1, 6))


fit = dpverify.goodness_of_fit(loaded, {k: 1 / 6 for k in range(1, 7)}, n_samples=20_000, seed=1)
print(fit.violation)
