"""Grey-box probes: run a pipeline on x and x' with the same recorded randomness and compare.

A pipeline ``pipeline(data, rng)`` is run on ``x`` and on ``x_prime`` with a
:class:`~dpverify.probes.recording.RecordingGenerator` of one seed, so that both runs draw the
same raw randomness as long as they make the same calls (Cebere, Erb, Desfontaines, Bellet and
Fitzsimons 2026). The probe then reports, with no statistics and so no false alarms on a correct
pipeline:

(a) **control flow**: the two runs' sequences of calls differ in a call made in one run and not
    in the other, or in its method, call site or parameters (the noise scale...): the data chose
    a branch, which a mechanism's analysis rarely allows for; the finding names the first call
    where they part. Runs whose calls agree in all of these and differ only in how many values
    they draw at a site (the shape of a draw, or the number of consecutive calls there) draw one
    noise per key or per record, which a correct pipeline does: that is a note, not a finding
    (not judged; the follow-up audit is the verdict), and no shift is measured from there on,
    where the two runs' draws are no longer the same randomness;
(b) **sensitivity**: at each noise call (``laplace``, ``normal``, ``geometric``, ``exponential``,
    ``gumbel``) the probe finds the released numbers that carry its noise additively (it runs the
    pipeline again with that call's draw moved by 1 and keeps the numbers that move by exactly 1);
    with the noise the same in both runs, their difference between x and x' is ``f(x) - f(x')``,
    the released value minus the noise. Its l1 norm (l2 for ``normal``) above the ``sensitivity``
    the pipeline declares is a finding; the implied epsilon ``|shift|_1 / b`` of a Laplace call of
    scale ``b`` and the implied zCDP ``rho = |shift|_2**2 / (2 sigma**2)`` of a Gaussian one are
    reported;
(c) **budget**: where the pipeline declares a total ``epsilon``, the epsilon its Laplace and
    geometric calls spend (the declared sensitivity over each call's scale, or the measured shift
    where no sensitivity is declared) is summed; a sum above the claim is a finding, at the call
    where it first exceeds it;
(d) **noise calibration**: where both runs make a noise call alike but with other parameters (a
    scale, say), no shift is measured there (the two draws are not the same noise). The run on x' is
    made again with each earlier noise draw moved by its measured shift, so that it releases what the
    run on x released before that call: parameters that then agree follow those releases (an
    adaptive pipeline, post-processing: a note); parameters that still differ are computed from the
    data (a bound or sensitivity read off the input): a finding.

A pipeline declares ``sensitivity`` and ``epsilon`` as attributes (a callable object) or the
probe is given them as arguments. Python's :mod:`random` and numpy's legacy global generator are
seeded with the probe's seed for each run (and restored after), so that they replay too; calls of
``random``'s module functions are recorded as well (``random.gauss`` and ``random.normalvariate``
are Gaussian noise calls, ``random.expovariate`` an exponential one), numpy's legacy global
functions are not (:meth:`~dpverify.probes.recording.RecordingGenerator.python_random`).
diffprivlib's mechanisms draw from the probe's seed and are recorded at their ``randomise`` call
sites, each checked against the sensitivity the mechanism declares
(:mod:`~dpverify.probes.libraries`). A pipeline that draws from a generator of its own gives
different outputs on two runs of the same input; the probe checks that first and refuses it,
naming OpenDP or python-dp where the pipeline called them (they take no seed), as it names them
in the report's verdict where their noise did not reach the outputs.

References
----------
T. Cebere, D. Erb, D. Desfontaines, A. Bellet and J. Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries", Proceedings on Privacy Enhancing
Technologies (PoPETs), 2026.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import random
from dataclasses import dataclass

import numpy as np

from .._results import short_repr
from .._validation import check_callable, check_pairs, check_positive_int, check_positive_real
from ..errors import InvalidParameterError, MechanismError
from .libraries import diffprivlib_replayed, replayed_imports, unseedable_calls
from .recording import RecordingGenerator, noise_kind
from .report import NoiseCall, ProbeAuditResult, ProbeFinding, ProbeReport, norm_shift

__all__ = ["probe_pair", "probe_search", "probe_and_audit", "EPSILON_METHODS"]

#: The noise (:func:`~dpverify.probes.recording.noise_kind`) whose epsilon the budget check sums:
#: calibrated to an epsilon by an l1 sensitivity.
EPSILON_METHODS = ("laplace", "geometric")
#: Relative slack for comparing a float shift or sum with a declared value (the rounding of the
#: declared value's own computation, such as ``upper / n``, not privacy).
_RELATIVE_SLACK = 1e-9


def probe_pair(pipeline, x, x_prime, *, seed: int = 0, sensitivity=None, epsilon=None) -> ProbeReport:
    """Probe ``pipeline`` on one pair: control flow, shifts against the declared sensitivity, budget.

    Parameters
    ----------
    pipeline : callable
        ``pipeline(data, rng) -> output``; ``rng`` is used as a :class:`numpy.random.Generator`.
        Outputs are numbers, arrays, or lists, tuples and dicts of them (other leaves are kept
        out of the shifts).
    x, x_prime : object
        The pair of inputs.
    seed : int, default 0
        Seed of the generator both runs draw from; the report records it. A
        :class:`numpy.random.Generator` is refused by name: every run restarts from the seed,
        which a generator's state cannot do.
    sensitivity, epsilon : float, optional
        The sensitivity and the total epsilon the pipeline claims; by default its ``sensitivity``
        and ``epsilon`` attributes, where it has them.

    Returns
    -------
    ProbeReport
        Its findings (empty: nothing found on this pair), each naming a call site, and every
        noise call with its measured shift (see the module docstring).

    Raises
    ------
    InvalidParameterError
        A seed that is not a non-negative integer, a declared sensitivity or epsilon that is not
        a finite number > 0, a pipeline that is not callable.
    MechanismError
        The pipeline raised (chained), or gave different outputs on two runs of ``x`` with the
        same seed: randomness the probe does not control.

    Examples
    --------
    >>> from dpverify.probes import probe_pair
    >>> def count(data, rng):  # declares sensitivity 1 but counts each record twice
    ...     return 2 * len(data) + rng.laplace(scale=1.0)
    >>> report = probe_pair(count, [1, 2], [1], sensitivity=1.0)
    >>> [f.kind for f in report.findings], report.calls[0].shift_l1
    (['sensitivity'], 2.0)
    """
    return _probe(pipeline, x, x_prime, *_checked(pipeline, seed, sensitivity, epsilon))


def probe_search(
    pipeline, pairs, *, seed: int = 0, max_examples: int = 100, sensitivity=None, epsilon=None
) -> ProbeReport:
    """Probe many pairs and report the worst: a finding first, then the largest sensitivity excess.

    Parameters
    ----------
    pipeline : callable
        As for :func:`probe_pair`.
    pairs : list of (x, x_prime) or hypothesis strategy of pairs
        The pairs to probe: every pair of a list, or ``max_examples`` pairs a Hypothesis
        strategy generates (targeted at a large shift), after which Hypothesis shrinks the worst
        to the simplest pair as bad (needs ``hypothesis``, the ``test`` extra).
    seed : int, default 0
        Seed of every probe and of the Hypothesis search (an integer: a
        :class:`numpy.random.Generator` is refused, as by :func:`probe_pair`).
    max_examples : int, default 100
        Pairs a strategy generates (a list is probed whole).
    sensitivity, epsilon : float, optional
        As for :func:`probe_pair`.

    Returns
    -------
    ProbeReport
        The report of the worst pair (``pairs_probed`` says how many were probed). Pairs rank by
        whether anything was found, then by the largest ratio of a shift to the declared
        sensitivity (the largest shift where none is declared).
    """
    return _search(pipeline, pairs, seed, max_examples, sensitivity, epsilon)[0]


def probe_and_audit(
    pipeline,
    pairs,
    *,
    seed: int = 0,
    max_examples: int = 100,
    sensitivity=None,
    epsilon=None,
    n_samples: int = 100_000,
    **audit_options,
) -> ProbeAuditResult:
    """Search the pairs with grey-box probes, then certify a bound on the worst with :func:`dpverify.audit`.

    The probe points at a pair; the black-box audit of that pair gives a ``1 - alpha`` lower
    bound on the privacy loss in the claim's own form, which a probe's finding is not (a
    sensitivity declared too small, say, need not break the claim by much).

    Parameters
    ----------
    pipeline, pairs, seed, max_examples, sensitivity
        As for :func:`probe_search` (``seed`` an integer; a :class:`numpy.random.Generator` is
        refused by name).
    epsilon : float, optional
        The claim to probe and audit; by default the pipeline's ``epsilon`` attribute (and, when it
        has none, its ``claim``, as :func:`dpverify.audit` reads it).
    n_samples : int, default 100_000
        The audit's samples per input.
    **audit_options
        Passed to :func:`dpverify.audit` (``alpha``, ``executor``...).

    Returns
    -------
    ProbeAuditResult
        ``report`` (the probe of the worst pair) and ``audit`` (its certified audit). The audit
        draws from ``numpy.random.SeedSequence(seed).spawn(1)[0]``, a stream independent of the
        probes', so its false-alarm rate is its ``alpha`` whichever pair the probes chose.
    """
    from ..audits.pair import audit

    report, (x, x_prime) = _search(pipeline, pairs, seed, max_examples, sensitivity, epsilon)
    claimed = {"epsilon": report.epsilon} if report.epsilon is not None else {}
    result = audit(
        pipeline,
        x,
        x_prime,
        n_samples=n_samples,
        seed=np.random.SeedSequence(seed).spawn(1)[0],
        **claimed,
        **audit_options,
    )
    return ProbeAuditResult(report=report, audit=result)


# -- the probe of one pair -----------------------------------------------------------------------


def _checked(pipeline, seed, sensitivity, epsilon) -> tuple:
    check_callable(pipeline, "pipeline")
    seed = check_positive_int(seed, "seed", minimum=0)
    declared = []
    for name, value in (("sensitivity", sensitivity), ("epsilon", epsilon)):
        value = getattr(pipeline, name, None) if value is None else value
        declared.append(None if value is None else check_positive_real(value, f"the declared {name}"))
    return (seed, *declared)


def _probe(pipeline, x, x_prime, seed, sensitivity, epsilon) -> ProbeReport:
    base_x, base_xp = _run(pipeline, x, seed, watch=True), _run(pipeline, x_prime, seed, watch=True)
    again = _run(pipeline, x, seed)
    unseeded = tuple(sorted(base_x.libraries | base_xp.libraries))
    if not _same_output(base_x, again):
        called = f"it called {', '.join(unseeded)}, which takes no seed" if unseeded else "a generator of its own"
        raise MechanismError(
            f"the pipeline gave different outputs on two runs of x={short_repr(x)} with seed {seed}: it draws "
            f"randomness the probe does not control ({called}), so its two runs cannot be compared; draw all noise "
            "from the rng argument or from a library the probe replays (diffprivlib)"
        )
    findings, notes = [], []
    if unseeded:
        notes.append(
            f"the pipeline called {', '.join(unseeded)}, which takes no seed: noise drawn there is neither replayed "
            "nor recorded (its outputs were the same on two runs of x, so none reached them here)"
        )
    if not base_x.draws and not base_xp.draws:
        notes.append(
            "the pipeline drew nothing from rng nor from Python's random module functions: noise from numpy's legacy "
            "global generator is replayed (seeded alike in both runs) but not recorded, so no noise call is measured"
        )
    compared = _compare_calls(base_x.draws, base_xp.draws)
    if compared.parted is not None:
        findings.append(_control_flow_finding(base_x.draws, base_xp.draws, *compared.parted))
    notes += _draw_count_notes(base_x.draws, base_xp.draws, compared)
    if base_x.paths != base_xp.paths:
        findings += _structure_findings(base_x, base_xp, compared, notes)
        calls = ()
    else:
        moves = {}  # call -> the shift that makes the run on x' release what the run on x releases there
        calls = [
            _measure(pipeline, x, x_prime, seed, i, (base_x, base_xp), notes, findings, moves)
            for i in range(compared.same)
        ]
        calls = tuple(c for c in calls if c is not None)
        findings += _sensitivity_findings(calls, sensitivity)
    findings += _budget_findings(base_x.draws, base_xp.draws, calls, sensitivity, epsilon)
    return ProbeReport(
        findings=tuple(findings),
        calls=calls,
        x=short_repr(x, 200),
        x_prime=short_repr(x_prime, 200),
        seed=seed,
        sensitivity=sensitivity,
        epsilon=epsilon,
        notes=tuple(notes),
        unseeded_libraries=unseeded,
        draw_count_sites=tuple(base_x.draws[block[0]].site for block, _ in compared.counts),
    )


def _structure_findings(base_x, base_xp, compared, notes) -> list:
    """The output-structure finding of two runs that released outputs of different shapes; a note instead
    where their draw counts differ, which leaves their draws not the same randomness."""
    shapes = f"{len(base_x.paths)} vs {len(base_xp.paths)} numbers or keys"
    if compared.counts:
        notes.append(
            f"no shift measured: the two runs released outputs of different shapes ({shapes}), which is not a "
            "finding here: they drew different numbers of values, so their noise differs"
        )
        return []
    notes.append("no shift measured: the two runs released outputs of different shapes")
    site = base_x.draws[0].site if base_x.draws else "<output>"
    return [
        ProbeFinding(
            "output-structure",
            site,
            f"x and x' release outputs of different shapes ({shapes}): what is released depends on the data",
            {"released_x": len(base_x.paths), "released_x_prime": len(base_xp.paths)},
        )
    ]


class _Run:
    """One run of the pipeline: its draws, its released numbers (``paths`` name them) and the unseedable
    libraries it called (where watched)."""

    def __init__(self, draws, output, libraries):
        self.draws = draws
        self.libraries = libraries
        leaves = list(_leaves(output, ()))
        self.paths = tuple(path for path, _ in leaves)
        self.values = np.array([_number(v) for _, v in leaves], dtype=float)
        self.others = tuple(v for _, v in leaves if math.isnan(_number(v)))


def _run(pipeline, data, seed, marker=None, watch=False) -> _Run:
    imported = replayed_imports()
    run = _run_once(pipeline, data, seed, marker, watch)
    # a run that imported a library the probe replays drew from it unreplayed: once more, replayed
    return run if replayed_imports() == imported else _run_once(pipeline, data, seed, marker, watch)


def _run_once(pipeline, data, seed, marker, watch) -> _Run:
    rng = RecordingGenerator(seed, marker)
    watched = unseedable_calls() if watch else contextlib.nullcontext(set())
    with rng.python_random(seed), diffprivlib_replayed(rng, seed), watched as libraries:
        try:
            output = pipeline(data, rng)
        except Exception as exc:
            raise MechanismError(f"the pipeline raised on {short_repr(data)}: {type(exc).__name__}: {exc}") from exc
    return _Run(rng.draws, output, frozenset(libraries))


def _leaves(output, path):
    """``(path, leaf)`` for every leaf of nested dicts (keys in sorted order), lists, tuples and arrays."""
    if isinstance(output, dict):
        for key in sorted(output, key=repr):
            yield from _leaves(output[key], (*path, repr(key)))
    elif isinstance(output, (list, tuple, np.ndarray)):
        for i, value in enumerate(output):
            yield from _leaves(value, (*path, i))
    else:
        yield path, output


def _number(value) -> float:
    if isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    return math.nan


def _same_output(a: _Run, b: _Run) -> bool:
    return (
        a.paths == b.paths
        and bool(np.array_equal(a.values, b.values, equal_nan=True))
        and repr(a.others) == repr(b.others)
    )


def _first_divergence(draws, draws_prime):
    """The index of the first call where the two runs differ (None: the same calls throughout)."""
    for i, (a, b) in enumerate(zip(draws, draws_prime)):
        if a.signature != b.signature:
            return i
    return None if len(draws) == len(draws_prime) else min(len(draws), len(draws_prime))


@dataclass(frozen=True)
class _Comparison:
    """How two runs' calls compare: ``same`` leading calls are the same randomness in both; ``parted``,
    the index in each run where they part (control flow; None: they do not); ``counts``, the pairs of
    blocks (:func:`_blocks`) that differ only in how many values they draw."""

    same: int
    parted: tuple | None = None
    counts: tuple = ()


def _same_kind(a, b) -> bool:
    """Whether two calls draw the same kind of noise: method, site and parameters other than the size."""
    return a.method == b.method and a.site == b.site and a.parameters is not None and a.parameters == b.parameters


def _blocks(draws) -> list:
    """``(start, stop)`` of each run of consecutive calls of one kind (:func:`_same_kind`) in ``draws``."""
    blocks = []
    for i, draw in enumerate(draws):
        if blocks and _same_kind(draws[blocks[-1][0]], draw):
            blocks[-1] = (blocks[-1][0], i + 1)
        else:
            blocks.append((i, i + 1))
    return blocks


def _compare_calls(draws, draws_prime) -> _Comparison:
    """Compare the runs block by block: a block present in one run only, or of another kind, parts them
    (control flow); blocks of the same kind that draw different numbers of values (shapes, or repeated
    calls) are a draw-count difference, which a pipeline drawing one noise per key or record makes."""
    same = _first_divergence(draws, draws_prime)
    if same is None:
        return _Comparison(len(draws))
    blocks, blocks_prime = _blocks(draws), _blocks(draws_prime)
    for j in range(max(len(blocks), len(blocks_prime))):
        start = blocks[j][0] if j < len(blocks) else len(draws)
        start_prime = blocks_prime[j][0] if j < len(blocks_prime) else len(draws_prime)
        if j >= min(len(blocks), len(blocks_prime)) or not _same_kind(draws[start], draws_prime[start_prime]):
            return _Comparison(same, parted=(start, start_prime))
    counts = tuple(
        (block, block_prime)
        for block, block_prime in zip(blocks, blocks_prime)
        if _shapes(draws, block) != _shapes(draws_prime, block_prime)
    )
    return _Comparison(same, counts=counts)


def _shapes(draws, block) -> list:
    return [np.shape(draws[i].value) for i in range(*block)]


def _draw_count_notes(draws, draws_prime, compared: _Comparison) -> list:
    notes = []
    for block, block_prime in compared.counts:
        draw = draws[block[0]]
        notes.append(
            f"draw counts differ at {draw.site} ({draw.method}, the same parameters in both runs): the run on x "
            f"draws {_values(draws, block)} value(s) there in {block[1] - block[0]} call(s), the run on x' "
            f"{_values(draws_prime, block_prime)} in {block_prime[1] - block_prime[0]}; a pipeline that draws one "
            "noise per key or per record does this, and the probe does not judge it: the follow-up audit "
            "(probe_and_audit) is the verdict"
        )
    if compared.counts:
        notes.append(
            f"no shift measured from call {compared.same} on: the runs draw different numbers of values there, so "
            "their draws from then on are not the same randomness"
        )
    return notes


def _values(draws, block) -> int:
    return sum(int(np.size(draws[i].value)) for i in range(*block))


def _control_flow_finding(draws, draws_prime, i, i_prime) -> ProbeFinding:
    def describe(run, index, name):
        if index >= len(run):
            return f"the run on {name} makes no call {index} ({len(run)} calls)"
        draw = run[index]
        scale = "" if draw.scale() is None else f", scale {draw.scale():g}"
        return f"the run on {name} calls {draw.method} (shape {np.shape(draw.value)}{scale}) at {draw.site}"

    site = draws[i].site if i < len(draws) else draws_prime[i_prime].site
    where = f"call {i}" if i == i_prime else f"call {i} of x, {i_prime} of x'"
    numbers = {"call": i, "calls_x": len(draws), "calls_x_prime": len(draws_prime)}
    if i != i_prime:
        numbers["call_x_prime"] = i_prime
    return ProbeFinding(
        "control-flow",
        site,
        f"the runs part at {where}: {describe(draws, i, 'x')}; {describe(draws_prime, i_prime, 'x_prime')}: the "
        "data chose which calls are made",
        numbers,
    )


# -- shifts at the noise calls -------------------------------------------------------------------


def _carried(pipeline, data, seed, i, base: _Run):
    """The indices of the released numbers that move by exactly +-1 when call ``i``'s draw moves by 1
    (None when the moved draw changed the calls made after it)."""
    moved = _run(pipeline, data, seed, marker=(i, 1))
    if [d.signature for d in moved.draws] != [d.signature for d in base.draws] or moved.paths != base.paths:
        return None
    change = np.abs(moved.values - base.values)
    tolerance = 1e-9 * np.maximum(1.0, np.abs(base.values))
    return tuple(np.flatnonzero(np.abs(change - 1.0) <= tolerance).tolist())


def _measure(pipeline, x, x_prime, seed, i, bases, notes, findings, moves):
    base_x, base_xp = bases
    draw = base_x.draws[i]
    kind = noise_kind(draw.method)
    if kind is None:
        return None
    scale = draw.scale()
    if _parameters_differ(draw, base_xp.draws[i]):
        findings.extend(_calibration(pipeline, x_prime, seed, i, bases, notes, moves))
        return NoiseCall(i, draw.method, draw.site, scale, 0, declared_sensitivity=draw.declared_sensitivity)
    carried = _carried(pipeline, x, seed, i, base_x)
    carried_prime = _carried(pipeline, x_prime, seed, i, base_xp)
    if carried is None or carried_prime is None or carried != carried_prime:
        notes.append(
            f"call {i} ({draw.method} at {draw.site}): moving its draw changed the calls or which released numbers "
            "carry it, so no shift is measured there"
        )
        return NoiseCall(i, draw.method, draw.site, scale, 0, declared_sensitivity=draw.declared_sensitivity)
    if not carried:
        return NoiseCall(i, draw.method, draw.site, scale, 0, declared_sensitivity=draw.declared_sensitivity)
    shift = base_x.values[list(carried)] - base_xp.values[list(carried)]
    if len(carried) == 1 and np.size(draw.value) == 1:
        moves[i] = float(shift[0])
    l1, l2 = float(np.sum(np.abs(shift))), float(np.sqrt(np.sum(shift**2)))
    # each released number rounds by half a spacing, and so does the difference: 2 spacings of the larger
    largest = np.maximum(np.abs(base_x.values[list(carried)]), np.abs(base_xp.values[list(carried)]))
    rounding = float(np.sum(2 * np.spacing(largest)))
    return NoiseCall(
        i,
        draw.method,
        draw.site,
        scale,
        len(carried),
        shift_l1=l1,
        shift_l2=l2,
        implied_epsilon=_implied_epsilon(kind, scale, l1),
        implied_rho=l2**2 / (2 * scale**2) if kind == "normal" and scale else None,
        rounding=rounding,
        declared_sensitivity=draw.declared_sensitivity,
    )


def _parameters_differ(draw, draw_prime) -> bool:
    """Whether two calls of one signature draw with other parameters (False where either cannot be read)."""
    a, b = draw.parameters, draw_prime.parameters
    return a is not None and b is not None and a != b


def _calibration(pipeline, x_prime, seed, i, bases, notes, moves) -> list:
    """Call ``i`` draws with other parameters on x and on x' (its scale, say): no shift is measured there.
    The run on x' is made again with each earlier noise draw moved by its measured shift, so that it
    releases what the run on x released before call ``i``. Where call ``i``'s parameters then match the
    run on x's, they follow those releases (adaptive, as post-processing allows): a note. Where they still
    differ, they are computed from the data: a noise-calibration finding. Where an earlier noise call has
    no measured scalar shift (a vector draw, noise no released value carries), a note says it was not told."""
    base_x, base_xp = bases
    draw, draw_prime = base_x.draws[i], base_xp.draws[i]
    described = (
        f"call {i} ({draw.method} at {draw.site}) draws with {_parameter_text(draw)} on x and "
        f"{_parameter_text(draw_prime)} on x'"
    )
    unaligned = [j for j in range(i) if noise_kind(base_x.draws[j].method) is not None and j not in moves]
    if unaligned:
        notes.append(
            f"{described}: no shift measured there, and whether they follow the earlier releases was not told "
            f"(the noise of call {unaligned[0]} reaches no released number alone, so it cannot be aligned)"
        )
        return []
    aligned = _run(pipeline, x_prime, seed, marker={j: h for j, h in moves.items() if j < i})
    if [d.signature for d in aligned.draws[: i + 1]] != [d.signature for d in base_x.draws[: i + 1]]:
        notes.append(
            f"{described}: no shift measured there, and whether they follow the earlier releases was not told "
            "(with those releases made equal, the run on x' made other calls up to this one)"
        )
        return []
    if not _parameters_differ(aligned.draws[i], draw):
        notes.append(
            f"{described}: with the earlier releases made equal they match, so they follow those releases, which "
            "an adaptive pipeline may do; no shift measured there"
        )
        return []
    return [
        ProbeFinding(
            "noise-calibration",
            draw.site,
            f"{described}, and still differ with every earlier release made equal: the noise is calibrated on the "
            "data (a sensitivity, bound or scale computed from the input), which leaks it unless the mechanism is "
            "built for that (smooth sensitivity, propose-test-release); no shift measured there",
            {"call": i},
        )
    ]


def _parameter_text(draw) -> str:
    scale = draw.scale()
    if scale is not None:
        return f"scale {scale:g}"
    return ", ".join(f"{name}={value!r}" for name, value in draw.parameters)


def _epsilon_per_unit(kind, scale):
    """The epsilon a shift of 1 spends at a noise call of ``kind`` with ``scale`` (None: not defined)."""
    if scale is None or kind == "normal":
        return None
    if kind == "geometric":
        return -math.log1p(-scale) if 0 < scale < 1 else None
    return 1.0 / scale if scale > 0 else math.inf


def _implied_epsilon(kind, scale, shift):
    per_unit = _epsilon_per_unit(kind, scale)
    return None if per_unit is None else (0.0 if shift == 0 else shift * per_unit)


def _exceeds(value, bound) -> bool:
    return value > bound * (1 + _RELATIVE_SLACK)


def _sensitivity_findings(calls, sensitivity) -> list:
    findings = []
    for call in calls:
        norm, shift = ("l2", call.shift_l2) if noise_kind(call.method) == "normal" else ("l1", call.shift_l1)
        declared = call.declared_sensitivity if call.declared_sensitivity is not None else sensitivity
        if declared is None:
            continue
        if call.components and shift - call.rounding > declared * (1 + _RELATIVE_SLACK):
            findings.append(
                ProbeFinding(
                    "sensitivity",
                    call.site,
                    f"the {call.method} noise at call {call.index} covers a query that moved by {shift:.6g} "
                    f"({norm}) between x and x', more than the declared sensitivity {declared:.6g}",
                    {"shift": shift, "sensitivity": declared, "excess": shift / declared},
                )
            )
    return findings


def _budget_findings(draws, draws_prime, calls, sensitivity, epsilon) -> list:
    if epsilon is None:
        return []
    measured = {c.index: c.implied_epsilon for c in calls}
    worst = None
    for run in (draws, draws_prime):
        spent, where = _spent(run, measured, sensitivity, epsilon)
        if where is not None and (worst is None or spent > worst[0]):
            worst = (spent, where)
    if worst is None:
        return []
    spent, draw = worst
    basis = f"declared sensitivity {sensitivity:g} over each scale" if sensitivity else "the measured shifts"
    return [
        ProbeFinding(
            "budget",
            draw.site,
            f"the Laplace and geometric calls spend epsilon {spent:.6g} ({basis}), more than the claimed total "
            f"{epsilon:g}; the claim is first exceeded at this call",
            {"spent": spent, "epsilon": epsilon},
        )
    ]


def _spent(run, measured, sensitivity, epsilon):
    """The epsilon the calls of one run spend, and the draw where the sum first exceeds ``epsilon``."""
    spent, where = 0.0, None
    for i, draw in enumerate(run):
        kind = noise_kind(draw.method)
        if kind not in EPSILON_METHODS:
            continue
        declared = draw.declared_sensitivity if draw.declared_sensitivity is not None else sensitivity
        if declared is not None:
            per_unit = _epsilon_per_unit(kind, draw.scale())
            charge = None if per_unit is None else declared * per_unit
        else:
            charge = measured.get(i)
        spent += charge or 0.0
        if where is None and _exceeds(spent, epsilon):
            where = draw
    return spent, where


# -- searching pairs -----------------------------------------------------------------------------


def _score(report: ProbeReport) -> tuple:
    if report.sensitivity or any(c.declared_sensitivity for c in report.calls):
        return (report.flagged, report.excess())
    shifts = [norm_shift(c) for c in report.calls if c.components]
    return (report.flagged, max(shifts, default=0.0))


def _search(pipeline, pairs, seed, max_examples, sensitivity, epsilon):
    checked = _checked(pipeline, seed, sensitivity, epsilon)
    max_examples = check_positive_int(max_examples, "max_examples")
    if _is_strategy(pairs):
        return _search_strategy(pipeline, pairs, checked, max_examples)
    best, count = None, 0
    for x, x_prime in check_pairs(pairs):
        report = _probe(pipeline, x, x_prime, *checked)
        count += 1
        if best is None or _score(report) > _score(best[0]):
            best = (report, (x, x_prime))
    return _with_count(best[0], count), best[1]


def _is_strategy(pairs) -> bool:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:
        return False
    return isinstance(pairs, SearchStrategy)


def _search_strategy(pipeline, strategy, checked, max_examples):
    """Generate ``max_examples`` pairs (Hypothesis, targeted at the score); where the worst has a finding,
    generate them again from the same seed until it appears, and let Hypothesis shrink it to the
    simplest pair that scores as high."""
    from hypothesis import HealthCheck, Phase, find, settings, target
    from hypothesis.errors import NoSuchExample

    seen = {"best": None, "count": 0}

    def reaches(threshold):
        def condition(pair):
            x, x_prime = _as_pair(pair)
            score = _score(_probe(pipeline, x, x_prime, *checked))
            seen["count"] += 1
            target(float(score[0]) * 1e6 + min(score[1], 1e5), label="probe score")
            if seen["best"] is None or score > seen["best"][0]:
                seen["best"] = (score, pair)
            return threshold is not None and score >= threshold

        return condition

    def search(threshold, phases):
        options = settings(
            max_examples=max_examples,
            database=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
            deadline=None,
        )
        return find(strategy, reaches(threshold), settings=options, random=random.Random(checked[0]))

    with contextlib.suppress(NoSuchExample):
        search(None, [Phase.generate, Phase.target])
    if seen["best"] is None:
        raise InvalidParameterError("the strategy of pairs generated no pair to probe")
    best_score, shrunk = seen["best"]
    if best_score[0]:  # something found: shrink it (a pair with no finding is reported as generated)
        with contextlib.suppress(NoSuchExample):  # the second pass did not meet it again: keep it unshrunk
            shrunk = search(best_score, [Phase.generate, Phase.target, Phase.shrink])
    x, x_prime = _as_pair(shrunk)
    report = _probe(pipeline, x, x_prime, *checked)
    return _with_count(report, seen["count"]), (x, x_prime)


def _as_pair(pair):
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise InvalidParameterError(f"the strategy must generate (x, x_prime) pairs, got {short_repr(pair)}")
    return pair


def _with_count(report: ProbeReport, count: int) -> ProbeReport:
    from dataclasses import replace

    return replace(report, pairs_probed=count)
