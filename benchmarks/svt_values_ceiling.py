"""The exact likelihood ratio of the sparse vector returning its values, and a Monte Carlo ceiling from it.

Lyu, Su and Li's Algorithm 3 (:class:`dpverify.mechanisms.SparseVectorValues`) outputs, per query,
its noisy value ``v_i = q_i + nu_i`` where it is at least ``T + rho``, a "below" marker where it is
not, and an "aborted" marker after the ``c``-th value. Given ``rho = r`` the entries are
independent, so an output with values on the set ``A`` and "below" on the set ``B`` has density

    prod_{i in A} f_nu(v_i - q_i) * int_{-inf}^{min_A v - T} f_rho(r) prod_{i in B} F_nu(T + r - q_i) dr

(Lyu et al. 2017, proof of Theorem 3, with the values' constraint ``r <= v_i - T``). The integral is a
function of ``B`` and of its upper limit only; :class:`ValuesLogDensity` tabulates its logarithm on a
fine grid of ``r`` (trapezoid rule, step 0.02 against noise scales of tens) once per set ``B`` and
interpolates. The output distribution itself is continuous, so no pmf is available; the ceiling
(the best Clopper-Pearson bound any event could certify, :func:`dpverify.audits.oracle.oracle_epsilon_bound`)
is estimated on a pooled Monte Carlo sample of both inputs: by Neyman-Pearson the best events are
level sets of the exact ratio, and the probability of a level set under each input is the pooled
mean of ``2 P / (P + P')`` (resp. ``2 P' / (P + P')``) over its rows. The ratio of the two estimates
is then precise even for small events (its terms vary only within the ratio's range), where counts
of each input's own rows would add binomial noise and an upward bias from the best-of-many choice.

References
----------
M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for Differential Privacy",
PVLDB 10(6), 2017, Figure 1, Algorithm 3.

J. Neyman and E. S. Pearson, "On the problem of the most efficient tests of statistical
hypotheses", Philosophical Transactions of the Royal Society A, 1933.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from dpverify.mechanisms.sparse_vector import ABORTED, BELOW
from dpverify.support.bounds import clopper_pearson_epsilon_bound

__all__ = ["ValuesLogDensity", "monte_carlo_ceiling"]

#: Grid step of the threshold noise in the tabulated integral, and its half-width in threshold scales.
STEP = 0.02
WIDTH = 45.0


class ValuesLogDensity:
    """``log`` of the density of :class:`~dpverify.mechanisms.SparseVectorValues` outputs at answers ``q``."""

    def __init__(self, mechanism, q):
        self.q = np.asarray(q, dtype=float)
        self.threshold = mechanism.threshold
        self.query_scale = mechanism.query_scale
        width = WIDTH * mechanism.threshold_scale
        self.r = np.arange(-width, width + STEP, STEP)
        self.log_prior = stats.laplace.logpdf(self.r, scale=mechanism.threshold_scale)
        self._tables = {}

    def _table(self, below: int) -> np.ndarray:
        """``log int_{-inf}^{r_k} f_rho prod_{i in B} F_nu(T + r - q_i) dr`` on the grid, ``B`` a bitmask."""
        if below not in self._tables:
            log = self.log_prior.copy()
            for i in np.flatnonzero((below >> np.arange(self.q.size)) & 1):
                log += stats.laplace.logcdf(self.threshold + self.r - self.q[i], scale=self.query_scale)
            g = np.exp(log)
            cumulative = np.concatenate([[0.0], np.cumsum((g[1:] + g[:-1]) / 2 * STEP)])
            self._tables[below] = np.log(np.maximum(cumulative, 1e-300))
        return self._tables[below]

    def __call__(self, outputs) -> np.ndarray:
        outputs = np.asarray(outputs, dtype=float)
        value = (outputs != BELOW) & (outputs != ABORTED)
        below = (outputs == BELOW).astype(np.int64) @ (1 << np.arange(outputs.shape[1]))
        limit = np.min(np.where(value, outputs, np.inf), axis=1) - self.threshold
        values = stats.laplace.logpdf(np.where(value, outputs, 0.0) - self.q, scale=self.query_scale)
        out = np.where(value, values, 0.0).sum(axis=1)
        for b in np.unique(below):
            rows = below == b
            out[rows] += np.interp(np.minimum(limit[rows], self.r[-1]), self.r, self._table(int(b)))
        return out


def monte_carlo_ceiling(mechanism, x, x_prime, n, *, alpha=0.1, n_monte_carlo=2_000_000, seed=0, events=1):
    """The best Clopper-Pearson bound of a level set of the exact ratio at ``n`` samples per input.

    Estimated from ``n_monte_carlo`` outputs per input (see the module docstring), at the expected
    counts as :func:`~dpverify.audits.oracle.oracle_epsilon_bound` takes them; ``events > 1`` splits
    ``alpha`` over that many events (an audit's Bonferroni over its frozen events).

    Returns
    -------
    float
    """
    rng = np.random.default_rng(seed)
    density_x, density_xp = ValuesLogDensity(mechanism, x), ValuesLogDensity(mechanism, x_prime)
    parts = []
    for q in (x, x_prime):
        for start in range(0, n_monte_carlo, 500_000):
            rows = mechanism.sample(np.asarray(q, dtype=float), min(500_000, n_monte_carlo - start), rng)
            parts.append(density_x(rows) - density_xp(rows))
    log_ratio = np.concatenate(parts)
    weight_x = 2.0 / (1.0 + np.exp(-log_ratio)) / len(log_ratio)
    weight_xp = 2.0 / (1.0 + np.exp(log_ratio)) / len(log_ratio)
    ranks = np.unique(np.geomspace(100, len(log_ratio) - 1, 4000).astype(np.int64))
    best = 0.0
    for order, (w_num, w_den) in (
        (np.argsort(-log_ratio, kind="stable"), (weight_x, weight_xp)),
        (np.argsort(log_ratio, kind="stable"), (weight_xp, weight_x)),
    ):
        p, q = np.cumsum(w_num[order])[ranks], np.cumsum(w_den[order])[ranks]
        bounds = np.asarray(clopper_pearson_epsilon_bound(n * p, n, n * q, n, alpha / events, 0.0), dtype=float)
        best = max(best, float(np.nanmax(bounds)))
    return best
