"""OpenDP ``Measurement`` objects, with the claim read from the measurement's privacy map.

Extra: ``pip install 'dpverify[adapters]'`` (OpenDP); this module does not import it.
"""

from __future__ import annotations

import numbers
import pickle
from collections.abc import Mapping

import numpy as np

from ..._validation import (
    check_call,
    check_choice,
    check_finite_positive,
    check_has_method,
    check_nonzero,
    check_not_both,
)
from ...claims import PrivacyClaim
from ...errors import InvalidClaimError, InvalidParameterError
from ._base import _check_callable, _check_claim, _StatedClaim

__all__ = ["OpenDPMeasurement", "COMPOSED"]


#: Copies of a measurement composed into one call of :meth:`OpenDPMeasurement.sample` (building the
#: composition costs about 4 us per copy, once per size).
COMPOSED = 10_000

#: The output measures whose privacy map an audit reads (anything else is refused).
_MEASURES = ("MaxDivergence", "Approximate(MaxDivergence)", "ZeroConcentratedDivergence", "RenyiDivergence")


def _compose(measurement, k: int):
    """``make_composition([measurement] * k)``, or None where OpenDP is absent or refuses it."""
    try:
        import opendp.prelude as dp

        return dp.c.make_composition([measurement] * k)
    except Exception:  # not an OpenDP measurement (a test double), or a measure OpenDP does not compose
        return None


def _check_measurement(measurement):
    """An OpenDP Measurement (callable, with a privacy map), not a Transformation."""
    _check_callable(measurement, "measurement")
    check_has_method(measurement, "map", "measurement must have a privacy map measurement.map(d_in), as OpenDP's do")
    check_not_both(
        not hasattr(measurement, "output_measure"),
        hasattr(measurement, "output_metric"),
        f"this is an OpenDP Transformation (output metric {getattr(measurement, 'output_metric', None)}), not a "
        "Measurement: it adds no noise and has no privacy claim; chain a mechanism onto it first, "
        "e.g. transformation >> dp.m.then_laplace(scale=...)",
    )
    return measurement


def _chain(transformation, measurement):
    """``transformation >> measurement``, the mechanism audited when the two are given apart."""
    check_not_both(
        hasattr(transformation, "output_measure"),
        True,
        "transformation must be an OpenDP Transformation (deterministic), not a Measurement: pass the noise "
        "as measurement and its deterministic first part as transformation",
    )
    return check_call(
        lambda: transformation >> measurement,
        lambda exc: (
            f"transformation >> measurement failed ({type(exc).__name__}: {exc}); the measurement must take the "
            "transformation's output domain and metric, e.g. dp.m.make_laplace_threshold(t.output_domain, "
            "t.output_metric, ...)"
        ),
        InvalidParameterError,
    )


