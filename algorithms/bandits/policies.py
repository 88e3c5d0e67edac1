"""Index policies for stochastic matroid bandits, each with its privacy claim as data.

Every policy computes an index ``J_t(e)`` for each base arm and plays the
greedy basis of ``J_t`` (Chandak 2023, Algorithm 1: sort descending, add if
independent; ties, including ties between infinite indices, broken uniformly
at random). ``T_e`` is the number of observations of arm ``e``; ``K`` the rank;
``t`` the round (1-based); ``T`` a known horizon where a policy needs one.
The compiled implementations are in :mod:`algorithms.bandits.indices` (one function per
policy and step, named after the algorithm), played by ``algorithms.bandits._kernels.simulate_run``.

========== ============================================================ =====================
policy     index J_t(e)                                                 source
========== ============================================================ =====================
OMM        mu^_e + sqrt(2 ln t / T_e); +inf while T_e = 0               Kveton et al. 2014
DP-OMM     (S~_e + B(T_e, t)) / T_e + sqrt(2 ln t / T_e); one hybrid     Tao et al. 2025, Alg. 1
           counter per arm with eps' = eps/K; B = noise bound below
LDP-OMM    mean of x + Lap(1/eps') + sqrt(2 ln t / T_e)                 Tao et al. 2025, Alg. 2,
           + max{(2/eps') sqrt(2 ln(2t^4)/T_e), (4/eps') ln(2t^4)/T_e}   Lemma 1
DPUCB-MAT  w~_e + sqrt(3 ln(Kt)/T_e) + 3 ln(Kt)/(epsilon0 T_e);             Chandak 2023, Alg. 2
           epsilon0 = eps/K, T_e = last batch size 2^s, w~ = (batch sum
           + Lap(1/epsilon0)) / T_e (lazy doubling batches, forgetful)
DPTS-MAT   sample of N(w~_e + 3 ln(Kt)/(epsilon0 T_e), 1/T_e)               Chandak 2023, Alg. 5
CTS        sample of N(mu^_e, 1/T_e)                                    Wang & Chen 2018
                                                                        (thesis Sec. 6.1)
CUCB       min{mu^_e + sqrt(3 ln t / (2 T_e)), 1}                       Chen et al. 2013
CUCB-LDP1  min{mu~_e + 4 sqrt(2 K^2 ln T / (eps^2 T_e)), 1};            Chen et al. 2020, Alg. 1
           every played arm reports x + Lap(K/eps)
CUCB-LDP2  min{mu~_e + 4 sqrt(2 ln T / (eps^2 T_e)), 1}; only the       Chen et al. 2020, Alg. 2
           least-observed played arm reports x + Lap(1/eps)
CUCB-DP    min{S~_e/T_e + sqrt(4 ln(mT)/T_e) + 12 K ln^3 T/(eps T_e),    Chen et al. 2020, Alg. 3
           1}; S~ from tree-based aggregation over rounds
========== ============================================================ =====================

**Choices** (documented where the papers are garbled or silent):

* DP-OMM's index (Tao et al. 2025, Alg. 1 line 11 is unreadable): in our
  reading, ``B(n, t)`` bounds the hybrid counter's noise at count ``n``: the
  noise is ``k+1`` iid Lap(2/eps') plus ``popcount(n - 2^k)`` iid
  Lap(2(k+1)/eps') (``2^k <= n < 2^(k+1)``), and ``B`` applies Tao et al. 2025's
  Lemma 1 to each group at ``delta/2`` with ``delta = t^-4`` (so
  ``|noise| <= B`` with probability ``>= 1 - t^-4``), see
  :func:`algorithms.bandits.indices.omm.dp_omm_noise_bound`. The hybrid counter
  gives eps'/2 to the logarithmic and eps'/2 to the binary part, and a binary
  phase of horizon ``2^k`` uses ``k+1`` levels (Chan, Shi, Song 2011).
* Budget split: ``eps' = eps/K`` for DP-OMM, LDP-OMM,
  DPUCB-MAT, DPTS-MAT, CUCB-LDP1 (Lap(K/eps) = Lap(1/eps')) and CUCB-DP;
  CUCB-LDP2 reports one arm per round, so its single report gets all of eps.
* Initialization: no free observation round (Tao et al. 2025's Algorithms 1-2
  sample every arm once at ``t = 0``; here unplayed arms have index +inf and
  are played first, as in OMM and Chandak 2023). CUCB-family indices are clipped
  at 1 and an unplayed arm's index is ``min{inf, 1} = 1`` (Chen et al. 2020, footnote 3).
* CUCB's radius ``sqrt(3 ln t / (2 T_e))`` is Chen et al.'s (2013), clipped
  at 1 like the private variants.
* CUCB-DP's tree-based aggregation: the binary mechanism over rounds
  ``1..T`` with ``L = floor(log2 T) + 1`` levels, applied to the vector
  ``X_t`` (played arms' observations, 0 elsewhere), Lap(2 K L / eps) on every
  coordinate of every node: Chen et al. 2020's Lap(2K log T / eps) with "log T" read
  as the number of levels L (with ``log = ln`` it would be smaller than L for
  small T), as in ``algorithms.counters.TreeAggregationBank``. The l1 change
  2K is the paper's; since the super arm of round t is a function of earlier
  releases, K would already suffice, so the claim eps holds with slack.
* CUCB-LDP2 ties for the least-observed arm go to the arm that comes first in
  the greedy order.

Privacy unit (Tao et al. 2025, Definition 1; Chandak 2023, Definition 9; Chen et al. 2020,
Definition 3): two reward tables are neighbours if they differ in one round
(all arms of that round may change). Central claims are about the sequence of
played super arms; local claims are about each round's report.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from algorithms._validation import check_epsilon, check_horizon
from algorithms.bandits import indices as K
from algorithms.errors import InvalidBudgetSplitError
from dpverify.claims import PrivacyClaim

__all__ = [
    "Policy",
    "BUDGET_SPLITS",
    "omm",
    "dp_omm",
    "ldp_omm",
    "dpucb_mat",
    "dpts_mat",
    "cts",
    "cucb",
    "cucb_ldp1",
    "cucb_ldp2",
    "cucb_dp",
    "POLICY_FACTORIES",
    "PRIVATE_POLICY_FACTORIES",
]

NEIGHBOURS = "reward tables differing in one round (all observations of that round)"

#: The allowed values of :attr:`Policy.budget_split`.
BUDGET_SPLITS = ("per-arm", "single-report", "none")


@dataclass(frozen=True)
class Policy:
    """An index policy: its kernel code, privacy parameter and claim.

    Attributes
    ----------
    name : str
    code : int
        Kernel code (a key of ``algorithms.bandits.indices.POLICY_KERNELS``).
    epsilon : float or None
        The privacy parameter the policy was configured with.
    budget_split : str
        One of :data:`BUDGET_SPLITS`: ``"per-arm"`` (each played arm's statistic gets eps/K),
        ``"single-report"`` (one report per round with all of eps) or ``"none"`` (not
        private). Anything else raises :class:`~algorithms.errors.InvalidBudgetSplitError`.
        (The deliberately wrong "whole eps per arm" is not a value here but a subclass,
        :class:`algorithms.bandits.broken.BrokenFullBudgetPolicy`.)
    horizon : int or None
        Known horizon T of the policies whose formulas use ``ln T`` (CUCB-LDP1, CUCB-LDP2,
        CUCB-DP; see :attr:`needs_horizon`); None means "the simulated horizon". The other
        policies' indices use the round t only and ignore it.
    claim : dpverify.PrivacyClaim or None
        The claim (epsilon, neighbouring relation, model "central" or "local", source, and the
        epsilon the paper states where it differs); None for the non-private baselines.
    reference : str
        Paper and algorithm number.
    """

    name: str
    code: int
    epsilon: float | None
    budget_split: str
    claim: PrivacyClaim | None
    reference: str
    horizon: int | None = None

    def __post_init__(self):
        if self.budget_split not in BUDGET_SPLITS:
            raise InvalidBudgetSplitError(
                f"budget_split must be one of {', '.join(map(repr, BUDGET_SPLITS))}, got {self.budget_split!r}"
            )

    @property
    def needs_horizon(self) -> bool:
        """Whether the index uses the known horizon T (CUCB-LDP1, CUCB-LDP2, CUCB-DP)."""
        return self.code in (K.CUCB_LDP1, K.CUCB_LDP2, K.CUCB_DP)

    def arm_epsilon(self, rank: int) -> float:
        """The budget of one arm's statistic (eps/K, eps, or inf for non-private policies)."""
        if self.epsilon is None:
            return math.inf
        if self.budget_split == "per-arm":
            return self.epsilon / rank
        return self.epsilon  # "single-report": the round's one report gets all of eps

    def reports_per_round(self, rank: int) -> int:
        """How many statistics one round's observations enter: 1 (``"single-report"``), else K."""
        return 1 if self.budget_split == "single-report" else int(rank)

    def with_horizon(self, horizon: int) -> Policy:
        """This policy with known horizon ``horizon`` (an integer >= 1)."""
        return dataclasses.replace(self, horizon=check_horizon(horizon))


@dataclass(frozen=True)
class _PrivateDesign:
    """Where a private policy comes from: its kernel, budget split, model, paper, algorithm and theorem."""

    code: int
    budget_split: str
    model: str
    paper: str
    algorithm: int
    theorem: int
    stated_multiple: int | None = None  # the multiple of eps the paper states where its proof gives eps


#: name -> the design of each private policy (Tao et al. 2025, Chandak 2023, Chen et al. 2020).
_PRIVATE_DESIGNS = {
    "DP-OMM": _PrivateDesign(K.DP_OMM, "per-arm", "central", "Tao et al. 2025", 1, 1),
    "LDP-OMM": _PrivateDesign(K.LDP_OMM, "per-arm", "local", "Tao et al. 2025", 2, 2),
    "DPUCB-MAT": _PrivateDesign(K.DPUCB_MAT, "per-arm", "central", "Chandak 2023", 2, 8, stated_multiple=2),
    "DPTS-MAT": _PrivateDesign(K.DPTS_MAT, "per-arm", "central", "Chandak 2023", 5, 10, stated_multiple=2),
    "CUCB-LDP1": _PrivateDesign(K.CUCB_LDP1, "per-arm", "local", "Chen et al. 2020", 1, 1),
    "CUCB-LDP2": _PrivateDesign(K.CUCB_LDP2, "single-report", "local", "Chen et al. 2020", 2, 3),
    "CUCB-DP": _PrivateDesign(K.CUCB_DP, "per-arm", "central", "Chen et al. 2020", 3, 7),
}


def _private_policy(name, epsilon, horizon=None) -> Policy:
    """The private policy ``name`` at ``epsilon``, its claim read from :data:`_PRIVATE_DESIGNS`.

    ``horizon`` None means "the simulated horizon".
    """
    design = _PRIVATE_DESIGNS[name]
    eps = check_epsilon(epsilon)
    source = f"{design.paper}, Theorem {design.theorem}"
    stated = None
    if design.stated_multiple is not None:
        source += f" (states {design.stated_multiple}*eps)"
        stated = design.stated_multiple * eps
    claim = PrivacyClaim(eps, neighbouring=NEIGHBOURS, source=source, model=design.model, stated_epsilon=stated)
    reference = f"{design.paper}, Algorithm {design.algorithm}"
    known_horizon = None if horizon is None else check_horizon(horizon)
    return Policy(name, design.code, eps, design.budget_split, claim, reference, known_horizon)


def omm() -> Policy:
    """OMM (Kveton et al. 2014; Tao et al. 2025's baseline): UCB1 indices, greedy basis. Not private.

    References
    ----------
    .. [1] B. Kveton, Z. Wen, A. Ashkan, H. Eydgahi, B. Eriksson, "Matroid Bandits: Fast
       Combinatorial Optimization with Learning", UAI 2014.
    """
    return Policy("OMM", K.OMM, None, "none", None, "Kveton et al. 2014 (Tao et al. 2025, Sec. 5)")


def dp_omm(epsilon) -> Policy:
    """DP-OMM (Tao et al. 2025, Algorithm 1; Theorem 1: eps-DP in the central model).

    References
    ----------
    .. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network
       Topology Optimization", ACM MobiArch workshop, 2025. Algorithm 1 and Theorem 1.
    """
    return _private_policy("DP-OMM", epsilon)


def ldp_omm(epsilon) -> Policy:
    """LDP-OMM (Tao et al. 2025, Algorithm 2; Theorem 2: eps-LDP; each report x + Lap(K/eps)).

    References
    ----------
    .. [1] Y. Tao, K. Li, et al., "Differentially Private Matroid Bandits for Online Network
       Topology Optimization", ACM MobiArch workshop, 2025. Algorithm 2 and Theorem 2.
    """
    return _private_policy("LDP-OMM", epsilon)


def dpucb_mat(epsilon) -> Policy:
    """DPUCB-MAT (Chandak 2023, Algorithm 2) with epsilon0 = eps/K.

    The thesis' Theorem 8 claims 2*eps (its proof bounds the sensitivity by
    2K, counting the access times tau under w and w' separately). The access
    times are functions of the released noisy sums only, so they coincide and
    the sensitivity is K, giving eps; the claim carried here is eps and the
    audits test both (``claim.stated_epsilon`` = 2 eps).

    References
    ----------
    .. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
       Optimization", MSc thesis, University of Alberta, 2023. Algorithm 2 and Theorem 8.
    """
    return _private_policy("DPUCB-MAT", epsilon)


def dpts_mat(epsilon) -> Policy:
    """DPTS-MAT (Chandak 2023, Algorithm 5) with epsilon0 = eps/K; Theorem 10 states 2*eps (see dpucb_mat).

    References
    ----------
    .. [1] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
       Optimization", MSc thesis, University of Alberta, 2023. Algorithm 5 and Theorem 10.
    """
    return _private_policy("DPTS-MAT", epsilon)


def cts() -> Policy:
    """CTS with Gaussian prior and likelihood (thesis Section 6.1 baseline). Not private.

    References
    ----------
    .. [1] S. Wang, W. Chen, "Thompson Sampling for Combinatorial Semi-Bandits", ICML 2018.
    .. [2] K. Chandak, "Differentially Private Algorithms for Efficient Online Matroid
       Optimization", MSc thesis, University of Alberta, 2023. Section 6.1 (CTS as a baseline).
    """
    return Policy("CTS", K.CTS, None, "none", None, "Wang & Chen 2018 (Chandak 2023, Sec. 6.1)")


def cucb() -> Policy:
    """CUCB (Chen et al. 2013; Chen et al. 2020's non-private baseline). Not private.

    Its radius ``sqrt(3 ln t / (2 T_e))`` uses the round t only, so it takes no horizon.

    References
    ----------
    .. [1] W. Chen, Y. Wang, Y. Yuan, "Combinatorial Multi-Armed Bandit: General Framework and
       Applications", ICML 2013.
    .. [2] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
       Combinatorial Semi-Bandits", ICML 2020, PMLR 119. (CUCB as a baseline).
    """
    return Policy(
        "CUCB",
        K.CUCB,
        None,
        "none",
        None,
        "Chen et al. 2013 (baseline of Chen et al. 2020)",
    )


def cucb_ldp1(epsilon, horizon=None) -> Policy:
    """CUCB-LDP1 (Chen et al. 2020, Algorithm 1; Theorem 1: eps-LDP): every played arm reports x + Lap(K/eps).

    References
    ----------
    .. [1] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
       Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 1 and Theorem 1.
    """
    return _private_policy("CUCB-LDP1", epsilon, horizon)


def cucb_ldp2(epsilon, horizon=None) -> Policy:
    """CUCB-LDP2 (Chen et al. 2020, Algorithm 2; Theorem 3: eps-LDP): the least-observed arm reports x + Lap(1/eps).

    References
    ----------
    .. [1] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
       Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 2 and Theorem 3.
    """
    return _private_policy("CUCB-LDP2", epsilon, horizon)


def cucb_dp(epsilon, horizon=None) -> Policy:
    """CUCB-DP (Chen et al. 2020, Algorithm 3; Theorem 7: eps-DP): tree-based aggregation over rounds.

    References
    ----------
    .. [1] X. Chen, K. Zheng, Z. Zhou, Y. Yang, W. Chen, L. Wang, "(Locally) Differentially Private
       Combinatorial Semi-Bandits", ICML 2020, PMLR 119. Algorithm 3 and Theorem 7.
    """
    return _private_policy("CUCB-DP", epsilon, horizon)


#: name -> factory(epsilon) (non-private factories ignore epsilon).
POLICY_FACTORIES = {
    "OMM": lambda eps=None: omm(),
    "DP-OMM": dp_omm,
    "LDP-OMM": ldp_omm,
    "DPUCB-MAT": dpucb_mat,
    "DPTS-MAT": dpts_mat,
    "CTS": lambda eps=None: cts(),
    "CUCB": lambda eps=None: cucb(),
    "CUCB-LDP1": cucb_ldp1,
    "CUCB-LDP2": cucb_ldp2,
    "CUCB-DP": cucb_dp,
}
PRIVATE_POLICY_FACTORIES = {k: v for k, v in POLICY_FACTORIES.items() if k not in ("OMM", "CTS", "CUCB")}
