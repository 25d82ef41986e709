"""The shape of the code (docs/development.md): layers that import only downwards, no import
cycle between modules or packages, generic code that names no task type, and files (modules,
templates, scripts, style sheets) small enough to hold one idea."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest
from django.apps import apps

from annotation.task_types import task_types

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("config", "runtime", "jobs", "annotation", "analysis", "quality", "recruiting", "task_types")
# Lines a module, template or static file may have before it holds more than one idea (house rule 12: "about 400").
MAX_LINES = 400


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            # A task type's tests (task_types/<slug>/tests/) are held to the rules of tests/, not of its code.
            if {"migrations", "fixtures", "tests"} & set(path.relative_to(ROOT).parts):
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules a module imports, anywhere in it (inside functions too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            # The longest known module the name starts with: `from a.b import c` is a.b.c when
            # c is a module, else a.b.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph() -> nx.DiGraph:
    found = modules()
    graph = nx.DiGraph()
    for name, path in found.items():
        graph.add_node(name)
        for target in imports_of(name, path, set(found)):
            graph.add_edge(name, target)
    return graph


def test_no_import_cycle():
    cycles = [sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1]
    assert cycles == []


def packages_holding(name: str, path: Path) -> list[str]:
    """The packages that hold a module, outermost first, after "" (the tree, whose members are
    the top-level packages); a package's ``__init__`` is held by the package itself."""
    parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    return ["", *(".".join(parts[:i]) for i in range(1, len(parts) + 1))]


def member(name: str, package: str) -> str:
    """The member of ``package`` that holds module ``name``: a module directly in it, one of its
    sub-packages (standing for every module under it), or the package's own ``__init__``."""
    if name == package:
        return f"{package}.__init__"
    if not package and layer(name) == "methods":
        # The pure methods are the bottom layer of the tree, below annotation, whatever folder
        # holds them (see ``layer``): annotation may use them while analysis uses annotation.
        return "analysis.methods"
    head = (name[len(package) + 1:] if package else name).split(".")[0]
    return f"{package}.{head}" if package else head


def package_graphs() -> dict[str, nx.DiGraph]:
    """The import graph collapsed to packages, one graph per package over its members.

    An import of module b by module a counts in the deepest package P that holds both: it is an
    edge from P's member holding a to P's member holding b (see ``member``). So
    ``annotation.selectors.staff`` importing ``annotation.services.tallies`` is the edge
    annotation.selectors → annotation.services in ``annotation``, and ``analysis.selectors``
    importing ``analysis.reports.agreement`` is analysis.selectors → analysis.reports in
    ``analysis``; imports between the top-level packages are edges of the tree "" (the layer test
    orders those). Each edge keeps the module imports behind it, to name them when a test fails.

    A package's own modules are members beside its sub-packages, not merged into the package:
    an app's entry points (``urls``, ``apps``, ``tasks``, found by Django and Celery at its root)
    import its sub-packages, and those import the app's root helpers (``importers``, ``models``),
    which is no cycle between two packages.
    """
    found = modules()
    graphs: dict[str, nx.DiGraph] = {}
    for a, b in import_graph().edges:
        held_a, held_b = packages_holding(a, found[a]), packages_holding(b, found[b])
        package = [p for p, q in zip(held_a, held_b, strict=False) if p == q][-1]
        source, target = member(a, package), member(b, package)
        if source != target:
            graph = graphs.setdefault(package, nx.DiGraph())
            graph.add_edge(source, target)
            graph.edges[source, target].setdefault("imports", []).append(f"{a} -> {b}")
    return graphs


def test_no_import_cycle_between_packages():
    """In every package, no two members import each other, directly or through others: a
    sub-package (everything under it) and a sibling module or sub-package may depend one way
    only, e.g. annotation.services on annotation.selectors and never the reverse."""
    cycles = []
    for package, graph in sorted(package_graphs().items()):
        for members in nx.strongly_connected_components(graph):
            if len(members) > 1:
                edges = graph.subgraph(members).edges(data="imports")
                cycles.append((package or "<tree>", sorted(members), sorted(i for *_, found in edges for i in found)))
    assert cycles == []


