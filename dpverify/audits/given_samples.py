"""Auditing samples you already have: arrays, lists, ``.npy`` files or streams of chunks.

Samples from a slow library, from a production log, or re-audited with other
event families need no mechanism: :func:`audit_samples` runs the same
select-then-certify audit as :func:`dpverify.audit` on them. The split is
fixed before any sample is looked at: the first ``n_selection`` samples of
each input choose the event, all later ones certify it (streamed, so a
memory-mapped ``.npy`` file or a generator of chunks larger than memory is
fine). The guarantee needs what the split assumes: **the samples of each
input are i.i.d. in the order given** (not sorted, not grouped by value).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import replace

import numpy as np

from .. import _validation as check
from ..errors import InsufficientSamplesError, InvalidParameterError
from ..options import AuditOptions
from ..pipeline.outputs import apply_output_key
from ..pipeline.sampling import concatenate_outputs
from ..pipeline.selection import MIN_SELECTION, default_selection_size
from ..support.bounds import minimum_certifying_samples
from .certification import audit_result
from .choosing import select_for_claim
from .drivers import Driver
from .plan import build_plan, claim_words
from .results import AuditResult

__all__ = ["audit_samples"]

#: Samples encoded and counted at once while certifying.
BLOCK = 1 << 20


def _open(source, name: str):
    """``(iterator of blocks, length or None)`` for one source of samples."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if not path.endswith(".npy"):
            raise InvalidParameterError(f"{name}: only .npy files can be read, got {path!r}")
        try:
            source = np.load(path, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InvalidParameterError(f"{name}: cannot read {path!r} as a .npy array ({exc})") from exc
    if isinstance(source, np.ndarray):
        if source.ndim == 0:
            raise InvalidParameterError(f"{name} must be an array whose first axis indexes samples")
        return (source[i : i + BLOCK] for i in range(0, len(source), BLOCK)), len(source)
    if isinstance(source, (list, tuple)):
        return (source[i : i + BLOCK] for i in range(0, len(source), BLOCK)), len(source)
    try:
        return _chunks(iter(source), name), None  # an iterable of chunks
    except TypeError:
        raise InvalidParameterError(
            f"{name} must be an array, a list of outputs, a path to a .npy file, or an iterable "
            f"of chunks, got {type(source).__name__}"
        ) from None


def _chunks(blocks, name: str):
    """The chunks of an iterable of chunks, each checked to be a sequence of samples (an array or a list)."""
    for i, block in enumerate(blocks):
        if isinstance(block, (str, bytes)) or not hasattr(block, "__len__"):
            raise InvalidParameterError(
                f"{name}: an iterable is read as chunks of samples (arrays or lists), but chunk {i} is "
                f"{type(block).__name__} {block!r:.40}; pass the samples as one array or list instead"
            )
        yield block


def _take(blocks, n: int):
    """The first ``n`` samples of a stream of blocks, and the stream of what follows."""
    parts, have = [], 0
    for block in blocks:
        if have + len(block) >= n:
            cut = n - have
            parts.append(block[:cut])
            rest = block[cut:]
            return concatenate_outputs(parts), itertools.chain([rest] if len(rest) else [], blocks), n
        parts.append(block)
        have += len(block)
    return concatenate_outputs(parts), iter(()), have


def _count(blocks, codec, indicators, output_key) -> tuple[np.ndarray, int]:
    counts = np.zeros(len(indicators), dtype=np.int64)
    n = 0
    for block in blocks:
        encoded = codec.encode(
            apply_output_key(np.asarray(block) if isinstance(block, np.memmap) else block, output_key)
        )
        for i, indicator in enumerate(indicators):
            counts[i] += int(np.count_nonzero(indicator(encoded)))
        n += len(encoded)
    return counts, n


def _split(plan, samples_x, samples_x_prime, required: int):
    """The first ``n_selection`` samples of each input, the streams of the rest, and the plan with the split.

    ``n_selection`` is the options' or :func:`~dpverify.pipeline.selection.default_selection_size` of the
    smaller sample when both lengths are known (else :data:`~dpverify.pipeline.selection.MIN_SELECTION`);
    the certification size the selection predicts with is the smaller rest (or nine times the selection).
    """
    blocks_x, len_x = _open(samples_x, "samples_x")
    blocks_xp, len_xp = _open(samples_x_prime, "samples_x_prime")
    n_selection = plan.options.n_selection
    if n_selection is None:
        known = [n for n in (len_x, len_xp) if n is not None]
        n_selection = default_selection_size(min(known)) if len(known) == 2 else MIN_SELECTION
    n_selection = check.check_positive_int(n_selection, "n_selection")
    sel_x, rest_x, got_x = _take(blocks_x, n_selection)
    sel_xp, rest_xp, got_xp = _take(blocks_xp, n_selection)
    if min(got_x, got_xp) < n_selection:
        raise InsufficientSamplesError(
            f"n_selection={n_selection} but only {got_x} samples of x and {got_xp} of x' were given; "
            "pass fewer selection samples or more samples",
            required=n_selection + required,
        )
    output_key = plan.options.output_key
    sel_x, sel_xp = apply_output_key(sel_x, output_key), apply_output_key(sel_xp, output_key)
    known = [n - n_selection for n in (len_x, len_xp) if n is not None]
    expected = min(known) if known else 9 * n_selection  # unknown lengths: as a 10% split would
    plan = plan.with_selection(n_selection, max(1, expected))
    return plan, (sel_x, sel_xp), (rest_x, rest_xp)


def audit_samples(
    samples_x,
    samples_x_prime,
    *,
    epsilon=None,
    delta=None,
    claim=None,
    inputs=None,
    options: AuditOptions | None = None,
    **option_fields,
) -> AuditResult:
    """Audit a privacy claim on given samples of M(x) and M(x'), in the form the claim is stated.

    Scores that an auditor of a training run already computes (a canary's loss or
    membership score when it was included, ``samples_x``, and when it was not,
    ``samples_x_prime``) are outputs like any other: with ``claim=PrivacyClaim.gdp(mu)``
    the threshold is chosen on the first ``n_selection`` scores and certified on the rest,
    so the Gaussian DP lower bound stays valid on null scores (identical distributions
    flag a violation with probability at most ``alpha``). That needs each score to be an
    independent draw of M(x) or of M(x') for one fixed pair: one canary per independent
    training run. The scores of many canaries from one run share one model and are not
    i.i.d.; audit them with :func:`dpverify.one_run_audit` (an (epsilon, delta) bound,
    Steinke, Nasr and Jagielski 2023) or :func:`dpverify.one_run_fdp_audit` (a Gaussian DP
    bound and claims with a trade-off curve, Mahloujifar, Melis and Chaudhuri 2025), whose
    guarantees rest on the canaries' random inclusion bits.

    Parameters
    ----------
    samples_x, samples_x_prime : array, list, path or iterable
        Outputs of M(x) and of M(x'), each i.i.d. in the order given: a numpy
        array (first axis indexes samples), a list of outputs, a path to a
        ``.npy`` file (memory-mapped), or any other iterable, read as a stream
        of *chunks* (each an array or a list of outputs).
    epsilon, delta, claim
        The claim, as for :func:`dpverify.audit` (there is no mechanism to state one):
        ``epsilon`` (and ``delta``, default 0), or ``claim`` of any kind.
    inputs : tuple, optional
        ``(x, x_prime)``, the inputs the samples came from, for the
        input-aware event families (floating-point reachability).
    options : AuditOptions, optional
        As for :func:`dpverify.audit`, recorded in the result. ``n_selection``:
        the first ``n_selection`` samples of each input choose the event; the
        rest certify it (default: :func:`dpverify.pipeline.selection.default_selection_size`
        of the smaller sample when both lengths are known, else 20,000).
        ``executor`` and ``n_chunks`` describe sampling, and there is none here:
        setting them is an error.
    **option_fields
        Any field of :class:`~dpverify.AuditOptions` as a keyword.

    Returns
    -------
    AuditResult
        ``seed`` is None and ``replayable`` False: the samples are given.

    Raises
    ------
    InsufficientSamplesError
        Fewer samples than the split needs, or too few certification samples to
        certify any violation at ``alpha``.

    Examples
    --------
    >>> import numpy as np, dpverify
    >>> rng = np.random.default_rng(1)
    >>> a = rng.integers(0, 2, 50_000)  # a fair coin...
    >>> b = (rng.random(50_000) < 0.9).astype(int)  # ...and a biased one
    >>> dpverify.audit_samples(a, b, epsilon=0.5).violation
    True
    """
    claimed = (epsilon, delta, claim)  # the split is known once the samples are opened (sizes=None)
    plan = build_plan(DRIVER, None, inputs, claimed, None, None, options, option_fields, sizes=None, given=True)
    required = minimum_certifying_samples(plan.epsilon, plan.delta, plan.alpha)
    plan, (sel_x, sel_xp), (rest_x, rest_xp) = _split(plan, samples_x, samples_x_prime, required)
    output_key = plan.options.output_key
    selection = select_for_claim(plan, sel_x, sel_xp, inputs=inputs)
    del sel_x, sel_xp
    indicators = [c.event.indicator for c in selection.choices]
    counts_x, n_x = _count(rest_x, selection.codec, indicators, output_key)
    counts_xp, n_xp = _count(rest_xp, selection.codec, indicators, output_key)
    if min(n_x, n_xp) < required:
        raise InsufficientSamplesError(
            f"after the {plan.n_selection} selection samples, {n_x} samples of x and {n_xp} of x' are left "
            f"to certify; at least {required} of each are needed to certify a violation of "
            f"{claim_words(plan.claim)} at alpha={plan.alpha:g}",
            required=plan.n_selection + required,
        )
    result = audit_result(selection, counts_x, counts_xp, n_x, n_xp, **plan.result_fields())
    return replace(
        result, replayable=False, notes=result.notes + ("audit of given samples: there is no seed to replay",)
    )


#: Given samples: no seed, no streams, nothing to replay.
DRIVER = Driver("audit_samples", AuditResult)
