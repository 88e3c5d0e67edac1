"""PipelineDP aggregations, on public partitions or with private partition selection (released keys).

Extra: ``pip install 'dpverify[pipelinedp]'`` (PipelineDP); imported only when an output is drawn.

PipelineDP has no batch API and draws its noise from python-dp, which cannot be seeded: each output is
one aggregation, and more outputs per second come from a process pool (``executor=2``; the data
extractors must then be module-level functions).

References
----------
PipelineDP (OpenMined and Google), ``pipeline_dp.DPEngine.aggregate``: https://pipelinedp.io.
"""

from __future__ import annotations

import numpy as np

from ..._validation import check_given, check_not_both, check_not_empty
from ._base import _check_claim, _StatedClaim

__all__ = ["PipelineDPAggregation"]


def _released_keys(released) -> dict:
    """PipelineDP's ``(partition, metrics)`` pairs as released keys: ``{partition: value}`` for one metric,
    ``{(partition, metric name): value}`` for several."""
    out = {}
    for partition, metrics in released:
        names = getattr(metrics, "_fields", None) or range(len(metrics))
        if len(metrics) == 1:
            out[partition] = float(metrics[0])
        else:
            out.update({(partition, name): float(v) for name, v in zip(names, metrics)})
    return out


class PipelineDPAggregation(_StatedClaim):
    """A PipelineDP aggregation: ``DPEngine.aggregate`` run afresh per output.

    Each output runs the aggregation once on the input rows, with a new
    ``NaiveBudgetAccountant(total_epsilon=epsilon, total_delta=delta)`` and ``LocalBackend``. On
    public partitions it returns the metrics as a float vector: for each public partition in the order
    given, each metric in the order of ``params.metrics``. Without public partitions PipelineDP selects
    the partitions privately, and an output is the released keys (:mod:`dpverify.pipeline.released_keys`):
    a mapping from each partition released to its metric, or, with several metrics, from
    ``(partition, metric name)`` to its value.

    Parameters
    ----------
    params : pipeline_dp.AggregateParams
        What to compute and the contribution bounds.
    data_extractors : pipeline_dp.DataExtractors
        Privacy id, partition and value of a row (module-level functions to audit on a process pool).
    public_partitions : sequence, optional
        The partitions released; None (the default): private partition selection, audited through the
        keys it releases.
    budget_accountant : pipeline_dp.NaiveBudgetAccountant, optional
        A fresh (unused) accountant: the claim is read from it (``total_epsilon``, ``total_delta``),
        and each output runs on a new accountant of its class with the same totals.
    epsilon, delta : float, optional
        The total budget instead of ``budget_accountant`` (a ``NaiveBudgetAccountant`` with these
        totals is used); give one or the other, not both.

    Attributes
    ----------
    replayable : bool
        False: PipelineDP's noise comes from python-dp, which cannot be seeded.

    Notes
    -----
    Install with ``pip install pipeline-dp``; this module does not import it.
    """

    replayable = False

    def __init__(
        self, params, data_extractors, *, public_partitions=None, epsilon=None, delta=None, budget_accountant=None
    ):
        self.params, self.data_extractors = params, data_extractors
        if public_partitions is not None:
            public_partitions = check_not_empty(public_partitions, "public_partitions", "partition")
        self.public_partitions = public_partitions
        self.accountant_class = None
        if budget_accountant is not None:
            check_not_both(
                True,
                epsilon is not None or delta is not None,
                "give the budget once: a budget_accountant (its totals are the claim) or epsilon= and delta=, not both",
            )
            epsilon, delta = budget_accountant.total_epsilon, budget_accountant.total_delta
            self.accountant_class = type(budget_accountant)
            self.claim_source = f"PipelineDP's {type(budget_accountant).__name__} totals"
        else:
            check_given(
                epsilon,
                "PipelineDPAggregation needs the budget: budget_accountant=pipeline_dp.NaiveBudgetAccountant("
                "total_epsilon=..., total_delta=...) or epsilon= (and delta=)",
            )
        self.epsilon, self.delta = _check_claim(epsilon, 0.0 if delta is None else delta)

    def __call__(self, data, rng=None):
        import pipeline_dp

        accountant_class = self.accountant_class or pipeline_dp.NaiveBudgetAccountant
        accountant = accountant_class(total_epsilon=self.epsilon, total_delta=self.delta)
        engine = pipeline_dp.DPEngine(accountant, pipeline_dp.LocalBackend())
        released = engine.aggregate(
            list(data), self.params, self.data_extractors, public_partitions=self.public_partitions
        )
        accountant.compute_budgets()
        if self.public_partitions is None:
            return _released_keys(released)
        by_partition = {partition: tuple(metrics) for partition, metrics in released}
        return np.asarray([v for p in self.public_partitions for v in by_partition[p]], dtype=np.float64)

    def sample(self, data, size, rng=None):
        outputs = [self(data) for _ in range(int(size))]
        return outputs if self.public_partitions is None else np.stack(outputs)

    def __repr__(self):
        return (
            f"PipelineDPAggregation(metrics={self.params.metrics}, partitions={self.public_partitions!r}, "
            f"epsilon={self.epsilon}, delta={self.delta})"
        )
