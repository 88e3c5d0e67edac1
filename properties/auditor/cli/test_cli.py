"""The dpverify command line: exit codes (0 found nothing, 1 found something, 2 usage, 3 failure, 130
interrupted), no traceback without --debug, checks made before the work, JSON output, suite and reproduce."""

import importlib
import json
import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import dpverify.cli.commands as cli
from dpverify.cli.commands import main

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

    class NeedsArguments:
        def __init__(self, scale):
            self.scale = scale
        def __call__(self, x, rng):
            return float(x) + rng.laplace(scale=self.scale)

    class FailsToBuild:
        def __init__(self):
            raise ValueError("no noise source")
        def __call__(self, x, rng):
            return x
    """
)


@pytest.fixture
def mechanisms(tmp_path, monkeypatch):
    (tmp_path / "cli_mechanisms.py").write_text(MECHANISMS)
    (tmp_path / "cli_syntax_error.py").write_text("def f(x, rng:\n    return x\n")
    (tmp_path / "cli_raises_on_import.py").write_text("raise RuntimeError('no config file')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def run(*args):
    return main([str(a) for a in args])


def audit_zero_one(mechanism, epsilon, *options):
    """``dpverify audit`` of ``mechanism`` (a name in cli_mechanisms, or MODULE:CALLABLE) on inputs 0 and 1."""
    target = mechanism if ":" in mechanism else f"cli_mechanisms:{mechanism}"
    return run("audit", target, "--x", "0", "--x-prime", "1", "--epsilon", epsilon, *options)


def test_no_violation_exits_zero(mechanisms, capsys):
    code = audit_zero_one("Laplace", "1", "--samples", "20000", "--seed", "1", "--quiet")
    out = capsys.readouterr().out
    assert code == 0
    assert "no violation found" in out and "seed 1" in out


def test_violation_exits_one_and_json_is_machine_readable(mechanisms, capsys):
    code = audit_zero_one("leaky", "1", "--samples", "20000", "--seed", "2", "--json")
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
        (["cli_mechanisms:Laplace", "--x", "0", "--x-prime", "1", "--epsilon", "9", "--samples", "50"], "at least"),
        (["cli_syntax_error:f", "--x", "0", "--x-prime", "1", "--epsilon", "1"], "syntax error"),
        (["cli_mechanisms:NeedsArguments", "--x", "0", "--x-prime", "1", "--epsilon", "1"], "needs arguments"),
    ],
)
def test_usage_errors_exit_two_with_a_message(mechanisms, capsys, args, message):
    assert run("audit", *args, "--quiet") == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    "flags",
    [["--length", "3"], ["--candidates", "5"], ["--screening", "100", "--norm", "l1"], ["--values", "[0, 1]"]],
)
def test_search_flags_beside_one_pair_are_a_usage_error(mechanisms, capsys, flags):
    """Detects: a search flag beside ``--x/--x-prime`` ignored without a word (the pair was audited as given,
    exit 0, while the user believed a search or its sizes applied). Deterministic: refused before any draw."""
    assert audit_zero_one("broken", "1", "--quiet", *flags) == 2  # "broken" raises if it is ever drawn from
    err = capsys.readouterr().err
    assert flags[0] in err and "apply to a search" in err.replace("applies", "apply") and "Traceback" not in err


@pytest.mark.parametrize(
    "mechanism, message",
    [
        ("cli_mechanisms:broken", "boom"),
        ("cli_raises_on_import:f", "no config file"),
        ("cli_mechanisms:FailsToBuild", "no noise source"),
    ],
)
def test_mechanism_failures_exit_three_without_a_traceback(mechanisms, capsys, mechanism, message):
    code = audit_zero_one(mechanism, "1", "--quiet")
    err = capsys.readouterr().err
    assert code == 3, err
    assert message in err and "Traceback" not in err


def test_internal_errors_exit_three_and_debug_shows_the_traceback(mechanisms, capsys, monkeypatch):
    def crash(*args, **kwargs):
        raise ZeroDivisionError("a bug in dpverify")

    monkeypatch.setattr(importlib.import_module("dpverify.audits.pair"), "audit", crash)
    assert audit_zero_one("Laplace", "1", "--quiet") == 3
    err = capsys.readouterr().err
    assert "internal error: ZeroDivisionError: a bug in dpverify" in err and "Traceback" not in err
    assert audit_zero_one("Laplace", "1", "--quiet", "--debug") == 3
    assert "Traceback" in capsys.readouterr().err


def test_interrupt_exits_130_with_a_short_message(mechanisms, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module("dpverify.audits.pair"), "audit", interrupted)
    assert audit_zero_one("Laplace", "1") == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args",
    [
        ["audit", "m:f", "--x", "0", "--x-prime", "1", "--epsilon", "1000"],  # e^1000 overflows
        ["audit", "m:f", "--x", "0", "--x-prime", "1", "--epsilon", "nan"],
        ["audit", "m:f", "--x", "0", "--x-prime", "1", "--epsilon", "1", "--seed", "-1"],
        ["audit", "m:f", "--x", "0", "--x-prime", "1", "--epsilon", "1", "--samples", "0"],
        ["audit", "m:f", "--x", "0", "--x-prime", "1", "--epsilon", "1", "--workers", "0"],
        ["suite", "--seed", "-1"],
        ["suite", "--workers", "0"],
        ["suite", "--workers", "-3"],
        ["reproduce", "thesis-synthetic", "--workers", "0"],
        ["reproduce", "thesis-synthetic", "--workers", "-3"],
        ["reproduce", "thesis-synthetic", "--seed", "-1"],
    ],
)
def test_bad_arguments_are_rejected_before_any_work(args, capsys):
    with pytest.raises(SystemExit) as info:
        main(args)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and ("must" in err or "expected" in err or "too large" in err), err


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
    assert {
        "textbook/laplace",
        "textbook/randomized-response",
        "textbook/geometric",
        "textbook/exponential",
        "textbook/laplace-half-noise",
    } <= names
    assert "lower bound" in text and "verdict" in text


def test_suite_list_and_unknown_selection(capsys):
    assert run("suite", "--list") == 0
    assert "textbook/laplace" in capsys.readouterr().out
    assert run("suite", "--select", "no-such-thing/*", "--quiet") == 2


def test_reproduce_list_and_unknown_name(capsys):
    assert run("reproduce", "--list") == 0
    assert run("reproduce", "no-such-figure") == 2
    assert "unknown reproduction" in capsys.readouterr().err


def test_suite_out_creates_a_missing_folder(tmp_path, capsys):
    out = tmp_path / "not" / "yet" / "report.json"
    assert run("suite", "--select", "textbook/laplace", "--out", out, "--quiet", "--workers", "1") == 0
    assert json.loads(out.read_text())["passed"] is True


def test_suite_out_that_cannot_be_written_fails_before_the_run(tmp_path, capsys, monkeypatch):
    import dpverify.cli.suite

    def must_not_run(*args, **kwargs):
        raise AssertionError("the suite ran although its report could not be written")

    monkeypatch.setattr(dpverify.cli.suite, "run_suite", must_not_run)
    (tmp_path / "a-file").write_text("")
    assert run("suite", "--out", tmp_path / "a-file" / "report.json", "--quiet") == 3
    assert "cannot create the folder" in capsys.readouterr().err
    assert run("suite", "--out", tmp_path, "--quiet") == 2  # a folder, not a file
    assert "is a folder" in capsys.readouterr().err


def test_reproduce_without_matplotlib_says_so_before_computing(tmp_path, capsys, monkeypatch):
    import importlib.util

    import dpverify.reproduction

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real_find_spec(name, *a)
    )

    def must_not_run(*args, **kwargs):
        raise AssertionError("the reproduction ran without matplotlib")

    fake = dpverify.reproduction.Reproduction("fake-figure", "a figure", must_not_run)
    monkeypatch.setattr(dpverify.reproduction, "registered_reproductions", lambda: {"fake-figure": fake})
    assert run("reproduce", "fake-figure", "--out", tmp_path / "figs") == 3
    assert "pip install 'dpverify[plot]'" in capsys.readouterr().err


def test_reproduce_passes_the_executor_and_the_files_do_not_depend_on_workers(tmp_path, capsys, monkeypatch):
    import dpverify.reproduction

    seen = []

    def figure(out_dir, *, quick, seed, progress, executor=None):
        seen.append(executor)
        path = out_dir / "f.csv"
        path.write_text(f"{seed}\n")
        return [path]

    fake = dpverify.reproduction.Reproduction("fake-figure", "a figure", figure)
    monkeypatch.setattr(dpverify.reproduction, "registered_reproductions", lambda: {"fake-figure": fake})
    assert run("reproduce", "fake-figure", "--out", tmp_path / "one", "--workers", "1", "--quiet") == 0
    assert run("reproduce", "fake-figure", "--out", tmp_path / "two", "--workers", "2", "--quiet") == 0
    from concurrent.futures import ThreadPoolExecutor

    assert seen[0] is None and isinstance(seen[1], ThreadPoolExecutor)
    assert (tmp_path / "one" / "f.csv").read_text() == (tmp_path / "two" / "f.csv").read_text()


def test_scheduler_without_dask_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    assert run("suite", "--select", "textbook/laplace", "--scheduler", "tcp://127.0.0.1:1", "--quiet") == 3
    assert "pip install 'dpverify[dask]'" in capsys.readouterr().err


def test_suite_results_do_not_depend_on_the_workers():
    from concurrent.futures import ThreadPoolExecutor

    from dpverify.cli.suite import registered_verifications, run_suite

    items = [v for v in registered_verifications() if v.name.startswith("textbook/")]
    one = run_suite(items, seed=5)
    with ThreadPoolExecutor(2) as pool:
        two = run_suite(items, seed=5, executor=pool)

    def strip(records):
        return [(r.name, r.passed, r.certified_lower_bound, r.exact_loss, r.details) for r in records]

    assert strip(one) == strip(two)
    assert run_suite(items[:1], seed=6)[0].certified_lower_bound != one[0].certified_lower_bound


def test_large_samples_say_up_front_what_the_audit_will_cost(mechanisms, capsys, monkeypatch):
    class Result:
        violation = False
        seed = 1
        replayable = True

        def summary(self):
            return "no violation found"

    monkeypatch.setattr(importlib.import_module("dpverify.audits.pair"), "audit", lambda *a, **k: Result())
    code = audit_zero_one("leaky", "1", "--samples", 10**10, "--seed", "1")
    assert code == 0
    err = capsys.readouterr().err
    assert "will take roughly" in err and ("h" in err or "days" in err)


def _child(args, cwd):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    # Ctrl-C as in a terminal: a background shell may have left SIGINT ignored for its children.
    return subprocess.Popen(
        [sys.executable, "-m", "dpverify", *args],
        cwd=cwd,
        env=env,
        text=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _interrupt_after(proc, marker: str, timeout=120.0):
    """Send Ctrl-C once ``marker`` appears on stderr; return (exit code, seconds to exit, stderr)."""
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in proc.stderr], daemon=True)
    reader.start()
    seen = []
    deadline = time.monotonic() + timeout
    while not any(marker in line for line in seen):
        try:
            seen.append(lines.get(timeout=max(0.0, deadline - time.monotonic())))
        except queue.Empty:
            proc.kill()
            pytest.fail(f"{marker!r} never appeared: {''.join(seen)}")
    time.sleep(0.5)
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        code = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        pytest.fail("the command did not stop within 10 s of Ctrl-C")
    seconds = time.monotonic() - sent
    reader.join(timeout=5)
    assert not reader.is_alive(), "a worker outlived the command (it still holds stderr open)"
    while not lines.empty():
        seen.append(lines.get())
    return code, seconds, "".join(seen)


@pytest.mark.parametrize(
    "args, marker",
    [
        (["suite", "--workers", "2"], "verifications on 2 workers"),
        (["reproduce", "thesis-synthetic", "--workers", "2"], "runs on 2 workers"),
        (
            [
                "audit",
                "slow_mechanism:noisy",
                "--x",
                "0",
                "--x-prime",
                "1",
                "--epsilon",
                "1",
                "--samples",
                "200000000",
                "--workers",
                "2",
            ],
            "will take roughly",
        ),
    ],
)
def test_ctrl_c_stops_within_a_second_with_exit_130(tmp_path, args, marker):
    (tmp_path / "slow_mechanism.py").write_text("def noisy(x, rng):\n    return int(x) + int(rng.integers(3))\n")
    proc = _child([*args, *(["--out", str(tmp_path / "out")] if args[0] == "reproduce" else [])], tmp_path)
    code, seconds, err = _interrupt_after(proc, marker)
    assert code == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert seconds < 2.0, f"took {seconds:.1f}s to stop"


def test_audit_samples_reads_npy_files_and_reports_both_verdicts(tmp_path, capsys):
    import numpy as np

    rng = np.random.default_rng(4)
    np.save(tmp_path / "a.npy", rng.laplace(size=100_000))  # x = 0, textbook doubles
    np.save(tmp_path / "b.npy", 1.0 + rng.laplace(size=100_000))  # x' = 1
    common = [tmp_path / "a.npy", tmp_path / "b.npy", "--epsilon", "1", "--x", "0.0", "--x-prime", "1.0"]
    assert run("audit-samples", *common, "--json") == 1  # the rounding leaks
    payload = json.loads(capsys.readouterr().out)
    assert payload["value_verdict"]["violation"] is False  # the ideal Laplace keeps eps = 1
    assert run("audit-samples", *common, "--no-float-events") == 0
    assert "no violation found" in capsys.readouterr().out
    assert run("audit-samples", tmp_path / "missing.npy", tmp_path / "b.npy", "--epsilon", "1") == 2
    assert "no such file" in capsys.readouterr().err


def test_no_float_events_and_n_selection_reach_the_audit(mechanisms, capsys):
    code = audit_zero_one(
        "leaky", "4.5", "--samples", "20000", "--seed", "2", "--json", "--no-float-events", "--n-selection", "5000"
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == 0 and payload["n_selection"] == 5000
    assert payload["event"]["family"] not in ("mantissa", "reachability")


def test_help_is_true_for_every_subcommand():
    parser = cli.build_parser()
    subparsers = next(a for a in parser._actions if a.dest == "command").choices
    assert set(subparsers) == {"audit", "audit-samples", "suite", "reproduce"}
    for name, sub in subparsers.items():
        text = sub.format_help()
        for action in sub._actions:
            for flag in action.option_strings:
                assert flag in text, (name, flag)
        for code in ("0", "1" if name != "reproduce" else "0", "2", "3", "130", "141"):
            assert code in text.split("Exit")[-1], (name, code)
        assert "--debug" in text
    assert "Exit codes" in parser.format_help()


def test_no_claim_is_a_usage_error_in_the_command_lines_words(mechanisms, tmp_path, capsys):
    """Detects: the CLI answering a missing claim with the Python API's words ("pass epsilon= ... or
    claim=PrivacyClaim.zcdp(rho)"), and audit-samples' help promising "the claim the mechanism states"
    where there is no mechanism; the subcommands' help naming only (eps, delta) claims. Deterministic."""
    import numpy as np

    assert run("audit", "cli_mechanisms:leaky", "--x", "0", "--x-prime", "1", "--quiet") == 2
    err = capsys.readouterr().err
    assert "no claim given: pass --epsilon (and --delta), --claim, --rho, --mu or --renyi" in err
    assert "the mechanism states none" in err and "claim=PrivacyClaim" not in err and "epsilon=" not in err
    np.save(tmp_path / "a.npy", np.zeros(100))
    np.save(tmp_path / "b.npy", np.ones(100))
    assert run("audit-samples", tmp_path / "a.npy", tmp_path / "b.npy") == 2
    err = capsys.readouterr().err
    assert "no claim given" in err and "no mechanism here" in err and "claim=PrivacyClaim" not in err
    subparsers = next(a for a in cli.build_parser()._actions if a.dest == "command").choices
    samples_help = " ".join(subparsers["audit-samples"].format_help().split())
    assert "the mechanism states" not in samples_help and "the stated delta" not in samples_help
    top_help = " ".join(cli.build_parser().format_help().split())
    assert "(eps, delta) claim" not in top_help and "zCDP" in top_help


