"""Choosing what to certify, on selection samples alone: the events of a pair, and the pair of a search.

- :func:`select_for_claim`: the frozen events (or cells) that certify the plan's claim, chosen on a
  pair's selection samples; every driver that selects calls it, the same way
  (:func:`dpverify.audit`, :func:`dpverify.search_audit` for its chosen pair,
  :func:`dpverify.sequential_audit` at each look, :func:`dpverify.audit_samples`);
- :func:`rank_pair`, :func:`screening_event_families`: how a search ranks a candidate pair on its
  screening samples (the bound its best event is predicted to certify), and with which families.

Both are functions of selection samples only: the samples that certify never reach them, which is
what keeps the certified bounds valid however the choice was made (Ding et al. 2018, select then
test on fresh samples; Bichsel et al. 2021, likelihood-ratio events).

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of Differential Privacy",
ACM CCS 2018.

B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box Discovery of Differential
Privacy Violations using Classifiers", IEEE S&P 2021.
"""

from __future__ import annotations

import math

import numpy as np

from ..events import candidate_events, default_families, extreme_families, registered_families, screening_families
from ..pipeline.outputs import fit_codec
from ..pipeline.partition import select_partition
from ..pipeline.selection import predicted_bounds, requested_families, select

__all__ = ["select_for_claim", "rank_pair", "ranking_scale", "screening_event_families", "RANKING_SHRINKAGE_SE"]

#: Shrinkage (standard errors) of the screening estimates when pairs are ranked; None: sqrt(2 ln M)
#: over every event of every pair compared in the round.
RANKING_SHRINKAGE_SE = 1.0


def select_for_claim(
    plan, sel_x, sel_x_prime, *, inputs, n_certification=None, alpha=None, options=None, mechanism=None
):
    """The frozen events (or cells) that certify ``plan.claim``, chosen on the selection samples alone.

    :func:`dpverify.pipeline.selection.select` for kinds that read events, ranked by the kind's
    bound and sized by :func:`dpverify.audits.plan.sizing_claim`, and
    :func:`dpverify.pipeline.partition.select_partition` for kinds that read cells.

    Parameters
    ----------
    plan : AuditPlan
        The claim, and the defaults of the keywords below.
    sel_x, sel_x_prime
        The selection samples of M(x) and M(x') (after any ``output_key``).
    inputs : tuple or None
        ``(x, x_prime)`` for the input-aware families.
    mechanism : callable or None
        The audited mechanism, for the families that read what it declares (a score,
        :mod:`dpverify.events.declared`); None for given samples.
    n_certification, alpha, options
        The certification size the prediction uses, the level and the options (families, float
        events); default: the plan's (a sequential look passes its own, a search's chosen pair its
        families).
    """
    claim = plan.claim
    n_certification = plan.n_certification if n_certification is None else n_certification
    alpha = plan.alpha if alpha is None else alpha
    options = plan.options if options is None else options
    if claim.kind_record.reads == "cells":
        return select_partition(
            sel_x,
            sel_x_prime,
            claim=claim,
            n_certification=n_certification,
            alpha=alpha,
            event_families=options.families,
            float_events=options.float_events,
            inputs=inputs,
            mechanism=mechanism,
        )
    return select(
        sel_x,
        sel_x_prime,
        n_certification=n_certification,
        epsilon=plan.epsilon,
        delta=plan.delta,
        alpha=alpha,
        event_families=options.families,
        float_events=options.float_events,
        inputs=inputs,
        claim=claim,
        mechanism=mechanism,
    )


