"""What a grey-box probe found: the noise calls it measured and its findings, as results.

A :class:`ProbeReport` is plain data like every dpverify result (:mod:`dpverify._results`): it
saves to JSON and reloads equal, and ``summary()`` says what it found. Its findings are
deterministic facts about one pair of inputs under one seed (no statistics): a probe that finds
nothing on a pair says nothing about other pairs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .._results import PlainData, Result, dataclass_to_dict, read_float
from .recording import noise_kind

__all__ = ["FINDING_KINDS", "NoiseCall", "ProbeFinding", "ProbeReport", "ProbeAuditResult", "norm_shift"]

#: The kinds of finding: the two runs took different paths; a released value moved more than the
#: declared sensitivity; the Laplace calls spend more epsilon than the pipeline claims; the two
#: runs released outputs of different shapes.
FINDING_KINDS = ("control-flow", "sensitivity", "budget", "output-structure", "noise-calibration")


@dataclass(frozen=True)
class NoiseCall(PlainData):
    """One noise call of the pair's runs and what the probe measured at it.

    Attributes
    ----------
    index : int
        Its place in the sequence of calls to the generator (from 0).
    method, site : str
        The Generator method and ``file:line`` of the call.
    scale : float or None
        The noise scale argument (``p`` for ``geometric``); None when not one number.
    components : int
        How many released numbers moved by exactly the marker when this call's draw did (0: no shift
        measured: no released value carries this call's noise additively, or a note says why not,
        as where the two runs draw it with other parameters).
    shift_l1, shift_l2 : float or None
        The l1 and l2 norms of the difference of those released values between x and x'; with the
        noise the same in both runs, it is the difference of the query values ``f(x) - f(x')``.
    implied_epsilon : float or None
        ``shift_l1 / b`` for the scale ``b`` of a Laplace, Gumbel or exponential call and
        ``-shift_l1 log(1 - p)`` for a geometric one: the epsilon this pair spends at this call.
    implied_rho : float or None
        ``shift_l2**2 / (2 sigma**2)`` for a normal call of scale sigma (zCDP).
    rounding : float
        A bound on what the floating-point rounding of the released numbers (and of their
        difference) can add to the measured shift, which a sensitivity finding must exceed.
    declared_sensitivity : float or None
        The sensitivity the library's mechanism declares at this call (diffprivlib's
        ``sensitivity``), against which its shift is checked instead of the pipeline's; None for
        a Generator call.
    """

    index: int
    method: str
    site: str
    scale: float | None
    components: int
    shift_l1: float | None = None
    shift_l2: float | None = None
    implied_epsilon: float | None = None
    implied_rho: float | None = None
    rounding: float = 0.0
    declared_sensitivity: float | None = None


@dataclass(frozen=True)
class ProbeFinding(PlainData):
    """One finding: its ``kind`` (:data:`FINDING_KINDS`), the call ``site`` it names, a ``message`` and
    the ``numbers`` behind it (name -> value)."""

    kind: str
    site: str
    message: str
    numbers: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProbeReport(Result):
    """Outcome of :func:`dpverify.probes.probe_pair` and :func:`dpverify.probes.probe_search`.

    Attributes
    ----------
    findings : tuple of ProbeFinding
        Empty when the probe found nothing on the pair.
    calls : tuple of NoiseCall
        Every noise call the two runs share, in order, with its measured shift.
    x, x_prime : str
        ``repr`` of the pair probed (the worst pair of a search).
    seed : int
        The generator's seed in both runs.
    sensitivity, epsilon : float or None
        The sensitivity and the total epsilon the pipeline declares (None: not declared).
    pairs_probed : int
        How many pairs a search probed (1 for :func:`~dpverify.probes.probe_pair`).
    notes : tuple of str
        What the probe could not check, and why.
    unseeded_libraries : tuple of str
        The libraries the pipeline called that take no seed (OpenDP, python-dp): their noise is
        neither replayed nor recorded, and the summary's verdict says so.
    draw_count_sites : tuple of str
        The call sites where the two runs make the same calls (method, parameters) but draw different
        numbers of values: one noise per key or record. Not a finding, and not judged: the notes
        name the counts, and the summary's verdict says so.
    """

    findings: tuple
    calls: tuple
    x: str
    x_prime: str
    seed: int
    sensitivity: float | None = None
    epsilon: float | None = None
    pairs_probed: int = 1
    notes: tuple = ()
    unseeded_libraries: tuple = ()
    draw_count_sites: tuple = ()

    _DERIVED = ("flagged",)
    _NOT_REPLAYABLE = "a probe report holds the pair's repr, not the pair: run probe_pair again on the pair"

    @property
    def flagged(self) -> bool:
        """Whether the probe found anything on the pair (a draw-count difference is a note, not a finding)."""
        return bool(self.findings)

    def excess(self) -> float:
        """The largest ratio of a measured shift to the declared sensitivity (the call's own where its
        library declares one; 0 when none is declared or nothing was measured): above 1, the code's
        sensitivity exceeds what it declares."""
        ratios = []
        for call in self.calls:
            declared = call.declared_sensitivity if call.declared_sensitivity is not None else self.sensitivity
            if call.components and declared:
                ratios.append(norm_shift(call) / declared)
        return max(ratios, default=0.0)

    def to_dict(self) -> dict:
        """The fields, and ``flagged``, as JSON-serialisable plain data."""
        return dataclass_to_dict(self, flagged=self.flagged)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["findings"] = tuple(ProbeFinding(**_floats(f)) for f in data["findings"])
        data["calls"] = tuple(NoiseCall(**{k: read_float(v) for k, v in c.items()}) for c in data["calls"])
        data["notes"] = tuple(data.get("notes", ()))
        data["unseeded_libraries"] = tuple(data.get("unseeded_libraries", ()))
        data["draw_count_sites"] = tuple(data.get("draw_count_sites", ()))
        return data

    def contradictions(self) -> list:
        """A finding of an unknown kind."""
        found = super().contradictions()
        found += [f"unknown finding kind {f.kind!r}" for f in self.findings if f.kind not in FINDING_KINDS]
        return found

    def summary(self) -> str:
        """The verdict, each finding with its call site, and each measured noise call."""
        verdict = f"{len(self.findings)} finding(s)" if self.flagged else "nothing found"
        if self.unseeded_libraries:
            verdict += f" (noise of {', '.join(self.unseeded_libraries)} not replayed: see the notes)"
        if self.draw_count_sites:
            verdict += f" (draw counts differ at {len(self.draw_count_sites)} site(s), not judged: see the notes)"
        lines = [f"grey-box probe of x={self.x} vs x'={self.x_prime} (seed {self.seed}): {verdict}"]
        lines += [f"  [{f.kind}] {f.site}: {f.message}" for f in self.findings]
        lines += [f"  call {c.index}: {c.method} at {c.site}, {_measured(c)}" for c in self.calls]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass(frozen=True)
class ProbeAuditResult(Result):
    """Outcome of :func:`dpverify.probes.probe_and_audit`: the probe's ``report`` on the worst pair it
    found and the certified black-box ``audit`` of that pair (an :class:`~dpverify.AuditResult`)."""

    report: ProbeReport
    audit: object

    _NOT_REPLAYABLE = "replay its audit (result.audit.replay) on the pair the report names"

    @property
    def violation(self) -> bool:
        """The audit's verdict: a violation certified at the audit's alpha."""
        return bool(self.audit.violation)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        from ..audits.results import AuditResult

        data = super()._parse(data)
        data["report"] = ProbeReport.from_dict(data["report"])
        data["audit"] = AuditResult.from_dict(data["audit"])
        return data

    def summary(self) -> str:
        """The probe's summary, then the audit's."""
        return f"{self.report.summary()}\ncertified audit of that pair:\n{self.audit.summary()}"


def _floats(finding: dict) -> dict:
    return {**finding, "numbers": {k: read_float(v) for k, v in finding.get("numbers", {}).items()}}


def norm_shift(call: NoiseCall) -> float:
    """The shift in the norm its noise is calibrated to: l2 for Gaussian noise, l1 otherwise."""
    return call.shift_l2 if noise_kind(call.method) == "normal" else call.shift_l1


def _measured(call: NoiseCall) -> str:
    if not call.components:
        return "no shift measured (no released value carries its noise additively, or a note says why not)"
    text = f"scale {call.scale}, shift l1 {call.shift_l1:.6g}, l2 {call.shift_l2:.6g}"
    if call.implied_epsilon is not None:
        text += f", implied epsilon {call.implied_epsilon:.6g}"
    if call.implied_rho is not None:
        text += f", implied rho {call.implied_rho:.6g}"
    return text
