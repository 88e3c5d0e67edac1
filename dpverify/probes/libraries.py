"""Libraries' own randomness in a probe: diffprivlib's mechanisms replayed and recorded, unseedable libraries named.

A grey-box probe compares two runs that draw the same randomness. A library that draws its noise
from a source of its own escapes the :class:`~dpverify.probes.recording.RecordingGenerator`:

- **diffprivlib** (Holohan, Braghin, Mac Aonghusa and Levacher 2019) draws every mechanism's noise
  in the mechanism's ``randomise(value)`` from ``self._rng``, a ``numpy.random.RandomState`` when
  the mechanism was given ``random_state=`` and a ``secrets.SystemRandom`` (which cannot be seeded)
  when it was not; its tools (``diffprivlib.tools.mean``...) build a mechanism and call its
  ``randomise``. Within :func:`diffprivlib_replayed`, every ``randomise`` of a
  :mod:`diffprivlib.mechanisms` class draws from a ``RandomState`` seeded by the probe's seed and
  the call's index among the recorded calls, whatever ``random_state`` the mechanism was given, so
  the i-th call draws the same randomness in every run; and each call is recorded at its call site
  (the frame that called ``randomise``) with the mechanism's declared sensitivity and noise scale.
  The calls of :data:`DIFFPRIVLIB_NOISE` add noise that does not depend on the value (then at most
  clamp or fold the sum into bounds, which moves two sums no further apart): their shifts are
  measured. The other mechanisms are recorded (so control flow is compared) but not measured.
- **OpenDP** and **python-dp** draw from the operating system's randomness and take no seed
  (:data:`UNSEEDABLE_LIBRARIES`): :func:`unseedable_calls` watches a run for calls into them, so
  that the probe names them rather than report nothing found.

diffprivlib's classes are patched only where ``diffprivlib.mechanisms`` is imported when a run starts;
a run that imports it (:func:`replayed_imports` changes) is run again, patched.

References
----------
N. Holohan, S. Braghin, P. Mac Aonghusa and K. Levacher, "Diffprivlib: The IBM Differential Privacy
Library", arXiv:1907.02444, 2019.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

__all__ = [
    "DIFFPRIVLIB_NOISE",
    "LIBRARY_NOISE",
    "UNSEEDABLE_LIBRARIES",
    "diffprivlib_replayed",
    "replayed_imports",
    "unseedable_calls",
]

#: diffprivlib mechanisms whose ``randomise(value)`` is ``value`` plus noise drawn independently of
#: ``value`` (then clamped or folded into bounds): class name -> the noise it draws.
DIFFPRIVLIB_NOISE = {
    "Laplace": "laplace",
    "LaplaceTruncated": "laplace",
    "LaplaceFolded": "laplace",
    "Gaussian": "normal",
    "GaussianAnalytic": "normal",
}

#: Recorded library calls whose shifts the probes measure: method name -> noise kind.
LIBRARY_NOISE = {f"diffprivlib.{name}.randomise": kind for name, kind in DIFFPRIVLIB_NOISE.items()}

#: Top-level modules of libraries that draw noise from the operating system and take no seed -> name.
UNSEEDABLE_LIBRARIES = {"opendp": "OpenDP", "pydp": "python-dp (PyDP)", "_pydp": "python-dp (PyDP)"}


#: The modules whose randomness :func:`diffprivlib_replayed` replays, once imported.
REPLAYED_MODULES = ("diffprivlib.mechanisms",)


def replayed_imports() -> frozenset:
    """Which of :data:`REPLAYED_MODULES` are imported now."""
    return frozenset(name for name in REPLAYED_MODULES if name in sys.modules)


def _declared_scale(mechanism):
    """The scale of the noise a diffprivlib mechanism of :data:`DIFFPRIVLIB_NOISE` adds (None: another)."""
    kind = DIFFPRIVLIB_NOISE.get(type(mechanism).__name__)
    if kind == "laplace":
        return float(mechanism.sensitivity / (mechanism.epsilon - np.log(1 - mechanism.delta)))
    if kind == "normal":
        return float(mechanism._scale)
    return None


def _randomise_classes(module) -> list:
    """The classes of :mod:`diffprivlib.mechanisms` (and their bases) that define ``randomise`` themselves."""
    found = []
    for value in vars(module).values():
        for cls in getattr(value, "__mro__", ()) if isinstance(value, type) else ():
            if "randomise" in vars(cls) and cls.__module__.startswith("diffprivlib") and cls not in found:
                found.append(cls)
    return found


@contextlib.contextmanager
def diffprivlib_replayed(recorder, seed: int):
    """Within the block, diffprivlib's ``randomise`` calls draw from a ``RandomState`` seeded by ``seed`` and
    the call's index, and are recorded with ``recorder.record`` (see the module docstring); restored after."""
    module = sys.modules.get("diffprivlib.mechanisms")
    if module is None:
        yield
        return
    originals = {cls: vars(cls)["randomise"] for cls in _randomise_classes(module)}
    depth = [0]

    def replayed(original):
        def randomise(self, value, *args, **kwargs):
            if depth[0]:  # a subclass's randomise calling its base's: one call, recorded once
                return original(self, value, *args, **kwargs)
            index = len(recorder.draws)
            saved = self._rng
            self._rng = np.random.RandomState(np.random.SeedSequence([seed, index]).generate_state(1)[0])
            depth[0] += 1
            try:
                output = original(self, value, *args, **kwargs)
            finally:
                self._rng, depth[0] = saved, depth[0] - 1
            return recorder.record(
                f"diffprivlib.{type(self).__name__}.randomise",
                (value, *args),
                kwargs,
                output,
                declared_scale=_declared_scale(self),
                declared_sensitivity=float(self.sensitivity) if hasattr(self, "sensitivity") else None,
            )

        return randomise

    for cls, original in originals.items():
        cls.randomise = replayed(original)
    try:
        yield
    finally:
        for cls, original in originals.items():
            cls.randomise = original


@contextlib.contextmanager
def unseedable_calls():
    """Yield a set that, by the end of the block, holds the names of the :data:`UNSEEDABLE_LIBRARIES` whose
    Python functions were called within it (a profile hook, installed only when one is imported)."""
    found = set()
    if not any(name in sys.modules for name in UNSEEDABLE_LIBRARIES):
        yield found
        return

    def profile(frame, event, arg):
        if event == "call":
            top = frame.f_globals.get("__name__", "").partition(".")[0]
            if top in UNSEEDABLE_LIBRARIES:
                found.add(UNSEEDABLE_LIBRARIES[top])

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield found
    finally:
        sys.setprofile(previous)
