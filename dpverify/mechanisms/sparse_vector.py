"""The sparse vector technique: Lyu, Su, Li (VLDB 2017) Algorithms 1 to 6.

The data is a vector of query answers ``q`` (each of sensitivity 1); each
query is answered "above" (1) or "below" (0) a threshold ``T``.

Algorithm 1 (correct, eps-DP): ``eps1 = eps2 = eps/2``, threshold noise
``rho = Lap(1/eps1)``, query noise ``nu_i = Lap(2c/eps2)``; answer 1 iff
``q_i + nu_i >= T + rho``; stop after ``c`` answers 1.

Algorithm 2 (Dwork and Roth 2014, correct, eps-DP): ``eps1 = eps2 = eps/2``,
``rho = Lap(c/eps1)``, query noise ``nu_i = Lap(2c/eps1)``; answer 1 iff
``q_i + nu_i >= T + rho``, and after every answer 1 the threshold noise is drawn
afresh, ``rho = Lap(c/eps2)``; stop after ``c`` answers 1.

Algorithm 3 (Roth's lecture notes; broken, infinite loss) releases the noisy
values of the queries above the threshold: :class:`SparseVectorValues`.

Algorithm 5 (Stoddard et al.; broken, infinite loss): ``rho = Lap(2/eps)``,
no query noise, no cutoff: answer 1 iff ``q_i >= T + rho`` for every query.
The answers are then a deterministic function of ``rho``; two inputs whose
answers order differently have disjoint sets of possible answer vectors.

Algorithm 4 (Lee and Clifton 2014; claimed eps-DP, Lyu et al. prove only
``(1 + 6c)/4 * eps``): ``eps1 = eps/4``, ``rho = Lap(1/eps1)``, query noise
``nu_i = Lap(1/eps2)`` with ``eps2 = 3 eps / 4`` (not scaled with ``c``); answer
1 iff ``q_i + nu_i > T + rho``; stop after ``c`` answers 1.

Algorithm 6 (Chen et al. 2015; claimed eps-DP, loss grows without bound with
the number of queries): ``rho = Lap(2/eps)``, ``nu_i = Lap(2/eps)``, no cutoff.

Exact pmfs. Given ``rho = r`` the answers are independent, so every answer
vector's probability is an integral over ``r`` of a product of Laplace tail
probabilities (Lyu et al. 2017, proof of Theorem 2); with the threshold noise
refreshed after every answer 1 (Algorithm 2) the answers split into segments,
each ending at a 1, with independent threshold noise, and the probability is the
product of one such integral per segment;
:func:`sparse_vector_pmf` evaluates it by composite Gauss-Legendre quadrature
on panels between the kinks of the integrand (``r = 0`` and ``r = q_i - T``).
Algorithm 5 has a closed form (:meth:`SparseVectorNoQueryNoise.pmf`).

Outputs. ``output="answers"`` gives the answer sequence as an int8 vector
(1 above, 0 below, -1 not answered after the cutoff), which the auditor sees
as tuples of ints. ``output="mask"`` (default) gives the same information as
one integer, the bitmask ``sum_i 2^i [answer i is 1]``: the answered prefix
ends at the c-th 1 (or runs to the end), so the mask determines the sequence
(:func:`answers_from_mask`). Masks are much faster to encode for millions of
samples (the auditor's row encoding sorts whole rows); the audit is the same
because the two outputs are in bijection.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_at_most, check_choice, check_epsilon, check_positive_int
from ..claims import StatesClaim
from ..errors import InvalidParameterError
from ._base import PmfPairLoss, query_answers

__all__ = [
    "SparseVector",
    "SparseVectorDworkRoth",
    "SparseVectorLeeClifton",
    "SparseVectorNoQueryNoise",
    "SparseVectorNoCutoff",
    "SparseVectorValues",
    "sparse_vector_pmf",
    "interleaved_pair",
    "answers_from_mask",
    "MAX_MASK_QUERIES",
]

#: Masks are int64: at most this many queries with ``output="mask"``.
MAX_MASK_QUERIES = 62
OUTPUTS = ("mask", "answers")


def _check_output(output: str) -> str:
    return check_choice(output, "output", OUTPUTS)


def _finish(above: np.ndarray, answered: np.ndarray, output: str):
    """Answers (1/0, -1 where unanswered) as int8 rows or as int64 masks of the 1s."""
    if output == "answers":
        out = above.astype(np.int8)
        out[~answered] = -1
        return out
    if above.shape[1] > MAX_MASK_QUERIES:
        raise InvalidParameterError(
            f"output='mask' supports at most {MAX_MASK_QUERIES} queries, got {above.shape[1]}; use output='answers'"
        )
    weights = np.left_shift(np.int64(1), np.arange(above.shape[1], dtype=np.int64))
    return (above & answered).astype(np.int64) @ weights


def answers_from_mask(mask: int, n_queries: int, cutoff=None) -> tuple:
    """The answer sequence (1, 0, -1 after the cutoff) encoded by ``mask``."""
    answers = [(int(mask) >> i) & 1 for i in range(n_queries)]
    if cutoff is not None and sum(answers) >= cutoff:
        last = [i for i, a in enumerate(answers) if a][cutoff - 1]
        answers = answers[: last + 1] + [-1] * (n_queries - last - 1)
    return tuple(answers)


class _SparseVectorMechanism(PmfPairLoss, StatesClaim):
    """What the four algorithms share: the claim's relation, the checked parameters, one output per call."""

    claim_neighbouring = "each query answer changes by at most 1"

    def __init__(self, epsilon, threshold, output: str, cutoff=None):
        self.output = _check_output(output)
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        if cutoff is not None:
            self.cutoff = _check_cutoff(cutoff)
        self.threshold = float(threshold)

    #: At most this many answers 1 (None: every query is answered); set by the algorithms that stop.
    cutoff = None
    #: Answer 1 iff ``q_i + nu_i > T + rho`` (Algorithm 4), else iff ``>=``.
    strict = False
    #: Draw the threshold noise afresh after every answer 1 (Algorithm 2).
    refresh = False

    def sample(self, data, size, rng):
        return _sample_answers(
            query_answers(data),
            size,
            rng,
            self.threshold,
            self.threshold_scale,
            self.query_scale,
            self.cutoff,
            self.strict,
            self.output,
            self.refresh,
        )

    def __call__(self, data, rng):
        out = self.sample(data, 1, rng)[0]
        return int(out) if self.output == "mask" else tuple(int(v) for v in out)

    def pmf(self, data) -> dict:
        """Exact pmf of the mask output (:func:`sparse_vector_pmf`)."""
        return sparse_vector_pmf(
            data, self.threshold, self.threshold_scale, self.query_scale, self.cutoff, refresh=self.refresh
        )


