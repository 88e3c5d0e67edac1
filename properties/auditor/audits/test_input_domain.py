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
from dpverify.neighbours import InputDomain, QueryVectors, query_vectors

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

    class Stated(GridSum):
        input_domain = "reals"

    with pytest.raises(InvalidNeighboursError, match="Stated.input_domain: an input domain is an InputDomain"):
        dpverify.audit(Stated(1.0), 0, GRID, epsilon=1.0, n_samples=20_000, seed=1)


def test_cli_takes_the_domain(tmp_path):
    """``--domain`` JSON reaches the generator (the relation record's flag)."""
    import argparse

    from dpverify.neighbours.relations import relation

    args = argparse.Namespace(length=5, sensitivity=1.0, norm="l1", patterns=None, domain={"step": GRID})
    generator = relation("vectors").from_flags(args)
    assert generator.domain == InputDomain(step=GRID)
    for x, x_prime in generator.candidates(16, np.random.default_rng(0)):
        assert _on_grid(x) and _on_grid(x_prime)


# -- every input path checks the declared domain ---------------------------------------------------

ON_GRID, OFF_GRID = (0.0, GRID), (0.0, 0.3)  # 0.3 is no multiple of 2^-10


class CountingGridSum(GridSum):
    """:class:`GridSum` that counts its calls: a refused pair must be refused before any draw."""

    def __init__(self, epsilon):
        super().__init__(epsilon)
        self.calls = 0

    def sample(self, data, size, rng):
        self.calls += 1
        return super().sample(data, size, rng)

    def __call__(self, data, rng):
        self.calls += 1
        return super().__call__(data, rng)


def _refused(call, input_name: str, where: str = ""):
    mechanism = CountingGridSum(1.0)
    with pytest.raises(dpverify.errors.OutsideDomainError) as info:
        call(mechanism)
    message = str(info.value)
    assert f"{input_name}=" in message and "CountingGridSum" in message and "on the grid 0.000976562 Z" in message
    assert where in message
    assert mechanism.calls == 0, "a pair outside the domain was drawn from before it was refused"
    return message


@pytest.mark.parametrize(
    "driver",
    [
        lambda m, x, xp: dpverify.audit(m, x, xp, epsilon=1.0, n_samples=20_000, seed=1),
        lambda m, x, xp: dpverify.sequential_audit(m, x, xp, epsilon=1.0, n_samples=20_000, seed=1),
        lambda m, x, xp: dpverify.delta_lower_bound_curve(m, x, xp, epsilons=[0.5, 1.0], n_samples=20_000, seed=1),
        lambda m, x, xp: dpverify.audit(m, x, xp, claim=dpverify.PrivacyClaim.zcdp(0.5), n_samples=20_000, seed=1),
    ],
    ids=["audit", "sequential_audit", "delta_lower_bound_curve", "audit-zcdp"],
)
def test_one_pair_outside_the_declared_domain_is_refused(driver):
    """Detects: a driver that audits ``(x, x_prime)`` without reading the mechanism's ``input_domain`` (tried:
    without the check in ``build_plan`` each of these drew from the mechanism and raised its MechanismError)."""
    _refused(lambda m: driver(m, OFF_GRID[1], OFF_GRID[0]), "x")
    _refused(lambda m: driver(m, *OFF_GRID), "x_prime")


def test_audit_pairs_refuses_any_pair_outside_before_drawing():
    """Every pair is checked before the first is audited: the refused pair is the second."""
    _refused(lambda m: dpverify.audit_pairs(m, [ON_GRID, OFF_GRID], epsilon=1.0, seed=1), "x_prime", "pair 1 of")


def _off_grid_draw(rng):
    return OFF_GRID


@pytest.mark.parametrize(
    "neighbours, where",
    [
        ([ON_GRID, OFF_GRID], "candidate pair 1, from the pairs given"),
        (_off_grid_draw, "from callable _off_grid_draw"),
        (st.just(OFF_GRID), "from Hypothesis strategy"),
    ],
    ids=["list", "callable", "strategy"],
)
def test_search_refuses_given_pairs_outside_the_declared_domain(neighbours, where):
    """A list, a callable or a strategy of pairs is the caller's: refused, not moved into the domain.

    Detects: a search that fits only generators into the domain and audits the other forms as given
    (tried: without the check in ``_propose`` the mechanism raised its MechanismError on the off-grid pair)."""
    _refused(lambda m: dpverify.search_audit(m, neighbours, epsilon=1.0, n_samples=20_000, seed=1), "x_prime", where)


