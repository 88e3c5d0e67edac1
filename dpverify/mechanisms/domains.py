"""The input domain of each zoo mechanism, as a neighbour generator a search audit can explore.

:func:`zoo_domain` maps a :class:`~dpverify.mechanisms.catalogue.ZooEntry` to the
neighbouring relation its mechanism's claim is about, built from the shape of
its inputs alone (never from the entry's hand-picked pair): the first
registered relation whose input domain holds the entry's pair
(:func:`dpverify.neighbours.relations.domain_neighbours`: scalars for the
additive mechanisms, vectors of query answers with StatDP's patterns, l_inf for
counting queries, for the selection and sparse vector mechanisms), unless the
mechanism names its relation in ``input_relation`` (the two bits of randomized
response; vectors in l1 for histograms).
"""

from __future__ import annotations

from ..neighbours.relations import bit_pairs, domain_neighbours

__all__ = ["zoo_domain", "bit_pairs"]


def zoo_domain(entry):
    """The neighbour generator of ``entry``'s input domain (see the module docstring)."""
    name, parameters = getattr(entry.mechanism, "input_relation", (None, {}))
    return domain_neighbours(entry.x, entry.x_prime, name, **parameters)
