"""Fixtures of the training tests: the benchmark scripts whose functions they check."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(scope="session")
def load_benchmark():
    """``load_benchmark(name)``: ``benchmarks/<name>.py`` as a module, loaded from its path (the benchmarks
    need not be on sys.path), once per session."""
    loaded = {}

    def load(name: str):
        if name not in loaded:
            spec = importlib.util.spec_from_file_location(f"{name}_benchmark", BENCHMARKS / f"{name}.py")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            loaded[name] = module
        return loaded[name]

    return load