def layer(module: str) -> str:
    if module.startswith("analysis.methods"):
        return "methods"
    return module.split(".")[0]


# Which layers each layer may import (docs/development.md, "Layers").
# config (settings and wiring) sits above everything and only Django loads it.
ALLOWED = {
    "methods": {"methods"},
    "runtime": {"runtime"},
    "jobs": {"jobs", "runtime"},
    "annotation": {"annotation", "jobs", "runtime", "methods"},
    "analysis": {"analysis", "annotation", "jobs", "runtime", "methods"},
    "quality": {"quality", "analysis", "annotation", "jobs", "runtime", "methods"},
    "recruiting": {"recruiting", "quality", "analysis", "annotation", "jobs", "runtime", "methods"},
    "task_types": {"task_types", "recruiting", "quality", "analysis", "annotation", "jobs", "runtime", "methods"},
    "config": {"config", "runtime", "jobs", "annotation", "analysis", "quality", "recruiting", "task_types"},
}


def test_layers_import_only_downwards():
    wrong = sorted((a, b) for a, b in import_graph().edges
                   if layer(b) not in ALLOWED[layer(a)])
    assert wrong == []


def test_nothing_but_the_wiring_imports_config():
    """config/ is settings and wiring (urls, celery, wsgi, asgi): Django loads it through
    DJANGO_SETTINGS_MODULE, ROOT_URLCONF, WSGI_APPLICATION and the Celery app, and no module of
    the project imports it, not even inside a function."""
    wrong = sorted((a, b) for a, b in import_graph().edges if layer(b) == "config" and layer(a) != "config")
    assert wrong == []
    # The check sees config's modules (a renamed package would pass it unseen).
    assert {"config.urls", "config.celery", "config.settings"} <= set(modules())


def app_of(module: str) -> str:
    """The Django app a module belongs to: each task type's folder is an app of its own."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "task_types" else parts[0]


def builds_on() -> dict[str, set[str]]:
    """Each task-type app and the task-type apps it declares it builds on (its AppConfig's
    ``builds_on``): the only other types whose modules it may import."""
    return {config.name: set(getattr(config, "builds_on", ())) for config in apps.get_app_configs()
            if config.name.startswith("task_types.")}


def test_task_types_import_only_the_types_they_build_on():
    declared = builds_on()
    assert all(set(needs) <= set(declared) for needs in declared.values()), "a type builds on installed types only"
    wrong = sorted((a, b) for a, b in import_graph().edges
                   if layer(a) == layer(b) == "task_types" and app_of(a) != app_of(b)
                   and app_of(b) not in declared.get(app_of(a), set()))
    assert wrong == []


def absolute_imports(path) -> list[tuple[int, str, str]]:
    """(line, module, name) of each absolute import in a file; ``import a.b`` gives ("a.b", "")."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found += [(node.lineno, node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, "") for alias in node.names]
    return found


def test_no_module_imports_private_names_of_another_app():
    """Apps share only their public names: nothing named with a leading underscore (nor a name
    in a private module) is imported across apps."""
    wrong = []
    for name, path in modules().items():
        for lineno, module, imported in absolute_imports(path):
            if module.split(".")[0] not in PACKAGES or app_of(module) == app_of(name):
                continue
            parts = [*module.split("."), imported]
            if any(part.startswith("_") and part != "__init__" for part in parts):
                wrong.append((name, lineno, ".".join(filter(None, parts))))
    assert wrong == []


# Libraries whose private names (a leading underscore, or a private module) no module may import:
# they change without notice between releases.
LIBRARIES = {"django", "psycopg", "rest_framework", "redis", "django_redis", "celery", "kombu"}


