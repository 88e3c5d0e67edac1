"""Every ```python block of README.md and of the manual's pages (``docs/**/*.md``) runs as written,
each on its own (as a reader pastes it).

Each block runs in a fresh namespace with ``__name__ == "__main__"``; functions it defines whose
names start with ``test_`` are then called, as pytest would. Blocks are found anew on every run,
so the test follows whatever blocks the README holds. Exceptions, all reported in the output:

- a block containing the comment ``# readme-test: skip (REASON)`` is skipped with that reason;
- a block that needs an optional library that is absent (``ModuleNotFoundError`` for one of
  ``OPTIONAL_MODULES``) is skipped and the missing module named;
- a block that connects to a Dask scheduler by address runs against an in-process
  ``LocalCluster`` instead, and sample counts above ``MAX_SAMPLES`` are lowered to it, so a
  cluster-sized example runs in seconds; each substitution is reported.

The test asserts, page by page, how many blocks ran: every block found, less the reported skips;
README.md must hold at least one block that runs. Sections that move from README to a page of the
manual keep their blocks tested, since the pages are found anew too.
"""

import re
import traceback
import warnings
from pathlib import Path

import pytest

from dpverify.errors import MissingExtraError

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


#: Modules of optional extras (``adapters``, ``dask``) and the array libraries of GPU audits,
#: which are the user's own: a block importing an absent one is skipped, and the skip is reported.
OPTIONAL_MODULES = {"diffprivlib", "sklearn", "opendp", "distributed", "dask", "torch", "opacus", "cupy", "jax"}
#: Sample counts above this are lowered to it (cluster-sized examples).
MAX_SAMPLES = 200_000
SKIP_MARKER = re.compile(r"#\s*readme-test:\s*skip\b\s*(.*)")
SCHEDULER = re.compile(r"""Client\(\s*["']tcp://[^"']*["']\s*\)""")
LARGE_SAMPLES = re.compile(r"n_samples=([0-9_]+)")

#: README's and the manual's python blocks together, at least: a move that drops one fails here.
MIN_BLOCKS = 7


def documentation_pages() -> list[Path]:
    """README.md and every Markdown page of the manual (generated build output left out)."""
    docs = ROOT / "docs"
    pages = sorted(p for p in docs.rglob("*.md") if "_build" not in p.relative_to(docs).parts)
    return [README, *pages]


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
    assert current is None, f"the ```python block opened at line {start - 1} is not closed"
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


#: A block whose first line names a module file (``# my_events.py``) is that module: it is written to a
#: folder on ``sys.path`` so that later blocks of the page import it, as a reader would save it.
MODULE_FILE = re.compile(r"^#\s*(\w+)\.py\s*$")


def _save_module(source: str, folder: Path) -> None:
    first = source.lstrip().splitlines()[0] if source.strip() else ""
    match = MODULE_FILE.match(first)
    if match:
        (folder / f"{match.group(1)}.py").write_text(source, encoding="utf-8")


def _run(source: str, label: str) -> None:
    namespace = {"__name__": "__main__"}
    exec(compile(source, label, "exec"), namespace)
    for name, value in list(namespace.items()):
        if name.startswith("test_") and callable(value):
            value()


@pytest.fixture
def restored_registries():
    """Remove the event families, relations and claim kinds a page registers, once it has run: a
    family left registered would join every later audit of the worker that uses all families."""
    from dpverify.claims import claim_kinds, unregister_claim_kind
    from dpverify.events import registered_families, unregister_event_family
    from dpverify.neighbours import relation_names, unregister_relation

    before = (set(registered_families()), set(relation_names()), set(claim_kinds()))
    yield
    for name in set(registered_families()) - before[0]:
        unregister_event_family(name)
    for name in set(relation_names()) - before[1]:
        unregister_relation(name)
    for name in set(claim_kinds()) - before[2]:
        unregister_claim_kind(name)


@pytest.mark.parametrize("page", documentation_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_python_block_of_the_readme_runs(page, tmp_path, monkeypatch, restored_registries):
    monkeypatch.syspath_prepend(str(tmp_path))
    text = page.read_text(encoding="utf-8")
    name = str(page.relative_to(ROOT))
    blocks = python_blocks(text)
    fences = sum(1 for line in text.splitlines() if line.strip() == "```python")
    assert len(blocks) == fences
    ran, skipped, failures = [], [], []
    for line, source in blocks:
        label = f"{name}:{line}"
        marker = SKIP_MARKER.search(source)
        if marker:
            skipped.append(f"{label}: marked skip {marker.group(1).strip()}")
            continue
        _save_module(source, tmp_path)
        source, notes = _substitute(source)
        for note in notes:
            warnings.warn(f"{label}: {note}", ReadmeBlockNotRun, stacklevel=1)
        try:
            _run(source, label)
        except (ModuleNotFoundError, MissingExtraError) as exc:
            missing = exc if isinstance(exc, ModuleNotFoundError) else exc.__cause__
            if isinstance(missing, ModuleNotFoundError) and (missing.name or "").split(".")[0] in OPTIONAL_MODULES:
                skipped.append(f"{label}: needs the optional module {missing.name!r}, not installed here")
                continue
            failures.append(f"{label}:\n{traceback.format_exc()}")
        except BaseException:  # noqa: BLE001 - report every failing block, not only the first
            failures.append(f"{label}:\n{traceback.format_exc()}")
        else:
            ran.append(label)
    for reason in skipped:
        warnings.warn(reason, ReadmeBlockNotRun, stacklevel=1)
    print(f"{name} python blocks: {len(blocks)} found, {len(ran)} ran, {len(skipped)} skipped: {skipped}")
    assert not failures, f"{name} blocks failed:\n\n" + "\n\n".join(failures)
    assert len(ran) == len(blocks) - len(skipped)
    if page == README:
        assert len(ran) >= 1, "README.md has no python block that runs (a first audit belongs there)"


def test_no_python_block_is_lost_in_a_move():
    """Detects: a section moved from README to the manual without its examples (or to a non-Markdown file)."""
    found = sum(len(python_blocks(page.read_text(encoding="utf-8"))) for page in documentation_pages())
    assert found >= MIN_BLOCKS, f"{found} python blocks in README.md and docs/, expected at least {MIN_BLOCKS}"


def test_the_block_parser_and_substitutions():
    text = "x\n```python\na = 1\n```\n```bash\nls\n```\n  ```python\nb = 2\n\n```\n"
    assert python_blocks(text) == [(3, "a = 1\n"), (9, "b = 2\n\n")]
    source, notes = _substitute('Client("tcp://scheduler:8786")\nf(n_samples=10_000_000)\ng(n_samples=1000)')
    assert "LocalCluster(n_workers=2" in source and "n_samples=200000" in source
    assert "n_samples=1000)" in source and len(notes) == 2
    assert SKIP_MARKER.search("x = 1  # readme-test: skip (needs a GPU)").group(1) == "(needs a GPU)"
