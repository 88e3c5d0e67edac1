"""Adapters: audit a mechanism from a DP library in one line.

Extra: ``pip install 'dpverify[adapters]'`` (diffprivlib, OpenDP); each library is imported only when
its adapter is used.

dpverify audits any ``mechanism(data, rng)`` with ``rng`` a :class:`numpy.random.Generator`.
Library mechanisms take their randomness differently; these thin wrappers turn them into that
form and carry the library's own privacy claim where it has one:

- :class:`RandomStateMechanism` -- code that takes a legacy :class:`numpy.random.RandomState`
  (diffprivlib's ``random_state=`` argument, scikit-learn style). The wrapper seeds a
  ``RandomState`` from the Generator it is given, so an audit replays exactly from its seed.
- :class:`OpenDPMeasurement` -- an OpenDP ``Measurement``. The claim is read from the
  measurement's own privacy map, ``measurement.map(d_in)``, and exposed as ``epsilon`` and
  ``delta``. OpenDP draws from the operating system's entropy, so replay is impossible.
- :class:`UnseededMechanism` -- any ``function(data)`` with its own, uncontrollable randomness
  (Google's python-dp, PipelineDP, Tumult, OpenDP). Replay is impossible.

Every adapter has the attribute ``replayable``. It is ``False`` when the mechanism's randomness
does not come from the Generator the audit hands it: the audit's seed then reproduces the event
search but not the mechanism's draws. :func:`dpverify.audit` reads this attribute and says so in
its result. Adapters also have ``epsilon`` and ``delta`` (the claim, or None where the library
does not state one), which you pass to the audit::

    from diffprivlib.mechanisms import Geometric
    from dpverify.extras.adapters import RandomStateMechanism

    mech = RandomStateMechanism(
        lambda x, rs: Geometric(epsilon=1.0, sensitivity=1, random_state=rs).randomise(x), epsilon=1.0
    )
    dpverify.audit(mech, 0, 1, epsilon=mech.epsilon, n_samples=100_000, seed=1)

This module imports no DP library; install the ones you audit (the ``adapters`` extra pulls
diffprivlib and OpenDP). Wrapped functions that are lambdas or closures cannot be pickled, so
audit them with ``executor=None`` or threads, not with a process pool.
"""

from __future__ import annotations

import numbers
import pickle

import numpy as np

from .._validation import check_delta, check_epsilon
from ..claims import PrivacyClaim
from ..errors import InvalidClaimError, InvalidParameterError

__all__ = [
    "RandomStateMechanism",
    "BuildOnceMechanism",
    "OpenDPMeasurement",
    "PyDPMechanism",
    "PipelineDPAggregation",
    "UnseededMechanism",
]


def _check_claim(epsilon, delta):
    """The claim an adapter carries: epsilon (or None where the library states none) and delta."""
    return check_epsilon(epsilon, allow_none=True), check_delta(delta)


class _StatedClaim:
    """An adapter's ``claim``: its epsilon and delta as a :class:`dpverify.PrivacyClaim` (None without epsilon)."""

    claim_source = "stated to the adapter"

    @property
    def claim(self) -> PrivacyClaim | None:
        if self.epsilon is None:
            return None
        return PrivacyClaim(self.epsilon, self.delta, source=self.claim_source)


def _check_callable(function, what):
    if not callable(function):
        raise TypeError(f"{what} must be callable, got {type(function).__name__}")
    return function


def _random_state(rng: np.random.Generator) -> np.random.RandomState:
    """A legacy RandomState whose whole state follows from 128 bits drawn from ``rng``."""
    entropy = rng.integers(0, 2**32, size=4, dtype=np.uint64)
    return np.random.RandomState(np.random.MT19937(np.random.SeedSequence(entropy)))


