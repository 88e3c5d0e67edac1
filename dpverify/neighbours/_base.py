"""What every neighbour generator is, and how a search audit turns ``neighbours`` into candidate pairs.

A search audit (:func:`dpverify.search_audit`) takes its neighbouring inputs in
one of four forms; :func:`candidate_pairs` turns each into a finite, seeded list
of distinct ``(x, x_prime)`` candidates:

- a :class:`NeighbourGenerator` (the ready generators of this package): its
  fixed pairs (StatDP's patterns and their kin, in a fixed order), then seeded
  random draws from its relation, up to ``n_candidates``;
- a sequence of ``(x, x_prime)`` pairs: used as given (``n_candidates`` does not apply);
- a callable ``neighbours(rng) -> (x, x_prime)``: called ``n_candidates`` times
  on one seeded :class:`numpy.random.Generator`;
- a Hypothesis strategy of pairs: ``n_candidates`` examples drawn under a
  Hypothesis seed derived from the audit's seed (Hypothesis is imported only then).

Duplicates are dropped (the first occurrence is kept). A pair whose inputs are
equal is a :class:`~dpverify.errors.InvalidNeighboursError`: a generator that
produces one is wrong about its relation.

References
----------
Z. Ding, Y. Wang, G. Wang, D. Zhang, D. Kifer, "Detecting Violations of
Differential Privacy", ACM CCS 2018 (the input patterns of StatDP).
"""

from __future__ import annotations

import json
import numbers

import numpy as np

from .._results import short_repr, to_plain
from ..errors import InvalidNeighboursError

__all__ = ["NeighbourGenerator", "candidate_pairs", "is_hypothesis_strategy", "DEFAULT_CANDIDATES"]

#: Candidates drawn from a generator, a callable or a strategy when the caller does not say (a
#: generator also keeps every fixed pair it has beyond it). With the screening budget fixed, more
#: candidates leave fewer samples per pair in the early rounds, whose ranking then culls good pairs
#: at random; fewer drop the random draws that hold some mechanisms' worst pairs. Chosen by
#: measurement (``benchmarks/search_oracle.py``; the figures: docs/manual/search.md, "Defaults and
#: the measurements behind them").
DEFAULT_CANDIDATES = 16


class NeighbourGenerator:
    """A neighbouring relation that proposes pairs: fixed ones first, then random draws.

    Subclasses set :attr:`relation` (the relation in words) and implement
    :meth:`fixed_pairs` and :meth:`draw`. A generator is also a callable
    ``generator(rng) -> (x, x_prime)`` (one random draw), so it can be passed
    wherever a callable of neighbours is accepted.
    """

    relation: str = ""

    def fixed_pairs(self) -> list:
        """The deterministic pairs tried first (StatDP's patterns and the like)."""
        return []

    def draw(self, rng: np.random.Generator) -> tuple:
        """One random neighbouring pair of the relation."""
        raise NotImplementedError

    def __call__(self, rng: np.random.Generator) -> tuple:
        return self.draw(rng)

    def refinements(self, x, x_prime, n: int, rng: np.random.Generator) -> list:
        """Up to ``n`` pairs of the relation near ``(x, x_prime)`` (local moves of a promising pair).

        The search audit refines the pair its screening chose with them
        (:func:`dpverify.search_audit`). Default: none.
        """
        return []

    def admit(self, pair):
        """``pair`` as the generator proposes it, or None to drop it (a generator with an input domain
        moves its pairs into the domain, :meth:`dpverify.neighbours.InputDomain.fit`). Default: as is."""
        return pair

    def candidates(self, n: int, rng: np.random.Generator) -> list:
        """The first ``n`` fixed pairs, then random draws until ``n`` distinct pairs (or 20 n draws);
        each passes :meth:`admit` first."""
        pairs = _distinct(p for p in map(self.admit, self.fixed_pairs()) if p is not None)[:n]
        seen = {pair_key(p) for p in pairs}
        for _ in range(20 * n):
            if len(pairs) >= n:
                break
            pair = self.admit(self.draw(rng))
            if pair is None:
                continue
            key = pair_key(pair)
            if key not in seen:
                seen.add(key)
                pairs.append(pair)
        return pairs

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.relation})"


def is_hypothesis_strategy(obj) -> bool:
    """Whether ``obj`` is a Hypothesis strategy (without importing Hypothesis when it is not loaded)."""
    module = type(obj).__module__ or ""
    if not module.startswith("hypothesis"):
        return False
    from hypothesis.strategies import SearchStrategy

    return isinstance(obj, SearchStrategy)


def pair_key(pair) -> str:
    """A hashable key of a pair (its JSON form), equal for equal pairs."""
    try:
        return json.dumps(to_plain(pair), sort_keys=True)
    except (TypeError, ValueError):
        return repr(pair)


def _distinct(pairs) -> list:
    seen, out = set(), []
    for pair in pairs:
        key = pair_key(pair)
        if key not in seen:
            seen.add(key)
            out.append(pair)
    return out


def _differ(x, x_prime) -> bool:
    try:
        if isinstance(x, np.ndarray) or isinstance(x_prime, np.ndarray):
            a, b = np.asarray(x), np.asarray(x_prime)
            return a.shape != b.shape or not np.array_equal(a, b)
        equal = x == x_prime
        return not equal if isinstance(equal, (bool, np.bool_)) else True
    except Exception:
        return True


