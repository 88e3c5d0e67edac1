"""The power note of an audit that found no violation: what its certification budget could have seen.

An audit that finds no violation has not shown that there is none. The claim's kind says how small a
violation its budget resolves (:attr:`dpverify.claims.ClaimKind.power_note`; for (epsilon, delta)-DP the
floors of :mod:`dpverify.support.power`), and :func:`power_note` asks it for the drivers.
"""

from __future__ import annotations

__all__ = ["power_note"]


def power_note(result) -> str | None:
    """The note an audit result adds when it found no violation: the smallest violation its budget resolves.

    ``None`` for a violation (the result speaks for itself), a result without certification counts, or a
    claim whose kind gives no such note (:attr:`dpverify.claims.ClaimKind.power_note`).
    """
    n = int(getattr(result.event, "n_certification", 0) or 0)
    if result.violation or n <= 0:
        return None
    note = result.audited_claim.kind_record.power_note
    return None if note is None else note(result)
