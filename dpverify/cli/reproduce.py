"""Alias of :mod:`dpverify.reproduction` (its home since 0.2, out of the command line so that
``algorithms/*/reproduce.py`` need not import it): the same module object, so that code importing
or patching ``dpverify.cli.reproduce`` keeps working."""

import sys

from .. import reproduction

sys.modules[__name__] = reproduction
