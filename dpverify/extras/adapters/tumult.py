"""Tumult Analytics queries, with the claim read from the Tumult privacy budget.

Tumult Analytics (``pip install tmlt.analytics``) pins ``numpy < 2`` (and ``pandas < 2`` on Python
3.11) and runs on Apache Spark (a Java runtime), so it does not install beside numpy 2: audit it from
an environment of its own, which this project's ``numpy >= 1.25`` allows (this module imports neither
Tumult nor Spark until an output is drawn). Its tests skip, saying so, where it is absent.

Each output is one evaluation of the query, a Spark job of a few seconds: Tumult has no batch API,
and nothing else here makes it faster. Tumult draws its noise from the operating system's entropy, so
``replayable`` is False.

References
----------
S. Berghel, P. Bohannon, D. Desfontaines, et al., "Tumult Analytics: a robust, easy-to-use, scalable,
and expressive framework for differential privacy", arXiv:2212.04133, 2022.
"""

from __future__ import annotations

import os
import sys

import numpy as np

from ..._validation import check_call, check_choice, check_finite_positive
from ...errors import InvalidClaimError, InvalidParameterError
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

    Each output evaluates the query once: a Spark DataFrame of the input rows, a ``Session`` with the
    budget and the protected change, and ``session.evaluate(query, budget)``.

    Parameters
    ----------
    query : tmlt.analytics.QueryExpr
        E.g. ``QueryBuilder("data").count()``, or ``QueryBuilder("data").groupby(keys).count()``.
    budget : tmlt.analytics.PureDPBudget, ApproxDPBudget or RhoZCDPBudget
        The budget the query is evaluated with, which is the claim (rho-zCDP for a
        ``RhoZCDPBudget``).
    columns : sequence of str, or dict of str to str
        The column names of the input rows (each input is a sequence of rows), or a mapping of each
        name to its Spark SQL type (``{"user": "STRING"}``), which an input of no rows needs.
    protected_change : tmlt.analytics.ProtectedChange, optional
        The neighbouring relation (default ``AddOneRow()``).
    source_id : str, default "data"
        The table name the query reads.

    Attributes
    ----------
    replayable : bool
        False: Tumult draws its noise from the operating system's entropy, which nothing seeds.

    Notes
    -----
    An output is the released keys where the result has key columns (the result's columns that are
    input columns, as a group-by's): ``{key: value}`` (the key a tuple for several key columns; with
    several aggregates, ``{(key, column): value}``), a key absent where Tumult did not release it.
    Without key columns it is the aggregates as a float vector. Spark's Python workers run
    ``PYSPARK_PYTHON``; where it is unset, the first output sets it to this interpreter (the one Tumult
    is installed in), since PySpark's default, ``python3`` on the path, may lack Tumult.

    Raises
    ------
    InvalidParameterError
        An input of no rows without column types (when an output is drawn).
    """

    replayable = False

    def __init__(self, query, *, budget, columns, protected_change=None, source_id: str = "data"):
        self.query, self.budget = query, budget
        self.columns, self.protected_change, self.source_id = tuple(columns), protected_change, source_id
        self.types = tuple(columns.values()) if isinstance(columns, dict) else None
        self.native_claim = zcdp_budget_claim(budget)
        if self.native_claim is not None:  # rho-zCDP, Tumult's default: audited as zCDP
            self.epsilon, self.delta = None, 0.0
        else:
            self.epsilon, self.delta = _check_claim(*budget_claim(budget))
        self.claim_source = f"the Tumult budget {budget!r}"

    def __call__(self, data, rng=None):
        from pyspark.sql import SparkSession
        from tmlt.analytics import AddOneRow, Session

        # Spark's Python workers run PYSPARK_PYTHON (read when Spark starts); unset, this interpreter, Tumult's
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        spark = SparkSession.builder.getOrCreate()
        rows = [tuple(row) for row in data]
        session = Session.from_dataframe(
            privacy_budget=self.budget,
            source_id=self.source_id,
            dataframe=spark.createDataFrame(rows, schema=_schema(list(self.columns), self.types, rows)),
            protected_change=self.protected_change if self.protected_change is not None else AddOneRow(),
        )
        result = session.evaluate(self.query, privacy_budget=self.budget)
        keys = [c for c in result.columns if c in self.columns]
        return _released(result.collect(), keys, [c for c in result.columns if c not in self.columns])

    def __repr__(self):
        return f"TumultQuery({self.query!r}, budget={self.budget!r})"


def _schema(names: list, types, rows):
    """The DataFrame's schema: a DDL string where the column types are given, else the names (Spark infers
    the types from the rows, which an input of no rows does not allow)."""
    if types is not None:
        return ", ".join(f"`{name}` {kind}" for name, kind in zip(names, types))
    if not rows:
        raise InvalidParameterError(
            f"an input of no rows gives Spark no types for the columns {names}; allowed: columns as a mapping of "
            "each name to its Spark SQL type ({'user': 'STRING'}), or inputs with rows"
        )
    return names


def _released(rows, keys: list, values: list):
    """One output: ``{key: value}`` where the result has key columns, else the values as a float vector."""
    if not keys:
        return np.asarray([float(row[c]) for row in rows for c in values], dtype=np.float64)
    out = {}
    for row in rows:
        key = row[keys[0]] if len(keys) == 1 else tuple(row[c] for c in keys)
        if len(values) == 1:
            out[key] = float(row[values[0]])
        else:
            out.update({(key, c): float(row[c]) for c in values})
    return out
