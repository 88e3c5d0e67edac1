"""The examples in docstrings run and print what they say (documentation stays true)."""

import doctest
import importlib
import pkgutil

import pytest

import algorithms
import dpverify

#: Modules whose docstrings hold examples, with how many each has at least. A module whose
#: examples all vanish (or are all skipped) fails here instead of passing with nothing run.
#: (``algorithms.bandits.rocketfuel``'s examples are skipped: they need the dataset.)
MODULES_WITH_EXAMPLES = {
    "dpverify.extras.adapters.random_state": 8,
    "dpverify.extras.adapters.unseeded": 3,
    "dpverify.extras.adapters.diffprivlib": 10,
    "dpverify.support.power": 2,
    "dpverify.audits.pair": 7,
    "dpverify.audits.delta_curve": 4,
    "dpverify.audits.exact": 4,
    "dpverify.keys": 5,
    "dpverify.audits.oracle": 5,
    "dpverify.audits.given_samples": 5,
    "dpverify.audits.sequential": 7,
    "dpverify.testing.assertions": 5,
    "dpverify.audits.one_run": 4,
    "dpverify.audits.one_run_fdp": 4,
    "dpverify.probes.probe": 3,
}


def _modules(package):
    yield package.__name__
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not info.name.endswith("__main__"):  # running it would start the CLI
            yield info.name


@pytest.mark.parametrize("name", sorted([*_modules(dpverify), *_modules(algorithms)]))
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
    assert result.attempted >= MODULES_WITH_EXAMPLES.get(name, 0), f"{name}: only {result.attempted} examples ran"


def test_the_modules_with_examples_exist():
    names = {*_modules(dpverify), *_modules(algorithms)}
    assert set(MODULES_WITH_EXAMPLES) <= names
    assert sum(MODULES_WITH_EXAMPLES.values()) >= 45
