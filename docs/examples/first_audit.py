"""
A first audit
=============

A mechanism is any callable ``mechanism(data, rng)`` returning one output; an object with a
vectorized ``sample(data, size, rng)`` is sampled through it, which is much faster. Here a noisy
count adds the difference of two geometric variables (the two-sided geometric mechanism of Ghosh,
Roughgarden and Sundararajan 2012), which is epsilon-DP for epsilon = 1 on counts one apart.
"""

import dpverify


class NoisyCount:
    epsilon = 1.0

    def __call__(self, x, rng):
        return int(x) + int(rng.geometric(0.632) - rng.geometric(0.632))

    def sample(self, x, size, rng):
        return int(x) + rng.geometric(0.632, size) - rng.geometric(0.632, size)


# %%
# The audit draws outputs on both inputs, chooses an output event on part of them and certifies a
# lower confidence bound on the privacy loss on fresh ones (Clopper-Pearson, alpha = 0.05). No
# evidence against epsilon = 1 is what a correct mechanism gives:
result = dpverify.audit(NoisyCount(), 0, 1, epsilon=1.0, n_samples=200_000, seed=1)
print(result.summary())

# %%
# The same mechanism against a claim it does not keep: the bound certified on the same pair now
# exceeds the claim, and the result names the event that shows it.
wrong_claim = dpverify.audit(NoisyCount(), 0, 1, epsilon=0.5, n_samples=200_000, seed=1)
print(wrong_claim.violation, round(wrong_claim.epsilon_lower_bound, 3))
print(wrong_claim.event)

# %%
# Results save to JSON and reload equal; ``dpverify.replay`` reruns an audit from a result alone
# (its seed and options are recorded in it).
again = dpverify.AuditResult.from_json(result.to_json())
print(again == result)
print(dpverify.replay(result, NoisyCount(), 0, 1) == result)
