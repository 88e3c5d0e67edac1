"""A numpy Generator that records every draw and can shift the noise one call returns.

The grey-box probes (:mod:`dpverify.probes.probe`) hand a pipeline a :class:`RecordingGenerator`
instead of a :class:`numpy.random.Generator`. It forwards every public method to a generator made
from the probe's seed, so that two runs with the same seed and the same sequence of calls draw the
same raw randomness, and it logs each call: the method, the call site (the file and line of the
frame that called it) and the arguments. A *marker* makes one call's draw come back shifted by a
known amount, which tells which released values that call's noise feeds. Recording and replaying
the randomness follows Cebere, Erb, Desfontaines, Bellet and Fitzsimons (PoPETs 2026; full
reference in :mod:`dpverify.probes.probe`); the marker is this module's addition.

The calls made through the generator handed to the pipeline are recorded, and, within
:meth:`RecordingGenerator.python_random`, those of Python's :mod:`random` module functions. A
generator the pipeline makes itself, ``rng.spawn(...)`` children, ``rng.bit_generator``, numpy's
legacy global functions (``np.random.laplace``) and a ``random.Random`` instance are not.
diffprivlib's mechanisms are replayed and recorded through :meth:`RecordingGenerator.record`
(:mod:`dpverify.probes.libraries`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import random
import sys
from dataclasses import dataclass

import numpy as np

from .libraries import LIBRARY_NOISE

__all__ = ["NOISE_SCALES", "noise_kind", "Draw", "RecordingGenerator"]

#: The noise calls whose shifts the probes measure: method -> (the noise it draws, the keyword of its
#: scale, the scale's position among the arguments, its default, whether it is a rate, 1 / scale).
#: ``geometric`` is scaled by its success probability ``p``; Python's ``random`` functions are named
#: ``random.<name>``.
NOISE_SCALES = {
    "laplace": ("laplace", "scale", 1, 1.0, False),
    "normal": ("normal", "scale", 1, 1.0, False),
    "gumbel": ("gumbel", "scale", 1, 1.0, False),
    "exponential": ("exponential", "scale", 0, 1.0, False),
    "geometric": ("geometric", "p", 0, None, False),
    "random.gauss": ("normal", "sigma", 1, 1.0, False),
    "random.normalvariate": ("normal", "sigma", 1, 1.0, False),
    "random.expovariate": ("exponential", "lambd", 0, 1.0, True),
}


def noise_kind(method: str):
    """The noise a recorded call draws (``"laplace"``, ``"normal"``...), or None for another call; a
    library's call (:data:`~dpverify.probes.libraries.LIBRARY_NOISE`) included."""
    return NOISE_SCALES[method][0] if method in NOISE_SCALES else LIBRARY_NOISE.get(method)


@dataclass(frozen=True)
class Draw:
    """One recorded call: ``method`` at ``site`` (``file:line``), its arguments, and its draw; for a library's
    mechanism, the noise scale and sensitivity the mechanism declares (None for a Generator call)."""

    method: str
    site: str
    args: tuple
    kwargs: dict
    value: object
    declared_scale: float | None = None
    declared_sensitivity: float | None = None

    @property
    def signature(self) -> tuple:
        """What two runs must share for their draws to be the same randomness: method, site and shape."""
        return (self.method, self.site, np.shape(self.value))

    @functools.cached_property
    def parameters(self):
        """The call's arguments other than its ``size`` (and ``out``), bound to their names and comparable
        with ``==``: what two calls at one site must share to draw the same kind of noise whatever their
        sizes. A library mechanism's are the scale and sensitivity it declares (its argument is the value
        it noises). None when the arguments cannot be bound (no signature), so that no two calls compare
        equal."""
        if self.method not in _DRAWING:
            return (("declared_scale", self.declared_scale), ("declared_sensitivity", self.declared_sensitivity))
        signature = _drawing_signature(self.method)
        if signature is None:
            return None
        try:
            bound = signature.bind(*self.args, **self.kwargs)
        except TypeError:
            return None
        bound.apply_defaults()
        return tuple(
            (name, _comparable(value)) for name, value in bound.arguments.items() if name not in ("size", "out")
        )

    def scale(self):
        """The scale argument of a noise call (``p`` for ``geometric``, 1 / rate for ``random.expovariate``),
        or None when not a noise call or when it is not one positive number; a library mechanism's declared one."""
        if self.declared_scale is not None or self.method not in NOISE_SCALES:
            return self.declared_scale
        _, name, position, default, rate = NOISE_SCALES[self.method]
        value = self.kwargs.get(name, self.args[position] if len(self.args) > position else default)
        try:
            value = float(value)
        except (TypeError, ValueError):
            return None
        return (1.0 / value if value > 0 else None) if rate else value


