"""Private matroid and combinatorial semi-bandits: policies, a compiled simulator, environments and audits.

The package re-exports the policies, the simulator and the environments (the entry points a
user calls); audits, adversaries, the permutation pi_t, the broken variant, verifications and
reproductions stay in their modules.

References
----------
.. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025.
.. [2] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023.
.. [3] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119.
"""

from algorithms.bandits.environments import BanditInstance, BernoulliEnvironment, LatencyEnvironment, TableEnvironment
from algorithms.bandits.policies import (
    Policy,
    cts,
    cucb,
    cucb_dp,
    cucb_ldp1,
    cucb_ldp2,
    dp_omm,
    dpts_mat,
    dpucb_mat,
    ldp_omm,
    omm,
)
from algorithms.bandits.simulator import SimulationResult, simulate

__all__ = [
    "BanditInstance",
    "BernoulliEnvironment",
    "LatencyEnvironment",
    "TableEnvironment",
    "Policy",
    "cts",
    "cucb",
    "cucb_dp",
    "cucb_ldp1",
    "cucb_ldp2",
    "dp_omm",
    "dpts_mat",
    "dpucb_mat",
    "ldp_omm",
    "omm",
    "SimulationResult",
    "simulate",
]