def test_no_module_imports_private_names_of_django_or_the_database_drivers():
    wrong = []
    for name, path in modules().items():
        for lineno, module, imported in absolute_imports(path):
            parts = [*module.split("."), imported]
            if parts[0] in LIBRARIES and any(p.startswith("_") and p != "__init__" for p in parts):
                wrong.append((name, lineno, ".".join(filter(None, parts))))
    assert wrong == []


def test_pure_methods_import_no_framework():
    for name, path in modules().items():
        if layer(name) == "methods":
            tree = ast.parse(path.read_text(encoding="utf-8"))
            roots = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            roots |= {(node.module or "").split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and not node.level}
            assert not roots & {"django", "celery", "rest_framework", "annotation", "jobs"}, name


@pytest.mark.django_db
def test_generic_code_names_no_task_type():
    """No module outside task_types/ (and the settings' INSTALLED_APPS) names a registered type:
    not as a string, not by importing its app."""
    slugs = {t.slug for t in task_types()}
    wrong = []
    for name, path in modules().items():
        if layer(name) in ("task_types", "methods") or name.startswith("config.settings"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in slugs:
                wrong.append((name, node.lineno, node.value))
    assert wrong == []


def test_no_module_is_too_long():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def asset_files() -> list[Path]:
    """Every file in the project's static/ and templates/ folders and in those of its apps,
    except the vendored libraries (static/vendor/: htmx, kept as released)."""
    folders = [ROOT / "static", ROOT / "templates"]
    for package in PACKAGES:
        folders += [p for p in sorted((ROOT / package).rglob("*")) if p.is_dir() and p.name in ("static", "templates")]
    return [path for folder in folders for path in sorted(folder.rglob("*"))
            if path.is_file() and "vendor" not in path.relative_to(folder).parts]


def text_lines(path: Path) -> int | None:
    """The lines of a text file; None for a binary one (an image has no lines to count)."""
    try:
        return len(path.read_bytes().decode("utf-8").splitlines())
    except UnicodeDecodeError:
        return None


def test_no_template_or_static_file_is_too_long():
    """Templates, scripts and style sheets hold one idea each too (house rule 12)."""
    files = asset_files()
    assert {".html", ".js", ".css"} <= {path.suffix for path in files}
    long = {str(path.relative_to(ROOT)): n for path in files if (n := text_lines(path) or 0) > MAX_LINES}
    assert long == {}


# The modules of services (writes) and selectors (reads), house rules 1 and 2.
SERVICES_AND_SELECTORS = ("annotation/services/*.py", "annotation/services/*/*.py", "annotation/selectors/*.py", "analysis/services.py",
                          "analysis/selectors.py", "jobs/services.py", "jobs/selectors.py",
                          "task_types/*/services.py", "task_types/*/selectors.py")


def test_services_and_selectors_are_keyword_only():
    """Every public function of a services or selectors module takes its arguments by keyword
    only (``def f(*, a, b)``), so that a call names what it passes."""
    checked, wrong = 0, []
    for path in sorted({p for pattern in SERVICES_AND_SELECTORS for p in ROOT.glob(pattern)}):
        relative = path.relative_to(ROOT).as_posix()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name.startswith("_"):
                continue
            checked += 1
            positional = [a.arg for a in node.args.posonlyargs + node.args.args]
            positional += [f"*{node.args.vararg.arg}"] if node.args.vararg else []
            if positional:
                wrong.append((relative, node.name, positional))
    assert checked > 100  # the patterns still find the modules
    assert wrong == []


def test_pages_below_recruiting_include_none_of_its_templates():
    """The engine's and quality control's pages show what recruiting adds (bonuses, pay, a
    panel's submission) in the places it registers (``annotation.page_sections``), never by
    naming its templates; the panel exit they show is the engine's own."""
    below = [p for p in (ROOT / "templates").rglob("*.html")]
    assert below, "no templates found"
    naming = sorted(str(p.relative_to(ROOT)) for p in below if '"recruiting/' in p.read_text(encoding="utf-8"))
    assert naming == []
