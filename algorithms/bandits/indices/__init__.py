"""The compiled index policies of the matroid-bandit simulator, and the one place that picks them.

One module per family of papers holds each policy's state and its compiled ``reset``, ``index``
and ``update`` functions (contract: :mod:`algorithms.bandits.indices.common`):

- :mod:`~algorithms.bandits.indices.omm`: OMM, DP-OMM, LDP-OMM (Kveton et al. 2014; Tao et al. 2025);
- :mod:`~algorithms.bandits.indices.dp_mat`: DPUCB-MAT, DPTS-MAT, CTS (Chandak 2023; Wang & Chen 2018);
- :mod:`~algorithms.bandits.indices.cucb`: CUCB, CUCB-LDP1, CUCB-LDP2, CUCB-DP (Chen et al. 2013, 2020).

Dispatch happens here and only here: :data:`POLICY_KERNELS` maps a policy's code
(``Policy.code``) to its :class:`~algorithms.bandits.indices.common.PolicyKernel`. Python
allocates the state with :func:`new_policy_state`; compiled code calls :func:`policy_reset`,
:func:`policy_index`, :func:`policy_update` and :func:`policy_resamples`, which numba
resolves *at compile time* from the state's type (each
policy has its own state namedtuple), so the simulator's loop is compiled once per policy with
no branch on the policy inside it, and the compiled code can be cached (numba's first-class
function arguments cannot be).

References
----------
.. [1] B. Kveton, Z. Wen, A. Ashkan, H. Eydgahi, B. Eriksson, "Matroid Bandits: Fast Combinatorial
   Optimization with Learning", UAI 2014.
.. [2] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network Topology
   Optimization", ACM MobiArch workshop, 2025.
.. [3] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid Optimization",
   MSc thesis, University of Alberta, 2023.
.. [4] S. Wang, W. Chen, "Thompson Sampling for Combinatorial Semi-Bandits", ICML 2018.
.. [5] W. Chen, Y. Wang, Y. Yuan, "Combinatorial Multi-Armed Bandit: General Framework and
   Applications", ICML 2013.
.. [6] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
   Combinatorial Semi-Bandits", ICML 2020, PMLR 119.
"""

from __future__ import annotations

from numba.extending import overload

from algorithms.bandits.indices.common import PolicyKernel
from algorithms.bandits.indices.cucb import CUCB_DP_KERNEL, CUCB_KERNEL, CUCB_LDP1_KERNEL, CUCB_LDP2_KERNEL
from algorithms.bandits.indices.dp_mat import CTS_KERNEL, DPTS_MAT_KERNEL, DPUCB_MAT_KERNEL
from algorithms.bandits.indices.omm import DP_OMM_KERNEL, LDP_OMM_KERNEL, OMM_KERNEL

__all__ = [
    "OMM",
    "DP_OMM",
    "LDP_OMM",
    "DPUCB_MAT",
    "DPTS_MAT",
    "CTS",
    "CUCB",
    "CUCB_LDP1",
    "CUCB_LDP2",
    "CUCB_DP",
    "PolicyKernel",
    "POLICY_KERNELS",
    "new_policy_state",
    "policy_reset",
    "policy_index",
    "policy_update",
    "policy_resamples",
]

#: Policy codes (``Policy.code``).
OMM, DP_OMM, LDP_OMM, DPUCB_MAT, DPTS_MAT, CTS, CUCB, CUCB_LDP1, CUCB_LDP2, CUCB_DP = range(10)

#: code -> compiled policy: the single dispatch table.
POLICY_KERNELS = {
    OMM: OMM_KERNEL,
    DP_OMM: DP_OMM_KERNEL,
    LDP_OMM: LDP_OMM_KERNEL,
    DPUCB_MAT: DPUCB_MAT_KERNEL,
    DPTS_MAT: DPTS_MAT_KERNEL,
    CTS: CTS_KERNEL,
    CUCB: CUCB_KERNEL,
    CUCB_LDP1: CUCB_LDP1_KERNEL,
    CUCB_LDP2: CUCB_LDP2_KERNEL,
    CUCB_DP: CUCB_DP_KERNEL,
}

_BY_STATE = {kernel.state_class: kernel for kernel in POLICY_KERNELS.values()}


def new_policy_state(code: int, m: int, rank: int, eps_arm: float, horizon: float):
    """Allocate the state of policy ``code`` for ``m`` arms, rank ``rank``, per-arm budget ``eps_arm``
    and known horizon ``horizon`` (compiled code resets it with :func:`policy_reset`)."""
    return POLICY_KERNELS[code].new_state(m, rank, eps_arm, horizon)


def _kernel(state_type) -> PolicyKernel:
    kernel = _BY_STATE.get(getattr(state_type, "instance_class", None))
    if kernel is None:
        raise TypeError(f"not a registered policy state: {state_type}")
    return kernel


# The functions below are the compiled interface; called from Python they say so.
def policy_reset(state):
    """The statistics before round 1 (compiled code only)."""
    raise NotImplementedError("policy_reset is called from compiled code")


def policy_index(state, t, J, rng_pol):
    """Write round ``t``'s indices into ``J`` (compiled code only)."""
    raise NotImplementedError("policy_index is called from compiled code")


def policy_update(state, t, basis, xs, k_taken, rng_pol):
    """Take round ``t``'s observations ``xs[:k_taken]`` of the arms ``basis[:k_taken]`` (compiled code only)."""
    raise NotImplementedError("policy_update is called from compiled code")


def policy_resamples(state):
    """Whether every index is drawn afresh each round (compiled code only)."""
    raise NotImplementedError("policy_resamples is called from compiled code")


@overload(policy_reset)
def _reset(state):
    fn = _kernel(state).reset
    return lambda state: fn(state)


@overload(policy_index)
def _index(state, t, J, rng_pol):
    fn = _kernel(state).index
    return lambda state, t, J, rng_pol: fn(state, t, J, rng_pol)


@overload(policy_update)
def _update(state, t, basis, xs, k_taken, rng_pol):
    fn = _kernel(state).update
    return lambda state, t, basis, xs, k_taken, rng_pol: fn(state, t, basis, xs, k_taken, rng_pol)


@overload(policy_resamples)
def _resamples(state):
    flag = bool(_kernel(state).resamples)
    return lambda state: flag
