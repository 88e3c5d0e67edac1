"""Matroid-axiom checks and a matroid given by a user-supplied independence callable.

:func:`check_matroid_axioms` samples random independent sets and checks (I1) the empty set is
independent, (I2) heredity (every one-element deletion of an independent set is independent),
(I3) augmentation (for independent A, B with |A| < |B| some b in B \\ A extends A), and that
the incremental tracker, ``is_independent``, ``rank_of`` and ``rank`` agree.
:func:`check_matroid_axioms_exhaustive` decides all three axioms over every subset of a ground
set of at most :data:`MAX_EXHAUSTIVE_ELEMENTS` elements (bitmask tables; (I3) is checked in the
equivalent form |B| = |A| + 1). Both raise :class:`~algorithms.errors.MatroidAxiomError` naming
the violated axiom and a witness.

:class:`OracleMatroid` wraps a callable ``is_independent(frozenset) -> bool``; it is checked on
construction (exhaustively for small ground sets, else by random sampling), so a bad oracle is
rejected up front where that is cheap.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from algorithms.errors import AlgorithmInputError, MatroidAxiomError
from algorithms.matroids.base import ElementsOnlyTracker, IndependenceTracker, Matroid, as_element_array

__all__ = [
    "MAX_EXHAUSTIVE_ELEMENTS",
    "check_matroid_axioms",
    "check_matroid_axioms_exhaustive",
    "independence_table",
    "OracleMatroid",
]

#: Largest ground set for the exhaustive check (2^n subsets, 4^n pairs in chunks).
MAX_EXHAUSTIVE_ELEMENTS = 12


def _random_independent(matroid: Matroid, rng: np.random.Generator) -> list[int]:
    """A random independent set: greedy over a random order, stopped at a random size."""
    order = rng.permutation(matroid.n_elements)
    basis = matroid.greedy_in_order(order).tolist()
    return basis[: rng.integers(0, len(basis) + 1)]


def check_matroid_axioms(matroid: Matroid, rng=None, n_trials: int = 200) -> None:
    """Randomized check of the matroid axioms; raises :class:`MatroidAxiomError` on a violation.

    Parameters
    ----------
    matroid : Matroid
    rng : None, int, SeedSequence or Generator
    n_trials : int, number of random (A, B) pairs examined

    Notes
    -----
    Cost: O(n_trials * n_elements) oracle calls. A violation found is certain (a witness is
    named); passing is evidence, not proof (use the exhaustive check on tiny ground sets).
    """
    rng = np.random.default_rng(rng)
    n = matroid.n_elements
    if not matroid.is_independent([]):
        raise MatroidAxiomError("(I1) violated: the empty set is not independent")
    rank = matroid.rank
    for _ in range(n_trials):
        A = _random_independent(matroid, rng)
        B = matroid.greedy_in_order(rng.permutation(n)).tolist()
        if len(B) != rank:
            raise MatroidAxiomError(f"bases of different sizes: greedy found {B} of size {len(B)}, but rank is {rank}")
        if not matroid.is_independent(A) or not matroid.is_independent(B):
            raise MatroidAxiomError(
                f"the tracker accepted {A if not matroid.is_independent(A) else B} but is_independent rejects it"
            )
        if matroid.rank_of(B) != len(B):
            raise MatroidAxiomError(f"rank_of({B}) = {matroid.rank_of(B)} differs from its size")
        # (I2): one-element deletions of an independent set
        for i in range(len(B)):
            sub = B[:i] + B[i + 1 :]
            if not matroid.is_independent(sub):
                raise MatroidAxiomError(f"(I2) violated: {B} is independent but its subset {sub} is not")
        # (I3): A smaller than B must be augmentable from B \ A
        if len(A) < len(B):
            tr = matroid.tracker()
            for e in A:
                tr.add(e)
            if not any(tr.can_add(b) for b in B if b not in A):
                raise MatroidAxiomError(
                    f"(I3) violated: independent {A} cannot be extended by any element of the larger "
                    f"independent set {B}"
                )
        # (I2) and consistency on an arbitrary random subset (not only tracker-built ones)
        S = np.flatnonzero(rng.random(n) < rng.random()).tolist()
        indep = matroid.is_independent(S)
        if indep != (matroid.rank_of(S) == len(S)):
            raise MatroidAxiomError(f"is_independent({S}) = {indep} disagrees with rank_of({S}) = {matroid.rank_of(S)}")
        if indep:
            for i in range(len(S)):
                sub = S[:i] + S[i + 1 :]
                if not matroid.is_independent(sub):
                    raise MatroidAxiomError(f"(I2) violated: {S} is independent but its subset {sub} is not")
        # maximality: B + e dependent for every e outside B
        tr = matroid.tracker()
        for e in B:
            tr.add(e)
        for e in rng.permutation(n)[: min(n, 8)].tolist():
            if e not in B and tr.can_add(e):
                raise MatroidAxiomError(f"greedy output {B} is not maximal: element {e} extends it")


def independence_table(matroid: Matroid) -> np.ndarray:
    """Boolean array of length 2^n: entry ``mask`` says whether the subset with bits ``mask`` is
    independent according to ``matroid.is_independent`` (n <= MAX_EXHAUSTIVE_ELEMENTS)."""
    n = matroid.n_elements
    if n > MAX_EXHAUSTIVE_ELEMENTS:
        raise AlgorithmInputError(f"exhaustive tables need n_elements <= {MAX_EXHAUSTIVE_ELEMENTS}, got {n}")
    table = np.zeros(1 << n, dtype=bool)
    for mask in range(1 << n):
        table[mask] = matroid.is_independent([i for i in range(n) if mask >> i & 1])
    return table


def check_matroid_axioms_exhaustive(matroid: Matroid) -> None:
    """Decide (I1), (I2), (I3) over every subset; check ``rank_of`` and the tracker agree.

    Raises :class:`MatroidAxiomError` naming the axiom and a witness; :class:`AlgorithmInputError`
    if ``n_elements > MAX_EXHAUSTIVE_ELEMENTS``.
    """
    n = matroid.n_elements
    table = independence_table(matroid)
    if not table[0]:
        raise MatroidAxiomError("(I1) violated: the empty set is not independent")
    masks = np.arange(1 << n)
    popcount = np.array([bin(x).count("1") for x in range(1 << n)])
    # (I2): for every independent mask and every bit in it, mask minus bit independent
    for i in range(n):
        has = (masks >> i) & 1 == 1
        bad = table & has & ~table[masks ^ (1 << i) * has]
        if bad.any():
            mask = int(np.flatnonzero(bad)[0])
            raise MatroidAxiomError(
                f"(I2) violated: {_bits(mask, n)} is independent but removing {i} gives a dependent set"
            )
    # augmentable elements of each independent set
    aug = np.zeros(1 << n, dtype=np.int64)
    for i in range(n):
        without = (masks >> i) & 1 == 0
        ok = table & without & table[masks | (1 << i)]
        aug |= np.where(ok, 1 << i, 0)
    # (I3) with |B| = |A| + 1: B \ A must meet aug(A)
    indep = np.flatnonzero(table)
    for size in range(n):
        A_set = indep[popcount[indep] == size]
        B_set = indep[popcount[indep] == size + 1]
        if A_set.size == 0 or B_set.size == 0:
            continue
        for start in range(0, A_set.size, 256):
            A = A_set[start : start + 256, None]
            fail = ((B_set[None, :] & ~A) & aug[A]) == 0
            if fail.any():
                a, b = np.argwhere(fail)[0]
                raise MatroidAxiomError(
                    f"(I3) violated: independent {_bits(int(A[a, 0]), n)} cannot be extended by any element "
                    f"of the larger independent set {_bits(int(B_set[b]), n)}"
                )
    # rank_of agrees with the largest independent subset
    for mask in range(1 << n):
        sub = masks[(masks & ~mask) == 0]
        best = int(popcount[sub[table[sub]]].max())
        got = matroid.rank_of(_bits(mask, n))
        if got != best:
            raise MatroidAxiomError(f"rank_of({_bits(mask, n)}) = {got}, but its largest independent subset has {best}")


def _bits(mask: int, n: int) -> list[int]:
    return [i for i in range(n) if mask >> i & 1]


class _OracleTracker(ElementsOnlyTracker):
    def _can_add(self, e: int) -> bool:
        return bool(self.matroid.oracle(frozenset(self.elements + [e])))


class OracleMatroid(Matroid):
    """A matroid given by a callable independence oracle ``is_independent(frozenset) -> bool``.

    Parameters
    ----------
    n_elements : int
    is_independent : callable taking a frozenset of element indices
    check : {"auto", "exhaustive", "random", "none"}
        Axiom check on construction: "auto" is exhaustive when
        ``n_elements <= 10`` and random (200 trials) otherwise.
    rng : seed for the random check

    Raises
    ------
    MatroidAxiomError
        If the check finds a violated axiom.
    """

    def __init__(self, n_elements: int, is_independent: Callable[[frozenset], bool], *, check: str = "auto", rng=None):
        if isinstance(n_elements, bool) or not isinstance(n_elements, (int, np.integer)) or n_elements < 0:
            raise AlgorithmInputError(f"n_elements must be an integer >= 0, got {n_elements!r}")
        if not callable(is_independent):
            raise AlgorithmInputError("is_independent must be a callable taking a frozenset")
        if check not in ("auto", "exhaustive", "random", "none"):
            raise AlgorithmInputError(f"check must be 'auto', 'exhaustive', 'random' or 'none', got {check!r}")
        self.n_elements = int(n_elements)
        self.oracle = is_independent
        if check == "exhaustive" or (check == "auto" and n_elements <= 10):
            check_matroid_axioms_exhaustive(self)
        elif check in ("random", "auto"):
            check_matroid_axioms(self, rng=rng)

    def tracker(self) -> IndependenceTracker:
        return _OracleTracker(self)

    def is_independent(self, subset) -> bool:
        arr = as_element_array(subset, self.n_elements)
        return bool(self.oracle(frozenset(arr.tolist())))
