"""Planted glue bugs of a thresholded count, each found by a certified audit through its released keys.

The correct :class:`dpverify.mechanisms.thresholded.ThresholdedCounts` and the planted bugs of
:data:`dpverify.mechanisms.thresholded.PLANTED_BUGS` (plus the sensitivity bug on a pair of counts two
apart, found through the key's value), each audited under its (eps, delta) = (1, 0.02) claim at
alpha = 1e-6 on its pair. Tracked: the time of the audit, whether it flagged the claim (1 for every bug,
0 for the correct mechanism) and the certified lower bound on delta. As a script::

    python benchmarks/released_keys.py --samples 100000

prints one row per case (``--all-families`` audits with the default families, classifier included,
instead of the key families alone).
"""

from __future__ import annotations

import argparse
import time

import dpverify
from dpverify.mechanisms.thresholded import PLANTED_BUGS, SensitivityTooSmall, ThresholdedCounts

EPSILON, DELTA, ALPHA = 1.0, 0.02, 1e-6
KEY_FAMILIES = ("key-presence", "key-value", "key-count")

#: name -> (mechanism, x, x_prime)
CASES = {
    "correct thresholded count": (ThresholdedCounts(EPSILON, DELTA), {"a": 1, "b": 50}, {"b": 50}),
    **{name: (cls(EPSILON, DELTA, **fields), x, xp) for name, (cls, fields, x, xp) in PLANTED_BUGS.items()},
    "sensitivity-declared-too-small (value pair)": (SensitivityTooSmall(EPSILON, DELTA, 2.0), {"a": 10}, {"a": 12}),
}


def run(name: str, n_samples: int, families=KEY_FAMILIES, seed: int = 1):
    """The audit of case ``name`` and its wall time in seconds."""
    mechanism, x, x_prime = CASES[name]
    start = time.perf_counter()
    result = dpverify.audit(mechanism, x, x_prime, n_samples=n_samples, alpha=ALPHA, seed=seed, event_families=families)
    return result, time.perf_counter() - start


class ReleasedKeyAudits:
    """Each planted bug found (and the correct pipeline not flagged) at 1e5 samples per input."""

    params = [list(CASES)]
    param_names = ["case"]
    number = 1
    repeat = 1
    timeout = 300

    def setup(self, name):
        self.result, _ = run(name, 100_000)

    def time_audit(self, name):
        run(name, 100_000)

    def track_flagged(self, name):
        return int(self.result.violation)

    def track_delta_lower_bound(self, name):
        return self.result.delta_lower_bound


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--all-families", action="store_true")
    args = parser.parse_args(argv)
    families = None if args.all_families else KEY_FAMILIES
    print("| case | flagged | event | delta lower bound | time (s) |\n|---|---|---|---|---|")
    for name in CASES:
        result, seconds = run(name, args.samples, families)
        event = result.event.description if result.event is not None else "-"
        print(f"| {name} | {result.violation} | {event} | {result.delta_lower_bound:.4f} | {seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
