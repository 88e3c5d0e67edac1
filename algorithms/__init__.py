"""Reference implementations of the algorithms of the five source papers (see docs/bibliography.md).

Subpackages, grouped by paper family:

- :mod:`algorithms.matroids` -- matroid oracles and greedy bases (Tao et al. 2025; Chandak 2023;
  Pagh et al. 2025, App. A);
- :mod:`algorithms.mst` -- private minimum spanning trees (Pagh et al. 2025);
- :mod:`algorithms.counters` -- continual-release counters (Tao et al. 2025; Chen et al. 2020);
- :mod:`algorithms.bandits` -- private matroid and combinatorial bandits (Tao et al. 2025;
  Chandak 2023; Chen et al. 2020);
- :mod:`algorithms.random_trees` -- DP random spanning trees (DP-RST 2025).

Note: PyPI hosts an unrelated distribution that also installs a top-level module
named ``algorithms``. This package is the one in this repository; the test suite
checks that ``import algorithms`` is this one through :data:`__distribution__` and the installed
distribution's metadata (which hold for editable and regular installs alike).

References
----------
.. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025.
.. [2] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023.
.. [3] Anonymous, "Differentially Private Random Spanning Tree Generation" (DP-RST), manuscript
   under double-blind review, 2025.
.. [4] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119.
.. [5] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning Trees
   via Input Perturbation", 2025.
"""

#: The distribution that ships this package (PyPI's namesake ``algorithms`` has no such marker).
__distribution__ = "dpverify"
