"""The pinned installs (docs/operations.md, "Dependencies"): every requirements file is compiled
from its .in source with a hash for every pin, a package has one version across the files, and
the Makefile and CI install in hash-checking mode."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMPILED = sorted(ROOT.glob("requirements*.txt"))
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def entries(path: Path) -> list[tuple[str, str, list[str]]]:
    """(name, version, hashes) per pin; a pin's hashes sit on its continuation lines."""
    found: list[tuple[str, str, list[str]]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            found.append((match.group(1).lower().replace("_", "-"), match.group(2), []))
        elif found and line.strip().startswith("--hash=sha256:"):
            found[-1][2].append(line.strip().removesuffix("\\").strip())
        elif line.strip() and not line.lstrip().startswith("#"):
            pytest.fail(f"{path.name}: unexpected line {line!r} (compile it with pip-compile)")
    return found


def test_the_five_requirement_sets_are_compiled():
    names = {p.name for p in COMPILED}
    assert {"requirements.txt", "requirements-dev.txt", "requirements-docs.txt",
            "requirements-bench.txt", "requirements-embeddings.txt"} <= names


@pytest.mark.parametrize("path", COMPILED, ids=lambda p: p.name)
def test_every_pin_has_hashes_and_a_source(path):
    assert path.with_suffix(".in").exists(), f"{path.name} has no .in source"
    assert "pip-compile" in path.read_text(encoding="utf-8").split("\n\n", 1)[0]
    pins = entries(path)
    assert pins
    for name, version, hashes in pins:
        assert hashes and all(re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", h) for h in hashes), f"{name}=={version}"


def test_a_package_has_one_version_and_the_same_hashes_in_every_file():
    seen: dict[str, tuple[str, frozenset[str], str]] = {}
    for path in COMPILED:
        for name, version, hashes in entries(path):
            if name in seen:
                first_version, first_hashes, where = seen[name]
                assert version == first_version, f"{name}: {version} in {path.name}, {first_version} in {where}"
                # pip intersects the hashes of a requirement given twice: a file may hold fewer
                # (a local build of the same release) but never none in common.
                assert first_hashes & set(hashes), f"{name}: no hash in common between {where} and {path.name}"
            else:
                seen[name] = (version, frozenset(hashes), path.name)


def test_make_and_ci_install_with_require_hashes_and_run_the_audit():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    installs = [line for line in makefile.splitlines() if "pip install" in line and "-r requirements" in line]
    assert installs and all("--require-hashes" in line for line in installs)
    assert "audit_dependencies.py" in makefile
    assert "make audit" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
