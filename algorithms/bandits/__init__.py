"""Private matroid and combinatorial semi-bandits: policies, a compiled simulator, environments and audits.

References
----------
.. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025.
.. [2] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023.
.. [3] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119.
"""