class RandomStateMechanism(_StatedClaim):
    """A mechanism whose randomness is a numpy ``RandomState`` (e.g. diffprivlib).

    Parameters
    ----------
    function : callable
        ``function(data, random_state) -> output``; ``random_state`` is a
        :class:`numpy.random.RandomState` to pass on as the library's ``random_state=``.
    epsilon, delta : float, optional
        The claim to audit (the library's parameters), carried for convenience.

    Notes
    -----
    ``__call__(data, rng)`` seeds a fresh ``RandomState`` from ``rng``; ``sample(data, size,
    rng)`` seeds one for the whole batch (creating a ``RandomState`` costs tens of
    microseconds, more than many mechanisms), so the audit uses ``sample``. Both are
    determined by ``rng``: ``replayable`` is True.

    Examples
    --------
    >>> import numpy as np
    >>> mech = RandomStateMechanism(lambda x, rs: x + int(rs.randint(0, 2)), epsilon=1.0)
    >>> a = mech.sample(5, 3, np.random.default_rng(0))
    >>> a == mech.sample(5, 3, np.random.default_rng(0)), mech.replayable
    (True, True)
    """

    replayable = True

    def __init__(self, function, *, epsilon=None, delta=0.0):
        self.function = _check_callable(function, "function")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng):
        return self.function(data, _random_state(rng))

    def sample(self, data, size, rng):
        rs = _random_state(rng)
        return [self.function(data, rs) for _ in range(int(size))]

    def __repr__(self):
        return f"RandomStateMechanism({self.function!r}, epsilon={self.epsilon}, delta={self.delta})"


def _randomise(mechanism, data):
    """``mechanism.randomise(data)``: how diffprivlib's mechanisms release a value."""
    return mechanism.randomise(data)


class BuildOnceMechanism(_StatedClaim):
    """A library mechanism object built from a ``RandomState`` once per batch (e.g. diffprivlib).

    diffprivlib's documented pattern, ``GaussianAnalytic(..., random_state=rs).randomise(x)``
    in a function, builds the mechanism for every sample: its constructor (which solves for the
    noise scale) costs far more than a draw (1.3 ms against 9 us for ``GaussianAnalytic``). This
    adapter builds it once per ``sample`` call and draws the whole batch from it.

    Parameters
    ----------
    build : callable
        ``build(random_state) -> mechanism`` with ``random_state`` a :class:`numpy.random.RandomState`.
    apply : callable, optional
        ``apply(mechanism, data) -> output``; by default ``mechanism.randomise(data)``.
    epsilon, delta : float, optional
        The claim to audit (the library's parameters), carried for convenience.

    Notes
    -----
    ``__call__(data, rng)`` builds a mechanism from a ``RandomState`` seeded from ``rng`` and
    draws one output; ``sample(data, size, rng)`` builds one and draws ``size``. Both are
    determined by ``rng`` (``replayable`` is True), and the audit checks that they agree
    (:mod:`dpverify.pipeline.sampler_check`) before using ``sample``. Use module-level functions for
    ``build`` and ``apply`` to audit on a process pool.

    Examples
    --------
    >>> import numpy as np
    >>> def build(rs):
    ...     return np.random.Generator(np.random.MT19937(rs.randint(2**31)))
    >>> mech = BuildOnceMechanism(build, apply=lambda g, x: x + int(g.integers(2)), epsilon=1.0)
    >>> mech.sample(5, 3, np.random.default_rng(0)) == mech.sample(5, 3, np.random.default_rng(0))
    True
    """

    replayable = True

    def __init__(self, build, *, apply=_randomise, epsilon=None, delta=0.0):
        self.build = _check_callable(build, "build")
        self.apply = _check_callable(apply, "apply")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng):
        return self.apply(self.build(_random_state(rng)), data)

    def sample(self, data, size, rng):
        mechanism = self.build(_random_state(rng))
        return [self.apply(mechanism, data) for _ in range(int(size))]

    def __repr__(self):
        return f"BuildOnceMechanism({self.build!r}, epsilon={self.epsilon}, delta={self.delta})"


