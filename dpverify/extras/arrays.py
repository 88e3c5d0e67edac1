"""Alias of :mod:`dpverify.support.arrays` (its home since 0.2): the same module object, so that
code importing or patching ``dpverify.extras.arrays`` keeps working."""

import sys

from ..support import arrays

sys.modules[__name__] = arrays