class SparseVector(_SparseVectorMechanism):
    """Lyu et al. Algorithm 1 with cutoff ``c``: eps-DP."""

    claim_source = "Lyu, Su and Li 2017, Algorithm 1"

    def __init__(self, epsilon, threshold=0.0, cutoff: int = 1, output: str = "mask"):
        super().__init__(epsilon, threshold, output, cutoff)
        eps1 = eps2 = self.epsilon / 2
        self.threshold_scale = 1.0 / eps1
        self.query_scale = 2.0 * self.cutoff / eps2

    def pmf(self, data) -> dict:
        """Exact output distribution for cutoff 1 (mask outputs), by quadrature over rho.

        ``P[first 1 at k] = int f_rho(r) prod_{i<k} F_nu(T + r - q_i) (1 - F_nu(T + r - q_k)) dr``
        and ``P[no 1] = int f_rho(r) prod_i F_nu(T + r - q_i) dr`` (Lyu et al. 2017, proof of Thm 2).
        """
        if self.cutoff != 1 or self.output != "mask":
            raise InvalidParameterError("pmf is implemented for cutoff=1 and output='mask'")
        from scipy import integrate, stats

        q = query_answers(data)
        rho = stats.laplace(scale=self.threshold_scale)
        nu = stats.laplace(scale=self.query_scale)
        width = 40 * self.threshold_scale  # rho density below e^-40 beyond
        lo, hi = -width + q.min() - self.threshold, width + q.max() - self.threshold
        points = sorted({0.0, *np.clip(q - self.threshold, lo, hi)})
        out = {}
        for k in range(q.size + 1):

            def density(r, k=k):
                below = np.prod(nu.cdf(self.threshold + r - q[:k]))
                above = nu.sf(self.threshold + r - q[k]) if k < q.size else 1.0
                return rho.pdf(r) * below * above

            value, _ = integrate.quad(density, lo, hi, points=points, limit=200, epsabs=1e-14, epsrel=1e-10)
            out[(1 << k) if k < q.size else 0] = value
        total = sum(out.values())
        return {key: v / total for key, v in out.items()}


