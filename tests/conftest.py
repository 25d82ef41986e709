"""Shared fixtures: a real Celery worker process, a Chromium browser, and database helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


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
def own_cache_namespace(settings):
    """Each test counts throttled requests in a namespace of its own: a Redis cache outlives the
    test's database transaction, so counts would otherwise carry over from test to test."""
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}


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


@pytest.fixture
def shared_data() -> Path:
    if not (SHARED_DATA / "ukpconvarg1").is_dir():
        pytest.skip(f"{SHARED_DATA / 'ukpconvarg1'} is absent; the reproduction tests need the shared data")
    return SHARED_DATA
