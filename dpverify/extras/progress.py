"""Alias of :mod:`dpverify.support.progress` (its home since 0.2): the same module object, so that
code importing or patching ``dpverify.extras.progress`` keeps working."""

import sys

from ..support import progress

sys.modules[__name__] = progress
