"""Tests on the real data skip where it is absent, and fail instead under REQUIRE_SHARED_DATA=1."""

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

import conftest  # the root conftest.py, whose shared-data checks these are

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(conftest, "SHARED_DATA", tmp_path)
    monkeypatch.delenv("REQUIRE_SHARED_DATA", raising=False)
    return tmp_path


def test_missing_data_skips_naming_the_files_and_the_folder(folder):
    with pytest.raises(pytest.skip.Exception, match="missing ukpconvarg1/arguments.tsv, ukpconvarg1/assignments.tsv.gz") as skip:
        conftest.require_shared_data()
    assert str(folder) in str(skip.value) and "SHARED_DATA_DIR" in str(skip.value)


def test_missing_data_fails_when_required(folder, monkeypatch):
    monkeypatch.setenv("REQUIRE_SHARED_DATA", "1")
    with pytest.raises(pytest.fail.Exception, match="REQUIRE_SHARED_DATA=1: the shared data is missing"):
        conftest.require_shared_data()
    # A copy that lacks one file fails as loudly as none at all.
    (folder / "ukpconvarg1").mkdir()
    (folder / "ukpconvarg1" / "arguments.tsv").write_text("arg_id\n")
    with pytest.raises(pytest.fail.Exception, match=r"missing ukpconvarg1/assignments\.tsv\.gz under"):
        conftest.require_shared_data()
    (folder / "ukpconvarg1" / "assignments.tsv.gz").write_bytes(b"")
    assert conftest.require_shared_data() == folder


def test_a_marked_test_is_checked_even_without_the_fixture(folder, monkeypatch):
    marked = SimpleNamespace(get_closest_marker=lambda name: name == "shared_data" or None)
    with pytest.raises(pytest.skip.Exception):
        conftest.pytest_runtest_setup(marked)
    monkeypatch.setenv("REQUIRE_SHARED_DATA", "1")
    with pytest.raises(pytest.fail.Exception):
        conftest.pytest_runtest_setup(marked)
    conftest.pytest_runtest_setup(SimpleNamespace(get_closest_marker=lambda name: None))


@pytest.mark.integration
def test_a_ci_run_without_the_data_fails(tmp_path):
    # The real thing, as .ci/run runs it: the tests on real data error out instead of skipping.
    env = {k: v for k, v in os.environ.items() if k != "SHARED_DATA_DIR"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "shared_data",
         "tests/analysis/methods/agreement/test_agreement.py",
         "tests/analysis/methods/preference_graph/test_filter.py"],
        cwd=ROOT, env={**env, "SHARED_DATA_DIR": str(tmp_path), "REQUIRE_SHARED_DATA": "1"},
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 errors" in done.stdout and "skipped" not in done.stdout
    assert "REQUIRE_SHARED_DATA=1: the shared data is missing" in done.stdout
