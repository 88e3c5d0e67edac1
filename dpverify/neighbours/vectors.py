"""Vectors of query answers that differ by at most the sensitivity: StatDP's input patterns.

For a length-``n`` vector of query answers, Ding et al. (2018) test the pairs
``x = (1, ..., 1)`` and ``x'`` = ``x`` moved by a *pattern*:

========================  =====================================================
one_above                 first answer +1
one_below                 first answer -1
one_above_rest_below      first answer +1, every other -1
one_below_rest_above      first answer -1, every other +1
half_half                 first half -1, second half +1
all_above_all_below       every answer +1
x_shuffle                 ``x = (1,..,1, 0,..,0)``, ``x' = (0,..,0, 1,..,1)`` (halves swapped)
========================  =====================================================

Here each pattern is a difference ``d`` in ``{-1, 0, 1}^n`` scaled to the
relation: ``sensitivity * d`` under ``norm="linf"`` (every answer moves by at most
the sensitivity) and ``sensitivity * d / ||d||_1`` under ``norm="l1"`` (the
whole vector moves by at most the sensitivity in l1). The base is ``sensitivity``
times ones, as in StatDP. Random draws (:meth:`QueryVectors.draw`) take a random
pattern, a random integer base in ``[0, n]`` (``[-32, 32]`` for scalars; times the
sensitivity) and a random permutation of the coordinates, which moves the
difference around the vector. ``length=None`` gives scalars (one above, one below).

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018, Section 5 (input generation).

B. Bichsel, S. Steffen, I. Bogunovic, M. Vechev, "DP-Sniper: Black-Box Discovery
of Differential Privacy Violations using Classifiers", IEEE S&P 2021 (same patterns).
"""

from __future__ import annotations

import numpy as np

from .._validation import check_choice, check_positive_int, check_positive_real
from ..errors import InvalidNeighboursError
from ._base import NeighbourGenerator
from .domain import as_domain

__all__ = ["QueryVectors", "query_vectors", "PATTERNS", "pattern_pair", "NORMS"]

#: The distances that define neighbouring vectors.
NORMS = ("l1", "linf")

PATTERNS = (
    "one_above",
    "one_below",
    "one_above_rest_below",
    "one_below_rest_above",
    "half_half",
    "all_above_all_below",
    "x_shuffle",
)
SCALAR_PATTERNS = ("one_above", "one_below")
#: Random scalar bases are integers in [-SCALAR_BASE_RANGE, SCALAR_BASE_RANGE] (times the sensitivity).
SCALAR_BASE_RANGE = 32


