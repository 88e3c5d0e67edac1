"""The examples in docstrings run and print what they say (documentation stays true)."""

import doctest
import importlib
import pkgutil

import pytest

import algorithms
import dpverify


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
