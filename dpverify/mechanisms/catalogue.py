"""The mechanism zoo: correct and broken textbook mechanisms on the StatDP/DP-Sniper pairs.

Each :class:`ZooEntry` names a mechanism, the neighbouring pair it is audited
on, its claim (eps = 0.1 as in the published tables of
DP-Sniper, Bichsel et al. 2021), its true
loss on that pair where known, and the published DP-Sniper/StatDP lower
bounds (Bichsel et al. 2021; Ding et al. 2018; 90% confidence).

Pairs. Query vectors of five counts as in StatDP's patterns: the histogram
changes one count ("one above": (1,1,1,1,1) vs (2,1,1,1,1)); report-noisy-max
uses "one above, rest below" ((1,1,1,1,1) vs (2,0,0,0,0)), its worst pattern;
noisy-max-value uses "all above" ((1,...) vs (2,...)), where its lower tail
attains 5 * eps/2 = 0.25. Sparse vector (Algorithm 1) uses ten queries that
all move by one with the last one crossing ((0,..,0,1) vs (1,..,1,0)).
Sparse vector without query noise (Algorithm 5) is audited on the interleaved
pair of :func:`.sparse_vector.interleaved_pair` with 10 queries (the published
query count) and with 60 queries (the worst pair we can justify: more queries
make the event that is impossible under x' more likely).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .additive import GaussianMechanism, GridLaplace, SnappingLaplace
from .broken import BrokenNoisyHistogram, FloatLaplaceMechanism
from .histogram import NoisyHistogram
from .noisy_max import NoisyMaxValue, ReportNoisyMax
from .sparse_vector import SparseVector, SparseVectorNoQueryNoise, interleaved_pair
from .textbook import ExponentialMechanism, GeometricMechanism, RandomizedResponse

__all__ = ["ZooEntry", "zoo_entries", "CLAIMED_EPSILON"]

CLAIMED_EPSILON = 0.1
INF = float("inf")


@dataclass(frozen=True)
class ZooEntry:
    """A mechanism, the pair it is audited on, and what is known about its loss.

    Attributes
    ----------
    name : str
    mechanism : object
        ``mechanism(data, rng)`` with ``sample``; ``.epsilon`` and ``.delta`` are the claim.
    x, x_prime : object
        The neighbouring pair.
    true_epsilon : float
        True loss on the pair (inf where supports differ; at the claimed delta for Gaussian).
    broken : bool
        Whether the claim is false.
    dp_sniper, statdp : str
        Published lower bounds ("-" where none was published).
    """

    name: str
    mechanism: object = field(repr=False)
    x: object
    x_prime: object
    true_epsilon: float
    broken: bool
    dp_sniper: str = "-"
    statdp: str = "-"

    @property
    def epsilon(self) -> float:
        return self.mechanism.epsilon

    @property
    def delta(self) -> float:
        return getattr(self.mechanism, "delta", 0.0)

    def audit(self, **options):
        """The audit of the mechanism at its claim on the entry's pair: :func:`dpverify.audit` of
        ``(mechanism, x, x_prime)`` at :attr:`epsilon` and :attr:`delta`, with ``options`` (``n_samples``,
        ``alpha``, ``seed``, ...)."""
        from ..audits import audit

        return audit(self.mechanism, self.x, self.x_prime, epsilon=self.epsilon, delta=self.delta, **options)


def zoo_entries(epsilon: float = CLAIMED_EPSILON) -> list[ZooEntry]:
    """The zoo at claim ``epsilon`` (published figures only apply to eps = 0.1)."""
    eps = epsilon
    ones = (1.0,) * 5
    svt5_10 = interleaved_pair(10)
    svt5_60 = interleaved_pair(60)
    pub = eps == CLAIMED_EPSILON

    def p(text):
        return text if pub else "-"

    return [
        ZooEntry("Laplace (fine grid)", GridLaplace(eps), 0.0, 1.0, eps, False, p("0.0968"), p("0.0998 / 0.0996")),
        ZooEntry("Laplace (Mironov snapping)", SnappingLaplace(eps), 0.0, 1.0, eps, False),
        ZooEntry("Gaussian (analytic, delta=1e-5)", GaussianMechanism(eps, 1e-5), 0.0, 1.0, eps, False),
        ZooEntry("geometric", GeometricMechanism(eps), 0, 1, eps, False),
        ZooEntry("randomized response", RandomizedResponse(eps), 0, 1, eps, False),
        ZooEntry(
            "exponential mechanism",
            ExponentialMechanism(eps),
            (1.0, 0.0, 0.0, 0.0, 0.0),
            (0.0, 1.0, 1.0, 1.0, 1.0),
            eps,
            False,
        ),
        ZooEntry(
            "noisy histogram, 5 counts",
            NoisyHistogram(eps),
            ones,
            (2.0, 1.0, 1.0, 1.0, 1.0),
            eps,
            False,
            p("0.0978"),
            p("0.0828 / 0.0994"),
        ),
        ZooEntry(
            "report noisy max (index), Laplace 2/eps",
            ReportNoisyMax(eps, "laplace"),
            ones,
            (2.0, 0.0, 0.0, 0.0, 0.0),
            eps,
            False,
            p("0.0923"),
            p("0.0920 / 0.0921"),
        ),
        ZooEntry(
            "report noisy max (index), Exponential 2/eps",
            ReportNoisyMax(eps, "exponential"),
            ones,
            (2.0, 0.0, 0.0, 0.0, 0.0),
            eps,
            False,
            p("0.0975"),
            p("0.0996 / 0.0997"),
        ),
        ZooEntry(
            "sparse vector (Lyu Alg. 1), c = 1, 10 queries",
            SparseVector(eps, threshold=0.0),
            (0.0,) * 9 + (1.0,),
            (1.0,) * 9 + (0.0,),
            eps,
            False,
            p("0.0858"),
            p("0.0298 / 0.0298"),
        ),
        ZooEntry(
            "BROKEN noisy max returning the value, Laplace",
            NoisyMaxValue(eps),
            ones,
            (2.0,) * 5,
            2.5 * eps,
            True,
            p("0.2478"),
            p("0.199 / 0.196"),
        ),
        ZooEntry(
            "BROKEN noisy histogram, scale eps instead of 1/eps",
            BrokenNoisyHistogram(eps),
            ones,
            (2.0, 1.0, 1.0, 1.0, 1.0),
            1.0 / eps,
            True,
        ),
        ZooEntry(
            "BROKEN sparse vector without query noise (Lyu Alg. 5), 10 queries",
            SparseVectorNoQueryNoise(eps, threshold=4.0),
            *svt5_10,
            INF,
            True,
            p("1.761"),
            p("14.31 / 14.31"),
        ),
        ZooEntry(
            "BROKEN sparse vector without query noise (Lyu Alg. 5), 60 queries",
            SparseVectorNoQueryNoise(eps, threshold=29.0),
            *svt5_60,
            INF,
            True,
            p("1.761"),
            p("14.31 / 14.31"),
        ),
        ZooEntry(
            "BROKEN textbook float Laplace x + numpy.laplace (Mironov)",
            FloatLaplaceMechanism(eps),
            0.0,
            1.0,
            INF,
            True,
        ),
    ]
