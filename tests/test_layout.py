"""The shape of the code (docs/development.md): layers that import only downwards, no import
cycle, generic code that names no task type, and files small enough to hold one idea."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest
from django.apps import apps

from annotation.task_types import task_types

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("config", "jobs", "annotation", "analysis", "task_types")
# Lines a module may have before it holds more than one idea (house rule 12: "about 400").
MAX_LINES = 400


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts or "fixtures" in path.parts:
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


def layer(module: str) -> str:
    if module.startswith("analysis.methods"):
        return "methods"
    return module.split(".")[0]


# Which layers each layer may import (docs/development.md, "Layers").
ALLOWED = {
    "methods": {"methods"},
    "jobs": {"jobs", "config"},
    "annotation": {"annotation", "jobs", "methods", "config"},
    "analysis": {"analysis", "annotation", "jobs", "methods", "config"},
    "task_types": {"task_types", "analysis", "annotation", "jobs", "methods", "config"},
    "config": {"config", "jobs", "annotation", "analysis", "task_types"},
}


def test_layers_import_only_downwards():
    wrong = sorted((a, b) for a, b in import_graph().edges if layer(b) not in ALLOWED[layer(a)])
    assert wrong == []


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


def test_no_module_imports_private_names_of_another_app():
    """Apps share only their public names: nothing named with a leading underscore (nor a name
    in a private module) is imported across apps."""
    wrong = []
    for name, path in modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and node.module:
                targets = [(node.module, alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [(alias.name, "") for alias in node.names]
            else:
                continue
            for module, imported in targets:
                if module.split(".")[0] not in PACKAGES or app_of(module) == app_of(name):
                    continue
                parts = [*module.split("."), imported]
                if any(part.startswith("_") and part != "__init__" for part in parts):
                    wrong.append((name, node.lineno, ".".join(filter(None, parts))))
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
        if layer(name) in ("task_types", "methods") or name == "config.settings":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in slugs:
                wrong.append((name, node.lineno, node.value))
    assert wrong == []


def test_no_module_is_too_long():
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}
