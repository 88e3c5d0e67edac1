"""Exact privacy loss of a mechanism whose output distributions are computable.

For pmfs P = M(x) and Q = M(x') over a finite (or truncated) output space:

    epsilon  = max over outputs of |ln P(o)/Q(o)|  (infinite where supports differ)
    delta(e) = max( sum_o max(0, P(o) - e^e Q(o)), sum_o max(0, Q(o) - e^e P(o)) )

``delta(e)`` is the hockey-stick divergence in the worse direction: M is
(e, delta(e))-DP on this pair and on no smaller delta (Balle and Wang 2018).

The other forms of a claim are exact on the pair too: the Rényi divergence
``D_a(P || Q) = ln(sum_o P(o)^a Q(o)^(1-a)) / (a - 1)`` at any order and its curve
(Mironov 2017), the zCDP parameter ``rho = sup_a max(D_a(P||Q), D_a(Q||P)) / a``
(Bun and Steinke 2016), the trade-off curve of the Neyman-Pearson tests and the
least mu of Gaussian DP (Dong, Roth and Su 2022): the trade-off curve is piecewise
linear between the likelihood-ratio level sets and the Gaussian curve is convex, so
mu is attained at a level set, ``mu = max_S Phi^-1(P(S)) - Phi^-1(Q(S))``.

References
----------
B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential Privacy", ICML 2018.
I. Mironov, "Rényi Differential Privacy", IEEE CSF 2017.
M. Bun and T. Steinke, "Concentrated Differential Privacy", TCC 2016.
J. Dong, A. Roth and W. J. Su, "Gaussian Differential Privacy", JRSS B 84(1), 2022.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize, special

from .._results import Result, as_tuples
from ..errors import InvalidDistributionError, ResultFormatError
from .drivers import Driver, ReplayedByItsDriver
from .fingerprint import Fingerprint, checked_pmfs, fingerprint_of

__all__ = ["exact_privacy_loss", "ExactPrivacyLoss", "RHO_GRID"]

#: Orders at which :attr:`ExactPrivacyLoss.rho` starts its search (then refined by a bounded scalar search).
RHO_GRID = 1.0 + np.geomspace(1e-6, 1e4, 801)

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
class ExactPrivacyLoss(ReplayedByItsDriver, Result):
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
    fingerprint : Fingerprint or None
        The two pmfs, as a replay checks them (:mod:`dpverify.audits.fingerprint`); None in results
        saved before it was recorded.
    """

    epsilon: float
    epsilon_forward: float
    epsilon_backward: float
    worst_output: object
    p: np.ndarray = field(repr=False, compare=False)
    q: np.ndarray = field(repr=False, compare=False)
    fingerprint: Fingerprint | None = None

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

    def renyi(self, orders, *, direction: str = "both"):
        """The exact Rényi divergence at each order ``a > 1`` (``a = 1``: Kullback-Leibler).

        ``direction``: ``"forward"`` (``D_a(P || Q)``), ``"backward"`` (``D_a(Q || P)``) or
        ``"both"`` (the larger; what a claim for the pair must cover). ``inf`` where the
        support of the first is not inside the second's.
        """
        orders = np.asarray(orders, dtype=float)
        if direction == "forward":
            out = _renyi(self.p, self.q, orders)
        elif direction == "backward":
            out = _renyi(self.q, self.p, orders)
        elif direction == "both":
            out = np.maximum(_renyi(self.p, self.q, orders), _renyi(self.q, self.p, orders))
        else:
            raise InvalidDistributionError(f"direction must be 'forward', 'backward' or 'both', got {direction!r}")
        return float(out) if out.ndim == 0 else out

    @property
    def rho(self) -> float:
        """The least rho of rho-zCDP on this pair: ``sup_a D_a / a`` over ``a >= 1``, both directions."""
        ratio = self.renyi(RHO_GRID) / RHO_GRID
        if not np.all(np.isfinite(ratio)):
            return math.inf
        i = int(np.argmax(ratio))
        lo, hi = RHO_GRID[max(i - 1, 0)], RHO_GRID[min(i + 1, len(RHO_GRID) - 1)]
        best = float(ratio[i])
        if hi > lo:
            found = optimize.minimize_scalar(
                lambda a: -self.renyi(a) / a, bounds=(lo, hi), method="bounded", options={"xatol": 1e-10}
            )
            best = max(best, -float(found.fun))
        return max(best, float(self.renyi(1.0)))

    def tradeoff(self, type_one):
        """The trade-off curve ``T(a)``: the least type II error of a test of M(x') against M(x) at
        type I error ``a`` (the worse of the two orders), by Neyman-Pearson with randomisation."""
        a = np.asarray(type_one, dtype=float)
        out = np.minimum(_tradeoff(self.p, self.q, a), _tradeoff(self.q, self.p, a))
        return float(out) if out.ndim == 0 else out

    @property
    def mu(self) -> float:
        """The least mu of mu-Gaussian DP on this pair (``inf`` where supports differ)."""
        best = 0.0
        for p, q in ((self.p, self.q), (self.q, self.p)):
            prob_p, prob_q = _level_sets(p, q)
            rest_p, rest_q = _level_sets(p, q, complement=True)
            with np.errstate(invalid="ignore", divide="ignore"):
                values = _probit(prob_p, rest_p) - _probit(prob_q, rest_q)
            values = values[~np.isnan(values)]
            if values.size:
                best = max(best, float(values.max()))
        return best

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["worst_output"] = as_tuples(data["worst_output"])
        try:
            data["p"], data["q"] = np.asarray(data["p"], dtype=float), np.asarray(data["q"], dtype=float)
        except (TypeError, ValueError) as exc:
            raise ResultFormatError(f"p and q must be lists of probabilities: {exc}") from exc
        Fingerprint.read(data)
        return data

    def contradictions(self) -> list:
        """Those of every result, and pmfs that are not two probability vectors of one length."""
        found = super().contradictions()
        p, q = self.p, self.q
        if p.ndim != 1 or q.ndim != 1 or p.shape != q.shape or not p.size:
            found.append(f"p and q are not two pmfs over the same outputs (shapes {p.shape} and {q.shape})")
        elif not (np.all(p >= 0) and np.all(q >= 0) and np.isclose(p.sum(), 1) and np.isclose(q.sum(), 1)):
            found.append("p and q are not probability vectors (non-negative, summing to 1)")
        return found

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


