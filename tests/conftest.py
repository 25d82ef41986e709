"""Shared fixtures: a real Celery worker process, a Chromium browser, and database helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
# The same folder the settings read (SHARED_DATA_DIR, default ../shared/data).
SHARED_DATA = Path(os.environ.get("SHARED_DATA_DIR", ROOT.parent / "shared" / "data"))
# What the tests marked shared_data read; checked whole, so that a partial copy fails loudly.
SHARED_FILES = ("ukpconvarg1/arguments.tsv", "ukpconvarg1/assignments.tsv.gz")


def pytest_configure(config) -> None:
    from django.conf import settings

    # Password hashing is deliberately slow; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def is_postgres() -> bool:
    return connection.vendor == "postgresql"


def database_url() -> str:
    """A URL for the test database, for child processes (celery worker, concurrent clients)."""
    s = connection.settings_dict
    if connection.vendor == "postgresql":
        auth = quote(s["USER"] or "postgres")
        if s.get("PASSWORD"):
            auth += ":" + quote(s["PASSWORD"])
        return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    return ""


@pytest.fixture(autouse=True)
def in_process_jobs(request):
    """Jobs run inside the test unless it asks for the real worker: a test that checks what a
    job did must not depend on a broker being configured."""
    if "celery_worker_process" in request.fixturenames:
        yield
        return
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker):
    """A real ``celery worker`` process on the Redis broker, reading the test database.

    Started only for tests that ask for it; it needs REDIS_URL and PostgreSQL (a worker process
    cannot share the in-memory SQLite test database).
    """
    redis_url = os.environ.get("REDIS_URL")
    if not redis_url:
        pytest.skip("REDIS_URL is not set: the Celery worker tests need Redis (CI sets it; see .ci/run)")
    with django_db_blocker.unblock():
        if not is_postgres():
            pytest.skip("the Celery worker tests need DATABASE_URL pointing at PostgreSQL")
        url = database_url()
    from config.celery import app

    queue = f"argcrowd-test-{os.getpid()}"
    app.conf.task_default_queue = queue
    env = {**os.environ, "DATABASE_URL": url, "REDIS_URL": redis_url, "CELERY_QUEUE": queue}
    log = open(ROOT / ".celery-test-worker.log", "w")  # noqa: SIM115 - closed at teardown
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue, "--pool", "solo",
         "--concurrency", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the celery worker exited with {proc.returncode}; see {log.name}")
            if app.control.ping(timeout=1.0):
                break
        else:
            raise RuntimeError(f"the celery worker did not answer within 60 s; see {log.name}")
        yield app
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        message = "Debian's chromium is not installed (apt-get install chromium); .ci/run installs it"
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; the test's own ORM calls are
    # still plain synchronous calls, which Django would otherwise refuse next to a loop.
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    with sync_playwright() as pw:
        instance = pw.chromium.launch(
            executable_path=chromium_path, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        yield instance
        instance.close()


def require_shared_data() -> Path:
    """The shared data folder, or skip -- or fail when REQUIRE_SHARED_DATA=1 (CI), so that the
    tests on real data can never pass by not running."""
    missing = [name for name in SHARED_FILES if not (SHARED_DATA / name).is_file()]
    if missing:
        message = (f"the shared data is missing {', '.join(missing)} under {SHARED_DATA} (set "
                   "SHARED_DATA_DIR to the folder holding ukpconvarg1/); the tests on real data need it")
        if os.environ.get("REQUIRE_SHARED_DATA") == "1":
            pytest.fail(f"REQUIRE_SHARED_DATA=1: {message}", pytrace=False)
        pytest.skip(message)
    return SHARED_DATA


@pytest.fixture
def shared_data() -> Path:
    return require_shared_data()


def pytest_collection_modifyitems(items) -> None:
    # The fixture implies the marker, so that -m "not shared_data" deselects every such test.
    for item in items:
        if "shared_data" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("shared_data"):
            item.add_marker(pytest.mark.shared_data)


def pytest_runtest_setup(item) -> None:
    # And the marker implies the check, for a test marked shared_data that reads the folder itself.
    if item.get_closest_marker("shared_data"):
        require_shared_data()
