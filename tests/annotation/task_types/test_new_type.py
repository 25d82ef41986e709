"""A new task type is a folder plus one line in INSTALLED_APPS: the toy Likert type of
``tests/support/likert`` (which no other file names) runs through every test that reads the
task-type registry, and through the API's schema check, in runs whose settings add that one line.
Whatever those tests ask of every type, the toy must give, so a demand the manual's "Adding a
task type" does not state fails here first."""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from annotation.task_types import task_types

ROOT = Path(__file__).resolve().parents[3]
TOY = "likert"
SETTINGS = "tests.support.likert.settings"


def registry_tests() -> list[str]:
    """Every test module that reads the registry: it calls ``task_types()``, or imports a helper
    of tests/support that does (the importers and uploads built from the registry)."""
    helpers = {f"tests.support.{p.stem}" for p in sorted((ROOT / "tests" / "support").glob("*.py"))
               if "task_types()" in p.read_text(encoding="utf-8")}
    found = []
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        if path.resolve() != Path(__file__).resolve() and ("task_types()" in text or any(h in text for h in helpers)):
            found.append(path.relative_to(ROOT).as_posix())
    return found


def inner_env() -> dict[str, str]:
    # Runs of their own: the outer run's database, queue and cache (and its demands for real
    # workers and the shared data, which no test of a type's contract needs) are not the inner
    # run's to touch. REQUIRE_BROWSER stays: the browser tests run the toy's page.
    outer = {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "SQLITE_TEST_PATH", "CACHE_KEY_PREFIX",
             "REQUIRE_WORKER", "REQUIRE_SHARED_DATA"}
    return {k: v for k, v in os.environ.items() if k not in outer and not k.startswith("PYTEST_")}


def test_the_registry_finds_the_tests_that_read_it():
    found = registry_tests()
    assert "tests/annotation/task_types/test_contract.py" in found
    assert "tests/annotation/importers/test_gold_columns.py" in found
    assert "tests/security/test_import_hostile_files.py" in found  # through tests.support.hostile_importers


@pytest.mark.integration  # a run of its own, in another process
def test_a_folder_and_one_installed_apps_line_make_a_type_that_passes_every_registry_test(tmp_path):
    # The other types' cases are left out (they run in the outer run); every test that is not
    # about one type runs, with the toy in the registry.
    others = sorted(t.slug for t in task_types())
    assert TOY not in others
    report = tmp_path / "report.xml"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ds", SETTINGS, f"--junitxml={report}",
         "-k", " and ".join(f"not {slug}" for slug in others), *registry_tests()],
        # A SQLite file of its own: the browser tests' live server cannot share an in-memory one.
        cwd=ROOT, env={**inner_env(), "SQLITE_TEST_PATH": str(tmp_path / "inner.sqlite3")},
        capture_output=True, text=True, timeout=1800,
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    cases = ET.parse(report).getroot().iter("testcase")
    toy = [case for case in cases if re.search(rf"[\[-]{TOY}[\]-]", case.get("name", ""))]
    ran = [case for case in toy if case.find("skipped") is None]
    # Every test of the contract parametrised by type ran for the toy, and so did the rest.
    contract = [case for case in ran if case.get("classname", "").endswith("test_contract")]
    assert len(contract) >= 5 and len(ran) >= 40, (len(contract), len(ran), run.stdout.strip().splitlines()[-1])


@pytest.mark.integration  # a run of its own, in another process
def test_the_api_schema_of_a_site_with_the_toy_type_is_complete_and_valid():
    """`make lint`'s schema check, with the toy installed: its pages and API need no description
    beyond the contract's."""
    env = {**inner_env(), "DJANGO_DEBUG": "1"}
    run = subprocess.run(
        [sys.executable, "manage.py", "spectacular", "--fail-on-warn", "--validate", "--settings", SETTINGS],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert re.search(rf"\b{TOY}\b", run.stdout), "the schema lists the toy type"


def test_no_other_file_names_the_toy_type():
    named = [path for path in ROOT.glob("**/*.py") if ".venv" not in path.parts and TOY not in path.parts
             and path.name != Path(__file__).name and SETTINGS.rpartition(".")[0] in path.read_text(encoding="utf-8")]
    assert named == []
