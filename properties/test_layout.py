"""The installed packages are this project's, not namesakes from PyPI.

The checks hold for a source checkout, an editable install and a regular (wheel) install: they
ask the package for its marker and the installed distribution's metadata which distribution
provides the top-level name, instead of comparing paths with this checkout.
"""

import importlib
import importlib.metadata as md
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _providers(top_level: str) -> list[str]:
    return sorted(set(md.packages_distributions().get(top_level, [])))


def _installed_dpverify():
    try:
        return md.distribution("dpverify")
    except md.PackageNotFoundError:
        return None


def _assert_is_this_projects(name: str):
    module = importlib.import_module(name)
    where = Path(module.__file__).resolve().parent
    dist = _installed_dpverify()
    if dist is None:
        # a bare source checkout on sys.path: then the package must be this checkout's
        assert where == REPO_ROOT / name, f"{name} imported from {where}, not from {REPO_ROOT}"
        return
    providers = _providers(name)
    assert providers == ["dpverify"], (
        f"the top-level module {name!r} is provided by {providers}; only this project's "
        "distribution 'dpverify' may provide it (uninstall the others)"
    )
    # regular install: the file lies where the distribution put it; editable: in the checkout
    allowed = {REPO_ROOT / name, Path(dist.locate_file(name)).resolve()}
    assert where in allowed, f"{name} imported from {where}; expected one of {sorted(map(str, allowed))}"


def test_algorithms_is_this_projects_package():
    # PyPI's unrelated "algorithms" distribution installs a module of the same name.
    import algorithms

    assert getattr(algorithms, "__distribution__", None) == "dpverify", (
        f"'import algorithms' gave {algorithms.__file__}, which lacks this project's marker"
    )
    _assert_is_this_projects("algorithms")


def test_dpverify_is_this_projects_package():
    import dpverify

    _assert_is_this_projects("dpverify")
    dist = _installed_dpverify()
    if dist is None:
        pytest.skip("dpverify is not installed (source checkout on sys.path): no metadata to compare")
    assert dpverify.__version__ == dist.version


