"""Reference implementations of the algorithms of the five seed papers.

Subpackages, grouped by paper family:

- :mod:`algorithms.matroids` -- matroid oracles and greedy bases (seeds 000, 001, 004 App. A);
- :mod:`algorithms.mst` -- private minimum spanning trees (seed 004);
- :mod:`algorithms.counters` -- continual-release counters (seeds 000, 003);
- :mod:`algorithms.bandits` -- private matroid and combinatorial bandits (seeds 000, 001, 003);
- :mod:`algorithms.random_trees` -- DP random spanning trees (seed 002).

Note: PyPI hosts an unrelated distribution that also installs a top-level module
named ``algorithms``. This package is the one in this repository; the test suite
checks that ``import algorithms`` is this one through :data:`__distribution__` and the installed
distribution's metadata (which hold for editable and regular installs alike).
"""

#: The distribution that ships this package (PyPI's namesake ``algorithms`` has no such marker).
__distribution__ = "dpverify"