def _unit_pair(pattern: str, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The pattern's offsets ``(a, b)`` from the base: ``x = base + a``, ``x' = base + b`` (entries in {-1, 0, 1})."""
    a, b = np.zeros(n), np.zeros(n)
    half = n // 2
    if pattern == "one_above":
        b[0] = 1
    elif pattern == "one_below":
        b[0] = -1
    elif pattern == "one_above_rest_below":
        b[0], b[1:] = 1, -1
    elif pattern == "one_below_rest_above":
        b[0], b[1:] = -1, 1
    elif pattern == "half_half":
        b[:half], b[half:] = -1, 1
    elif pattern == "all_above_all_below":
        b[:] = 1
    elif pattern == "x_shuffle":
        a[half:], b[:half] = -1, -1
    else:
        raise InvalidNeighboursError(f"unknown pattern {pattern!r}; patterns are {PATTERNS}")
    return a, b


def pattern_pair(pattern: str, length: int, sensitivity: float = 1.0, norm: str = "linf", base=None) -> tuple:
    """One StatDP pattern as a pair of tuples of floats.

    Parameters
    ----------
    pattern : str
        One of :data:`PATTERNS`.
    length : int
        Vector length (>= 1; patterns needing two entries collapse to ``one_above``/``one_below`` at 1).
    sensitivity : float
        Largest move (per answer under ``"linf"``, of the whole vector under ``"l1"``).
    norm : {"linf", "l1"}
    base : array_like, optional
        The base vector (default ``sensitivity`` times ones).

    Examples
    --------
    >>> pattern_pair("one_above_rest_below", 3)
    ((1.0, 1.0, 1.0), (2.0, 0.0, 0.0))
    >>> pattern_pair("half_half", 4, norm="l1")
    ((1.0, 1.0, 1.0, 1.0), (0.75, 0.75, 1.25, 1.25))
    """
    n = check_positive_int(length, "length", error=InvalidNeighboursError)
    sensitivity = check_positive_real(sensitivity, "sensitivity", error=InvalidNeighboursError)
    norm = check_choice(norm, "norm", NORMS, error=InvalidNeighboursError)
    a, b = _unit_pair(pattern, n)
    scale = sensitivity if norm == "linf" else sensitivity / max(np.abs(b - a).sum(), 1.0)
    base = np.full(n, sensitivity) if base is None else np.asarray(base, dtype=float)
    return tuple((base + scale * a).tolist()), tuple((base + scale * b).tolist())


class QueryVectors(NeighbourGenerator):
    """Neighbouring vectors of query answers (StatDP's patterns, then random moves of them).

    Parameters
    ----------
    length : int or None
        Number of query answers; None for a scalar answer (pairs of floats).
    sensitivity : float, default 1
    norm : {"linf", "l1"}, default "linf"
        ``"linf"``: every answer moves by at most ``sensitivity`` (counting queries
        where one record changes each answer by one); ``"l1"``: the vector moves by at
        most ``sensitivity`` in l1 (a histogram).
    patterns : sequence of str, optional
        The patterns to use (default all of :data:`PATTERNS`).
    domain : InputDomain or dict, optional
        The mechanism's input domain (:class:`dpverify.neighbours.InputDomain`): every pair
        proposed (patterns, draws, refinements) is moved into it keeping its difference within
        the relation, or dropped; None (default): any reals.
    """

    def __init__(self, length=None, sensitivity=1.0, norm="linf", patterns=None, domain=None):
        self.domain = as_domain(domain)
        self.length = None if length is None else check_positive_int(length, "length", error=InvalidNeighboursError)
        self.sensitivity = check_positive_real(sensitivity, "sensitivity", error=InvalidNeighboursError)
        self.norm = check_choice(norm, "norm", NORMS, error=InvalidNeighboursError)
        default = SCALAR_PATTERNS if self.length is None or self.length == 1 else PATTERNS
        self.patterns = tuple(default if patterns is None else patterns)
        for p in self.patterns:
            if p not in PATTERNS:
                raise InvalidNeighboursError(f"unknown pattern {p!r}; patterns are {PATTERNS}")
        if not self.patterns:
            raise InvalidNeighboursError("patterns must name at least one pattern")
        shape = "scalars" if self.length is None else f"vectors of {self.length}"
        self.relation = f"{shape}, {self.norm} distance <= {self.sensitivity:g}"
        if self.domain is not None:
            self.relation += f", {self.domain.describe()}"

    def admit(self, pair):
        """``pair`` moved into :attr:`domain` (:meth:`InputDomain.fit`), or None; as is without a domain."""
        return pair if self.domain is None else self.domain.fit(*pair)

    def with_domain(self, domain) -> QueryVectors:
        """The same generator on ``domain``."""
        return QueryVectors(self.length, self.sensitivity, self.norm, self.patterns, domain)

    def _pair(self, pattern, base=None, permutation=None) -> tuple:
        n = 1 if self.length is None else self.length
        x, x_prime = pattern_pair(pattern, n, self.sensitivity, self.norm, base)
        if permutation is not None:
            x, x_prime = tuple(np.asarray(x)[permutation].tolist()), tuple(np.asarray(x_prime)[permutation].tolist())
        if self.length is None:
            return x[0], x_prime[0]
        return x, x_prime

    def fixed_pairs(self) -> list:
        """Every pattern on the all-``sensitivity`` base, in :data:`PATTERNS` order."""
        return [self._pair(p) for p in self.patterns]

    def refinements(self, x, x_prime, n: int, rng: np.random.Generator) -> list:
        """Up to ``n`` local moves of ``(x, x_prime)``, drawn at random from every move of four kinds.

        Each keeps the difference's size, so the pair stays in the relation: *shift*
        both vectors by the sensitivity either way; *push* one answer of both by the
        sensitivity either way (towards or away from a threshold); *flip* the
        difference's sign on one answer (swap ``x_i`` and ``x'_i``); *move* the
        difference by swapping two neighbouring answers in both vectors.
        """
        a, b = np.atleast_1d(np.asarray(x, dtype=float)), np.atleast_1d(np.asarray(x_prime, dtype=float))
        s, moves = self.sensitivity, []
        for c in (s, -s):
            moves.append((a + c, b + c))
            for i in range(a.size):
                push = np.zeros(a.size)
                push[i] = c
                moves.append((a + push, b + push))
        for i in range(a.size):
            if a[i] != b[i]:
                fa, fb = a.copy(), b.copy()
                fa[i], fb[i] = b[i], a[i]
                moves.append((fa, fb))
        for i in range(a.size - 1):
            swap = np.arange(a.size)
            swap[[i, i + 1]] = swap[[i + 1, i]]
            moves.append((a[swap], b[swap]))
        # distinct moves (for scalars a push is a shift)
        distinct = list(dict.fromkeys((tuple(a.tolist()), tuple(b.tolist())) for a, b in moves))
        picked = rng.permutation(len(distinct))[: max(0, int(n))]
        moved = (self.admit(self._as_pair(*distinct[k])) for k in picked)
        return [pair for pair in moved if pair is not None]

    def _as_pair(self, a: tuple, b: tuple) -> tuple:
        return (a[0], b[0]) if self.length is None else (a, b)

    def draw(self, rng: np.random.Generator) -> tuple:
        """A random pattern on a random integer base (times the sensitivity), coordinates permuted.

        The base is in ``[0, n]`` for vectors of ``n`` answers, in ``[-32, 32]`` for scalars.
        """
        n = 1 if self.length is None else self.length
        pattern = self.patterns[int(rng.integers(len(self.patterns)))]
        low, high = (-SCALAR_BASE_RANGE, SCALAR_BASE_RANGE) if self.length is None else (0, n)
        base = self.sensitivity * rng.integers(low, high + 1, size=n).astype(float)
        return self._pair(pattern, base, rng.permutation(n))


def query_vectors(length=None, sensitivity=1.0, norm="linf", patterns=None, domain=None) -> QueryVectors:
    """Neighbouring query-answer vectors (see :class:`QueryVectors`)."""
    return QueryVectors(length, sensitivity, norm, patterns, domain)
