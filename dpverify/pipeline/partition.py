"""Choosing a partition of the output space into cells, from the selection samples alone.

The first half of an audit of a claim that reads cells (rho-zCDP, Rényi DP;
:mod:`dpverify.claims.kinds`): a *score* maps every output to a number, and the cells are
the intervals between a few quantiles of the pooled selection scores. The candidate
scores are

- for real outputs, the projections the threshold events use (the value; each
  coordinate, the sum, the maximum and the mean-difference direction of a vector);
- for discrete outputs, the estimated log likelihood ratio of each output seen in the
  selection samples, ``ln((a + 1/2) / (b + 1/2))`` (0 for an output they never showed,
  which then joins the cells of outputs with no evidence either way), and the numeric
  value where outputs are numbers.

Every (score, number of cells) in :data:`CELL_COUNTS` is tried, and the partition whose
predicted certified bound (the claim's statistic at the selection proportions scaled to
the certification size, :func:`dpverify.pipeline.divergence.cells_statistic`) is largest is
frozen. The last cell holds everything at or above the last quantile, ``inf`` and NaN
scores included, so the cells always partition the output space: certification counts
the first ``k - 1`` cells and the last is the rest. Nothing of the certification
samples reaches this step, so the region computed on them later keeps its level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..events.candidates import Event
from ..events.indicators import CodeValue, Within
from ..events.projections import vector_projections
from ..events.thresholds import _finite_part, _nearest_ranks, order_statistics
from .divergence import cells_statistic
from .outputs import OutputCodec, fit_codec
from .selection import Choice

__all__ = ["Partition", "select_partition", "CELL_COUNTS", "cell_index"]

#: Numbers of cells tried for each score. More cells resolve more of the likelihood ratio
#: and pay a Bonferroni share each, so the best count grows with the sample (16-32 cells at
#: 1e6-1e7 samples per input; measured: docs/auditor/benchmarks.md).
CELL_COUNTS = (2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class Partition:
    """A frozen partition: the cells counted on fresh samples, and what chose them.

    Attributes
    ----------
    codec : OutputCodec
        The code book of the selection samples.
    choices : tuple of Choice
        One event per cell but the last (``Within`` a score interval); the last cell is
        the rest of the output space.
    score : str
        The score the cells cut, in words.
    edges : tuple of float
        The cut points (``k - 1`` of them).
    predicted : float
        The claim's bound predicted on the selection samples.
    n_candidates : int
        (score, cell count) partitions compared.
    notes : tuple of str
        What the reader should know.
    """

    codec: OutputCodec
    choices: tuple
    score: str
    edges: tuple
    predicted: float
    n_candidates: int
    notes: tuple = ()

    @property
    def n_cells(self) -> int:
        return len(self.edges) + 1

    @property
    def description(self) -> str:
        return f"{self.n_cells} cells of {self.score} (cut at {_edges_text(self.edges)})"


def _edges_text(edges, limit: int = 4) -> str:
    shown = ", ".join(f"{e:.4g}" for e in edges[:limit])
    return shown + (f", ... ({len(edges)} cuts)" if len(edges) > limit else "")


def cell_index(values: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """The cell of each score: ``i`` for ``edges[i-1] <= v < edges[i]``; NaN and ``inf`` in the last."""
    return np.searchsorted(edges, values, side="right")


def _scores(enc_x, enc_xp, codec) -> list:
    """``(name, projection)`` candidates for the codec's outputs."""
    if codec.kind == "real":
        return list(vector_projections(enc_x, enc_xp))
    k = codec.n_codes
    a = np.bincount(enc_x[enc_x >= 0], minlength=k)[:k]
    b = np.bincount(enc_xp[enc_xp >= 0], minlength=k)[:k]
    ratio = np.log(a + 0.5) - np.log(b + 0.5)
    out = [("the estimated log likelihood ratio of the output", CodeValue(np.append(ratio, 0.0)))]
    if codec.numeric is not None:
        out.append(("the output value", CodeValue.of(codec.numeric)))
    return out


def _edges(finite_x, finite_xp, k: int) -> np.ndarray:
    """The distinct ``nearest`` quantiles at ``1/k, ..., (k-1)/k`` of the pooled finite scores (each group sorted)."""
    n = finite_x.size + finite_xp.size
    if n == 0:
        return np.zeros(0)
    ranks = _nearest_ranks(n, np.linspace(0.0, 1.0, k + 1)[1:-1])
    return np.unique(order_statistics(finite_x, finite_xp, ranks))


def _cell_counts(sorted_values, edges) -> np.ndarray:
    """Counts of each cell (:func:`cell_index`) in sorted scores (NaN last): differences of ``searchsorted``."""
    below = np.searchsorted(sorted_values, edges, side="left")
    return np.diff(np.concatenate([[0], below, [sorted_values.size]]))


def select_partition(sel_x, sel_x_prime, *, claim, n_certification: int, alpha: float) -> Partition:
    """Build the code book and freeze the partition predicted to certify the largest bound of ``claim``.

    Parameters
    ----------
    sel_x, sel_x_prime : list or numpy.ndarray
        Raw selection outputs of M(x) and M(x') (after any ``output_key``).
    claim : PrivacyClaim
        A claim of a kind that reads cells.
    n_certification : int
        Fresh samples per input that will certify (the prediction uses it).
    alpha : float
        The level.
    """
    codec, (enc_x, enc_xp) = fit_codec(sel_x, sel_x_prime)
    n_x, n_xp = len(enc_x), len(enc_xp)
    best, tried = None, 0
    for name, projection in _scores(enc_x, enc_xp, codec):
        sorted_x, sorted_xp = np.sort(projection(enc_x)), np.sort(projection(enc_xp))  # NaN last
        finite_x, finite_xp = _finite_part(sorted_x), _finite_part(sorted_xp)
        seen = set()
        for k in CELL_COUNTS:
            edges = _edges(finite_x, finite_xp, k)
            if edges.size == 0 or edges.tobytes() in seen:
                continue
            seen.add(edges.tobytes())
            tried += 1
            counts_x, counts_xp = _cell_counts(sorted_x, edges), _cell_counts(sorted_xp, edges)
            scale_x, scale_xp = n_certification / n_x, n_certification / n_xp
            predicted = cells_statistic(
                claim, counts_x * scale_x, counts_xp * scale_xp, n_certification, n_certification, alpha
            )[0]
            if best is None or predicted > best[0]:
                best = (predicted, name, projection, edges)
    notes = ()
    if best is None:  # every score was constant: one cell, nothing to certify
        return Partition(
            codec,
            (),
            "no score (every selection output scored alike)",
            (),
            0.0,
            tried,
            (
                "no score separates the inputs' selection samples: one cell, nothing was certified; if the "
                "mechanism has rare outputs, draw more samples",
            ),
        )
    predicted, name, projection, edges = best
    lows = np.concatenate([[-np.inf], edges[:-1]])
    choices = tuple(
        Choice(Event(f"{name} in [{lo:.6g}, {hi:.6g})", "cells", Within(projection, float(lo), float(hi))), "x")
        for lo, hi in zip(lows, edges)
    )
    return Partition(codec, choices, name, tuple(float(e) for e in edges), float(predicted), tried, notes)
