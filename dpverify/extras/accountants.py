"""Privacy claims read from DP-SGD accountants, in the form each accountant states them.

Extras: ``pip install 'dpverify[accountants]'`` (Google's ``dp-accounting``) and
``pip install 'dpverify[training]'`` (Opacus, with PyTorch); each library is imported only when
a claim is read from it, and its absence raises :class:`~dpverify.errors.MissingExtraError`.

- :func:`dp_accounting_pld_claim`: the (epsilon, delta) point of dp_accounting's privacy loss
  distribution (PLD) accountant for ``T`` steps of the Poisson-subsampled Gaussian mechanism;
- :func:`dp_accounting_rdp_claim`: the Rényi curve of its RDP accountant for the same run, or,
  given ``delta``, the (epsilon, delta) point the accountant converts that curve to;
- :func:`opacus_rdp_claim`, :func:`opacus_prv_claim`, :func:`opacus_gdp_claim`: the same run as
  Opacus's RDP, PRV and Gaussian DP accountants state it (its analysis is of add/remove
  neighbours; the Gaussian DP one is a central limit approximation).

Both describe Poisson subsampling at rate ``q`` with noise multiplier ``sigma`` (noise
``sigma C`` on sums of gradients clipped to ``C``): the claim of
:class:`dpverify.mechanisms.dpsgd.PoissonCanaryTrace`, and the claim DP-SGD code usually reports
whatever its batch sampler. A value an accountant cannot mean, or that no audit can test, is
refused with :class:`~dpverify.errors.InvalidClaimError` naming the accountant, never passed on:

- a negative or NaN epsilon (negative epsilon: Opacus's PR #844, in its RDP and PRV accountants;
  Opacus 1.6 still gives one at large noise and delta);
- a conversion the accountant cannot make (Opacus's Gaussian DP accountant's root search raises
  where no epsilon >= 0 reaches delta: PR #844);
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
A. Yousefpour et al., "Opacus: User-Friendly Differential Privacy Library in PyTorch", 2021
(``opacus.accountants``: ``RDPAccountant``; ``PRVAccountant``, Gopi, Lee and Wutschitz, "Numerical
Composition of Differential Privacy", NeurIPS 2021; ``GaussianAccountant``, Bu, Dong, Long and Su,
"Deep Learning with Gaussian Differential Privacy", Harvard Data Science Review 2020).
"""

from __future__ import annotations

import importlib
import math
import numbers

import numpy as np

from .._validation import check_call, check_delta, check_finite_positive, check_positive_int, check_positive_real
from ..claims import PrivacyClaim
from ..errors import InvalidClaimError, InvalidParameterError, MissingExtraError

__all__ = [
    "dp_accounting_pld_claim",
    "dp_accounting_rdp_claim",
    "opacus_rdp_claim",
    "opacus_prv_claim",
    "opacus_gdp_claim",
    "accountant_value",
    "NEIGHBOURING_RELATIONS",
]

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
    shown = repr(float(value)) if isinstance(value, numbers.Real) else repr(value)  # np.float64(x) as x
    return check_finite_positive(
        value,
        f"{what} gave epsilon = {shown}{'' if delta is None else f' at delta = {delta:g}'}: an accountant's "
        f"epsilon must be finite and > 0 (negative or NaN is a fault of the accountant, infinite states nothing, "
        f"and {zero})",
    )


def _opacus():
    try:
        return importlib.import_module("opacus.accountants")
    except ImportError as exc:
        raise MissingExtraError(
            "reading a claim from Opacus needs opacus and PyTorch: pip install 'dpverify[training]'"
        ) from exc


def _training(noise_multiplier, sample_rate, steps) -> tuple:
    """``(sigma, q, T)`` checked: noise multiplier > 0, sampling rate in (0, 1], steps >= 1."""
    sigma = check_positive_real(noise_multiplier, "noise_multiplier")
    q = check_positive_real(sample_rate, "sample_rate")
    if q > 1:
        raise InvalidParameterError(f"sample_rate must be in (0, 1], got {sample_rate!r}")
    return sigma, q, check_positive_int(steps, "steps")


def _run(noise_multiplier, sample_rate, steps, neighbouring):
    """The checked parameters, dp_accounting, its relation and the DP-SGD event."""
    sigma, q, steps = _training(noise_multiplier, sample_rate, steps)
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
    _check_rdp_delta(delta)
    dpa, relation, event = _run(noise_multiplier, sample_rate, steps, neighbouring)
    accountant = dpa.rdp.RdpAccountant(None if orders is None else list(orders), relation)
    accountant.compose(event)
    curve = _renyi_curve(
        "dp_accounting's RDP accountant",
        accountant.orders,
        accountant.rdp,
        _neighbouring_text(neighbouring),
        _source("RdpAccountant", noise_multiplier, sample_rate, steps),
    )
    if delta is None:
        return curve
    return _converted(curve, accountant.get_epsilon(delta), delta, "dp_accounting's RDP accountant")