class SparseVectorNoQueryNoise(_SparseVectorMechanism):
    """Lyu et al. Algorithm 5: no query noise, no cutoff; claimed eps-DP, true loss infinite."""

    claim_source = "Lyu, Su and Li 2017, Algorithm 5"

    def __init__(self, epsilon, threshold=0.0, output: str = "mask"):
        super().__init__(epsilon, threshold, output)
        self.threshold_scale = 2.0 / self.epsilon

    def sample(self, data, size, rng):
        q = query_answers(data)
        rho = rng.laplace(scale=self.threshold_scale, size=(size, 1))
        above = q >= self.threshold + rho
        return _finish(above, np.ones_like(above), self.output)

    def pmf(self, data) -> dict:
        """Exact pmf of the mask output (closed form).

        The answers are ``{i : q_i >= u}`` with ``u = T + rho``: with the distinct
        answers ``v_1 < ... < v_m``, ``u <= v_1`` gives all 1s, ``v_j < u <= v_{j+1}``
        gives ``{i : q_i >= v_{j+1}}`` and ``u > v_m`` gives all 0s.
        """
        from scipy import stats

        if self.output != "mask":
            raise InvalidParameterError("pmf is implemented for output='mask'")
        q = query_answers(data)
        check_at_most(q.size, MAX_MASK_QUERIES, "queries")
        u = stats.laplace(loc=self.threshold, scale=self.threshold_scale)
        weights = np.left_shift(np.int64(1), np.arange(q.size, dtype=np.int64))

        def mask(level):
            return int((q >= level).astype(np.int64) @ weights)

        def mass(a, b):  # P[a < u <= b], from the tail that keeps precision
            if a >= self.threshold:
                return float(u.sf(a) - u.sf(b))
            return float(u.cdf(b) - u.cdf(a))

        v = np.unique(q)
        out = {mask(v[0]): float(u.cdf(v[0]))}
        for a, b in zip(v[:-1], v[1:]):
            out[mask(b)] = out.get(mask(b), 0.0) + mass(a, b)
        out[0] = out.get(0, 0.0) + float(u.sf(v[-1]))
        return out


def _check_cutoff(cutoff) -> int:
    return check_positive_int(cutoff, "cutoff")


def _sample_answers(q, size, rng, threshold, threshold_scale, query_scale, cutoff, strict, output, refresh=False):
    """Shared sampler: answer 1 iff ``q_i + nu_i >= T + rho`` (``>`` if strict), stop after ``cutoff`` 1s.

    With ``refresh``, rho is drawn afresh after every answer 1 (one column of fresh
    draws per query, used where the previous answer was 1).
    """
    rho = rng.laplace(scale=threshold_scale, size=(size, 1))
    nu = rng.laplace(scale=query_scale, size=(size, q.size))
    if refresh:
        fresh = rng.laplace(scale=threshold_scale, size=(size, q.size))
        above = np.empty((size, q.size), dtype=bool)
        current = rho[:, 0].copy()
        for i in range(q.size):
            noisy, level = q[i] + nu[:, i], threshold + current
            above[:, i] = (noisy > level) if strict else (noisy >= level)
            current = np.where(above[:, i], fresh[:, i], current)
    else:
        above = (q + nu > threshold + rho) if strict else (q + nu >= threshold + rho)
    if cutoff is None:
        answered = np.ones_like(above)
    else:
        answered = (np.cumsum(above, axis=1) - above) < cutoff
    return _finish(above, answered, output)


#: Largest number of queries for which :func:`sparse_vector_pmf` enumerates answer vectors.
MAX_PMF_QUERIES = 20
#: Gauss-Legendre nodes per quadrature panel.
_GL_NODES = 16


