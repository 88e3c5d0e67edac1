"""The ``dpverify`` command line and the registries it runs.

- :mod:`.commands`: the ``audit``, ``audit-samples``, ``suite`` and ``reproduce`` commands
  (``dpverify --help``);
- :mod:`.suite`: the runner of ``dpverify suite`` over the verifications registered under the
  ``dpverify.verifications`` entry point (:class:`dpverify.verification.Verification`);
- :mod:`.reproduce`: the figure reproductions registered under ``dpverify.reproductions``
  (:class:`~.reproduce.Reproduction`) and the executors they run on.
"""

__all__ = ["main"]


def main(argv=None) -> int:
    """The ``dpverify`` console script: :func:`dpverify.cli.commands.main` (imported when run)."""
    from .commands import main as run

    return run(argv)
