"""The result types of the audits: the verdict, its certified event, and the value verdict.

Every driver of :mod:`dpverify.audits` returns an :class:`AuditResult` (or a
subclass that adds what the driver did: looks, searched pairs), assembled from
certification counts by :func:`dpverify.audits.certification.audit_result`.
A result is plain data (:class:`dpverify._results.Result`): ``to_json``/``from_json``
save and reload it (:meth:`AuditResult.from_json` of any driver's result gives that
driver's type), and ``result.replay(mechanism, x, x_prime)`` or
:func:`dpverify.replay` runs the audit behind it again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .._results import PlainData, Result, dataclass_to_dict, subclasses
from ..claims import PrivacyClaim
from ..errors import ResultFormatError
from ..options import AuditOptions
from .drivers import ReplayedByItsDriver
from .findings import classify_finding, finding_lines
from .fingerprint import Fingerprint

__all__ = ["AuditResult", "EventEstimate", "ValueVerdict", "PartitionEstimate"]

#: How far (relative to the claimed value, at least 1) a reloaded bound may lie on the other side of the
#: claim than its verdict says: the p-value is found by bisection, the bound directly.
BOUND_SLACK = 1e-6


@dataclass(frozen=True)
class EventEstimate(PlainData):
    """The certified event and its estimated probabilities on the fresh samples.

    Attributes
    ----------
    description : str
        The event S in words.
    family : str
        The event family that proposed S.
    direction : {"x", "x_prime"}
        The input under which S is more likely: the bound is on
        ``ln P[M(direction) in S] / P[M(other) in S]``.
    probability_x, probability_x_prime : float
        Estimates of P[M(x) in S] and P[M(x') in S] on the certification samples.
    count_x, count_x_prime : int
        The counts behind them.
    n_certification : int
        Certification samples of M(x).
    n_certification_x_prime : int or None
        Certification samples of M(x') where they differ from those of M(x)
        (audits of given samples); None when equal.
    """

    description: str
    family: str
    direction: str
    probability_x: float
    probability_x_prime: float
    count_x: int
    count_x_prime: int
    n_certification: int
    n_certification_x_prime: int | None = None

    def __str__(self) -> str:
        return (
            f"{self.description} [{self.family}]: P[M(x) in S] ~ {self.probability_x:.4g}, "
            f"P[M(x') in S] ~ {self.probability_x_prime:.4g}"
        )


@dataclass(frozen=True)
class ValueVerdict(PlainData):
    """The verdict of the *ideal* mechanism: value events only, on the same samples.

    When a floating-point event family (Mironov 2012) decides an audit, its
    bound may reflect the implementation's rounding, a wrong noise scale, or
    both (a mantissa code includes the binade, a value bucket). This verdict certifies the best event among the
    value families (thresholds, level sets, classifier...) on the same
    certification samples, at the same level ``alpha``: it audits the
    mechanism as if computed in exact arithmetic.

    Attributes
    ----------
    epsilon_lower_bound, delta_lower_bound : float
        The ``1 - alpha`` lower bounds on the value events (``delta_lower_bound`` None when the
        claim is not stated in (epsilon, delta): there is no claimed epsilon to read delta at).
    pvalue : float
        P-value of the claim on the value events.
    violation : bool
        ``pvalue <= alpha``.
    event : EventEstimate
        The certified value event.
    alpha : float or None
        The test level (the audit's); None only in results saved before it was recorded.
    claim_lower_bound : float or None
        The ``1 - alpha`` lower bound on the value events in the claim's own parameter, as the result's
        :attr:`AuditResult.claim_lower_bound` (for an (epsilon, delta) claim, epsilon at the claimed
        delta); None only in results saved before every kind's value verdict recorded it.
    """

    epsilon_lower_bound: float
    delta_lower_bound: float | None
    pvalue: float
    violation: bool
    event: EventEstimate
    alpha: float | None = None
    claim_lower_bound: float | None = None


@dataclass(frozen=True)
class PartitionEstimate(PlainData):
    """The frozen partition an audit of a claim that reads cells (zCDP, Rényi) certified.

    Attributes
    ----------
    description : str
        The cells in words: the score they cut and where.
    edges : tuple of float
        The cut points of the score (``k - 1`` for ``k`` cells).
    counts_x, counts_x_prime : tuple of int
        Certification counts of each cell under x and x'.
    n_certification : int
        Certification samples of M(x).
    order : float
        The Rényi order at which the certified bound is attained.
    direction : {"x", "x_prime"}
        ``"x"``: the bound is on ``D(M(x) || M(x'))``; ``"x_prime"``: on ``D(M(x') || M(x))``.
    n_certification_x_prime : int or None
        Certification samples of M(x') where they differ from those of M(x).
    """

    description: str
    edges: tuple
    counts_x: tuple
    counts_x_prime: tuple
    n_certification: int
    order: float
    direction: str
    n_certification_x_prime: int | None = None

    def __str__(self) -> str:
        dist = "D(M(x) || M(x'))" if self.direction == "x" else "D(M(x') || M(x))"
        return f"{self.description}; bound on {dist} at order {self.order:.4g}"


def draws_lines(result) -> list[str]:
    """The summary line on what ``result`` drew per input and for what (none where nothing was recorded)."""
    draws = getattr(result, "draws", None) or {}
    if not draws:
        return []
    spent = ", ".join(f"{n} for {purpose}" for purpose, n in draws.items())
    checks = f"; the contract checks drew {result.checks_drawn} more" if result.checks_drawn else ""
    return [f"drawn per input: {spent} (in all {sum(draws.values())} of n_samples={result.n_samples}{checks})"]


@dataclass(frozen=True)
class AuditResult(ReplayedByItsDriver, Result):
    """Outcome of :func:`audit`; ``to_dict()`` gives plain data that :meth:`from_dict` reloads.

    Attributes
    ----------
    epsilon_lower_bound : float
        ``1 - alpha`` lower confidence bound on the privacy loss of the pair at
        the claimed delta: ``ln((p_lo - delta)/q_hi)`` on the certified event
        (0 when nothing is certified). Finite even when the true loss is
        infinite; it then grows with the sample size.
    delta_lower_bound : float or None
        ``1 - alpha`` lower confidence bound on the delta needed at the claimed
        epsilon: ``p_lo - exp(epsilon) q_hi`` (0 when nothing is certified); None
        when the claim is not stated in (epsilon, delta) (there is no claimed epsilon).
    claimed_epsilon, claimed_delta : float or None
        The claim audited, where it is stated in (epsilon, delta); None for the other
        kinds, whose claim is :attr:`claim`. The fields that mean the same for every
        kind are :attr:`claim`, :attr:`claim_lower_bound` (the certified bound in the
        claim's own parameter) and :attr:`margin`.
    pvalue : float
        P-value of "the claim holds on this pair" (small means evidence of a
        violation).
    violation : bool
        ``pvalue <= alpha``, equivalently ``epsilon_lower_bound > claimed_epsilon``.
    alpha : float
        The test level (the bounds are ``1 - alpha`` confidence bounds).
    event : EventEstimate
        The certified event and its estimated probabilities.
    n_samples : int
        Samples drawn per input (selection plus certification).
    n_selection : int
        Samples per input used to choose the event.
    n_candidates : int
        Number of (event, direction) pairs compared during selection.
    seed : int or list of int
        Entropy of the audit's SeedSequence: ``audit(..., seed=result.seed)``
        replays the audit exactly (when ``replayable``).
    value_verdict : ValueVerdict or None
        When a floating-point event family decided the verdict: the verdict
        on value events only (the ideal mechanism), on the same samples.
    notes : tuple of str
        What the reader should know: event families that did not apply and
        why, warnings about the outputs, replay.
    replayable : bool
        False when the mechanism never drew from the ``rng`` it was given,
        declares ``replayable = False``, or gave different first outputs for
        the same seed (:func:`dpverify.protocols.check_replayable`): its own
        randomness is not seeded by the audit, and ``seed`` does not replay
        it. ``notes`` say when this could not be checked.
    finding : {"none", "value", "rounding", "floating-point"}
        The kind of finding (:mod:`dpverify.audits.findings`): ``"rounding"`` only
        when a floating-point event certifies a violation that the value
        events on the same samples do not (or certify materially less of).
    options : AuditOptions or None
        The options the audit ran with (None only in results saved before they
        were recorded): with ``seed``, ``n_samples`` and the claim they replay it
        (``result.replay(mechanism, x, x_prime)``, :func:`dpverify.replay`).
    fingerprint : Fingerprint or None
        The mechanism and the inputs, as a replay checks them
        (:mod:`dpverify.audits.fingerprint`); None in results saved before it was recorded.
    draws : dict
        Outputs drawn per input and for what (``{"selection": ..., "certification": ...}``; a search adds
        ``"screening"``, ``"value screening"``, ``"value certification"``), as the sampling layer recorded
        them (:class:`dpverify.pipeline.sampling.DrawLedger`); their total is at most ``n_samples``. Empty for
        given samples and in results saved before it was recorded.
    checks_drawn : int
        Outputs per input the contract checks drew besides (one pilot output, the sampler check of a
        vectorized ``sample``, the replayability check): fixed sizes, outside the ``n_samples`` budget.
    margin : float or None
        (A property, saved by ``to_dict``.) How far ``claim_lower_bound`` lies past the claim, in one
        measure for every kind (:meth:`dpverify.PrivacyClaim.margin`); None where no bound is recorded.
    """

    _DERIVED = ("margin",)

    epsilon_lower_bound: float
    delta_lower_bound: float | None
    claimed_epsilon: float | None
    claimed_delta: float | None
    pvalue: float
    violation: bool
    alpha: float
    event: EventEstimate
    n_samples: int
    n_selection: int
    n_candidates: int
    seed: int | list | dict = field(default=None)
    value_verdict: ValueVerdict | None = None
    notes: tuple = ()
    replayable: bool = True
    finding: str = "none"
    options: AuditOptions | None = None
    claim: PrivacyClaim | None = None
    claim_lower_bound: float | None = None
    partition: PartitionEstimate | None = None
    fingerprint: Fingerprint | None = None
    draws: dict = field(default_factory=dict)
    checks_drawn: int = 0

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        Fingerprint.read(data)
        if data.get("claim") is not None:
            data["claim"] = PrivacyClaim.from_dict(data["claim"])
        if data.get("partition") is not None:
            part = dict(data["partition"])
            for name in ("edges", "counts_x", "counts_x_prime"):
                part[name] = tuple(part[name])
            data["partition"] = PartitionEstimate(**part)
        data["event"] = EventEstimate(**data["event"])
        verdict = data.get("value_verdict")
        if verdict is not None:
            verdict = dict(verdict)
            verdict["event"] = EventEstimate(**verdict["event"])
            data["value_verdict"] = ValueVerdict(**verdict)
        data["notes"] = tuple(data.get("notes", ()))
        if data.get("options") is not None:
            data["options"] = AuditOptions.from_dict(data["options"])
        if "finding" not in data:  # saved before the kind of finding was recorded
            data["finding"] = classify_finding(
                violation=data["violation"],
                family=data["event"].family,
                epsilon_lower_bound=data["epsilon_lower_bound"],
                claimed_epsilon=data["claimed_epsilon"],
                value_verdict=data.get("value_verdict"),
            )
        return data

    @classmethod
    def from_dict(cls, data: dict) -> AuditResult:
        """The result whose ``to_dict()`` gave ``data``, of the driver's type that wrote it.

        ``AuditResult.from_dict`` (and ``from_json``) of a sequential or search audit's data gives
        a :class:`~dpverify.SequentialAuditResult` or :class:`~dpverify.SearchAuditResult`.

        Raises
        ------
        ResultFormatError
            Data that neither this type nor any of its subclasses holds.
        """
        target = _fitting_class(cls, data)
        if target is not cls:
            return target.from_dict(data)
        return super().from_dict(data)

    @property
    def margin(self) -> float | None:
        """How far the certified bound lies past the claim (:meth:`dpverify.PrivacyClaim.margin`)."""
        return None if self.claim_lower_bound is None else self.audited_claim.margin(self.claim_lower_bound)

    def to_dict(self) -> dict:
        """The fields, and the :attr:`margin`, as JSON-serialisable plain data."""
        return dataclass_to_dict(self, margin=self.margin)

    def contradictions(self) -> list:
        """Those of every result; no claim at all; a bound the claim's kind records (``ClaimKind.records``)
        missing; a claimed epsilon and delta other than the claim's own
        (:meth:`dpverify.claims.ClaimKind.as_epsilon_delta`: the pair for a kind whose claim is one, none for
        the others); an event counted more often than it was drawn; and a certified bound on the wrong side
        of the claim for the verdict: ``violation`` is ``claim_lower_bound > claim.parameter`` (up to the
        p-value's bisection, a relative ``1e-6``), and, where the claim is an (epsilon, delta) pair,
        ``epsilon_lower_bound > claimed_epsilon``, the bound the summary states."""
        found = super().contradictions()
        if found:
            return found
        if self.claim is None and self.claimed_epsilon is None:
            return ["no claim: both claim and claimed_epsilon are null"]
        found += _count_contradictions(self.event, "event")
        if self.value_verdict is not None:
            found += _count_contradictions(self.value_verdict.event, "value_verdict.event")
        if self.claim is not None:
            missing = [name for name in self.claim.kind_record.records if getattr(self, name) is None]
            if missing:
                found.append(f"{', '.join(missing)} null, but a {self.claim.kind_record.title} result records it")
            stated = self.claim.kind_record.as_epsilon_delta(self.claim) or (None, None)
            if (self.claimed_epsilon, self.claimed_delta) != tuple(stated):
                found.append(
                    f"claimed_epsilon={self.claimed_epsilon!r} and claimed_delta={self.claimed_delta!r}, but the "
                    f"claim ({self.claim}) states {'no (epsilon, delta) pair' if stated == (None, None) else stated}"
                )
        if found:
            return found
        sides = [(self.claim_lower_bound, None if self.claim is None else self.claim.parameter, "certified bound")]
        if self.claimed_epsilon is not None:
            sides.append((self.epsilon_lower_bound, self.claimed_epsilon, "epsilon_lower_bound"))
        for bound, claimed, name in sides:
            if bound is None or claimed is None:
                continue
            slack = BOUND_SLACK * max(1.0, abs(claimed))
            if self.violation and bound < claimed - slack or not self.violation and bound > claimed + slack:
                found.append(
                    f"violation={self.violation} but the {name} {bound!r} is "
                    f"{'below' if self.violation else 'above'} the claimed {claimed!r}"
                )
        return found

    @property
    def audited_claim(self) -> PrivacyClaim:
        """The claim audited (for results saved before claims were recorded, from the claimed epsilon and delta)."""
        if self.claim is not None:
            return self.claim
        return PrivacyClaim(self.claimed_epsilon, self.claimed_delta)

    def summary(self) -> str:
        """A few readable lines: verdict, bound (in the kind's words: :attr:`dpverify.claims.ClaimKind.bound_lines`),
        event or cells, samples, replay seed, notes."""
        verdict = "VIOLATION" if self.violation else "no violation found"
        claim = self.audited_claim
        lines = [f"verdict: {verdict} of the claim ({claim}) at alpha={self.alpha:g} (p-value {self.pvalue:.3g})"]
        lines += claim.kind_record.bound_lines(self)
        cells = self.partition is not None
        lines.append(f"cells: {self.partition}" if cells else f"event: {self.event}")
        lines += finding_lines(self)
        seed = f"seed {self.seed}" if self.replayable else f"seed {self.seed} (does not replay the mechanism)"
        what, them = ("the cells", "them") if cells else ("the event", "it")
        lines.append(
            f"samples: {self.n_samples} per input ({self.n_selection} to choose {what} "
            f"among {self.n_candidates}, {self.event.n_certification} to certify {them}); {seed}"
        )
        lines += draws_lines(self)
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()


def _count_contradictions(event: EventEstimate, name: str) -> list:
    """An event counted fewer than 0 times, or more often than the samples it was counted on."""
    n_x = event.n_certification
    n_xp = n_x if event.n_certification_x_prime is None else event.n_certification_x_prime
    if 0 <= event.count_x <= n_x and 0 <= event.count_x_prime <= n_xp:
        return []
    return [f"{name} counted {event.count_x} of {n_x} and {event.count_x_prime} of {n_xp} samples"]


def _fitting_class(cls, data):
    """``cls`` if ``data`` has only its fields, else its subclass with the fewest fields that has them all."""
    if not isinstance(data, dict):
        got = type(data).__name__
        raise ResultFormatError(f"{cls.__name__}.from_dict needs the dict that to_dict() gave, got {got}")
    keys = set(data)
    fitting = [c for c in [cls, *subclasses(cls)] if keys - set(c._DERIVED) <= {f.name for f in dataclasses.fields(c)}]
    if cls in fitting or not fitting:
        return cls  # no fitting class: cls's own check names the unknown keys
    return min(fitting, key=lambda c: len(dataclasses.fields(c)))
