"""The exponential-mechanism step that every private spanning-tree selection is built on.

Pagh et al. 2025, Fact 2.7 and Algorithm 2 line 5: among candidate edges
C, pick e with probability

    P[e] = exp(-epsilon0 * w_e / (2D)) / sum_{f in C} exp(-epsilon0 * w_f / (2D)).

One step is epsilon0-DP for neighbours with ``max_e |w_e - w'_e| <= D``. Everything is computed in
log space (log-sum-exp), so weights of size 1e3 with epsilon0 = 10 neither overflow nor underflow to
a zero total. The Gumbel scale of the equivalent report-noisy-max is ``2D / epsilon0``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import logsumexp

from algorithms.errors import InvalidWeightsError
from algorithms.mst.accounting import check_epsilon, check_sensitivity

__all__ = [
    "selection_log_weights",
    "gumbel_scale",
    "step_log_probabilities",
    "exponential_mechanism_step",
]


def gumbel_scale(epsilon0: float, sensitivity: float = 1.0) -> float:
    """Noise scale ``beta = 2D / epsilon0`` of Algorithm 1 (Pagh et al. 2025, Algorithm 1 line 2)."""
    return 2.0 * check_sensitivity(sensitivity) / check_epsilon(epsilon0, "epsilon0")


def selection_log_weights(weights, epsilon0: float, sensitivity: float = 1.0) -> np.ndarray:
    """Log sampling weights ``-epsilon0 * w / (2D)`` of a minimum-weight exponential mechanism."""
    return -np.asarray(weights, dtype=np.float64) / gumbel_scale(epsilon0, sensitivity)


def step_log_probabilities(weights, candidates, epsilon0: float, sensitivity: float = 1.0) -> np.ndarray:
    """Log probabilities of one step over ``candidates`` (edge indices), aligned with them."""
    cand = np.asarray(candidates, dtype=np.int64)
    if cand.size == 0:
        raise InvalidWeightsError("an exponential-mechanism step needs at least one candidate")
    logw = selection_log_weights(np.asarray(weights, dtype=np.float64)[cand], epsilon0, sensitivity)
    return logw - logsumexp(logw)


def exponential_mechanism_step(weights, candidates, epsilon0: float, rng=None, *, sensitivity: float = 1.0) -> int:
    """Select one candidate edge index with the exponential mechanism (fresh randomness).

    Implemented as report-noisy-max with Gumbel(0, 1) noise on the log weights (the Gumbel-max
    trick), which has exactly the probabilities above.

    References
    ----------
    .. [1] R. Pagh, L. Retschmeier, H. Wu, H. Zhang, "Optimal Bounds for Private Minimum Spanning
       Trees via Input Perturbation", 2025. Fact 2.7 and Algorithm 2 line 5.
    """
    rng = np.random.default_rng(rng)
    cand = np.asarray(candidates, dtype=np.int64)
    if cand.size == 0:
        raise InvalidWeightsError("an exponential-mechanism step needs at least one candidate")
    logw = selection_log_weights(np.asarray(weights, dtype=np.float64)[cand], epsilon0, sensitivity)
    return int(cand[np.argmax(logw + rng.gumbel(size=cand.size))])
