"""Rebuild the vendored advisory snapshot from a copy of the PyPA advisory database.

The PyPA advisory database (github.com/pypa/advisory-database, CC-BY 4.0) keeps one OSV record
per advisory as YAML under vulns/<package>/. This keeps the records of every package pinned in
requirements*.txt, unchanged, in one JSON file with the commit and date they were taken at, for
.ci/audit_dependencies.py to read offline.

Usage: python .ci/refresh_advisories.py PATH
PATH is a clone of that repository (a work tree, or a bare git directory); its checked-out
commit (HEAD) is the one recorded. Needs git and PyYAML (requirements-dev.txt).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import yaml
from packaging.utils import canonicalize_name

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_dependencies import REQUIREMENTS, SNAPSHOT, read_pins  # noqa: E402

REPOSITORY = "https://github.com/pypa/advisory-database"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={repo}", *args], check=True, capture_output=True,
                          text=True).stdout


def records(repo: Path, wanted: set[str]) -> dict[str, list[dict]]:
    """OSV records under vulns/ at HEAD for the wanted (canonical) package names."""
    folders = [line.split("\t", 1)[1] for line in git(repo, "ls-tree", "HEAD", "vulns/").splitlines()
               if line.split()[1] == "tree"]
    found: dict[str, list[dict]] = {}
    for folder in folders:
        name = canonicalize_name(folder.removeprefix("vulns/"))
        if name not in wanted:
            continue
        for path in git(repo, "ls-tree", "--name-only", "HEAD", f"{folder}/").split():
            if path.endswith((".yaml", ".yml")):
                record = yaml.safe_load(git(repo, "show", f"HEAD:{path}"))
                found.setdefault(name, []).append(record)
    return {name: sorted(found[name], key=lambda r: r["id"]) for name in sorted(found)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", type=Path, help="clone of pypa/advisory-database")
    parser.add_argument("--output", type=Path, default=SNAPSHOT)
    args = parser.parse_args(argv)
    repo = args.path / ".git" if (args.path / ".git").exists() else args.path
    wanted = {name for name, _ in read_pins(REQUIREMENTS)}
    commit = git(repo, "rev-parse", "HEAD").strip()
    date = git(repo, "show", "-s", "--format=%cI", "HEAD").strip()
    advisories = records(repo, wanted)
    snapshot = {
        "source": {
            "repository": REPOSITORY,
            "commit": commit,
            "date": date,
            "license": "CC-BY-4.0",
            "attribution": "PyPA advisory database contributors, https://github.com/pypa/advisory-database",
        },
        "packages": sorted(wanted),
        "advisories": advisories,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(snapshot, indent=1, sort_keys=True, default=str) + "\n",
                           encoding="utf-8")
    count = sum(len(v) for v in advisories.values())
    print(f"{args.output}: {count} advisories for {len(advisories)} of {len(wanted)} pinned "
          f"packages, {REPOSITORY} at {commit[:12]} ({date})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
