"""Projections of real vectors: the numbers threshold and interval events compare.

Each coordinate (up to 16), the sum, the largest coordinate, the direction
of the mean difference between the two selection samples (StatDP's projections
of vector outputs), and the sum of the coordinates' log ratios where two or more
coordinates differ (:class:`LogRatioSum`). The projections are picklable
indicators' parts (:mod:`.indicators`).

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..support import arrays

__all__ = [
    "Coordinate",
    "Total",
    "Largest",
    "Linear",
    "LogRatioSum",
    "vector_projections",
    "whitened_projections",
    "MAX_WHITENED",
    "COVARIANCE_ROWS",
    "WHITEN_CORRELATION",
    "FISHER_COSINE",
    "GAUSSIAN_MOMENTS",
    "row_projections",
    "MEAN_BLOCK_ELEMENTS",
    "LOG_RATIO_BINS",
    "COORDINATE_TEST_LEVEL",
    "MONOTONE_BINS",
    "MONOTONE_TEST_LEVEL",
    "monotone_fit",
]


@dataclass(frozen=True, eq=False)
class Coordinate:
    """Projection of (n, d) real outputs on coordinate ``index``."""

    index: int
    array_ready = True

    def __call__(self, group):
        return group[:, self.index]

    def on(self, group, xp):
        return group[:, self.index]

    def counted_as(self):
        return ("coordinate", self.index)


@dataclass(frozen=True, eq=False)
class Total:
    """Sum of the coordinates of (n, d) real outputs.

    No compiled form (``counted_as``): numpy's pairwise summation fixes an order of additions
    that a loop would not reproduce bit for bit.
    """

    array_ready = True

    def __call__(self, group):
        with np.errstate(invalid="ignore", over="ignore"):
            return group.sum(axis=1)

    def on(self, group, xp):
        return xp.sum(group, axis=1)


@dataclass(frozen=True, eq=False)
class Largest:
    """Largest coordinate of (n, d) real outputs."""

    array_ready = True

    def __call__(self, group):
        return group.max(axis=1)

    def on(self, group, xp):
        return xp.max(group, axis=1)

    def counted_as(self):
        return ("largest",)


@dataclass(frozen=True, eq=False)
class Linear:
    """``group @ weights`` for (n, d) real outputs (no compiled form: BLAS fixes the order of additions)."""

    weights: np.ndarray
    array_ready = True

    def __call__(self, group):
        with np.errstate(invalid="ignore", over="ignore"):
            return group @ self.weights

    def on(self, group, xp):
        return group @ arrays.asarray_like(self.weights, group, xp)


@dataclass(frozen=True, eq=False)
class LogRatioSum:
    """Sum over coordinates of a binned log-ratio table: ``sum_i tables[i][bin_i(group[:, i])]``.

    The likelihood ratio of the whole vector when its coordinates are independent given the
    input (noise added to each coordinate), each coordinate's log ratio estimated from the two
    selection samples' histograms (a naive Bayes score), monotone in the coordinate where the data
    do not reject it (:func:`monotone_fit`). ``edges[i]`` are the bin edges of
    coordinate ``coordinates[i]`` (``searchsorted(..., side="right")``; NaN falls in the last
    bin). The terms are added to 0 in the order of ``coordinates``, elementwise, which a loop
    reproduces bit for bit: the sum of the output coordinates has a compiled form (``counted_as``),
    the sum of ``basis`` columns none (BLAS fixes the order of the additions of each column).

    References
    ----------
    Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of Differential
    Privacy", ACM CCS 2018 (threshold events on a test statistic of the output).
    """

    coordinates: tuple
    edges: tuple
    tables: tuple
    #: None: the coordinates of the output; else a (d, m) matrix whose columns are read instead
    #: (``group @ basis[:, i]``, the whitened coordinates of :func:`whitened_projections`).
    basis: np.ndarray | None = None
    array_ready = True

    def _column(self, group, index, xp=None):
        """Column ``index`` of ``group``, or ``group @ basis[:, index]`` (one matrix-vector product per
        column: a matrix product of a tall block by a small matrix is slower in OpenBLAS)."""
        if self.basis is None:
            return group[:, index]
        weights = self.basis[:, index]
        with np.errstate(invalid="ignore", over="ignore"):
            return group @ (weights if xp is None else arrays.asarray_like(weights, group, xp))

    def __call__(self, group):
        total = np.zeros(len(group))
        for index, edges, table in zip(self.coordinates, self.edges, self.tables):
            total += table[np.searchsorted(edges, self._column(group, index), side="right")]
        return total

    def on(self, group, xp):
        """The same sums with the array library ``xp`` on ``group``'s device (added in the same order)."""
        total = None
        for index, edges, table in zip(self.coordinates, self.edges, self.tables):
            column = self._column(group, index, xp)
            bins = xp.searchsorted(arrays.asarray_like(edges, group, xp), column, side="right")
            term = xp.take(arrays.asarray_like(table, group, xp), bins)
            total = term if total is None else total + term  # 0 + t is t: the same comparisons
        return total

    def counted_as(self):
        return None if self.basis is not None else ("log-ratio-sum", self.coordinates, self.edges, self.tables)


