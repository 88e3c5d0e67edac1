"""Bad inputs answered by named errors (dpverify.errors), before any work where possible.

Deterministic checks; the command line's start-up interrupt runs in a child process.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import dpverify
from dpverify._validation import MAX_EPSILON, check_epsilon
from dpverify.cli.commands import _epsilon, _positive_int
from dpverify.extras.adapters import OpenDPMeasurement
from dpverify.mechanisms.textbook import LaplaceMechanism

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_api_accepts_exactly_the_claims_the_command_line_accepts():
    """Detects the raw OverflowError of audit(..., epsilon=1000) (e^1000 overflows in the bounds)."""
    with pytest.raises(dpverify.InvalidClaimError, match="at most 709.78"):
        dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1000, n_samples=2_000, seed=1)
    for value in (1.0, 709.0, MAX_EPSILON, np.nextafter(MAX_EPSILON, 1000), 709.8, 1000.0):
        try:
            check_epsilon(value)
            api = True
        except dpverify.InvalidClaimError:
            api = False
        try:
            _epsilon(repr(float(value)))
            cli = True
        except argparse.ArgumentTypeError:
            cli = False
        assert api == cli, value


def test_vectors_of_different_widths_are_named():
    """Detects numpy's concatenation ValueError for integer rows of widths 3 and 4."""
    rng = np.random.default_rng(1)
    with pytest.raises(dpverify.OutputTypeError, match=r"different lengths \[3, 4\]"):
        dpverify.audit_samples(rng.integers(0, 3, (30_000, 3)), rng.integers(0, 3, (30_000, 4)), epsilon=1.0)
    chunks = iter([rng.laplace(size=(15_000, 3)), rng.laplace(size=(15_000, 4))])
    with pytest.raises(dpverify.OutputTypeError, match="different shapes"):
        dpverify.audit_samples(chunks, rng.laplace(size=(30_000, 3)), epsilon=1.0)


def test_a_mechanism_that_is_not_callable_is_refused_up_front():
    """Detects "the mechanism raised TypeError" for audit(5, ...)."""
    for call in (dpverify.audit, dpverify.sequential_audit):
        with pytest.raises(dpverify.InvalidParameterError, match="must be callable"):
            call(5, 0, 1, epsilon=1.0, n_samples=2_000, seed=1)
    with pytest.raises(dpverify.InvalidParameterError, match="must be callable"):
        dpverify.delta_lower_bound_curve(5, 0, 1, epsilons=[1.0], n_samples=2_000, seed=1)


def test_identical_tuples_of_arrays_are_identical_inputs():
    """Detects the comparison of tuples of arrays failing ("truth value ... ambiguous") and passing as different."""
    x = (np.zeros(3), np.ones(2))
    with pytest.raises(dpverify.IdenticalInputsError):
        dpverify.audit(lambda d, rng: rng.random(), x, (np.zeros(3), np.ones(2)), epsilon=1.0, n_samples=2_000)
    result = dpverify.audit(
        lambda d, rng: rng.random(), x, (np.zeros(3), np.array([1.0, 2.0])), epsilon=1.0, n_samples=2_000, seed=1
    )
    assert not result.violation


def test_integral_floats_are_whole_numbers_on_the_command_line():
    """Detects --samples 1e5 refused ("expected a whole number"); the benchmark scripts write 1e7."""
    assert _positive_int("1e5") == 100_000 and _positive_int("2.0e3") == 2_000 and _positive_int("7") == 7
    for text in ("1.5", "1e-3", "nan", "inf", "ten"):
        with pytest.raises(argparse.ArgumentTypeError):
            _positive_int(text)


