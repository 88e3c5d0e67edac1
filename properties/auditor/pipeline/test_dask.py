"""Distributed sampling: any concurrent.futures.Executor gives bit-identical audits.

Samples are drawn in a fixed number of seeded chunks (dpverify.pipeline.sampling), so
the result of an audit is a function of its seed alone, whatever runs the
chunks: this process, a local process pool, or a Dask cluster's
``Client.get_executor()``. The tests compare whole results (every field,
floats bit for bit) and are deterministic.

The mechanisms come from ``dpverify.mechanisms.textbook``: worker processes must be able to
import them (a class defined in a test module is not importable there, as
pytest runs with ``--import-mode=importlib``).
"""

from __future__ import annotations

import concurrent.futures

import pytest

from dpverify import audit, search_audit
from dpverify.audits.sequential import sequential_audit
from dpverify.mechanisms import GridLaplace
from dpverify.mechanisms.textbook import ExponentialMechanism, GeometricMechanism, LaplaceMechanism
from dpverify.neighbours import query_vectors
from dpverify.testing import audit_pairs

CASES = [
    # (mechanism, x, x_prime, claimed epsilon): a kept claim, a violated one, real and vector-input outputs
    (GeometricMechanism(0.5), 0, 1, 0.5),
    (LaplaceMechanism(1.0), 0.0, 1.0, 0.5),
    (ExponentialMechanism(1.0), (0.0, 1.0, 2.0), (1.0, 0.0, 2.0), 1.0),
]


def _audits(executor):
    return [
        audit(mechanism, x, x_prime, epsilon=eps, n_samples=20_000, seed=17, executor=executor)
        for mechanism, x, x_prime, eps in CASES
    ]


@pytest.fixture(scope="module")
def local_results():
    return _audits(None)


def test_process_pool_gives_bit_identical_audits(local_results):
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        pooled = _audits(pool)
        sequential_pooled = sequential_audit(
            GeometricMechanism(1.0), 0, 1, epsilon=0.9, n_samples=64_000, seed=5, executor=pool
        )
    assert pooled == local_results
    assert [r.to_json() for r in pooled] == [r.to_json() for r in local_results]
    sequential_local = sequential_audit(GeometricMechanism(1.0), 0, 1, epsilon=0.9, n_samples=64_000, seed=5)
    assert sequential_pooled == sequential_local


def test_worker_count_shorthand_matches_local(local_results):
    mechanism, x, x_prime, eps = CASES[0]
    assert audit(mechanism, x, x_prime, epsilon=eps, n_samples=20_000, seed=17, executor=2) == local_results[0]


def test_dask_local_cluster_gives_bit_identical_audits(local_results):
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is an optional extra (pip install 'dask[distributed]')"
    )
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        executor = client.get_executor(pure=False)
        remote = _audits(executor)
        direct = _audits(client)  # a Client is accepted as it is
        pairs = audit_pairs(
            GeometricMechanism(1.0), [(0, 1), (0, 2)], epsilon=1.0, n_samples=10_000, seed=3, executor=executor
        )
    assert remote == local_results == direct
    assert [r.to_json() for r in remote] == [r.to_json() for r in local_results]
    assert pairs == audit_pairs(GeometricMechanism(1.0), [(0, 1), (0, 2)], epsilon=1.0, n_samples=10_000, seed=3)


def _search(executor):
    """A searched audit whose screening and certification both run on ``executor`` (3-vectors, 6 candidates)."""
    return search_audit(
        GridLaplace(1.0), query_vectors(3), epsilon=1.0, n_samples=20_000, n_candidates=6, seed=23, executor=executor
    )


def test_search_audit_on_a_dask_local_cluster_matches_in_process():
    """search_audit on a Dask LocalCluster (two worker processes) returns the in-process result for the
    same seed: the same chosen pair, event, counts and bound, every field and its JSON bit for bit.

    Deterministic (no false-alarm rate). Detects: screening or certification samples that depend on
    the executor (chunks drawn from per-worker streams, or unordered merging of the chunk counts).
    """
    distributed = pytest.importorskip(
        "distributed", reason="dask.distributed is an optional extra (pip install 'dask[distributed]')"
    )
    in_process = _search(None)
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        on_cluster = _search(client.get_executor(pure=False))
    assert on_cluster == in_process
    assert on_cluster.to_json() == in_process.to_json()
    assert (on_cluster.x, on_cluster.x_prime) == (in_process.x, in_process.x_prime)
