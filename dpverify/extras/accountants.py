"""Privacy claims read from DP-SGD accountants, in the form each accountant states them.

Extra: ``pip install 'dpverify[accountants]'`` (Google's ``dp-accounting``); the library is
imported only when a claim is read, and its absence raises
:class:`~dpverify.errors.MissingExtraError`.

- :func:`dp_accounting_pld_claim`: the (epsilon, delta) point of dp_accounting's privacy loss
  distribution (PLD) accountant for ``T`` steps of the Poisson-subsampled Gaussian mechanism;
- :func:`dp_accounting_rdp_claim`: the Rényi curve of its RDP accountant for the same run, or,
  given ``delta``, the (epsilon, delta) point the accountant converts that curve to.

Both describe Poisson subsampling at rate ``q`` with noise multiplier ``sigma`` (noise
``sigma C`` on sums of gradients clipped to ``C``): the claim of
:class:`dpverify.mechanisms.dpsgd.PoissonCanaryTrace`, and the claim DP-SGD code usually reports
whatever its batch sampler. A value an accountant cannot mean, or that no audit can test, is
refused with :class:`~dpverify.errors.InvalidClaimError` naming the accountant, never passed on:

- a negative or NaN epsilon (negative epsilon: Opacus's PR #844, in its RDP and PRV accountants);
- an epsilon of 0. On a Rényi curve it is impossible at finite noise and ``q > 0`` (``D_alpha``
  is 0 only between equal distributions). At an (epsilon, delta) point it is either a negative
  value clamped to 0 (dp_accounting's RDP conversion clamps, as Opacus's fix does) or a true
  (0, delta) claim, which holds where delta is at least the total variation distance of the
  neighbours' outputs (the RDP conversion's bound from the divergence at an order near 1 gives
  it: tensorflow/privacy #166, an order ``1 + 1e-8``); an audit needs epsilon > 0, so either way
  the accountant is to be read at a smaller delta;
- an infinite value, which states nothing (on a Rényi curve, an order whose value the accountant
  leaves infinite, its series not converging, is dropped instead, and the claim's source says how
  many were);
- a Rényi curve that falls as the order grows (the Rényi claim kind's check,
  :mod:`dpverify.claims.renyi`).

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

from .._validation import check_call, check_delta, check_finite_positive, check_positive_int, check_positive_real
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


def accountant_value(value, what: str, delta=None) -> float:
    """``value`` as an accountant's epsilon: finite and > 0, else :class:`InvalidClaimError` naming ``what``.

    ``delta`` is the delta of an (epsilon, delta) point, None for a Rényi epsilon: the message
    says why a 0 is refused in each case (module docstring).
    """
    if delta is None:
        zero = "0 is impossible for a Rényi divergence at finite noise and sampling rate > 0"
    else:
        zero = (
            "0 is either a negative value clamped to 0 or a (0, delta) claim, true only where delta is at least "
            "the total variation distance of the neighbours' outputs, which no audit can test: read the "
            "accountant at a smaller delta"
        )
    return check_finite_positive(
        value,
        f"{what} gave epsilon = {value!r}{'' if delta is None else f' at delta = {delta:g}'}: an accountant's "
        f"epsilon must be finite and > 0 (negative or NaN is a fault of the accountant, infinite states nothing, "
        f"and {zero})",
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
    epsilon = accountant_value(accountant.get_epsilon(delta), "dp_accounting's PLD accountant", delta)
    return PrivacyClaim(
        epsilon,
        delta,
        neighbouring=_neighbouring_text(neighbouring),
        source=_source("PLDAccountant", noise_multiplier, sample_rate, steps),
    )


def dp_accounting_rdp_claim(
    noise_multiplier, sample_rate, steps, *, orders=None, neighbouring="add/remove", delta=None
) -> PrivacyClaim:
    """The Rényi curve of dp_accounting's RDP accountant for ``steps`` steps of DP-SGD, or its (epsilon, delta).

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, neighbouring
        As in :func:`dp_accounting_pld_claim`.
    orders : sequence of float, optional
        Rényi orders > 1; default the accountant's own (``rdp.rdp_privacy_accountant.DEFAULT_RDP_ORDERS``).
    delta : float, optional
        Given, the claim is the (epsilon, delta) point the accountant converts its curve to
        (``RdpAccountant.get_epsilon``, the best over the orders), read once the curve itself has
        passed the checks below.

    Returns
    -------
    PrivacyClaim
        Without ``delta``: ``PrivacyClaim.renyi(orders, epsilons)`` on the orders where the
        accountant's value is finite (the source counts the orders dropped). With ``delta``:
        ``PrivacyClaim(epsilon, delta)``.

    Raises
    ------
    InvalidClaimError
        A negative, NaN or 0 value at some order, no order with a finite one, a curve that
        falls as the order grows; with ``delta``, a converted epsilon that is 0 or infinite, or
        ``delta`` outside (0, 1).
    MissingExtraError
        dp-accounting is not installed.
    """
    if delta is not None and check_delta(delta) == 0:
        raise InvalidClaimError("the RDP accountant's epsilon is infinite at delta = 0: give delta > 0")
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
    source = _source("RdpAccountant", noise_multiplier, sample_rate, steps) + note
    curve = check_call(
        lambda: PrivacyClaim.renyi(
            tuple(used[finite].tolist()), tuple(epsilons), neighbouring=_neighbouring_text(neighbouring), source=source
        ),
        lambda exc: f"dp_accounting's RDP accountant gave a curve that is not a Rényi DP claim: {exc}",
        InvalidClaimError,
        (InvalidClaimError,),
    )
    if delta is None:
        return curve
    epsilon = accountant_value(accountant.get_epsilon(delta), "dp_accounting's RDP accountant", delta)
    return PrivacyClaim(
        epsilon,
        delta,
        neighbouring=curve.neighbouring,
        source=source + f"; converted to (epsilon, delta) by the accountant over {len(curve.orders)} orders",
    )
