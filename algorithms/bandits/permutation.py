"""The round-dependent permutation pi_t of the regret decomposition (Chandak 2023, Section 4.1.3).

Given the super arm A^t = (a_1^t, ..., a_K^t) played in round t, ordered by the index J_t
descending (the greedy selection order), and the optimal super arm A* = (a_1^*, ..., a_K^*)
ordered by mean descending, pi_t is built backwards (Chandak 2023, eq. 4.5): for k = K, ..., 1

    B_k = {a_1^t, ..., a_{k-1}^t} U {a*_{pi(k+1)}, ..., a*_{pi(K)}};
    pi(k) = i                if a_k^t = a_i^*                           (case 1),
    pi(k) = min{ i : a_i^* not in B_k and B_k + a_i^* independent }  (case 2).

Claimed (and checked by :func:`check_regret_permutation`): pi is a permutation of [K]
(Claim 12, Corollary 13); (1) a_k^t in A* implies a*_{pi(k)} = a_k^t; (2) both
{a_1^t..a_{k-1}^t, a_k^t} and {a_1^t..a_{k-1}^t, a*_{pi(k)}} are independent; (3) a_k^t not in
A* implies J_t(a_k^t) >= J_t(a*_{pi(k)}); Lemma 22: A^t with a^t_{pi^{-1}(k)} replaced by a_k^*
is independent -- **this last claim is false in general** (see :func:`lemma22_violations`;
counterexamples in ``properties/bandits/test_permutation.py``). The regret decomposition
(Chandak 2023, eq. (a) after 4.6) is
sum_{A*} mu - sum_{A^t} mu = sum_k (mu(a_k^*) - mu(a^t_{pi^{-1}(k)})).

Indices here are 0-based: ``pi[k] = i`` pairs ``played[k]`` with ``optimal[i]``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from algorithms.errors import AlgorithmInputError
from algorithms.matroids.base import Matroid, as_element_array

__all__ = [
    "PermutationPropertyError",
    "regret_permutation",
    "regret_pairs",
    "check_regret_permutation",
    "regret_decomposition",
    "lemma22_violations",
    "check_pairs_on_table",
    "greedy_on_table",
    "PAIR_CHECK_FIELDS",
]


class PermutationPropertyError(AssertionError):
    """A claimed property of pi_t (Chandak 2023, Section 4.1.3) fails on the given round."""


def _bases(matroid: Matroid, played, optimal):
    played = as_element_array(played, matroid.n_elements)
    optimal = as_element_array(optimal, matroid.n_elements)
    K = matroid.rank
    if played.size != K or optimal.size != K:
        raise AlgorithmInputError(
            f"played and optimal must be bases (size rank = {K}); got sizes {played.size} and {optimal.size}"
        )
    if not matroid.is_independent(played) or not matroid.is_independent(optimal):
        raise AlgorithmInputError("played and optimal must be independent sets (bases) of the matroid")
    return played, optimal


def regret_permutation(matroid: Matroid, played, optimal) -> np.ndarray:
    """pi_t of Chandak 2023 eq. (4.5), 0-based: ``pi[k]`` is the position in ``optimal`` paired with
    ``played[k]``.

    Parameters
    ----------
    matroid : Matroid
    played : sequence of K elements, A^t sorted by the index J_t descending
    optimal : sequence of K elements, A* sorted by the mean descending

    Raises
    ------
    AlgorithmInputError
        If ``played`` or ``optimal`` is not a basis.
    PermutationPropertyError
        If case 2 finds no admissible optimal arm (impossible for a true matroid).

    References
    ----------
    .. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
       Optimization", MSc thesis, University of Alberta, 2023. Section 4.1.3, eq. (4.5).
    """
    played, optimal = _bases(matroid, played, optimal)
    K = played.size
    position = {int(e): i for i, e in enumerate(optimal.tolist())}
    pi = np.full(K, -1, dtype=np.int64)
    for k in range(K - 1, -1, -1):
        a = int(played[k])
        if a in position:
            pi[k] = position[a]
            continue
        B = played[:k].tolist() + [int(optimal[pi[j]]) for j in range(k + 1, K)]
        tracker = matroid.tracker()
        for e in B:
            if not tracker.try_add(e):
                raise PermutationPropertyError(f"B_{k + 1} = {B} is not independent")
        in_B = set(B)
        for i in range(K):
            cand = int(optimal[i])
            if cand not in in_B and tracker.can_add(cand):
                pi[k] = i
                break
        else:
            raise PermutationPropertyError(f"case 2 at k = {k + 1}: no optimal arm extends B_k = {B}")
    return pi


def regret_pairs(played, optimal, pi) -> list[tuple[int, int]]:
    """The pairs (a_k^t, a*_{pi(k)}) for k = 1..K."""
    return [(int(played[k]), int(optimal[pi[k]])) for k in range(len(played))]


def regret_decomposition(played, optimal, pi, means) -> tuple[float, np.ndarray]:
    """Per-round regret sum_{A*} mu - sum_{A^t} mu and its terms mu(a_k^*) - mu(a^t_{pi^{-1}(k)})."""
    means = np.asarray(means, dtype=np.float64)
    played = np.asarray(played)
    optimal = np.asarray(optimal)
    inverse = np.argsort(pi)
    terms = means[optimal] - means[played[inverse]]
    return float(means[optimal].sum() - means[played].sum()), terms


def check_regret_permutation(matroid: Matroid, played, optimal, pi, index) -> None:
    """Check Corollary 13 and properties (1)-(3) for one round (Chandak 2023, Sec. 4.1.3).

    Lemma 22 is checked separately by :func:`lemma22_violations` (it does not always hold).

    Parameters
    ----------
    index : array (n_elements,), the round's index J_t (used for property (3))

    Raises
    ------
    PermutationPropertyError
        Naming the property that fails and the round's data.
    """
    played, optimal = _bases(matroid, played, optimal)
    K = played.size
    pi = np.asarray(pi, dtype=np.int64)
    index = np.asarray(index, dtype=np.float64)
    if sorted(pi.tolist()) != list(range(K)):
        raise PermutationPropertyError(f"Corollary 13: pi = {pi.tolist()} is not a permutation of range({K})")
    opt_set = set(optimal.tolist())
    for k in range(K):
        a = int(played[k])
        partner = int(optimal[pi[k]])
        if a in opt_set and partner != a:
            raise PermutationPropertyError(f"property (1): a_{k + 1} = {a} is optimal but paired with {partner}")
        prefix = played[:k].tolist()
        if not matroid.is_independent(prefix + [a]):
            raise PermutationPropertyError(f"property (2): prefix {prefix} + a_{k + 1} = {a} is dependent")
        if partner not in prefix and not matroid.is_independent(prefix + [partner]):
            raise PermutationPropertyError(f"property (2): prefix {prefix} + partner {partner} is dependent")
        if partner in prefix:
            raise PermutationPropertyError(f"property (2): partner {partner} already in the prefix {prefix}")
        if a not in opt_set and not index[a] >= index[partner]:
            raise PermutationPropertyError(
                f"property (3): J({a}) = {index[a]} < J({partner}) = {index[partner]} for suboptimal a_{k + 1}"
            )


def lemma22_violations(matroid: Matroid, played, optimal, pi) -> list[int]:
    """The k (0-based) for which Lemma 22 of Chandak 2023 fails on this round.

    Lemma 22 claims: A^t with a^t_{pi^{-1}(k)} replaced by a_k^* is independent, for every k.
    Its proof adds "a_{i+1}^t, ..., a_K^t" to an independent set by the augmentation property,
    but augmentation only guarantees *some* elements of A^t can be added, so the statement can
    fail; ``properties/bandits/test_permutation.py`` exhibits counterexamples (e.g. on a
    5-vertex graph). The weaker fact Lemma 23 uses -- a_k^* can be added to the prefix
    {a_1^t, ..., a^t_{pi^{-1}(k)-1}} -- is property (2), checked by
    :func:`check_regret_permutation`.

    References
    ----------
    .. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
       Optimization", MSc thesis, University of Alberta, 2023. Lemma 22.
    """
    played, optimal = _bases(matroid, played, optimal)
    K = played.size
    inverse = np.argsort(np.asarray(pi, dtype=np.int64))
    bad = []
    for k in range(K):
        swapped = played.copy()
        swapped[inverse[k]] = optimal[k]
        if np.unique(swapped).size != K or not matroid.is_independent(swapped):
            bad.append(k)
    return bad


# ---- bitmask kernel for exhaustive catalogues (small ground sets) ---------------------------

#: Order of the counters returned by :func:`check_pairs_on_table`.
PAIR_CHECK_FIELDS = (
    "pairs",
    "not_permutation",
    "property1",
    "property2",
    "property3",
    "lemma22_rounds",
    "case2_failed",
)


@njit(cache=True)
def _pairs_kernel(table, P, J, O, K):
    """Run pi_t (eq. 4.5) on a bitmask independence table for every (P[r], O[s]) pair.

    P : (N_P, K) ordered bases (by J descending); J : (N_P, m) the index vector of row r;
    O : (N_O, K) ordered bases (by mean descending). Returns counts (see PAIR_CHECK_FIELDS).
    """
    m = J.shape[1]
    out = np.zeros(7, dtype=np.int64)
    pos = np.full(m, -1, dtype=np.int64)
    pi = np.empty(K, dtype=np.int64)
    inv = np.empty(K, dtype=np.int64)
    prefix = np.zeros(K + 1, dtype=np.int64)
    for r in range(P.shape[0]):
        for k in range(K):
            prefix[k + 1] = prefix[k] | (1 << P[r, k])
        full = prefix[K]
        for s in range(O.shape[0]):
            out[0] += 1
            for i in range(K):
                pos[O[s, i]] = i
            failed = False
            for k in range(K - 1, -1, -1):
                a = P[r, k]
                if pos[a] >= 0:
                    pi[k] = pos[a]
                    continue
                B = prefix[k]
                for j in range(k + 1, K):
                    B |= 1 << O[s, pi[j]]
                found = -1
                for i in range(K):
                    c = O[s, i]
                    if (B >> c) & 1 == 0 and table[B | (1 << c)]:
                        found = i
                        break
                if found < 0:
                    failed = True
                    break
                pi[k] = found
            if failed:
                out[6] += 1
                for i in range(K):
                    pos[O[s, i]] = -1
                continue
            # permutation?
            seen = 0
            for k in range(K):
                seen |= 1 << pi[k]
            if seen != (1 << K) - 1:
                out[1] += 1
            else:
                for k in range(K):
                    inv[pi[k]] = k
                bad22 = False
                for k in range(K):
                    i = inv[k]
                    mask = (full & ~(1 << P[r, i])) | (1 << O[s, k])
                    if mask == (full & ~(1 << P[r, i])) or not table[mask]:
                        bad22 = True
                if bad22:
                    out[5] += 1
            for k in range(K):
                a = P[r, k]
                partner = O[s, pi[k]]
                if pos[a] >= 0 and partner != a:
                    out[2] += 1
                if (
                    (prefix[k] >> partner) & 1
                    or not table[prefix[k] | (1 << partner)]
                    or not table[prefix[k] | (1 << a)]
                ):
                    out[3] += 1
                if pos[a] < 0 and J[r, a] < J[r, partner]:
                    out[4] += 1
            for i in range(K):
                pos[O[s, i]] = -1
    return out


@njit(cache=True)
def _greedy_on_table(table, order, K):
    out = np.empty(K, dtype=np.int64)
    mask = 0
    k = 0
    for idx in range(order.size):
        e = order[idx]
        if k < K and table[mask | (1 << e)]:
            mask |= 1 << e
            out[k] = e
            k += 1
    return out


def check_pairs_on_table(table, P, J, O) -> dict[str, int]:
    """Counts of pi_t property failures over all pairs of rows of P (with index J) and O.

    ``table`` is the independence table of a matroid (bool, length 2^m, see
    :func:`algorithms.matroids.independence_table`); this is an independent bitmask
    implementation of eq. (4.5) for exhaustive catalogues (agreement with
    :func:`regret_permutation` is tested).
    """
    P = np.ascontiguousarray(P, dtype=np.int64)
    O = np.ascontiguousarray(O, dtype=np.int64)
    J = np.ascontiguousarray(J, dtype=np.float64)
    counts = _pairs_kernel(np.asarray(table, dtype=np.bool_), P, J, O, P.shape[1])
    return dict(zip(PAIR_CHECK_FIELDS, counts.tolist()))


def greedy_on_table(table, order, K: int) -> np.ndarray:
    """Greedy basis (selection order) of an independence table scanned in ``order``."""
    return _greedy_on_table(np.asarray(table, dtype=np.bool_), np.asarray(order, dtype=np.int64), K)
