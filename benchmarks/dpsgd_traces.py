"""DP-SGD canary traces (dpverify.mechanisms.dpsgd) against dp_accounting's Poisson claim, and their speed.

As an asv benchmark: ``time_sample`` times ``sample`` of each sampler at T = 10 and 100;
``track_poisson_ratio`` records the Poisson trace's certified epsilon over dp_accounting's PLD
epsilon at delta 1e-5 (sigma 1, q 0.1, T 10, 1e5 samples, threshold events), and
``track_poisson_ratio_declared`` the same on the trace's declared score (the ``"declared-score"``
family, :mod:`dpverify.events.declared`).

As a script (needs ``pip install 'dpverify[accountants]'``)::

    python benchmarks/dpsgd_traces.py [--samples 1000000]
    python benchmarks/dpsgd_traces.py --families threshold declared-score --seeds 1 2 3 4 5 [--setting 2 0.1 100]
    python benchmarks/dpsgd_traces.py --gap [--seeds 1] [--pairs-only]

The first prints the Poisson ratio and the shuffled trace's certified epsilon against the Poisson claim
(sigma 0.8, q 0.1, T 20, replace-one); the second the Poisson ratio per event family and seed at a
setting (sigma, q, T; default 1, 0.1, 10), with the ceiling of the audit's confidence bound at that
size (:func:`ceiling`); the third the shuffled and without-replacement traces in Chua et al.'s worst case
against the Poisson figure beside the Poisson trace, and each sampler's pair epsilon (:func:`print_gap`;
``--pairs-only`` the pairs alone): the rows of docs/auditor/benchmarks.md's DP-SGD section.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import NamedTuple

import numpy as np

import dpverify
from dpverify.mechanisms import CANARY_TRACES, PoissonCanaryTrace, ShuffledCanaryTrace

N, B = 1000, 100


def poisson_ratio(n_samples: int, families=("threshold",), seed: int = 1, setting=(1.0, B / N, 10)) -> tuple:
    """(certified, PLD epsilon) of the Poisson trace at ``setting`` (sigma, q, T; n = 1000), delta 1e-5,
    alpha 0.05 (``families`` None: the default families)."""
    from dpverify.extras.accountants import dp_accounting_pld_claim

    sigma, q, steps = setting
    claim = dp_accounting_pld_claim(sigma, q, steps, 1e-5)
    m = PoissonCanaryTrace(sigma, steps, N, round(q * N), claim=claim)
    result = dpverify.audit(m, *m.pair, n_samples=n_samples, seed=seed, alpha=0.05, event_families=families)
    return result.claim_lower_bound, claim.epsilon


def ceiling(
    n_samples: int, setting=(1.0, B / N, 10), delta: float = 1e-5, alpha: float = 0.05, draws=2_000_000, seed: int = 0
):
    """The most an audit of one event on ``n_samples`` samples per input can certify of the Poisson trace at
    ``setting``: ``max_t`` of the Clopper-Pearson bound ``ln((p_lo - delta) / q_hi)`` at level ``alpha``,
    evaluated at the expected counts ``n p(t)``, ``n q(t)`` of the best events, the likelihood-ratio
    level sets ``{L >= t}`` (Neyman and Pearson; ``L`` the trace's declared score, its exact log likelihood
    ratio, tested against the mixture densities). ``p(t) = P_x[L >= t]`` is estimated from ``draws``
    traces of M(x) and ``q(t) = P_x'[L >= t] = E_x[exp(-L) 1{L >= t}]`` from the same traces by importance
    weighting (from ``seed``). An audit that also selects (a tenth of the samples) and certifies up to
    three events at ``alpha / 3`` each can expect a little less: ``ceiling(0.9 n, alpha=alpha / 3)``."""
    from dpverify.support.bounds import clopper_pearson_epsilon_bound

    sigma, q, steps = setting
    m = PoissonCanaryTrace(sigma, steps, N, round(q * N))
    rng = np.random.default_rng(seed)
    llr = np.sort(
        np.concatenate([m.audit_score(m.sample(m.clip, 500_000, rng), *m.pair) for _ in range(draws // 500_000)])
    )
    tail_q = np.cumsum(np.exp(-llr)[::-1])[::-1] / llr.size
    ranks = np.unique((llr.size * (1 - np.logspace(-7, -0.3, 400))).astype(np.int64))
    p, q_ = (llr.size - ranks) / llr.size, tail_q[ranks]
    return float(
        np.max(clopper_pearson_epsilon_bound(n_samples * p, n_samples, n_samples * q_, n_samples, alpha, delta))
    )


def shuffle_against_poisson(n_samples: int, delta: float, alpha: float, seed: int = 1):
    """The shuffled replace-one trace (sigma 0.8, T 20) against the Poisson add/remove PLD epsilon at ``delta``,
    restated as a replace-one claim (as fixed-size-batch code reports it)."""
    from dpverify.extras.accountants import dp_accounting_pld_claim

    reported = dp_accounting_pld_claim(0.8, B / N, 20, delta)
    claim = reported.with_meta(neighbouring="replace-one record: the accountant's add/remove figure as reported")
    m = ShuffledCanaryTrace(0.8, 20, N, B, neighbouring="replace-one", claim=claim)
    return dpverify.audit(
        m, *m.pair, n_samples=n_samples, seed=seed, alpha=alpha, event_families=("threshold",)
    ), claim.epsilon


def sampler_gap(sampler: str, sigma: float, steps_per_epoch: int, epochs: int, delta: float, n_samples: int, seed=1):
    """(audit result, PLD epsilon): the trace of ``sampler`` in Chua et al.'s worst case for fixed-size batches
    (zero-out: the canary's gradient 1 against 0, the other records' gradient -1; the Poisson trace at its own
    worst case, the others at 0) against dp_accounting's Poisson add/remove epsilon at the same ``sigma``,
    ``q = 1 / k`` and ``T = k * epochs`` (exact for the Poisson trace under zero-out), threshold events,
    alpha 1e-6; ``n = 100 k``, ``b = 100``."""
    from dpverify.extras.accountants import dp_accounting_pld_claim

    steps = steps_per_epoch * epochs
    reported = dp_accounting_pld_claim(sigma, 1 / steps_per_epoch, steps, delta)
    claim = reported.with_meta(neighbouring="replace-one record by one of gradient 0 (zero-out): the Poisson figure")
    others = 0.0 if sampler == "poisson" else -1.0
    m = CANARY_TRACES[sampler](
        sigma, steps, steps_per_epoch * B, B, neighbouring="replace-one", replacement=0.0, others=others, claim=claim
    )
    result = dpverify.audit(m, *m.pair, n_samples=n_samples, seed=seed, alpha=1e-6, event_families=("threshold",))
    return result, reported.epsilon


#: (sigma, batches per epoch k, epochs, delta, samples per input) of ``--gap``'s rows.
GAP_SETTINGS = (
    (0.5, 10, 1, 1e-2, 100_000),
    (0.5, 100, 1, 1e-2, 100_000),
    (0.6, 100, 1, 1e-2, 100_000),
    (0.7, 100, 1, 1e-2, 20_000),
    (0.7, 100, 1, 1e-2, 100_000),
    (0.8, 100, 1, 1e-2, 100_000),
    (1.0, 100, 1, 1e-2, 100_000),
    (0.7, 100, 2, 1e-2, 100_000),
    (0.7, 100, 1, 1e-5, 1_000_000),
)


def pair_epsilons(sigma: float, k: int, epochs: int, delta: float, draws: int = 1_000_000, seed: int = 0) -> dict:
    """The epsilon at ``delta`` of each fixed-size sampler's pair in Chua et al.'s worst case (``others=-1``):
    ``"shuffle"`` (:func:`shuffle_epsilon`, with its standard error) and ``"without replacement per step"``
    (:func:`without_replacement_epsilon`, its bounds above and below)."""
    return {
        "shuffle": shuffle_epsilon(sigma, k, delta, draws=draws, seed=seed, others=-1.0, epochs=epochs),
        "without replacement per step": without_replacement_epsilon(sigma, k, k * epochs, delta, others=-1.0),
    }


def print_pairs(sigma: float, k: int, epochs: int, delta: float, draws: int = 1_000_000) -> dict:
    """Print and return :func:`pair_epsilons` at a setting, beside the Gaussian mechanism of shift C in each
    epoch (no sampling), with the CPU seconds they took."""
    start = time.process_time()
    pairs = pair_epsilons(sigma, k, epochs, delta, draws)
    shuffled, (above, below) = pairs["shuffle"], pairs["without replacement per step"]
    print(
        f"sigma {sigma:g}, k {k}, {epochs} epoch(s), delta {delta:g}: shuffled pair {shuffled.epsilon:.3f} "
        f"(s.e. {shuffled.std_error:.3f}), without-replacement pair in [{below:.3f}, {above:.3f}], Gaussian "
        f"{_gaussian_epsilon(math.sqrt(epochs) / sigma, delta):.3f} ({time.process_time() - start:.1f} CPU s)",
        flush=True,
    )
    return pairs


def print_gap(seed: int = 1, draws: int = 1_000_000, audits: bool = True) -> None:
    """One row per setting of :data:`GAP_SETTINGS` and sampler: the Poisson figure, the sampler's pair epsilon
    (:func:`print_pairs`), and unless ``audits`` is false each trace's certified epsilon and CPU seconds, and
    whether the certified value stays below the pair's epsilon (above it would be an invalid lower bound)."""
    for sigma, k, epochs, delta, n in GAP_SETTINGS:
        pairs = print_pairs(sigma, k, epochs, delta, draws)
        if not audits:
            continue
        shuffled, (above, _) = pairs["shuffle"], pairs["without replacement per step"]
        ceilings = {"shuffle": shuffled.epsilon + 4 * shuffled.std_error, "without replacement per step": above}
        for sampler in ("shuffle", "without replacement per step", "poisson"):
            start = time.process_time()
            result, claimed = sampler_gap(sampler, sigma, k, epochs, delta, n, seed)
            cpu = time.process_time() - start
            certified = result.claim_lower_bound
            below_pair = "" if sampler == "poisson" else f", below its pair: {certified <= ceilings[sampler]}"
            print(
                f"  {n:g} samples, {sampler}: Poisson PLD {claimed:.3f}, certified {certified:.3f}, violation "
                f"{result.violation}{below_pair} ({cpu:.1f} CPU s)",
                flush=True,
            )