def _rebuild(cls, build, d_in):
    """The adapter :meth:`OpenDPMeasurement.from_build` made, built anew (on a worker process)."""
    return cls.from_build(build, d_in)


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
    """Vectors come back as lists: integer ones become tuples (discrete outputs), real ones arrays.

    Hashmaps (a thresholded count's ``{key: count}``) come back as dicts, which an audit reads as released
    keys (:mod:`dpverify.pipeline.released_keys`), with no ``output_key``."""
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
        releases ``batch([data] * size)``, one output per entry, in one call.
        Without it, ``sample`` releases a composition of :data:`COMPOSED` copies of
        ``measurement`` (OpenDP's ``make_composition``: each copy draws independently on the same
        data) per call, where OpenDP builds one, and calls ``measurement`` once per output otherwise.
        A vector ``batch`` is fastest, composition next (measured: docs/auditor/benchmarks.md).
        The audit checks that ``sample``'s outputs are distributed
        as ``measurement``'s before using them.
    transformation : opendp.mod.Transformation, optional
        The chain's deterministic first part, given apart: the mechanism audited is
        ``transformation >> measurement`` (its claim read from that chain's privacy map at
        ``d_in``, one output per call of the chain), and ``sample(data, size)`` evaluates
        ``transformation(data)`` once and draws the ``size`` outputs of ``measurement`` on it (by
        composition, as above). An OpenDP Transformation is a deterministic stable map, so the
        outputs are distributed as the chain's; a transformation that costs more than the noise (a
        ``then_count_by`` over many records) is then paid once per batch, not once per output.
        Not with ``batch``.

    Attributes
    ----------
    epsilon, delta : float
        ``measurement.map(d_in)``.
    measurement : opendp.mod.Measurement
        The mechanism audited (the whole chain when ``transformation`` is given).
    sampled : opendp.mod.Measurement
        What ``sample`` composes: the ``measurement`` given (without the transformation).
    replayable : bool
        False: OpenDP samples from the operating system's entropy, not from ``rng``. The audit's
        seed cannot make OpenDP's draws repeat, on one process or on many.

    Raises
    ------
    InvalidParameterError
        A Transformation instead of a Measurement, a ``transformation`` that does not chain onto
        ``measurement``, or a ``d_in`` the privacy map refuses.
    InvalidClaimError
        For other output measures (privacy profiles, smoothed max divergence), or a map that is
        not a finite epsilon > 0 with delta in [0, 1) (a rho > 0, a Rényi curve).

    Notes
    -----
    The claim is read in the measurement's own kind: ``MaxDivergence`` as epsilon,
    ``Approximate(MaxDivergence)`` as (epsilon, delta), ``ZeroConcentratedDivergence`` as
    rho-zCDP (``PrivacyClaim.zcdp``) and ``RenyiDivergence`` as its Rényi curve at the orders
    :data:`dpverify.mechanisms.concentrated.RENYI_CLAIM_ORDERS`; an audit certifies it in that
    kind (no conversion to one (epsilon, delta) point).

    Data given as tuples or numpy arrays is passed to OpenDP as lists. Outputs that are lists
    become tuples (integers) or float arrays (reals); other outputs (a dict of released keys from
    a thresholded count) are returned as OpenDP gives them.

    A measurement is a handle to OpenDP's native memory and cannot be sent to another process.
    Built by :meth:`from_build` from a module-level function, the adapter is sent as that function
    and rebuilt on each worker, so an audit can draw on a process pool (``executor=2``).

    References
    ----------
    M. Gaboardi, M. Hay, S. Vadhan, "A Programming Framework for OpenDP", 2020 (transformations as
    deterministic stable maps, measurements as randomized ones, chained by composition).
    """

    replayable = False

    def __init__(self, measurement, d_in, *, batch=None, transformation=None):
        self.sampled = _check_measurement(measurement)
        self.batch = None if batch is None else _check_callable(batch, "batch")
        self.transformation = transformation
        self._compositions: dict = {}
        self._build = None
        if transformation is not None:
            check_not_both(
                True, batch is not None, "give batch= or transformation=, not both (a batch takes the chain's input)"
            )
            measurement = _chain(transformation, measurement)
        self.measurement = measurement
        self.d_in = d_in
        measure = str(getattr(measurement, "output_measure", ""))
        claim = check_call(  # OpenDP raises TypeError or OpenDPException for a d_in of the wrong type
            lambda: measurement.map(d_in),
            lambda exc: (
                f"measurement.map(d_in={d_in!r}) failed ({type(exc).__name__}: {exc}); d_in must be a distance "
                "in the measurement's input metric (an int for integer and symmetric distances, a float for "
                "real ones)"
            ),
            InvalidParameterError,
        )
        check_choice(
            measure,
            "output measure",
            _MEASURES,
            InvalidClaimError,
            message=f"the measurement's output measure is {measure or 'unknown'!r}; supported: "
            "'MaxDivergence' (pure epsilon), 'Approximate(MaxDivergence)' ((epsilon, delta)), "
            "'ZeroConcentratedDivergence' (rho-zCDP) and 'RenyiDivergence' (a Renyi curve). "
            "Convert first, e.g. dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(m), delta)",
        )
        self.native_claim = None
        if measure == "MaxDivergence":
            epsilon, delta = claim, 0.0
        elif measure == "Approximate(MaxDivergence)":
            epsilon, delta = claim
        else:  # "ZeroConcentratedDivergence" or "RenyiDivergence"
            self.native_claim = _native_claim(measure, claim, d_in)
            epsilon, delta = None, 0.0
        if self.native_claim is not None:
            self.epsilon, self.delta = None, 0.0
            self.claim_source = f"OpenDP's privacy map of the measurement at d_in={d_in!r} ({measure})"
            return
        check_nonzero(
            epsilon, f"measurement.map({d_in!r}) is epsilon = 0: an audit needs a claim > 0 (is d_in = {d_in!r} right?)"
        )
        self.epsilon, self.delta = _check_claim(epsilon, delta)
        self.claim_source = f"OpenDP's privacy map of the measurement at d_in={d_in!r}"

    @classmethod
    def from_build(cls, build, d_in):
        """The adapter of what ``build()`` returns, sent to other processes as ``build`` and rebuilt there.

        Parameters
        ----------
        build : callable
            A module-level function (picklable) with no arguments returning a Measurement, or a dict
            of this class's keyword arguments (``{"measurement": noise, "transformation": t}``).
        d_in : number
            As for the class.

        Returns
        -------
        OpenDPMeasurement
            Whose outputs can be drawn on a process pool: each worker calls ``build()`` once per
            chunk it receives (building a measurement costs far less than a chunk of outputs).

        Raises
        ------
        InvalidParameterError
            ``build()`` returned a dict with keys other than ``measurement``, ``transformation``
            and ``batch``.

        Examples
        --------
        >>> def build():  # at module level, so that worker processes can import it
        ...     import opendp.prelude as dp
        ...
        ...     dp.enable_features("contrib")
        ...     counts = (dp.vector_domain(dp.atom_domain(T=str)), dp.symmetric_distance()) >> dp.t.then_count_by()
        ...     noise = dp.m.make_laplace_threshold(counts.output_domain, counts.output_metric, scale=1.0, threshold=10)
        ...     return {"transformation": counts, "measurement": noise}
        >>> # OpenDPMeasurement.from_build(build, d_in=1): audit it with executor=2
        """
        built = _check_callable(build, "build")()
        arguments = dict(built) if isinstance(built, Mapping) else {"measurement": built}
        unknown = sorted(set(arguments) - {"measurement", "transformation", "batch"})
        check_not_both(
            True,
            bool(unknown) or "measurement" not in arguments,
            f"build() must return a Measurement or a dict with 'measurement' (and optionally 'transformation', "
            f"'batch'); got the keys {sorted(arguments)}",
        )
        adapter = cls(d_in=d_in, **arguments)
        adapter._build = build
        return adapter

    def __call__(self, data, rng=None):
        return _from_opendp(self.measurement(_to_opendp(data)))

    def __reduce__(self):
        if self._build is not None:
            return (_rebuild, (type(self), self._build, self.d_in))
        raise pickle.PicklingError(
            "an OpenDP measurement is a handle to the library's native memory and cannot be sent to another "
            "process; build the adapter with OpenDPMeasurement.from_build(build, d_in) (build a module-level "
            "function returning the measurement) to audit it on a process pool, or audit it with executor=None "
            "or a concurrent.futures.ThreadPoolExecutor"
        )

    def sample(self, data, size, rng=None):
        data, size = _to_opendp(data), int(size)
        if self.batch is not None:
            out = self.batch([data] * size)
            return [_from_opendp(v) for v in out] if not all(isinstance(v, numbers.Real) for v in out) else out
        if self.transformation is not None:  # deterministic: once per batch
            data = self.transformation(data)
        out = []
        while len(out) < size:
            k = min(COMPOSED, size - len(out))
            composed = self._composition(k)
            if composed is None:  # no composition: one call per output
                out.extend(_from_opendp(self.sampled(data)) for _ in range(size - len(out)))
                break
            out.extend(_from_opendp(v) for v in composed(data))
        return out

    def _composition(self, k: int):
        """OpenDP's composition of ``k`` copies of ``sampled`` (cached), or None where OpenDP builds none."""
        if k not in self._compositions:
            if len(self._compositions) > 4:
                self._compositions.clear()
            self._compositions[k] = _compose(self.sampled, k)
        return self._compositions[k]

    def __repr__(self):
        if self.native_claim is not None:
            return f"OpenDPMeasurement(d_in={self.d_in!r}, claim={self.native_claim})"
        return f"OpenDPMeasurement(d_in={self.d_in!r}, epsilon={self.epsilon}, delta={self.delta})"


def _native_claim(measure: str, mapped, d_in) -> PrivacyClaim:
    """The claim of a zCDP or Rényi measurement's map, in its own kind.

    Raises
    ------
    InvalidClaimError
        A rho that is not a finite real > 0, or a Rényi curve that cannot be evaluated at the orders.
    """
    from ...mechanisms.concentrated import RENYI_CLAIM_ORDERS

    if measure == "ZeroConcentratedDivergence":
        rho = check_finite_positive(
            mapped, f"measurement.map({d_in!r}) is rho = {mapped!r}: an audit needs a finite rho > 0 (is d_in right?)"
        )
        return PrivacyClaim.zcdp(rho)
    values = check_call(  # an OpenDP curve is evaluated by calling it at an order
        lambda: [float(mapped(alpha)) for alpha in RENYI_CLAIM_ORDERS],
        lambda exc: (
            f"measurement.map({d_in!r}) is a Renyi curve that could not be evaluated at the orders "
            f"{RENYI_CLAIM_ORDERS} ({type(exc).__name__}: {exc})"
        ),
        InvalidClaimError,
    )
    return PrivacyClaim.renyi(RENYI_CLAIM_ORDERS, values)
