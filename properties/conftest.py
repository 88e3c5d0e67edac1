"""Shared test configuration: Hypothesis profiles, the thorough switch, data paths.

Profiles
--------
``ci`` (default)
    Fast and derandomized: the suite's false-alarm probability is fixed by
    seeds, and a run takes minutes on two cores.
``thorough``
    Many more Hypothesis examples and many more repeated audits (for the
    calibration checks). Select it with ``DPVERIFY_PROFILE=thorough`` or
    ``pytest --dpverify-profile=thorough``.

Statistical tests inside this suite use fixed seeds and tiny per-test alphas
(see ``SUITE_ALPHA``) so that correct code fails with probability well below
1e-4 across the whole suite.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

#: Per-test false-alarm rate for distributional assertions. With at most ~100
#: such assertions in the suite the family-wise rate stays below 1e-4.
SUITE_ALPHA = 1e-6

settings.register_profile(
    "ci",
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    max_examples=1000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)

REPO_ROOT = Path(__file__).resolve().parents[1]
ROCKETFUEL_DIR = Path(os.environ.get("DPVERIFY_ROCKETFUEL", REPO_ROOT.parent / "shared" / "datasets" / "rocketfuel"))


def pytest_addoption(parser):
    parser.addoption(
        "--dpverify-profile",
        choices=["ci", "thorough"],
        default=None,
        help="test depth: 'ci' (default, fast) or 'thorough' (deep, slow); "
        "also settable with the DPVERIFY_PROFILE environment variable",
    )


def _profile_name(config) -> str:
    name = config.getoption("--dpverify-profile") or os.environ.get("DPVERIFY_PROFILE", "ci")
    if name not in ("ci", "thorough"):
        raise pytest.UsageError(f"DPVERIFY_PROFILE must be 'ci' or 'thorough', not {name!r}")
    return name


def pytest_configure(config):
    settings.load_profile(_profile_name(config))


@pytest.fixture(scope="session")
def thorough(pytestconfig) -> bool:
    """True under the thorough profile: tests scale their repetitions with it."""
    return _profile_name(pytestconfig) == "thorough"


@pytest.fixture(scope="session")
def suite_alpha() -> float:
    """Per-test false-alarm rate for distributional assertions."""
    return SUITE_ALPHA


class MechanismAtInput:
    """A mechanism at one fixed input, as a sampler of :func:`dpverify.goodness_of_fit` takes it."""

    def __init__(self, mechanism, data):
        self.mechanism, self.data = mechanism, data

    def __call__(self, rng):
        return self.mechanism(self.data, rng)

    def sample(self, size, rng):
        return self.mechanism.sample(self.data, size, rng)


@pytest.fixture(scope="session")
def at_input():
    """``at_input(mechanism, data)``: the mechanism at the fixed input ``data`` as a sampler
    (``sampler(rng)`` and ``sample(size, rng)``), for fitting its outputs to an exact pmf."""
    return MechanismAtInput


@pytest.fixture(scope="session")
def rocketfuel_dir() -> Path:
    """The RocketFuel folder; skips the test where the shared data is absent."""
    if not ROCKETFUEL_DIR.is_dir():
        pytest.skip(f"RocketFuel data not found at {ROCKETFUEL_DIR} (set DPVERIFY_ROCKETFUEL)")
    return ROCKETFUEL_DIR
