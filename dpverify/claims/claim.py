"""A privacy claim as data: what a mechanism promises, in which form, for which neighbours, on whose word.

One claim type serves the auditor and every algorithm family (cf. OpenDP, where a
measurement carries its privacy map, and DP-Auditorium's ``PureDp``, ``ApproximateDp``
and ``RenyiDp`` configs). A claim has a *kind* (:mod:`dpverify.claims.kinds`):
(epsilon, delta)-DP, rho-zCDP, Rényi DP, mu-Gaussian DP, a trade-off curve or a registered
third-party kind, each audited in its own form, with the kind's own parameters. A
mechanism states its claim as a ``claim`` attribute holding a :class:`PrivacyClaim`;
:func:`claim_of` reads it, and the audit drivers use it when they are not given one. The
families' own accounting (a zCDP ``rho``, an ``epsilon0`` per step, per-arm budgets)
derives from, or leads to, such a claim and lives beside it in the family.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, field, fields, replace

from .. import _validation as check
from .._results import PlainData, to_plain
from ..errors import InvalidClaimError
from ..options import _callable_name, _import_callable
from .kinds import ClaimKind
from .parameters import KindParameters, parse_claim_text
from .registry import claim_kind
from .tradeoff import TRADEOFF_GRID, tradeoff_lower

__all__ = ["PrivacyClaim", "StatesClaim", "claim_of", "stated_claim", "resolve_claim", "MODELS"]

#: Where the privacy holds: on the mechanism's whole output (central) or on each report a
#: user sends (local).
MODELS = ("central", "local")

#: The fields of the kinds' parameters, written to plain data only where set.
_KIND_FIELDS = ("kind", "rho", "mu", "orders", "renyi_epsilons", "tradeoff_curve")


@dataclass(frozen=True)
class PrivacyClaim(PlainData):
    """A privacy guarantee in the form its source states it, and where it comes from.

    ``PrivacyClaim(epsilon, delta)`` is an (epsilon, delta)-DP claim; the other kinds
    have constructors: :meth:`zcdp`, :meth:`renyi`, :meth:`gdp`, :meth:`tradeoff`, and
    :meth:`of` makes a claim of any registered kind from its parameters
    (``PrivacyClaim.of("my-kind", kappa=0.3)``), :meth:`from_text` from the command line's
    ``KIND:NAME=VALUE[,NAME=VALUE]``.
    ``PrivacyClaim.from_dict(claim.to_dict())`` reloads any of them exactly, with one
    exception: a trade-off callable is saved by its name (``"module:qualname"``) where that
    name imports it back, and otherwise as its values on
    :data:`~dpverify.claims.tradeoff.TRADEOFF_GRID`, read back as a step function through
    them (never more than the callable states, but a weaker claim): that reload says so in
    ``approximated``, does not compare equal to the claim saved, and does not replay.

    Attributes
    ----------
    epsilon : float or None
        (epsilon, delta)-DP: the claimed epsilon, finite and >= 0 (0 claims that no
        output reveals anything, as where no two inputs are neighbours). An audit
        needs epsilon > 0 and checks its own domain when it reads the claim. None
        for the other kinds.
    delta : float, default 0
        Claimed delta, in [0, 1) ((epsilon, delta)-DP only).
    neighbouring : str
        The neighbouring relation the claim is for, in words (``"add/remove one
        record"``, ``"one weight moves by at most 1"``...).
    source : str
        Where the claim is stated (paper and theorem, library accounting, ...).
    model : {"central", "local"}
        Whether the claim covers the whole output or each user's report.
    stated_epsilon : float or None
        The epsilon the source states, where it differs from ``epsilon`` (a
        paper that states ``2 eps`` for what its proof gives as ``eps``).
    kind : str, default "dp"
        The claim's kind (:func:`dpverify.claims.kinds.claim_kinds`): ``"dp"``,
        ``"zcdp"``, ``"renyi"``, ``"gdp"`` or ``"tradeoff"``.
    rho : float or None
        rho-zCDP: ``D_alpha(M(x) || M(x')) <= rho * alpha`` for every ``alpha > 1``.
    mu : float or None
        mu-Gaussian DP.
    orders, renyi_epsilons : tuple of float or None
        Rényi DP: ``D_alpha <= renyi_epsilons[i]`` at ``alpha = orders[i]``.
    tradeoff_curve : callable or tuple of (float, float) or None
        f-DP: the trade-off function, or points on it.
    approximated : str
        Empty for the claim as stated; for a claim reloaded from an approximation of the one
        saved (a trade-off callable saved as points), why and how.
    params : KindParameters
        The parameters of a kind's own (those of its ``fields`` that are not fields here,
        as a third-party kind's ``"kappa"``), name to plain value; read as attributes
        (``claim.kappa``), saved beside ``kind`` in :meth:`to_dict`. Empty for the built-in
        kinds.

    Examples
    --------
    >>> from dpverify.claims import PrivacyClaim
    >>> PrivacyClaim(1.0, source="Dwork and Roth 2014, Theorem 3.6")
    PrivacyClaim(epsilon=1.0, source='Dwork and Roth 2014, Theorem 3.6')
    >>> print(PrivacyClaim.zcdp(0.5, source="Bun and Steinke 2016, Proposition 1.6"))
    rho=0.5 (zCDP) (Bun and Steinke 2016, Proposition 1.6)
    """

    epsilon: float | None = None
    delta: float = 0.0
    neighbouring: str = ""
    source: str = ""
    model: str = "central"
    stated_epsilon: float | None = None
    kind: str = "dp"
    rho: float | None = None
    mu: float | None = None
    orders: tuple | None = None
    renyi_epsilons: tuple | None = None
    tradeoff_curve: object = None
    approximated: str = ""
    params: KindParameters = field(default_factory=KindParameters)

    def __post_init__(self):
        kind = self.kind_record
        own = _own_parameters(kind)
        params = KindParameters(self.params)
        object.__setattr__(self, "params", params)
        others = [f for f in _KIND_FIELDS[1:] + ("epsilon",) if f not in kind.fields and getattr(self, f) is not None]
        others += [name for name in params if name not in own]
        check.check_empty(others, f"a {kind.title} claim states {list(kind.fields)}; it cannot also state {others}")
        missing = [name for name in own if name not in params]
        check.check_empty(missing, f"a {kind.title} claim states {list(kind.fields)}; missing {missing}")
        check.check_not_both(
            kind.name != "dp",
            kind.name != "dp" and self.delta,
            f"a {kind.title} claim has no delta (got delta={self.delta!r})",
            InvalidClaimError,
        )
        checked = _checked(kind, self)
        for name, value in checked.items():
            if name not in own:
                object.__setattr__(self, name, value)
        object.__setattr__(self, "params", KindParameters({name: checked.get(name, params[name]) for name in own}))
        check.check_choice(self.model, "model", MODELS, InvalidClaimError)
        if self.stated_epsilon is not None:
            object.__setattr__(
                self, "stated_epsilon", check.check_claimed_epsilon(self.stated_epsilon, "stated_epsilon")
            )

    # -- constructors of the other kinds --------------------------------------------------

    @classmethod
    def zcdp(cls, rho, **meta) -> PrivacyClaim:
        """A rho-zCDP claim (Bun and Steinke 2016); ``meta``: neighbouring, source, model."""
        return cls(kind="zcdp", rho=rho, **meta)

    @classmethod
    def renyi(cls, alpha, epsilon, **meta) -> PrivacyClaim:
        """An (alpha, epsilon)-Rényi DP claim (Mironov 2017): one order, or a curve
        (``alpha`` a sequence of orders and ``epsilon`` one value per order, or a callable
        of the order)."""
        return cls(kind="renyi", orders=alpha, renyi_epsilons=epsilon, **meta)

    @classmethod
    def gdp(cls, mu, **meta) -> PrivacyClaim:
        """A mu-Gaussian DP claim (Dong, Roth and Su 2022)."""
        return cls(kind="gdp", mu=mu, **meta)

    @classmethod
    def tradeoff(cls, f, **meta) -> PrivacyClaim:
        """An f-DP claim (Dong, Roth and Su 2022): ``f`` a trade-off function (callable on
        arrays of type I errors) or points ``[(type I, type II), ...]`` on it."""
        return cls(kind="tradeoff", tradeoff_curve=f, **meta)

    @classmethod
    def of(cls, kind: str, /, **values) -> PrivacyClaim:
        """A claim of the registered kind ``kind``: ``values`` its parameters by the names of its
        ``fields`` (``PrivacyClaim.of("zcdp", rho=0.5)``, ``PrivacyClaim.of("my-kind", kappa=0.3)``)
        and any of neighbouring, source, model, stated_epsilon.

        Raises
        ------
        InvalidClaimError
            An unknown kind (the message lists the registered ones), a name that is not one of
            its parameters, a parameter missing, or a value its check refuses.
        """
        return cls(kind=kind, **_with_params(values))

    @classmethod
    def from_text(cls, text: str) -> PrivacyClaim:
        """The claim written ``KIND:NAME=VALUE[,NAME=VALUE]`` (the command line's ``--claim``): the
        plain data ``{"kind": KIND, NAME: VALUE}`` read by :meth:`from_dict`, a VALUE read as JSON
        where it parses (:func:`~dpverify.claims.parameters.parse_claim_text`).

        >>> print(PrivacyClaim.from_text("renyi:orders=[2,4],renyi_epsilons=[0.5,1]"))
        Rényi curve {2: 0.5, 4: 1} (2 orders)

        Raises
        ------
        InvalidClaimError
            Text not of that form, or data :meth:`from_dict` refuses.
        """
        return cls.from_dict(parse_claim_text(text))

    # -- reading the claim -----------------------------------------------------------------

    def __getattr__(self, name):
        """A parameter of the kind's own (:attr:`params`) read as an attribute: ``claim.kappa``."""
        params = self.__dict__.get("params", {})
        if name in params:
            return params[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    @property
    def kind_record(self) -> ClaimKind:
        """The :class:`~dpverify.claims.kinds.ClaimKind` this claim is of."""
        return claim_kind(self.kind)

    @property
    def parameter(self) -> float:
        """The value an audit's ``claim_lower_bound`` is compared with (epsilon, rho, mu, the
        Rényi epsilon at one order, 1 for a Rényi curve's scale, 0 for a trade-off depth)."""
        return float(self.kind_record.claimed_value(self))

    def margin(self, bound: float) -> float:
        """How far a certified lower ``bound`` on :attr:`parameter` lies past this claim, in one measure
        for every kind: ``bound / parameter - 1`` where the claimed value is > 0 (the relative excess:
        0.25 is 25% above the claim, -1 nothing certified), ``bound - parameter`` where it is 0 (a
        trade-off curve's depth, in type II error). Positive exactly when the bound exceeds the claim.

        The parameters scale differently (rho is about eps^2 / 2 for the same noise), so margins of
        two kinds compare as relative excesses of their own parameters, not as one privacy loss.
        """
        claimed = self.parameter
        return float(bound) / claimed - 1.0 if claimed > 0 else float(bound) - claimed

    @property
    def parameter_name(self) -> str:
        """The name of :attr:`parameter` (``"rho"``, ``"Rényi epsilon at order 2"``), as summaries print it."""
        return self.kind_record.parameter_name(self)

    @property
    def is_pure(self) -> bool:
        """True for a pure (epsilon, 0)-DP claim."""
        return self.kind == "dp" and self.delta == 0.0

    def __str__(self) -> str:
        text = self.kind_record.describe(self)
        text += f" ({self.source})" if self.source else ""
        return text + (f" [approximated: {self.approximated}]" if self.approximated else "")

    def __repr__(self) -> str:
        shown = [
            f"{f.name}={getattr(self, f.name)!r}"
            for f in fields(self)
            if getattr(self, f.name) != _default(f) or (f.name == "epsilon" and self.kind == "dp")
        ]
        return f"PrivacyClaim({', '.join(shown)})"

    def _key(self) -> tuple:
        """The fields as compared: plain data, a callable as itself (equal only to itself)."""
        return tuple((f.name, v if callable(v) else to_plain(v)) for f in fields(self) for v in [getattr(self, f.name)])

    def __eq__(self, other):
        if not isinstance(other, PrivacyClaim):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(repr(self._key()))

    def to_dict(self) -> dict:
        """Plain data; the fields of other kinds are left out (an (epsilon, delta) claim's
        dict is the one saved before there were kinds), and a kind's own parameters
        (:attr:`params`) are entries beside ``kind``, as :meth:`from_text` writes them."""
        data, approximated = {}, [self.approximated]
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _KIND_FIELDS and (f.name == "kind" and value == "dp" or f.name != "kind" and value is None):
                continue
            if f.name == "params":
                data.update(to_plain(value))
                continue
            if f.name == "tradeoff_curve" and callable(value):
                value, why = _saved_function(value)
                approximated.append(why)
            if f.name != "approximated":
                data[f.name] = to_plain(value)
        if any(approximated):
            data["approximated"] = "; ".join(a for a in approximated if a)
        return data

    @classmethod
    def from_dict(cls, data: dict) -> PrivacyClaim:
        """The claim :meth:`to_dict` saved: a name that is not a field is a parameter of the kind's own.

        Raises
        ------
        InvalidClaimError
            As :meth:`of`; a trade-off function saved by a name that does not import.
        """
        check.check_instance(
            data, Mapping, f"a claim's data is the dict to_dict() gave, got {type(data).__name__}", InvalidClaimError
        )
        data = _with_params(data)
        for name in ("orders", "renyi_epsilons"):
            if data.get(name) is not None:
                data[name] = tuple(data[name])
        curve = data.get("tradeoff_curve")
        if isinstance(curve, str):  # a function saved by its name
            data["tradeoff_curve"] = check.check_call(
                lambda: _import_callable(curve),
                lambda error: f"cannot import the trade-off function {curve!r} the claim was saved with: {error!r}",
                InvalidClaimError,
            )
        elif curve is not None:
            data["tradeoff_curve"] = tuple(tuple(p) for p in curve)
        return cls(**data)

    def with_meta(self, **meta) -> PrivacyClaim:
        """The same claim with other neighbouring, source or model."""
        return replace(self, **meta)


#: The names of the claim's fields; a kind's parameter of another name is one of its own.
_FIELD_NAMES = frozenset(f.name for f in fields(PrivacyClaim))
#: The fields that hold built-in kinds' parameters, which another kind may share.
_PARAMETER_FIELDS = frozenset(("epsilon", "delta", *_KIND_FIELDS[1:]))
#: Names no kind's parameter can take: the claim's other fields (source, model...), and its methods and
#: properties (``claim.NAME`` would read those, not the parameter).
_ATTRIBUTES = frozenset(dir(PrivacyClaim)) | _FIELD_NAMES - _PARAMETER_FIELDS


def _own_parameters(kind: ClaimKind) -> tuple:
    """The names of ``kind``'s own parameters (its ``fields`` that are not fields of a claim).

    Raises
    ------
    InvalidClaimError
        One that is the name of a claim's method, property or field other than a built-in kind's
        parameter (``claim.NAME`` would not read it).
    """
    own = tuple(name for name in kind.fields if name not in _FIELD_NAMES)
    taken = [name for name in kind.fields if name in _ATTRIBUTES and name not in _PARAMETER_FIELDS]
    check.check_empty(
        taken,
        f"claim kind {kind.name!r} names its parameters {taken}, which PrivacyClaim has as attributes; rename them",
    )
    return own


def _default(f):
    """A field's default value (made by its factory where it has one)."""
    return f.default_factory() if f.default is MISSING else f.default


def _with_params(values) -> dict:
    """``values`` with each name that is not a claim's field moved into ``params``."""
    values = dict(values)
    own = {name: values.pop(name) for name in list(values) if name not in _FIELD_NAMES}
    if own:
        values["params"] = {**values.get("params", {}), **own}
    return values


def _checked(kind: ClaimKind, claim: PrivacyClaim) -> dict:
    """``kind.check(claim)``, a dict of some of the kind's fields; an error other than
    :class:`InvalidClaimError` (a kind's check that calls ``float`` on text) becomes one that names
    the kind and the parameters."""
    try:
        checked = kind.check(claim)
    except InvalidClaimError:
        raise
    except Exception as exc:
        given = {name: getattr(claim, name) for name in kind.fields}
        raise InvalidClaimError(f"claim kind {kind.name!r} refuses the parameters {given}: {exc!r}") from exc
    valid = isinstance(checked, dict) and set(checked) <= set(kind.fields)
    message = f"claim kind {kind.name!r}: check(claim) must give a dict of its fields {kind.fields}, got {checked!r}"
    check.check_given(valid or None, message)
    return checked


def _saved_function(f) -> tuple:
    """A trade-off callable as saved: ``(its "module:qualname", "")`` where that name imports it back, else
    ``(its values on TRADEOFF_GRID as points, why they approximate it)``."""
    name = _callable_name(f)
    try:
        if _import_callable(name) is f:
            return name, ""
    except Exception:  # not importable by that name (a lambda, a closure, a partial)
        pass
    points = tuple(zip(TRADEOFF_GRID.tolist(), tradeoff_lower(f, TRADEOFF_GRID).tolist()))
    shown = getattr(f, "__qualname__", None) or type(f).__name__
    return points, (
        f"the trade-off function {shown} cannot be imported by name, so it was saved as its values at "
        f"{len(TRADEOFF_GRID)} type I errors and read back as a step function through them (a weaker claim); "
        "define it at module level to save it exactly"
    )


def claim_of(mechanism) -> PrivacyClaim | None:
    """The claim ``mechanism`` states (its ``claim`` attribute), or None when it states none.

    Raises
    ------
    InvalidClaimError
        A ``claim`` attribute that is not a :class:`PrivacyClaim`.
    """
    claim = getattr(mechanism, "claim", None)
    check.check_instance(
        claim,
        (PrivacyClaim, type(None)),
        f"{type(mechanism).__name__}.claim must be a dpverify.claims.PrivacyClaim (or None), got {claim!r}",
        InvalidClaimError,
    )
    return claim


def stated_claim(mechanism) -> PrivacyClaim | None:
    """The claim ``mechanism`` states: its ``claim`` attribute (:func:`claim_of`), else a real ``epsilon``
    attribute with its ``delta`` (0 when it has none); None when it states neither."""
    stated = claim_of(mechanism)
    if stated is None and _epsilon_attribute(mechanism) is not None:
        stated_delta = getattr(mechanism, "delta", 0.0)
        stated = PrivacyClaim(_epsilon_attribute(mechanism), stated_delta if stated_delta is not None else 0.0)
    return stated


def _epsilon_attribute(mechanism) -> float | None:
    """A real ``epsilon`` attribute of a mechanism without a ``claim`` (None otherwise)."""
    value = getattr(mechanism, "epsilon", None)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def resolve_claim(mechanism, epsilon=None, delta=None, claim=None) -> tuple[PrivacyClaim, tuple]:
    """The claim to audit: ``claim``, or ``epsilon`` and ``delta``, or what the mechanism states.

    The rule every entry point follows (Python drivers, :func:`dpverify.testing.assert_dp`
    and the command line):

    1. ``claim=`` (a :class:`PrivacyClaim` of any kind) is audited as given;
    2. else ``epsilon=`` (and ``delta=``) make an (epsilon, delta)-DP claim; an omitted
       delta is the stated one when the epsilon is the stated one, else 0;
    3. else the claim the mechanism states: its ``claim`` attribute, in its own kind, or,
       failing that, a real ``epsilon`` attribute (with ``delta``, if any).

    Returns the claim and the notes an audit result should carry: a note when the
    audited claim differs from the one the mechanism states (its ``claim``, or its
    ``epsilon`` attribute), so that a mistyped or forgotten value is never silent.

    Raises
    ------
    InvalidClaimError
        Both ``claim`` and ``epsilon``/``delta``; none of them and nothing stated; values
        out of the audit's domain (epsilon, rho, mu must be > 0).
    """
    stated = stated_claim(mechanism)
    if claim is not None:
        check.check_claim_once(epsilon, delta)
        check.check_instance(
            claim,
            PrivacyClaim,
            f"claim must be a dpverify.PrivacyClaim (PrivacyClaim(eps, delta), PrivacyClaim.zcdp(rho), "
            f".renyi(alpha, eps), .gdp(mu), .tradeoff(f)), got {claim!r}",
            InvalidClaimError,
        )
        audited = _audit_domain(claim)
    else:
        if epsilon is None:
            check.check_given(
                stated,
                "no claim given, and the mechanism states no claim (a dpverify.claims.PrivacyClaim as its `claim` "
                "attribute, or a real `epsilon` attribute): pass epsilon= (and delta= for an approximate "
                "claim), or claim=PrivacyClaim.zcdp(rho) / .renyi(alpha, eps) / .gdp(mu) / .tradeoff(f)",
            )
            if stated.kind != "dp":
                return _audit_domain(stated), ()
            epsilon = stated.epsilon
        epsilon = check.check_epsilon(epsilon)  # the audit's domain: > 0 and finite
        if delta is None:
            delta = stated.delta if stated is not None and stated.kind == "dp" and epsilon == stated.epsilon else 0.0
        audited = PrivacyClaim(epsilon, delta)
    if stated is None or _same_claim(audited, stated):
        return audited, ()
    what = "the one the mechanism states" if claim_of(mechanism) is not None else "its `epsilon` attribute"
    return audited, (
        f"the audited claim ({audited}) differs from {what} ({stated}); omit the claim to audit the stated one",
    )


def _same_claim(a: PrivacyClaim, b: PrivacyClaim) -> bool:
    meta = dict(neighbouring="", source="", model="central", stated_epsilon=None)
    return replace(a, **meta) == replace(b, **meta)


def _audit_domain(claim: PrivacyClaim) -> PrivacyClaim:
    """``claim`` if an audit can test it (:func:`dpverify._validation.check_audit_domain`)."""
    return check.check_audit_domain(claim)


class StatesClaim:
    """Mixin for a mechanism whose privacy parameters are its claim: ``claim`` from ``epsilon`` and ``delta``.

    A class sets :attr:`claim_neighbouring` (its relation, a template formatted
    with the instance's attributes, e.g. ``"|x - x'| <= {sensitivity:g}"``) and
    :attr:`claim_source`. A deliberately broken subclass states the claim its
    parameters make, which is false; that is what an audit must catch.
    """

    #: The neighbouring relation, formatted with the instance's attributes.
    claim_neighbouring: str = ""
    #: Where the claim is stated.
    claim_source: str = ""

    @property
    def claim(self) -> PrivacyClaim:
        """The claim this mechanism states (:class:`PrivacyClaim`)."""
        return PrivacyClaim(
            self.epsilon,
            getattr(self, "delta", 0.0),
            neighbouring=self.claim_neighbouring.format(**vars(self)),
            source=self.claim_source,
        )

    @property
    def claims(self) -> tuple:
        """Every claim the mechanism states, one per kind it has: :attr:`claim` first, then
        :meth:`other_claims` (zCDP, Rényi, Gaussian DP...)."""
        return (self.claim, *self.other_claims())

    def other_claims(self) -> tuple:
        """The mechanism's claims in the other kinds: for a pure epsilon-DP claim, the
        ``epsilon^2 / 2``-zCDP it implies (Bun and Steinke 2016, Proposition 1.4); classes
        with tighter claims state them."""
        if getattr(self, "delta", 0.0):
            return ()
        return (
            PrivacyClaim.zcdp(
                self.epsilon**2 / 2,
                neighbouring=self.claim_neighbouring.format(**vars(self)),
                source="Bun and Steinke 2016, Proposition 1.4 (epsilon-DP implies epsilon^2/2-zCDP)",
            ),
        )
