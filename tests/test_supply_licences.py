"""The project's licence (Apache-2.0) and what it may ship with (docs/operations.md, "Licence").

Every runtime dependency pinned in requirements.txt is read from its installed metadata
(License-Expression, else the License field, else the trove classifiers) and must carry a licence
on the allowed list, or be one of the listed exceptions with the licence recorded there: a
dependency whose licence changes, or a new one under another licence, fails here until someone
has looked at it and said in the docs why it is fine (or not).
"""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")

# Permissive licences that an Apache-2.0 project may depend on and ship beside itself. "BSD" is
# a project that says only "BSD License" (a classifier): every clause variant of it is permissive.
ALLOWED = {
    "0BSD", "Apache-2.0", "BSD", "BSD-2-Clause", "BSD-3-Clause", "CC0-1.0", "ISC", "MIT",
    "MIT-CMU", "PSF-2.0", "Unlicense", "Zlib",
}

# Dependency -> the licence its metadata declares; why each is acceptable, or not, is in
# docs/operations.md ("Licence"), which must name every one of them.
EXCEPTIONS = {
    "psycopg": "LGPL-3.0-only",
    "psycopg-binary": "LGPL-3.0-only",
}

# Free-text License fields and trove classifiers, as the pinned packages spell them.
FREE_TEXT = {
    "apache 2.0": "Apache-2.0",
    "bsd 3-clause or apache-2.0": "BSD-3-Clause OR Apache-2.0",  # uritemplate
    "apache license 2.0": "Apache-2.0",
    "apache-2.0": "Apache-2.0",
    "bsd": "BSD",
    "bsd-3-clause": "BSD-3-Clause",
    "new bsd": "BSD-3-Clause",
    "mit": "MIT",
    "mit license": "MIT",
}
CLASSIFIERS = {
    "License :: OSI Approved :: Apache Software License": "Apache-2.0",
    "License :: OSI Approved :: BSD License": "BSD",
    "License :: OSI Approved :: MIT License": "MIT",
    "License :: OSI Approved :: Python Software Foundation License": "PSF-2.0",
    "License :: OSI Approved :: ISC License (ISCL)": "ISC",
    "License :: OSI Approved :: GNU General Public License v3 (GPLv3)": "GPL-3.0",
    "License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)": "LGPL-3.0",
    "License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)": "MPL-2.0",
}


def runtime_pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            pins[match.group(1)] = match.group(2)
    return pins


def declared_licence(dist: metadata.Distribution) -> str:
    """An SPDX expression, or one identifier (or several joined with OR, for dual licences
    given by classifiers), or "UNKNOWN"."""
    meta = dist.metadata
    if meta.get("License-Expression"):
        return str(meta["License-Expression"]).strip()
    text = (meta.get("License") or "").strip()
    if text and "\n" not in text and text.lower() in FREE_TEXT:
        return FREE_TEXT[text.lower()]
    found = sorted({CLASSIFIERS.get(c, c) for c in meta.get_all("Classifier") or [] if c.startswith("License ::")})
    return " OR ".join(found) if found else "UNKNOWN"


def allowed(expression: str) -> bool:
    """An SPDX expression holds when every AND term, and at least one OR term, is allowed."""
    tokens = re.findall(r"\(|\)|[A-Za-z0-9.+-]+", expression)
    python = []
    for token in tokens:
        if token in ("(", ")"):
            python.append(token)
        elif token in ("AND", "OR"):
            python.append(token.lower())
        elif token == "WITH":
            return False  # an exception clause needs a person to read it
        else:
            python.append(str(token in ALLOWED))
    return bool(eval(" ".join(python), {"__builtins__": {}}))  # noqa: S307 - tokens are True/False/and/or/()


@pytest.mark.parametrize(("name", "version"), sorted(runtime_pins().items()))
def test_runtime_dependency_licence_is_allowed_or_a_listed_exception(name, version):
    dist = metadata.distribution(name)
    assert dist.version == version, f"{name}: {dist.version} installed, {version} pinned"
    licence = declared_licence(dist)
    if name.lower() in EXCEPTIONS:
        assert licence == EXCEPTIONS[name.lower()], (
            f"{name}'s licence changed to {licence!r}: read it again and update EXCEPTIONS and the docs")
    else:
        assert allowed(licence), f"{name}=={version} declares {licence!r}, neither allowed nor a listed exception"


def test_the_licence_check_tells_allowed_from_not():
    assert allowed("Apache-2.0 OR BSD-2-Clause")
    assert allowed("BSD-3-Clause AND 0BSD AND MIT AND Zlib AND CC0-1.0")
    assert allowed("GPL-3.0-only OR MIT")
    assert not allowed("MIT AND GPL-3.0-or-later")
    assert not allowed("LGPL-3.0-only")
    assert not allowed("GPL-2.0-or-later WITH Classpath-exception-2.0")
    assert not allowed("UNKNOWN")


def test_every_exception_is_explained_in_the_docs():
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    section = operations.split("## Licence", 1)[1].split("\n## ", 1)[0]
    for name, licence in EXCEPTIONS.items():
        assert f"`{name}`" in section and licence in section, f"docs/operations.md: explain {name} ({licence})"
    assert set(EXCEPTIONS) <= set(map(str.lower, runtime_pins())), "an exception that is no longer pinned"


def test_licence_file_pyproject_and_citation_agree():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert "END OF TERMS AND CONDITIONS" in licence  # the full text, not a notice
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "Apache-2.0"
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert citation["cff-version"] == "1.2.0"
    assert citation["title"] == project["name"]
    assert citation["version"] == project["version"]
    assert citation["license"] == project["license"]
    assert citation["abstract"] == project["description"]
    assert citation["authors"] and all(author.get("name") for author in citation["authors"])
    assert "Apache-2.0" in (ROOT / "README.md").read_text(encoding="utf-8")
