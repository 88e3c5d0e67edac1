"""Input domains: a neighbour generator given the mechanism's domain never proposes a pair outside it.

A mechanism whose inputs live on a grid (here sums of values on a 2^-10 grid) may do anything off the
grid; an audit that flags it there has found nothing about its claim (DP-Sniper, Bichsel et al. 2021, clips its
patterns to a declared range and type). :class:`dpverify.neighbours.InputDomain` moves every pair into
the domain, keeping the difference within the relation, or drops it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dpverify
from dpverify.errors import InvalidNeighboursError
from dpverify.neighbours import InputDomain, query_vectors

GRID = 2.0**-10


class GridSum:
    """The sum of five values on a 2^-10 grid plus Laplace noise of scale 1/eps, snapped to the grid.

    Off the grid it fails loudly (a value that is no sum of grid values cannot reach it); declares its
    domain in ``input_domain``.
    """

    input_domain = InputDomain(low=-64.0, high=64.0, step=GRID)

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def sample(self, data, size, rng):
        q = np.asarray(data, dtype=float)
        if np.any(q / GRID != np.round(q / GRID)):
            raise ValueError(f"off-grid input {data}")
        noise = rng.laplace(scale=1.0 / self.epsilon, size=size)
        return np.round((q.sum() + noise) / GRID) * GRID

    def __call__(self, data, rng):
        return float(self.sample(data, 1, rng)[0])


def _on_grid(v) -> bool:
    a = np.atleast_1d(np.asarray(v, dtype=float))
    return bool(np.all(a / GRID == np.round(a / GRID)) and np.all(np.abs(a) <= 64))


def test_search_never_gives_an_off_grid_pair():
    """The l1 patterns of 5-vectors move entries by 1/5, 1/2...: off the 2^-10 grid. With the mechanism's
    declared domain the search proposes only grid pairs (patterns, draws and refinements) and audits.

    Detects: a generator that ignores the domain (the mechanism raises on the first off-grid pair; tried:
    without the domain the search fails with a MechanismError on the pattern 'one_above_rest_below')."""
    result = dpverify.search_audit(
        GridSum(1.0), query_vectors(5, norm="l1"), epsilon=1.0, n_samples=40_000, seed=4, n_refining=4_000
    )
    assert len(result.candidates) >= 7
    for c in result.candidates:
        assert _on_grid(c.x) and _on_grid(c.x_prime), (c.x, c.x_prime)
        assert np.abs(np.subtract(c.x, c.x_prime)).sum() <= 1.0
    assert "on the grid" in result.neighbours


def test_without_a_domain_the_grid_mechanism_is_given_off_grid_pairs():
    """The control: the same search without a declared domain hands the mechanism an off-grid pair."""

    class Undeclared(GridSum):
        input_domain = None

    with pytest.raises(dpverify.errors.MechanismError):
        dpverify.search_audit(Undeclared(1.0), query_vectors(5, norm="l1"), epsilon=1.0, n_samples=40_000, seed=4)


@given(
    st.lists(st.floats(-100, 100), min_size=3, max_size=3),
    st.lists(st.floats(-1, 1), min_size=3, max_size=3),
    st.sampled_from([None, 1.0, GRID, 0.25]),
    st.booleans(),
)
def test_fit_keeps_pairs_in_the_domain_and_neighbouring(x, move, step, integer):
    """Every fitted pair lies in the domain, differs, and no entry of its difference grows (so every
    norm bound of the relation still holds); ints for an integer domain."""
    domain = InputDomain(low=-10.0, high=20.0, integer=integer, step=None if integer else step)
    x_prime = tuple(a + m for a, m in zip(x, move))
    fitted = domain.fit(tuple(x), x_prime)
    if fitted is None:
        return
    a, b = fitted
    assert domain.contains(a) and domain.contains(b) and a != b
    assert np.all(np.abs(np.subtract(b, a)) <= np.abs(np.subtract(x_prime, x)) + 1e-12)
    if integer:
        assert all(isinstance(v, int) for v in a + b)


def test_domain_is_checked_by_name():
    with pytest.raises(InvalidNeighboursError):
        InputDomain(low=1.0, high=0.0)
    with pytest.raises(InvalidNeighboursError):
        InputDomain(step=0.0)
    with pytest.raises(InvalidNeighboursError):
        query_vectors(3, domain={"lo": 0})


def test_cli_takes_the_domain(tmp_path):
    """``--domain`` JSON reaches the generator (the relation record's flag)."""
    import argparse

    from dpverify.neighbours.relations import relation

    args = argparse.Namespace(length=5, sensitivity=1.0, norm="l1", patterns=None, domain={"step": GRID})
    generator = relation("vectors").from_flags(args)
    assert generator.domain == InputDomain(step=GRID)
    for x, x_prime in generator.candidates(16, np.random.default_rng(0)):
        assert _on_grid(x) and _on_grid(x_prime)
