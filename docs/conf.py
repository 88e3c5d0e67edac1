"""Sphinx configuration of dpverify's manual.

Build (warnings are errors, as in ``.ci/run``)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Prose pages are MyST Markdown (moved from README), the API reference is generated from the numpydoc
docstrings (autosummary, recursive over ``dpverify`` and ``algorithms``), and the tutorials in
``docs/examples/`` are executed by sphinx-gallery on every build.
"""

import importlib
import importlib.util
import os
import pkgutil
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The checkout's own packages, also where another distribution installed namesakes (see README).
sys.path.insert(0, str(ROOT))
# sphinx-gallery runs the tutorials in this process: keep numba's cache out of the source tree.
os.environ.setdefault("NUMBA_CACHE_DIR", str(ROOT / "docs" / "_build" / "numba-cache"))

import dpverify  # noqa: E402

project = "dpverify"
author = "the dpverify developers"
copyright = "2026, the dpverify developers"  # noqa: A001 - Sphinx's name
release = version = dpverify.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build", "examples/README.txt", "**/*.ipynb"]

# --- MyST: README's Markdown as it is (tables, fenced code), anchors for in-page links -----------
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 4

# --- API reference ----------------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc Parameters sections state the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = False
# numpydoc's References are cited by name and year in the prose, not as ``[1]_``: docutils would
# report every such citation as unreferenced.
suppress_warnings = ["ref.citation"]

PACKAGES = ("dpverify", "algorithms")
#: The optional libraries of the extras (adapters, arrays, dask, progress, plots). Where one is not
#: installed, autodoc imports the modules that need it against a stand-in, so the reference builds
#: with the ``docs`` extra alone; an installed one is never replaced.
OPTIONAL_LIBRARIES = (
    "opendp",
    "pydp",
    "pipeline_dp",
    "diffprivlib",
    "sklearn",
    "torch",
    "cupy",
    "jax",
    "tqdm",
    "dask",
    "distributed",
    "array_api_compat",
    "array_api_strict",
    "mpmath",
)
autodoc_mock_imports = [name for name in OPTIONAL_LIBRARIES if importlib.util.find_spec(name) is None]


def _modules() -> dict:
    """Every public module of the packages, by name (a leading underscore or ``__main__`` is private)."""
    found = {}
    for top in PACKAGES:
        package = importlib.import_module(top)
        found[top] = package
        for info in pkgutil.walk_packages(package.__path__, top + "."):
            if any(part.startswith("_") for part in info.name.split(".")):
                continue
            try:
                found[info.name] = importlib.import_module(info.name)
            except ImportError:  # needs an absent optional library: autodoc imports it against a stand-in
                continue
    return found


def _documented_higher_up(modules: dict) -> dict:
    """Module -> the names it holds that a package above it re-exports in ``__all__``.

    Each object is documented once, under the shortest public name (``dpverify.AuditResult``, not
    also ``dpverify.audits.results.AuditResult``): two descriptions of one class are a Sphinx
    warning, and a reader should find one page. A name that a package shares with one of its
    submodules (``dpverify.neighbours.streams``) stays with the submodule.
    """
    exported = {}
    for name, module in modules.items():
        if not hasattr(module, "__path__"):
            continue
        for member in getattr(module, "__all__", ()):
            if f"{name}.{member}" in modules:  # the name is also a submodule's
                continue
            exported.setdefault(name, set()).add(id(getattr(module, member, None)))
    excluded = {}
    for name, module in modules.items():
        above = [p for p in exported if name.startswith(p + ".")]
        ids = set().union(*(exported[p] for p in above)) if above else set()
        clash = {m for m in getattr(module, "__all__", ()) if f"{name}.{m}" in modules}
        excluded[name] = sorted(
            {member for member, value in vars(module).items() if id(value) in ids and not member.startswith("_")}
            | clash
        )
    return excluded


autosummary_context = {"excluded": _documented_higher_up(_modules())}

_CODE = re.compile(r"(``.+?``|:[a-z:]+:`[^`]+`|`[^`]+`)")
_RELATIVE = re.compile(r"(:[a-z:]+:)`(~?)\.([A-Za-z_][\w.]*)`")


def _resolves(dotted: str) -> bool:
    module, _, attribute = dotted, "", ""
    while module:
        try:
            value = importlib.import_module(module)
        except ImportError:
            module, _, last = module.rpartition(".")
            attribute = f"{last}.{attribute}".strip(".")
            continue
        for part in filter(None, attribute.split(".")):
            if not hasattr(value, part):
                return False
            value = getattr(value, part)
        return True
    return False


def _absolute(what: str, name: str, obj, match) -> str:
    """``:mod:`.exact``` in ``algorithms.mst.samplers`` is ``algorithms.mst.exact``, as Python reads it.

    Sphinx reads a leading dot as "anywhere", and finds ``exact`` in three packages.
    """
    role, tilde, target = match.groups()
    here = name if what == "module" else getattr(obj, "__module__", None) or name.rpartition(".")[0]
    module = sys.modules.get(here)
    package = here if module is not None and hasattr(module, "__path__") else here.rpartition(".")[0]
    for base in (package, here):
        if base and _resolves(f"{base}.{target}"):
            return f"{role}`~{base}.{target}`"
    return match.group(0)


def _plain_text_math(app, what, name, obj, options, lines):
    """Docstrings write math as plain text: ``|x - x'|`` is an absolute value, not a substitution.

    Escapes ``|`` outside code and roles (grid-table lines, which open with ``+`` or open and close
    with ``|``, stay), turns a ``[1]_`` whose citation lives in another docstring into plain
    ``[1]`` (numpydoc relabels citations per docstring, so such a reference has no target), and
    resolves a relative ``:mod:`.name``` from the docstring's own package.
    """
    text = "\n".join(lines)
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("+") or (stripped.startswith("|") and stripped.endswith("|") and len(stripped) > 1):
            continue
        line = _RELATIVE.sub(lambda match: _absolute(what, name, obj, match), line)
        parts = _CODE.split(line)
        parts[::2] = [part.replace("|", "\\|") for part in parts[::2]]
        line = "".join(parts)
        for number in re.findall(r"\[(\d+)\]_", line):
            if f".. [{number}]" not in text:
                line = line.replace(f"[{number}]_", f"[{number}]")
        lines[i] = line


def setup(app):
    # before numpydoc (priority 500), which renames the citations it finds
    app.connect("autodoc-process-docstring", _plain_text_math, priority=400)


# --- Tutorials: executed on every build ------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # run every tutorial, not only plot_*.py
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "plot_gallery": "True",
    # re-run every tutorial on every build, also where its file did not change: the code it calls may have
    "run_stale_examples": True,
}

html_theme = "alabaster"
html_title = f"dpverify {release}"
html_static_path = []
