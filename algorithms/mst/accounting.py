"""Privacy accounting for private spanning trees: (eps, delta) <-> rho <-> per-step epsilon0.

Pagh et al. 2025, Section 3 (Theorem 3.2 and Fact 2.7):

- one exponential-mechanism step with budget ``epsilon0`` is ``epsilon0``-DP, hence
  ``c * epsilon0**2``-zCDP with ``c = 1/2`` (**generic** conversion, pure DP -> zCDP; the
  authors' public code uses it) or ``c = 1/8`` (**bounded-range**: the exponential
  mechanism is epsilon0-bounded-range, which gives the tighter epsilon0**2/8). **Choice** (as in the
  notes): both are supported by name and ``"generic"`` is the default;
- zCDP composes additively over the ``steps`` selections (``n - c`` for a spanning forest of a
  graph with ``c`` components; ``n - 1`` for a spanning tree);
- ``rho``-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP, and for a target
  ``(eps, delta)`` the largest admissible rho is ``(sqrt(eps + ln(1/delta)) - sqrt(ln(1/delta)))**2``.

A mechanism exposes its guarantee as a :class:`ZCDPAccounting`, whose ``claim`` is the
:class:`dpverify.PrivacyClaim` that dpverify reads (OpenDP-style "privacy map" as data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from algorithms._validation import check_delta, check_epsilon
from algorithms.errors import InvalidPrivacyParameterError
from dpverify.claims import PrivacyClaim

__all__ = [
    "CONVERSIONS",
    "ZCDPAccounting",
    "RELATIONS",
    "accounting",
    "check_epsilon",
    "check_delta",
    "check_rho",
    "check_sensitivity",
    "zcdp_of_pure_step",
    "epsilon_from_rho",
    "rho_from_epsilon",
    "epsilon0_from_rho",
    "rho_from_epsilon0",
    "accounting_from_epsilon0",
    "accounting_from_rho",
    "accounting_from_epsilon_delta",
    "spanning_forest_accounting",
]

#: Where the spanning-tree claims are stated.
SOURCE = "Pagh et al. 2025, Theorem 3.2 (zCDP composition of the exponential-mechanism steps)"
#: zCDP constant c in rho = c * epsilon0**2 for one epsilon0-DP exponential-mechanism step.
CONVERSIONS = {"generic": 0.5, "bounded-range": 0.125}


#: The neighbouring relations of the private MSTs, in words for the claim.
RELATIONS = {
    "linf": "every edge weight moves by at most {d:g} (l_inf)",
    "l1": "the edge weights move by at most {d:g} in total (l1)",
}


@dataclass(frozen=True)
class ZCDPAccounting:
    """How a private spanning-tree mechanism arrives at its claim: zCDP over its steps.

    The claim itself is a :class:`dpverify.PrivacyClaim` (the one claim type of the
    project); this record keeps the accounting it derives from.

    Attributes
    ----------
    epsilon0_per_step : float
        Pure-DP budget of each exponential-mechanism selection (inf if not applicable).
    steps : int
        Number of selections composed (``n - c`` for a spanning forest).
    rho : float
        Total zCDP parameter (``steps * c * epsilon0**2`` for the named conversion).
    conversion : str
        ``"generic"`` (epsilon0**2/2), ``"bounded-range"`` (epsilon0**2/8), ``"pure"`` (a pure-DP
        claim, e.g. Laplace input privatization) or ``"gaussian"`` (rho from a Gaussian).
    claim : dpverify.PrivacyClaim
        The (epsilon, delta) claim at ``delta`` (from rho, or the pure epsilon when ``delta == 0``),
        with its neighbouring relation and source.
    sensitivity : float
        The neighbouring distance D the claim is for (``max_e |w_e - w'_e| <= D`` by default).
    neighbouring : str
        ``"linf"`` (every weight moves by at most D; Pagh et al. 2025's relation) or ``"l1"``.
    """

    epsilon0_per_step: float
    steps: int
    rho: float
    conversion: str
    claim: PrivacyClaim
    sensitivity: float = 1.0
    neighbouring: str = "linf"

    @property
    def epsilon(self) -> float:
        """The claimed epsilon (``claim.epsilon``)."""
        return self.claim.epsilon

    @property
    def delta(self) -> float:
        """The claimed delta (``claim.delta``)."""
        return self.claim.delta

    @property
    def basic_composition_epsilon(self) -> float:
        """Pure epsilon by basic composition, ``steps * epsilon0`` (valid with delta = 0)."""
        return self.steps * self.epsilon0_per_step


def accounting(
    *, epsilon0, steps, rho, epsilon, delta, conversion, sensitivity, neighbouring="linf", source=SOURCE
) -> ZCDPAccounting:
    """A :class:`ZCDPAccounting` and its :class:`dpverify.PrivacyClaim`, from the accounting's numbers."""
    sensitivity = check_sensitivity(sensitivity)
    claim = PrivacyClaim(
        epsilon,
        float(delta),
        neighbouring=RELATIONS[neighbouring].format(d=sensitivity),
        source=source,
    )
    return ZCDPAccounting(
        epsilon0_per_step=float(epsilon0),
        steps=int(steps),
        rho=float(rho),
        conversion=conversion,
        claim=claim,
        sensitivity=sensitivity,
        neighbouring=neighbouring,
    )


# ----------------------------------------------------------------------------- validation


def check_rho(rho, name: str = "rho") -> float:
    """Return ``float(rho)`` or raise: allowed is a finite real > 0."""
    return check_epsilon(rho, name)


def check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """Return ``float(sensitivity)`` or raise: allowed is a finite real > 0 (the distance D)."""
    return check_epsilon(sensitivity, name)


def _check_steps(steps) -> int:
    if isinstance(steps, bool) or not isinstance(steps, int) and not hasattr(steps, "__index__"):
        raise InvalidPrivacyParameterError(f"steps must be a positive integer, got {steps!r}")
    steps = int(steps)
    if steps < 1:
        raise InvalidPrivacyParameterError(f"steps must be a positive integer, got {steps}")
    return steps


def _check_conversion(conversion: str) -> float:
    try:
        return CONVERSIONS[conversion]
    except KeyError:
        raise InvalidPrivacyParameterError(
            f"conversion must be one of {sorted(CONVERSIONS)}, got {conversion!r}"
        ) from None


# ----------------------------------------------------------------------------- conversions


def zcdp_of_pure_step(epsilon0: float, conversion: str = "generic") -> float:
    """zCDP rho of one epsilon0-DP exponential-mechanism step: epsilon0**2/2 (generic) or epsilon0**2/8."""
    return _check_conversion(conversion) * check_epsilon(epsilon0, "epsilon0") ** 2


def epsilon_from_rho(rho: float, delta: float) -> float:
    """rho-zCDP implies (rho + 2 sqrt(rho ln(1/delta)), delta)-DP (Bun & Steinke 2016, Prop. 1.3)."""
    rho = check_rho(rho)
    delta = check_delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def rho_from_epsilon(epsilon: float, delta: float) -> float:
    """Largest rho with ``epsilon_from_rho(rho, delta) <= epsilon``: (sqrt(eps + L) - sqrt(L))**2, L = ln(1/delta)."""
    epsilon = check_epsilon(epsilon)
    log_inv = math.log(1.0 / check_delta(delta))
    return (math.sqrt(epsilon + log_inv) - math.sqrt(log_inv)) ** 2


def epsilon0_from_rho(rho: float, steps: int, conversion: str = "generic") -> float:
    """Per-step epsilon0 whose ``steps``-fold composition is rho-zCDP: sqrt(rho / (c * steps))."""
    return math.sqrt(check_rho(rho) / (_check_conversion(conversion) * _check_steps(steps)))


def rho_from_epsilon0(epsilon0: float, steps: int, conversion: str = "generic") -> float:
    """Total rho of ``steps`` epsilon0-DP steps: steps * c * epsilon0**2."""
    return _check_steps(steps) * zcdp_of_pure_step(epsilon0, conversion)


# ----------------------------------------------------------------------------- claims


def accounting_from_epsilon0(
    epsilon0: float,
    steps: int,
    delta: float,
    *,
    conversion: str = "generic",
    sensitivity: float = 1.0,
) -> ZCDPAccounting:
    """The accounting of ``steps`` exponential-mechanism selections of epsilon0 each; its claim at ``delta``."""
    rho = rho_from_epsilon0(epsilon0, steps, conversion)
    return _accounting_of(epsilon0, steps, rho, delta, conversion, sensitivity)


def accounting_from_rho(
    rho: float,
    steps: int,
    delta: float,
    *,
    conversion: str = "generic",
    sensitivity: float = 1.0,
) -> ZCDPAccounting:
    """Calibrate epsilon0 for a total rho over ``steps`` selections: the accounting, with its claim at ``delta``."""
    epsilon0 = epsilon0_from_rho(rho, steps, conversion)
    return _accounting_of(epsilon0, steps, rho, delta, conversion, sensitivity)


def _accounting_of(epsilon0, steps, rho, delta, conversion, sensitivity) -> ZCDPAccounting:
    return accounting(
        epsilon0=epsilon0,
        steps=steps,
        rho=rho,
        epsilon=epsilon_from_rho(rho, delta),
        delta=delta,
        conversion=conversion,
        sensitivity=sensitivity,
    )


def accounting_from_epsilon_delta(
    epsilon: float,
    delta: float,
    steps: int,
    *,
    conversion: str = "generic",
    sensitivity: float = 1.0,
) -> ZCDPAccounting:
    """Calibrate epsilon0 so that ``steps`` selections are (epsilon, delta)-DP via zCDP."""
    rho = rho_from_epsilon(epsilon, delta)
    return accounting_from_rho(rho, steps, delta, conversion=conversion, sensitivity=sensitivity)


def spanning_forest_accounting(
    data,
    epsilon0: float,
    delta: float,
    *,
    conversion: str = "generic",
    sensitivity: float = 1.0,
) -> ZCDPAccounting:
    """The accounting (and claim) of Algorithms 1, 2, 3 and PAMST on ``data``'s (public) topology.

    ``n - c`` exponential-mechanism selections (c = number of connected components; ``n - 1``
    for a connected graph), each epsilon0-DP, composed by zCDP (Pagh et al. 2025, Theorem 3.2).
    """
    from algorithms.graphs import as_graph_arrays, number_of_components

    g = as_graph_arrays(data)
    steps = max(g.n - number_of_components(g), 1)
    return accounting_from_epsilon0(epsilon0, steps, delta, conversion=conversion, sensitivity=sensitivity)