def test_console_script_help_is_true():
    result = subprocess.run(
        [sys.executable, "-m", "dpverify", "audit", "--help"], capture_output=True, text=True, check=True
    )
    for flag in ["--x", "--x-prime", "--epsilon", "--delta", "--samples", "--seed", "--json", "--report"]:
        assert flag in result.stdout
    assert "Exit 0" in result.stdout


def test_suite_says_when_a_verification_compiles_numba_kernels():
    import numba  # a core dependency: never skipped

    from dpverify.cli.suite import Verification, VerificationOutcome, run_suite

    def compiles(seed):
        @numba.njit  # a fresh function: never in the cache
        def add(a, b):
            return a + b

        return VerificationOutcome(passed=add(seed, 1) == seed + 1)

    lines = []
    plain = Verification("test/plain", "no kernels", lambda seed: VerificationOutcome(passed=True))
    records = run_suite([Verification("test/compiles", "compiles a kernel", compiles), plain], progress=lines.append)
    assert [r.passed for r in records] == [True, True]
    assert records[0].compile_seconds > 0 and records[1].compile_seconds == 0
    assert any("test/compiles: compiling numba kernels" in line for line in lines)
    assert not any("test/plain: compiling" in line for line in lines)


def test_suite_on_an_executor_keeps_the_order_and_runs_a_family_in_one_worker():
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from dpverify.cli.suite import Verification, VerificationOutcome, run_suite

    threads = {}

    def check(name):
        def run(seed):
            threads[name] = threading.get_ident()
            return VerificationOutcome(passed=True, details=str(seed))

        return Verification(name, "claim", run)

    items = [check(n) for n in ("b/one", "a/one", "b/two", "c/one", "a/two")]
    with ThreadPoolExecutor(2) as pool:
        records = run_suite(items, seed=3, executor=pool)
    assert [r.name for r in records] == [v.name for v in items]
    assert [r.details for r in records] == [r.details for r in run_suite(items, seed=3)]
    assert threads["a/one"] == threads["a/two"] and threads["b/one"] == threads["b/two"]


