"""High-probability bounds on sums of independent Laplace noise (used for counter error bounds).

The bound is Tao et al. 2025, Lemma 1, multiplied by n: for X_1..X_n iid Lap(b) and every n >= 1,

    P( |X_1 + ... + X_n| > max{ 2 b sqrt(2 n ln(2/delta)), 4 b ln(2/delta) } ) <= delta.

Its validity is checked exactly (difference-of-Gammas integration) for n = 1..1000 in
``properties/bandits/test_concentration.py`` (see :mod:`algorithms.bandits.concentration`).
The formula itself is compiled once, in :func:`algorithms.counters.compiled.lemma1_max`; this
module validates and broadcasts numpy inputs for it.
"""

from __future__ import annotations

import numpy as np

from algorithms.counters.compiled import lemma1_max_array
from algorithms.errors import AlgorithmInputError

__all__ = ["laplace_sum_deviation_bound"]


def laplace_sum_deviation_bound(n, scale, delta):
    """Bound B with P(|sum of n iid Lap(scale)| > B) <= delta (Tao et al. 2025, Lemma 1 times n).

    Parameters
    ----------
    n : int or int array, >= 0 (n = 0 gives 0)
    scale : float or array, > 0
    delta : float or array in (0, 1)

    Returns
    -------
    float or array (broadcast of the inputs)

    References
    ----------
    .. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network
       Topology Optimization", ACM MobiArch workshop, 2025. Lemma 1.
    """
    n = np.asarray(n)
    scale = np.asarray(scale, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    if np.any(n < 0):
        raise AlgorithmInputError("the number of Laplace terms n must be >= 0")
    if np.any(~(scale > 0)):
        raise AlgorithmInputError("the Laplace scale must be > 0")
    if np.any(~((delta > 0) & (delta < 1))):
        raise AlgorithmInputError("delta must lie in (0, 1)")
    log_term = np.log(2.0 / delta)
    nf, scale, log_term = np.broadcast_arrays(n.astype(np.float64), scale, log_term)
    out = np.empty(nf.shape)
    lemma1_max_array(
        np.ascontiguousarray(nf).ravel(),
        np.ascontiguousarray(scale).ravel(),
        np.ascontiguousarray(log_term).ravel(),
        out.reshape(-1),
    )
    return out[()] if out.ndim == 0 else out