def _check_rdp_delta(delta) -> None:
    if delta is not None and check_delta(delta) == 0:
        raise InvalidClaimError("the RDP accountant's epsilon is infinite at delta = 0: give delta > 0")


def _renyi_curve(accountant: str, orders, values, neighbouring: str, source: str) -> PrivacyClaim:
    """The Rényi claim of an accountant's curve: orders with an infinite value dropped (and counted in
    the source), every other value checked by :func:`accountant_value`, a falling curve refused naming
    the accountant."""
    used = np.asarray(orders, dtype=float)
    values = np.asarray(values, dtype=float)
    finite = values != math.inf  # NaN stays in, to be refused
    if not finite.any():
        raise InvalidClaimError(
            f"{accountant} gave no finite Rényi epsilon at any of the {used.size} orders: it states no claim"
        )
    epsilons = [accountant_value(v, f"{accountant} at order {a:g}") for a, v in zip(used[finite], values[finite])]
    dropped = int((~finite).sum())
    note = f"; {dropped} orders left out where the accountant's value is infinite" if dropped else ""
    return check_call(
        lambda: PrivacyClaim.renyi(
            tuple(used[finite].tolist()), tuple(epsilons), neighbouring=neighbouring, source=source + note
        ),
        lambda exc: f"{accountant} gave a curve that is not a Rényi DP claim: {exc}",
        InvalidClaimError,
        (InvalidClaimError,),
    )


def _converted(curve: PrivacyClaim, epsilon, delta, accountant: str) -> PrivacyClaim:
    """The (epsilon, delta) point an accountant converted ``curve`` to, checked."""
    return PrivacyClaim(
        accountant_value(epsilon, accountant, delta),
        delta,
        neighbouring=curve.neighbouring,
        source=curve.source + f"; converted to (epsilon, delta) by the accountant over {len(curve.orders)} orders",
    )


#: The relation Opacus's accountants analyse (the sampled Gaussian mechanism under Poisson sampling).
OPACUS_NEIGHBOURING = "add/remove one record (Opacus's analysis of Poisson sampling)"


def _opacus_source(accountant: str, sigma, q, steps, note: str = "") -> str:
    return (
        f"Opacus {accountant}, Poisson-sampled Gaussian: noise multiplier {sigma:g}, sampling rate {q:g}, "
        f"{steps} steps{note}"
    )


def opacus_rdp_claim(noise_multiplier, sample_rate, steps, *, orders=None, delta=None) -> PrivacyClaim:
    """The Rényi curve of Opacus's RDP accountant for ``steps`` steps of DP-SGD, or its (epsilon, delta).

    Parameters
    ----------
    noise_multiplier, sample_rate, steps
        As in :func:`dp_accounting_pld_claim`.
    orders : sequence of float, optional
        Rényi orders > 1; default the accountant's own (``RDPAccountant.DEFAULT_ALPHAS``).
    delta : float, optional
        Given, the claim is the (epsilon, delta) point ``RDPAccountant.get_epsilon`` converts the
        curve to, read once the curve has passed the checks.

    Returns
    -------
    PrivacyClaim
        A Rényi curve (orders with an infinite value left out and counted in the source), or with
        ``delta`` an (epsilon, delta) claim; add/remove neighbours.

    Raises
    ------
    InvalidClaimError
        A value or converted epsilon that is negative (Opacus PR #844), NaN, 0 or infinite, a
        curve that falls as the order grows, ``delta`` outside (0, 1).
    MissingExtraError
        opacus (and PyTorch) are not installed.
    """
    _check_rdp_delta(delta)
    sigma, q, steps = _training(noise_multiplier, sample_rate, steps)
    acc = _opacus()
    orders = list(acc.RDPAccountant.DEFAULT_ALPHAS if orders is None else orders)
    values = acc.analysis.rdp.compute_rdp(q=q, noise_multiplier=sigma, steps=steps, orders=orders)
    curve = _renyi_curve(
        "Opacus's RDP accountant", orders, values, OPACUS_NEIGHBOURING, _opacus_source("RDPAccountant", sigma, q, steps)
    )
    if delta is None:
        return curve
    accountant = acc.RDPAccountant()
    accountant.history = [(sigma, q, steps)]
    return _converted(curve, accountant.get_epsilon(delta, alphas=orders), delta, "Opacus's RDP accountant")


