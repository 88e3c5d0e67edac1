"""The oracle bound: the best Clopper-Pearson lower bound any event could certify.

An audit (:func:`dpverify.audit`) must *find* an event S from samples before
it certifies ``ln(P[M(x) in S] / P[M(x') in S])`` on fresh ones. When the two
output distributions are known exactly, the event can be chosen with perfect
knowledge instead; the bound it would certify on ``n`` samples per input is
then a ceiling for any audit that certifies one event on ``n`` samples, and
the ratio ``audit / oracle`` measures how much the audit's event search loses.

By the Neyman-Pearson lemma the events that are most powerful for telling
M(x) from M(x') are the likelihood-ratio level sets ``{o : P(o)/Q(o) >= t}``
(Bichsel et al. 2021 use the same fact to build DP-Sniper's attacks). The
oracle sorts the outputs by ``P(o)/Q(o)`` (outputs impossible under the other
input first), forms every prefix of that order in both directions, evaluates
:func:`dpverify.support.bounds.clopper_pearson_epsilon_bound` at the *expected*
counts ``n P(S)`` and ``n Q(S)``, and keeps the largest. The references are
those of :func:`oracle_epsilon_bound`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as check
from .._results import Result, as_tuples, dataclass_to_dict
from ..pipeline.sampling import resolve_seed
from ..support.bounds import clopper_pearson_epsilon_bound
from .drivers import Driver, ReplayedByItsDriver
from .exact import _as_pmf
from .fingerprint import Fingerprint, checked_pmfs, fingerprint_of
from .plan import check_claim_replays

__all__ = ["oracle_epsilon_bound", "OracleBound", "oracle_claim_bound", "OracleClaimBound"]


@dataclass(frozen=True)
class OracleBound(ReplayedByItsDriver, Result):
    """Result of :func:`oracle_epsilon_bound`.

    Attributes
    ----------
    epsilon_lower_bound : float
        The best bound: ``ln((p_lo - delta) / q_hi)`` of the Clopper-Pearson
        bounds at the expected counts of the best event (0 if no event
        certifies anything).
    event : frozenset
        The best event S (a set of outputs).
    direction : {"x", "x_prime"}
        The input under which S is more likely (as in :class:`dpverify.EventEstimate`).
    probability_x, probability_x_prime : float
        ``P[M(x) in S]`` and ``P[M(x') in S]``.
    n_certification : int
        Certification samples per input.
    alpha, delta : float
        Confidence level and delta of the bound.
    fingerprint : Fingerprint or None
        The two pmfs, as a replay checks them (:mod:`dpverify.audits.fingerprint`); None in results
        saved before it was recorded.
    """

    epsilon_lower_bound: float
    event: frozenset = field(repr=False)
    direction: str
    probability_x: float
    probability_x_prime: float
    n_certification: int
    alpha: float
    delta: float
    fingerprint: Fingerprint | None = None

    def simulated_bounds(self, n_draws: int = 11, seed=0) -> np.ndarray:
        """Bounds certified by the oracle's event on ``n_draws`` seeded binomial draws of the counts.

        The event stays fixed (it was chosen from the exact distributions), so
        these are bounds an auditor that knows the best event would actually
        report; their median is typically a little below :attr:`epsilon_lower_bound`.

        Parameters
        ----------
        n_draws : int, default 11
            Number of simulated certifications.
        seed : None, int, numpy.random.SeedSequence or numpy.random.Generator, default 0
            Seed of the draws; a ``Generator`` is not drawn from: a child of its
            SeedSequence is spawned (:func:`dpverify.pipeline.sampling.resolve_seed`), so
            generators made alike give the same bounds.

        Returns
        -------
        numpy.ndarray
            One bound per draw.
        """
        n_draws = check.check_positive_int(n_draws, "n_draws")
        rng = np.random.default_rng(resolve_seed(seed)[0])
        p, q = (self.probability_x, self.probability_x_prime)
        if self.direction == "x_prime":
            p, q = q, p
        n = self.n_certification
        count_p = rng.binomial(n, min(max(p, 0.0), 1.0), size=n_draws)
        count_q = rng.binomial(n, min(max(q, 0.0), 1.0), size=n_draws)
        return np.asarray(clopper_pearson_epsilon_bound(count_p, n, count_q, n, self.alpha, self.delta), dtype=float)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["event"] = frozenset(as_tuples(output) for output in data["event"])
        return Fingerprint.read(data)

    def summary(self) -> str:
        """The oracle's bound, its event and the setting it holds for."""
        return (
            f"oracle bound on epsilon: {self.epsilon_lower_bound:.4g} ({100 * (1 - self.alpha):g}% confidence, "
            f"delta={self.delta:g}, {self.n_certification} certification samples per input)\n"
            f"event: {len(self.event)} output(s), more likely under {self.direction}: "
            f"P[M(x) in S] = {self.probability_x:.4g}, P[M(x') in S] = {self.probability_x_prime:.4g}"
        )


def oracle_epsilon_bound(pmf_x, pmf_x_prime, n_certification, alpha=0.05, delta=0.0) -> OracleBound:
    """Best Clopper-Pearson lower bound on the privacy loss that any event could certify.

    Parameters
    ----------
    pmf_x, pmf_x_prime : dict
        Output -> probability of M(x) and M(x') (as :func:`dpverify.exact_privacy_loss`
        takes them); an output missing from one dict has probability 0 there.
    n_certification : int
        Certification samples per input.
    alpha : float, default 0.05
        The bound is a ``1 - alpha`` confidence bound, with the same two
        one-sided ``1 - alpha/2`` Clopper-Pearson bounds as :func:`dpverify.audit`.
    delta : float, default 0
        The bound is on ``ln((P - delta) / Q)``.

    Returns
    -------
    OracleBound
        The bound, the event attaining it, its direction and probabilities.

    Raises
    ------
    InvalidDistributionError
        A pmf with negative or non-finite masses, or not summing to 1.
    InvalidParameterError
        ``n_certification < 1``, ``alpha`` outside (0, 1), ``delta`` outside [0, 1).

    Notes
    -----
    The counts are the expected counts ``n P(S)`` and ``n Q(S)``, not integers
    (the Clopper-Pearson bounds are continuous in the count); for the bound on
    sampled counts with the event fixed see :meth:`OracleBound.simulated_bounds`.

    Candidates are the prefixes of the outputs sorted by likelihood ratio
    ``P(o)/Q(o)`` (Neyman-Pearson level sets; outputs with ``Q(o) = 0`` first),
    in both directions; within a tie the order of the outputs in the dicts
    decides. Every event with the most power at its size is such a level set,
    and the bound ``ln p_lo(P) - ln q_hi(Q)`` along the segment between two
    consecutive level sets is (up to the curvature of the Clopper-Pearson
    bounds) monotone, so the maximum over all ``2^k`` events is attained at a
    level set; the tests compare with brute force on small output spaces.
    The bound never exceeds the exact loss ``max_o |ln P(o)/Q(o)|``, since
    ``p_lo < P(S)`` and ``q_hi > Q(S)``.

    References
    ----------
    J. Neyman and E. S. Pearson, "On the problem of the most efficient tests of
    statistical hypotheses", Philosophical Transactions of the Royal Society A, 1933.

    B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box
    Discovery of Differential Privacy Violations using Classifiers", IEEE
    Symposium on Security and Privacy, 2021.

    Examples
    --------
    >>> import math
    >>> from dpverify.audits.oracle import oracle_epsilon_bound
    >>> keep = math.exp(0.5) / (1 + math.exp(0.5))  # randomized response, eps = 0.5
    >>> best = oracle_epsilon_bound({0: keep, 1: 1 - keep}, {0: 1 - keep, 1: keep}, 10**6)
    >>> round(best.epsilon_lower_bound, 3), sorted(best.event)
    (0.496, [0])
    """
    n = check.check_positive_int(n_certification, "n_certification")
    alpha = check.check_alpha(alpha)
    delta = check.check_delta(delta, claim=False)
    pmf_x = _as_pmf(pmf_x, "pmf_x")
    pmf_x_prime = _as_pmf(pmf_x_prime, "pmf_x_prime")
    outputs = list(dict.fromkeys([*pmf_x, *pmf_x_prime]))
    p = np.array([float(pmf_x.get(o, 0.0)) for o in outputs])
    q = np.array([float(pmf_x_prime.get(o, 0.0)) for o in outputs])

    best = None
    for direction, a, b in (("x", p, q), ("x_prime", q, p)):
        idx = np.flatnonzero(a > 0)
        with np.errstate(divide="ignore"):
            log_ratio = np.log(a[idx]) - np.log(b[idx])  # +inf where b = 0
        order = idx[np.argsort(-log_ratio, kind="stable")]
        cum_a = np.minimum(np.cumsum(a[order]), 1.0)
        cum_b = np.minimum(np.cumsum(b[order]), 1.0)
        bounds = np.atleast_1d(clopper_pearson_epsilon_bound(n * cum_a, n, n * cum_b, n, alpha, delta))
        k = int(np.argmax(bounds))
        value = float(bounds[k])
        if best is None or value > best[0]:
            best = (value, direction, order[: k + 1], cum_a[k], cum_b[k])

    value, direction, members, pa, pb = best
    px, pxp = (pa, pb) if direction == "x" else (pb, pa)
    return OracleBound(
        epsilon_lower_bound=value if math.isfinite(value) else 0.0,
        event=frozenset(outputs[i] for i in members),
        direction=direction,
        probability_x=float(px),
        probability_x_prime=float(pxp),
        n_certification=n,
        alpha=alpha,
        delta=delta,
        fingerprint=fingerprint_of(None, (pmf_x, pmf_x_prime)),
    )


#: Output spaces up to this size also get the partition into one cell per output (its bounds take
#: orders x cells floats).
MAX_ORACLE_CELLS = 4096


@dataclass(frozen=True)
class OracleClaimBound(ReplayedByItsDriver, Result):
    """Result of :func:`oracle_claim_bound`.

    Attributes
    ----------
    claim_lower_bound : float
        The best bound on the claim's parameter certifiable on ``n_certification`` samples per
        input with the event (or cells) chosen from the exact distributions.
    claim : PrivacyClaim
        The claim whose parameter is bounded.
    n_cells : int
        Cells of the best partition (kinds that read cells); 1 for an event.
    n_certification : int
        Certification samples per input.
    alpha : float
        The level.
    fingerprint : Fingerprint or None
        The two pmfs, as a replay checks them (:mod:`dpverify.audits.fingerprint`); None in results
        saved before it was recorded.
    margin : float
        (A property, saved by ``to_dict``.) How far ``claim_lower_bound`` lies past the claim
        (:meth:`dpverify.PrivacyClaim.margin`).
    """

    claim_lower_bound: float
    claim: object
    n_cells: int
    n_certification: int
    alpha: float
    fingerprint: Fingerprint | None = None

    _DERIVED = ("margin",)

    @property
    def margin(self) -> float:
        """How far the bound lies past the claim (:meth:`dpverify.PrivacyClaim.margin`)."""
        return self.claim.margin(self.claim_lower_bound)

    def to_dict(self) -> dict:
        """The fields, and the :attr:`margin`, as JSON-serialisable plain data."""
        return dataclass_to_dict(self, margin=self.margin)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        from ..claims import PrivacyClaim

        data = super()._parse(data)
        data["claim"] = PrivacyClaim.from_dict(data["claim"])
        return Fingerprint.read(data)

    def summary(self) -> str:
        """The oracle's bound on the claim's parameter, and what it was computed for."""
        what = f"{self.n_cells} cells" if self.n_cells > 1 else "one event"
        return (
            f"oracle bound on {self.claim.parameter_name}: {self.claim_lower_bound:.6g} for the claim "
            f"({self.claim}), with {what} chosen from the exact distributions, at {self.n_certification} "
            f"certification samples per input and alpha = {self.alpha:g}"
        )


def oracle_claim_bound(pmf_x, pmf_x_prime, claim, n_certification, alpha=0.05) -> OracleClaimBound:
    """Best bound on a claim's parameter that one event, or one partition, could certify on ``n`` samples.

    The claim of any kind (:class:`dpverify.PrivacyClaim`). For kinds that read events (Gaussian
    DP, trade-off curves, (eps, delta)) the candidates are the likelihood-ratio level sets, as
    in :func:`oracle_epsilon_bound`, scored by the kind's bound at the expected counts. For
    kinds that read cells (zCDP, Rényi) the outputs sorted by likelihood ratio are cut at
    the pooled-mass levels the audit tries (:func:`dpverify.pipeline.partition.equal_mass_levels`
    and :func:`~dpverify.pipeline.partition.tail_levels` for ``2 n`` pooled outputs) and, up to
    :data:`MAX_ORACLE_CELLS` outputs, into one cell per output; the
    simultaneous region of the expected cell counts gives the bound
    (:func:`dpverify.pipeline.divergence.cells_statistic`). The ratio ``audit / oracle``
    measures what choosing the cells from samples costs.

    Raises
    ------
    InvalidDistributionError, InvalidParameterError
        As :func:`oracle_epsilon_bound`.
    """
    from ..pipeline.divergence import cells_statistic
    from ..pipeline.partition import equal_mass_levels, tail_levels
    from ..support.bounds import clopper_pearson_lower, clopper_pearson_upper

    n = check.check_positive_int(n_certification, "n_certification")
    alpha = check.check_alpha(alpha)
    pmf_x = _as_pmf(pmf_x, "pmf_x")
    pmf_x_prime = _as_pmf(pmf_x_prime, "pmf_x_prime")
    outputs = list(dict.fromkeys([*pmf_x, *pmf_x_prime]))
    p = np.array([float(pmf_x.get(o, 0.0)) for o in outputs])
    q = np.array([float(pmf_x_prime.get(o, 0.0)) for o in outputs])
    kind = claim.kind_record
    if kind.reads == "events":
        best = 0.0
        for a, b in ((p, q), (q, p)):
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(b > 0, np.log(a) - np.log(b), np.inf)
            order = np.argsort(-ratio, kind="stable")
            cum_a, cum_b = np.minimum(np.cumsum(a[order]), 1.0), np.minimum(np.cumsum(b[order]), 1.0)
            p_lo, q_hi = clopper_pearson_lower(n * cum_a, n, alpha), clopper_pearson_upper(n * cum_b, n, alpha)
            bound = check.check_kind_bound(kind, "event_bound", kind.event_bound(claim, p_lo, q_hi))
            best = max(best, float(np.max(bound)))
        return OracleClaimBound(best, claim, 1, n, alpha, fingerprint_of(None, (pmf_x, pmf_x_prime)))
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(q > 0, np.log(p) - np.log(q), np.inf)
    ratio = np.where((p == 0) & (q == 0), 0.0, ratio)
    order = np.argsort(-ratio, kind="stable")
    pooled = np.cumsum((p + q)[order]) / 2
    best = (0.0, 1)
    one_per_output = [None] if len(outputs) <= MAX_ORACLE_CELLS else []  # memory: orders x cells
    for levels in (*equal_mass_levels(), *tail_levels(2 * n), *one_per_output):
        if levels is None:
            groups = [order[i : i + 1] for i in range(len(order))]
        else:
            cuts = np.searchsorted(pooled, levels, side="left")
            groups = np.split(order, np.unique(np.clip(cuts + 1, 1, len(order) - 1)))
        cells_p = np.array([p[g].sum() for g in groups])
        cells_q = np.array([q[g].sum() for g in groups])
        value = cells_statistic(claim, n * cells_p, n * cells_q, n, n, alpha)[0]
        if value > best[0]:
            best = (float(value), len(groups))
    return OracleClaimBound(best[0], claim, best[1], n, alpha, fingerprint_of(None, (pmf_x, pmf_x_prime)))


def _replay_epsilon(result, *inputs, executor=None, progress=False):
    pmf_x, pmf_x_prime = DRIVER.replay_inputs(result, inputs)
    again = oracle_epsilon_bound(pmf_x, pmf_x_prime, result.n_certification, alpha=result.alpha, delta=result.delta)
    return checked_pmfs(result, again)


def _replay_claim(result, *inputs, executor=None, progress=False):
    pmf_x, pmf_x_prime = CLAIM_DRIVER.replay_inputs(result, inputs)
    check_claim_replays(result.claim)
    again = oracle_claim_bound(pmf_x, pmf_x_prime, result.claim, result.n_certification, alpha=result.alpha)
    return checked_pmfs(result, again)


PMFS = dict(inputs=("pmf_x", "pmf_x_prime"), source="pmfs")
DRIVER = Driver("oracle_epsilon_bound", OracleBound, replay=_replay_epsilon, **PMFS)
CLAIM_DRIVER = Driver("oracle_claim_bound", OracleClaimBound, replay=_replay_claim, **PMFS)