def _to_opendp(data):
    """OpenDP's input domains take Python scalars and lists, not tuples or numpy values."""
    if isinstance(data, np.ndarray):
        return data.tolist()
    if isinstance(data, np.generic):
        return data.item()
    if isinstance(data, tuple):
        return [_to_opendp(v) for v in data]
    return data


def _from_opendp(out):
    """Vectors come back as lists: integer ones become tuples (discrete outputs), real ones arrays."""
    if isinstance(out, list):
        if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in out):
            return tuple(int(v) for v in out)
        if all(isinstance(v, numbers.Real) for v in out):
            return np.asarray(out, dtype=np.float64)
        return tuple(out)
    return out


class OpenDPMeasurement(_StatedClaim):
    """An OpenDP ``Measurement`` as a dpverify mechanism, with the claim from its privacy map.

    Parameters
    ----------
    measurement : opendp.mod.Measurement
        Anything callable on the data with ``map(d_in)`` and ``output_measure`` (OpenDP's
        interface). Supported output measures: ``MaxDivergence`` (``map`` gives epsilon;
        delta = 0) and ``Approximate(MaxDivergence)`` (``map`` gives ``(epsilon, delta)``).
    d_in : number
        The input distance of the neighbouring pairs you will audit, in the measurement's input
        metric: for example 1 for ``absolute_distance`` with inputs one apart, 1 for
        ``symmetric_distance`` with one record added or removed, **2** with one record replaced.
        The claim holds only for pairs within ``d_in``.
    batch : opendp.mod.Measurement, optional
        The same mechanism over a vector domain, adding independent noise to each entry (e.g.
        ``then_laplace`` on ``vector_domain(atom_domain(T=int))``): ``sample(data, size)``
        releases ``batch([data] * size)``, one output per entry, in one call (about 20 us
        per sample for integer Laplace noise against 200 us per call of ``measurement``).
        The audit checks that its outputs are distributed as ``measurement``'s before using it.

    Attributes
    ----------
    epsilon, delta : float
        ``measurement.map(d_in)``.
    replayable : bool
        False: OpenDP samples from the operating system's entropy, not from ``rng``.

    Raises
    ------
    InvalidParameterError
        A Transformation instead of a Measurement, or a ``d_in`` the privacy map refuses.
    InvalidClaimError
        For other output measures (zero-concentrated or Renyi divergence, privacy profiles),
        or a map that is not a finite epsilon > 0 with delta in [0, 1). Convert to an
        (epsilon, delta) measurement first: ``dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m),
        delta)``.

    Notes
    -----
    Data given as tuples or numpy arrays is passed to OpenDP as lists. Outputs that are lists
    become tuples (integers) or float arrays (reals).
    """

    replayable = False

    def __init__(self, measurement, d_in, *, batch=None):
        self.measurement = _check_callable(measurement, "measurement")
        self.batch = None if batch is None else _check_callable(batch, "batch")
        if not callable(getattr(measurement, "map", None)):
            raise TypeError("measurement must have a privacy map measurement.map(d_in), as OpenDP's do")
        if not hasattr(measurement, "output_measure") and hasattr(measurement, "output_metric"):
            raise InvalidParameterError(
                f"this is an OpenDP Transformation (output metric {measurement.output_metric}), not a "
                "Measurement: it adds no noise and has no privacy claim; chain a mechanism onto it first, "
                "e.g. transformation >> dp.m.then_laplace(scale=...)"
            )
        self.d_in = d_in
        measure = str(getattr(measurement, "output_measure", ""))
        try:
            claim = measurement.map(d_in)
        except Exception as exc:  # OpenDP raises TypeError or OpenDPException for a d_in of the wrong type
            raise InvalidParameterError(
                f"measurement.map(d_in={d_in!r}) failed ({type(exc).__name__}: {exc}); d_in must be a distance "
                "in the measurement's input metric (an int for integer and symmetric distances, a float for "
                "real ones)"
            ) from exc
        if measure == "MaxDivergence":
            epsilon, delta = claim, 0.0
        elif measure == "Approximate(MaxDivergence)":
            epsilon, delta = claim
        else:
            raise InvalidClaimError(
                f"the measurement's output measure is {measure or 'unknown'!r}; supported: "
                "'MaxDivergence' (pure epsilon) and 'Approximate(MaxDivergence)' ((epsilon, delta)). "
                "Convert first, e.g. dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), delta)"
            )
        if isinstance(epsilon, numbers.Real) and float(epsilon) == 0.0:
            raise InvalidClaimError(
                f"measurement.map({d_in!r}) is epsilon = 0: an audit needs a claim > 0 (is d_in = {d_in!r} right?)"
            )
        self.epsilon, self.delta = _check_claim(epsilon, delta)
        self.claim_source = f"OpenDP's privacy map of the measurement at d_in={d_in!r}"

    def __call__(self, data, rng=None):
        return _from_opendp(self.measurement(_to_opendp(data)))

    def __reduce__(self):
        raise pickle.PicklingError(
            "an OpenDP measurement is a handle to the library's native memory and cannot be sent to another "
            "process; audit it with executor=None or a concurrent.futures.ThreadPoolExecutor"
        )

    def sample(self, data, size, rng=None):
        data = _to_opendp(data)
        if self.batch is not None:
            out = self.batch([data] * int(size))
            return [_from_opendp(v) for v in out] if not all(isinstance(v, numbers.Real) for v in out) else out
        return [_from_opendp(self.measurement(data)) for _ in range(int(size))]

    def __repr__(self):
        return f"OpenDPMeasurement(d_in={self.d_in!r}, epsilon={self.epsilon}, delta={self.delta})"