def rank_pair(pair, plan, families, mechanism=None) -> tuple[float, str]:
    """The largest bound any candidate event of ``pair`` is predicted to certify, and that event.

    Every event of ``families`` (:func:`screening_event_families`) is scored in both directions
    with :func:`~dpverify.pipeline.selection.predicted_bounds` at :data:`RANKING_SHRINKAGE_SE`
    standard errors (one pass; the chosen pair's events are then selected by
    :func:`select_for_claim`). Counts a family estimated on part of the rows (a learned family's
    held-out rows, ``Candidates.rows``) are scored on those rows: rescaled to all of them, they
    would look as precise as counts on twice the rows, and a lucky score of a mediocre pair
    would win the round. ``pair`` holds its screening samples (``samples_x``,
    ``samples_x_prime``, ``n`` per input) and its inputs (``x``, ``x_prime``); ``mechanism`` is the
    searched mechanism, for the families that read what it declares.

    Events of a family declared ``extreme`` (:attr:`dpverify.events.EventFamily.extreme`; the
    support-edge family) are placed at the extremes of the very samples that count them: a support-edge
    event holds the values of one input beyond every value of the other, so its count under the other
    input is 0 by construction, on whichever of many projections happened to put 5 or more values there
    (by chance, about 2^-5 each). On vector outputs they are ranked at the winner's-curse shrinkage,
    sqrt(2 ln M) standard errors over their M (event, direction)s, not at :data:`RANKING_SHRINKAGE_SE`:
    at 1 SE such chance tails of a few values read as large bounds on mechanisms without a support edge
    (Lyu et al.'s Alg. 3, Laplace noise), while a true edge (counts in the thousands against 0) still
    ranks far ahead. A scalar has one projection, where ``MIN_EDGE_TAIL`` keeps chance tails rare, and a
    true edge (the noisy max returning its value) shows only a few times in a first round, where strict
    ranking would cull it.
    """
    codec, (enc_x, enc_xp) = fit_codec(pair.samples_x, pair.samples_x_prime)
    found = candidate_events(enc_x, enc_xp, codec, families, inputs=(pair.x, pair.x_prime), mechanism=mechanism)
    if not found.events:
        return -math.inf, "no candidate event"
    a, b, n = found.counts_x, found.counts_x_prime, pair.n
    excluded = ((a == 0) & (b == 0)) | ((a == n) & (b == n))
    if found.rows is not None:  # counts on their own rows (the rows are the same for both inputs)
        rows = found.counted_rows(n)
        a, b, n = a * rows / n, b * rows / n, rows
    best = (-math.inf, "no event separates the samples")
    if RANKING_SHRINKAGE_SE is None:  # the pair's own winner's curse: sqrt(2 ln M) over its M (event, direction)s
        shrinkage = dict(n_candidates=2 * len(found.events))
    else:
        shrinkage = dict(shrinkage_se=RANKING_SHRINKAGE_SE)
    options = dict(delta=plan.delta, alpha=plan.alpha, **shrinkage)
    if plan.claim is not None:  # ranked by the bound on the claim's own parameter, or at (epsilon, delta)
        options["claim"] = plan.claim.kind_record.ranking_claim(plan.claim)
    extreme = np.isin([e.family for e in found.events], extreme_families())  # EventFamily.extreme
    extreme &= _is_vector(pair.samples_x)  # one projection of a scalar: chance tails stay rare (MIN_EDGE_TAIL)
    strict = dict(options, shrinkage_se=None, n_candidates=2 * int(extreme.sum()))
    for direction, p, q in (("x", a, b), ("x_prime", b, a)):
        score = predicted_bounds(p, q, n, plan.n_certification, **options)
        if extreme.any():  # placed at the samples' own extremes: the winner's curse over them
            p, q, m = (np.broadcast_to(v, extreme.shape)[extreme] for v in (p, q, n))
            score[extreme] = predicted_bounds(p, q, m, plan.n_certification, **strict)
        score = np.where(excluded | ~np.isfinite(score), -np.inf, score)
        i = int(np.argmax(score))
        if score[i] > best[0]:
            event = found.events[i]
            best = (float(score[i]), f"{event.description} [{event.family}], direction {direction}")
    return best


def ranking_scale(claim) -> str:
    """The parameter :func:`rank_pair` ranks pairs on, which a search's ``predicted_bound`` values are on:
    the claim's own for a kind that reads one event; pure epsilon for a kind that reads cells, whose
    partition is chosen for the chosen pair only."""
    return claim.parameter_name if claim.kind_record.reads == "events" else "pure epsilon"


def _is_vector(samples) -> bool:
    """Whether screening samples are vectors of two or more coordinates (many projections)."""
    shape = getattr(samples, "shape", ())
    return len(shape) == 2 and shape[1] >= 2


def screening_event_families(families, float_events: bool) -> list:
    """The event families that rank pairs: those asked for, less those whose records say they do not screen
    (:attr:`dpverify.events.EventFamily.screening`: their fitting cost grows with the sample and is paid once
    per pair and round; the chosen pair's events are selected with every family asked for), and less the
    floating-point families with ``float_events=False``."""
    pool, _ = requested_families(families, float_events)
    pool = list(default_families() if pool is None else pool)
    excluded = set(registered_families()) - set(screening_families())
    kept = [f for f in pool if f not in excluded]
    return kept or pool
