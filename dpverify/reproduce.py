"""Registry for the figure reproductions behind ``dpverify reproduce NAME``.

Packages register reproductions through the entry-point group
``dpverify.reproductions``: each entry point names a callable returning an
iterable of :class:`Reproduction`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Callable

__all__ = ["Reproduction", "registered_reproductions"]

ENTRY_POINT_GROUP = "dpverify.reproductions"


@dataclass(frozen=True)
class Reproduction:
    """A figure of a paper that can be regenerated.

    Parameters
    ----------
    name : str
        The command-line name, e.g. ``"private-mst-density"``.
    description : str
        What is reproduced (paper, figure, parameters).
    run : callable
        ``run(out_dir: Path, *, quick: bool, seed: int, progress: bool) -> list[Path]``
        writes its PNG and CSV files into ``out_dir`` and returns their paths.
    """

    name: str
    description: str
    run: Callable[..., list[Path]] = field(repr=False, compare=False)


def registered_reproductions() -> dict[str, Reproduction]:
    """All registered reproductions, by name."""
    found: dict[str, Reproduction] = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        for item in ep.load()():
            if item.name in found:
                raise ValueError(f"two reproductions are named {item.name!r}")
            found[item.name] = item
    return dict(sorted(found.items()))