def test_an_unreachable_scheduler_is_a_failure_with_a_message(capsys, monkeypatch):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is in the test and dask extras")

    def refuse(address, *args, **kwargs):
        raise OSError(f"Timed out trying to connect to {address}")

    monkeypatch.setattr(distributed, "Client", refuse)
    assert run("suite", "--select", "textbook/laplace", "--scheduler", "tcp://127.0.0.1:1", "--quiet") == 3
    err = capsys.readouterr().err
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'" in err and "internal error" not in err


def test_a_named_error_of_a_reproduction_is_a_failure_not_an_internal_error(tmp_path, capsys, monkeypatch):
    import dpverify.reproduction

    class DatasetMissing(FileNotFoundError):
        pass

    def figure(out_dir, *, quick, seed, progress, executor=None):
        raise DatasetMissing("the maps are not in ./data; set DATA_DIR")

    fake = dpverify.reproduction.Reproduction("fake-figure", "a figure", figure)
    monkeypatch.setattr(dpverify.reproduction, "registered_reproductions", lambda: {"fake-figure": fake})
    assert run("reproduce", "fake-figure", "--out", tmp_path / "figs", "--quiet") == 3
    err = capsys.readouterr().err
    assert "DatasetMissing: the maps are not in ./data" in err and "internal error" not in err


