"""Pipelines with glue bugs planted from public issue descriptions, and their correct versions.

Each is a pipeline ``pipeline(data, rng)`` that draws its noise from ``rng`` (or, for the diffprivlib
ones, from diffprivlib's mechanisms) and declares what it claims as attributes (``sensitivity``,
``epsilon``), as the grey-box probes (:mod:`dpverify.probes`) read them. The bugs, written from the
issues' descriptions (not their code):

- :class:`ClippedMean` with ``declared=1 / n``: a clipped mean whose declared sensitivity ignores
  the clipping range (diffprivlib issue #104: a sensitivity that does not scale with the bounds);
  with ``clip=False``: a mean that declares the bounds' sensitivity but skips the clipping
  (smartnoise-sdk issue #621);
- :class:`CountAndSums` with ``split=False``: several releases each calibrated to the whole budget
  (a budget charged once for several queries);
- :func:`thresholded_on_true_count`: a threshold on the true count that chooses whether noise is
  added at all (data-dependent control flow; :func:`thresholded_on_noisy_count` is correct);
- :class:`DiffprivlibDoubledCount` with ``declared=1``: diffprivlib's Laplace mechanism declared
  with sensitivity 1 for a query of sensitivity 2 (diffprivlib issues #104, #105 and #110: a
  sensitivity that does not match the query);
- :class:`DiffprivlibMean` with ``clip=False``: a mean handed to diffprivlib's Laplace with the
  bounds' sensitivity, never clipped to the bounds (smartnoise-sdk issue #621).

The released-key pipelines with planted bugs are in :mod:`.thresholded`
(:data:`~.thresholded.PLANTED_BUGS`). The diffprivlib pipelines need diffprivlib (the ``adapters``
extra). :func:`replace_one_pairs` and :func:`replace_one_strategy` give the pairs the means are probed on.

References
----------
T. Cebere, D. Erb, D. Desfontaines, A. Bellet and J. Fitzsimons, "Privacy in Theory, Bugs in
Practice: Grey-Box Auditing of Differential Privacy Libraries", Proceedings on Privacy Enhancing
Technologies (PoPETs), 2026 (the kinds of glue bug, found in DP libraries).
"""

from __future__ import annotations

import inspect

import numpy as np

__all__ = [
    "ClippedMean",
    "CountAndSums",
    "thresholded_on_true_count",
    "thresholded_on_noisy_count",
    "DataBoundsMean",
    "SumScaledByNoisyCount",
    "DiffprivlibDoubledCount",
    "DiffprivlibMean",
    "replace_one_pairs",
    "replace_one_strategy",
    "source_site",
]


class ClippedMean:
    """The mean of ``n`` values clipped to ``[0, upper]`` plus Laplace noise of scale sensitivity / epsilon.

    ``declared`` replaces the sensitivity ``upper / n`` (replace-one neighbours); ``clip=False``
    skips the clipping while still declaring the bounds' sensitivity.
    """

    def __init__(self, upper, n, epsilon, declared=None, clip=True):
        self.upper, self.n, self.clip, self.epsilon = upper, n, clip, epsilon
        self.sensitivity = upper / n if declared is None else declared

    def __call__(self, data, rng):
        values = np.clip(data, 0.0, self.upper) if self.clip else np.asarray(data, dtype=float)
        return float(np.mean(values)) + rng.laplace(scale=self.sensitivity / self.epsilon)


class CountAndSums:
    """A count and ``k - 1`` sums of values clipped to [0, 1] (each of sensitivity 1), each with Laplace
    noise; ``split=False`` calibrates every release to the whole epsilon (the budget charged once)."""

    sensitivity = 1.0

    def __init__(self, epsilon, k, split=True):
        self.epsilon, self.k, self.split = epsilon, k, split

    def __call__(self, data, rng):
        scale = self.sensitivity / (self.epsilon / self.k if self.split else self.epsilon)
        clipped = np.clip(data, 0.0, 1.0)
        releases = [len(data) + rng.laplace(scale=scale)]
        for _ in range(self.k - 1):
            releases.append(float(np.sum(clipped)) + rng.laplace(scale=scale))
        return tuple(releases)


