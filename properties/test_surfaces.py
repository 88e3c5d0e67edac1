"""The newcomer's cases of issue 38 stay tests: every test ``docs/development/surfaces.md`` names exists.

Detects: a test of the table renamed, moved or deleted while the page still says the case is kept
(the table would then claim a check that no longer runs). Deterministic: no false-alarm rate.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PAGE = REPO_ROOT / "docs" / "development" / "surfaces.md"
TEST_ID = re.compile(r"`(properties/[\w/]+\.py)::(test_\w+)`")


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_case_of_the_table_names_a_test_that_exists():
    rows = [line for line in PAGE.read_text(encoding="utf-8").splitlines() if re.match(r"\| \d+\w? \|", line)]
    assert len(rows) >= 30, f"the table lost rows: {len(rows)}"
    missing = []
    for row in rows:
        found = TEST_ID.findall(row)
        assert len(found) == 1, f"a row names no test (or more than one): {row}"
        path, name = found[0]
        if not (REPO_ROOT / path).is_file() or name not in _test_functions(REPO_ROOT / path):
            missing.append(f"{path}::{name}")
    assert not missing, f"tests named in {PAGE.name} that do not exist: {missing}"
