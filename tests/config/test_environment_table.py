"""Every environment variable the platform reads stands in one table of the manual
(docs/operations.md#settings), with its default and meaning, and the table names no variable
the code does not read. The code side is found in the source, not by running it, so a variable
read only on one path (mail settings, S3) counts too."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANUAL = ROOT / "docs" / "operations.md"
# Folders that are not the platform: tests, benchmarks, CI scripts, the manual, environments.
NOT_THE_PLATFORM = {"tests", "bench", "docs", "site", "node_modules", "var", "staticfiles"}
# config/settings/env.py's readers; each takes the variable's name first.
READERS = {"env_str", "env_bool", "env_int", "env_float", "env_rate", "env_choice", "env_url", "env_list",
           "env_origins", "getenv"}


def platform_sources() -> list[Path]:
    sources = [ROOT / "manage.py"]
    for folder in sorted(p for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        if folder.name not in NOT_THE_PLATFORM:
            # A task type keeps its tests in its folder (task_types/<slug>/tests/): not the platform either.
            sources += sorted(path for path in folder.rglob("*.py")
                              if not NOT_THE_PLATFORM & set(path.relative_to(folder).parts[:-1]))
    return sources


def is_environ(node: ast.AST) -> bool:
    """``os.environ`` or a bare ``environ``."""
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or (
        isinstance(node, ast.Name) and node.id == "environ")


def variables_read(path: Path) -> dict[str, int]:
    """Names read from the environment in a file (a write, ``os.environ[X] = ...``, is no read;
    ``setdefault`` reads), with a line of each; a read whose name is not written out fails."""
    found: dict[str, int] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        name = None
        if isinstance(node, ast.Call):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
            on_environ = isinstance(function, ast.Attribute) and is_environ(function.value)
            if (on_environ and called in ("get", "setdefault", "pop")) or called in READERS:
                argument = node.args[0] if node.args else None
                assert isinstance(argument, ast.Constant), f"{path}:{node.lineno}: a variable read by a computed name"
                name = argument.value
        elif isinstance(node, ast.Subscript) and is_environ(node.value) and isinstance(node.ctx, ast.Load):
            assert isinstance(node.slice, ast.Constant), f"{path}:{node.lineno}: a variable read by a computed name"
            name = node.slice.value
        if name is not None:
            found.setdefault(name, node.lineno)
    return found


READERS_MODULE = ROOT / "config" / "settings" / "env.py"


def variables_in_code() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in platform_sources():
        if path == READERS_MODULE:
            continue  # the readers themselves, reading the name they are given
        for name, line in variables_read(path).items():
            found.setdefault(name, f"{path.relative_to(ROOT)}:{line}")
    return found


ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \|([^|]*)\|([^|]*)\|([^|]*)\|\s*$")


def variables_in_manual() -> dict[str, tuple[str, str, str]]:
    """The settings table: name -> (default, shape, meaning), one row per variable."""
    text = MANUAL.read_text(encoding="utf-8")
    section = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, tuple[str, str, str]] = {}
    for line in section.splitlines():
        match = ROW.match(line)
        if match:
            name, *cells = match.groups()
            assert name not in rows, f"{name} has two rows"
            rows[name] = tuple(cell.strip() for cell in cells)  # type: ignore[assignment]
    return rows


def test_the_scan_finds_reads_of_each_kind():
    """The scan sees the helpers, os.environ.get, setdefault and subscripts (else the main test
    could pass by finding nothing)."""
    found = variables_in_code()
    assert {"THROTTLE_TOKEN", "DATABASE_URL", "EMAIL_PORT", "ARGCROWD_TEST_RUN", "DJANGO_SETTINGS_MODULE",
            "RUN_MAIN", "MEDIA_S3_PUBLIC_ORIGIN"} <= set(found)


def test_every_variable_the_code_reads_is_in_the_manual_and_no_other():
    code, manual = variables_in_code(), variables_in_manual()
    missing = {name: where for name, where in code.items() if name not in manual}
    unread = sorted(set(manual) - set(code))
    assert missing == {}, "add a row to the table in docs/operations.md#settings"
    assert unread == [], "the manual lists variables nothing reads"


def test_every_row_says_its_default_shape_and_meaning():
    empty = [name for name, cells in variables_in_manual().items() if not all(cells)]
    assert empty == []
