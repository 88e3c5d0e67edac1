"""Privacy claims read from DP-SGD accountants, in the form each accountant states them.

Extra: ``pip install 'dpverify[accountants]'`` (Google's ``dp-accounting``); the library is
imported only when a claim is read, and its absence raises
:class:`~dpverify.errors.MissingExtraError`.

- :func:`dp_accounting_pld_claim`: the (epsilon, delta) point of dp_accounting's privacy loss
  distribution (PLD) accountant for ``T`` steps of the Poisson-subsampled Gaussian mechanism;
- :func:`dp_accounting_rdp_claim`: the Rényi curve of its RDP accountant for the same run.

Both describe Poisson subsampling at rate ``q`` with noise multiplier ``sigma`` (noise
``sigma C`` on sums of gradients clipped to ``C``): the claim of
:class:`dpverify.mechanisms.dpsgd.PoissonCanaryTrace`, and the claim DP-SGD code usually reports
whatever its batch sampler. A value an accountant cannot mean is refused with
:class:`~dpverify.errors.InvalidClaimError` naming the accountant: a negative or NaN epsilon, or
an epsilon of 0 at finite noise and ``q > 0`` (each seen in released accountants: negative
epsilon in Opacus's PR #844, epsilon 0 at order ``1 + 1e-8`` in tensorflow/privacy #166). An
infinite value states nothing and is refused as well; on a Rényi curve, an order whose value
the accountant leaves infinite (its series did not converge) is dropped, and the claim's source
says how many were.

References
----------
Google differential privacy team, ``dp_accounting`` (github.com/google/differential-privacy,
python/dp_accounting): ``pld.PLDAccountant`` (Doroshenko, Ghazi, Kamath, Kumar and Manurangsi,
"Connect the Dots: Tighter Discrete Approximations of Privacy Loss Distributions", PETS 2022)
and ``rdp.RdpAccountant`` (Mironov, Talwar and Zhang, "Rényi Differential Privacy of the Sampled
Gaussian Mechanism", 2019).
"""

from __future__ import annotations

import importlib
import math

import numpy as np

from .._validation import check_delta, check_finite_positive, check_positive_int, check_positive_real
from ..claims import PrivacyClaim
from ..errors import InvalidClaimError, InvalidParameterError, MissingExtraError

__all__ = ["dp_accounting_pld_claim", "dp_accounting_rdp_claim", "accountant_value", "NEIGHBOURING_RELATIONS"]

#: dpverify's names of the relations and dp_accounting's names of them.
NEIGHBOURING_RELATIONS = {"add/remove": "ADD_OR_REMOVE_ONE", "replace-one": "REPLACE_ONE"}


def _dp_accounting():
    try:
        return importlib.import_module("dp_accounting")
    except ImportError as exc:
        raise MissingExtraError(
            "reading a claim from dp_accounting needs Google's dp-accounting: pip install 'dpverify[accountants]'"
        ) from exc


def accountant_value(value, what: str) -> float:
    """``value`` as an accountant's epsilon: finite and > 0, else :class:`InvalidClaimError` naming ``what``.

    Noise is finite and the sampling rate positive wherever this is called, so an epsilon of 0
    is as impossible as a negative or NaN one.
    """
    return check_finite_positive(
        value,
        f"{what} gave epsilon = {value!r}: an accountant's epsilon at finite noise and sampling rate > 0 "
        "must be finite and > 0 (negative, NaN, infinite or 0 is a fault of the accountant, not a claim)",
    )


def _run(noise_multiplier, sample_rate, steps, neighbouring):
    """The checked parameters, dp_accounting, its relation and the DP-SGD event."""
    sigma = check_positive_real(noise_multiplier, "noise_multiplier")
    q = check_positive_real(sample_rate, "sample_rate")
    if q > 1:
        raise InvalidParameterError(f"sample_rate must be in (0, 1], got {sample_rate!r}")
    steps = check_positive_int(steps, "steps")
    if neighbouring not in NEIGHBOURING_RELATIONS:
        raise InvalidParameterError(
            f"neighbouring must be one of {sorted(NEIGHBOURING_RELATIONS)}, got {neighbouring!r}"
        )
    dpa = _dp_accounting()
    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(sigma)), steps)
    return dpa, getattr(dpa.NeighboringRelation, NEIGHBOURING_RELATIONS[neighbouring]), event


