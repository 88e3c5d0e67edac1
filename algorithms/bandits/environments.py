"""Stochastic environments of the matroid-bandit experiments (Tao et al. 2025; Chandak 2023; Chen et al. 2020).

An environment gives every base arm ``e`` a reward distribution on [0, 1] with
mean ``means[e]``; rewards are independent across arms and rounds (semi-bandit
feedback: a round reveals the rewards of the played arms only). Three kinds:

``BernoulliEnvironment``
    ``x_e(t) ~ Bernoulli(mu_e)`` (Chandak 2023, Section 6.1.1).
``LatencyEnvironment``
    The RocketFuel latency model of Tao et al. 2025, Section 5: the latency of link
    ``e`` at round ``t`` is ``ell_e(t) = mu_e - 1 + Exp(1)`` (mean ``mu_e``, the
    dataset latency). **Choice** (Tao et al. 2025 do not say how latencies become
    rewards in [0, 1], which their privacy and confidence formulas need):
    ``reward = 1 - min(ell / L_max, 1)`` with ``L_max = max_e mu_e + 4`` ms
    by default. Properties of this map, all checked in the tests:

    * rewards lie in [0, 1] (latencies are >= 0 because ``mu_e >= 1``);
    * clipping happens only when ``Exp(1) > L_max - mu_e + 1``, with
      probability ``exp(-(L_max - mu_e + 1)) <= exp(-5) = 0.0067`` (at the
      slowest link; far less elsewhere);
    * the exact mean reward is
      ``1 - (mu_e - exp(-(L_max - mu_e + 1))) / L_max``, which is strictly
      decreasing in ``mu_e``, so the max-reward basis is exactly the
      min-expected-latency spanning tree (forest) and the clipping changes
      each mean by at most ``exp(-5) / L_max``;
    * regret in reward units times ``L_max`` is regret in (clipped) ms.
``TableEnvironment``
    A fixed reward table ``(rounds, m)``: round ``t`` reveals ``table[t - 1, e]``
    for the played ``e``. This is the *data* of the privacy definitions
    (Tao et al. 2025, Definition 1; Chandak 2023, Definition 9): neighbouring tables differ
    in one round. Values outside [0, 1] raise
    :class:`~algorithms.errors.InvalidRewardError` unless ``clip=True`` asks
    for the documented clipping into [0, 1].

The linear-matroid instance of the thesis (Table 6.1) is
:func:`thesis_table61_instance`; the RocketFuel instances are
:func:`rocketfuel_instance`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from algorithms.bandits._kernels import ENV_BERNOULLI, ENV_LATENCY, ENV_TABLE
from algorithms.errors import InvalidRewardError, InvalidWeightsError

__all__ = [
    "ENV_BERNOULLI",
    "ENV_LATENCY",
    "ENV_TABLE",
    "BernoulliEnvironment",
    "LatencyEnvironment",
    "TableEnvironment",
    "BanditInstance",
    "DEFAULT_LATENCY_MARGIN",
    "latency_reward_means",
    "thesis_table61_instance",
    "THESIS_TABLE61_VECTORS",
    "THESIS_TABLE61_MEANS",
    "rocketfuel_instance",
]


#: Default ``L_max - max_e mu_e`` (ms) of the latency-to-reward map (a **choice**).
DEFAULT_LATENCY_MARGIN = 4.0

#: Chandak's thesis (2023) Table 6.1: seven vectors in R^3 (from Neel et al. 2009).
THESIS_TABLE61_VECTORS = np.array(
    [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 1], [0, 1, 1], [2, 0, 0], [0, 0, 0]], dtype=np.float64
)
#: Chandak's thesis (2023) Table 6.1: Bernoulli means of e1..e7; the optimal basis is {e1, e2, e3}.
THESIS_TABLE61_MEANS = np.array([0.80, 0.75, 0.60, 0.20, 0.30, 0.40, 0.70], dtype=np.float64)


def _check_unit_interval(values, what):
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise InvalidRewardError(f"{what} must be a non-empty 1-D array, got shape {values.shape}")
    bad = ~np.isfinite(values) | (values < 0) | (values > 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InvalidRewardError(
            f"{what} must lie in [0, 1] (rewards are bounded in [0, 1], Tao et al. 2025, Section 2); "
            f"entry {i} is {values[i]!r}"
        )
    return values


@dataclass(frozen=True)
class BernoulliEnvironment:
    """Independent Bernoulli arms: ``x_e(t) ~ Bernoulli(means[e])`` (Chandak 2023, Section 6.1.1).

    Parameters
    ----------
    means : array_like of float, shape (m,)
        Means in [0, 1]; otherwise :class:`~algorithms.errors.InvalidRewardError`.
    """

    means: np.ndarray

    def __post_init__(self):
        object.__setattr__(self, "means", _check_unit_interval(self.means, "Bernoulli means"))

    kind = ENV_BERNOULLI

    @property
    def n_arms(self) -> int:
        return int(self.means.size)

    def kernel_parameters(self):
        """``(kind, arm parameters (m,), scalar)`` for the compiled simulator."""
        return ENV_BERNOULLI, self.means, 0.0

    def sample(self, rounds: int, rng=None) -> np.ndarray:
        """A ``(rounds, m)`` table of rewards of every arm in every round."""
        rng = np.random.default_rng(rng)
        return (rng.random((int(rounds), self.n_arms)) < self.means).astype(np.float64)


def latency_reward_means(latencies, latency_cap):
    """Exact mean of ``1 - min((mu - 1 + Exp(1)) / L, 1)`` for each ``mu`` (>= 1, <= L + 1).

    ``E[min(c + E, L)] = c + 1 - exp(-(L - c))`` for ``c = mu - 1 <= L`` and
    ``E ~ Exp(1)``, so the mean reward is ``1 - (mu - exp(-(L - mu + 1))) / L``.
    """
    mu = np.asarray(latencies, dtype=np.float64)
    cap = float(latency_cap)
    return 1.0 - (mu - np.exp(-(cap - mu + 1.0))) / cap


@dataclass(frozen=True)
class LatencyEnvironment:
    """Tao et al. 2025's latency model mapped into [0, 1] rewards (module docstring: the **choice**).

    Parameters
    ----------
    latencies : array_like of float, shape (m,)
        Mean latencies ``mu_e >= 1`` (ms); latency at round t is ``mu_e - 1 + Exp(1)``.
    latency_cap : float, optional
        ``L_max``; default ``max(mu) + DEFAULT_LATENCY_MARGIN``. Must exceed
        ``max(mu) - 1`` so that every mean is informative.
    """

    latencies: np.ndarray
    latency_cap: float | None = None
    means: np.ndarray = field(init=False, repr=False)

    kind = ENV_LATENCY

    def __post_init__(self):
        mu = np.asarray(self.latencies, dtype=np.float64)
        if mu.ndim != 1 or mu.size == 0 or not np.all(np.isfinite(mu)) or np.any(mu < 1):
            raise InvalidWeightsError(
                "latencies must be a non-empty 1-D array of finite values >= 1 ms "
                "(the model mu - 1 + Exp(1) needs mu >= 1)"
            )
        cap = float(mu.max() + DEFAULT_LATENCY_MARGIN) if self.latency_cap is None else float(self.latency_cap)
        if not np.isfinite(cap) or cap <= mu.max() - 1 + 1e-9 or cap <= 0:
            raise InvalidWeightsError(f"latency_cap L_max={cap} must be finite and exceed max(mu) - 1 = {mu.max() - 1}")
        object.__setattr__(self, "latencies", mu)
        object.__setattr__(self, "latency_cap", cap)
        object.__setattr__(self, "means", latency_reward_means(mu, cap))

    @property
    def n_arms(self) -> int:
        return int(self.latencies.size)

    @property
    def clip_probabilities(self) -> np.ndarray:
        """``P[latency > L_max]`` per arm: ``exp(-(L_max - mu_e + 1))``."""
        return np.exp(-(self.latency_cap - self.latencies + 1.0))

    def kernel_parameters(self):
        return ENV_LATENCY, self.latencies, self.latency_cap

    def sample_latencies(self, rounds: int, rng=None) -> np.ndarray:
        """A ``(rounds, m)`` table of raw latencies ``mu_e - 1 + Exp(1)`` (ms)."""
        rng = np.random.default_rng(rng)
        return self.latencies - 1.0 + rng.standard_exponential((int(rounds), self.n_arms))

    def sample(self, rounds: int, rng=None) -> np.ndarray:
        """A ``(rounds, m)`` table of rewards ``1 - min(latency / L_max, 1)``."""
        return 1.0 - np.minimum(self.sample_latencies(rounds, rng) / self.latency_cap, 1.0)


@dataclass(frozen=True)
class TableEnvironment:
    """A fixed reward table: the bandit's *data* in the privacy definitions.

    Parameters
    ----------
    table : array_like of float, shape (rounds, m)
        ``table[t - 1, e]`` is revealed if arm ``e`` is played at round ``t``.
    clip : bool
        ``False`` (default): values outside [0, 1] raise InvalidRewardError.
        ``True``: values are clipped into [0, 1] (documented clipping; NaN still raises).
    """

    table: np.ndarray
    clip: bool = False
    means: np.ndarray = field(init=False, repr=False)

    kind = ENV_TABLE

    def __post_init__(self):
        table = np.asarray(self.table, dtype=np.float64)
        if table.ndim != 2 or table.shape[0] < 1 or table.shape[1] < 1:
            raise InvalidRewardError(f"a reward table must have shape (rounds >= 1, m >= 1), got {table.shape}")
        if np.isnan(table).any():
            raise InvalidRewardError("a reward table must not contain NaN")
        if self.clip:
            table = np.clip(table, 0.0, 1.0)
        else:
            bad = (table < 0) | (table > 1)
            if bad.any():
                t, e = map(int, np.argwhere(bad)[0])
                raise InvalidRewardError(
                    f"reward table entry (round {t + 1}, arm {e}) is {table[t, e]!r}; rewards must lie "
                    "in [0, 1] (pass clip=True to clip them into [0, 1])"
                )
        table = np.ascontiguousarray(table)
        table.setflags(write=False)
        object.__setattr__(self, "table", table)
        object.__setattr__(self, "means", table.mean(axis=0))

    @property
    def n_arms(self) -> int:
        return int(self.table.shape[1])

    @property
    def rounds(self) -> int:
        return int(self.table.shape[0])

    def kernel_parameters(self):
        return ENV_TABLE, self.means, 0.0


@dataclass(frozen=True)
class BanditInstance:
    """A matroid together with an environment on its ground set, plus a label."""

    name: str
    matroid: object
    environment: object


def thesis_table61_instance():
    """The linear matroid of Chandak's thesis (2023) Table 6.1 with its Bernoulli arms.

    Seven vectors in R^3, rank 3, optimal basis ``{e1, e2, e3}`` (arms 0, 1, 2);
    ``e7 = 0`` is a loop and ``e6 = 2 e1`` is parallel to ``e1``.
    """
    from algorithms.bandits._kernel_matroids import linear_matroid

    return BanditInstance(
        "thesis-table-6.1",
        linear_matroid(THESIS_TABLE61_VECTORS),
        BernoulliEnvironment(THESIS_TABLE61_MEANS),
    )


def rocketfuel_instance(name: str = "AS1755", path=None, latency_cap=None):
    """Tao et al. 2025's RocketFuel instance: graphic matroid of AS ``name`` with latency arms.

    The max-reward basis is the min-expected-latency spanning forest (AS1221
    is disconnected: rank 105; AS1755 is connected: rank 86).
    """
    from algorithms.bandits._kernel_matroids import graphic_matroid
    from algorithms.bandits.rocketfuel import load_rocketfuel

    net = load_rocketfuel(name, path=path)
    return BanditInstance(
        f"rocketfuel-{net.name}",
        graphic_matroid(net.edges, net.n_nodes),
        LatencyEnvironment(net.latencies, latency_cap),
    )
