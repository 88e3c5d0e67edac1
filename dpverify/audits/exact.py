"""Exact privacy loss of a mechanism whose output distributions are computable.

For pmfs P = M(x) and Q = M(x') over a finite (or truncated) output space:

    epsilon  = max over outputs of |ln P(o)/Q(o)|  (infinite where supports differ)
    delta(e) = max( sum_o max(0, P(o) - e^e Q(o)), sum_o max(0, Q(o) - e^e P(o)) )

``delta(e)`` is the hockey-stick divergence in the worse direction: M is
(e, delta(e))-DP on this pair and on no smaller delta (Balle and Wang 2018).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._results import Result, as_tuples
from ..errors import InvalidDistributionError

__all__ = ["exact_privacy_loss", "ExactPrivacyLoss"]

#: Tolerance on the total mass of a pmf.
MASS_TOLERANCE = 1e-9


def _as_pmf(pmf, name: str) -> dict:
    if not isinstance(pmf, dict):
        try:
            pmf = dict(pmf)
        except (TypeError, ValueError) as exc:
            raise InvalidDistributionError(f"{name} must be a dict mapping outputs to probabilities") from exc
    masses = np.fromiter((float(v) for v in pmf.values()), dtype=float, count=len(pmf))
    if masses.size == 0:
        raise InvalidDistributionError(f"{name} is empty; a pmf needs at least one output")
    if not np.all(np.isfinite(masses)) or np.any(masses < 0):
        raise InvalidDistributionError(f"{name} has negative or non-finite masses; all must be >= 0")
    total = masses.sum()
    if abs(total - 1.0) > MASS_TOLERANCE * max(1, len(pmf)):
        raise InvalidDistributionError(
            f"{name} sums to {total!r}; probabilities must sum to 1 (within {MASS_TOLERANCE:g} per output)"
        )
    return pmf


@dataclass(frozen=True)
class ExactPrivacyLoss(Result):
    """Exact privacy loss of one pair of output distributions.

    Attributes
    ----------
    epsilon : float
        ``max(epsilon_forward, epsilon_backward)``; the pure-DP loss of the pair.
    epsilon_forward : float
        ``max_o ln P(o)/Q(o)`` (P = M(x), Q = M(x')).
    epsilon_backward : float
        ``max_o ln Q(o)/P(o)``.
    worst_output : object
        An output attaining ``epsilon``.
    """

    epsilon: float
    epsilon_forward: float
    epsilon_backward: float
    worst_output: object
    p: np.ndarray = field(repr=False, compare=False)
    q: np.ndarray = field(repr=False, compare=False)

    def delta(self, epsilon):
        """The exact delta(epsilon) (scalar or array of epsilons), worse direction."""
        eps = np.asarray(epsilon, dtype=float)
        with np.errstate(over="ignore"):
            scale = np.exp(eps)[..., None]  # may be inf for huge eps

        def excess(a, b):
            # a - e^eps b, with inf * 0 taken as 0 (an output impossible under b)
            with np.errstate(invalid="ignore"):
                scaled = np.where(b > 0, scale * b, 0.0)
            return np.maximum(a - scaled, 0).sum(axis=-1)

        forward = excess(self.p, self.q)
        backward = excess(self.q, self.p)
        out = np.maximum(forward, backward)
        return float(out) if out.ndim == 0 else out

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["worst_output"] = as_tuples(data["worst_output"])
        data["p"], data["q"] = np.asarray(data["p"], dtype=float), np.asarray(data["q"], dtype=float)
        return data

    def summary(self) -> str:
        """The exact loss in both directions and an output that attains it."""
        return (
            f"exact privacy loss: epsilon = {self.epsilon:.6g} (forward {self.epsilon_forward:.6g}, "
            f"backward {self.epsilon_backward:.6g}) over {len(self.p)} outputs; "
            f"attained at output {self.worst_output!r}; delta(0) = {self.delta(0.0):.6g}"
        )

    def delta_curve(self, epsilons) -> np.ndarray:
        """``delta(e)`` on an array of epsilons."""
        return np.atleast_1d(self.delta(np.asarray(epsilons, dtype=float)))

    def epsilon_for_delta(self, delta: float) -> float:
        """Smallest epsilon >= 0 with ``delta(epsilon) <= delta`` (inf if none)."""
        if not 0 <= delta <= 1:
            raise InvalidDistributionError(f"delta must be in [0, 1], got {delta!r}")
        if self.delta(0.0) <= delta:
            return 0.0
        if math.isfinite(self.epsilon):
            hi = self.epsilon
        else:
            support_gap = max(float(self.p[self.q == 0].sum()), float(self.q[self.p == 0].sum()))
            if support_gap > delta:
                return math.inf
            finite = np.concatenate(
                [np.abs(np.log(self.p[(self.p > 0) & (self.q > 0)] / self.q[(self.p > 0) & (self.q > 0)])), [0.0]]
            )
            hi = float(finite.max())
        lo = 0.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if self.delta(mid) <= delta:
                hi = mid
            else:
                lo = mid
        return hi


def exact_privacy_loss(pmf_x, pmf_x_prime) -> ExactPrivacyLoss:
    """Exact epsilon and delta(epsilon) curve of a pair of output pmfs.

    Parameters
    ----------
    pmf_x, pmf_x_prime : dict
        Output -> probability for M(x) and M(x'); outputs missing from one dict
        have probability 0 there.

    Returns
    -------
    ExactPrivacyLoss

    Raises
    ------
    InvalidDistributionError
        Negative or non-finite masses, or masses not summing to 1.

    Examples
    --------
    >>> import math
    >>> p = math.e / (1 + math.e)
    >>> loss = exact_privacy_loss({0: p, 1: 1 - p}, {0: 1 - p, 1: p})
    >>> round(loss.epsilon, 12)
    1.0
    """
    pmf_x = _as_pmf(pmf_x, "pmf_x")
    pmf_x_prime = _as_pmf(pmf_x_prime, "pmf_x_prime")
    outputs = list(dict.fromkeys([*pmf_x, *pmf_x_prime]))
    p = np.array([float(pmf_x.get(o, 0.0)) for o in outputs])
    q = np.array([float(pmf_x_prime.get(o, 0.0)) for o in outputs])
    with np.errstate(divide="ignore", invalid="ignore"):
        log_ratio = np.log(p) - np.log(q)
    both_zero = (p == 0) & (q == 0)
    log_ratio[both_zero] = 0.0
    forward = float(np.max(log_ratio))
    backward = float(np.max(-log_ratio))
    worst = outputs[int(np.argmax(np.abs(log_ratio)))]
    return ExactPrivacyLoss(
        epsilon=max(forward, backward, 0.0),
        epsilon_forward=max(forward, 0.0),
        epsilon_backward=max(backward, 0.0),
        worst_output=worst,
        p=p,
        q=q,
    )
