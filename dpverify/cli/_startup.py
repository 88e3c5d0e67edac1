"""A Ctrl-C while the command line is still importing: a short message and exit 130, no traceback.

``dpverify`` imports numpy, scipy and its own modules before the command line's
``main`` can catch anything, so an interrupt then reached the interpreter as an
uncaught ``KeyboardInterrupt`` and printed a traceback. The command line's entry
point (:func:`dpverify.cli.main`, before it imports the commands and what they
need) calls :func:`install`, which sets an exception hook that does for an
uncaught ``KeyboardInterrupt`` what ``main`` does for one it catches, and only in
a process that runs the command line (the ``dpverify`` console script or
``python -m dpverify``). ``import dpverify`` installs nothing: a program that
imports dpverify keeps Python's own behaviour.
"""

from __future__ import annotations

import os
import sys

__all__ = ["install"]

#: Exit status of an interrupted command (128 + SIGINT), as ``dpverify.cli`` uses.
EXIT_INTERRUPTED = 130


def _running_the_command_line(argv=None, orig_argv=None) -> bool:
    """Whether this process runs dpverify's command line (console script or ``python -m dpverify``)."""
    argv = sys.argv if argv is None else argv
    orig_argv = getattr(sys, "orig_argv", []) if orig_argv is None else orig_argv
    if argv and os.path.basename(str(argv[0])).removesuffix(".exe").removesuffix("-script.py") == "dpverify":
        return True
    words = list(orig_argv)
    return any(words[i] == "-m" and words[i + 1] == "dpverify" for i in range(len(words) - 1))


def _hook(previous):
    def hook(kind, value, traceback):
        if issubclass(kind, KeyboardInterrupt):
            print("\ndpverify: interrupted", file=sys.stderr, flush=True)
            os._exit(EXIT_INTERRUPTED)
        previous(kind, value, traceback)

    return hook


def install() -> None:
    """Install the hook in a command-line process (idempotent)."""
    if _running_the_command_line() and not getattr(sys.excepthook, "_dpverify", False):
        hook = _hook(sys.excepthook)
        hook._dpverify = True
        sys.excepthook = hook
