"""DP-SGD canary traces (dpverify.mechanisms.dpsgd) against dp_accounting's Poisson claim, and their speed.

As an asv benchmark: ``time_sample`` times ``sample`` of each sampler at T = 10 and 100;
``track_poisson_ratio`` records the Poisson trace's certified epsilon over dp_accounting's PLD
epsilon at delta 1e-5 (sigma 1, q 0.1, T 10, 1e5 samples, threshold events), and
``track_poisson_ratio_declared`` the same on the trace's declared score (the ``"declared-score"``
family, :mod:`dpverify.events.declared`).

As a script (needs ``pip install 'dpverify[accountants]'``)::

    python benchmarks/dpsgd_traces.py [--samples 1000000]
    python benchmarks/dpsgd_traces.py --families threshold declared-score --seeds 1 2 3 4 5 [--setting 2 0.1 100]
    python benchmarks/dpsgd_traces.py --gap [--seeds 1]

The first prints the Poisson ratio and the shuffled trace's certified epsilon against the Poisson claim
(sigma 0.8, q 0.1, T 20, replace-one); the second the Poisson ratio per event family and seed at a
setting (sigma, q, T; default 1, 0.1, 10), with the ceiling of the audit's confidence bound at that
size (:func:`ceiling`); the third the shuffled and without-replacement traces in Chua et al.'s worst case
against the Poisson figure beside the Poisson trace (:func:`print_gap`): the rows of
docs/auditor/benchmarks.md's DP-SGD section.
"""

from __future__ import annotations

import argparse
import time

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


def print_gap(seed: int = 1) -> None:
    """One row per setting of :data:`GAP_SETTINGS` and sampler: the Poisson figure, the shuffled pair's epsilon
    (one epoch, :func:`shuffle_epsilon` at ``others=-1``), each trace's certified epsilon and CPU seconds."""
    for sigma, k, epochs, delta, n in GAP_SETTINGS:
        exact = shuffle_epsilon(sigma, k, delta, draws=200_000, others=-1.0) if epochs == 1 and delta >= 1e-3 else None
        for sampler in ("shuffle", "without replacement per step", "poisson"):
            start = time.process_time()
            result, claimed = sampler_gap(sampler, sigma, k, epochs, delta, n, seed)
            cpu = time.process_time() - start
            print(
                f"sigma {sigma:g}, k {k}, {epochs} epoch(s), delta {delta:g}, {n:g} samples, {sampler}: Poisson PLD "
                f"{claimed:.3f}, shuffled pair {'-' if exact is None else f'{exact:.2f}'}, certified "
                f"{result.claim_lower_bound:.3f}, violation {result.violation} ({cpu:.1f} CPU s)",
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


def shuffle_epsilon(
    sigma: float, steps_per_epoch: int, delta: float, draws: int = 400_000, seed: int = 0, others: float = 0.0
) -> float:
    """The epsilon at ``delta`` of one epoch of the shuffled trace (``n = k b``, C = 1), by Monte Carlo.

    The canary is in exactly one of the ``k`` steps, uniformly. With the other records' gradient ``c``
    (``others``) the canary's batch moves by ``a = 1 - c`` on ``x`` and by ``a' = -c`` on ``x'`` (zero-out,
    or add/remove at ``c = 0``), so the log likelihood ratio of a trace ``y`` is ``L = log sum_t exp((2 y_t a
    - a^2) / (2 sigma^2)) - log sum_t exp((2 y_t a' - a'^2) / (2 sigma^2))``, and ``delta(eps) = E_x[(1 -
    exp(eps - L))_+]`` is solved for ``eps`` on ``draws`` traces of ``x``. At ``c = -1`` this is the pair of
    Chua et al.'s lower bound for one epoch of shuffling (the direction ``x`` against ``x'``)."""
    from scipy.optimize import brentq
    from scipy.special import logsumexp

    rng = np.random.default_rng(seed)
    k, shift, shift_prime = steps_per_epoch, 1.0 - others, -others
    y = rng.normal(scale=sigma, size=(draws, k))
    y[np.arange(draws), rng.integers(0, k, draws)] += shift
    llr = logsumexp((2 * y - shift) * shift / (2 * sigma**2), axis=1) - logsumexp(
        (2 * y - shift_prime) * shift_prime / (2 * sigma**2), axis=1
    )

    def excess(eps):
        return float(np.mean(np.maximum(0.0, 1.0 - np.exp(eps - llr)))) - delta

    return brentq(excess, 0.0, 30.0) if excess(0.0) > 0 else 0.0


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
    parser.add_argument("--setting", nargs=3, type=float, default=[1.0, 0.1, 10], metavar=("SIGMA", "Q", "T"))
    args = parser.parse_args(argv)
    n = int(args.samples)
    if args.gap:
        print_gap(args.seeds[0])
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
