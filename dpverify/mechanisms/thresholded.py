"""Thresholded counts (a stable histogram): Laplace counts per key, released only above a threshold.

The data is a mapping ``{key: count}``; neighbouring datasets change one key's
count by at most ``sensitivity`` (one user, whose contribution to one key is
bounded by ``sensitivity``), from or to 0 included: a key with count 0 is not in
the data, so a key may appear in x and not in x'. The mechanism adds
``Lap(sensitivity / epsilon)`` to every count above 0 and releases the mapping of
the keys whose noisy count is at least

    tau = sensitivity * (1 + ln(1 / (2 delta)) / epsilon),

with their noisy counts (rounded to a fine grid, :mod:`.noise`, so that an audit
measures the noise, not float bits). It is (epsilon, delta)-DP: where a key's count
is above 0 in both datasets its release and value are a post-processing of a
Laplace count, epsilon-DP; where it is ``c <= sensitivity`` in x and 0 in x', the key
is never released from x' and released from x with chance
``P[c + Lap(b) >= tau] <= (1/2) exp(-(tau - sensitivity) / b) = delta`` for
``b = sensitivity / epsilon``, which is the delta. The bound is attained at
``c = sensitivity``, so an audit of that pair certifies delta up to its sampling error.

:class:`ThresholdedCounts` is correct. The planted glue bugs below keep its claim and
break the pipeline around the noise, as the public reports of such bugs describe:

- :class:`ThresholdWithoutOffset`: the threshold ``ln(1 / (2 delta)) / epsilon``,
  which forgets that a key present in the data already counts ``sensitivity``
  (the threshold's delta miscomputed): true delta ``e^epsilon delta``.
- :class:`PresenceLeak`: every key in the data released, no threshold (released keys
  leak presence): true delta 1.
- :class:`SensitivityTooSmall`: the claim states a contribution of
  ``sensitivity`` per user while the noise and threshold use 1 (a sensitivity
  declared smaller than the code's, as diffprivlib issues #104, #105 and #110
  report of other tools).
- :class:`BudgetChargedOnce`: two thresholded releases of the same counts (keys
  ``("first", k)`` and ``("second", k)``), each at the whole (epsilon, delta), charged
  once: true (2 epsilon, about 2 delta).
- :class:`TrueCountPrefilter`: noise drawn only for the keys whose *true* count
  reaches the threshold (a threshold on the true count, vectorised over the keys): a
  key at the threshold in x and one below it in x' is released from x with chance at
  least 1/2 and never from x', true delta at least 1/2. Its number of noise draws
  follows the data, as the correct mechanism's does.

References
----------
A. Korolova, K. Kenthapadi, N. Mishra, A. Ntoulas, "Releasing search queries and
clicks privately", WWW 2009 (noisy counts released above a threshold).
R. J. Wilson, C. Y. Zhang, W. Lam, D. Desfontaines, D. Simmons-Marengo, B. Gipson,
"Differentially private SQL with bounded user contribution", PoPETs 2020 (partition
selection by a Laplace threshold in a SQL engine).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from .._validation import check_epsilon, check_positive_real
from ..claims import StatesClaim
from ..errors import InvalidParameterError
from .noise import CLAMP_SCALES, check_inside, fine_grid, round_to_grid

__all__ = [
    "ThresholdedCounts",
    "ThresholdWithoutOffset",
    "PresenceLeak",
    "SensitivityTooSmall",
    "BudgetChargedOnce",
    "TrueCountPrefilter",
    "PLANTED_BUGS",
]


def _check_delta(delta) -> float:
    if not isinstance(delta, (int, float)) or not 0.0 < float(delta) < 0.5:
        raise InvalidParameterError(f"delta must be in (0, 0.5) for a thresholded release, got {delta!r}")
    return float(delta)


class ThresholdedCounts(StatesClaim):
    """Laplace counts per key, each key released when its noisy count reaches ``tau`` (module docstring).

    Parameters
    ----------
    epsilon, delta : float
        The claim; ``delta`` in (0, 0.5).
    sensitivity : float
        The most one user changes one key's count by (the claim's neighbouring relation).
    """

    claim_neighbouring = "one key's count changes by at most {sensitivity:g} (from or to 0: a key added or removed)"
    claim_source = "Korolova et al. 2009 thresholded counts; threshold as in dpverify.mechanisms.thresholded"

    def __init__(self, epsilon, delta, sensitivity=1.0):
        self.epsilon = check_epsilon(epsilon)
        self.delta = _check_delta(delta)
        self.sensitivity = check_positive_real(sensitivity, "sensitivity")
        self.scale = self._noise_sensitivity() / self.epsilon
        self.threshold = self._threshold()
        self.grid = fine_grid(self.scale)
        self.bound = max(CLAMP_SCALES * self.scale, 1000.0)

    def _noise_sensitivity(self) -> float:
        """The contribution the noise and the threshold are calibrated to."""
        return self.sensitivity

    def _threshold(self) -> float:
        s = self._noise_sensitivity()
        return s * (1.0 + math.log(1.0 / (2.0 * self.delta)) / self.epsilon)

    def release_probability(self, count: float) -> float:
        """``P[count + Lap(scale) >= threshold]``: the chance that a key of this count is released."""
        gap = (self.threshold - count) / self.scale
        return 0.5 * math.exp(-gap) if gap >= 0 else 1.0 - 0.5 * math.exp(gap)

    def _counts(self, data) -> tuple[list, np.ndarray]:
        if not isinstance(data, Mapping):
            raise InvalidParameterError(f"the data must be a mapping from key to count, got {type(data).__name__}")
        keys = [k for k, c in data.items() if c > 0]  # a key of count 0 is not in the data
        counts = np.asarray([data[k] for k in keys], dtype=np.float64)
        return keys, check_inside(counts, self.bound, "counts")

    def _release(self, keys, counts, size, rng) -> list:
        noisy = counts + rng.laplace(scale=self.scale, size=(size, len(keys)))
        released = self._released(noisy)
        values = round_to_grid(noisy, self.grid, self.bound).tolist()
        return [{k: v for k, r, v in zip(keys, rs, vs) if r} for rs, vs in zip(released.tolist(), values)]

    def _released(self, noisy: np.ndarray) -> np.ndarray:
        return noisy >= self.threshold

    def sample(self, data, size, rng):
        keys, counts = self._counts(data)
        return self._release(keys, counts, size, rng)

    def __call__(self, data, rng):
        return self.sample(data, 1, rng)[0]


class ThresholdWithoutOffset(ThresholdedCounts):
    """Threshold ``ln(1 / (2 delta)) / epsilon``, without the ``sensitivity`` a present key holds. Broken.

    A key of count ``sensitivity`` in x and absent from x' is released with chance
    ``e^epsilon delta``: the claim's delta is exceeded by the factor ``e^epsilon``.
    """

    def _threshold(self) -> float:
        return self.sensitivity * math.log(1.0 / (2.0 * self.delta)) / self.epsilon


class PresenceLeak(ThresholdedCounts):
    """Every key in the data released with its noisy count, no threshold. Broken (true delta 1)."""

    def _released(self, noisy: np.ndarray) -> np.ndarray:
        return np.ones(noisy.shape, dtype=bool)


class SensitivityTooSmall(ThresholdedCounts):
    """Claims a contribution of ``sensitivity`` per user; noise and threshold calibrated to 1. Broken.

    With ``sensitivity = 2`` a count moving by 2 loses ``2 epsilon`` through its value, and a key of
    count 2 absent from x' is released with chance ``e^epsilon delta``.
    """

    def _noise_sensitivity(self) -> float:
        return 1.0


class BudgetChargedOnce(ThresholdedCounts):
    """Two independent thresholded releases, keys ``("first", k)`` and ``("second", k)``, each at the whole
    (epsilon, delta) and charged once. Broken: (2 epsilon, about 2 delta) by composition."""

    def sample(self, data, size, rng):
        keys, counts = self._counts(data)
        first = self._release(keys, counts, size, rng)
        second = self._release(keys, counts, size, rng)
        return [
            {**{("first", k): v for k, v in a.items()}, **{("second", k): v for k, v in b.items()}}
            for a, b in zip(first, second)
        ]


class TrueCountPrefilter(ThresholdedCounts):
    """Noise drawn only for the keys whose true count reaches the threshold, then the noisy threshold. Broken.

    An optimisation that skips the keys which "cannot" pass reads the data: a key of count
    ``ceil(threshold)`` is released with chance at least 1/2, and one count below it never (true delta
    at least 1/2).
    """

    def _counts(self, data) -> tuple[list, np.ndarray]:
        keys, counts = super()._counts(data)
        kept = counts >= self.threshold
        return [k for k, keep in zip(keys, kept.tolist()) if keep], counts[kept]


#: The planted glue bugs, by name: the broken class and the neighbouring pair that shows it.
PLANTED_BUGS = {
    "threshold-delta-miscomputed": (ThresholdWithoutOffset, {}, {"a": 1, "b": 50}, {"b": 50}),
    "released-keys-leak-presence": (PresenceLeak, {}, {"a": 1, "b": 50}, {"b": 50}),
    "sensitivity-declared-too-small": (SensitivityTooSmall, {"sensitivity": 2.0}, {"a": 2, "b": 50}, {"b": 50}),
    "budget-charged-once": (BudgetChargedOnce, {}, {"a": 1, "b": 50}, {"b": 50}),
    "noise-only-above-the-true-threshold": (TrueCountPrefilter, {}, {"a": 5, "b": 50}, {"a": 4, "b": 50}),
}
