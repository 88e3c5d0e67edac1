"""Noisy histogram: Laplace noise on every count (Dwork-Roth 3.3, Example 3.2).

Neighbouring datasets change one count by one (l1 sensitivity 1), so
Laplace(1/eps) noise per count is eps-DP. The broken variant of issue 6 uses
noise scale ``eps`` instead of ``1/eps`` (true loss ``1/eps``: 10 at eps = 0.1).
Counts are rounded to a fine grid and clamped (:mod:`.noise`) so the audit
measures the noise scale, not float bits.
"""

from __future__ import annotations

import numpy as np

from .._validation import check_epsilon
from ..errors import InvalidParameterError
from .noise import CLAMP_SCALES, check_inside, fine_grid, round_to_grid

__all__ = ["NoisyHistogram"]


class NoisyHistogram:
    """counts + Lap(scale) per count; scale = 1/eps (correct) or eps (``broken_scale=True``).

    Outputs are float vectors (one entry per count).
    """

    def __init__(self, epsilon, broken_scale: bool = False):
        self.epsilon = check_epsilon(epsilon)
        self.delta = 0.0
        self.broken_scale = bool(broken_scale)
        self.scale = self.epsilon if broken_scale else 1.0 / self.epsilon
        self.grid = fine_grid(self.scale)
        self.bound = max(CLAMP_SCALES * self.scale, 1000.0)

    def _counts(self, data):
        counts = np.asarray(data, dtype=np.float64)
        if counts.ndim != 1 or counts.size < 1:
            raise InvalidParameterError(f"the data must be a non-empty 1-D vector of counts, got {data!r}")
        return check_inside(counts, self.bound, "counts")

    def sample(self, data, size, rng):
        counts = self._counts(data)
        noisy = counts + rng.laplace(scale=self.scale, size=(size, counts.size))
        return round_to_grid(noisy, self.grid, self.bound)

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]

    def true_epsilon(self, x, x_prime) -> float:
        """||x - x'||_1 / scale."""
        return float(np.abs(self._counts(x) - self._counts(x_prime)).sum()) / self.scale