def _neighbouring_text(neighbouring: str) -> str:
    return f"{neighbouring} one record (dp_accounting's {NEIGHBOURING_RELATIONS[neighbouring]})"


def _source(accountant: str, sigma, q, steps) -> str:
    return (
        f"dp_accounting {accountant}, Poisson-subsampled Gaussian: noise multiplier {sigma:g}, "
        f"sampling rate {q:g}, {steps} steps"
    )


def dp_accounting_pld_claim(
    noise_multiplier, sample_rate, steps, delta, *, neighbouring="add/remove", value_discretization_interval=1e-4
) -> PrivacyClaim:
    """The (epsilon, delta) claim of dp_accounting's PLD accountant for ``steps`` steps of DP-SGD.

    Parameters
    ----------
    noise_multiplier : float
        ``sigma``: the noise's standard deviation over the clipping norm.
    sample_rate : float
        ``q`` in (0, 1]: Poisson sampling rate.
    steps : int
        ``T``.
    delta : float
        The delta at which the accountant's epsilon is read, in (0, 1).
    neighbouring : {"add/remove", "replace-one"}
        The relation the accountant analyses.
    value_discretization_interval : float
        The accountant's discretisation of the privacy loss (its default; a pessimistic
        discretisation, so the epsilon read is at least the exact one).

    Returns
    -------
    PrivacyClaim
        ``PrivacyClaim(epsilon, delta)`` with the accountant as its source.

    Raises
    ------
    InvalidClaimError
        The accountant's epsilon is negative, NaN, infinite or 0; ``delta`` outside (0, 1).
    MissingExtraError
        dp-accounting is not installed.
    """
    delta = check_delta(delta)
    if delta == 0:
        raise InvalidClaimError(
            "the PLD accountant's epsilon of a Gaussian mechanism is infinite at delta = 0: give delta > 0"
        )
    dpa, relation, event = _run(noise_multiplier, sample_rate, steps, neighbouring)
    accountant = dpa.pld.PLDAccountant(relation, value_discretization_interval=value_discretization_interval)
    accountant.compose(event)
    epsilon = accountant_value(accountant.get_epsilon(delta), "dp_accounting's PLD accountant")
    return PrivacyClaim(
        epsilon,
        delta,
        neighbouring=_neighbouring_text(neighbouring),
        source=_source("PLDAccountant", noise_multiplier, sample_rate, steps),
    )


def dp_accounting_rdp_claim(
    noise_multiplier, sample_rate, steps, *, orders=None, neighbouring="add/remove"
) -> PrivacyClaim:
    """The Rényi curve of dp_accounting's RDP accountant for ``steps`` steps of DP-SGD.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, neighbouring
        As in :func:`dp_accounting_pld_claim`.
    orders : sequence of float, optional
        Rényi orders > 1; default the accountant's own (``rdp.rdp_privacy_accountant.DEFAULT_RDP_ORDERS``).

    Returns
    -------
    PrivacyClaim
        ``PrivacyClaim.renyi(orders, epsilons)`` on the orders where the accountant's value is
        finite (the source counts the orders dropped).

    Raises
    ------
    InvalidClaimError
        A negative, NaN or 0 value at some order, or no order with a finite one.
    MissingExtraError
        dp-accounting is not installed.
    """
    dpa, relation, event = _run(noise_multiplier, sample_rate, steps, neighbouring)
    accountant = dpa.rdp.RdpAccountant(None if orders is None else list(orders), relation)
    accountant.compose(event)
    used = np.asarray(accountant.orders, dtype=float)
    values = np.asarray(accountant.rdp, dtype=float)
    finite = values != math.inf  # NaN stays in, to be refused
    if not finite.any():
        raise InvalidClaimError(
            f"dp_accounting's RDP accountant gave no finite Rényi epsilon at any of the {used.size} orders: "
            "it states no claim"
        )
    epsilons = [
        accountant_value(v, f"dp_accounting's RDP accountant at order {a:g}")
        for a, v in zip(used[finite], values[finite])
    ]
    dropped = int((~finite).sum())
    note = f"; {dropped} orders left out where the accountant's value is infinite" if dropped else ""
    return PrivacyClaim.renyi(
        tuple(used[finite].tolist()),
        tuple(epsilons),
        neighbouring=_neighbouring_text(neighbouring),
        source=_source("RdpAccountant", noise_multiplier, sample_rate, steps) + note,
    )
