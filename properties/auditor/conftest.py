"""Fixtures of the auditor's tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def fresh_registries(monkeypatch):
    """Every extension registry empty (rebuilt from its built-in tuple and entry points on first use),
    with no plug-in reported yet; all restored after the test, so no other test sees what it registers."""
    from dpverify import plugins
    from dpverify.claims import registry as kind_registry
    from dpverify.events import registry as family_registry
    from dpverify.neighbours import relations

    for module, name in ((family_registry, "_REGISTRY"), (relations, "_REGISTRY"), (kind_registry, "_KINDS")):
        monkeypatch.setattr(module, name, {})
        monkeypatch.setattr(module, "_LOADED", module._LOADED)
    monkeypatch.setattr(plugins, "_REPORTED", set())
