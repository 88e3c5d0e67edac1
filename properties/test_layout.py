"""The installed packages are this repository's, not namesakes from PyPI."""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_algorithms_is_imported_from_this_repository():
    # PyPI's unrelated "algorithms" distribution installs a module of the same name.
    import algorithms

    assert Path(algorithms.__file__).resolve().parent == REPO_ROOT / "algorithms"


def test_dpverify_is_imported_from_this_repository():
    import dpverify

    assert Path(dpverify.__file__).resolve().parent == REPO_ROOT / "dpverify"
