"""Every ```python block of README.md runs as written, each on its own (as a reader pastes it).

Each block runs in a fresh namespace with ``__name__ == "__main__"``; functions it defines whose
names start with ``test_`` are then called, as pytest would. Blocks are found anew on every run,
so the test follows whatever blocks the README holds. Exceptions, all reported in the output:

- a block containing the comment ``# readme-test: skip (REASON)`` is skipped with that reason;
- a block that needs an optional library that is absent (``ModuleNotFoundError`` for one of
  ``OPTIONAL_MODULES``) is skipped and the missing module named;
- a block that connects to a Dask scheduler by address runs against an in-process
  ``LocalCluster`` instead, and sample counts above ``MAX_SAMPLES`` are lowered to it, so a
  cluster-sized example runs in seconds; each substitution is reported.

The test asserts how many blocks ran: every block found, less the reported skips.
"""

import re
import traceback
import warnings
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"

#: Modules of optional extras (``adapters``, ``dask``) and the array libraries of GPU audits,
#: which are the user's own: a block importing an absent one is skipped, and the skip is reported.
OPTIONAL_MODULES = {"diffprivlib", "sklearn", "opendp", "distributed", "dask", "torch", "cupy", "jax"}
#: Sample counts above this are lowered to it (cluster-sized examples).
MAX_SAMPLES = 200_000
SKIP_MARKER = re.compile(r"#\s*readme-test:\s*skip\b\s*(.*)")
SCHEDULER = re.compile(r"""Client\(\s*["']tcp://[^"']*["']\s*\)""")
LARGE_SAMPLES = re.compile(r"n_samples=([0-9_]+)")


class ReadmeBlockNotRun(UserWarning):
    """A README block that was skipped, or run with a reported substitution."""


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first line number, source)`` of every fenced ```python block."""
    blocks, current, start = [], None, 0
    for number, line in enumerate(text.splitlines(), start=1):
        if current is None and line.strip() == "```python":
            current, start = [], number + 1
        elif current is not None and line.strip() == "```":
            blocks.append((start, "\n".join(current) + "\n"))
            current = None
        elif current is not None:
            current.append(line)
    assert current is None, f"README.md: the ```python block opened at line {start - 1} is not closed"
    return blocks


def _substitute(source: str) -> tuple[str, list[str]]:
    notes = []
    if SCHEDULER.search(source):
        source = SCHEDULER.sub("Client(LocalCluster(n_workers=2, processes=False))", source)
        notes.append("the scheduler address was replaced by an in-process 2-worker LocalCluster")

    def lower(match):
        n = int(match.group(1).replace("_", ""))
        if n <= MAX_SAMPLES:
            return match.group(0)
        notes.append(f"n_samples={match.group(1)} was lowered to {MAX_SAMPLES}")
        return f"n_samples={MAX_SAMPLES}"

    return LARGE_SAMPLES.sub(lower, source), notes


def _run(source: str, label: str) -> None:
    namespace = {"__name__": "__main__"}
    exec(compile(source, label, "exec"), namespace)
    for name, value in list(namespace.items()):
        if name.startswith("test_") and callable(value):
            value()


def test_every_python_block_of_the_readme_runs():
    text = README.read_text(encoding="utf-8")
    blocks = python_blocks(text)
    fences = sum(1 for line in text.splitlines() if line.strip() == "```python")
    assert len(blocks) == fences >= 1
    ran, skipped, failures = [], [], []
    for line, source in blocks:
        label = f"README.md:{line}"
        marker = SKIP_MARKER.search(source)
        if marker:
            skipped.append(f"{label}: marked skip {marker.group(1).strip()}")
            continue
        source, notes = _substitute(source)
        for note in notes:
            warnings.warn(f"{label}: {note}", ReadmeBlockNotRun, stacklevel=1)
        try:
            _run(source, label)
        except ModuleNotFoundError as exc:
            if exc.name and exc.name.split(".")[0] in OPTIONAL_MODULES:
                skipped.append(f"{label}: needs the optional module {exc.name!r}, not installed here")
                continue
            failures.append(f"{label}:\n{traceback.format_exc()}")
        except BaseException:  # noqa: BLE001 - report every failing block, not only the first
            failures.append(f"{label}:\n{traceback.format_exc()}")
        else:
            ran.append(label)
    for reason in skipped:
        warnings.warn(reason, ReadmeBlockNotRun, stacklevel=1)
    print(f"README python blocks: {len(blocks)} found, {len(ran)} ran, {len(skipped)} skipped: {skipped}")
    assert not failures, "README blocks failed:\n\n" + "\n\n".join(failures)
    assert len(ran) == len(blocks) - len(skipped)
    assert len(ran) >= 1


def test_the_block_parser_and_substitutions():
    text = "x\n```python\na = 1\n```\n```bash\nls\n```\n  ```python\nb = 2\n\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (9, "b = 2\n\n")]
    source, notes = _substitute('Client("tcp://scheduler:8786")\nf(n_samples=10_000_000)\ng(n_samples=1000)')
    assert "LocalCluster(n_workers=2" in source and "n_samples=200000" in source
    assert "n_samples=1000)" in source and len(notes) == 2
    assert SKIP_MARKER.search("x = 1  # readme-test: skip (needs a GPU)").group(1) == "(needs a GPU)"