def _renyi(p, q, orders):
    """``D_a(p || q)`` at each order (a = 1: KL), computed in logs."""
    orders = np.asarray(orders, dtype=float)
    flat = np.atleast_1d(orders)
    out = np.empty(flat.shape)
    if np.any((p > 0) & (q == 0)):
        out[:] = math.inf
        return out.reshape(orders.shape)
    keep = p > 0
    lp, lq = np.log(p[keep]), np.log(q[keep])
    for i, a in enumerate(flat):
        if a == 1.0:
            out[i] = float(np.sum(p[keep] * (lp - lq)))
        else:
            out[i] = special.logsumexp(a * lp + (1.0 - a) * lq) / (a - 1.0)
    return np.maximum(out, 0.0).reshape(orders.shape)


def _level_sets(p, q, complement: bool = False):
    """``P(S_j)``, ``Q(S_j)`` of the likelihood-ratio level sets (most in favour of p first), from the empty set;
    with ``complement``, ``P`` and ``Q`` of their complements, summed from the other end (no cancellation near 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q > 0, np.log(p) - np.log(q), np.inf)
    ratio = np.where((p == 0) & (q == 0), -np.inf, ratio)
    order = np.argsort(-ratio, kind="stable")
    if complement:
        rest_p = np.concatenate([np.cumsum(p[order][::-1])[::-1], [0.0]])
        rest_q = np.concatenate([np.cumsum(q[order][::-1])[::-1], [0.0]])
        return rest_p, rest_q
    return np.concatenate([[0.0], np.cumsum(p[order])]), np.concatenate([[0.0], np.cumsum(q[order])])


def _probit(prob, rest):
    """``Phi^-1(prob)`` with ``rest = 1 - prob`` summed separately: ``-Phi^-1(rest)`` above one half."""
    prob, rest = np.clip(prob, 0.0, 1.0), np.clip(rest, 0.0, 1.0)
    return np.where(prob <= 0.5, special.ndtri(prob), -special.ndtri(rest))


def _tradeoff(p, q, a):
    """Least type II error ``1 - P(S)`` at type I error ``Q(S) = a`` (tests that reject when p is likely)."""
    prob_p, prob_q = _level_sets(p, q)
    values, first_reversed = np.unique(prob_q[::-1], return_index=True)
    power = prob_p[len(prob_p) - 1 - first_reversed]  # the most powerful test at each type I error: its last level set
    return 1.0 - np.interp(a, values, power)


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
        epsilon=max(0.0, forward, backward),  # 0.0 first: max keeps the first of equals, and -0.0 == 0.0
        epsilon_forward=max(0.0, forward),
        epsilon_backward=max(0.0, backward),
        worst_output=worst,
        p=p,
        q=q,
        fingerprint=fingerprint_of(None, (pmf_x, pmf_x_prime)),
    )


def _replay(result, *inputs, executor=None, progress=False):
    pmf_x, pmf_x_prime = DRIVER.replay_inputs(result, inputs)
    return checked_pmfs(result, exact_privacy_loss(pmf_x, pmf_x_prime))


DRIVER = Driver("exact_privacy_loss", ExactPrivacyLoss, inputs=("pmf_x", "pmf_x_prime"), replay=_replay, source="pmfs")
