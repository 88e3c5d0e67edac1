"""Audit reports a reviewer can read: HTML with an embedded figure, or Markdown.

Extra: ``pip install 'dpverify[plot]'`` (matplotlib) for the figures; Markdown works without it.

:func:`write_report` shows

- the verdict, the claim, the certified lower bounds on epsilon and delta
  with their confidence, and the p-value;
- the certified event S, its counts on the certification samples, the
  Clopper-Pearson intervals behind the bound, and ``e^eps`` times the smaller
  probability (what the claim allows);
- both output distributions, re-drawn by replaying the audit's seed (an audit
  is a deterministic function of its seed, :mod:`dpverify.pipeline.sampling`), and
  whether the replay reproduced the audit's event and counts;
- the looks of a sequential audit.

Formats: a path ending in ``.md`` gives Markdown (and a PNG next to it when
matplotlib is installed); any other path gives one self-contained HTML file
with the figure embedded as base64 PNG. Without matplotlib an HTML request
falls back to Markdown without the figure, written next to the requested path
with the suffix ``.md`` (the returned path says where).
"""

from __future__ import annotations

import base64
import html
import inspect
import io
import numbers
import warnings
from pathlib import Path

import numpy as np

from ..audits.findings import finding_lines
from ..audits.pair import DRIVER as AUDIT
from ..audits.pair import selection_samples
from ..audits.results import AuditResult
from ..pipeline.outputs import encode_outputs
from ..pipeline.sampling import DEFAULT_CHUNKS, children, draw, resolve_seed
from ..support.bounds import clopper_pearson_lower, clopper_pearson_upper

__all__ = ["write_report", "replay_samples", "report_markdown", "event_membership", "figure_caption"]

#: Replays larger than this draw a smaller, still seeded, sample for the figure only.
DEFAULT_MAX_REPLAY = 1_000_000
#: Discrete outputs shown individually in the figure (the rest are summed).
MAX_BARS = 30


def _is_sequential(result) -> bool:
    return hasattr(result, "looks") and hasattr(result, "schedule") and bool(result.schedule)


def replay_samples(
    result: AuditResult, mechanism, x, x_prime, *, max_samples: int = DEFAULT_MAX_REPLAY, executor=None, output_key=None
):
    """Re-draw the audit's selection samples of M(x) and M(x') from ``result.seed``.

    An audit holds only its selection samples in memory (it streams the
    certification ones), so these are what a figure shows. For a fixed audit
    that records its options they are exactly the samples the audit chose its
    event on (:func:`dpverify.audits.pair.selection_samples`, a grown
    selection included); for a sequential audit, a result without options, or
    more than ``max_samples``, ``max_samples`` samples per input are drawn from
    the audit's seed (the same distributions, not the audit's samples).

    Returns
    -------
    raw_x, raw_x_prime : list or numpy.ndarray
    exact : bool
        True when these are the audit's own selection samples.
    """
    exact = not _is_sequential(result) and result.options is not None and result.n_selection <= max_samples
    if exact:
        raw_x, raw_xp = selection_samples(result, mechanism, x, x_prime, executor=executor)
        return raw_x, raw_xp, True
    sequence, _ = resolve_seed(result.seed)
    seed_x, seed_x_prime = children(sequence, 2)
    size = min(max_samples, result.n_samples)
    common = dict(executor=executor, n_chunks=DEFAULT_CHUNKS, output_key=output_key)
    raw_x = draw(mechanism, x, size, seed_x, label="x", **common)
    raw_xp = draw(mechanism, x_prime, size, seed_x_prime, label="x_prime", **common)
    return raw_x, raw_xp, exact


def _check_replay(result, mechanism, x, x_prime, executor=None) -> str:
    """Re-run the audit from the result alone (:func:`dpverify.replay`); say if its event and counts came back."""
    if result.options is None:
        return "not re-checked: the result does not record the options it ran with (saved by an older dpverify)"
    from ..audits.replay import replay
    from ..errors import NotReplayableError, ReplayMismatchError

    try:
        again = replay(result, mechanism, x, x_prime, executor=executor)
    except ReplayMismatchError as exc:  # its fingerprint: not the mechanism, inputs or seed it was computed on
        return f"did NOT reproduce: {exc}"
    except NotReplayableError as exc:
        return f"not re-checked: {exc}"
    a, b = again.event, result.event
    if (a.description, a.count_x, a.count_x_prime) == (b.description, b.count_x, b.count_x_prime):
        return "reproduced the audit's event and counts"
    return "did NOT reproduce the audit's event and counts (does the mechanism ignore its rng?)"


