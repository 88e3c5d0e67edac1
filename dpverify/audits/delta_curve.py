"""A simultaneous lower confidence curve on delta(eps) for one pair of inputs.

For neighbouring ``x ~ x'`` the privacy profile of the pair is

    delta(eps) = max over S and both directions of  P[M(x) in S] - e^eps P[M(x') in S]

(the hockey-stick divergence, :meth:`dpverify.ExactPrivacyLoss.delta`); a
mechanism claiming (eps, delta)-DP needs ``delta(eps) <= delta``.
:func:`delta_lower_bound_curve` estimates it from below, following the
select-then-certify design of :func:`dpverify.audit`:

1. draw a bounded selection sample of M(x) and M(x') (as ``audit`` does);
2. on the selection sample, for every ``eps`` of the grid pick the candidate
   event and direction with the largest selection-split bound
   ``p_lo - e^eps q_hi`` (Clopper-Pearson, shrunk by ``max(1, sqrt(2 ln M))``
   standard errors against the winner's curse among M candidates); the distinct
   picks form a list of ``m <= len(grid)`` events fixed before step 3;
3. stream fresh certification samples, counting the ``m`` frozen events
   (:func:`dpverify.pipeline.sampling.count_events`), and compute for each
   one-sided Clopper-Pearson bounds ``p_lo_j`` and ``q_hi_j`` at level
   ``alpha / (2m)`` each (Bonferroni over the ``2m`` statements).

With probability at least ``1 - alpha`` all ``2m`` bounds hold together, and
then *every* event gives a valid bound at *every* eps, so

    curve(eps) = max_j max(0, p_lo_j - e^eps q_hi_j)

is a lower bound on delta(eps) simultaneously for all eps (on and off the
grid). **Choice**: Bonferroni over the distinct selected events rather than
Holm; the bounds are confidence bounds, not tests, and the max over events
recovers most of what a finer correction would. Likewise
``epsilon_at(delta) = max_j ln((p_lo_j - delta) / q_hi_j)`` is a simultaneous
lower bound on the eps needed at every delta.

References: Bichsel et al., S&P 2021 (the lower bound from one event); Balle and Wang,
ICML 2018 (the privacy profile of the Gaussian mechanism the tests use).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import _validation as check
from .._results import PlainData, Result
from ..errors import InsufficientSamplesError
from ..events import candidate_events, default_families, families_of_role
from ..options import AuditOptions
from ..pipeline.outputs import fit_codec
from ..pipeline.sampling import DEFAULT_CHUNKS, count_events, draw
from ..protocols import check_replayable, contract_seed
from ..support.bounds import clopper_pearson_lower, clopper_pearson_upper
from .certification import check_before_drawing, recording_draws
from .drivers import ReplayedByItsDriver
from .fingerprint import Fingerprint, fingerprint_of
from .plan import build_plan, curve_split, pair_driver
from .results import draws_lines

__all__ = ["delta_lower_bound_curve", "DeltaCurve", "CertifiedEvent"]


@dataclass(frozen=True)
class CertifiedEvent(PlainData):
    """One selected event with its simultaneous certification bounds.

    ``p_lower`` bounds P[M(direction) in S] from below and ``q_upper`` bounds
    P[M(other) in S] from above, each at one-sided level ``alpha / (2m)``.
    """

    description: str
    family: str
    direction: str
    count_p: int
    count_q: int
    p_lower: float
    q_upper: float
    selected_for: list = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class DeltaCurve(ReplayedByItsDriver, Result):
    """Outcome of :func:`delta_lower_bound_curve`; ``==`` compares its arrays element by element.

    Attributes
    ----------
    epsilons : numpy.ndarray
        The grid.
    delta_lower_bounds : numpy.ndarray
        ``curve(eps)`` on the grid (see the module docstring).
    events : list of CertifiedEvent
        The ``m`` certified events behind the curve.
    alpha : float
        The curve holds at every eps with probability >= 1 - alpha.
    n_samples, n_selection : int
        Samples per input, and how many chose the events.
    seed : int or list of int
        Replays the run.
    options : AuditOptions or None
        The options the curve was computed with.
    fingerprint : Fingerprint or None
        The mechanism and the pair, as a replay checks them (:mod:`dpverify.audits.fingerprint`);
        None in results saved before it was recorded.
    notes : tuple of str
        What the reader should know (what a replay could not check).
    draws, checks_drawn
        What was drawn per input and for what, and the contract checks' draws (as :class:`dpverify.AuditResult`).
    """

    epsilons: np.ndarray
    delta_lower_bounds: np.ndarray
    events: list
    alpha: float
    n_samples: int
    n_selection: int
    seed: object = None
    options: AuditOptions | None = None
    fingerprint: Fingerprint | None = None
    notes: tuple = ()
    draws: dict = field(default_factory=dict)
    checks_drawn: int = 0

    def delta_at(self, epsilon) -> float | np.ndarray:
        """Simultaneous lower bound on delta(eps), at any eps (scalar or array)."""
        eps = np.asarray(epsilon, dtype=float)
        if not self.events:
            out = np.zeros_like(eps)
        else:
            p = np.array([e.p_lower for e in self.events])
            q = np.array([e.q_upper for e in self.events])
            out = np.maximum(0.0, (p - np.exp(eps)[..., None] * q).max(axis=-1))
        return float(out) if out.ndim == 0 else out

    def epsilon_at(self, delta: float) -> float:
        """Simultaneous lower bound on the eps needed at ``delta`` (0 if none certified)."""
        best = 0.0
        for e in self.events:
            if e.p_lower - delta > 0:
                if e.q_upper <= 0:
                    return math.inf
                best = max(best, math.log(e.p_lower - delta) - math.log(e.q_upper))
        return best

    def violates(self, epsilon: float, delta: float) -> bool:
        """Whether the curve certifies that an (epsilon, delta) claim is false (level alpha)."""
        return bool(self.delta_at(epsilon) > delta)

    @classmethod
    def _parse(cls, data: dict) -> dict:
        data = super()._parse(data)
        data["epsilons"] = np.asarray(data["epsilons"], dtype=float)
        data["delta_lower_bounds"] = np.asarray(data["delta_lower_bounds"], dtype=float)
        data["events"] = [CertifiedEvent(**event) for event in data["events"]]
        if data.get("options") is not None:
            data["options"] = AuditOptions.from_dict(data["options"])
        data["notes"] = tuple(data.get("notes", ()))
        return Fingerprint.read(data)

    def contradictions(self) -> list:
        """Those of every result, and bounds on delta that are not one number in [0, 1] per epsilon."""
        found = super().contradictions()
        bounds = np.asarray(self.delta_lower_bounds, dtype=float)
        if bounds.shape != np.shape(self.epsilons) or not np.all((bounds >= 0) & (bounds <= 1)):
            found.append(f"delta_lower_bounds {bounds.tolist()} are not one value in [0, 1] per epsilon")
        return found

    def summary(self) -> str:
        """The curve on its grid, the events behind it, and the seed that replays it."""
        confidence = f"{100 * (1 - self.alpha):g}%"
        points = ", ".join(f"{e:g}: {d:.3g}" for e, d in zip(self.epsilons, self.delta_lower_bounds))
        lines = [
            f"simultaneous {confidence} lower curve on delta(eps) at eps = {points}",
            f"from {len(self.events)} certified event(s); samples: {self.n_samples} per input "
            f"({self.n_selection} to choose the events); seed {self.seed}",
        ]
        lines += [f"event: {e.description} [{e.family}], direction {e.direction}" for e in self.events]
        lines += draws_lines(self)
        return "\n".join(lines)


def _select_for_grid(candidates, n_selection: int, epsilons: np.ndarray):
    """For each eps, the (index, direction) maximizing ``p_lo - e^eps q_hi`` on the selection split."""
    a, b = candidates.counts_x, candidates.counts_x_prime
    picks = []
    shrink = max(1.0, math.sqrt(2 * math.log(max(2, 2 * len(a)))))
    from scipy import stats  # here: scipy.stats costs 0.6 s to import

    level = 2 * stats.norm.sf(shrink)
    bounds = {
        "x": (clopper_pearson_lower(a, n_selection, level), clopper_pearson_upper(b, n_selection, level)),
        "x_prime": (clopper_pearson_lower(b, n_selection, level), clopper_pearson_upper(a, n_selection, level)),
    }
    for eps in epsilons:
        best = None
        for direction, (p_lo, q_hi) in bounds.items():
            score = p_lo - math.exp(eps) * q_hi
            i = int(np.argmax(score))
            if best is None or score[i] > best[0]:
                best = (score[i], i, direction)
        picks.append((best[1], best[2]))
    return picks


def _candidates(plan, mechanism, x, x_prime):
    """Step 1: the code book and the candidate events of the plan's selection samples (drawn here, then dropped)."""
    options, n_selection, streams = plan.options, plan.n_selection, plan.streams
    common = dict(executor=options.executor, n_chunks=DEFAULT_CHUNKS, output_key=options.output_key)
    sel_x = draw(mechanism, x, n_selection, streams["selection_x"], label="x", **common)
    sel_xp = draw(mechanism, x_prime, n_selection, streams["selection_x_prime"], label="x_prime", **common)
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_xp)
    del sel_x, sel_xp
    families = options.families
    if not options.float_events:
        implementation = families_of_role("implementation")
        families = [f for f in (families or default_families()) if f not in implementation]
    candidates = candidate_events(enc_x, enc_xp, codec, families, inputs=(x, x_prime), mechanism=mechanism)
    if not candidates.events:
        raise InsufficientSamplesError(
            "no candidate event could be formed; draw more samples", required=2 * plan.n_samples
        )
    return codec, candidates