def opacus_prv_claim(noise_multiplier, sample_rate, steps, delta, *, eps_error=0.01) -> PrivacyClaim:
    """The (epsilon, delta) claim of Opacus's PRV accountant for ``steps`` steps of DP-SGD.

    The accountant's upper bound on epsilon (``PRVAccountant.get_epsilon``, Gopi, Lee and
    Wutschitz 2021), within ``eps_error`` of its estimate.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps, delta
        As in :func:`dp_accounting_pld_claim`.
    eps_error : float, default 0.01
        The accountant's error allowance on epsilon (its default).

    Returns
    -------
    PrivacyClaim
        ``PrivacyClaim(epsilon, delta)``, add/remove neighbours.

    Raises
    ------
    InvalidClaimError
        The accountant's epsilon is negative (Opacus PR #844), NaN, 0 or infinite; the accountant
        raised instead of giving one (its "Discrete mean differs from continuous mean
        significantly" of microsoft/prv_accountant #36); ``delta`` outside (0, 1).
    MissingExtraError
        opacus (and PyTorch) are not installed.
    """
    if check_delta(delta) == 0:
        raise InvalidClaimError("the PRV accountant's epsilon is infinite at delta = 0: give delta > 0")
    sigma, q, steps = _training(noise_multiplier, sample_rate, steps)
    eps_error = check_positive_real(eps_error, "eps_error")
    accountant = _opacus().PRVAccountant()
    accountant.history = [(sigma, q, steps)]
    epsilon = check_call(
        lambda: accountant.get_epsilon(delta, eps_error=eps_error),
        lambda exc: (
            f"Opacus's PRV accountant failed at noise multiplier {sigma:g}, sampling rate {q:g}, {steps} steps, "
            f"delta = {delta:g} ({type(exc).__name__}: {exc}): it gave no epsilon (its discretisation can fail "
            "on valid parameters: microsoft/prv_accountant #36); read the claim from another accountant "
            "(opacus_rdp_claim, dp_accounting_pld_claim) or with another eps_error"
        ),
        InvalidClaimError,
        (RuntimeError, ValueError, FloatingPointError, ZeroDivisionError),
    )
    return PrivacyClaim(
        accountant_value(epsilon, "Opacus's PRV accountant", delta),
        delta,
        neighbouring=OPACUS_NEIGHBOURING,
        source=_opacus_source("PRVAccountant", sigma, q, steps, f", eps_error {eps_error:g}"),
    )


def opacus_gdp_claim(noise_multiplier, sample_rate, steps, *, delta=None) -> PrivacyClaim:
    """The Gaussian DP claim of Opacus's Gaussian accountant for ``steps`` steps of DP-SGD, or its (epsilon, delta).

    ``mu = q sqrt(T (e^{1/sigma^2} - 1))``, the central limit approximation of Poisson-sampled
    DP-SGD (Bu, Dong, Long and Su 2020), which Opacus warns can underestimate epsilon: the claim
    is what the accountant states, for an audit to test.

    Parameters
    ----------
    noise_multiplier, sample_rate, steps
        As in :func:`dp_accounting_pld_claim`.
    delta : float, optional
        Given, the claim is the accountant's (epsilon, delta) conversion
        (``GaussianAccountant.get_epsilon``).

    Returns
    -------
    PrivacyClaim
        ``PrivacyClaim.gdp(mu)``, or with ``delta`` ``PrivacyClaim(epsilon, delta)``; add/remove
        neighbours.

    Raises
    ------
    InvalidClaimError
        mu not finite and > 0; with ``delta``, a conversion the accountant cannot make (its root
        search finds no epsilon in its bracket: Opacus PR #844) or an epsilon that is not finite
        and > 0.
    MissingExtraError
        opacus (and PyTorch) are not installed.
    """
    sigma, q, steps = _training(noise_multiplier, sample_rate, steps)
    acc = _opacus()
    source = _opacus_source("GaussianAccountant (central limit approximation)", sigma, q, steps)
    mu = acc.analysis.gdp.compute_mu_poisson(steps=steps, noise_multiplier=sigma, sample_rate=q)
    mu = check_finite_positive(mu, f"Opacus's Gaussian accountant gave mu = {mu!r}: mu must be finite and > 0")
    if delta is None:
        return PrivacyClaim.gdp(mu, neighbouring=OPACUS_NEIGHBOURING, source=source)
    if check_delta(delta) == 0:
        raise InvalidClaimError("the Gaussian accountant's epsilon is infinite at delta = 0: give delta > 0")
    accountant = acc.GaussianAccountant()
    accountant.history = [(sigma, q, steps)]
    epsilon = check_call(
        lambda: accountant.get_epsilon(delta, poisson=True),
        lambda exc: (
            f"Opacus's Gaussian accountant could not convert mu = {mu:g} to epsilon at delta = {delta:g} ({exc}): "
            "no epsilon in its search bracket [0, 500] reaches delta (where delta is at least what mu gives at "
            "epsilon 0, the epsilon would be 0, which no audit can test); read it at a smaller delta, or audit the "
            "mu claim itself"
        ),
        InvalidClaimError,
        (ValueError,),
    )
    return PrivacyClaim(
        accountant_value(epsilon, "Opacus's Gaussian accountant", delta),
        delta,
        neighbouring=OPACUS_NEIGHBOURING,
        source=source + f"; converted to (epsilon, delta) from mu = {mu:g}",
    )