#: python-dp mechanism classes the adapter can rebuild on another process: name -> the
#: attributes that are their constructor's keyword arguments.
_PYDP_REBUILD = {
    "LaplaceMechanism": {"epsilon": "epsilon", "sensitivity": "sensitivity"},
    "GaussianMechanism": {"epsilon": "epsilon", "delta": "delta", "sensitivity": "l2_sensitivity"},
}


def _rebuild_pydp(class_name: str, arguments: dict):
    """A python-dp numerical mechanism built anew (on a worker process) from its parameters."""
    from pydp.algorithms import numerical_mechanisms

    return PyDPMechanism(getattr(numerical_mechanisms, class_name)(**arguments))


class PyDPMechanism(_StatedClaim):
    """A numerical mechanism of Google's python-dp (``pydp``): ``mechanism.add_noise(data)``.

    Parameters
    ----------
    mechanism : pydp.algorithms.numerical_mechanisms.NumericalMechanism
        E.g. ``LaplaceMechanism(epsilon=1.0, sensitivity=1.0)`` or ``GaussianMechanism(epsilon=1.0,
        delta=1e-5, sensitivity=1.0)``.

    Attributes
    ----------
    epsilon, delta : float
        The mechanism's own ``epsilon`` and ``delta`` (0 where it has none), carried for convenience.
    replayable : bool
        False: python-dp draws from its own generator, which cannot be seeded from ``rng``.

    Notes
    -----
    ``LaplaceMechanism`` and ``GaussianMechanism`` are rebuilt from their parameters on another
    process, so they can be audited on a process pool; other classes only with ``executor=None``
    or threads. Install python-dp with ``pip install python-dp`` (the ``pydp`` extra); this
    module does not import it.
    """

    replayable = False

    def __init__(self, mechanism):
        if not callable(getattr(mechanism, "add_noise", None)):
            raise TypeError("mechanism must be a python-dp numerical mechanism, with add_noise(value)")
        self.mechanism = mechanism
        self.epsilon, self.delta = _check_claim(getattr(mechanism, "epsilon", None), getattr(mechanism, "delta", 0.0))

    def __call__(self, data, rng=None):
        return self.mechanism.add_noise(data)

    def sample(self, data, size, rng=None):
        add_noise = self.mechanism.add_noise
        return [add_noise(data) for _ in range(int(size))]

    def __reduce__(self):
        name = type(self.mechanism).__name__
        if name not in _PYDP_REBUILD:
            raise pickle.PicklingError(
                f"a python-dp {name} cannot be sent to another process (only {sorted(_PYDP_REBUILD)} are "
                "rebuilt there); audit it with executor=None or a concurrent.futures.ThreadPoolExecutor"
            )
        arguments = {key: getattr(self.mechanism, attribute) for key, attribute in _PYDP_REBUILD[name].items()}
        return (_rebuild_pydp, (name, arguments))

    def __repr__(self):
        return f"PyDPMechanism({type(self.mechanism).__name__}, epsilon={self.epsilon}, delta={self.delta})"