class TimeSample:
    params = (sorted(CANARY_TRACES), [10, 100], ["sum", "realised"])
    param_names = ("sampler", "steps", "normalisation")

    def setup(self, sampler, steps, normalisation):
        self.trace = CANARY_TRACES[sampler](1.0, steps, N, B, normalisation=normalisation)
        self.rng = np.random.default_rng(0)

    def time_sample(self, sampler, steps, normalisation):
        self.trace.sample(1.0, 10_000, self.rng)


class PairEpsilon(NamedTuple):
    """The epsilon at delta of a canary trace's pair, and the Monte Carlo standard error of it (0 when exact)."""

    epsilon: float
    std_error: float


def _shifts(others: float) -> tuple[float, float]:
    """How far the canary's batch moves on ``x`` and on ``x'`` (C = 1): ``1 - c`` and ``-c`` (zero-out, or
    add/remove at ``c = 0``)."""
    return 1.0 - others, -others


def _shuffled_losses(sigma, k, epochs, shift, shift_prime, tilt, draws, rng, chunk_elements=1 << 22):
    """Privacy losses of ``draws`` shuffled traces of the input whose batch moves by ``shift``, drawn with the
    noise tilted by ``tilt`` (the canary's coordinate, the others'), and the importance weights' logs.

    By the symmetry of the batches the canary sits in the first of each epoch's ``k``; the noise of a
    coordinate is drawn ``N(theta, sigma^2)`` instead of ``N(0, sigma^2)``, which the log weight ``sum
    (theta^2 - 2 theta z) / (2 sigma^2)`` over the coordinates undoes. Returns ``(L, log w, zc, zo)``, the last
    two the mean noise of the canary's and of the other coordinates per trace (for the tilt's update); the
    traces are drawn in chunks of about ``chunk_elements`` normals, so memory holds four floats per trace."""
    from scipy.special import logsumexp

    theta = np.full(k, tilt[1])
    theta[0] = tilt[0]
    rows = max(1, chunk_elements // (k * epochs))
    out = np.empty((4, draws))
    for start in range(0, draws, rows):
        n = min(rows, draws - start)
        z = rng.normal(scale=sigma, size=(n, epochs, k)) + theta
        log_w = ((theta**2 - 2.0 * theta * z) / (2 * sigma**2)).sum(axis=(1, 2))
        y = z.copy()
        y[:, :, 0] += shift
        loss = logsumexp((2 * y - shift) * shift / (2 * sigma**2), axis=2) - logsumexp(
            (2 * y - shift_prime) * shift_prime / (2 * sigma**2), axis=2
        )
        others = z[:, :, 1:].mean(axis=(1, 2)) if k > 1 else np.zeros(n)
        out[:, start : start + n] = loss.sum(axis=1), log_w, z[:, :, 0].mean(axis=1), others
    return out


def _epsilon_of_losses(loss, log_w, delta):
    """``(eps, its standard error)`` solving ``mean(w (1 - exp(eps - L))_+) = delta`` for ``eps >= 0`` (0 when
    even ``eps = 0`` leaves less than ``delta``); the error by the delta method, the estimate's standard error
    over the slope ``mean(w exp(eps - L) 1{L > eps})``."""
    from scipy.optimize import brentq

    size = loss.size
    keep = loss > 0
    loss, log_w = loss[keep], log_w[keep]

    def excess(eps):
        return float(np.sum(_hockey_terms(eps, loss, log_w))) / size - delta

    eps = brentq(excess, 0.0, float(loss.max(initial=0.0)) + 1.0, xtol=1e-10) if excess(0.0) > 0 else 0.0
    terms = _hockey_terms(eps, loss, log_w)
    spread = math.sqrt(max(0.0, float(np.sum(terms**2)) / size - (float(np.sum(terms)) / size) ** 2) / size)
    above = loss > eps
    slope = float(np.sum(np.exp(log_w[above] + eps - loss[above]))) / size
    return eps, (spread / slope if slope > 0 else math.inf)


def _hockey_terms(eps, loss, log_w):
    """``w (1 - exp(eps - L))_+`` per trace."""
    return np.where(loss > eps, np.exp(log_w) * -np.expm1(np.minimum(eps - loss, 0.0)), 0.0)


def _gaussian_epsilon(mu: float, delta: float) -> float:
    """The epsilon at ``delta`` of the ``mu``-Gaussian mechanism: ``delta(eps) = Phi(mu / 2 - eps / mu) - e^eps
    Phi(-mu / 2 - eps / mu)`` solved for ``eps``.

    References
    ----------
    B. Balle and Y.-X. Wang, "Improving the Gaussian Mechanism for Differential Privacy: Analytical
    Calibration and Optimal Denoising", ICML 2018, Theorem 8.
    """
    from scipy.optimize import brentq
    from scipy.stats import norm

    def excess(eps):
        return norm.cdf(mu / 2 - eps / mu) - math.exp(eps) * norm.cdf(-mu / 2 - eps / mu) - delta

    return brentq(excess, 0.0, mu * mu / 2 + 40 * mu + 1) if excess(0.0) > 0 else 0.0


def _shuffled_direction(sigma, k, epochs, delta, shift, shift_prime, draws, rng, importance):
    """One direction of :func:`shuffle_epsilon`: the pilot rounds that set the tilt, then the estimate."""
    tilt = np.zeros(2)
    if importance:  # start where a Gaussian mechanism of the batch's shift reaches its epsilon
        gap = shift - shift_prime
        target = _gaussian_epsilon(abs(gap) * math.sqrt(epochs) / sigma, delta) / epochs
        tilt[0] = (target - gap**2 / (2 * sigma**2)) * sigma**2 / gap
        for _ in range(2):  # cross-entropy: the tilt that the losses past the estimate favour
            loss, log_w, canary, others = _shuffled_losses(
                sigma, k, epochs, shift, shift_prime, tilt, max(5_000, draws // 10), rng
            )
            eps, _ = _epsilon_of_losses(loss, log_w, delta)
            weight = _hockey_terms(eps, loss, log_w)
            if weight.sum() > 0:
                tilt = np.array([np.average(canary, weights=weight), np.average(others, weights=weight)])
    loss, log_w, _, _ = _shuffled_losses(sigma, k, epochs, shift, shift_prime, tilt, draws, rng)
    return _epsilon_of_losses(loss, log_w, delta)


def shuffle_epsilon(
    sigma: float,
    steps_per_epoch: int,
    delta: float,
    draws: int = 400_000,
    seed: int = 0,
    others: float = 0.0,
    epochs: int = 1,
    importance: bool = True,
) -> PairEpsilon:
    """The epsilon at ``delta`` of ``epochs`` epochs of the shuffled trace's pair (``n = k b``, C = 1), by Monte Carlo.

    Each epoch the canary is in exactly one of the ``k`` steps, uniformly and independently across epochs.
    With the other records' gradient ``c`` (``others``) the canary's batch moves by ``a = 1 - c`` on ``x``
    and by ``a' = -c`` on ``x'`` (zero-out, or add/remove at ``c = 0``), so the log likelihood ratio of a
    trace ``y`` is the sum over epochs ``e`` of ``log sum_t exp((2 y_et a - a^2) / (2 sigma^2)) - log sum_t
    exp((2 y_et a' - a'^2) / (2 sigma^2))``, and ``delta(eps) = E_x[(1 - exp(eps - L))_+]``, solved for
    ``eps`` on ``draws`` traces of ``x``; the same with the roles swapped gives the direction ``x'``
    against ``x``, and the result is the larger (an audit tries both). With ``importance`` the traces are
    drawn with the canary's and the other coordinates' noise shifted (exponential tilting), the shifts set
    by two cross-entropy rounds of ``draws / 10`` traces each, and weighted back, so a delta of 1e-5 is
    resolved; without it, plain Monte Carlo. The standard error is the estimate's, by the delta method
    (:func:`_epsilon_of_losses`). At ``c = -1`` this is the pair of Chua et al.'s lower bounds for
    shuffling, one epoch (ICML 2024) and several (NeurIPS 2024).

    References
    ----------
    L. Chua, B. Ghazi, P. Kamath, R. Kumar, P. Manurangsi, A. Sinha and C. Zhang, "How Private are DP-SGD
    Implementations?", ICML 2024; "Scalable DP-SGD: Shuffling vs. Poisson Subsampling", NeurIPS 2024.
    R. Y. Rubinstein and D. P. Kroese, "The Cross-Entropy Method", Springer 2004 (the tilt's update).
    """
    rng = np.random.default_rng(seed)
    shift, shift_prime = _shifts(others)
    directions = [
        _shuffled_direction(sigma, steps_per_epoch, epochs, delta, a, b, draws, rng, importance)
        for a, b in ((shift, shift_prime), (shift_prime, shift))
    ]
    return PairEpsilon(*max(directions))


def _composed_epsilon(loss_max, loss_min, masses, compositions, delta, interval=1e-4):
    """(pessimistic, optimistic) epsilon at ``delta`` of ``compositions`` independent copies of a pair whose
    privacy loss under its first input lies in ``[loss_min, loss_max]`` on cells of probability ``masses``
    (the mass the cells miss counted as infinite loss, or dropped), by dp_accounting's privacy loss
    distributions: each bound rounds the losses outwards to ``interval``, so the pair's epsilon lies
    between the two (up to dp_accounting's own truncation, below 1e-15)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    bounds = []
    for loss, rounding, missing in ((loss_max, np.ceil, max(0.0, 1.0 - masses.sum())), (loss_min, np.floor, 0.0)):
        index = rounding(loss / interval).astype(np.int64)
        low = int(index.min())
        pmf = np.bincount(index - low, weights=masses)
        mapping = {low + int(i): float(pmf[i]) for i in np.flatnonzero(pmf > 0)}
        dist = pld.PrivacyLossDistribution.create_from_rounded_probability(
            mapping, missing, interval, pessimistic_estimate=rounding is np.ceil
        )
        bounds.append(max(0.0, float(dist.self_compose(compositions).get_epsilon_for_delta(delta))))
    return tuple(bounds)


def without_replacement_epsilon(
    sigma: float, steps_per_epoch: int, steps: int, delta: float, others: float = 0.0, step=5e-4
) -> tuple[float, float]:
    """Bounds (above, below) on the epsilon at ``delta`` of the pair of the trace without replacement per step.

    Each of the ``steps`` steps holds the canary with probability ``q = 1 / k`` independently (``n = k b``),
    its batch moving by ``a = 1 - c`` on ``x`` and ``a' = -c`` on ``x'``: the pair is the ``steps``-fold
    composition of ``(1 - q) N(0, sigma^2) + q N(a, sigma^2)`` against the same at ``a'``. The loss of one
    step is integrated on a grid of cells of width ``step`` over ``a`` and ``a'`` plus and minus 12 sigma (its
    least and most over each cell's ends, exact where the loss is monotone on the cell; at the loss's one
    turning point the ends miss its extreme by ``O(step^2)``, about 1e-7 at the default, far below the
    rounding to 1e-4) and composed by :func:`_composed_epsilon`, both directions, the larger of each bound
    returned."""
    from scipy.stats import norm

    shift, shift_prime = _shifts(others)
    q = 1.0 / steps_per_epoch
    edges = np.arange(min(0.0, shift, shift_prime) - 12 * sigma, max(0.0, shift, shift_prime) + 12 * sigma, step)
    mixture = {a: (1 - q) * norm.cdf(edges / sigma) + q * norm.cdf((edges - a) / sigma) for a in (shift, shift_prime)}
    with np.errstate(divide="ignore"):  # q = 1: every step holds the canary
        log_density = {
            a: np.logaddexp(np.log1p(-q), math.log(q) + (2 * edges * a - a * a) / (2 * sigma**2))
            for a in (shift, shift_prime)
        }
    bounds = []
    for a, b in ((shift, shift_prime), (shift_prime, shift)):
        loss = log_density[a] - log_density[b]
        masses = np.diff(mixture[a])
        ends = np.stack([loss[:-1], loss[1:]])
        bounds.append(_composed_epsilon(ends.max(axis=0), ends.min(axis=0), masses, steps, delta))
    return max(b[0] for b in bounds), max(b[1] for b in bounds)


def track_poisson_ratio():
    certified, claimed = poisson_ratio(100_000)
    return certified / claimed


def track_poisson_ratio_declared():
    certified, claimed = poisson_ratio(100_000, families=("declared-score",))
    return certified / claimed


def by_family(n: int, families, seeds, setting) -> None:
    """Print the Poisson ratio of each family set (``"default"``: the default families) at each seed."""
    from dpverify.events import default_families

    for name in families:
        chosen = {"default": None, "default-before": tuple(f for f in default_families() if f != "declared-score")}
        for seed in seeds:
            start = time.process_time()
            certified, claimed = poisson_ratio(n, chosen.get(name, (name,)), seed, setting)
            cpu = time.process_time() - start
            print(
                f"sigma {setting[0]:g}, q {setting[1]:g}, T {setting[2]}, {name}, seed {seed}: certified "
                f"{certified:.4f} / PLD {claimed:.4f} = {certified / claimed:.3f} ({cpu:.1f} CPU s)"
            )
    for size, level in ((n, 0.05), (0.9 * n, 0.05 / 3)):
        print(f"ceiling at {size:g} samples, alpha {level:.3g}: {ceiling(int(size), setting, alpha=level):.4f}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=float, default=1e6)
    parser.add_argument("--families", nargs="*", help="family sets to compare ('default', 'default-before', names)")
    parser.add_argument("--seeds", nargs="*", type=int, default=[1])
    parser.add_argument("--gap", action="store_true", help="the samplers' gap in Chua et al.'s worst case")
    parser.add_argument("--pairs-only", action="store_true", help="with --gap: the pairs' epsilons, no audits")
    parser.add_argument("--setting", nargs=3, type=float, default=[1.0, 0.1, 10], metavar=("SIGMA", "Q", "T"))
    args = parser.parse_args(argv)
    n = int(args.samples)
    if args.gap:
        print_gap(args.seeds[0], audits=not args.pairs_only)
        return
    if args.families:
        by_family(n, args.families, args.seeds, (args.setting[0], args.setting[1], int(args.setting[2])))
        return
    start = time.process_time()
    certified, claimed = poisson_ratio(n)
    print(f"Poisson, sigma 1, q 0.1, T 10: certified {certified:.4f} / PLD {claimed:.4f} = {certified / claimed:.3f}")
    for delta, alpha in ((0.05, 1e-6), (1e-2, 1e-6), (1e-5, 0.05)):
        result, claimed = shuffle_against_poisson(n, delta, alpha)
        print(
            f"shuffled replace-one, sigma 0.8, T 20, delta {delta:g}: certified {result.claim_lower_bound:.4f} "
            f"vs Poisson PLD {claimed:.4f}, violation {result.violation} (alpha {alpha:g})"
        )
    print(f"{time.process_time() - start:.1f} CPU s")


if __name__ == "__main__":
    main()