def test_the_suites_first_time_estimate_does_not_charge_compilation_to_every_verification(monkeypatch):
    """Detects the "about 1322 s left" of an 86 s suite: the first verification pays the numba
    compilation (here 0.3 s, faked as compile time) and the wall time since the start was charged to
    each of the nine left. Estimates now wait for three finished verifications and leave compile time out."""
    import re

    from dpverify.cli import suite
    from dpverify.verification import Verification, VerificationOutcome

    class Compiles(suite._CompileWatch):
        def __exit__(self, *exc):
            self.seconds = 0.29 if self.name.endswith("/0") else 0.0
            return False

    def run(delay):
        def verification(seed):
            time.sleep(delay)
            return VerificationOutcome(passed=True)

        return verification

    monkeypatch.setattr(suite, "_CompileWatch", Compiles)
    items = [Verification(f"fake/{i}", "sleeps", run(0.3 if i == 0 else 0.005)) for i in range(10)]
    lines: list = []
    start = time.perf_counter()
    records = suite.run_suite(items, seed=1, progress=lines.append)
    total = time.perf_counter() - start
    estimates = [float(m.group(1)) for line in lines if (m := re.search(r"about (\d+)s left", line))]
    assert all(r.passed for r in records) and estimates
    assert max(estimates) <= max(1.0, total)
    assert not any("left" in line for line in lines[:3])  # nothing is estimated from fewer than three


