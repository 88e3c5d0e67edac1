"""How an audit runs: one frozen options object that every driver takes and every result records.

Every driver (:func:`dpverify.audit`, :func:`dpverify.sequential_audit`,
:func:`dpverify.audit_samples`, :func:`dpverify.delta_lower_bound_curve`,
:func:`dpverify.audit_pairs`, :func:`dpverify.search_audit`, :func:`dpverify.testing.assert_dp`,
and the distribution tests :func:`dpverify.equal_distributions` and
:func:`dpverify.goodness_of_fit`, which use the options that do not choose events)
takes the claim, the inputs, the sample count, the seed and an
:class:`AuditOptions`; any field of it may also be passed as a keyword
(``audit(..., alpha=0.01)`` is ``audit(..., options=AuditOptions(alpha=0.01))``;
a keyword given beside ``options`` replaces that field). The result records the
options it ran with, so that a report or a replay needs only the result.

``executor`` and ``progress`` say where and how visibly the work runs; they do
not change any result and are not recorded.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from dataclasses import dataclass, field

from . import _validation as check
from .errors import InvalidParameterError

__all__ = ["AuditOptions", "resolve_options", "DEFAULT_ALPHA", "DEFAULT_SAMPLES"]


@dataclass(frozen=True)
class AuditOptions:
    """Options shared by the audit drivers.

    Attributes
    ----------
    alpha : float or None
        Test level: the false-alarm rate of ``violation`` on a mechanism that
        keeps its claim; ``1 - alpha`` is the confidence of the bounds. None
        (the default) means the driver's default level: :data:`DEFAULT_ALPHA`
        for the audits, :data:`dpverify.testing.DEFAULT_TEST_ALPHA` (1e-6) for
        the test-suite assertion. A result records the level it ran at.
    n_selection : int or None
        Samples per input that choose the event (held in memory); None for the
        default split (:func:`dpverify.pipeline.selection.default_selection_size`).
    n_chunks : int or None
        Certification chunks per input; None for
        :func:`dpverify.pipeline.sampling.default_chunks`. Part of the seeding,
        like the seed.
    event_families : tuple of str or None
        Restrict the candidate events to these registered families
        (:func:`dpverify.events.registered_families`), at least one; None for all.
    float_events : bool, default True
        With False, the families of role ``"implementation"`` (floating-point
        mantissa and reachability events) are left out: the audit judges the
        output values only.
    output_key : callable or None
        Maps every output to a hashable or numeric value before anything else
        sees it (e.g. :func:`dpverify.keys.weighted_edges`); must be picklable
        to run on other processes.
    executor : None, int, concurrent.futures.Executor or distributed.Client
        Where sampling chunks run; results do not depend on it (not recorded).
    progress : bool, default False
        Show progress on long runs (not recorded).
    """

    alpha: float | None = None
    n_selection: int | None = None
    n_chunks: int | None = None
    event_families: tuple | None = None
    float_events: bool = True
    output_key: Callable | None = None
    executor: object = field(default=None, compare=False, repr=False)
    progress: bool = field(default=False, compare=False, repr=False)

    def __post_init__(self):
        if self.alpha is not None:
            object.__setattr__(self, "alpha", check.check_alpha(self.alpha))
        if self.n_selection is not None:
            object.__setattr__(self, "n_selection", check.check_positive_int(self.n_selection, "n_selection"))
        if self.n_chunks is not None:
            object.__setattr__(self, "n_chunks", check.check_positive_int(self.n_chunks, "n_chunks"))
        if self.event_families is not None:
            object.__setattr__(self, "event_families", check.check_names(self.event_families, "event_families"))

        check.check_bool(self.float_events, "float_events")
        check.check_bool(self.progress, "progress")
        check.check_optional_callable(self.output_key, "output_key")

    @property
    def families(self) -> list | None:
        """``event_families`` as the list the pipeline takes (None for all)."""
        return None if self.event_families is None else list(self.event_families)

    def to_dict(self) -> dict:
        """The recorded fields as plain data (``output_key`` as ``"module:qualname"``)."""
        return {
            "alpha": self.alpha,
            "n_selection": self.n_selection,
            "n_chunks": self.n_chunks,
            "event_families": None if self.event_families is None else list(self.event_families),
            "float_events": self.float_events,
            "output_key": _callable_name(self.output_key),
        }

    @classmethod
    def from_dict(cls, data: dict) -> AuditOptions:
        """Rebuild from :meth:`to_dict` (an ``output_key`` is imported by its name)."""
        data = dict(data)
        data["output_key"] = _import_callable(data.get("output_key"))
        return cls(**data)


#: The fields a driver accepts as keyword shortcuts.
OPTION_FIELDS = tuple(f.name for f in dataclasses.fields(AuditOptions))


#: The level of an audit whose options leave ``alpha`` unset.
DEFAULT_ALPHA = 0.05
#: Samples per input of an audit that is not told how many.
DEFAULT_SAMPLES = 100_000


def resolve_options(
    options: AuditOptions | None, shortcuts: dict, *, driver: str, default_alpha: float = DEFAULT_ALPHA
) -> AuditOptions:
    """``options`` (or the defaults) with the keyword ``shortcuts`` replacing their fields.

    An ``alpha`` left unset (None) becomes the driver's ``default_alpha``, so the
    options a result records always name the level it ran at.

    Raises
    ------
    InvalidArgumentTypeError
        (a ``TypeError``) A keyword that is not a field of :class:`AuditOptions` (the message lists them).
    InvalidParameterError
        ``options`` that is not an :class:`AuditOptions`, or a field out of its domain.
    """
    check.check_keywords(shortcuts, OPTION_FIELDS, driver)
    if options is None:
        options = AuditOptions(**shortcuts)
    elif not isinstance(options, AuditOptions):
        raise InvalidParameterError(f"options must be a dpverify.AuditOptions, got {type(options).__name__}")
    elif shortcuts:
        options = dataclasses.replace(options, **shortcuts)
    if options.alpha is None:
        options = dataclasses.replace(options, alpha=default_alpha)
    return options


def _callable_name(fn) -> str | None:
    if fn is None:
        return None
    module, name = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
    if module is None or name is None or "<" in name:
        return repr(fn)
    return f"{module}:{name}"


def _import_callable(name):
    if name is None or callable(name):
        return name
    module, _, qualname = str(name).partition(":")
    if not qualname:
        raise InvalidParameterError(f"cannot rebuild output_key {name!r}: it was not saved as 'module:qualname'")
    target = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target
