"""
Stopping early, and (epsilon, delta) curves
===========================================

``sequential_audit`` looks at the evidence on a schedule fixed in advance (group-sequential, with
Bonferroni alpha spending: Jennison and Turnbull 2000) and stops as soon as a violation is
certified, so an obvious bug costs about a thousand samples. ``delta_lower_bound_curve`` certifies
a lower bound on delta(eps) at several epsilons at once, simultaneously at level 1 - alpha, for
(epsilon, delta) claims such as the Gaussian mechanism's.
"""

import matplotlib.pyplot as plt

import dpverify
from dpverify.mechanisms.broken import BrokenGaussianMechanism
from dpverify.mechanisms.textbook import LaplaceMechanism

broken = LaplaceMechanism(epsilon=1.0)  # audited against 0.1 below: 10x too little noise
r = dpverify.sequential_audit(broken, 0.0, 1.0, epsilon=0.1, n_samples=10**6, seed=3)
print(r.violation, r.stopped_early, "after", r.n_samples_used, "samples per input of a budget of", r.budget)

# %%
# A Gaussian mechanism with half the noise its (1, 1e-3) claim needs: the certified delta(eps)
# curve crosses the claimed delta.
mechanism = BrokenGaussianMechanism(1.0, 1e-3, sigma_multiplier=0.5)
epsilons = [0.25, 0.5, 1.0, 1.5, 2.0]
curve = dpverify.delta_lower_bound_curve(mechanism, 0.0, 1.0, epsilons=epsilons, n_samples=100_000, seed=3)
print(curve.violates(1.0, 1e-3))
bounds = curve.to_dict()["delta_lower_bounds"]

fig, ax = plt.subplots(figsize=(5, 3))
ax.plot(epsilons, bounds, "o-", label="certified lower bound on delta(eps)")
ax.axhline(1e-3, color="k", linestyle=":", label="claimed delta = 1e-3")
ax.axvline(1.0, color="grey", linestyle=":")
ax.set_xlabel("eps")
ax.set_yscale("symlog", linthresh=1e-4)
ax.set_ylim(0, 1)
ax.set_ylabel("delta")
ax.legend(loc="lower left")
fig.tight_layout()