#: Bins per coordinate of :class:`LogRatioSum` (quantiles of the pooled selection sample): the table of
#: a coordinate whose log ratio is not monotone, and the bins of the G-test that keeps a coordinate.
LOG_RATIO_BINS = 32
#: Bins per coordinate of a monotone table (:func:`monotone_fit`): finer, since pooling adjacent bins
#: removes most of their noise.
MONOTONE_BINS = 128
#: Level of the test that keeps a monotone table: a coordinate whose finer table departs from its
#: isotonic fit at this level (weighted squared residuals against chi-square) keeps the plain table.
MONOTONE_TEST_LEVEL = 1e-3

#: Selection values per coordinate that place :class:`LogRatioSum`'s bin edges.
_EDGE_PROBE = 1 << 16


def _bin_edges(values: np.ndarray, weights: np.ndarray | None, *bins: int) -> list[np.ndarray]:
    """For each number of ``bins``: up to ``bins - 1`` distinct finite edges at the (weighted) quantiles of
    ``values`` (one sort for all; the edges of ``k`` bins are among those of ``m * k``)."""
    keep = np.isfinite(values)
    values = values[keep]
    weights = np.ones(len(values)) if weights is None else weights[keep]
    if values.size == 0:
        return [np.empty(0) for _ in bins]
    order = np.argsort(values, kind="stable")
    values, cumulative = values[order], np.cumsum(weights[order])
    out = []
    for k in bins:
        levels = cumulative[-1] * np.arange(1, k) / k
        picked = np.searchsorted(cumulative, levels, side="left")
        out.append(np.unique(values[np.minimum(picked, len(values) - 1)]))
    return out


def _bin_counts(edges, values_x, values_xp, weights_x=None, weights_xp=None) -> tuple[np.ndarray, np.ndarray]:
    """The two (weighted) histograms on ``edges`` (``searchsorted(..., side="right")``; NaN in the last bin)."""
    if weights_x is None:
        return _histogram(edges, values_x), _histogram(edges, values_xp)
    bins = len(edges) + 1
    c_x = np.bincount(np.searchsorted(edges, values_x, side="right"), weights=weights_x, minlength=bins)
    c_xp = np.bincount(np.searchsorted(edges, values_xp, side="right"), weights=weights_xp, minlength=bins)
    return c_x, c_xp


def _histogram(edges, values) -> np.ndarray:
    """The counts of ``bincount(searchsorted(edges, values, side="right"))`` on strictly increasing ``edges``,
    read from the sorted values: bin ``j`` holds the values ``v`` with ``edges[j - 1] <= v < edges[j]``, so
    the values below bin ``j`` are those ``< edges[j - 1]`` (NaN sorts last, into the last bin). A sort is
    several times faster than a binary search per value on unsorted values."""
    below = np.searchsorted(np.sort(values), edges, side="left")
    return np.diff(np.concatenate([[0], below, [len(values)]]))


