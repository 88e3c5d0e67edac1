"""A numpy Generator that records every draw and can shift the noise one call returns.

The grey-box probes (:mod:`dpverify.probes.probe`) hand a pipeline a :class:`RecordingGenerator`
instead of a :class:`numpy.random.Generator`. It forwards every public method to a generator made
from the probe's seed, so that two runs with the same seed and the same sequence of calls draw the
same raw randomness, and it logs each call: the method, the call site (the file and line of the
frame that called it) and the arguments. A *marker* makes one call's draw come back shifted by a
known amount, which tells which released values that call's noise feeds (Cebere, Erb, Desfontaines,
Bellet and Fitzsimons 2026, who record and replay a library's randomness the same way).

Only the calls made through the generator handed to the pipeline are recorded. A generator the
pipeline makes itself, ``rng.spawn(...)`` children and ``rng.bit_generator`` are not.

References
----------
T. Cebere, D. Erb, D. Desfontaines, A. Bellet and J. Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries", Proceedings on Privacy Enhancing
Technologies (PoPETs), 2026.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["NOISE_SCALES", "Draw", "RecordingGenerator"]

#: The noise methods whose shifts the probes measure -> the keyword of their scale (its position
#: in the method's signature after it). ``geometric`` is scaled by its success probability ``p``.
NOISE_SCALES = {
    "laplace": ("scale", 1),
    "normal": ("scale", 1),
    "gumbel": ("scale", 1),
    "exponential": ("scale", 0),
    "geometric": ("p", 0),
}
#: Defaults of the scale keywords (``geometric`` has none).
_DEFAULT_SCALE = {"laplace": 1.0, "normal": 1.0, "gumbel": 1.0, "exponential": 1.0}


@dataclass(frozen=True)
class Draw:
    """One recorded call: ``method`` at ``site`` (``file:line``), its arguments, and its draw."""

    method: str
    site: str
    args: tuple
    kwargs: dict
    value: object

    @property
    def signature(self) -> tuple:
        """What two runs must share for their draws to be the same randomness: method, site and shape."""
        return (self.method, self.site, np.shape(self.value))

    def scale(self):
        """The scale argument of a noise call (``p`` for ``geometric``), or None when not a noise call
        or when it is not one number."""
        if self.method not in NOISE_SCALES:
            return None
        name, position = NOISE_SCALES[self.method]
        value = self.kwargs.get(name, self.args[position] if len(self.args) > position else None)
        value = _DEFAULT_SCALE.get(self.method) if value is None else value
        try:
            return float(value)
        except (TypeError, ValueError):
            return None


class RecordingGenerator:
    """A :class:`numpy.random.Generator` stand-in that records its calls (see the module docstring).

    Parameters
    ----------
    seed : int
        Seed of the generator the calls are forwarded to.
    marker : tuple of (int, int), optional
        ``(i, h)``: the ``i``-th call (from 0) returns its draw plus ``h`` (an integer, so that an
        integer draw stays one).
    """

    def __init__(self, seed: int, marker: tuple | None = None):
        self._generator = np.random.default_rng(seed)
        self._marker = marker
        self.draws: list[Draw] = []

    def __getattr__(self, name):
        attribute = getattr(self._generator, name)
        if name.startswith("_") or not callable(attribute) or name in ("spawn",):
            return attribute

        def recorded(*args, **kwargs):
            value = attribute(*args, **kwargs)
            if self._marker is not None and self._marker[0] == len(self.draws):
                value = value + self._marker[1]
            self.draws.append(Draw(name, _call_site(), args, kwargs, value))
            return value

        return recorded


def _call_site() -> str:
    """``file:line`` of the frame that called the generator (two frames up: the wrapper, then the caller)."""
    frame = sys._getframe(2)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}"
