"""Learned events over the whole output: a learned score of "which input produced this output".

By Neyman-Pearson the most telling events are level sets of the likelihood
ratio ``P[M(x) = o] / P[M(x') = o]``; DP-Sniper (Bichsel et al. 2021) learns
the ratio with a classifier and thresholds its score. The logistic family
(:mod:`.classifier`) scores the coordinates as numbers; outputs such as the
sparse vector returning its noisy values (Lyu, Su, Li 2017, Algorithm 3:
values where a query is above the noisy threshold, markers elsewhere) are told
apart by *which* queries were answered, with what values, how many. Two
families learn a score of "which input produced this output" on features that
matter for DP outputs (:class:`OutputFeatures`):

- the coordinates (up to :data:`MAX_COORDINATES` of them), clipped so that
  infinities keep their order, and where each *marker* sits: the values that
  make up at least :data:`MARKER_SHARE` of all entries of the selection sample
  (a "below" or abort code, a zero);
- per row, the counts of each marker, of ``-inf``, ``+inf`` and NaN, and of the
  remaining entries (the values proper);
- order statistics of the values proper (all of them up to
  :data:`MAX_COORDINATES` coordinates, else :data:`ORDER_STATISTICS` evenly
  spaced), their sum, smallest, largest, and the positions of the first and
  last one.

``"learned"`` fits a ridge logistic regression by Newton steps that read the
rows in blocks (:func:`fit_streaming_logistic`: memory one block and a k x k
Hessian, so it trains on half the selection sample whatever its size);
``"learned-trees"`` fits scikit-learn's
:class:`~sklearn.ensemble.HistGradientBoostingClassifier` (Ke et al. 2017) on at
most :data:`MAX_TRAIN_ROWS` rows per input. The streaming logistic fit is the
default of the two: on the sparse vector returning its values (Lyu et al.'s
Algorithm 3), whose signal is a small shift of probability, trees deep or
shallow fit the noise, and the logistic fit certifies more than the trees and
than the ``"classifier"`` family, in a fraction of the trees' time (measured:
docs/auditor/benchmarks.md).

A third family, ``"learned-counts"``, in the default set, fits the same
logistic regression on a few features only (:class:`SummaryFeatures`): the
count of each marker and of the values, the bin of the smallest value, and
every count times every bin. On the sparse vector returning its values the
exact likelihood ratio (threshold noise integrated out numerically) is nearly
of that form on the pair "every query up by 1": each answered value moves it by
a saturated Laplace ratio, each "below" by an amount that shrinks as the
threshold noise, bounded by the smallest value, grows. The expected
Clopper-Pearson bound of the best threshold event of a score fitted on these
features comes close to that of the exact ratio there, and well above that of
:class:`OutputFeatures` (on the half-half pair, where the evidence sits in
which queries were answered, the reverse); plain audits with the family come
close to the best that three certified events on their samples can expect, and
a search from the input domain gains more than it costs in time (measured:
docs/auditor/benchmarks.md).
Its cells are few (a few hundred), so it tallies the selection rows once and
fits on the tallies (:func:`fit_counted_logistic`), and counts its thresholds
on the same rows. It proposes nothing, silently, on outputs without markers,
so the seeded results of audits without markers are those before it was added.

What is chosen on what. ``"learned-counts"`` fits and counts its thresholds on
all the selection rows, as a level-set family does. For the other two, the
model is fitted on the first half of the
selection rows of each input; the candidate events ``{score >= t}`` and
``{score < t}`` sit at pooled quantiles of the score on the *other* half, and
their counts there are rescaled to the selection size (they only rank
candidates: certification counts fresh samples), and ``Candidates.rows`` says
how many held-out rows they rest on (a search's screening ranks them at that
precision). Neither the fit nor the
thresholds see a certification sample, so validity is that of every event:
the frozen indicator is certified on fresh samples.

Memory (:data:`dpverify.events.registry.LEARNED_MEMORY`): features are computed
:data:`SCORE_ELEMENTS` elements of outputs at a time and their number is
bounded whatever the width (at most 2 * 64 + 4 * 65 + 41 up to width 64, 45
beyond), so a width-5,000 output costs no more than a narrow one beyond its
own rows; the booster's training matrix keeps within
:data:`~dpverify.events.classifier.MAX_FIT_ELEMENTS` elements.

``"learned"`` and ``"learned-trees"`` are opt-in (``event_families=[...,
"learned"]``): they are not in the default set, so the seeded results of audits
that do not name them are unchanged. ``"learned-trees"`` needs scikit-learn (``pip install
dpverify[learned]``); without it the family proposes nothing and says so in the
result's notes.

References
----------
B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box
Discovery of Differential Privacy Violations using Classifiers", IEEE S&P 2021.

M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for
Differential Privacy", PVLDB 10(6), 2017 (Algorithm 3).

G. Ke et al., "LightGBM: A Highly Efficient Gradient Boosting Decision Tree",
NeurIPS 2017 (histogram-based boosting, as in scikit-learn's estimator).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .candidates import Candidates, Event
from .classifier import FEATURE_CLIP, MAX_FIT_ELEMENTS, THRESHOLD_QUANTILES
from .indicators import AtLeast, Below
from .thresholds import nearest_quantiles

__all__ = [
    "OutputFeatures",
    "SummaryFeatures",
    "LearnedScore",
    "learned_events",
    "learned_tree_events",
    "learned_count_events",
    "count_events_apply",
    "find_markers",
    "fit_streaming_logistic",
    "fit_counted_logistic",
    "LinearLearnedScore",
    "learned_rows",
    "sklearn_available",
    "MAX_TRAIN_ROWS",
    "MAX_COORDINATES",
]

#: Selection rows per input the booster is trained on, at most (the rest rank the thresholds).
MAX_TRAIN_ROWS = 50_000
#: Fewest selection samples per input for the family to fit anything.
MIN_ROWS = 200
#: Coordinates given to the booster as they are; wider outputs give order statistics only.
MAX_COORDINATES = 64
#: Evenly spaced order statistics of the values of wider outputs.
ORDER_STATISTICS = 32
#: A value that makes up at least this share of the selection sample's entries is a marker.
MARKER_SHARE = 0.01
#: At most this many markers are counted.
MAX_MARKERS = 4
#: Output elements featurized at once when scoring (32 MiB of float64).
SCORE_ELEMENTS = 1 << 22
#: Entries the family ``"learned-counts"`` reads to find markers (a 512 KiB prefix, 0.5 ms: it runs in every
#: screening round of a search, on every vector output).
MARKER_ELEMENTS = 1 << 16
#: Pooled tail mass, and most distinct values per tail, of the level-set thresholds of a discrete score.
TAIL_SHARE = 0.02
TAIL_LEVELS = 24
#: Bins of the smallest value proper in :class:`SummaryFeatures` (at pooled quantiles of the selection):
#: more bins resolve the threshold noise better and fit more parameters on the same rows; the best count
#: on Lyu et al.'s Alg. 3 (measured: docs/auditor/benchmarks.md).
LEVEL_BINS = 5
#: The booster: small trees with large leaves (the signal of a DP output is a small shift of probability;
#: deep trees fit the noise, as larger boosters did on held-out rows of the sparse vector returning its
#: values, measured in docs/auditor/benchmarks.md), deterministic (no early-stopping split).
BOOSTER = dict(
    max_iter=60,
    learning_rate=0.1,
    max_leaf_nodes=8,
    min_samples_leaf=500,
    l2_regularization=1.0,
    early_stopping=False,
    random_state=0,
)


def sklearn_available() -> bool:
    """Whether scikit-learn's gradient boosting can be imported."""
    try:
        from sklearn.ensemble import HistGradientBoostingClassifier  # noqa: F401
    except ImportError:
        return False
    return True


