"""Deprecated alias: ``dpverify.zoo`` became :mod:`dpverify.mechanisms` in 0.2; removed in 0.3.

The textbook mechanisms it held live in :mod:`dpverify.mechanisms.textbook` (and are re-exported
by :mod:`dpverify.mechanisms`), its suite verifications in :mod:`dpverify.mechanisms.verifications`.
Importing this module warns (``DeprecationWarning``) and re-exports the names it had.
"""

import warnings

from .mechanisms.textbook import ExponentialMechanism, GeometricMechanism, LaplaceMechanism, RandomizedResponse
from .mechanisms.verifications import textbook_verifications

__all__ = [
    "RandomizedResponse",
    "LaplaceMechanism",
    "GeometricMechanism",
    "ExponentialMechanism",
    "textbook_verifications",
]

warnings.warn(
    "dpverify.zoo is deprecated and will be removed in dpverify 0.3: import RandomizedResponse, "
    "LaplaceMechanism, GeometricMechanism and ExponentialMechanism from dpverify.mechanisms, and "
    "textbook_verifications from dpverify.mechanisms.verifications",
    DeprecationWarning,
    stacklevel=2,
)