def test_ci_runs_exactly_the_readme_test_command():
    """``.ci/run`` runs the README's test command, word for word (the README says so)."""
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text(encoding="utf-8")
    marker = "(what `.ci/run` runs):\n\n```bash\n"
    assert marker in readme, "README.md lost its test command block"
    command = readme.split(marker, 1)[1].split("\n```", 1)[0].strip()
    ci = [line for line in (root / ".ci" / "run").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert ci[-1].strip() == command


def _absolute_imports(package: str):
    """(file:line, imported name) for every absolute import in ``package`` (``from m import a`` gives
    ``m`` and ``m.a``), module and function level."""
    import ast

    for path in sorted((REPO_ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            yield from ((f"{path.relative_to(REPO_ROOT)}:{node.lineno}", name) for name in names)


def test_dpverify_never_imports_algorithms():
    """The auditor knows nothing about spanning trees: no module of ``dpverify`` imports ``algorithms``."""
    offending = [where for where, name in _absolute_imports("dpverify") if name.split(".")[0] == "algorithms"]
    assert not offending, offending


def test_algorithms_never_import_the_command_line():
    """A reproduction or verification is registered through the core contracts
    (``dpverify.reproduction``, ``dpverify.verification``), never through ``dpverify.cli``."""
    offending = [where for where, name in _absolute_imports("algorithms") if name.startswith("dpverify.cli")]
    assert not offending, offending


def test_the_test_files_the_readme_names_exist():
    """README's and the manual's tables point readers at test modules; a renamed module must not leave a dead name.

    The manual's pages (``docs/**/*.md``) are read with README, so a table that moves there stays checked.
    """
    import re

    root = Path(__file__).resolve().parents[1]
    docs = root / "docs"
    pages = [root / "README.md"] + sorted(p for p in docs.rglob("*.md") if "_build" not in p.relative_to(docs).parts)
    text = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    names = set(re.findall(r"\b(test_[a-z0-9_]+\.py)\b", text))
    existing = {path.name for path in (root / "properties").rglob("test_*.py")}
    assert names and names <= existing, sorted(names - existing)


def _dpverify_import_graph() -> dict:
    """Module -> the dpverify modules it imports (module and function level, relative or absolute).

    An import of a module's own parent package is left out: Python runs a package's
    ``__init__`` before any submodule, so that edge is no cycle of the code's making.
    """
    import ast

    root = REPO_ROOT / "dpverify"
    modules = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        package = name if parts[-1] == "__init__" else name.rpartition(".")[0]
        modules[name] = (path, package)
    graph = {}
    for name, (path, package) in modules.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    module = ".".join(base + ([node.module] if node.module else []))
                else:
                    module = node.module or ""
                for alias in node.names:
                    sub = f"{module}.{alias.name}"
                    targets.add(sub if sub in modules else module)
        ancestors = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = {t for t in targets if t in modules and t != name and t not in ancestors}
    return graph


def test_dpverify_has_no_import_cycle():
    """No module of ``dpverify`` reaches itself through its imports (lazy imports in functions included).

    Detects: two modules that import each other (as the textbook zoo and its broken variants did),
    which makes the import order matter and hides the layering.
    """
    graph = _dpverify_import_graph()
    state, cycles = {}, []

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert not cycles, [" -> ".join(c) for c in cycles]


def test_the_top_level_of_dpverify_is_a_handful_of_modules():
    """The architecture shows in the folders: the top level keeps the public API and its vocabulary.

    Eleven: the package and ``__main__``; the lowest layer's errors, checks and result base; the
    vocabulary (claims, options, protocols, keys) and the two contracts a package implements to
    register with the command line (``verification``, ``reproduction``), apart from it.
    """
    root = REPO_ROOT / "dpverify"
    top = sorted(p.name for p in root.glob("*.py"))
    assert len(top) <= 11, top


#: The layers of dpverify, lowest first: a module imports only modules of its own or a lower layer.
#: ``support`` holds leaf helpers (numpy and the standard library only, optional libraries imported
#: when used) that any layer may call. ``extras`` itself needs optional dependencies: top layer.
LAYERS = [
    ("errors", "_results", "_validation", "support", "plugins"),
    ("claims", "options", "protocols", "keys", "verification", "reproduction", "neighbours"),
    ("events",),
    ("pipeline",),
    ("audits",),
    ("mechanisms", "testing", "probes"),
    ("cli", "extras", "__init__", "__main__"),
]


def _layer(module: str) -> int:
    name = module.removeprefix("dpverify").lstrip(".") or "__init__"
    best = None
    for level, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or name.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (level, len(prefix))
    assert best is not None, f"{module} belongs to no layer of LAYERS"
    return best[0]


def test_dpverify_imports_only_its_own_or_lower_layers():
    """The layers of the manual's layout page (docs/development/layout.md) hold: no import reaches up a layer.

    Detects: the pipeline importing a driver, an event family importing the pipeline, the zoo
    importing the command line (the mechanisms' verifications once imported ``cli.suite``).
    """
    graph = _dpverify_import_graph()
    upward = [
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in sorted(targets)
        if _layer(target) > _layer(module)
    ]
    assert not upward, upward


def test_every_public_error_class_is_a_dpverify_error_defined_in_errors():
    """Errors live in one place (``dpverify.errors``) and all derive from ``DPVerifyError``.

    Detects: an exception class defined in another module (the command line's reproductions once
    defined two) or one a caller cannot catch as ``DPVerifyError``. Private control-flow classes
    (a leading underscore) that never leave their module are exempt. Each is exported by
    ``dpverify`` itself: the top level once listed 12 of the 23 by hand (``dpverify.ResultFormatError``
    raised AttributeError).
    """
    import ast

    from dpverify.errors import DPVerifyError

    elsewhere = []
    for path in sorted((REPO_ROOT / "dpverify").rglob("*.py")):
        if path.name == "errors.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                if any(b.endswith(("Error", "Exception")) for b in bases):
                    elsewhere.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno} {node.name}")
    assert not elsewhere, elsewhere
    errors = importlib.import_module("dpverify.errors")
    import dpverify

    for name in errors.__all__:
        assert issubclass(getattr(errors, name), DPVerifyError), name
        assert name in dpverify.__all__ and getattr(dpverify, name) is getattr(errors, name), name


def test_the_module_to_test_map_names_every_dpverify_module():
    """``properties/README.md``'s map names every module of ``dpverify`` (itself, a parent package
    named as a whole, or a submodule listed in a parent's row; a package's ``__init__`` with any of
    its modules) and only test files that exist.

    Detects: a module added without saying where it is tested (the map once omitted
    ``neighbours``, ``audits.search`` and ``cli.search``), or a row naming a moved test file.
    """
    import re

    text = (REPO_ROOT / "properties" / "README.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `dpverify")]
    named, whole = set(), set()  # whole: packages named without a list of their modules
    for row in rows:
        modules = row.split(" | ")[0]
        for package, _, listed in re.findall(r"`(dpverify[\w.]*)`( \(([^)]*)\))?", modules):
            subs = re.findall(r"`(\w+)`", listed)
            named |= {package, *(f"{package}.{sub}" for sub in subs)}
            whole |= set() if subs else {package}
    root = REPO_ROOT / "dpverify"
    missing = []
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(REPO_ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        ancestors = {".".join(module.split(".")[:i]) for i in range(2, module.count(".") + 1)}
        in_a_row = module in named or ancestors & whole
        if parts[-1] == "__init__":  # a package's __init__ re-exports: named with any of its modules
            in_a_row = in_a_row or any(n.startswith(module + ".") for n in named)
        if not in_a_row:
            missing.append(module)
    assert not missing, f"properties/README.md's map does not name {missing}"
    tests = {str(p.relative_to(REPO_ROOT / "properties")) for p in (REPO_ROOT / "properties").rglob("test_*.py")}
    for row in rows:
        folder = None
        for name in re.findall(r"`([\w/]*test_\w+\.py)`", row.split(" | ")[1]):
            if "/" in name:
                folder = name.rsplit("/", 1)[0]
            path = name if "/" in name else f"{folder}/{name}"
            assert path in tests, f"properties/README.md names {path}, which does not exist"


# -- the pages say what the tree holds -----------------------------------------------------------


def _page(path: str) -> str:
    return (REPO_ROOT / path).read_text(encoding="utf-8")


def test_readme_lists_every_extra_of_pyproject():
    """README's list of extras names each extra of ``pyproject.toml``, as `` `name` ``.

    Detects: an extra added without a word in README (``learned``, ``pydp``, ``pipelinedp`` and
    ``arrays`` were missing)."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = tomllib.loads(_page("pyproject.toml"))["project"]["optional-dependencies"]
    sentence = _page("README.md").split("Extras: ", 1)[1].split("\n\n", 1)[0]
    missing = [name for name in extras if f"`{name}`" not in sentence]
    assert not missing, f"README's extras do not name {missing}"


def test_readme_says_where_the_rocketfuel_data_is_read():
    """README names the folder ``algorithms.bandits.rocketfuel`` reads the RocketFuel maps from, and the
    variable that moves it."""
    from algorithms.bandits.rocketfuel import default_rocketfuel_dir

    readme = _page("README.md")
    default = default_rocketfuel_dir()
    assert default.relative_to(REPO_ROOT.parent).as_posix() == "shared/datasets/rocketfuel"
    assert "`../shared/datasets/rocketfuel/`" in readme and "DPVERIFY_ROCKETFUEL" in readme


def test_the_adapters_page_names_every_adapter():
    """Detects: an adapter added without its line in the manual (``DiffprivlibMechanism`` and ``TumultQuery``
    were missing, and the page said there was no Tumult adapter)."""
    from dpverify.extras import adapters

    page = _page("docs/manual/adapters.md")
    missing = [name for name in adapters.__all__ if f"`{name}(" not in page]
    assert not missing, f"docs/manual/adapters.md does not name {missing}"
    assert "There is no Tumult" not in page


def test_the_options_page_names_every_claim_kind():
    """Detects: the options page describing claims as epsilon and delta only (as before the kinds)."""
    from dpverify.claims import BUILTIN_KINDS

    page = _page("docs/manual/options.md")
    missing = [kind.title for kind in BUILTIN_KINDS if kind.title not in page]
    assert not missing, f"docs/manual/options.md does not name {missing}"


#: A seeded measurement in prose: a figure beside a seed, a before -> after pair of figures, a share of
#: the oracle, a figure at a sample size.
SEEDED_FIGURE = (
    r"seeds? \d.*\d\.\d{2,}|\d\.\d{2,}.*seeds? \d|\d\.\d+ -> \d\.\d+|of the oracle|at 1e\d samples.*\d\.\d{2}"
)


def test_the_code_states_methods_not_seeded_figures():
    """Comments and docstrings of ``dpverify`` and ``algorithms`` say what the code does and why; the
    measurements that chose a setting live in docs/auditor/benchmarks.md (and the CHANGELOG, asv), where
    they are dated and re-run, not in the code, where they went stale (three figures for one search).

    Detects: a figure with its seed written into a comment or docstring (35 lines in 16 modules once)."""
    import re

    pattern = re.compile(SEEDED_FIGURE)
    found = [
        f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()[:100]}"
        for package in ("dpverify", "algorithms")
        for path in sorted((REPO_ROOT / package).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


#: The layout page's tree: names in the first LAYOUT_NAMES columns of each line, what they are after.
LAYOUT_NAMES = 62


def _layout_tree() -> dict:
    """``{root folder: {package (None: the root itself): set of names}}`` from the tree of
    docs/development/layout.md: a name ending in ``.py`` is a module of the root, ``name/`` a package
    of it whose modules (and subpackages) follow on its line and the lines indented below it."""
    import re

    page = _page("docs/development/layout.md")
    block = page.split("```\ndpverify/", 1)[1].split("\n```", 1)[0]
    tree, root, package = {}, None, None
    for line in ("dpverify/" + block).splitlines():
        names = line[:LAYOUT_NAMES]
        tokens = re.findall(r"[\w.]+/?", names)
        if not tokens:
            continue
        if not names.startswith(" "):  # a root folder: dpverify/, algorithms/ ...
            root, package = tokens[0].rstrip("/"), None
            tree.setdefault(root, {}).setdefault(None, set()).update(t.rstrip("/") for t in tokens[1:])
            continue
        if names.startswith("  ") and not names.startswith("   "):  # a line of the root's own names
            package = tokens[0].rstrip("/") if tokens[0].endswith("/") else None
            if package is not None:
                tree[root][None].add(package)
                tokens = tokens[1:]
        tree[root].setdefault(package, set()).update(t for t in tokens if not t.endswith("/"))
    return tree


def test_the_layout_page_names_what_exists_and_every_package():
    """Every module and package the layout page names exists, and every package of ``dpverify`` (and of
    ``algorithms``, one level down) is named there.

    Detects: the page describing an older tree (it named ``claims.py`` after it became a package,
    ``audits.pairs`` after it became ``family_wise``, and left out ``claims``, ``support``'s siblings and
    a dozen modules)."""
    tree = _layout_tree()
    missing = [
        f"{root}/{package or ''}: {name}"
        for root in ("dpverify", "algorithms")
        for package, names in tree[root].items()
        for name in sorted(names)
        if not _exists(REPO_ROOT / root / (package or "") / name)
    ]
    assert not missing, f"docs/development/layout.md names what does not exist: {missing}"
    unnamed = []
    for root, depth in (("dpverify", None), ("algorithms", 1)):
        for init in sorted((REPO_ROOT / root).rglob("__init__.py")):
            folder = init.parent.relative_to(REPO_ROOT / root)
            if not folder.parts or (depth is not None and len(folder.parts) > depth):
                continue
            parent = folder.parent.as_posix() if len(folder.parts) > 1 else None
            if folder.name not in tree[root].get(parent, set()):
                unnamed.append(f"{root}/{folder.as_posix()}")
    assert not unnamed, f"docs/development/layout.md does not name the packages {unnamed}"


def _exists(path) -> bool:
    """A module (``name.py``, or ``name`` of a ``.py`` file) or a package at ``path``."""
    return path.is_file() or path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()