def _certified_events(plan, mechanism, x, x_prime, codec, candidates, grid) -> list:
    """Steps 2 and 3: the events picked for the grid, frozen, counted on the plan's certification streams and
    bounded at ``alpha / (2m)`` each."""
    options, n_cert, streams = plan.options, plan.n_certification, plan.streams
    picks = _select_for_grid(candidates, plan.n_selection, grid)
    distinct: dict = {}
    for eps, pick in zip(grid, picks):
        distinct.setdefault(pick, []).append(float(eps))
    m = len(distinct)
    level = plan.alpha / m  # clopper_pearson_* are one-sided at level/2: 2m statements at alpha/(2m)
    events = []
    chosen = [candidates.events[index] for index, _ in distinct]
    counted_x, counted_xp = count_events(
        mechanism,
        [(x, n_cert, streams["certification_x"], "x"), (x_prime, n_cert, streams["certification_x_prime"], "x_prime")],
        codec,
        [e.indicator for e in chosen],
        executor=options.executor,
        n_chunks=options.n_chunks,
        progress=options.progress,
        output_key=options.output_key,
    )
    for slot, ((_index, direction), chosen_for) in enumerate(distinct.items()):
        event = chosen[slot]
        cx, cxp = int(counted_x.counts[slot]), int(counted_xp.counts[slot])
        p, q = (cx, cxp) if direction == "x" else (cxp, cx)
        events.append(
            CertifiedEvent(
                description=event.description,
                family=event.family,
                direction=direction,
                count_p=p,
                count_q=q,
                p_lower=float(clopper_pearson_lower(p, n_cert, level)),
                q_upper=float(clopper_pearson_upper(q, n_cert, level)),
                selected_for=chosen_for,
            )
        )
    return events


