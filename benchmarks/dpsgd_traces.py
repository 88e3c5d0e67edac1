"""DP-SGD canary traces (dpverify.mechanisms.dpsgd) against dp_accounting's Poisson claim, and their speed.

As an asv benchmark: ``time_sample`` times ``sample`` of each sampler at T = 10 and 100;
``track_poisson_ratio`` records the Poisson trace's certified epsilon over dp_accounting's PLD
epsilon at delta 1e-5 (sigma 1, q 0.1, T 10, 1e5 samples, threshold events).

As a script (needs ``pip install 'dpverify[accountants]'``)::

    python benchmarks/dpsgd_traces.py [--samples 1000000]

prints the Poisson ratio and the shuffled trace's certified epsilon against the Poisson claim
(sigma 0.8, q 0.1, T 20, replace-one), the rows of docs/auditor/benchmarks.md's DP-SGD section.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import dpverify
from dpverify.mechanisms import CANARY_TRACES, PoissonCanaryTrace, ShuffledCanaryTrace

N, B = 1000, 100


def poisson_ratio(n_samples: int, families=("threshold",), seed: int = 1) -> tuple:
    """(certified, PLD epsilon) of the Poisson trace at sigma 1, q 0.1, T 10, delta 1e-5, alpha 0.05."""
    from dpverify.extras.accountants import dp_accounting_pld_claim

    claim = dp_accounting_pld_claim(1.0, B / N, 10, 1e-5)
    m = PoissonCanaryTrace(1.0, 10, N, B, claim=claim)
    result = dpverify.audit(m, *m.pair, n_samples=n_samples, seed=seed, alpha=0.05, event_families=families)
    return result.claim_lower_bound, claim.epsilon


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


class TimeSample:
    params = (sorted(CANARY_TRACES), [10, 100], ["sum", "realised"])
    param_names = ("sampler", "steps", "normalisation")

    def setup(self, sampler, steps, normalisation):
        self.trace = CANARY_TRACES[sampler](1.0, steps, N, B, normalisation=normalisation)
        self.rng = np.random.default_rng(0)

    def time_sample(self, sampler, steps, normalisation):
        self.trace.sample(1.0, 10_000, self.rng)


def track_poisson_ratio():
    certified, claimed = poisson_ratio(100_000)
    return certified / claimed


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=float, default=1e6)
    args = parser.parse_args(argv)
    n = int(args.samples)
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
