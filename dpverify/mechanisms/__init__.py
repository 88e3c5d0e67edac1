"""A zoo of textbook mechanisms, correct and broken, for auditing the auditor.

Randomized response, the Laplace mechanism (snapped to a grid, so float-safe),
geometric and exponential mechanisms live in :mod:`dpverify.mechanisms.textbook` and are re-exported here; this package
adds floating-point-safe Laplace (fine grid, Mironov snapping), the Gaussian
mechanism with analytic calibration, report-noisy-max, noisy histograms, and
the sparse vector technique (Lyu, Su and Li's Algorithms 1 to 6), with the broken
variants StatDP and DP-Sniper audit; the under-noised variants used for power checks, and the textbook
floating-point Laplace (``x + numpy.laplace``), live in :mod:`.broken`; the
continual-release counters are :class:`GeometricBinaryCounter` and
:class:`GeometricPrefixSums` (:mod:`.counter`), whose whole output vectors have exact
distributions, as :class:`GeometricHistogram`'s do, and :class:`RealBinaryCounter` (Laplace or
Gaussian node noise), whose exact loss on a pair is that of its shifted nodes.
:func:`zoo_entries` lists them on their audit pairs. The DP-SGD canary traces, one per batch
sampler (Poisson, shuffled, without replacement per step, balls-in-bins), are in :mod:`.dpsgd`
(:data:`CANARY_TRACES`); they state their claims in other kinds than the zoo's eps = 0.1 and
carry their own worst-case pair (``pair``). :class:`ThresholdedCounts` releases keys (a mapping from
key to noisy count above a threshold); its planted glue bugs are in :mod:`.thresholded`
(:data:`~.thresholded.PLANTED_BUGS`). Pipelines with glue bugs planted around a noise call (for the
grey-box probes, :mod:`dpverify.probes`) and their correct versions are in :mod:`.glue`.
"""

from .additive import GaussianMechanism, GridLaplace, SnappingLaplace, analytic_gaussian_sigma, gaussian_delta
from .broken import (
    BrokenGaussianMechanism,
    BrokenLaplaceMechanism,
    BrokenNoisyHistogram,
    FloatGaussianMechanism,
    FloatLaplaceMechanism,
)
from .catalogue import CLAIMED_EPSILON, ZooEntry, zoo_entries
from .counter import GeometricBinaryCounter, GeometricPrefixSums, RealBinaryCounter
from .dpsgd import (
    CANARY_TRACES,
    BallsInBinsCanaryTrace,
    PoissonCanaryTrace,
    ShuffledCanaryTrace,
    WithoutReplacementCanaryTrace,
)
from .histogram import GeometricHistogram, NoisyHistogram
from .noisy_max import NoisyMaxValue, ReportNoisyMax
from .sparse_vector import (
    SparseVector,
    SparseVectorDworkRoth,
    SparseVectorLeeClifton,
    SparseVectorNoCutoff,
    SparseVectorNoQueryNoise,
    SparseVectorValues,
    interleaved_pair,
)
from .textbook import ExponentialMechanism, GeometricMechanism, LaplaceMechanism, RandomizedResponse
from .thresholded import ThresholdedCounts

__all__ = [
    "GeometricBinaryCounter",
    "GeometricPrefixSums",
    "RealBinaryCounter",
    "GeometricHistogram",
    "RandomizedResponse",
    "LaplaceMechanism",
    "GeometricMechanism",
    "ExponentialMechanism",
    "GridLaplace",
    "SnappingLaplace",
    "GaussianMechanism",
    "analytic_gaussian_sigma",
    "gaussian_delta",
    "NoisyHistogram",
    "BrokenNoisyHistogram",
    "BrokenLaplaceMechanism",
    "FloatLaplaceMechanism",
    "FloatGaussianMechanism",
    "BrokenGaussianMechanism",
    "ReportNoisyMax",
    "NoisyMaxValue",
    "SparseVector",
    "SparseVectorDworkRoth",
    "SparseVectorLeeClifton",
    "SparseVectorNoCutoff",
    "SparseVectorNoQueryNoise",
    "SparseVectorValues",
    "interleaved_pair",
    "ZooEntry",
    "zoo_entries",
    "CLAIMED_EPSILON",
    "PoissonCanaryTrace",
    "ShuffledCanaryTrace",
    "WithoutReplacementCanaryTrace",
    "BallsInBinsCanaryTrace",
    "CANARY_TRACES",
    "ThresholdedCounts",
]
