"""Shared fixtures: a real Celery worker process, a Chromium browser, and database helpers."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from django.db import connection

from tests.support.runtime import ROOT, _worker_unavailable, database_url, is_postgres

# The same folder the settings read (SHARED_DATA_DIR, default ../shared/data).
SHARED_DATA = Path(os.environ.get("SHARED_DATA_DIR", ROOT.parent / "shared" / "data"))
# What the tests marked shared_data read; checked whole, so that a partial copy fails loudly.
SHARED_FILES = ("ukpconvarg1/arguments.tsv", "ukpconvarg1/assignments.tsv.gz")

# The integration marker, applied by the fixtures that start browsers, servers and workers.
pytest_plugins = ["tests.support.markers"]


def pytest_configure(config) -> None:
    from django.conf import settings

    # Password hashing is deliberately slow; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(scope="session", autouse=True)
def job_environment():
    """This test session's own job queue, cache and upload folder (embedded mode), so that a
    development server on the same checkout never sees the tests' jobs. With REDIS_URL, the
    queue is a per-session Redis queue (see ``worker_processes``) and the cache is Redis."""
    from django.conf import settings
    from django.test.utils import override_settings

    from config.celery import app
    from config.settings.embedded import embedded_job_settings

    # A folder of its own, not under pytest's rotating temporary folders: a second test session
    # on the machine may delete those while this one's workers still use it.
    var_dir = Path(tempfile.mkdtemp(prefix="argcrowd-test-var-"))
    overrides = {"MEDIA_ROOT": str(var_dir / "media"), "VAR_DIR": var_dir}
    if settings.REDIS_URL:
        # Sessions running side by side (pytest -n) share one Redis: each keeps its keys (live job
        # state, heartbeats by job id) under a prefix of its own, and so do the processes it starts.
        prefix = f"argcrowd-test-{os.getpid()}"
        os.environ["CACHE_KEY_PREFIX"] = prefix
        overrides["CACHES"] = {"default": {**settings.CACHES["default"], "KEY_PREFIX": prefix}}
    else:
        embedded = embedded_job_settings(var_dir)
        overrides["CACHES"] = embedded["CACHES"]
        app.conf.broker_transport_options = embedded["CELERY_BROKER_TRANSPORT_OPTIONS"]
    try:
        with override_settings(**overrides):
            yield var_dir
    finally:
        shutil.rmtree(var_dir, ignore_errors=True)


WORKER_FIXTURES = {"celery_worker_process", "worker_processes"}


@pytest.fixture(autouse=True)
def own_cache_namespace(request, settings):
    """Each test counts throttled requests in a namespace of its own: a Redis cache outlives the
    test's database transaction, so counts would otherwise carry over from test to test. Tests
    with real workers share the workers' namespace instead (live job state travels through it)."""
    if WORKER_FIXTURES & set(request.fixturenames):
        return
    settings.CACHES = {"default": {**settings.CACHES["default"], "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}


@pytest.fixture(autouse=True)
def in_process_jobs(request):
    """Jobs run inside the test unless it asks for a real worker: a test that checks what a job
    did must not depend on a worker being there."""
    if WORKER_FIXTURES & set(request.fixturenames):
        yield
        return
    from config.celery import app

    before = app.conf.task_always_eager
    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = before


class WorkerProcesses:
    """Starts real ``celery worker`` processes on this session's queue and database."""

    def __init__(self, env: dict[str, str], queue: str, log_dir: Path) -> None:
        self.env, self.queue, self.log_dir = env, queue, log_dir
        self.started: list[subprocess.Popen] = []

    def start(self, *, extra_env: dict[str, str] | None = None, include: str = "", queue: str = "") -> subprocess.Popen:
        """A worker on the session's queue, or on ``queue`` (a test that kills its worker uses
        its own queue, so that no other worker takes its jobs)."""
        log_path = self.log_dir / f"worker-{len(self.started)}.log"
        command = [sys.executable, "-m", "celery", "-A", "config", "worker", "-Q", queue or self.queue, "--pool", "solo",
                   "--concurrency", "1", "--loglevel", "INFO", "--without-gossip", "--without-mingle"]
        if include:
            command += ["--include", include]
        with log_path.open("w") as log:
            proc = subprocess.Popen(command, cwd=ROOT, env={**self.env, **(extra_env or {})}, stdout=log,
                                    stderr=subprocess.STDOUT)
        self.started.append(proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"the celery worker exited with {proc.returncode}; see {log_path}")
            if " ready." in log_path.read_text():
                return proc
            time.sleep(0.2)
        raise RuntimeError(f"the celery worker did not start within 60 s; see {log_path}")

    def stop_all(self) -> None:
        for proc in self.started:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()


@pytest.fixture(scope="session")
def worker_processes(django_db_setup, django_db_blocker, job_environment):
    """What real workers need: the test database (PostgreSQL, or a SQLite file that a second
    process can open) and this session's queue (Redis, or the embedded folder queue)."""
    from django.conf import settings

    from config.celery import app

    with django_db_blocker.unblock():
        name = str(connection.settings_dict["NAME"])
        if is_postgres():
            env_db = {"DATABASE_URL": database_url()}
        elif not name.startswith(("file:memorydb", ":memory:")):
            env_db = {"SQLITE_PATH": name}
        else:
            _worker_unavailable("real workers need PostgreSQL (DATABASE_URL) or a SQLite file (SQLITE_TEST_PATH)")
    queue = f"argcrowd-test-{os.getpid()}"
    app.conf.task_default_queue = queue
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH", "REDIS_URL")}
    env.update(env_db, CELERY_QUEUE=queue, ARGCROWD_VAR_DIR=str(job_environment))
    if settings.REDIS_URL:
        env["REDIS_URL"] = settings.REDIS_URL
    workers = WorkerProcesses(env, queue, job_environment)
    try:
        yield workers
    finally:
        workers.stop_all()


@pytest.fixture
def own_queue(worker_processes):
    """Jobs of this test go to a queue of their own, served only by the workers it starts."""
    from config.celery import app

    queue = f"{worker_processes.queue}-{uuid.uuid4().hex[:8]}"
    before = app.conf.task_default_queue
    app.conf.task_default_queue = queue
    yield queue
    app.conf.task_default_queue = before


@pytest.fixture(scope="session")
def celery_worker_process(worker_processes):
    """One real worker for the whole session, for tests that only need jobs to run."""
    worker_processes.start()
    from config.celery import app

    return app


@pytest.fixture
def annotated_project(db):
    """A project with 6 items, each answered by 3 of 4 workers (the analysis tests' and the job
    tests' project)."""
    from annotation.services import annotation_submit, assignment_next
    from task_types.pairwise.tests.factories import answer
    from tests.factories import ItemFactory, ProjectFactory, UserFactory

    project = ProjectFactory(slug="annotated", redundancy=3)
    ItemFactory.create_batch(6, project=project)
    choices = {"w0": "a1", "w1": "a1", "w2": "a2", "w3": "equal"}
    for _ in range(6):
        for name, label in choices.items():
            worker = UserFactory._meta.model.objects.filter(username=name).first() or UserFactory(username=name)
            a = assignment_next(project=project, worker=worker).assignment
            if a is not None:
                annotation_submit(assignment=a, worker=worker, data=answer(label), client={"elapsed_ms": 3000})
    return project


@pytest.fixture
def media_root(settings, tmp_path):
    """Stored media files go to a folder of the test's own."""
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


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


@pytest.fixture
def fake_prolific(settings):
    """A local fake of Prolific's API (tests/support/fake_prolific.py), with the settings
    pointing at it."""
    from tests.support.fake_prolific import FakeProlificServer

    with FakeProlificServer() as state:
        settings.PROLIFIC_API_URL = state.url
        settings.PROLIFIC_API_TOKEN = state.token
        yield state
