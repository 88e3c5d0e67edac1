"""Every numeric statement of ``docs/papers`` and the README has a registry entry naming a test or benchmark that
exists, and the generated table is current (``properties/doc_statements.py``). Nothing is run: tests and
benchmarks are found in the files' syntax trees."""

import importlib.util
import sys
from pathlib import Path

import pytest

_SPEC = importlib.util.spec_from_file_location("doc_statements", Path(__file__).with_name("doc_statements.py"))
D = importlib.util.module_from_spec(_SPEC)
sys.modules["doc_statements"] = D  # dataclasses look their module up by name
_SPEC.loader.exec_module(D)

if D.tomllib is None:  # pragma: no cover - Python 3.10 without tomli
    pytest.skip("reading docs/papers/statements.toml needs Python >= 3.11 or tomli", allow_module_level=True)
REGISTRY = D.load_registry()


@pytest.mark.parametrize("page", D.PAGES, ids=lambda p: p.name)
def test_every_numeric_statement_has_an_entry(page):
    """Detects: a measured figure added to a page (or an entry's opening words edited away) without a backing."""
    relative = page.relative_to(D.REPO).as_posix()
    entries = [s for s in REGISTRY if s.page == relative]
    missing = [u[:120] for u in D.numeric_statements(page) if not any(s.text in u for s in entries)]
    assert not missing, f"numeric statements of {relative} without an entry in docs/papers/statements.toml: {missing}"


def test_every_entry_names_one_statement_and_existing_backing():
    """Each entry's text occurs in exactly one statement of its page, and each backing exists."""
    problems = []
    for s in REGISTRY:
        page = D.REPO / s.page
        if not page.is_file() or s.unit(D.statements(page.read_text(encoding="utf-8"))) is None:
            problems.append(f"{s.page}: {s.text!r} is not the opening of exactly one statement")
        if not s.backing:
            problems.append(f"{s.page}: {s.text!r} has no backing")
        problems += [why for why in map(D.missing_backing, s.backing) if why]
    assert not problems, problems


def test_generated_table_is_current():
    """``docs/papers/statements.md`` is what ``python properties/doc_statements.py`` writes."""
    assert D.TABLE.read_text(encoding="utf-8") == D.render_table(REGISTRY), "run python properties/doc_statements.py"


def test_the_detector_separates_figures_from_references():
    assert D.is_numeric("Theorem 1.1's bound is about 26x the mean error")
    assert D.is_numeric("certified 2.02 at eps = 4")
    assert D.is_numeric("regret at T = 1e5")
    assert not D.is_numeric("Theorem 3.2 and Section 6.1 hold; see `test_x.py` and [a](b_1.5.md)")
    assert not D.is_numeric("300 of 300 instances")
    assert D.statements("a\nb\n\n- c\n- d\n\n| x | y |\n|---|---|\n| 1 | 2 |\n") == [
        "a b",
        "- c",
        "- d",
        "| x | y |",
        "| 1 | 2 |",
    ]
    assert D.missing_backing("properties/test_doc_statements.py::test_generated_table_is_current") is None
    assert D.missing_backing("properties/test_doc_statements.py::test_nothing") is not None
    assert D.missing_backing("algorithms/growth_laws.py") is not None
    assert D.missing_backing("none:") is not None