class FarRefinements(QueryVectors):
    """Scalar neighbours on the grid whose local moves leave it (its ``refinements`` skip ``admit``)."""

    def refinements(self, x, x_prime, n, rng):
        return [(x, x_prime + 0.3)]


def test_search_refuses_a_refinement_outside_the_declared_domain():
    """Refinements are checked too: a generator's own local moves need not pass its ``admit``.

    Detects: a search that checks only the first candidates (tried: without the check in ``_refine`` the
    mechanism raised its MechanismError on the refinement)."""
    neighbours = FarRefinements(None, domain=InputDomain(step=GRID))
    with pytest.raises(dpverify.errors.OutsideDomainError, match="a refinement of the chosen pair"):
        dpverify.search_audit(
            GridSum(1.0), neighbours, epsilon=1.0, n_samples=20_000, n_screening=4_000, n_refining=1_000, seed=1
        )


def test_pairs_inside_the_domain_pass_the_check():
    """The control: an on-grid pair (a float and an int entry alike) is audited."""
    assert dpverify.audit(GridSum(1.0), 0, GRID, epsilon=1.0, n_samples=20_000, seed=1).violation is False
    domain = InputDomain(low=0, high=10, integer=True)
    dpverify.neighbours.domain.check_in_domain(domain, (0, 10), (1.0, 9), owner="test")
    with pytest.raises(dpverify.errors.OutsideDomainError, match=r"x='a' is outside .* test declares: integers"):
        dpverify.neighbours.domain.check_in_domain(domain, "a", 1, owner="test")


CLI_MECHANISMS = """
import numpy as np
from dpverify.neighbours import InputDomain

class Counts:
    input_domain = InputDomain(low=0, high=10, integer=True)
    def __call__(self, x, rng):
        return float(np.sum(x)) + rng.laplace()

counts = Counts()

def laplace(x, rng):
    return float(np.sum(x)) + rng.laplace()
"""


@pytest.fixture
def cli_mechanisms(tmp_path, monkeypatch):
    (tmp_path / "domain_mechanisms.py").write_text(CLI_MECHANISMS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(
    "mechanism, flags, message",
    [
        ("laplace", ["--x", "0", "--x-prime", "1", "--domain", '{"low": 5}'], "x=0 (--x/--x-prime) is outside"),
        ("laplace", ["--pairs", "pairs.json", "--domain", '{"low": 0}'], "x_prime=-1 (pair 1 of --pairs) is outside"),
        ("counts", ["--x", "-3", "--x-prime", "1"], "x=-3 is outside the input domain that Counts declares"),
        ("counts", ["--pairs", "pairs.json"], "x_prime=-1 (candidate pair 1, from the pairs given) is outside"),
    ],
    ids=["x-domain-flag", "pairs-domain-flag", "x-declared", "pairs-declared"],
)
def test_cli_checks_the_pairs_given_against_the_domain(cli_mechanisms, capsys, mechanism, flags, message):
    """``--domain`` beside ``--x/--x-prime`` or ``--pairs`` checks them (exit 2, a named error), and so does
    the mechanism's declared domain.

    Detects: a command line that ignores ``--domain`` unless searching (tried: without ``check_given_domain``
    the first two exit 0 after auditing)."""
    from dpverify.cli.commands import EXIT_USAGE, main

    (cli_mechanisms / "pairs.json").write_text("[[0, 1], [3, -1]]")
    code = main(["audit", f"domain_mechanisms:{mechanism}", *flags, "--epsilon", "1", "--samples", "2000", "--quiet"])
    err = capsys.readouterr().err
    assert code == EXIT_USAGE, err
    assert "OutsideDomainError" in err and message in err


def test_cli_refuses_a_bad_domain_beside_x(cli_mechanisms, capsys):
    from dpverify.cli.commands import EXIT_USAGE, main

    code = main(["audit", "domain_mechanisms:laplace", "--x", "0", "--x-prime", "1", "--domain", '{"lo": 5}'])
    assert code == EXIT_USAGE
    assert "--domain must be a JSON object of low, high, integer, step" in capsys.readouterr().err