class PipelineDPAggregation(_StatedClaim):
    """A PipelineDP aggregation on public partitions: ``DPEngine.aggregate`` run afresh per output.

    Each output runs the aggregation once on the input rows, with a new
    ``NaiveBudgetAccountant(total_epsilon=epsilon, total_delta=delta)`` and ``LocalBackend``, and
    returns the metrics as a float vector: for each public partition in the order given, each
    metric in the order of ``params.metrics``.

    Parameters
    ----------
    params : pipeline_dp.AggregateParams
        What to compute and the contribution bounds.
    data_extractors : pipeline_dp.DataExtractors
        Privacy id, partition and value of a row (module-level functions to audit on a process pool).
    public_partitions : sequence
        The partitions released (private partition selection is not audited by this adapter).
    epsilon, delta : float
        The total budget, which is the claim to audit.

    Attributes
    ----------
    replayable : bool
        False: PipelineDP's noise comes from python-dp, which cannot be seeded.

    Notes
    -----
    Install with ``pip install pipeline-dp``; this module does not import it.
    """

    replayable = False

    def __init__(self, params, data_extractors, *, public_partitions, epsilon, delta=0.0):
        self.params, self.data_extractors = params, data_extractors
        self.public_partitions = list(public_partitions)
        if not self.public_partitions:
            raise ValueError("public_partitions must name at least one partition")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng=None):
        import pipeline_dp

        accountant = pipeline_dp.NaiveBudgetAccountant(total_epsilon=self.epsilon, total_delta=self.delta)
        engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
        released = engine.aggregate(
            list(data), self.params, self.data_extractors, public_partitions=self.public_partitions
        )
        accountant.compute_budgets()
        by_partition = {partition: tuple(metrics) for partition, metrics in released}
        return np.asarray([v for p in self.public_partitions for v in by_partition[p]], dtype=np.float64)

    def sample(self, data, size, rng=None):
        return np.stack([self(data) for _ in range(int(size))])

    def __repr__(self):
        return (
            f"PipelineDPAggregation(metrics={self.params.metrics}, partitions={self.public_partitions!r}, "
            f"epsilon={self.epsilon}, delta={self.delta})"
        )


class UnseededMechanism(_StatedClaim):
    """A mechanism with its own randomness that cannot be seeded: ``function(data) -> output``.

    The Generator the audit passes is ignored, so ``replayable`` is False: an audit's seed then
    replays the event search but not the outputs, and two runs differ. Everything else about
    the audit (its false-alarm rate, its bound) holds as for any mechanism.

    Parameters
    ----------
    function : callable
        ``function(data) -> output``.
    epsilon, delta : float, optional
        The claim to audit, carried for convenience.

    Examples
    --------
    >>> import secrets
    >>> mech = UnseededMechanism(lambda x: x + secrets.randbelow(2), epsilon=1.0)
    >>> mech.replayable, mech(3, None) in (3, 4)
    (False, True)
    """

    replayable = False

    def __init__(self, function, *, epsilon=None, delta=0.0):
        self.function = _check_callable(function, "function")
        self.epsilon, self.delta = _check_claim(epsilon, delta)

    def __call__(self, data, rng=None):
        return self.function(data)

    def sample(self, data, size, rng=None):
        return [self.function(data) for _ in range(int(size))]

    def __repr__(self):
        return f"UnseededMechanism({self.function!r}, epsilon={self.epsilon}, delta={self.delta})"
