"""Verifications this family registers with ``dpverify suite``."""


def verifications():
    """Return the list of :class:`dpverify.suite.Verification` of this family."""
    return []
