"""Exceptions raised on invalid input by the reference implementations.

Every error subclasses :class:`AlgorithmInputError` (itself a ``ValueError``)
and its message says what was wrong and what is allowed.
"""

__all__ = [
    "AlgorithmInputError",
    "InvalidGraphError",
    "InvalidWeightsError",
    "InvalidPrivacyParameterError",
    "InvalidRewardError",
    "InvalidHorizonError",
    "InvalidBudgetSplitError",
    "ZeroRankMatroidError",
    "MatroidAxiomError",
    "NoSpanningTreeError",
    "DatasetNotFoundError",
]


class AlgorithmInputError(ValueError):
    """Base class: an argument outside what an algorithm accepts."""


class InvalidGraphError(AlgorithmInputError):
    """Directed graphs, self-loops, multi-edges, too few vertices, bad edge arrays."""


class InvalidWeightsError(AlgorithmInputError):
    """NaN or infinite weights, wrong shapes, weights outside an allowed range."""


class InvalidPrivacyParameterError(AlgorithmInputError):
    """eps <= 0 or not finite, delta outside (0, 1), sensitivity <= 0, rho <= 0."""


class InvalidRewardError(AlgorithmInputError):
    """Bandit rewards or means outside [0, 1]."""


class InvalidHorizonError(AlgorithmInputError):
    """A horizon or stream length below 1."""


class InvalidBudgetSplitError(AlgorithmInputError):
    """A bandit policy's budget split outside ``algorithms.bandits.policies.BUDGET_SPLITS``."""


class ZeroRankMatroidError(AlgorithmInputError):
    """A matroid of rank 0 (every element a loop): no bandit can be played on it."""


class MatroidAxiomError(AlgorithmInputError):
    """An independence oracle that violates a matroid axiom."""


class NoSpanningTreeError(AlgorithmInputError):
    """No spanning tree exists on the usable edges (the message names the cut-off vertices)."""


class DatasetNotFoundError(FileNotFoundError):
    """A data set folder is missing (the message names the path looked at)."""
