"""What every compiled policy shares: its registry entry and the statistics of empirical means.

A policy is a *state* (a namedtuple of arrays and its scalar parameters ``eps_arm``, the budget
of one arm's statistic; ``horizon``, the known horizon T as a float; ``rank``, K) and three
compiled functions of that state, named after the paper's algorithm:

``<policy>_reset(state)``
    the statistics before round 1;
``<policy>_index(state, t, J, rng_pol)``
    write the index ``J_t(e)`` of every base arm (Chandak 2023, Algorithm 1 then plays the
    greedy basis of ``J_t``);
``<policy>_update(state, t, basis, xs, k_taken, rng_pol)``
    take round ``t``'s observations: ``xs[q]`` is the reward of the played arm ``basis[q]``,
    ``q < k_taken``, in greedy order (descending index).

``rng_pol`` is the policy's numpy Generator (its noise and its samples). The index and update
functions are compiled without the reference-counting runtime (``_nrt=False``): they allocate
nothing, and the simulator's hot loop stays free of reference-count traffic.

References
----------
.. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
   Optimization", MSc thesis, University of Alberta, 2023. Algorithm 1.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import NamedTuple

import numba
import numpy as np
from numba import literal_unroll

__all__ = [
    "PolicyKernel",
    "state_class",
    "policy_state",
    "zero_arrays",
    "SUM_FIELDS",
    "sum_arrays",
    "reset_sums",
    "observe_sum",
    "MEAN_FIELDS",
    "mean_arrays",
    "reset_means",
    "observe_mean",
]


class PolicyKernel(NamedTuple):
    """One policy's compiled pieces, as registered in :data:`algorithms.bandits.indices.POLICY_KERNELS`.

    Attributes
    ----------
    name : str
        The paper's name of the algorithm.
    state_class : type
        Its state namedtuple; the compiled dispatch recognizes the policy by this type.
    new_state : callable
        ``new_state(m, rank, eps_arm, horizon) -> state`` (allocation; values set by ``reset``).
    reset, index, update : numba dispatchers
        See the module docstring.
    resamples : bool
        Whether every index is drawn afresh each round (sampling policies): the simulator then
        sorts from scratch instead of updating the previous order.
    """

    name: str
    state_class: type
    new_state: Callable
    reset: Callable
    index: Callable
    update: Callable
    resamples: bool


@numba.njit(cache=True, nogil=True)
def zero_arrays(arrays):
    """Set every array of the tuple ``arrays`` (any dtypes and shapes) to 0: a policy's ``reset``."""
    for a in literal_unroll(arrays):
        a[:] = 0


#: Arrays of a policy that keeps counts and sums: ``counts`` (T_e) and ``sums`` of observations or reports.
SUM_FIELDS = ("counts", "sums")


def sum_arrays(m: int) -> dict:
    """Fresh arrays for :data:`SUM_FIELDS`."""
    return {"counts": np.zeros(m, dtype=np.int64), "sums": np.zeros(m)}


@numba.njit(cache=True, nogil=True)
def reset_sums(s):
    """No observation yet."""
    zero_arrays((s.counts, s.sums))


@numba.njit(cache=True, nogil=True, _nrt=False)
def observe_sum(s, e, y):
    """Add ``y`` (an observation, or a noisy report of one) to arm ``e``'s count and sum."""
    s.counts[e] += 1
    s.sums[e] += y


#: Arrays of a policy that keeps empirical means: ``counts`` (T_e), ``sums``, ``inv_n`` (1/T_e, 0
#: while unplayed), ``isq_n`` (1/sqrt(T_e)), ``mean_n`` (sums/T_e, +inf while unplayed).
MEAN_FIELDS = ("counts", "sums", "inv_n", "isq_n", "mean_n")
SCALAR_FIELDS = ("eps_arm", "horizon", "rank")


def state_class(name: str, arrays, module: str) -> type:
    """A state namedtuple class ``module.name``: the given array fields, then the scalar parameters.

    ``module`` must be the defining module's ``__name__`` (numba's cache pickles the type by it).
    """
    return namedtuple(name, [*arrays, *SCALAR_FIELDS], module=module)


def policy_state(name: str, fields, arrays: Callable[[int], dict], module: str) -> tuple[type, Callable]:
    """A policy's state class (:func:`state_class`) and its ``new_state(m, rank, eps_arm, horizon)``.

    ``arrays(m)`` maps each of ``fields`` to a fresh array of ``m`` arms (values are set by the
    policy's ``reset``); the scalar parameters follow.
    """
    state_type = state_class(name, fields, module)

    def new_state(m, rank, eps_arm, horizon):
        return state_type(**arrays(m), eps_arm=float(eps_arm), horizon=float(horizon), rank=int(rank))

    return state_type, new_state


def mean_arrays(m: int) -> dict:
    """Fresh arrays for :data:`MEAN_FIELDS` (values are set by :func:`reset_means`)."""
    return {
        "counts": np.zeros(m, dtype=np.int64),
        "sums": np.zeros(m),
        "inv_n": np.zeros(m),
        "isq_n": np.zeros(m),
        "mean_n": np.zeros(m),
    }


@numba.njit(cache=True, nogil=True)
def reset_means(s):
    """No observation yet: ``T_e = 0``, ``mean_n = +inf`` (an unplayed arm's index is +inf)."""
    zero_arrays((s.counts, s.sums, s.inv_n, s.isq_n))
    s.mean_n[:] = np.inf


@numba.njit(cache=True, nogil=True, _nrt=False)
def observe_mean(s, e, y):
    """Add ``y`` (an observation, or a noisy report of one) to arm ``e``'s empirical mean."""
    s.counts[e] += 1
    s.sums[e] += y
    s.inv_n[e] = 1.0 / s.counts[e]
    s.isq_n[e] = np.sqrt(s.inv_n[e])
    s.mean_n[e] = s.sums[e] * s.inv_n[e]
