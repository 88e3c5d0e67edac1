"""The ``dpverify`` command line and the registries it runs.

- :mod:`.commands`: the ``audit``, ``audit-samples``, ``suite`` and ``reproduce`` commands
  (``dpverify --help``);
- :mod:`.suite`: the runner of ``dpverify suite`` over the verifications registered under the
  ``dpverify.verifications`` entry point (:class:`dpverify.verification.Verification`);
- :mod:`.reproduce`: the figure reproductions registered under ``dpverify.reproductions``
  (:class:`~.reproduce.Reproduction`) and the executors they run on.
"""

from .commands import main

__all__ = ["main"]
