"""Event families: the sets S on which an audit compares P[M(x) in S] and P[M(x') in S].

A family is a function ``family(sel_x, sel_x_prime, outputs) -> Candidates``
registered with :func:`register_event_family`, which records the kind of
outputs it applies to and its *role*: ``"value"`` for events on the output
values (what the mechanism computes in exact arithmetic), ``"implementation"``
for events on artefacts of how the outputs are represented (the low-order bits
of floating-point numbers, Mironov 2012). Selection and verdicts ask for roles
(:func:`families_of_role`, :func:`family_role`), never for family names.

Importing this package registers the built-in families, in the order in which
candidates are built and reported:

- :mod:`.base`: singletons, likelihood-ratio level sets, thresholds on numbers,
  rows and projections, exact real values (role ``"value"``);
- :mod:`.floating`: mantissa codes and reachability cells (role ``"implementation"``);
- :mod:`.classifier`: level sets of a learned likelihood-ratio score (role ``"value"``).
"""

from . import base, floating, classifier  # noqa: I001  (the import order is the registration order)
from .base import (
    Candidates,
    Event,
    candidate_events,
    event_families,
    families_of_role,
    family_role,
    register_event_family,
    registered_families,
)

__all__ = [
    "Candidates",
    "Event",
    "candidate_events",
    "event_families",
    "families_of_role",
    "family_role",
    "register_event_family",
    "registered_families",
    "base",
    "floating",
    "classifier",
]