def _intervals(result):
    """Clopper-Pearson bounds behind the certified bound (each one-sided at 1 - alpha/2)."""
    ev = result.event
    n = ev.n_certification
    alpha = result.looks[-1].alpha if _is_sequential(result) else result.alpha
    (p_count, q_count) = (ev.count_x, ev.count_x_prime) if ev.direction == "x" else (ev.count_x_prime, ev.count_x)
    p_lo = float(clopper_pearson_lower(p_count, n, alpha))
    q_hi = float(clopper_pearson_upper(q_count, n, alpha))
    return p_lo, q_hi, alpha


def _fmt(v: float) -> str:
    return f"{v:.6g}"


def _evidence_rows(result) -> list[tuple[str, str]]:
    """The rows of the certified evidence: the cells and their counts, or the event S, its counts and its
    Clopper-Pearson box (with what the claim allows on it, where its kind says: ``ClaimKind.allows``)."""
    part = result.partition
    if part is not None:
        return [
            ("cells", str(part)),
            ("cell counts under x", ", ".join(str(c) for c in part.counts_x)),
            ("cell counts under x'", ", ".join(str(c) for c in part.counts_x_prime)),
        ]
    ev = result.event
    p_lo, q_hi, level = _intervals(result)
    more, less = ("x", "x'") if ev.direction == "x" else ("x'", "x")
    box = f"P[M({more}) in S] >= {_fmt(p_lo)}, P[M({less}) in S] <= {_fmt(q_hi)}"
    claim = result.audited_claim
    if claim.kind_record.allows is not None:
        allowed, formula = claim.kind_record.allows(claim, q_hi)
        box += f"; the claim allows P[M({more}) in S] <= {formula.format(q=_fmt(q_hi))} = {_fmt(allowed)}"
    return [
        ("event S", f"{ev.description} [family: {ev.family}]"),
        ("P[M(x) in S]", f"{_fmt(ev.probability_x)} ({ev.count_x} of {ev.n_certification})"),
        ("P[M(x') in S]", f"{_fmt(ev.probability_x_prime)} ({ev.count_x_prime} of {ev.n_certification})"),
        (f"Clopper-Pearson bounds (level {level:.3g})", box),
    ]


def _facts(result, replayed: str, mechanism, x, x_prime) -> list[tuple[str, str]]:
    """The report's rows, for every claim kind: the claim and its certified bound in the kind's words
    (``ClaimKind.report_rows``), the evidence, the samples, the seed, findings, notes and the driver's rows."""
    claim = result.audited_claim
    what, them = ("the cells", "them") if result.partition is not None else ("S", "it")
    rows = [
        ("mechanism", _describe_mechanism(mechanism)),
        ("inputs", f"x = {_short(x)}, x' = {_short(x_prime)}"),
        ("claim", f"{claim} [{claim.kind_record.title}]"),
        (
            "verdict",
            ("VIOLATION" if result.violation else "no violation found")
            + f" at alpha = {result.alpha:g} (p-value {result.pvalue:.3g})",
        ),
        *claim.kind_record.report_rows(result),
        *_evidence_rows(result),
        (
            "samples per input",
            f"{result.n_samples} ({result.n_selection} to choose {what} among "
            f"{result.n_candidates} candidates, {result.event.n_certification} to certify {them})",
        ),
        ("seed", f"{result.seed!r} (replay: {replayed})"),
    ]
    rows += [("floating-point events", line) for line in finding_lines(result)]
    rows.append(("kind of finding", result.finding))
    if not result.replayable:
        rows.append(("replay", "the mechanism did not draw from the rng it was given: the seed does not replay it"))
    for note in result.notes:
        rows.append(("note", note))
    rows += _search_rows(result)
    if _is_sequential(result):
        stop = "stopped early" if result.stopped_early else "used the whole budget"
        rows.append(
            (
                "sequential audit",
                f"{stop}: {result.n_samples} of {result.budget} samples per input, "
                f"{len(result.looks)} of {len(result.schedule)} looks",
            )
        )
    return rows


