"""Progress reporting for long runs: tqdm when installed, plain lines otherwise.

Extra: ``pip install 'dpverify[progress]'`` (tqdm); without it, plain lines.

Both show the count done, the time spent and an estimate of the time left (ETA).
"""

from __future__ import annotations

import sys
import time

__all__ = ["progress_bar"]


class _PlainProgress:
    """A minimal stand-in for ``tqdm`` that prints a line at most every 2 seconds."""

    def __init__(self, total, desc, file):
        self.total, self.desc, self.file = total, desc, file
        self.n = 0
        self._last = 0.0
        self._start = time.perf_counter()

    def update(self, k=1):
        self.n += k
        now = time.perf_counter()
        if now - self._last >= 2.0 or self.n == self.total:
            self._last = now
            elapsed = now - self._start
            total = "?" if self.total is None else self.total
            eta = ""
            if self.total is not None and 0 < self.n < self.total:
                eta = f", about {_duration(elapsed / self.n * (self.total - self.n))} left"
            print(f"{self.desc}: {self.n}/{total} ({_duration(elapsed)}{eta})", file=self.file, flush=True)

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _duration(seconds: float) -> str:
    """``12.3s``, ``4m05s`` or ``1h02m``: short enough for a progress line."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.1f}s"
    if seconds < 3600:
        return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"
    return f"{int(seconds // 3600)}h{int(seconds % 3600 // 60):02d}m"


class _NoProgress:
    n = 0

    def update(self, k=1):
        self.n += k

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


def progress_bar(total=None, desc="", enabled=True, file=None):
    """A context manager with ``update(k)``: tqdm if available, else plain lines.

    Parameters
    ----------
    total : int, optional
        Number of steps expected.
    desc : str
        Label shown before the count.
    enabled : bool
        ``False`` returns a silent counter (the default for library calls).
    file : file-like, optional
        Where to write; standard error by default.
    """
    if not enabled:
        return _NoProgress()
    file = sys.stderr if file is None else file
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return _PlainProgress(total, desc, file)
    return tqdm(total=total, desc=desc, file=file, leave=False)
