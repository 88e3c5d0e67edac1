"""Fixtures of the auditor's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh_registries(monkeypatch):
    """Every extension registry empty (rebuilt from its built-in tuple and entry points on first use),
    with no plug-in reported yet; all restored after the test, so no other test sees what it registers."""
    from dpverify import plugins
    from dpverify.claims import kinds
    from dpverify.events import registry
    from dpverify.neighbours import relations

    for module, name in ((registry, "_REGISTRY"), (relations, "_REGISTRY"), (kinds, "_KINDS")):
        monkeypatch.setattr(module, name, {})
        monkeypatch.setattr(module, "_LOADED", module._LOADED)
    monkeypatch.setattr(plugins, "_REPORTED", set())
