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


@pytest.fixture
def check_false_alarms(thorough, suite_alpha):
    """``check_false_alarms(audit, cases, alpha, key)``: the false-alarm check of seeded audits of correct mechanisms.

    ``audit(name, seed)`` runs one audit of case ``name`` at level ``alpha`` on a mechanism that meets its
    claim exactly; ``cases`` maps each name to its number of audits in the default profile (thorough: 200
    each). Each audit's seed is spawned from ``SeedSequence([key, len(name)])``. Every audit flags with
    probability at most ``alpha``, so a count over N audits is stochastically below Bin(N, alpha): the
    default profile pools the cases and asserts the pooled count is at most the Bin(N, alpha) quantile at
    ``1 - suite_alpha`` (a false alarm of the test with probability below ``suite_alpha``); thorough asserts
    each case on its own.
    """
    import numpy as np
    from scipy import stats

    def check(audit, cases: dict, alpha: float, key: int) -> None:
        sizes = {name: 200 for name in cases} if thorough else dict(cases)
        counts = {
            name: sum(bool(audit(name, s).violation) for s in np.random.SeedSequence([key, len(name)]).spawn(n))
            for name, n in sizes.items()
        }
        for group in [[name] for name in sizes] if thorough else [list(sizes)]:
            n_audits = sum(sizes[name] for name in group)
            limit = stats.binom.ppf(1 - suite_alpha, n_audits, alpha)
            flagged = {name: counts[name] for name in group}
            assert sum(flagged.values()) <= limit, (
                f"violations per case {flagged} of {n_audits} audits of correct mechanisms (limit {limit:g})"
            )

    return check