def _search_rows(result) -> list[tuple[str, str]]:
    """For a search audit: where the pair came from, and every candidate with its screening estimate."""
    candidates = getattr(result, "candidates", None)
    if not candidates:
        return []
    rows = [
        (
            "search",
            f"the pair above is the best of {len(candidates)} candidates from {result.neighbours}, screened on "
            f"{result.n_screening} samples per input (successive halving); it was certified on fresh samples; "
            f"predicted bounds {result.predicted_bound_scale}",
        )
    ]
    ranked = sorted(range(len(candidates)), key=lambda i: -candidates[i].predicted_bound)
    for i in ranked:
        c = candidates[i]
        chosen = " (chosen)" if i == result.chosen else ""
        rows.append(
            (
                f"candidate {i}{chosen}",
                f"x = {_short(c.x, 60)}, x' = {_short(c.x_prime, 60)}: predicted bound {_fmt(c.predicted_bound)} "
                f"after {c.rounds} round(s), {c.n_screened} samples per input; {c.event}",
            )
        )
    return rows


def _describe_mechanism(mechanism) -> str:
    """``module:function`` for functions and classes; ``module.Class(attr=value, ...)`` from an
    instance's scalar attributes; else the repr."""
    if inspect.isfunction(mechanism) or inspect.isbuiltin(mechanism) or inspect.isclass(mechanism):
        return f"{getattr(mechanism, '__module__', None) or '?'}:{mechanism.__qualname__}"
    if inspect.ismethod(mechanism):
        owner = mechanism.__self__
        return f"{_describe_mechanism(owner)}.{mechanism.__func__.__name__}"
    kind = type(mechanism)
    if type(mechanism).__repr__ is not object.__repr__ or not hasattr(mechanism, "__dict__"):
        return _short(mechanism)
    attrs = ", ".join(
        f"{k}={v!r}"
        for k, v in vars(mechanism).items()
        if not k.startswith("_") and isinstance(v, (int, float, str, bool))
    )
    text = f"{kind.__module__}.{kind.__qualname__}({attrs})"
    return text if len(text) <= 240 else text[:237] + "..."