class RecordingGenerator:
    """A :class:`numpy.random.Generator` stand-in that records its calls (see the module docstring).

    Parameters
    ----------
    seed : int
        Seed of the generator the calls are forwarded to.
    marker : tuple of (int, int), or dict of int to number, optional
        ``(i, h)``: the ``i``-th call (from 0) returns its draw plus ``h`` (an integer, so that an
        integer draw stays one); ``{i: h, ...}``: each of those calls moved so.
    """

    def __init__(self, seed: int, marker: tuple | dict | None = None):
        self._generator = np.random.default_rng(seed)
        self._moves = {} if marker is None else dict(marker) if isinstance(marker, dict) else {marker[0]: marker[1]}
        self.draws: list[Draw] = []

    def __getattr__(self, name):
        attribute = getattr(self._generator, name)
        if name.startswith("_") or not callable(attribute) or name in ("spawn",):
            return attribute
        return self._recorded(name, attribute)

    def _recorded(self, name, function):
        """``function`` that records each call as ``name`` (and shifts the marked noise call's draw)."""

        def recorded(*args, **kwargs):
            return self.record(name, args, kwargs, function(*args, **kwargs))

        return recorded

    def record(self, name, args, kwargs, value, **declared):
        """Record a call ``name`` that drew ``value`` at the call site of the function that calls ``record``
        (its caller's frame), and return ``value``, shifted by the marker when it is the marked noise call;
        ``declared``: a library mechanism's ``declared_scale`` and ``declared_sensitivity``."""
        if len(self.draws) in self._moves and noise_kind(name) is not None:
            value = value + self._moves[len(self.draws)]
        self.draws.append(Draw(name, _call_site(), args, kwargs, value, **declared))
        return value

    @contextlib.contextmanager
    def python_random(self, seed: int):
        """Within the block, Python's :mod:`random` and numpy's legacy global generator are seeded with
        ``seed``, and calls of ``random``'s module functions (``random.gauss(...)``, not a function
        imported before the block, nor a ``random.Random`` instance) are recorded as ``random.<name>``;
        all are restored afterwards. Not thread-safe: it patches the module."""
        python_state, numpy_state = random.getstate(), np.random.get_state()
        originals = {name: getattr(random, name) for name in _PYTHON_RANDOM}
        random.seed(seed)
        np.random.seed(seed % 2**32)
        for name, function in originals.items():
            setattr(random, name, self._recorded(f"random.{name}", function))
        try:
            yield self
        finally:
            for name, function in originals.items():
                setattr(random, name, function)
            random.setstate(python_state)
            np.random.set_state(numpy_state)


#: Python's ``random`` module functions that draw (bound methods of its hidden generator).
_PYTHON_RANDOM = tuple(
    name
    for name in random.__all__
    if isinstance(getattr(getattr(random, name, None), "__self__", None), random.Random)
    and name not in ("seed", "getstate", "setstate")
)


#: The names a recorded call of the generator or of :mod:`random` has (``random.<name>`` for the latter).
_DRAWING = frozenset(
    [name for name in dir(np.random.Generator) if not name.startswith("_")]
    + [f"random.{name}" for name in _PYTHON_RANDOM]
)


@functools.cache
def _drawing_signature(method: str):
    """The signature of a recorded generator or :mod:`random` method, without ``self`` (None: not available)."""
    if method.startswith("random."):
        function = getattr(random.Random, method.removeprefix("random."), None)
    else:
        function = getattr(np.random.Generator, method, None)
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    parameters = list(signature.parameters.values())
    return signature.replace(parameters=parameters[1:]) if parameters and parameters[0].name == "self" else None


def _comparable(value):
    """``value`` as something ``==`` compares by content: numbers and arrays of numbers as their shape and
    float values, anything else by ``repr``."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError):  # an argument numpy cannot read (a ragged list): compared by its repr
        return repr(value)
    if array.dtype.kind in "biuf":
        return (array.shape, tuple(array.astype(float).ravel().tolist()))
    return repr(value)


def _call_site() -> str:
    """``file:line`` of the frame that called the recording function (three up: ``record``, the wrapper that
    called it, then its caller)."""
    frame = sys._getframe(3)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"