def test_ctrl_c_during_the_command_lines_imports_prints_no_traceback(tmp_path):
    """Detects the KeyboardInterrupt traceback of an interrupt before main() runs: an import hook
    raises KeyboardInterrupt while ``python -m dpverify`` imports dpverify.audits.pair."""
    (tmp_path / "sitecustomize.py").write_text(
        textwrap.dedent(
            """
            import sys

            class Interrupt:
                def find_spec(self, name, path=None, target=None):
                    if name == "dpverify.audits.pair":
                        raise KeyboardInterrupt
                    return None

            sys.meta_path.insert(0, Interrupt())
            """
        )
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(REPO_ROOT)]))
    done = subprocess.run(
        [sys.executable, "-m", "dpverify", "audit", "m:f", "--x", "0", "--x-prime", "1", "--epsilon", "1"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr and "Traceback" not in done.stderr


class NativeMeasurement:
    """Stands for an OpenDP measurement: callable, a privacy map, and a ctypes pointer inside."""

    output_measure = "MaxDivergence"

    def __init__(self):
        self.handle = ctypes.pointer(ctypes.c_int(1))

    def map(self, d_in):
        return 1.0 * d_in

    def __call__(self, data):
        return int(data)


def test_an_opendp_measurement_on_a_process_pool_is_refused_by_name():
    """Detects "ValueError: ctypes objects containing pointers cannot be pickled" from the pool."""
    mechanism = OpenDPMeasurement(NativeMeasurement(), 1)
    with pytest.raises(dpverify.InvalidParameterError, match="OpenDP measurement.*executor=None"):
        dpverify.audit(mechanism, 0, 1, epsilon=mechanism.epsilon, n_samples=2_000, seed=1, executor=2)


def test_real_opendp_on_a_process_pool_is_refused_by_name():
    """The same with OpenDP itself, where installed (the 'adapters' extra)."""
    dp = pytest.importorskip("opendp.prelude", reason="OpenDP is in the 'adapters' extra only")
    dp.enable_features("contrib")
    space = dp.atom_domain(T=int), dp.absolute_distance(T=int)
    mechanism = OpenDPMeasurement(space >> dp.m.then_geometric(scale=1.0), 1)
    with pytest.raises(dpverify.InvalidParameterError, match="OpenDP measurement"):
        dpverify.audit(mechanism, 0, 1, epsilon=mechanism.epsilon, n_samples=2_000, seed=1, executor=2)


def test_a_neighbours_callable_that_raises_is_named_and_chained():
    """Detects the raw RuntimeError of a neighbours callable that raises inside search_audit."""

    def broken(rng):
        raise RuntimeError("no pair today")

    with pytest.raises(dpverify.InvalidNeighboursError, match="raised RuntimeError.*no pair today") as raised:
        dpverify.search_audit(LaplaceMechanism(1.0), broken, epsilon=1.0, n_samples=5_000, seed=1)
    assert isinstance(raised.value.__cause__, RuntimeError)


def test_a_strategy_that_sometimes_draws_equal_inputs_is_drawn_again():
    """Detects a Hypothesis strategy of pairs refused whole at its first pair with equal inputs: its equal
    pairs are dropped and it is drawn again; one that draws nothing but equal pairs is still refused."""
    from hypothesis import strategies as st

    from dpverify.neighbours import candidate_pairs

    seed = np.random.SeedSequence(3)
    sometimes = st.tuples(st.integers(0, 3), st.integers(0, 3))
    pairs, _ = candidate_pairs(sometimes, 8, seed)
    assert len(pairs) == 8 and all(x != x_prime for x, x_prime in pairs)
    always = st.integers(0, 3).map(lambda b: (b, b))
    with pytest.raises(dpverify.InvalidNeighboursError, match="every one with equal inputs"):
        candidate_pairs(always, 8, seed)


@pytest.mark.parametrize(
    "flags",
    [
        ["--search", "streams", "--length", "3", "--norm", "l1"],
        ["--search", "scalars", "--length", "3"],
        ["--search", "datasets", "--length", "3", "--patterns", "one_above"],
        ["--search", "vectors", "--length", "3", "--values", "[0, 1]"],
    ],
)
def test_a_relation_flag_the_relation_ignores_is_refused(flags, capsys):
    """Detects --norm (and --length, --patterns, --values) silently ignored by a relation that does not read it."""
    from dpverify.cli.commands import main

    code = main(["audit", "dpverify.mechanisms:GeometricMechanism", "--epsilon", "1.0", "--samples", "5000", *flags])
    assert code == 2
    assert "is not used by --search" in capsys.readouterr().err


def _claims_named(flags):
    from types import SimpleNamespace

    from dpverify.cli.commands import _claim_of_flags

    args = SimpleNamespace(**{**dict(claim=None, rho=None, mu=None, renyi=None, epsilon=None, delta=None), **flags})
    return _claim_of_flags(args)


# Each call, the named error it raises, the builtin it raised before the check moved into
# dpverify._validation, and the message, which did not change.
_MOVED_CHECKS = [
    (
        lambda: dpverify.extras.adapters.PyDPMechanism(object()),
        "InvalidArgumentTypeError",
        TypeError,
        "mechanism must be a python-dp numerical mechanism, with add_noise(value)",
    ),
    (
        lambda: dpverify.extras.adapters.PipelineDPAggregation(None, None, public_partitions=[], epsilon=1.0),
        "InvalidParameterError",
        ValueError,
        "public_partitions must name at least one partition",
    ),
    (
        lambda: dpverify.extras.adapters.DiffprivlibMechanism(LaplaceMechanism(1.0)),
        "InvalidArgumentTypeError",
        TypeError,
        "mechanism_class must be a diffprivlib mechanism class, got a LaplaceMechanism",
    ),
    (
        lambda: OpenDPMeasurement(lambda data: data, 1),
        "InvalidArgumentTypeError",
        TypeError,
        "measurement must have a privacy map measurement.map(d_in), as OpenDP's do",
    ),
    (
        lambda: OpenDPMeasurement(5, 1),
        "InvalidArgumentTypeError",
        TypeError,
        "measurement must be callable, got int",
    ),
    (
        lambda: dpverify.testing.assert_dp(LaplaceMechanism(1.0), 0.0, epsilon=1.0),
        "InvalidParameterError",
        ValueError,
        "assert_dp needs x and x_prime, or neighbours=",
    ),
    (
        lambda: dpverify.testing.assert_dp(LaplaceMechanism(1.0), 0.0, 1.0, neighbours=[(0.0, 1.0)], epsilon=1.0),
        "InvalidParameterError",
        ValueError,
        "give neighbours= or x and x_prime (neighbours does not combine with sequential)",
    ),
    (
        lambda: dpverify.verification.Verification("a/b", "eps = 1", lambda seed: None, claim=1.0),
        "InvalidParameterError",
        ValueError,
        "a verification's claim must be a dpverify.PrivacyClaim or None, got float; what the check verifies, "
        "in words, is its statement",
    ),
    (
        lambda: dpverify.audit(LaplaceMechanism(1.0), 0.0, 1.0, epsilon=1.0, alpah=0.1),
        "InvalidArgumentTypeError",
        TypeError,
        "audit() got unexpected keyword argument(s) ['alpah']; options are "
        f"{list(dpverify.options.OPTION_FIELDS)} (fields of dpverify.AuditOptions)",
    ),
    (
        lambda: _claims_named({"rho": 0.5, "mu": 1.0}),
        "InvalidClaimError",
        ValueError,
        "give one claim: --rho and --mu were given together; use one of --epsilon/--delta, --claim, --rho, --mu, "
        "--renyi",
    ),
]


@pytest.mark.parametrize("call, name, builtin, message", _MOVED_CHECKS, ids=lambda v: getattr(v, "__name__", None))
def test_moved_checks_raise_their_named_error_and_the_builtin_they_raised_before(call, name, builtin, message):
    """Detects a check removed (no error, or a later one with another message), a bare builtin raised
    again (not a DPVerifyError of the named class) or a named class that no longer subclasses the
    builtin (``except TypeError`` / ``except ValueError`` callers would miss it)."""
    import dpverify.extras.adapters  # noqa: F401
    import dpverify.testing  # noqa: F401
    import dpverify.verification  # noqa: F401

    named = getattr(dpverify.errors, name)
    assert issubclass(named, dpverify.DPVerifyError) and issubclass(named, builtin)
    with pytest.raises(builtin) as info:
        call()
    assert type(info.value) is named
    assert str(info.value) == message


def test_the_command_line_errors_are_named_and_keep_their_old_names():
    """Detects the CLI defining its own exception classes again (outside dpverify.errors), or the old
    private names no longer importable."""
    from dpverify.cli import commands

    assert commands._UsageError is dpverify.errors.CommandUsageError
    assert commands._Failure is dpverify.errors.CommandFailure
    assert commands._exit_code_of(commands._UsageError("x")) == commands.EXIT_USAGE
    assert commands._exit_code_of(commands._Failure("x")) == commands.EXIT_FAILURE
    assert commands._message_of(commands._Failure("cannot write")) == "cannot write"


_SAMPLES = np.arange(2_000) % 2


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: dpverify.audit_pairs(LaplaceMechanism(1.0), lambda: [(0, 1)], epsilon=1.0), "use dpverify.search"),
        (lambda: dpverify.audit_pairs(LaplaceMechanism(1.0), 3, epsilon=1.0), "pairs must be a list of"),
        (lambda: dpverify.audit_samples(_SAMPLES, _SAMPLES, epsilon=1.0, inputs=3), "inputs must be the"),
        (lambda: dpverify.audit_samples(_SAMPLES, _SAMPLES, epsilon=1.0, inputs=(0, 1, 2)), "inputs must be the"),
        (lambda: dpverify.audit_samples(iter(_SAMPLES), iter(_SAMPLES), epsilon=1.0), "chunk 0 is int64"),
        (lambda: dpverify.one_run_audit(["a", "b", "c"], seed=1), "scores must be a 1-D array"),
        (lambda: dpverify.PrivacyClaim.from_dict([1, 2]), "the dict to_dict\\(\\) gave, got list"),
    ],
    ids=["pairs-callable", "pairs-int", "inputs-int", "inputs-triple", "chunks-of-scalars", "str-scores", "claim-list"],
)
def test_wrong_argument_shapes_get_named_errors(call, message):
    """Detects the raw ``TypeError``/``ValueError`` these raised: ``audit_pairs`` given a callable of pairs
    (``search_audit`` takes one) or a number, given samples' ``inputs`` that are not a pair, an iterator of
    single samples where chunks are read (``len`` of a scalar), string scores, a claim's data that is not a
    dict. Each refused before any draw."""
    with pytest.raises(dpverify.DPVerifyError, match=message):
        call()


def test_an_output_key_that_raises_is_named_as_a_mechanism_that_raises():
    """Detects: the raw ``ZeroDivisionError`` of an ``output_key`` that raised, from the sampler check of an
    audit and from an audit of given samples (a mechanism that raises is a named ``MechanismError``)."""

    def key(output):
        return 1 / 0

    with pytest.raises(dpverify.MechanismError, match="output_key raised ZeroDivisionError") as info:
        dpverify.audit(LaplaceMechanism(1.0), 0, 1, epsilon=1.0, n_samples=2_000, seed=1, output_key=key)
    assert isinstance(info.value.__cause__, ZeroDivisionError)
    with pytest.raises(dpverify.MechanismError, match="output_key raised ZeroDivisionError"):
        dpverify.audit_samples(_SAMPLES, 1 - _SAMPLES, epsilon=1.0, output_key=key)