def find_markers(sel_x, sel_x_prime, elements: int) -> tuple:
    """The markers of 2-D real outputs, sorted: the (at most :data:`MAX_MARKERS`) finite values that make up
    at least :data:`MARKER_SHARE` of the finite entries of the first ``elements // 2`` entries of each input."""
    rows = max(1, elements // (2 * max(1, sel_x.shape[1])))
    pooled = np.concatenate([sel_x[:rows].ravel(), sel_x_prime[:rows].ravel()])
    pooled = pooled[np.isfinite(pooled)]
    markers = ()
    if pooled.size:
        values, counts = np.unique(pooled, return_counts=True)
        frequent = np.argsort(-counts, kind="stable")[:MAX_MARKERS]
        markers = tuple(float(values[i]) for i in frequent if counts[i] >= MARKER_SHARE * pooled.size)
    return tuple(sorted(markers))


@dataclass(frozen=True)
class OutputFeatures:
    """The features of real outputs of ``width`` coordinates with the selection sample's ``markers``."""

    width: int
    markers: tuple

    @classmethod
    def of(cls, sel_x, sel_x_prime) -> OutputFeatures:
        """Find the markers in (a bounded prefix of) the selection samples."""
        return cls(int(sel_x.shape[1]), find_markers(sel_x, sel_x_prime, SCORE_ELEMENTS))

    @property
    def n_features(self) -> int:
        d = self.width
        coordinates = d if d <= MAX_COORDINATES else 0
        order = d if d <= MAX_COORDINATES else ORDER_STATISTICS
        return 2 * coordinates + len(self.markers) * (1 + coordinates) + 4 + order + 5

    def __call__(self, rows) -> np.ndarray:
        g = np.asarray(rows, dtype=np.float64)
        if g.ndim == 1:
            g = g[:, None]
        n, d = g.shape
        special = ~np.isfinite(g)
        parts, proper = [], ~special
        if d <= MAX_COORDINATES:
            parts.append(np.clip(np.nan_to_num(g, nan=-FEATURE_CLIP), -FEATURE_CLIP, FEATURE_CLIP))
        for m in self.markers:
            is_marker = g == m
            proper &= ~is_marker
            parts.append(is_marker.sum(axis=1, keepdims=True))
            if d <= MAX_COORDINATES:
                parts.append(is_marker)  # where each marker sits (a linear score adds their evidence up)
        if d <= MAX_COORDINATES:
            parts.append(np.where(proper, np.clip(np.nan_to_num(g), -FEATURE_CLIP, FEATURE_CLIP), 0.0))
        parts += [
            np.isneginf(g).sum(axis=1, keepdims=True),
            np.isposinf(g).sum(axis=1, keepdims=True),
            np.isnan(g).sum(axis=1, keepdims=True),
            proper.sum(axis=1, keepdims=True),
        ]
        values = np.where(proper, np.clip(np.nan_to_num(g), -FEATURE_CLIP, FEATURE_CLIP), np.nan)
        ordered = np.sort(values, axis=1)  # NaN (no value) last
        if d > MAX_COORDINATES:
            ordered = ordered[:, np.linspace(0, d - 1, ORDER_STATISTICS).round().astype(np.int64)]
        any_value = proper.any(axis=1)
        with np.errstate(invalid="ignore", over="ignore"):
            total = np.where(proper, values, 0.0).sum(axis=1)
            low = np.where(any_value, np.nanmin(np.where(proper, values, np.inf), axis=1), np.nan)
            high = np.where(any_value, np.nanmax(np.where(proper, values, -np.inf), axis=1), np.nan)
        first = np.where(any_value, np.argmax(proper, axis=1), -1)
        last = np.where(any_value, d - 1 - np.argmax(proper[:, ::-1], axis=1), -1)
        parts += [ordered, np.stack([total, low, high, first, last], axis=1)]
        out = np.concatenate([np.asarray(p, dtype=np.float64).reshape(n, -1) for p in parts], axis=1)
        return np.nan_to_num(out, nan=0.0)  # "no value" (the counts say how many) is 0 for a linear score

    def block_rows(self) -> int:
        """Rows featurized at once."""
        return max(1, SCORE_ELEMENTS // (self.width + self.n_features))

    def in_blocks(self, rows) -> np.ndarray:
        block = self.block_rows()
        return np.concatenate([self(rows[i : i + block]) for i in range(0, max(1, len(rows)), block)])


@dataclass(frozen=True)
class SummaryFeatures:
    """Counts and level of outputs with markers: a handful of features where the evidence is in the counts.

    Per row: the count of each marker, of the values proper (finite entries that are no marker) and
    of the non-finite entries; a one-hot bin of the smallest value proper (``len(edges) + 1`` bins at
    ``edges``, and one more for "no value"); and every count times every bin. The likelihood ratio of
    the sparse vector returning its values (Lyu, Su, Li 2017, Algorithm 3) on the pair "every query up
    by 1" is nearly of this form: each answered value moves it by a saturated Laplace ratio, each
    "below" by an amount that shrinks as the threshold noise (bounded by the smallest value) grows.
    Few features, so a fit on a few 1e5 rows is sharp where the many features of
    :class:`OutputFeatures` leave noise in the score.
    """

    width: int
    markers: tuple
    edges: tuple

    @classmethod
    def of(cls, sel_x, sel_x_prime, markers) -> SummaryFeatures:
        """Bin edges at :data:`LEVEL_BINS` pooled quantiles of the rows' smallest value (a bounded prefix)."""
        rows = max(1, SCORE_ELEMENTS // (2 * max(1, sel_x.shape[1])))
        pooled = np.concatenate([sel_x[:rows], sel_x_prime[:rows]])
        low = _smallest_value(np.asarray(pooled, dtype=np.float64), markers)
        low = low[np.isfinite(low)]
        edges = ()
        if low.size:
            edges = tuple(float(e) for e in np.unique(np.quantile(low, np.linspace(0, 1, LEVEL_BINS + 1)[1:-1])))
        return cls(int(sel_x.shape[1]), tuple(markers), edges)

    @property
    def n_counts(self) -> int:
        return len(self.markers) + 2

    @property
    def n_bins(self) -> int:
        return len(self.edges) + 2

    @property
    def n_features(self) -> int:
        return self.n_counts + self.n_bins + self.n_counts * self.n_bins

    def cells(self, rows) -> np.ndarray:
        """Per row: the counts (markers, values proper, non-finite) and the bin of the smallest value, as ints."""
        g = np.asarray(rows, dtype=np.float64)
        if g.ndim == 1:
            g = g[:, None]
        proper = np.isfinite(g)
        out = np.empty((g.shape[0], self.n_counts + 1), dtype=np.int64)
        for j, m in enumerate(self.markers):
            is_marker = g == m
            proper &= ~is_marker
            out[:, j] = is_marker.sum(axis=1)
        out[:, -3] = proper.sum(axis=1)
        out[:, -2] = (~np.isfinite(g)).sum(axis=1)
        low = np.min(np.where(proper, g, np.inf), axis=1)
        some = np.isfinite(low)
        which = np.searchsorted(np.asarray(self.edges, dtype=np.float64), np.where(some, low, 0.0))
        out[:, -1] = np.where(some, which, self.n_bins - 1)
        return out

    def of_cells(self, cells) -> np.ndarray:
        """The features of :meth:`cells`: counts, one-hot bin, every count times every bin."""
        n = len(cells)
        counts = cells[:, :-1].astype(np.float64)
        bins = np.zeros((n, self.n_bins))
        bins[np.arange(n), cells[:, -1]] = 1.0
        products = (counts[:, :, None] * bins[:, None, :]).reshape(n, -1)
        return np.concatenate([counts, bins, products], axis=1)

    def __call__(self, rows) -> np.ndarray:
        return self.of_cells(self.cells(rows))

    def block_rows(self) -> int:
        """Rows featurized at once."""
        return max(1, SCORE_ELEMENTS // (self.width + self.n_features))

    def tally(self, rows_x, rows_xp):
        """The distinct cells of both inputs' rows and how many rows of each input fall in each (read in blocks)."""
        block = self.block_rows()
        shape = (self.width + 1,) * self.n_counts + (self.n_bins,)
        packed = float(np.prod(np.asarray(shape, dtype=np.float64))) < 2.0**62  # one int64 key per cell
        found = {}
        for label, rows in enumerate((rows_x, rows_xp)):
            for start in range(0, len(rows), block):
                part = self.cells(rows[start : start + block])
                if packed:  # sorting int64 keys is several times faster than unique rows
                    keys, counts = np.unique(np.ravel_multi_index(part.T, shape), return_counts=True)
                    cells = np.stack(np.unravel_index(keys, shape), axis=1)
                else:
                    cells, counts = np.unique(part, axis=0, return_counts=True)
                for cell, count in zip(map(tuple, cells.tolist()), counts.tolist()):
                    found.setdefault(cell, [0, 0])[label] += count
        keys = sorted(found)
        cells = np.array(keys, dtype=np.int64).reshape(len(keys), self.n_counts + 1)
        tallies = np.array([found[k] for k in keys], dtype=np.float64).reshape(len(keys), 2)
        return cells, tallies[:, 0], tallies[:, 1]


def _smallest_value(g: np.ndarray, markers) -> np.ndarray:
    """Per row, the smallest finite entry that is no marker (``inf`` where there is none)."""
    proper = np.isfinite(g)
    for m in markers:
        proper &= g != m
    return np.min(np.where(proper, g, np.inf), axis=1)


def learned_rows(n_features: int) -> int:
    """Training rows per input: :data:`MAX_TRAIN_ROWS`, fewer so that both inputs' features keep within
    :data:`~dpverify.events.classifier.MAX_FIT_ELEMENTS` elements."""
    return int(max(1, min(MAX_TRAIN_ROWS, MAX_FIT_ELEMENTS // (2 * max(1, n_features)))))


class _KeptScore:
    """A score whose events share it: the score of the last group scored is kept with a reference to
    that group, and a call on the very same object (``is``) returns it instead of scoring again (the
    certification counts each frozen event on each block in turn). The kept score is not pickled.

    A subclass holds ``features`` (:class:`OutputFeatures`) and scores a block of their rows
    (:meth:`_score_rows`); the outputs are featurized block by block, so that at most
    ``features.block_rows()`` rows of features are held at once."""

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_kept"}

    def __setstate__(self, state):
        for k, v in state.items():
            object.__setattr__(self, k, v)

    def __call__(self, group) -> np.ndarray:
        kept = self.__dict__.get("_kept")
        if kept is not None and kept[0] is group:
            return kept[1]
        scores = self._score(group)
        object.__setattr__(self, "_kept", (group, scores))
        return scores

    def _score(self, group) -> np.ndarray:
        n = len(group)
        out = np.empty(n)
        block = self.features.block_rows()
        for start in range(0, n, block):
            stop = min(n, start + block)
            out[start:stop] = self._score_rows(self.features(group[start:stop]))
        return out


@dataclass(frozen=True, eq=False)
class LearnedScore(_KeptScore):
    """The booster's log-odds that an output came from x (picklable: a frozen scikit-learn model)."""

    features: OutputFeatures
    model: object

    def _score_rows(self, rows) -> np.ndarray:
        return self.model.decision_function(rows)


#: Newton steps of the logistic fit, at most, and its ridge penalty per row on standardized weights.
NEWTON_STEPS = 12
RIDGE = 1e-4


def _blocks(features: OutputFeatures, rows_x, rows_xp):
    """(features, labels) of both inputs' rows, :meth:`OutputFeatures.block_rows` rows at a time."""
    block = features.block_rows()
    for rows, label in ((rows_x, 1.0), (rows_xp, 0.0)):
        for start in range(0, len(rows), block):
            part = features(rows[start : start + block])
            yield part, np.full(len(part), label)


def fit_streaming_logistic(features: OutputFeatures, rows_x, rows_xp):
    """Ridge logistic regression of "the output came from x" on :class:`OutputFeatures`, by Newton steps
    that read the rows in blocks (memory: one block and the (k x k) Hessian, whatever the sample size).

    Returns ``(mean, scale, weights, intercept)`` of the standardized features, or None when no feature
    varies.
    """
    return _newton_logistic(
        lambda: ((part, y, None) for part, y in _blocks(features, rows_x, rows_xp)), features.n_features
    )


def fit_counted_logistic(design, count_x, count_xp):
    """The ridge logistic regression of :func:`fit_streaming_logistic` on distinct feature rows ``design``,
    each standing for ``count_x`` rows of x and ``count_xp`` rows of x' (the likelihood is the same as on
    the rows themselves; each Newton step costs one pass over the distinct rows, not over the sample).
    """
    design = np.asarray(design, dtype=np.float64)

    def blocks():
        yield design, np.ones(len(design)), np.asarray(count_x, dtype=np.float64)
        yield design, np.zeros(len(design)), np.asarray(count_xp, dtype=np.float64)

    return _newton_logistic(blocks, design.shape[1])


def _newton_logistic(blocks, k: int):
    """Newton steps of the ridge logistic fit over ``blocks()``: (features, labels, row weights or None)."""
    total, square, n = np.zeros(k), np.zeros(k), 0
    for part, _, w in blocks():
        if w is None:
            total += part.sum(axis=0)
            square += (part * part).sum(axis=0)
            n += len(part)
        else:
            total += w @ part
            square += w @ (part * part)
            n += w.sum()
    if n <= 0:
        return None
    mean = total / n
    scale = np.sqrt(np.maximum(square / n - mean * mean, 0.0))
    keep = scale > 1e-9 * np.maximum(1.0, np.abs(mean))
    if not keep.any():
        return None
    scale = np.where(keep, scale, 1.0)
    beta = np.zeros(k + 1)
    penalty = np.full(k + 1, RIDGE * n)
    penalty[-1] = 0.0
    penalty[:-1][~keep] = n  # pins constant features at 0
    for _ in range(NEWTON_STEPS):
        gradient, hessian = -penalty * beta, np.diag(penalty) + 1e-9 * np.eye(k + 1)
        for part, y, w in blocks():
            a = np.concatenate([(part - mean) / scale, np.ones((len(part), 1))], axis=1)
            p = 1.0 / (1.0 + np.exp(-np.clip(a @ beta, -30, 30)))
            if w is None:
                gradient += a.T @ (y - p)
                hessian += (a * (p * (1 - p))[:, None]).T @ a
            else:
                gradient += a.T @ (w * (y - p))
                hessian += (a * (w * p * (1 - p))[:, None]).T @ a
        try:
            step = np.linalg.solve(hessian, gradient)
        except np.linalg.LinAlgError:
            break
        beta += step
        if np.max(np.abs(step)) < 1e-6:
            break
    return mean, scale, np.where(keep, beta[:-1], 0.0), float(beta[-1])


@dataclass(frozen=True, eq=False)
class LinearLearnedScore(_KeptScore):
    """The logistic fit's log-odds on :class:`OutputFeatures` (picklable)."""

    features: OutputFeatures
    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    intercept: float

    def _score_rows(self, rows) -> np.ndarray:
        return (rows - self.mean) / self.scale @ self.weights + self.intercept


def _threshold_candidates(score, sel_x, sel_x_prime, m: int, family: str, what: str, tails: bool = False) -> Candidates:
    """Events ``{score >= t}``, ``{score < t}`` at pooled quantiles of ``score`` on the held-out rows (from
    row ``m`` on), with their held-out counts rescaled to the selection size. With ``tails`` (a score of
    few distinct values), also at each distinct value in the pooled tails of mass :data:`TAIL_SHARE`
    (at most :data:`TAIL_LEVELS` per tail): the level sets there, where the quantile grid is coarse."""
    held_x, held_xp = score(sel_x[m:]), score(sel_x_prime[m:])
    if np.all(held_x == held_x[0]) and np.all(held_xp == held_x[0]):
        return Candidates.empty(f"the {what} score is constant")
    sx, sxp = np.sort(held_x), np.sort(held_xp)
    thresholds = np.unique(nearest_quantiles(held_x, held_xp, sx, sxp, THRESHOLD_QUANTILES))
    if tails:
        low, high = nearest_quantiles(held_x, held_xp, sx, sxp, [TAIL_SHARE, 1 - TAIL_SHARE])
        distinct = np.unique(np.concatenate([sx, sxp]))
        near = [distinct[distinct <= low][-TAIL_LEVELS:], distinct[distinct > high][:TAIL_LEVELS]]
        thresholds = np.unique(np.concatenate([thresholds, *near]))
    below_x = np.searchsorted(sx, thresholds, side="left")
    below_xp = np.searchsorted(sxp, thresholds, side="left")
    events = [Event(f"{what} score >= {t:.6g}", family, AtLeast(score, float(t))) for t in thresholds]
    events += [Event(f"{what} score < {t:.6g}", family, Below(score, float(t))) for t in thresholds]
    scale_x, scale_xp = len(sel_x) / len(sx), len(sel_x_prime) / len(sxp)
    counts_x = np.concatenate([len(sx) - below_x, below_x]) * scale_x
    counts_xp = np.concatenate([len(sxp) - below_xp, below_xp]) * scale_xp
    rows = np.full(len(events), float(min(len(sx), len(sxp))))  # held out: what the counts rest on
    return Candidates(events, counts_x, counts_xp, rows=rows)


def learned_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds on a logistic regression over :class:`OutputFeatures` (the family ``"learned"``).

    The fit reads the first half of the selection rows of each input in blocks (any number of rows in
    bounded memory); the thresholds and their counts come from the second half. No scikit-learn needed.
    """
    n = min(len(sel_x), len(sel_x_prime))
    if n < MIN_ROWS or sel_x.ndim != 2:
        return Candidates.empty(f"needs at least {MIN_ROWS} selection samples per input")
    features = OutputFeatures.of(sel_x, sel_x_prime)
    m = n // 2
    fitted = fit_streaming_logistic(features, sel_x[:m], sel_x_prime[:m])
    if fitted is None:
        return Candidates.empty("no feature of the outputs varies")
    return _threshold_candidates(LinearLearnedScore(features, *fitted), sel_x, sel_x_prime, m, "learned", "learned")


def _count_markers(sel_x, sel_x_prime) -> tuple:
    """The markers the count-and-level family counts: those of :func:`find_markers` on the first
    :data:`MARKER_ELEMENTS` entries of real vector outputs (two or more coordinates, at least
    :data:`MIN_ROWS` rows per input); ``()`` where the family does not apply."""
    n = min(len(sel_x), len(sel_x_prime))
    if n < MIN_ROWS or sel_x.ndim != 2 or sel_x.shape[1] < 2 or sel_x.dtype.kind != "f":
        return ()
    return find_markers(sel_x, sel_x_prime, MARKER_ELEMENTS)


def count_events_apply(sel_x, sel_x_prime) -> bool:
    """Whether :func:`learned_count_events` fits anything on these selection rows: real vector outputs
    (at least two coordinates) with markers (:func:`find_markers` on the first :data:`MARKER_ELEMENTS`
    entries) and, besides them, values proper (finite entries that are no marker) in that prefix.
    Outputs made of markers alone (index or yes/no vectors) are excluded: there the count-and-level
    score is a function of a few discrete codes, which the level-set family ranks already."""
    if not isinstance(sel_x, np.ndarray) or not isinstance(sel_x_prime, np.ndarray):
        return False
    markers = _count_markers(sel_x, sel_x_prime)
    if not markers:
        return False
    rows = max(1, MARKER_ELEMENTS // (2 * sel_x.shape[1]))
    low = _smallest_value(np.concatenate([sel_x[:rows], sel_x_prime[:rows]]).astype(np.float64), markers)
    return bool(np.isfinite(low).any())


def learned_count_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds on a logistic regression over :class:`SummaryFeatures` (the family ``"learned-counts"``).

    Real vector outputs with markers only (:func:`find_markers` on the first :data:`MARKER_ELEMENTS`
    entries); elsewhere nothing, silently, so that the family, in the default set, changes no result
    where it does not apply. The selection rows are read once and tallied into their distinct cells
    (:meth:`SummaryFeatures.tally`; a few hundred at most), the fit runs on the tallies
    (:func:`fit_counted_logistic`), and the thresholds are counted on the same rows, as the level-set
    family counts its level sets: the score takes one value per cell, so its threshold events are
    unions of cells ordered by a fit of a few dozen parameters. Besides the usual quantile grid, every
    distinct score value in the pooled 2% tails is a threshold (the best events of Lyu et al.'s
    Algorithm 3 have probability about 0.0015, between the grid's 1e-3 and 3e-3).
    """
    markers = _count_markers(sel_x, sel_x_prime)
    if not markers:
        return Candidates.empty()
    summary = SummaryFeatures.of(sel_x, sel_x_prime, markers)
    cells, count_x, count_xp = summary.tally(sel_x, sel_x_prime)
    fitted = fit_counted_logistic(summary.of_cells(cells), count_x, count_xp)
    if fitted is None:
        return Candidates.empty()
    score = LinearLearnedScore(summary, *fitted)
    return _threshold_candidates(score, sel_x, sel_x_prime, 0, "learned-counts", "count-and-level", tails=True)


def learned_tree_events(sel_x, sel_x_prime, outputs) -> Candidates:
    """Thresholds on a gradient-boosted estimate of the log likelihood ratio (the family ``"learned-trees"``).

    Real outputs; trained on at most :func:`learned_rows` rows per input. Nothing (with the reason)
    without scikit-learn, with fewer than :data:`MIN_ROWS` selection samples per input, or when the
    fitted score is constant.
    """
    if not sklearn_available():
        return Candidates.empty("needs scikit-learn (pip install dpverify[learned])")
    n = min(len(sel_x), len(sel_x_prime))
    if n < MIN_ROWS or sel_x.ndim != 2:
        return Candidates.empty(f"needs at least {MIN_ROWS} selection samples per input")
    from sklearn.ensemble import HistGradientBoostingClassifier

    features = OutputFeatures.of(sel_x, sel_x_prime)
    m = min(learned_rows(features.n_features), n // 2)
    train = np.concatenate([features.in_blocks(sel_x[:m]), features.in_blocks(sel_x_prime[:m])])
    labels = np.concatenate([np.ones(m), np.zeros(m)])
    model = HistGradientBoostingClassifier(**BOOSTER).fit(train, labels)
    del train
    score = LearnedScore(features, model)
    return _threshold_candidates(score, sel_x, sel_x_prime, m, "learned-trees", "boosted")