def _quadrature(lo, hi, breaks, width):
    """Composite Gauss-Legendre nodes and weights on [lo, hi], panels split at ``breaks``, <= ``width`` wide."""
    edges = np.unique(np.clip(np.concatenate([[lo, hi], np.asarray(breaks, dtype=float)]), lo, hi))
    x, w = np.polynomial.legendre.leggauss(_GL_NODES)
    nodes, weights = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        k = max(1, int(np.ceil((b - a) / width)))
        cuts = np.linspace(a, b, k + 1)
        half = np.diff(cuts)[:, None] / 2
        mid = (cuts[:-1, None] + cuts[1:, None]) / 2
        nodes.append((mid + half * x).ravel())
        weights.append((half * w).ravel())
    return np.concatenate(nodes), np.concatenate(weights)


def sparse_vector_pmf(data, threshold, threshold_scale, query_scale, cutoff=None, *, refresh=False) -> dict:
    """Exact pmf of a sparse-vector mechanism's mask output, by quadrature over the threshold noise.

    The mechanism answers 1 iff ``q_i + nu_i >= T + rho`` with ``rho ~ Lap(threshold_scale)``
    and independent ``nu_i ~ Lap(query_scale)``, and stops after ``cutoff`` answers 1
    (``None``: never). Given ``rho = r`` the answers are independent with
    ``P[answer i = 1] = P[nu_i >= T + r - q_i]``, so an answer vector's
    probability is ``int f_rho(r) prod_{answered i} P[answer i | r] dr`` (Lyu, Su, Li 2017,
    proof of Theorem 2). The integral is taken by 16-point Gauss-Legendre on
    panels no wider than half the smaller noise scale, split at the kinks
    ``r = 0`` and ``r = q_i - T``, over ``|r| <= 45 threshold_scale`` (beyond,
    the density of rho is below ``e^-45``); the masses are normalized (they sum
    to 1 within ~1e-15 before that).

    With ``refresh`` (Lyu et al. 2017, Algorithm 2, after Dwork and Roth 2014) the
    threshold noise is drawn afresh after every answer 1. The answers then split into
    segments, each running from the query after a 1 (or the first query) to the next
    1 (or to the last query answered), whose threshold noises are independent, so an
    answer vector's probability is the product over its segments of
    ``int f_rho(r) prod_{i in segment} P[answer i | r] dr``; each segment integral
    is taken by the same quadrature.

    Parameters
    ----------
    data : sequence of float
        Query answers ``q`` (at most :data:`MAX_PMF_QUERIES`).
    threshold, threshold_scale, query_scale : float
        ``T`` and the Laplace scales (``query_scale > 0``).
    cutoff : int or None
    refresh : bool, default False
        Draw the threshold noise afresh after every answer 1.

    Returns
    -------
    dict
        Mask (as in ``output="mask"``) -> probability, over every possible mask.

    References
    ----------
    M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for Differential
    Privacy", PVLDB 10(6), 2017, Figure 1 (Algorithms 1 to 6) and the proof of Theorem 2.
    """
    from scipy import stats

    q = query_answers(data)
    check_at_most(q.size, MAX_PMF_QUERIES, "queries")
    if not (threshold_scale > 0 and query_scale > 0):
        raise InvalidParameterError("threshold_scale and query_scale must be > 0")
    cutoff = None if cutoff is None else _check_cutoff(cutoff)
    n = q.size
    masks = np.arange(1 << n, dtype=np.int64)
    bits = ((masks[:, None] >> np.arange(n)) & 1).astype(bool)
    ones = bits.sum(axis=1)
    if cutoff is None or cutoff >= n:
        answered = np.ones_like(bits)
    else:
        keep = ones <= cutoff
        masks, bits, ones = masks[keep], bits[keep], ones[keep]
        # with `cutoff` ones the answers stop at the last one; with fewer all are answered
        last = np.where(bits, np.arange(n), -1).max(axis=1)
        answered = np.where((ones == cutoff)[:, None], np.arange(n) <= last[:, None], True)
    width = 45.0 * threshold_scale
    r, w = _quadrature(-width, width, np.concatenate([[0.0], q - threshold]), 0.5 * min(threshold_scale, query_scale))
    z = threshold + r[None, :] - q[:, None]  # (n, R): answer i is 1 iff nu_i >= z
    log_up = stats.laplace.logsf(z, scale=query_scale)
    log_down = stats.laplace.logcdf(z, scale=query_scale)
    density = stats.laplace.pdf(r, scale=threshold_scale) * w
    if refresh:
        return _refreshed_pmf(masks, bits, answered, log_up, log_down, density)
    a1 = (bits & answered).astype(float)
    a0 = (~bits & answered).astype(float)
    log_prob = a1 @ log_up + a0 @ log_down
    mass = np.exp(log_prob) @ density
    total = mass.sum()
    if abs(total - 1.0) > 1e-9:
        raise AssertionError(f"sparse-vector quadrature lost mass: total {total!r}")
    return {int(m): float(v) for m, v in zip(masks, mass / total)}