def _check_pair(pair, where: str) -> tuple:
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise InvalidNeighboursError(f"{where} must be an (x, x_prime) pair, got {short_repr(pair)}")
    x, x_prime = pair
    if not _differ(x, x_prime):
        raise InvalidNeighboursError(f"{where} has equal inputs ({short_repr(x)}); neighbouring inputs must differ")
    return (x, x_prime)


def _check_count(n_candidates) -> int:
    if isinstance(n_candidates, bool) or not isinstance(n_candidates, numbers.Integral) or n_candidates < 1:
        raise InvalidNeighboursError(f"n_candidates must be an integer >= 1, got {n_candidates!r}")
    return int(n_candidates)


def _from_strategy(strategy, n: int, seed: int) -> list:
    """``n`` examples of a Hypothesis strategy, reproducibly under ``seed`` (Hypothesis' own seeding)."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hypothesis_seed

    drawn: list = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
        derandomize=False,
    )
    @given(strategy)
    def collect(pair):
        drawn.append(pair)

    collect()
    return drawn


def _call_neighbours(neighbours, rng, source: str, i: int):
    """Pair ``i`` of a callable; what it raises comes back as :class:`InvalidNeighboursError` (chained)."""
    try:
        return neighbours(rng)
    except Exception as exc:
        raise InvalidNeighboursError(
            f"the {source} raised {type(exc).__name__} drawing candidate pair {i}: {exc} (neighbours(rng) must "
            "return an (x, x_prime) pair of differing inputs; the original error is chained)"
        ) from exc


#: Further batches of a Hypothesis strategy drawn when some of its pairs have equal inputs (each batch as
#: large as the first, under seeds ``seed + 1, seed + 2, ...``); the pairs with equal inputs are dropped.
STRATEGY_REDRAWS = 10


def _differing_from_strategy(strategy, n: int, seed: int) -> list:
    """Up to ``n`` pairs of ``strategy`` whose inputs differ: a pair with equal inputs is dropped and the
    strategy drawn again, in at most :data:`STRATEGY_REDRAWS` more batches. The first batch is the one a
    strategy that never draws equal inputs gives, so such a strategy's candidates do not change.

    Raises
    ------
    InvalidNeighboursError
        Every pair drawn had equal inputs.
    """
    kept: list = []
    drawn, equal = 0, 0
    for batch in range(STRATEGY_REDRAWS + 1):
        examples = _from_strategy(strategy, n, (seed + batch) % 2**32)
        drawn += len(examples)
        for pair in examples:
            if not (isinstance(pair, (tuple, list)) and len(pair) == 2) or _differ(*pair):
                kept.append(pair)  # not a pair: refused by name with the others
            else:
                equal += 1
        kept = _distinct(kept)
        if len(kept) >= n or not equal:
            break
    if not kept:
        raise InvalidNeighboursError(
            f"the Hypothesis strategy drew {drawn} pairs in {batch + 1} batches, every one with equal inputs; "
            "neighbouring inputs must differ (build the second input from the first so that it differs)"
        )
    return kept[:n]


def candidate_pairs(neighbours, n_candidates, seed: np.random.SeedSequence) -> tuple[list, str]:
    """The distinct candidate pairs of ``neighbours`` and a description of where they came from.

    Parameters
    ----------
    neighbours : NeighbourGenerator, sequence of pairs, callable or Hypothesis strategy
        See the module docstring.
    n_candidates : int or None
        How many pairs to draw from a generator, callable or strategy (None:
        :data:`DEFAULT_CANDIDATES`, and at least every fixed pair of a
        generator); ignored for a sequence.
    seed : numpy.random.SeedSequence
        Seeds the draws (the search audit passes a dedicated child of its seed).

    Raises
    ------
    InvalidNeighboursError
        No pairs, a pair that is not ``(x, x_prime)`` or whose inputs are equal
        (a Hypothesis strategy's equal pairs are drawn again instead, up to
        :data:`STRATEGY_REDRAWS` more batches), a bad ``n_candidates``, a
        callable that raised (chained), or a ``neighbours`` of no accepted kind.
    """
    n = DEFAULT_CANDIDATES if n_candidates is None else _check_count(n_candidates)
    rng = np.random.default_rng(seed)
    if isinstance(neighbours, NeighbourGenerator):
        if n_candidates is None:
            n = max(n, len(_distinct(neighbours.fixed_pairs())))
        raw, source = neighbours.candidates(n, rng), f"generator {neighbours!r}"
    elif is_hypothesis_strategy(neighbours):
        raw = _differing_from_strategy(neighbours, n, int(seed.generate_state(1)[0]))
        source = f"Hypothesis strategy {short_repr(neighbours, 60)}"
    elif callable(neighbours):
        source = f"callable {getattr(neighbours, '__qualname__', type(neighbours).__name__)}"
        raw = [_call_neighbours(neighbours, rng, source, i) for i in range(n)]
    elif isinstance(neighbours, (list, tuple)):
        raw, source = list(neighbours), "the pairs given"
    else:
        raise InvalidNeighboursError(
            "neighbours must be a sequence of (x, x_prime) pairs, a callable neighbours(rng) -> (x, x_prime), "
            f"a Hypothesis strategy of pairs or a dpverify.neighbours generator; got {type(neighbours).__name__}"
        )
    pairs = _distinct([_check_pair(pair, f"neighbour pair {i}") for i, pair in enumerate(raw)])
    if not pairs:
        raise InvalidNeighboursError(f"no neighbouring pair to search ({source} gave none)")
    return pairs, source
