"""Fail when a pinned dependency has a known vulnerability.

pip-audit asks an online service (PyPI's JSON API or OSV) for advisories; CI machines cannot reach
either, so this checker reads a vendored, dated snapshot of the PyPA advisory database instead
(`.ci/advisories/pypa-advisory-database.json`, rebuilt by `.ci/refresh_advisories.py`) and
compares every `name==version` pin in the requirements files with the advisories' affected
versions and ranges (OSV semantics). An advisory may be accepted only by listing its id, the
package and a reason in the ignore file.

The snapshot knows only advisories published before its date: the first line printed names
that date, and a warning follows when it is more than MAX_AGE_DAYS (90) days old, since "0
known vulnerabilities" then says nothing of the months since.

Usage: python .ci/audit_dependencies.py [--snapshot FILE] [--ignore FILE] [--max-age-days N]
       [--today YYYY-MM-DD] [REQUIREMENTS ...]
Exit status: 0 nothing known, 1 a known vulnerability, 2 unreadable input (an old snapshot
warns and does not change it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tomllib
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOT = ROOT / ".ci" / "advisories" / "pypa-advisory-database.json"
IGNORE = ROOT / ".ci" / "advisories" / "ignore.toml"
REQUIREMENTS = sorted(ROOT.glob("requirements*.txt"))
# Days after which the snapshot is called old (refresh it with `make advisories`).
MAX_AGE_DAYS = 90
PIN = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*==\s*([^\s;\\#]+)")


class AuditError(Exception):
    """Input the checker cannot trust (a missing file, a malformed entry)."""


@dataclass(frozen=True)
class Finding:
    package: str
    version: str
    advisory: str
    aliases: tuple[str, ...]
    fixed: tuple[str, ...]
    source: str


def read_pins(paths: list[Path]) -> dict[tuple[str, str], str]:
    """(canonical name, version) -> the first file that pins it. `-r`/`-c` lines are not followed:
    every compiled requirements file holds its whole closure."""
    pins: dict[tuple[str, str], str] = {}
    for path in paths:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as error:
            raise AuditError(f"{path}: {error.strerror}") from error
        for number, line in enumerate(lines, start=1):
            match = PIN.match(line)
            if match:
                name, version = canonicalize_name(match.group(1)), match.group(2)
                try:
                    Version(version)
                except InvalidVersion as error:
                    raise AuditError(f"{path}:{number}: {version!r} is not a version") from error
                pins.setdefault((name, version), f"{path.name}:{number}")
    return pins


def in_range(version: Version, events: list[dict[str, str]]) -> bool:
    """OSV's ECOSYSTEM range: affected from an `introduced` up to (not including) `fixed`, or up
    to and including `last_affected`; events are applied in version order."""

    def key(event: dict[str, str]) -> Version:
        value = next(iter(event.values()))
        return Version("0") if value == "0" else Version(value)

    affected = False
    for event in sorted(events, key=key):
        if "introduced" in event and version >= key(event):
            affected = True
        elif "fixed" in event and version >= key(event):
            affected = False
        elif "last_affected" in event and version > key(event):
            affected = False
    return affected


def same_version(listed: str, version: Version) -> bool:
    """Old releases in the lists are not always PEP 440 versions ("0.3.2d"); such a string
    names no release pip could install today, so it matches nothing."""
    try:
        return Version(listed) == version
    except InvalidVersion:
        return False


def affects(record: dict, name: str, version: str) -> tuple[bool, tuple[str, ...]]:
    """Whether an OSV record affects name==version, and the versions that fix it."""
    parsed = Version(version)
    hit = False
    fixed: list[str] = []
    for entry in record.get("affected", []):
        package = entry.get("package", {})
        if package.get("ecosystem") != "PyPI" or canonicalize_name(package.get("name", "")) != name:
            continue
        if version in entry.get("versions", []) or any(
            same_version(listed, parsed) for listed in entry.get("versions", [])
        ):
            hit = True
        try:
            for span in entry.get("ranges", []):
                if span.get("type") == "ECOSYSTEM":
                    fixed += [e["fixed"] for e in span.get("events", []) if "fixed" in e]
                    if in_range(parsed, span.get("events", [])):
                        hit = True
        except (InvalidVersion, StopIteration) as error:
            raise AuditError(f"advisory {record.get('id')}: unreadable version data") from error
    return hit, tuple(fixed)


def read_ignores(path: Path) -> dict[tuple[str, str], str]:
    """(advisory id, canonical package) -> reason; every entry needs all three."""
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise AuditError(f"{path}: {error}") from error
    ignores = {}
    for number, entry in enumerate(data.get("ignore", []), start=1):
        missing = [k for k in ("id", "package", "reason") if not str(entry.get(k, "")).strip()]
        if missing:
            raise AuditError(f"{path}: ignore entry {number} lacks {', '.join(missing)}")
        ignores[(entry["id"], canonicalize_name(entry["package"]))] = entry["reason"].strip()
    return ignores


def audit(pins: dict[tuple[str, str], str], snapshot: dict) -> list[Finding]:
    advisories = snapshot.get("advisories")
    if not isinstance(advisories, dict):
        raise AuditError("snapshot has no 'advisories' mapping")
    findings = []
    for (name, version), source in sorted(pins.items()):
        for record in advisories.get(name, []):
            if record.get("withdrawn"):
                continue
            hit, fixed = affects(record, name, version)
            if hit:
                findings.append(Finding(name, version, record["id"], tuple(record.get("aliases", [])), fixed, source))
    return findings


def snapshot_age_warning(taken: str, *, today: date, max_age_days: int) -> str | None:
    """The warning to print when the snapshot taken at ``taken`` (ISO 8601) is older than
    ``max_age_days`` on ``today``, or has no readable date; None when it is recent enough."""
    try:
        day = datetime.fromisoformat(taken).date()
    except (TypeError, ValueError):
        return (f"audit: WARNING: the advisory snapshot has no readable date ({taken!r}); "
                "advisories it misses are not checked")
    age = (today - day).days
    if age <= max_age_days:
        return None
    return (f"audit: WARNING: the advisory snapshot is {age} days old (taken {day.isoformat()}, "
            f"more than {max_age_days}): advisories published since are not checked; rebuild it "
            "with `make advisories ADVISORY_DB=<clone of the PyPA advisory database>`")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("requirements", nargs="*", type=Path, help="default: requirements*.txt")
    parser.add_argument("--snapshot", type=Path, default=SNAPSHOT)
    parser.add_argument("--ignore", type=Path, default=IGNORE)
    parser.add_argument("--max-age-days", type=int, default=MAX_AGE_DAYS,
                        help=f"warn when the snapshot is older (default {MAX_AGE_DAYS})")
    parser.add_argument("--today", type=date.fromisoformat, default=None,
                        help="the date to measure the snapshot's age against (default: today, UTC)")
    args = parser.parse_args(argv)
    try:
        pins = read_pins(args.requirements or REQUIREMENTS)
        try:
            snapshot = json.loads(args.snapshot.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise AuditError(f"{args.snapshot}: {error}") from error
        ignores = read_ignores(args.ignore)
        findings = audit(pins, snapshot)
    except AuditError as error:
        print(f"audit: {error}", file=sys.stderr)
        return 2
    source = snapshot.get("source", {})
    print(f"audit: {len(pins)} pins against {source.get('repository', '?')} "
          f"at {source.get('commit', '?')[:12]} ({source.get('date', 'undated')})")
    today = args.today or datetime.now(tz=UTC).date()
    warning = snapshot_age_warning(source.get("date"), today=today, max_age_days=args.max_age_days)
    if warning:
        print(warning)
    failing = 0
    used = set()
    for finding in findings:
        reason = ignores.get((finding.advisory, finding.package))
        also = f" ({', '.join(finding.aliases)})" if finding.aliases else ""
        fix = f"; fixed in {', '.join(finding.fixed)}" if finding.fixed else ""
        line = f"{finding.package}=={finding.version} [{finding.source}]: {finding.advisory}{also}{fix}"
        if reason:
            used.add((finding.advisory, finding.package))
            print(f"  ignored  {line} -- {reason}")
        else:
            failing += 1
            print(f"  VULNERABLE  {line}")
    for advisory, package in sorted(set(ignores) - used):
        print(f"  note: ignore entry {advisory} for {package} matches no pin any more; remove it")
    print(f"audit: {failing} known vulnerabilit{'y' if failing == 1 else 'ies'} in pinned versions"
          f"{f', {len(used)} ignored with a reason' if used else ''}")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
