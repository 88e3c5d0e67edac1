"""Peak memory of audits on wide real vectors and on integer-row outputs.

The memory model (README, "Memory"; :mod:`dpverify.pipeline.memory`): the selection samples
(``2 * n_selection`` outputs as the code book holds them), a bounded classifier fit
(:data:`dpverify.events.classifier.MAX_FIT_ELEMENTS`) and one certification block per
worker. As asv benchmarks:

- ``WideVectorMemory.peakmem_audit`` over output widths 10, 1000 and 5000 at 30,000
  samples per input (the selection is 15,000 per input: 1.2 GB of outputs at width 5000);
- ``IntegerRowMemory.peakmem_audit`` for sparse vector (Lyu et al. 2017, Algorithm 1) with
  answer rows and with masks at 1e7 samples per input (the two must stay close).

As a script::

    python benchmarks/audit_memory.py --width 1000 --samples 3e4
    python benchmarks/audit_memory.py --rows answers --samples 1e7
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import dpverify
from dpverify.mechanisms.catalogue import zoo_entries
from dpverify.mechanisms.sparse_vector import SparseVector

if not __package__:  # run as a script: the repository root makes `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks._common import WholeRun  # noqa: E402

SEED = 20241124


class WideLaplace:
    """Laplace noise of scale 1 on every coordinate of a vector whose first entry is the input."""

    def __init__(self, width: int):
        self.width = width

    def __call__(self, x, rng):
        return self.sample(x, 1, rng)[0]

    def sample(self, x, size, rng):
        out = rng.laplace(size=(size, self.width))
        out[:, 0] += x
        return out


def wide_audit(width: int, n_samples: int = 30_000):
    """An audit of :class:`WideLaplace` at its claim (eps = 1 on the first coordinate)."""
    return dpverify.audit(WideLaplace(width), 0.0, 1.0, epsilon=1.0, n_samples=n_samples, seed=SEED)


def sparse_vector_audit(output: str, n_samples: int = 10_000_000):
    """Sparse vector with cutoff 1 on the zoo's pair, returning answer rows or masks."""
    entry = next(e for e in zoo_entries() if e.name.startswith("sparse vector (Lyu Alg. 1)"))
    mechanism = SparseVector(entry.mechanism.epsilon, cutoff=1, output=output)
    return dpverify.audit(
        mechanism, entry.x, entry.x_prime, epsilon=entry.mechanism.epsilon, n_samples=n_samples, seed=SEED, alpha=0.1
    )


class WideVectorMemory(WholeRun):
    """Peak memory of an audit of real vectors of growing width (30,000 samples per input)."""

    params = [[10, 1_000, 5_000]]
    param_names = ["width"]

    def peakmem_audit(self, width):
        wide_audit(width)


class IntegerRowMemory(WholeRun):
    """Peak memory of a sparse-vector audit with answer rows and with masks, 1e7 samples per input."""

    params = [["answers", "mask"]]
    param_names = ["output"]

    def peakmem_audit(self, output):
        sparse_vector_audit(output)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--width", type=int, default=None, help="audit WideLaplace of this width")
    parser.add_argument("--rows", choices=["answers", "mask"], default=None, help="audit sparse vector")
    parser.add_argument("--samples", type=float, default=None, help="samples per input")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    if args.rows:
        result = sparse_vector_audit(args.rows, int(args.samples or 1e7))
    else:
        result = wide_audit(args.width or 1_000, int(args.samples or 3e4))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak {peak:.0f} MB, {time.perf_counter() - start:.1f} s, bound {result.epsilon_lower_bound:.4g} "
        f"[{result.event.family}]"
    )


if __name__ == "__main__":
    main()
