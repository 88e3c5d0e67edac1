"""
Floating-point leaks and wrong epsilons
=======================================

A textbook Laplace mechanism written as ``x + numpy.random.laplace(...)`` leaks through its
rounding (Mironov 2012): which doubles it can output depends on ``x``. dpverify's floating-point
event families catch that, and the result says whether the leak is in the *rounding* or in the
*values*: ``result.value_verdict`` is the verdict on value events only, on the same samples.
"""

import dpverify
from dpverify.mechanisms import FloatLaplaceMechanism, LaplaceMechanism

leaky = dpverify.audit(FloatLaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=100_000, seed=1)
print(leaky.violation, leaky.finding, leaky.event.family)
print("value events alone:", leaky.value_verdict.violation)

# %%
# The zoo's ``LaplaceMechanism`` snaps its output (Mironov's remedy), so no rounding marks are
# left and the claim is kept:
snapped = dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=100_000, seed=1)
print(snapped.violation, snapped.finding, round(snapped.epsilon_lower_bound, 3))

# %%
# ``float_events=False`` audits values only, as if the mechanism computed exactly:
values_only = dpverify.audit(
    FloatLaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, n_samples=100_000, seed=1, float_events=False
)
print(values_only.violation)