def _refreshed_pmf(masks, bits, answered, log_up, log_down, density) -> dict:
    """Masks' probabilities when the threshold noise is refreshed after every 1 (see :func:`sparse_vector_pmf`).

    ``segment[s, e]``: queries ``s .. e-1`` below and ``e`` above on one threshold
    draw; ``tail[s, e]``: queries ``s .. e-1`` all below on one draw (the last segment,
    when fewer than ``cutoff`` answers are 1).
    """
    n = log_up.shape[0]
    below = np.vstack([np.zeros((1, log_down.shape[1])), np.cumsum(log_down, axis=0)])  # below[k] = sum_{i<k}
    segment = np.zeros((n, n))
    tail = np.zeros((n, n + 1))  # tail[s, e]: queries s .. e-1 all below
    for s in range(n):
        segment[s, s:] = np.exp(below[s:n] - below[s] + log_up[s:]) @ density
        tail[s, s:] = np.exp(below[s:] - below[s]) @ density
    out = {}
    for mask, row, ans in zip(masks, bits, answered):
        ones = np.flatnonzero(row & ans)
        last = int(np.flatnonzero(ans).max()) + 1 if ans.any() else 0
        prob, start = 1.0, 0
        for e in ones:
            prob *= segment[start, e]
            start = e + 1
        if start < last:
            prob *= tail[start, last]
        out[int(mask)] = prob
    total = sum(out.values())
    if abs(total - 1.0) > 1e-9:
        raise AssertionError(f"sparse-vector quadrature lost mass: total {total!r}")
    return {m: v / total for m, v in out.items()}


class SparseVectorDworkRoth(_SparseVectorMechanism):
    """Lyu et al. Algorithm 2 (Dwork and Roth 2014): threshold noise refreshed after every answer 1; eps-DP.

    ``eps1 = eps2 = eps/2``, ``rho = Lap(c/eps1)``, ``nu_i = Lap(2c/eps1)``; answer 1 iff
    ``q_i + nu_i >= T + rho``, then draw ``rho = Lap(c/eps2)`` afresh; stop after ``c`` answers 1.

    References
    ----------
    C. Dwork, A. Roth, "The Algorithmic Foundations of Differential Privacy", 2014,
    Algorithm 2 (Sparse); M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector
    Technique for Differential Privacy", PVLDB 10(6), 2017, Figure 1, Algorithm 2.
    """

    claim_source = "Lyu, Su and Li 2017, Algorithm 2 (Dwork and Roth 2014)"
    refresh = True

    def __init__(self, epsilon, threshold=0.0, cutoff: int = 1, output: str = "mask"):
        super().__init__(epsilon, threshold, output, cutoff)
        eps1 = self.epsilon / 2
        self.threshold_scale = self.cutoff / eps1
        self.query_scale = 2.0 * self.cutoff / eps1
        # the refreshed draws are Lap(c/eps2): the same scale as the first, since eps1 = eps2


class SparseVectorLeeClifton(_SparseVectorMechanism):
    """Lyu et al. Algorithm 4 (Lee and Clifton 2014): claimed eps-DP, provably only ((1 + 6c)/4) eps.

    ``eps1 = eps/4``, ``rho = Lap(1/eps1)``, ``nu_i = Lap(1/eps2)`` with ``eps2 = eps - eps1``;
    answer 1 iff ``q_i + nu_i > T + rho``; stop after ``c`` answers 1.
    """

    claim_source = "Lyu, Su and Li 2017, Algorithm 4 (Lee and Clifton 2014)"
    strict = True

    def __init__(self, epsilon, threshold=0.0, cutoff: int = 1, output: str = "mask"):
        super().__init__(epsilon, threshold, output, cutoff)
        eps1 = self.epsilon / 4
        self.threshold_scale = 1.0 / eps1
        self.query_scale = 1.0 / (self.epsilon - eps1)


