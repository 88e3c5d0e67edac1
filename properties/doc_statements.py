"""Every numeric statement about the papers, with the test or benchmark that backs it.

The pages of ``docs/papers`` and the README state measured figures (a ratio, an exponent, a looseness, a count).
Each such statement is listed in ``docs/papers/statements.toml`` with the pytest node id or asv benchmark that
measures or asserts it; ``docs/papers/statements.md`` is the table generated from it::

    python properties/doc_statements.py          # rewrite docs/papers/statements.md

``properties/test_doc_statements.py`` fails when a numeric statement has no entry, when an entry's text no longer
occurs in its page, when a named test or benchmark does not exist (found by reading the file's syntax tree, so
nothing runs), or when the table is out of date.

A *statement* is a paragraph, a bullet or a table row. It is *numeric* when, once references such as
"Theorem 3.2" or "Section 6.1" are removed, it still holds a decimal number, a factor ("25x"), a percentage or a
power of ten ("1e5"): the figures that can go stale. Integers alone (counts, sizes) do not make a statement
numeric.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

try:  # Python >= 3.11
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    try:
        import tomli as tomllib
    except ModuleNotFoundError:
        tomllib = None

REPO = Path(__file__).resolve().parents[1]
REGISTRY = REPO / "docs" / "papers" / "statements.toml"
TABLE = REPO / "docs" / "papers" / "statements.md"
#: pages whose numeric statements must each have an entry (the table itself is generated, not a statement)
PAGES = tuple(sorted(p for p in (REPO / "docs" / "papers").glob("*.md") if p != TABLE)) + (REPO / "README.md",)

_REFERENCE = re.compile(
    r"\b(?:Thms?|Theorems?|Lemmas?|Figs?\.|Figures?|Sections?|Defs?\.|Definitions?|Algs?\.|Algorithms?|Tables?"
    r"|Cor\.|Corollary|Remarks?|Eqs?\.|Equation|App\.|Appendix|Facts?|Assumption|Props?\.|Proposition)"
    r"\s*\(?[A-Z]?\d+(?:\.\d+)*(?:\s*(?:,|and|/|-|–|or)\s*[A-Z]?\d+(?:\.\d+)*)*",
    re.IGNORECASE,
)
#: the backing of a statement whose numbers are not measured figures (parameters, versions, book sections)
NOT_MEASURED = "none:"
_CODE = re.compile(r"`[^`]*`")
_LINK = re.compile(r"\]\([^)]*\)")
_FIGURE = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)*\s*(?:x\b|×|%)"  # a factor or a percentage
    r"|(?<![\w.])\d+\.\d+(?![\w.])"  # a decimal
    r"|(?<![\w.])\d+(?:\.\d+)?e[-+]?\d+\b",  # a power of ten
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Statement:
    """One registry entry: the page, a snippet that occurs in exactly one statement there, and its backing."""

    page: str
    text: str
    backing: tuple

    def unit(self, units) -> str | None:
        hits = [u for u in units if self.text in u]
        return hits[0] if len(hits) == 1 else None


def statements(text: str) -> list[str]:
    """The paragraphs, bullets and table rows of a markdown page (code blocks and headings dropped)."""
    out, current, in_code = [], [], False

    def close():
        if current:
            out.append(" ".join(current))
            current.clear()

    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            close()
            in_code = not in_code
            continue
        if in_code:
            continue
        if stripped.startswith("|"):
            close()
            if not re.fullmatch(r"\|[-|: ]+\|", stripped):
                out.append(stripped)
        elif not stripped or stripped.startswith("#") or stripped.startswith(":") or stripped.startswith(">"):
            close()
        elif re.match(r"(?:[-*]|\d+\.) ", stripped):
            close()
            current.append(stripped)
        else:
            current.append(stripped)
    close()
    return out


def is_numeric(statement: str) -> bool:
    """Whether the statement holds a measured figure once references, code and link targets are removed."""
    bare = _REFERENCE.sub(" ", _LINK.sub("]", _CODE.sub(" ", statement)))
    return bool(_FIGURE.search(bare))


def numeric_statements(page: Path) -> list[str]:
    return [s for s in statements(page.read_text(encoding="utf-8")) if is_numeric(s)]


def load_registry(path: Path = REGISTRY) -> list[Statement]:
    """The registry's entries; needs ``tomllib`` (Python >= 3.11) or the ``tomli`` package."""
    if tomllib is None:  # pragma: no cover - Python 3.10 without tomli
        raise ModuleNotFoundError("reading docs/papers/statements.toml needs Python >= 3.11 or the tomli package")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    return [Statement(e["page"], e["text"], tuple(e["backing"])) for e in data["statement"]]


def _defined_names(path: Path) -> set[str]:
    """Top-level functions and classes of a Python file, and ``Class.method`` for the methods of its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            names |= {f"{node.name}.{m.name}" for m in node.body if isinstance(m, ast.FunctionDef)}
    return names


def missing_backing(reference: str) -> str | None:
    """Why ``reference`` (``path``, ``path::test`` with an optional ``[id]``, ``path::Class.method``, under
    ``properties/`` or ``benchmarks/``; or ``none: <why>`` for a number that is not a measured figure) names
    nothing, or None when it exists."""
    if reference.startswith(NOT_MEASURED):
        return None if reference[len(NOT_MEASURED) :].strip() else f"{reference!r}: say why it is not a measurement"
    path, _, name = reference.partition("::")
    if not path.startswith(("properties/", "benchmarks/")):
        return f"{reference}: a backing is a test or a benchmark (under properties/ or benchmarks/)"
    file = REPO / path
    if not file.is_file():
        return f"{reference}: no file {path}"
    name = name.split("[", 1)[0]
    if name and name not in _defined_names(file):
        return f"{reference}: {path} defines no {name}"
    return None


def render_table(registry: list[Statement]) -> str:
    """The generated markdown page: one row per statement, with its backing."""
    lines = [
        "# Numeric statements and what backs them",
        "",
        "Generated from `docs/papers/statements.toml` by `python properties/doc_statements.py`; do not edit by",
        "hand. Each measured figure stated in these pages and in the README, with the test (a pytest node id) or",
        "benchmark that measures or asserts it. `properties/test_doc_statements.py` fails when a numeric statement",
        "has no row, or a row names a test that does not exist.",
        "",
        "| page | statement (its opening words) | backed by |",
        "|---|---|---|",
    ]
    for s in registry:
        text = s.text.strip("|- ").replace(" | ", " · ").replace("|", "\\|")  # a table row's cells, joined
        backing = ", ".join(f"`{b}`" for b in s.backing)
        lines.append(f"| {s.page} | {text} | {backing} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:  # pragma: no cover - writes the table
    TABLE.write_text(render_table(load_registry()), encoding="utf-8")
    print(f"wrote {TABLE.relative_to(REPO)}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