def _coarser(counts: np.ndarray, fine_edges: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """A histogram on ``fine_edges`` summed into the bins of ``edges``, a subset of them: the histogram on
    ``edges`` (a fine bin ``j >= 1`` holds values in ``[fine_edges[j - 1], fine_edges[j])``)."""
    target = np.concatenate([[0], np.searchsorted(edges, fine_edges, side="right")])
    return np.bincount(target, weights=counts, minlength=len(edges) + 1)


#: Level of the G-test that keeps a coordinate in :class:`LogRatioSum`: a coordinate whose two histograms
#: do not differ at this level adds only its tables' estimation noise to the sum (measured on the geometric
#: histogram, where one count of five moves: docs/auditor/benchmarks.md).
COORDINATE_TEST_LEVEL = 1e-3


def _log_ratio_table(c_x: np.ndarray, c_xp: np.ndarray) -> tuple[np.ndarray, bool]:
    """Per bin ``log((c_x + 1/2) / n_x) - log((c_x' + 1/2) / n_x')`` of two histograms (counts shrunk toward
    the ratio 1), and whether they differ (G-test of homogeneity at :data:`COORDINATE_TEST_LEVEL`)."""
    from scipy.stats import chi2

    bins = len(c_x)
    table = np.log((c_x + 0.5) / (c_x.sum() + 0.5 * bins)) - np.log((c_xp + 0.5) / (c_xp.sum() + 0.5 * bins))
    n_x, n_xp = c_x.sum(), c_xp.sum()
    pooled = c_x + c_xp
    seen = pooled > 0
    if seen.sum() < 2 or n_x <= 0 or n_xp <= 0:
        return table, False
    g = 0.0
    for counts, n in ((c_x, n_x), (c_xp, n_xp)):
        expected = pooled[seen] * n / (n_x + n_xp)
        observed = counts[seen]
        positive = observed > 0
        g += 2.0 * np.sum(observed[positive] * np.log(observed[positive] / expected[positive]))
    return table, bool(chi2.sf(g, seen.sum() - 1) < COORDINATE_TEST_LEVEL)


def _isotonic(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The weighted least-squares non-decreasing fit of ``values`` (pool adjacent violators)."""
    means, totals, sizes = [], [], []
    for v, w in zip(values.tolist(), weights.tolist()):
        means.append(v)
        totals.append(w)
        sizes.append(1)
        while len(means) > 1 and means[-2] > means[-1]:
            v2, w2, k2 = means.pop(), totals.pop(), sizes.pop()
            w1 = totals[-1]
            means[-1] = (means[-1] * w1 + v2 * w2) / (w1 + w2)
            totals[-1] = w1 + w2
            sizes[-1] += k2
    return np.repeat(np.asarray(means), sizes)


def monotone_fit(table: np.ndarray, counts_x: np.ndarray, counts_xp: np.ndarray) -> np.ndarray | None:
    """The isotonic fit of a coordinate's log-ratio table, or None where the data reject monotonicity.

    Each bin weighs by the inverse of its log ratio's variance, ``1 / (1 / (c_x + 1/2) + 1 / (c_x' + 1/2))``;
    the better of the non-decreasing and non-increasing fits is kept unless its weighted squared residuals
    exceed the ``1 - MONOTONE_TEST_LEVEL`` quantile of chi-square with as many degrees of freedom as bins
    pooled away. Where the noise is added to the coordinate and has a log-concave density (Laplace,
    Gaussian, geometric), the likelihood ratio of a shifted coordinate is monotone in its value (Karlin and
    Rubin's monotone likelihood ratio), and the fit is the least-squares estimate under that constraint:
    pooling adjacent bins removes most of the finer table's noise.

    References
    ----------
    S. Karlin, H. Rubin, "The Theory of Decision Procedures for Distributions with Monotone Likelihood
    Ratio", Annals of Mathematical Statistics 27(2), 1956; M. Ayer, H. D. Brunk, G. M. Ewing, W. T. Reid,
    E. Silverman, "An Empirical Distribution Function for Sampling with Incomplete Information", Annals of
    Mathematical Statistics 26(4), 1955 (pool adjacent violators).
    """
    from scipy.stats import chi2

    weights = 1.0 / (1.0 / (counts_x + 0.5) + 1.0 / (counts_xp + 0.5))
    best, residual = None, np.inf
    for sign in (1.0, -1.0):
        fit = sign * _isotonic(sign * table, weights)
        r = float(np.sum(weights * (table - fit) ** 2))
        if r < residual:
            best, residual = fit, r
    pooled_away = len(table) - np.unique(best).size
    if pooled_away > 0 and chi2.sf(residual, pooled_away) < MONOTONE_TEST_LEVEL:
        return None
    return best


def _merged(edges: np.ndarray, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same step function with only the edges where ``table`` changes (an isotonic fit pools most bins):
    a value's table entry is unchanged, and each lookup searches fewer edges."""
    changes = table[1:] != table[:-1]
    return edges[changes], table[np.concatenate([[True], changes])]


def _log_ratio_sum(columns_x, columns_xp, weights_x=None, weights_xp=None, *, basis=None, name=None) -> list:
    """The :class:`LogRatioSum` projection of up to 16 coordinates (none where no coordinate separates).

    A coordinate is kept where its two histograms on :data:`LOG_RATIO_BINS` bins differ (G-test); its
    table is the isotonic fit on :data:`MONOTONE_BINS` bins (:func:`monotone_fit`), or the plain table on
    :data:`LOG_RATIO_BINS` bins where the data reject a monotone log ratio.
    """
    coordinates, all_edges, tables = [], [], []
    for index, (values_x, values_xp) in enumerate(zip(columns_x, columns_xp)):
        if weights_x is None:
            probe = np.concatenate([values_x[:_EDGE_PROBE], values_xp[:_EDGE_PROBE]])
            fine_edges, edges = _bin_edges(probe, None, MONOTONE_BINS, LOG_RATIO_BINS)
        else:  # a code book's rows, weighted by their counts
            fine_edges, edges = _bin_edges(values_x, weights_x + weights_xp, MONOTONE_BINS, LOG_RATIO_BINS)
        fine_x, fine_xp = _bin_counts(fine_edges, values_x, values_xp, weights_x, weights_xp)
        table, differ = _log_ratio_table(_coarser(fine_x, fine_edges, edges), _coarser(fine_xp, fine_edges, edges))
        if differ:
            fit = monotone_fit(_log_ratio_table(fine_x, fine_xp)[0], fine_x, fine_xp)
            if fit is not None:
                edges, table = _merged(fine_edges, fit)
            coordinates.append(index)
            all_edges.append(edges)
            tables.append(table)
    if len(coordinates) < (2 if basis is None else 1):  # one output coordinate's thresholds are there already
        return []
    statistic = LogRatioSum(tuple(coordinates), tuple(all_edges), tuple(tables), basis)
    return [(name or "sum of coordinate log ratios", statistic)]


#: Elements clipped at once by :func:`_finite_mean` (its memory is one block, not a copy of the outputs).
MEAN_BLOCK_ELEMENTS = 1 << 20


def _finite_mean(group: np.ndarray) -> np.ndarray:
    """Mean of the rows clipped to +-1e150 (inf and huge outputs must not poison the direction).

    Block by block, adding rows in order as ``clip(group).mean(axis=0)`` does (the same
    bits), without the clipped copy of the whole selection sample.
    """
    total = np.zeros(group.shape[1])
    rows = max(1, MEAN_BLOCK_ELEMENTS // max(1, group.shape[1]))
    for start in range(0, len(group), rows):
        block = np.clip(group[start : start + rows], -1e150, 1e150)
        total = np.add.reduce(np.vstack([total[None, :], block]), axis=0)
    return total / len(group)


def _fixed_projections(d: int) -> list:
    """The projections of ``d``-vectors that do not depend on the samples: coordinates (up to 16), sum, max."""
    out = [(f"output[{i}]", Coordinate(i)) for i in range(min(d, 16))]
    out.append(("sum(output)", Total()))
    out.append(("max(output)", Largest()))
    return out


def _direction(direction: np.ndarray) -> list:
    """The projection on the unit vector of the mean difference ``direction`` (none when it is 0 or not finite)."""
    norm = np.linalg.norm(direction)
    if not (np.isfinite(norm) and norm > 0):
        return []
    w = direction / norm
    return [(f"<output, {_text(w)}>", Linear(w))]


def _text(w: np.ndarray) -> str:
    return "(" + ", ".join(f"{v:.3g}" for v in w[:4]) + (", ..." if len(w) > 4 else "") + ")"


#: Widest real vectors :func:`whitened_projections` whitens (its covariance is d x d, its projections
#: O(d) per coordinate of a row).
MAX_WHITENED = 16
#: Rows per input whose pooled within-input covariance :func:`whitened_projections` estimates, and whose
#: moments :func:`_gaussian_noise` reads (relative error of a variance about 0.5%, of a kurtosis 0.02).
COVARIANCE_ROWS = 1 << 15
#: Whitened coordinates are proposed where two coordinates' correlation is at least this large in
#: absolute value (below it, whitening only rescales the coordinates, whose log ratios are summed already).
WHITEN_CORRELATION = 0.05
#: The Fisher direction is proposed where its cosine with the mean difference is below this.
FISHER_COSINE = 0.999


#: Noise is taken for Gaussian where every column's standardized skewness and excess kurtosis (within
#: each input, :func:`_gaussian_noise`) are below this in absolute value: Laplace noise has excess
#: kurtosis 3, a sum of four Laplace 0.75, uniform noise -1.2; the estimates' standard error on
#: :data:`COVARIANCE_ROWS` rows per input is about 0.02.
GAUSSIAN_MOMENTS = 0.3


def _centred_rows(sel_x, sel_x_prime) -> np.ndarray | None:
    """The first :data:`COVARIANCE_ROWS` finite rows of each input, less their input's mean, stacked."""
    centred = []
    for group in (sel_x, sel_x_prime):
        rows = np.asarray(group[:COVARIANCE_ROWS], dtype=np.float64)
        rows = rows[np.all(np.isfinite(rows) & (np.abs(rows) < 1e150), axis=1)]
        if len(rows) < 2:
            return None
        centred.append(rows - rows.mean(axis=0))
    return np.concatenate(centred)


def _gaussian_noise(centred: np.ndarray, basis: np.ndarray) -> bool:
    """Whether every column of ``centred @ basis`` looks Gaussian: skewness and excess kurtosis within
    :data:`GAUSSIAN_MOMENTS` of 0. Where the noise is Gaussian, the log likelihood ratio of a shifted
    vector is linear in it, the Fisher direction is that ratio exactly, and a sum of binned coordinate
    log ratios adds only its tables' estimation noise and its cost."""
    if len(centred) < 8:
        return False
    z = centred @ basis
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        m2 = np.mean(z**2, axis=0)
        skew = np.mean(z**3, axis=0) / m2**1.5
        kurtosis = np.mean(z**4, axis=0) / m2**2 - 3.0
    return bool(np.all(np.abs(skew) < GAUSSIAN_MOMENTS) and np.all(np.abs(kurtosis) < GAUSSIAN_MOMENTS))


def whitened_projections(sel_x, sel_x_prime, direction: np.ndarray) -> tuple[list, bool]:
    """The Fisher direction and the sum of whitened coordinates' log ratios, for correlated real vectors.

    Outputs that are a linear image ``y = A z + c(x)`` of independent noise ``z`` (prefix sums of a
    counter, any post-processed noisy vector) have likelihood ratios that depend on ``y`` through
    ``A^-1 y`` only. Both projections are fitted on the selection rows (the pooled within-input
    covariance ``S`` of :func:`_within_covariance`, its Cholesky factor ``S = L L^T``, and the mean
    difference ``direction``):

    - the Fisher (linear discriminant) direction ``S^-1 direction``, the exact log likelihood ratio
      when the noise is Gaussian; proposed where it is not parallel to ``direction``
      (cosine below :data:`FISHER_COSINE`);
    - the sum of the log ratios of the whitened coordinates ``L^-1 y`` (:class:`LogRatioSum` with
      ``basis = L^-T``, tables as :func:`_log_ratio_sum` fits them), where two coordinates are
      correlated (:data:`WHITEN_CORRELATION`) and the whitened noise does not look Gaussian
      (:func:`_gaussian_noise`: there the Fisher direction is the ratio already). When ``A`` is lower
      triangular (causal: output ``t`` reads noise up to ``t`` only, as every continual-release counter
      does), ``L = A D`` with ``D`` the noise scales, so the whitened coordinates are the independent
      noises themselves, rescaled,
      and the sum of their log ratios is the whole vector's log likelihood ratio (Laplace noise
      included, whose level sets no linear direction follows).

    Vectors wider than :data:`MAX_WHITENED`, outputs with markers (:func:`.learned.find_markers`:
    values such as a "below" code, not a linear image of noise), and covariances that are singular
    or not finite get neither.

    Returns the projections, and whether the coordinates are correlated: then the sum of the plain
    coordinates' log ratios, which is the likelihood ratio only for independent coordinates, is left
    out (:func:`vector_projections`), the whitened sum or the Fisher direction standing in for it.

    References
    ----------
    R. A. Fisher, "The Use of Multiple Measurements in Taxonomic Problems", Annals of Eugenics 7(2),
    1936 (the linear discriminant); A. Kessy, A. Lewin, K. Strimmer, "Optimal Whitening and
    Decorrelation", The American Statistician 72(4), 2018 (Cholesky whitening).
    """
    from .learned import MARKER_ELEMENTS, find_markers

    d = sel_x.shape[1]
    if not 2 <= d <= MAX_WHITENED or find_markers(sel_x, sel_x_prime, MARKER_ELEMENTS):
        return [], False
    centred = _centred_rows(sel_x, sel_x_prime)
    if centred is None:
        return [], False
    covariance = centred.T @ centred / (len(centred) - 2)
    if not np.all(np.isfinite(covariance)):
        return [], False
    try:
        factor = np.linalg.cholesky(covariance)
    except np.linalg.LinAlgError:  # singular: a constant or linearly dependent coordinate
        return [], False
    whiten = np.linalg.solve(factor, np.eye(d))  # L^-1
    out = []
    fisher = whiten.T @ (whiten @ direction)
    norms = np.linalg.norm(fisher) * np.linalg.norm(direction)
    if np.isfinite(norms) and norms > 0 and abs(fisher @ direction) / norms < FISHER_COSINE:
        out += [(f"<output, S^-1 (mean difference) {_text(fisher / np.linalg.norm(fisher))}>", Linear(fisher))]
    scales = np.sqrt(np.diag(covariance))
    correlation = covariance / np.outer(scales, scales)
    basis = np.ascontiguousarray(whiten.T)
    correlated = bool(np.max(np.abs(correlation - np.eye(d))) >= WHITEN_CORRELATION)
    if correlated and not _gaussian_noise(centred, basis):
        with np.errstate(invalid="ignore", over="ignore"):
            columns_x = [sel_x @ basis[:, i] for i in range(d)]
            columns_xp = [sel_x_prime @ basis[:, i] for i in range(d)]
        out += _log_ratio_sum(columns_x, columns_xp, basis=basis, name="sum of whitened coordinate log ratios")
    return out, correlated


def vector_projections(sel_x, sel_x_prime):
    """Projections of real vectors: each coordinate (up to 16), sum, max, mean difference, the sum of
    coordinate log ratios (:class:`LogRatioSum`) where two or more coordinates' histograms differ and
    the coordinates are not correlated, and for correlated vectors the Fisher direction and the sum of
    whitened coordinates' log ratios in its place (:func:`whitened_projections`)."""
    d = sel_x.shape[1]
    if d == 1:
        return [("output", Coordinate(0))]
    direction = np.nan_to_num(_finite_mean(sel_x) - _finite_mean(sel_x_prime))
    whitened, correlated = whitened_projections(sel_x, sel_x_prime, direction)
    columns = range(min(d, 16))
    ratios = []
    if not correlated:
        ratios = _log_ratio_sum([sel_x[:, i] for i in columns], [sel_x_prime[:, i] for i in columns])
    return _fixed_projections(d) + _direction(direction) + ratios + whitened


def row_projections(table: np.ndarray, codes_x, codes_x_prime):
    """:func:`vector_projections` of the rows ``table[codes]``, computed from the code book and code counts.

    The mean difference direction is ``sum_c (n_x(c) / n_x - n_x'(c) / n_x') row_c``: the
    selection rows are never expanded to an (n, d) array (their memory is the code book's).
    """
    d = table.shape[1]
    if d == 1:
        return [("output", Coordinate(0))]
    k = len(table)
    share_x = np.bincount(codes_x[codes_x >= 0], minlength=k) / max(1, len(codes_x))
    share_xp = np.bincount(codes_x_prime[codes_x_prime >= 0], minlength=k) / max(1, len(codes_x_prime))
    direction = np.nan_to_num((share_x - share_xp) @ np.clip(table, -1e150, 1e150))
    columns = [table[:, i] for i in range(min(d, 16))]
    count_x, count_xp = share_x * max(1, len(codes_x)), share_xp * max(1, len(codes_x_prime))
    ratios = _log_ratio_sum(columns, columns, count_x, count_xp)
    return _fixed_projections(d) + _direction(direction) + ratios
