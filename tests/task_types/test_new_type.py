"""A new task type is a folder plus one line in INSTALLED_APPS: the toy Likert type of
``tests/support/likert`` (which no other file names) runs through the whole contract test, in a
test run whose settings add that one line."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.integration
def test_a_folder_and_one_installed_apps_line_make_a_working_type():
    # A run of its own on an in-memory database: the outer run's database, queue and cache (and
    # its demands for workers, a browser and the shared data) are not the inner run's to touch.
    outer = {"DJANGO_SETTINGS_MODULE", "DATABASE_URL", "REDIS_URL", "SQLITE_TEST_PATH", "REQUIRE_WORKER",
             "REQUIRE_BROWSER", "REQUIRE_SHARED_DATA"}
    env = {k: v for k, v in os.environ.items() if k not in outer}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--ds", "tests.support.likert.settings",
         "-k", "likert or api_describes", "tests/annotation/task_types/test_contract.py"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    summary = run.stdout.strip().splitlines()[-1]
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", summary)}
    # Every test of the contract parametrised by type ran for the toy, and the API listed it.
    assert counts.get("passed", 0) >= 5 and not counts.get("failed") and not counts.get("errors"), summary


def test_no_other_file_names_the_toy_type():
    named = [path for path in ROOT.glob("**/*.py") if ".venv" not in path.parts and "likert" not in path.parts
             and path.name != Path(__file__).name and "tests.support.likert" in path.read_text(encoding="utf-8")]
    assert named == []
