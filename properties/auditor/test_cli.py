"""The dpverify command line: exit codes, JSON output, suite and reproduce (issue 2, section 3)."""

import json
import subprocess
import sys
import textwrap

import pytest

from dpverify.cli import main

MECHANISMS = textwrap.dedent(
    """
    import numpy as np

    class Laplace:
        def __call__(self, x, rng):
            return float(x) + rng.laplace(scale=1.0)
        def sample(self, x, size, rng):
            return float(np.round(x)) + np.round(rng.laplace(scale=1.0, size=size) * 2**20) / 2**20

    def leaky(x, rng):
        return float(x) + rng.laplace(scale=0.25)

    def broken(x, rng):
        raise RuntimeError("boom")
    """
)


@pytest.fixture
def mechanisms(tmp_path, monkeypatch):
    (tmp_path / "cli_mechanisms.py").write_text(MECHANISMS)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run(*args):
    return main([str(a) for a in args])


def test_no_violation_exits_zero(mechanisms, capsys):
    code = run("audit", "cli_mechanisms:Laplace", "--x", "0", "--x-prime", "1", "--epsilon", "1",
               "--samples", "20000", "--seed", "1", "--quiet")
    out = capsys.readouterr().out
    assert code == 0
    assert "no violation found" in out and "seed 1" in out


def test_violation_exits_one_and_json_is_machine_readable(mechanisms, capsys):
    code = run("audit", "cli_mechanisms:leaky", "--x", "0", "--x-prime", "1", "--epsilon", "1",
               "--samples", "20000", "--seed", "2", "--json")
    payload = json.loads(capsys.readouterr().out)
    assert code == 1
    assert payload["violation"] is True and payload["epsilon_lower_bound"] > 1
    assert payload["seed"] == 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["cli_mechanisms:Laplace", "--x", "0", "--x-prime", "1", "--epsilon", "-1"], "epsilon"),
        (["cli_mechanisms:nothing", "--x", "0", "--x-prime", "1", "--epsilon", "1"], "no attribute"),
        (["no_module_here:f", "--x", "0", "--x-prime", "1", "--epsilon", "1"], "cannot import"),
        (["cli_mechanisms", "--x", "0", "--x-prime", "1", "--epsilon", "1"], "MODULE:CALLABLE"),
        (["cli_mechanisms:Laplace", "--x", "{", "--x-prime", "1", "--epsilon", "1"], "JSON"),
        (["cli_mechanisms:Laplace", "--x", "1", "--x-prime", "1", "--epsilon", "1"], "equal"),
        (["cli_mechanisms:broken", "--x", "0", "--x-prime", "1", "--epsilon", "1"], "boom"),
        (["cli_mechanisms:Laplace", "--x", "0", "--x-prime", "1", "--epsilon", "9", "--samples", "50"],
         "at least"),
    ],
)
def test_usage_errors_exit_two_with_a_message(mechanisms, capsys, args, message):
    assert run("audit", *args, "--quiet") == 2
    assert message in capsys.readouterr().err


def test_argparse_usage_error_exits_two(capsys):
    with pytest.raises(SystemExit) as info:
        main(["audit", "--epsilon", "1"])
    assert info.value.code == 2


def test_suite_runs_selected_verifications_and_writes_a_report(tmp_path, capsys):
    out = tmp_path / "report.json"
    code = run("suite", "--select", "textbook/*", "--out", out, "--quiet")
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert code == 0, text
    assert report["passed"] is True
    names = {v["name"] for v in report["verifications"]}
    assert {"textbook/laplace", "textbook/randomized-response", "textbook/geometric",
            "textbook/exponential", "textbook/laplace-half-noise"} <= names
    assert "lower bound" in text and "verdict" in text


def test_suite_list_and_unknown_selection(capsys):
    assert run("suite", "--list") == 0
    assert "textbook/laplace" in capsys.readouterr().out
    assert run("suite", "--select", "no-such-thing/*", "--quiet") == 2


def test_reproduce_list_and_unknown_name(capsys):
    assert run("reproduce", "--list") == 0
    assert run("reproduce", "no-such-figure") == 2
    assert "unknown reproduction" in capsys.readouterr().err


def test_console_script_help_is_true():
    result = subprocess.run([sys.executable, "-m", "dpverify", "audit", "--help"], capture_output=True,
                            text=True, check=True)
    for flag in ["--x", "--x-prime", "--epsilon", "--delta", "--samples", "--seed", "--json", "--report"]:
        assert flag in result.stdout
    assert "Exit 0" in result.stdout
