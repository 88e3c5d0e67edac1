"""A throwaway plug-in package, declared through entry points as an installed package declares them.

The package is the one docs/extending.md writes, written into ``tmp_path``: its three modules (an
event family, a neighbouring relation, a claim kind) and a ``*.dist-info`` folder whose
``entry_points.txt`` holds the page's entry-point tables, which
``importlib.metadata`` finds on ``sys.path`` (in-process) or ``PYTHONPATH`` (a subprocess) like an
installed distribution's. The plug-ins pass the public contract checks and a command-line audit
uses all three. A second package holds a relation whose module raises on import: it is named once,
``--help`` and an audit that does not use it work with their usual exit codes, and the command that
asks for it exits 3 with its PluginError, never 1 (a finding).

The audits are seeded and decided far from their thresholds (see the docstrings): no test here can
fail by chance at more than the suite's per-test rate.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dpverify import plugins
from dpverify.claims import PrivacyClaim, claim_kind, claim_kinds
from dpverify.cli.commands import main
from dpverify.events import event_family, registered_families
from dpverify.neighbours import relation, relation_names
from dpverify.testing import check_claim_kind, check_event_family, check_mechanism, check_relation

ROOT = Path(__file__).resolve().parents[2]

#: The manual's page on extensions: its module blocks (``# my_events.py`` ...) and entry-point tables are
#: the plug-in package, as a reader would save and declare them.
EXTENDING = ROOT / "docs" / "extending.md"
MODULE_BLOCK = re.compile(r"```python\n# (\w+)\.py\n(.*?)```", re.S)
ENTRY_POINT_TABLE = re.compile(r'```toml\n(\[project\.entry-points\."dpverify\.\w+"\]\n[\w-]+ = "[\w.:]+").*?```', re.S)


def documented_package() -> tuple[dict, str]:
    """The modules and the ``entry_points.txt`` of the page's plug-in package."""
    text = EXTENDING.read_text(encoding="utf-8")
    modules = dict(MODULE_BLOCK.findall(text))
    tables = [t.replace("[project.entry-points.", "[").replace('"', "") for t in ENTRY_POINT_TABLE.findall(text)]
    return modules, "\n\n".join(tables) + "\n"


TOY_MECHANISM = '''
"""A mechanism whose output's parity tells an even input from an odd one; it states a half-gdp claim."""
from dpverify.claims import PrivacyClaim


class ParityMechanism:
    claim = PrivacyClaim.of("half-gdp", kappa=0.3)
    input_relation = ("unit-steps", {})

    def __call__(self, x, rng):
        odd = rng.random() < (0.8 if x % 2 == 0 else 0.2)
        return 2 * int(rng.integers(500)) + int(odd)


mechanism = ParityMechanism()
'''

BROKEN_ENTRY_POINTS = """
[dpverify.neighbour_relations]
broken-steps = broken_plugin:STEPS
"""


def write_distribution(folder: Path, name: str, entry_points: str, modules: dict) -> None:
    """A package ``name`` as pip installs it: its modules and a ``name-1.0.dist-info`` with its entry points."""
    info = folder / f"{name}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    for module, source in modules.items():
        (folder / f"{module}.py").write_text(textwrap.dedent(source))


def run_cli(folder: Path, *arguments) -> subprocess.CompletedProcess:
    """``python -m dpverify ARGUMENTS`` with ``folder`` (the installed plug-ins) on PYTHONPATH."""
    path = os.pathsep.join([str(folder), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "dpverify", *arguments],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, "PYTHONPATH": path},
        timeout=300,
    )