@recording_draws
def delta_lower_bound_curve(
    mechanism,
    x,
    x_prime,
    *,
    epsilons,
    n_samples: int = 100_000,
    seed=None,
    options: AuditOptions | None = None,
    **option_fields,
) -> DeltaCurve:
    """A ``1 - alpha`` simultaneous lower confidence curve on delta(eps) of the pair.

    Parameters
    ----------
    mechanism, x, x_prime, n_samples
        As in :func:`dpverify.audit`.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        Seed of the curve; the value recorded in the result replays it. ``None`` draws fresh entropy;
        a ``Generator`` is not drawn from: a child of its SeedSequence is spawned
        (:func:`dpverify.pipeline.sampling.resolve_seed`), so generators made alike
        (``numpy.random.default_rng(7)`` twice) give the same result.
    epsilons : array_like
        Grid of eps in [0, 709.78] (e^eps a finite double) at which events are selected (1 to 1000 points).
    options : AuditOptions, optional
        As in :func:`dpverify.audit`, recorded in the result; the whole curve
        holds with probability >= 1 - ``alpha``.
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword.

    Returns
    -------
    DeltaCurve

    Raises
    ------
    InvalidParameterError
        Empty, negative or non-finite grid; bad alpha or sample sizes.
    IdenticalInputsError, OutsideDomainError, MechanismError, OutputTypeError
        As in :func:`dpverify.audit`.
    InsufficientMemoryError
        The selection sample cannot fit in memory (refused before any draw, as in :func:`dpverify.audit`).

    Examples
    --------
    >>> from dpverify.mechanisms.broken import BrokenGaussianMechanism
    >>> m = BrokenGaussianMechanism(1.0, 1e-3, sigma_multiplier=0.5)
    >>> c = delta_lower_bound_curve(m, 0.0, 1.0, epsilons=[0.5, 1.0], n_samples=200_000, seed=3)
    >>> c.violates(1.0, 1e-3)
    True
    """
    grid = check.check_grid(epsilons, "epsilons")
    plan = build_plan(  # a delta curve takes no claim: it bounds delta at every epsilon of the grid
        DRIVER,
        mechanism,
        (x, x_prime),
        None,
        n_samples,
        seed,
        options,
        option_fields,
        sizes=curve_split,
    )
    check_before_drawing(plan, mechanism, x, x_prime)  # memory for the selection, then the sampler check
    codec, candidates = _candidates(plan, mechanism, x, x_prime)
    events = _certified_events(plan, mechanism, x, x_prime, codec, candidates, grid)
    n_selection, options = plan.n_selection, plan.options
    curve = DeltaCurve(grid, np.zeros(0), events, plan.alpha, plan.n_samples, n_selection, plan.seed)
    bounds = np.atleast_1d(curve.delta_at(grid))
    replay = check_replayable(mechanism, x, contract_seed(plan.sequence), output_key=options.output_key)
    fingerprint = fingerprint_of(mechanism, (x, x_prime), replay)
    sizes = (plan.alpha, plan.n_samples, n_selection, plan.seed)
    return DeltaCurve(grid, bounds, events, *sizes, options=options, fingerprint=fingerprint)


def _again(result, plan, mechanism, x, x_prime):
    grid = dict(epsilons=result.epsilons, n_samples=plan.n_samples)
    return delta_lower_bound_curve(mechanism, x, x_prime, **grid, seed=plan.seed, options=plan.options)


DRIVER = pair_driver("delta_lower_bound_curve", DeltaCurve, _again)