def test_the_suite_table_puts_the_time_before_the_statement():
    """Detects times cut off at the end of lines wider than a terminal: the verdict and the time
    (57.6s, right-aligned with 1.2s) come before the long statement."""
    from dpverify.cli.suite import format_table
    from dpverify.verification import VerificationRecord

    def record(name, seconds):
        return VerificationRecord(
            name=name,
            statement="x" * 200,
            passed=True,
            certified_lower_bound=1.0,
            exact_loss=None,
            details="",
            seconds=seconds,
            error=None,
            compile_seconds=0.0,
            claim=None,
        )

    lines = format_table([record("family/long", 57.63), record("family/short", 1.2)]).splitlines()
    assert "57.6s" in lines[2][:80] and " 1.2s" in lines[3][:80]
    assert lines[2].index("57.6s") + 5 == lines[3].index("1.2s") + 4  # aligned on the unit


def test_a_reader_gone_ends_the_command_quietly(mechanisms):
    """``dpverify ... | head``: the output's reader has gone before the command writes. The command stops
    with 141 (128 + SIGPIPE, as ``yes | head`` does) and says nothing on stderr.

    Detects: the BrokenPipeError reported as "internal error: BrokenPipeError" with exit 3 (the old
    behaviour, tried)."""
    read_end, write_end = os.pipe()
    os.close(read_end)  # no reader at all: every write fails with EPIPE, deterministically
    try:
        result = subprocess.run(
            [sys.executable, "-m", "dpverify", "audit", "cli_mechanisms:Laplace", "--x", "0", "--x-prime", "1"]
            + ["--epsilon", "1", "--samples", "2000"],
            cwd=mechanisms,
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert result.returncode == cli.EXIT_READER_GONE == 141, result.stderr
    assert "BrokenPipe" not in result.stderr and "error" not in result.stderr, result.stderr
