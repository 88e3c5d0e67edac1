"""Tumult Analytics queries, with the claim read from the Tumult privacy budget.

Tumult Analytics (``pip install tmlt.analytics``) pins ``numpy < 2`` and runs on Apache Spark, so it
does not install beside this project's numpy 2 environment: audit it from an environment of its own
(this module imports neither Tumult nor Spark until an output is drawn). Its tests skip, saying so,
where it is absent.

Each output evaluates the query afresh: a Spark DataFrame of the input rows, a ``Session`` with the
budget and the protected change (``AddOneRow()`` by default: neighbours differ by one added or
removed row), and ``session.evaluate(query, budget)``. Tumult draws its noise from the operating
system's entropy, so ``replayable`` is False.

References
----------
S. Berghel, P. Bohannon, D. Desfontaines, et al., "Tumult Analytics: a robust, easy-to-use, scalable,
and expressive framework for differential privacy", arXiv:2212.04133, 2022.
"""

from __future__ import annotations

import numbers

import numpy as np

from ..._validation import check_call, check_choice, check_finite_positive
from ...errors import InvalidClaimError
from ._base import _check_claim, _StatedClaim

__all__ = ["TumultQuery", "budget_claim", "zcdp_budget_claim"]


def zcdp_budget_claim(budget):
    """The rho-zCDP claim of a Tumult ``RhoZCDPBudget`` (None for another budget).

    Raises
    ------
    InvalidClaimError
        A rho that is not a finite real > 0.
    """
    if type(budget).__name__ != "RhoZCDPBudget":
        return None
    from ...claims import PrivacyClaim

    rho = check_call(
        lambda: float(budget.rho),
        lambda exc: f"the Tumult budget {budget!r} is not a finite rho",
        InvalidClaimError,
        catch=(TypeError, ValueError, OverflowError, AttributeError),
    )
    check_finite_positive(rho, f"the Tumult budget {budget!r} needs a finite rho > 0 to be audited")
    return PrivacyClaim.zcdp(rho)


def budget_claim(budget) -> tuple[float, float]:
    """``(epsilon, delta)`` of a Tumult privacy budget: ``PureDPBudget(epsilon)`` or
    ``ApproxDPBudget(epsilon, delta)``.

    Raises
    ------
    InvalidClaimError
        Another budget (``RhoZCDPBudget`` is read by :func:`zcdp_budget_claim`), or an infinite one.
    """
    kind = type(budget).__name__
    check_choice(
        kind,
        "budget",
        ("PureDPBudget", "ApproxDPBudget"),
        InvalidClaimError,
        message=f"a Tumult {kind} is not an (epsilon, delta) budget; supported: PureDPBudget and ApproxDPBudget",
    )
    if kind == "PureDPBudget":
        epsilon, delta = budget.epsilon, 0.0
    else:
        epsilon, delta = budget.epsilon, budget.delta
    return check_call(
        lambda: (float(epsilon), float(delta)),
        lambda exc: f"the Tumult budget {budget!r} is not a finite (epsilon, delta)",
        InvalidClaimError,
        catch=(TypeError, ValueError, OverflowError),
    )


class TumultQuery(_StatedClaim):
    """A Tumult Analytics query on rows, audited at its privacy budget.

    Parameters
    ----------
    query : tmlt.analytics.QueryExpr
        E.g. ``QueryBuilder("data").count()``.
    budget : tmlt.analytics.PureDPBudget or ApproxDPBudget
        The budget the query is evaluated with, which is the claim.
    columns : sequence of str
        The column names of the input rows (each input is a sequence of rows).
    protected_change : tmlt.analytics.ProtectedChange, optional
        The neighbouring relation (default ``AddOneRow()``).
    source_id : str, default "data"
        The table name the query reads.

    Notes
    -----
    An output is the numeric values of the result rows, sorted by their other (key) values, as a
    float vector.
    """

    replayable = False

    def __init__(self, query, *, budget, columns, protected_change=None, source_id: str = "data"):
        self.query, self.budget = query, budget
        self.columns, self.protected_change, self.source_id = tuple(columns), protected_change, source_id
        self.native_claim = zcdp_budget_claim(budget)
        if self.native_claim is not None:  # rho-zCDP, Tumult's default: audited as zCDP
            self.epsilon, self.delta = None, 0.0
        else:
            self.epsilon, self.delta = _check_claim(*budget_claim(budget))
        self.claim_source = f"the Tumult budget {budget!r}"

    def __call__(self, data, rng=None):
        from pyspark.sql import SparkSession
        from tmlt.analytics import AddOneRow, Session

        spark = SparkSession.builder.getOrCreate()
        frame = spark.createDataFrame([tuple(row) for row in data], schema=list(self.columns))
        session = Session.from_dataframe(
            privacy_budget=self.budget,
            source_id=self.source_id,
            dataframe=frame,
            protected_change=self.protected_change if self.protected_change is not None else AddOneRow(),
        )
        rows = [tuple(row) for row in session.evaluate(self.query, privacy_budget=self.budget).collect()]
        return _numeric_values(rows)

    def sample(self, data, size, rng=None):
        return np.stack([self(data) for _ in range(int(size))])

    def __repr__(self):
        return f"TumultQuery({self.query!r}, budget={self.budget!r})"


def _numeric_values(rows) -> np.ndarray:
    """The numeric entries of ``rows``, rows sorted by their other entries (group keys)."""

    def numeric(v):
        return isinstance(v, numbers.Real) and not isinstance(v, bool)

    ordered = sorted(rows, key=lambda row: tuple(str(v) for v in row if not numeric(v)))
    return np.asarray([float(v) for row in ordered for v in row if numeric(v)], dtype=np.float64)