class SparseVectorNoCutoff(_SparseVectorMechanism):
    """Lyu et al. Algorithm 6 (Chen et al. 2015): no cutoff; claimed eps-DP, loss grows with the queries.

    ``rho = Lap(2/eps)``, ``nu_i = Lap(2/eps)``; every query is answered (1 iff
    ``q_i + nu_i >= T + rho``).
    """

    claim_source = "Lyu, Su and Li 2017, Algorithm 6"

    def __init__(self, epsilon, threshold=0.0, output: str = "mask"):
        super().__init__(epsilon, threshold, output)
        self.threshold_scale = 2.0 / self.epsilon
        self.query_scale = 2.0 / self.epsilon


def interleaved_pair(n_queries: int):
    """Neighbouring answers whose possible answer vectors under Algorithm 5 are almost disjoint.

    ``x = (0, 0, 2, 2, 4, 4, ...)`` and ``x' = x + (-1, +1, -1, +1, ...)``
    (every answer moves by one). Under x the answer vectors are the suffixes
    ``{i >= 2j}``, under x' the suffixes ``{i >= 2j + 1}``; they share only the
    all-1 and all-0 vectors, so the event "a suffix starting at an even index
    2 <= 2j <= n-2" has probability ``P[T + rho in (0, n-2]]`` under x and 0
    under x'. Centre the threshold at ``(n-2)/2`` to maximize it.

    Returns
    -------
    x, x_prime : tuple of float
    """
    if n_queries < 4 or n_queries % 2:
        raise InvalidParameterError(f"n_queries must be an even integer >= 4, got {n_queries!r}")
    x = np.repeat(np.arange(0, n_queries, 2, dtype=float), 2)
    shift = np.where(np.arange(n_queries) % 2 == 0, -1.0, 1.0)
    return tuple(x.tolist()), tuple((x + shift).tolist())


#: Entries of :class:`SparseVectorValues` outputs: a query answered "below", and a query not answered.
BELOW = -1000.0
ABORTED = -2000.0


class SparseVectorValues(StatesClaim):
    """Lyu et al. Algorithm 3 (Roth's lecture notes): sparse vector returning the noisy values. Broken.

    ``eps1 = eps2 = eps/2``, threshold noise ``rho = Lap(1/eps1)``, query noise
    ``nu_i = Lap(c/eps2)``; a query with ``q_i + nu_i >= T + rho`` is answered with its
    noisy value ``q_i + nu_i`` (else :data:`BELOW`), and after ``c`` such answers the rest
    are :data:`ABORTED`. It claims eps-DP; Lyu et al. show it is not eps'-DP for any
    finite eps' (the released values tell about ``rho``). The output is a float vector
    (the markers as DP-Sniper encodes them), so the audit sees a real vector.

    References
    ----------
    M. Lyu, D. Su, N. Li, "Understanding the Sparse Vector Technique for Differential
    Privacy", PVLDB 10(6), 2017, Figure 1, Algorithm 3.
    """

    claim_neighbouring = "each query answer changes by at most 1"
    claim_source = "Lyu, Su and Li 2017, Algorithm 3"

    def __init__(self, epsilon, threshold=1.0, cutoff: int = 2):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.threshold = float(threshold)
        self.cutoff = _check_cutoff(cutoff)
        self.threshold_scale = 2.0 / self.epsilon
        self.query_scale = 2.0 * self.cutoff / self.epsilon

    def sample(self, data, size, rng):
        q = query_answers(data)
        rho = rng.laplace(scale=self.threshold_scale, size=(size, 1))
        noisy = q + rng.laplace(scale=self.query_scale, size=(size, q.size))
        above = noisy >= self.threshold + rho
        answered = (np.cumsum(above, axis=1) - above) < self.cutoff
        out = np.where(above, noisy, BELOW)
        out[~answered] = ABORTED
        return out

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]
