"""The ``dpverify`` command line and the registries it runs.

- :mod:`.commands`: the ``audit``, ``audit-samples``, ``suite`` and ``reproduce`` commands
  (``dpverify --help``);
- :mod:`.suite`: the runner of ``dpverify suite`` over the verifications registered under the
  ``dpverify.verifications`` entry point (:class:`dpverify.verification.Verification`);
- ``dpverify reproduce`` runs the figure reproductions registered under ``dpverify.reproductions``
  (:class:`dpverify.reproduction.Reproduction`, with the executors they run on, in
  :mod:`dpverify.reproduction`).
"""

__all__ = ["main"]


def main(argv=None) -> int:
    """The ``dpverify`` console script: :func:`dpverify.cli.commands.main` (imported when run).

    It first installs the command line's handler of a Ctrl-C during the imports
    (:mod:`._startup`; ``import dpverify`` does not).
    """
    from . import _startup

    _startup.install()
    from .commands import main as run

    return run(argv)