class DataBoundsMean:
    """The mean with its bounds computed from the data: Laplace noise of scale ``(max - min) / (n epsilon)``, the
    case diffprivlib warns of when no bounds are given ("bounds will be calculated on the data provided"):
    the noise scale itself tells the data's range."""

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def __call__(self, data, rng):
        values = np.asarray(data, dtype=float)
        scale = (values.max() - values.min()) / (len(values) * self.epsilon)
        return float(np.mean(values)) + rng.laplace(scale=max(scale, 1e-12))


class SumScaledByNoisyCount:
    """The correct adaptive counterpart: a noisy count (epsilon / 2), then the sum of values clipped to
    [0, 1] with Laplace noise of scale ``2 / epsilon`` where the noisy count reaches 10, twice that below:
    the second scale follows a released value (post-processing), never the data."""

    def __init__(self, epsilon):
        self.epsilon = epsilon

    def __call__(self, data, rng):
        noisy = len(data) + rng.laplace(scale=2.0 / self.epsilon)
        scale = 2.0 / self.epsilon * (1.0 if noisy >= 10 else 2.0)
        return noisy, float(np.sum(np.clip(data, 0.0, 1.0))) + rng.laplace(scale=scale)


def thresholded_on_true_count(data, rng):
    """Releases a noisy count only when the true count reaches 3: the branch reads the data."""
    count = len(data)
    if count >= 3:
        return count + rng.laplace(scale=1.0)
    return 0.0


def thresholded_on_noisy_count(data, rng):
    """The correct version: the threshold reads the noisy count (post-processing)."""
    noisy = len(data) + rng.laplace(scale=1.0)
    return noisy if noisy >= 3 else 0.0


thresholded_on_noisy_count.sensitivity = 1.0


class DiffprivlibDoubledCount:
    """Counts every record twice and hands the count to diffprivlib's Laplace mechanism declared with
    sensitivity ``declared`` (2 is correct) at ``epsilon``."""

    def __init__(self, epsilon, declared):
        self.epsilon, self.declared = epsilon, declared

    def __call__(self, data, rng):
        from diffprivlib.mechanisms import Laplace

        return Laplace(epsilon=self.epsilon, sensitivity=self.declared).randomise(2 * len(data))


class DiffprivlibMean:
    """The mean of ``n`` values, noised by diffprivlib's Laplace mechanism (epsilon 1) with the bounds'
    sensitivity ``upper / n``; ``clip=False`` skips the clipping to ``[0, upper]``."""

    def __init__(self, upper, clip):
        self.upper, self.clip = upper, clip

    def __call__(self, data, rng):
        from diffprivlib.mechanisms import Laplace

        values = np.clip(data, 0.0, self.upper) if self.clip else np.asarray(data, dtype=float)
        mechanism = Laplace(epsilon=1.0, sensitivity=self.upper / len(values))
        return mechanism.randomise(float(np.mean(values)))


def replace_one_pairs(n, upper):
    """Replace-one pairs of ``n`` values: extremes, in-range moves and values far outside ``[0, upper]``."""
    base = [upper / 2] * n
    pairs = [([0.0] * n, [0.0] * (n - 1) + [upper]), (base, base[:-1] + [0.0])]
    pairs += [(base, base[:-1] + [outside]) for outside in (-5 * upper, 3 * upper, 100 * upper)]
    return pairs


def replace_one_strategy(n, upper):
    """A Hypothesis strategy of replace-one pairs of ``n`` values in ``[-10 upper, 10 upper]`` (needs
    ``hypothesis``, the ``test`` extra)."""
    from hypothesis import strategies as st

    values = st.floats(-10 * upper, 10 * upper, allow_nan=False)
    return st.tuples(st.lists(values, min_size=n, max_size=n), values).map(lambda p: (p[0], p[0][:-1] + [p[1]]))


def source_site(function, text: str) -> str:
    """``file:line`` of the one line of ``function``'s source that contains ``text``: the call site a
    probe's finding names."""
    lines, start = inspect.getsourcelines(function)
    (offset,) = [i for i, line in enumerate(lines) if text in line]
    return f"{inspect.getsourcefile(function)}:{start + offset}"
