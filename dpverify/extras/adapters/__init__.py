"""Adapters: audit a mechanism from a DP library in one line (one module per library).

Extra: ``pip install 'dpverify[adapters]'`` (diffprivlib, OpenDP); each library is imported only when
its adapter is used.

dpverify audits any ``mechanism(data, rng)`` with ``rng`` a :class:`numpy.random.Generator`.
Library mechanisms take their randomness differently; these thin wrappers turn them into that
form and carry the library's own privacy claim where it has one:

- :class:`RandomStateMechanism` -- code that takes a legacy :class:`numpy.random.RandomState`
  (diffprivlib's ``random_state=`` argument, scikit-learn style). The wrapper seeds a
  ``RandomState`` from the Generator it is given, so an audit replays exactly from its seed.
- :class:`BuildOnceMechanism` -- the same, building the library's mechanism once per batch of
  samples instead of once per sample; :class:`DiffprivlibMechanism` -- a diffprivlib mechanism
  class and its parameters, audited at the claim the built mechanism states;
  :class:`DiffprivlibTool` -- a diffprivlib tool (``diffprivlib.tools.mean``, ``histogram``...) on the
  data, audited at its ``epsilon``, with the budget it charges checked.
- :class:`OpenDPMeasurement` -- an OpenDP ``Measurement``. The claim is read from the
  measurement's own privacy map, ``measurement.map(d_in)``, and exposed as ``epsilon`` and
  ``delta``. A chain can be given as its deterministic transformation and its measurement (the
  transformation then runs once per batch), and built by a module-level function
  (:meth:`OpenDPMeasurement.from_build`) to draw on a process pool. OpenDP draws from the operating
  system's entropy, so replay is impossible.
- :class:`PyDPMechanism` -- a numerical mechanism of Google's python-dp (extra ``pydp``);
  :class:`PipelineDPAggregation` -- a PipelineDP aggregation (extra ``pipelinedp``);
  :class:`TumultQuery` -- a Tumult Analytics query, audited at its budget. None can be seeded.
- :class:`UnseededMechanism` -- any ``function(data)`` with its own, uncontrollable randomness
  (anything else). Replay is impossible.

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

from .diffprivlib import DiffprivlibMechanism, DiffprivlibTool
from .opendp import OpenDPMeasurement
from .pipelinedp import PipelineDPAggregation
from .pydp import PyDPMechanism
from .random_state import BuildOnceMechanism, RandomStateMechanism
from .tumult import TumultQuery
from .unseeded import UnseededMechanism

__all__ = [
    "RandomStateMechanism",
    "BuildOnceMechanism",
    "DiffprivlibMechanism",
    "DiffprivlibTool",
    "OpenDPMeasurement",
    "PyDPMechanism",
    "PipelineDPAggregation",
    "TumultQuery",
    "UnseededMechanism",
]