@pytest.fixture
def toy_plugin(tmp_path, monkeypatch, fresh_registries):
    """The manual's plug-in package installed on ``sys.path``, registries rebuilt from it (restored after)."""
    modules, entry_points = documented_package()
    assert sorted(modules) == ["my_events", "my_kinds", "my_relations"] and entry_points.count(" = ") == 3
    write_distribution(tmp_path, "toy_plugin", entry_points, {**modules, "toy_mechanism": TOY_MECHANISM})
    monkeypatch.syspath_prepend(str(tmp_path))
    for module in (*modules, "toy_mechanism"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    return tmp_path


def test_a_plugin_package_passes_the_contract_and_audits_from_the_command_line(toy_plugin):
    """Its family, relation and kind register through their entry points after the built-ins, pass the
    contract checks, and ``dpverify audit --search unit-steps`` of a mechanism stating a half-gdp claim
    certifies the violation with the parity event.

    The mechanism's output is odd with probability 0.8 on even inputs and 0.2 on odd ones (spread over
    1000 values, so no single value tells much): it is Phi^-1(0.8) - Phi^-1(0.2) = 1.68-GDP, half of
    which, 0.84, is far above the claimed 0.3. At 20000 samples per input the parity event's counts
    certify more than 0.6 at alpha 0.05 (5000 certification samples: a margin of over 10 standard errors).

    Detects: a registry that does not read its entry-point group, a command line that does not offer a
    plug-in relation or its flag, a stated claim of a plug-in kind that the command line cannot audit.
    """
    assert registered_families()[-1] == "parity" and relation_names()[-1] == "unit-steps"
    assert claim_kinds()[-1] == "half-gdp"
    from toy_mechanism import mechanism

    check_event_family(event_family("parity"))
    check_relation(relation("unit-steps"))
    check_claim_kind(claim_kind("half-gdp"), PrivacyClaim.of("half-gdp", kappa=0.3))
    check_mechanism(mechanism, 2, 3)

    common = ["--samples", "10000", "--seed", "1", "--quiet", "--json", "--candidates", "2"]
    done = run_cli(
        toy_plugin, "audit", "toy_mechanism:mechanism", "--search", "unit-steps", "--steps-high", "6", *common
    )
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["claim"] == {**result["claim"], "kind": "half-gdp", "kappa": 0.3}
    assert result["event"]["family"] == "parity"
    assert result["claim_lower_bound"] > 0.6
    assert "warning" not in done.stderr


def test_a_plugin_kinds_own_parameter_is_stated_on_the_command_line(toy_plugin, capsys):
    """``--claim half-gdp:kappa=0.5`` audits the plug-in kind's claim with its own parameter instead of the
    stated kappa = 0.3, ``--help`` lists the kind with its parameter, and a misspelt parameter is a usage
    error that names it.

    On the pair (2, 3) the parity event has probabilities 0.8 and 0.2 (true kappa 0.84, see the test
    above). At 10000 samples per input (5000 certify) an estimate of kappa has a standard error of about
    0.014, and the certified bound lies near 0.79: the claimed 0.5 is 20 standard errors below it, the
    asserted 0.7 six.

    Detects: a command line that cannot state a plug-in kind's own parameter (the page's promise), one
    that audits the stated claim instead of the flag's, and one that answers a misspelt name with an
    internal error or silence.
    """
    common = ["audit", "toy_mechanism:mechanism", "--x", "2", "--x-prime", "3", "--samples", "10000", "--seed", "1"]
    assert main([*common, "--quiet", "--json", "--claim", "half-gdp:kappa=0.5"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert result["claim"]["kind"] == "half-gdp" and result["claim"]["kappa"] == 0.5
    assert result["claim_lower_bound"] > 0.7
    assert main([*common, "--quiet", "--claim", "half-gdp:mu=0.5"]) == 2
    assert "it cannot also state ['mu']" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["audit", "--help"])
    assert "half-gdp: kappa" in " ".join(capsys.readouterr().out.split())


def test_a_broken_plugin_is_named_once_and_takes_down_only_what_uses_it(
    tmp_path, monkeypatch, capsys, fresh_registries
):
    """A relation plug-in whose module raises on import.

    Detects: a loader that lets the error escape (every command, ``--help`` included, printed a traceback
    and exited 1, the code of a finding), one that hides the plug-in silently or names it more than once,
    and a command that asks for it exiting with anything but the failure code 3 and its PluginError.
    The audit of the built-in geometric mechanism (eps = 1 claimed 2) finds nothing at the fixed seed:
    its loss is half the claim.
    """
    write_distribution(
        tmp_path,
        "broken_plugin",
        BROKEN_ENTRY_POINTS,
        {"broken_plugin": "raise RuntimeError('the toy relation failed')"},
    )
    (tmp_path / "good_mechanism.py").write_text(
        "from dpverify.mechanisms import GeometricMechanism\nmechanism = GeometricMechanism(1.0)\n"
    )
    named = "the neighbouring relation plug-in 'broken-steps' (broken_plugin:STEPS"

    done = run_cli(tmp_path, "--help")
    assert done.returncode == 0 and "usage: dpverify" in done.stdout
    assert done.stderr.count(named) == 1 and "RuntimeError: the toy relation failed" in done.stderr
    assert "Traceback" not in done.stderr

    monkeypatch.syspath_prepend(str(tmp_path))
    common = ["--samples", "4000", "--seed", "1", "--quiet"]
    assert main(["audit", "good_mechanism:mechanism", "--x", "0", "--x-prime", "1", "--epsilon", "2", *common]) == 0
    assert main(["audit", "good_mechanism:mechanism", "--search", "broken-steps", "--epsilon", "2", *common]) == 3
    err = capsys.readouterr().err
    assert err.count(named) == 2  # the warning once, then the error of the command that asked for it
    assert "dpverify audit: error: PluginError: " + named in err and "Traceback" not in err
    assert main(["audit", "good_mechanism:mechanism", "--search", "no-such", "--epsilon", "2", *common]) == 2
    assert "not a relation offered here" in capsys.readouterr().err


def test_broken_verification_and_reproduction_plugins_fail_where_they_are_asked_for(tmp_path, monkeypatch, capsys):
    """The suite's and the reproductions' groups go through the same loader.

    Detects: a verification plug-in that does not load hidden from the suite (a broken registration
    would let it pass: it must be a failing row), and ``dpverify reproduce NAME`` answering a usage
    error (exit 2, "unknown reproduction") where the plug-in that may hold NAME did not load.
    """
    from dpverify.cli.suite import registered_verifications
    from dpverify.errors import PluginError

    entry_points = "[dpverify.verifications]\nbroken = broken_checks:checks\n\n"
    entry_points += "[dpverify.reproductions]\nbroken = broken_checks:figures\n"
    write_distribution(tmp_path, "broken_checks", entry_points, {"broken_checks": "raise ImportError('no toy')"})
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(plugins, "_REPORTED", set())
    with pytest.warns(plugins.PluginWarning, match="verification plug-in 'broken'"):
        failing = {v.name: v for v in registered_verifications()}["broken/<registration>"]
    with pytest.raises(PluginError, match="'broken' .*ImportError: no toy"):
        failing.run(0)
    assert main(["reproduce", "no-such-figure"]) == 3
    assert "PluginError: no reproduction 'no-such-figure' is registered" in capsys.readouterr().err
