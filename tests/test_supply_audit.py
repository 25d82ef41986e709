"""The dependency audit (.ci/audit_dependencies.py, docs/operations.md "Dependency audit") run on a
synthetic advisory snapshot: a pin inside an advisory's affected range is reported and fails the
run, a fixed one is not, an ignore entry needs a reason; and the vendored snapshot covers the pins
and passes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
AUDIT = ROOT / ".ci" / "audit_dependencies.py"


def advisory(id_: str, package: str, events: list[dict], versions: list[str] = ()) -> dict:
    return {
        "id": id_,
        "aliases": [f"CVE-2099-{id_[-4:]}"],
        "affected": [{
            "package": {"ecosystem": "PyPI", "name": package},
            "ranges": [{"type": "ECOSYSTEM", "events": events}],
            "versions": list(versions),
        }],
    }


SNAPSHOT = {
    "source": {"repository": "synthetic", "commit": "0" * 40, "date": "2099-01-01"},
    "advisories": {
        "example-pkg": [
            advisory("PYSEC-2099-0001", "Example_Pkg", [{"introduced": "0"}, {"fixed": "1.4.2"}]),
            advisory("PYSEC-2099-0002", "example-pkg", [{"introduced": "2.0"}, {"last_affected": "2.1"}]),
            # Withdrawn advisories count for nothing.
            {**advisory("PYSEC-2099-0003", "example-pkg", [{"introduced": "0"}]), "withdrawn": "2099-02-01"},
        ],
        "otherpkg": [
            advisory("PYSEC-2099-0004", "otherpkg", [], versions=["0.9.0"]),
        ],
    },
}


def run_audit(tmp_path: Path, pins: str, ignore: str = "", *, snapshot: dict = SNAPSHOT,
              options: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    (tmp_path / "snapshot.json").write_text(json.dumps(snapshot), encoding="utf-8")
    (tmp_path / "requirements.txt").write_text(pins, encoding="utf-8")
    (tmp_path / "ignore.toml").write_text(ignore, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(AUDIT), "--snapshot", str(tmp_path / "snapshot.json"),
         "--ignore", str(tmp_path / "ignore.toml"), *options, str(tmp_path / "requirements.txt")],
        capture_output=True, text=True, timeout=60, check=False)


def dated(day: str) -> dict:
    return {**SNAPSHOT, "source": {**SNAPSHOT["source"], "date": day}}


@pytest.mark.integration
def test_the_snapshot_date_is_printed_and_an_old_one_warns(tmp_path):
    recent = run_audit(tmp_path, "example-pkg==9.0\n", snapshot=dated("2026-09-01T10:00:00+00:00"),
                       options=("--today", "2026-11-30"))
    old = run_audit(tmp_path, "example-pkg==9.0\n", snapshot=dated("2024-10-10T17:35:05+00:00"),
                    options=("--today", "2026-12-02"))
    undated = run_audit(tmp_path, "example-pkg==9.0\n", snapshot={"advisories": SNAPSHOT["advisories"]})
    assert "(2026-09-01T10:00:00+00:00)" in recent.stdout.splitlines()[0]
    assert "WARNING" not in recent.stdout and recent.returncode == 0
    assert "the advisory snapshot is 783 days old (taken 2024-10-10, more than 90)" in old.stdout
    assert old.returncode == 0  # a warning, not a failure: the pins themselves are clean
    assert "WARNING: the advisory snapshot has no readable date" in undated.stdout
    # The limit is an option: 90 days to the day is still recent, 91 is not.
    edge = ("--today", "2026-11-30")
    assert "WARNING" not in run_audit(tmp_path, "", snapshot=dated("2026-09-01"), options=edge).stdout
    late = run_audit(tmp_path, "", snapshot=dated("2026-08-31"), options=edge).stdout
    assert "91 days old" in late


@pytest.mark.parametrize(("pin", "advisory_id"), [
    ("example-pkg==1.4.1", "PYSEC-2099-0001"),  # below `fixed`
    ("Example.Pkg==1.0", "PYSEC-2099-0001"),  # the name is compared canonicalised
    ("example-pkg==2.1", "PYSEC-2099-0002"),  # `last_affected` is affected
    ("otherpkg==0.9.0", "PYSEC-2099-0004"),  # listed explicitly, no range
])
@pytest.mark.integration
def test_a_known_vulnerable_pin_is_reported_and_fails(tmp_path, pin, advisory_id):
    result = run_audit(tmp_path, f"{pin} \\\n    --hash=sha256:{'a' * 64}\n")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "VULNERABLE" in result.stdout and advisory_id in result.stdout
    assert "1 known vulnerability" in result.stdout


@pytest.mark.integration
@pytest.mark.parametrize("pin", ["example-pkg==1.4.2", "example-pkg==1.10", "example-pkg==2.1.1", "otherpkg==0.9.1"])
def test_a_fixed_or_unaffected_pin_passes(tmp_path, pin):
    result = run_audit(tmp_path, pin + "\n")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "VULNERABLE" not in result.stdout
    assert "0 known vulnerabilities" in result.stdout


@pytest.mark.integration
def test_an_ignored_advisory_passes_only_with_a_reason(tmp_path):
    entry = '[[ignore]]\nid = "PYSEC-2099-0001"\npackage = "example-pkg"\nreason = "{}"\n'
    accepted = run_audit(tmp_path, "example-pkg==1.0\n", entry.format("the code never calls the affected function"))
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "ignored" in accepted.stdout and "never calls the affected function" in accepted.stdout

    unexplained = run_audit(tmp_path, "example-pkg==1.0\n", entry.format(" "))
    assert unexplained.returncode == 2
    assert "lacks reason" in unexplained.stderr

    # An ignore entry for another advisory does not hide this one.
    other = entry.replace("0001", "0002").format("not this one")
    assert run_audit(tmp_path, "example-pkg==1.0\n", other).returncode == 1


@pytest.mark.integration
def test_an_unreadable_snapshot_fails_instead_of_passing(tmp_path):
    result = run_audit(tmp_path, "example-pkg==1.0\n")
    (tmp_path / "snapshot.json").write_text("{not json", encoding="utf-8")
    broken = subprocess.run(
        [sys.executable, str(AUDIT), "--snapshot", str(tmp_path / "snapshot.json"),
         str(tmp_path / "requirements.txt")], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 1 and broken.returncode == 2


@pytest.mark.integration
def test_the_vendored_snapshot_covers_every_pin_and_the_pins_pass():
    snapshot = json.loads((ROOT / ".ci" / "advisories" / "pypa-advisory-database.json").read_text(encoding="utf-8"))
    assert snapshot["source"]["license"] == "CC-BY-4.0" and snapshot["source"]["date"]
    sys.path.insert(0, str(AUDIT.parent))
    try:
        from audit_dependencies import REQUIREMENTS, read_pins
    finally:
        sys.path.remove(str(AUDIT.parent))
    pinned = {name for name, _ in read_pins(REQUIREMENTS)}
    missing = pinned - set(snapshot["packages"])
    assert not missing, f"refresh the snapshot (.ci/refresh_advisories.py): {sorted(missing)} not covered"
    result = subprocess.run([sys.executable, str(AUDIT)], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
