"""Figure reproductions this family registers with ``dpverify reproduce``."""


def reproductions():
    """Return the list of :class:`dpverify.reproduce.Reproduction` of this family."""
    return []