def _short(value, limit: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _looks_rows(result):
    return [
        (
            str(look.n_samples),
            f"{look.alpha:.3g}",
            f"{look.pvalue:.3g}",
            _fmt(look.epsilon_lower_bound),
            "yes" if look.violation else "no",
            look.event,
        )
        for look in result.looks
    ]


# --------------------------------------------------------------------------
# figure
# --------------------------------------------------------------------------


def event_membership(result, raw_x, raw_x_prime, exact: bool, x, x_prime):
    """Which replayed outputs lie in the certified event S: two boolean arrays, or None.

    S is re-derived by running the audit's selection again on its own selection samples (``exact``;
    a fixed-pair audit that records its options): selection is a deterministic function of them, so
    the event whose description is the result's is the certified one. None for a search or
    sequential audit, a figure drawn from other samples, or an event that did not come back.
    """
    if not exact or _is_sequential(result) or hasattr(result, "candidates") or result.options is None:
        return None
    if result.partition is not None:  # cells partition the output space: no one event S to mark
        return None
    from ..audits.choosing import select_for_claim
    from ..audits.plan import plan_of_result

    plan = plan_of_result(result, AUDIT).with_selection(result.n_selection, result.event.n_certification)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        selection = select_for_claim(plan, raw_x, raw_x_prime, inputs=(x, x_prime))
    for choice in (*selection.verdict_choices, *selection.value_choices):
        if choice.event.description == result.event.description:
            indicator, codec = choice.event.indicator, selection.codec
            return (
                np.asarray(indicator(codec.encode(raw_x)), dtype=bool),
                np.asarray(indicator(codec.encode(raw_x_prime)), dtype=bool),
            )
    return None


def figure_caption(result, n_replayed: int, marked: bool) -> str:
    """The figure's caption: the samples behind each panel, and behind the bound."""
    ev = result.event
    n = ev.n_certification
    left = f"Left: {n_replayed} replayed samples per input"
    if result.n_selection <= n_replayed and result.options is not None:
        left += " (the selection samples the event S was chosen on)"
    left += ", in value order; " + (
        "S shaded." if marked else "S not marked (it is re-derived only from the audit's own selection samples)."
    )
    right = (
        f"Right: S on {n} fresh certification samples per input, {ev.count_x} of {n} under M(x) and "
        f"{ev.count_x_prime} of {n} under M(x'), with their Clopper-Pearson intervals: the counts behind "
        f"eps >= {result.epsilon_lower_bound:.4g} at {100 * (1 - result.alpha):.6g}% confidence."
    )
    return f"{left} {right}"


def _figure_png(result, outputs, membership=None) -> bytes | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    ex, exp_ = outputs.groups
    if outputs.kind == "discrete":
        _discrete_panel(left, ex, exp_, outputs.labels, membership)
    else:
        _real_panel(left, ex, exp_, membership)
    _event_panel(right, result)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    plt.close(fig)
    return buffer.getvalue()


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _value_key(label):
    """A sort key in value order: numbers by value, tuples entry by entry, anything else by its repr."""
    if isinstance(label, (bool, np.bool_)):
        return (0, int(label), "")
    if isinstance(label, numbers.Real):
        return (0, float(label), "")
    if isinstance(label, tuple):
        return (1, 0.0, tuple(_value_key(v) for v in label))
    return (2, 0.0, repr(label))


def bars_in_value_order(a, b, labels, limit: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``limit`` most frequent codes, in the value order of their labels, and the others.

    The histogram of discrete outputs shows these bars left to right (then "other"), so a
    reader sees the distribution's shape (0, 1, 2, ...), not a ranking by frequency.
    """
    order = np.argsort(-(np.asarray(a) + np.asarray(b)), kind="stable")
    shown = sorted(order[:limit].tolist(), key=lambda c: _value_key(labels[c]))
    return np.asarray(shown, dtype=np.int64), order[limit:]


def _discrete_panel(ax, ex, exp_, labels, membership=None):
    k = len(labels)
    a = np.bincount(ex, minlength=k) / max(1, len(ex))
    b = np.bincount(exp_, minlength=k) / max(1, len(exp_))
    shown, rest = bars_in_value_order(a, b, labels, MAX_BARS)
    names = [_short(labels[c], 18) for c in shown]
    if k > MAX_BARS:
        names.append(f"other ({k - MAX_BARS})")
        a_shown = np.append(a[shown], a[rest].sum())
        b_shown = np.append(b[shown], b[rest].sum())
    else:
        a_shown, b_shown = a[shown], b[shown]
    pos = np.arange(len(names))
    ax.bar(pos - 0.2, a_shown, width=0.4, label="M(x)")
    ax.bar(pos + 0.2, b_shown, width=0.4, label="M(x')")
    if membership is not None:  # a code is in S when its outputs are (S is a set of outputs)
        in_s = np.zeros(k, dtype=bool)
        in_s[ex[membership[0]]] = True
        in_s[exp_[membership[1]]] = True
        marked = np.append(in_s[shown], False) if k > MAX_BARS else in_s[shown]
        top = np.maximum(a_shown, b_shown)
        ax.bar(pos[marked], top[marked], width=0.85, fill=False, hatch="//", edgecolor="k", linewidth=0.5, label="in S")
    ax.set_xticks(
        pos, names, rotation=60 if len(names) > 6 else 0, ha="right" if len(names) > 6 else "center", fontsize=7
    )
    ax.set_ylabel("frequency")
    ax.set_title(f"output distributions ({len(ex)} replayed samples per input)")
    ax.legend()


def _real_panel(ax, ex, exp_, membership=None):
    coordinate = "output" if ex.shape[1] == 1 else "output[0]"
    vx, vxp = ex[:, 0], exp_[:, 0]
    pooled = np.concatenate([vx, vxp])
    finite = pooled[np.isfinite(pooled)]
    lo, hi = np.quantile(finite, [0.005, 0.995]) if finite.size else (0.0, 1.0)
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    bins = np.linspace(lo, hi, 81)
    ax.hist(vx, bins=bins, density=True, histtype="step", linewidth=1.5, label="M(x)")
    ax.hist(vxp, bins=bins, density=True, histtype="step", linewidth=1.5, label="M(x')")
    if membership is not None:  # the outputs in S, at the scale of the whole sample's density
        width = bins[1] - bins[0]
        for values, inside, color, who in ((vx, membership[0], "C0", "M(x)"), (vxp, membership[1], "C1", "M(x')")):
            weights = np.full(int(inside.sum()), 1.0 / (len(values) * width))
            ax.hist(values[inside], bins=bins, weights=weights, alpha=0.3, color=color, label=f"in S, {who}")
    ax.set_xlabel(coordinate + " (central 99% of the pooled samples)")
    ax.set_ylabel("density")
    ax.set_title(f"output distributions ({len(ex)} replayed samples per input)")
    ax.legend()


def _cells_panel(ax, result):
    """The certified cells' estimated probabilities under both inputs, side by side."""
    part = result.partition
    n_x, n_xp = part.n_certification, part.n_certification_x_prime or part.n_certification
    cells = np.arange(len(part.counts_x))
    ax.bar(cells - 0.2, np.asarray(part.counts_x) / n_x, width=0.4, label="M(x)")
    ax.bar(cells + 0.2, np.asarray(part.counts_x_prime) / n_xp, width=0.4, label="M(x')")
    ax.set_xlabel("cell")
    ax.set_title(
        f"{len(cells)} cells; {result.claim.parameter_name} >= {result.claim_lower_bound:.3g} "
        f"({100 * (1 - result.alpha):.6g}% conf.)",
        fontsize=9,
    )
    ax.legend(fontsize=7)


def _event_panel(ax, result):
    """The certified event's estimated probabilities with their Clopper-Pearson intervals, and the most the
    claim allows where its kind says (``ClaimKind.allows``); the cells instead where cells were certified."""
    if result.partition is not None:
        return _cells_panel(ax, result)
    ev = result.event
    n = ev.n_certification
    alpha = result.looks[-1].alpha if _is_sequential(result) else result.alpha
    counts = [ev.count_x, ev.count_x_prime]
    estimates = [c / n for c in counts]
    lows = [float(clopper_pearson_lower(c, n, alpha)) for c in counts]
    highs = [float(clopper_pearson_upper(c, n, alpha)) for c in counts]
    yerr = np.array([[e - l for e, l in zip(estimates, lows)], [h - e for e, h in zip(estimates, highs)]])
    ax.bar([0, 1], estimates, yerr=np.maximum(yerr, 0), capsize=6, color=["C0", "C1"])
    ax.set_xticks([0, 1], ["P[M(x) in S]", "P[M(x') in S]"])
    claim = result.audited_claim
    ax.set_title(
        f"event S; {claim.parameter_name} >= {result.claim_lower_bound:.3g} ({100 * (1 - result.alpha):.6g}% conf.)",
        fontsize=9,
    )
    top = max(highs)
    if claim.kind_record.allows is not None:
        value, formula = claim.kind_record.allows(claim, highs[1 if ev.direction == "x" else 0])
        allowed = min(1.0, value)
        label = f"claim allows up to {formula.format(q='upper')} = {allowed:.3g}"
        ax.axhline(allowed, color="k", linestyle="--", linewidth=1, label=label)
        ax.legend(fontsize=7, loc="upper center")
        top = max(top, allowed)
    ax.set_ylim(0, 1.3 * top)


# --------------------------------------------------------------------------
# documents
# --------------------------------------------------------------------------


def report_markdown(result, facts, figure_name: str | None = None, caption: str = "") -> str:
    """The report as Markdown (``figure_name``: a PNG file to link, if any; ``caption`` under it)."""
    lines = ["# dpverify audit report", "", "| | |", "|---|---|"]
    for key, value in facts:
        cell = value.replace("|", "\\|")
        lines.append(f"| {key} | {cell} |")
    if _is_sequential(result):
        lines += [
            "",
            "## Looks of the sequential audit",
            "",
            "| samples per input | level | p-value | eps lower bound | rejected | event |",
            "|---|---|---|---|---|---|",
        ]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in _looks_rows(result)]
    lines.append("")
    if figure_name:
        lines += [f"![output distributions and the certified event]({figure_name})", ""]
        if caption:
            lines += [f"*{caption}*", ""]
    else:
        lines += ["(no figure: matplotlib is not installed)", ""]
    return "\n".join(lines)


_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; font-size: 14px; }
.violation { color: #b00020; font-weight: bold; } .ok { color: #1b7f2a; font-weight: bold; }
img { max-width: 100%; }
"""


def _report_html(result, facts, png: bytes | None, caption: str = "") -> str:
    rows = []
    for key, value in facts:
        cls = ""
        if key == "verdict":
            cls = ' class="violation"' if result.violation else ' class="ok"'
        rows.append(f"<tr><th>{html.escape(key)}</th><td{cls}>{html.escape(value)}</td></tr>")
    parts = [
        "<!DOCTYPE html>",
        "<html><head><meta charset='utf-8'><title>dpverify audit report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>dpverify audit report</h1>",
        "<table>" + "".join(rows) + "</table>",
    ]
    if png is not None:
        encoded = base64.b64encode(png).decode("ascii")
        parts.append(
            "<figure><img alt='output distributions and the certified event' "
            f"src='data:image/png;base64,{encoded}'><figcaption>{html.escape(caption)}</figcaption></figure>"
        )
    if _is_sequential(result):
        head = "".join(
            f"<th>{h}</th>" for h in ("samples per input", "level", "p-value", "eps lower bound", "rejected", "event")
        )
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in _looks_rows(result)
        )
        parts.append(f"<h2>Looks of the sequential audit</h2><table><tr>{head}</tr>{body}</table>")
    parts.append(
        "<p>Bounds are Clopper-Pearson lower confidence bounds on fresh samples the event "
        "was not chosen on (see dpverify.audit). The figure re-draws the samples from the "
        "recorded seed.</p></body></html>"
    )
    return "\n".join(parts)


def write_report(
    result: AuditResult,
    path,
    *,
    mechanism,
    x,
    x_prime,
    max_replay_samples: int = DEFAULT_MAX_REPLAY,
    executor=None,
) -> Path:
    """Write a report of ``result`` (an audit of ``mechanism`` on ``x``, ``x_prime``) to ``path``.

    Parameters
    ----------
    result : AuditResult or SequentialAuditResult
        What :func:`dpverify.audit` (or :func:`dpverify.sequential_audit`) returned.
    path : str or pathlib.Path
        ``*.md``: Markdown, plus ``<path>.png`` when matplotlib is installed;
        anything else: one self-contained HTML file.
    mechanism, x, x_prime
        The audited mechanism and inputs: the figure replays ``result.seed``.
    max_replay_samples : int, default 1_000_000
        Largest replay per input (larger audits get a smaller seeded sample in
        the figure, and no reproduction check).
    executor : optional
        Where the replay's sampling chunks run (as for :func:`dpverify.audit`).

    Returns
    -------
    pathlib.Path
        The file written (``.md`` instead of HTML when matplotlib is missing).
    """
    path = Path(path)
    output_key = None if result.options is None else result.options.output_key
    raw_x, raw_xp, exact = replay_samples(
        result, mechanism, x, x_prime, max_samples=max_replay_samples, executor=executor, output_key=output_key
    )
    outputs = encode_outputs(raw_x, raw_xp)
    if hasattr(result, "candidates"):  # a search audit replays from its neighbours, not from one pair
        replayed = "search audit: counts not re-checked here (replay it from its neighbours)"
    elif result.n_samples <= max_replay_samples:
        replayed = _check_replay(result, mechanism, x, x_prime, executor)
    else:
        replayed = f"figure from {len(raw_x)} re-drawn samples per input; counts not re-checked"
    facts = _facts(result, replayed, mechanism, x, x_prime)
    membership = event_membership(result, raw_x, raw_xp, exact, x, x_prime) if _has_matplotlib() else None
    png = _figure_png(result, outputs, membership)
    caption = figure_caption(result, len(raw_x), membership is not None)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix.lower() in (".md", ".markdown"):
        figure_name = None
        if png is not None:
            figure = path.with_suffix(".png")
            figure.write_bytes(png)
            figure_name = figure.name
        path.write_text(report_markdown(result, facts, figure_name, caption), encoding="utf-8")
        return path
    if png is None:
        markdown_path = path.with_suffix(".md")
        warnings.warn(
            f"matplotlib is not installed: writing Markdown without the figure to {markdown_path}", stacklevel=2
        )
        markdown_path.write_text(report_markdown(result, facts, None), encoding="utf-8")
        return markdown_path
    path.write_text(_report_html(result, facts, png, caption), encoding="utf-8")
    return path
