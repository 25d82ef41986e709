"""A PostgreSQL outage under a live server: 503 with Retry-After, then everything back.

The test copies the suite's PostgreSQL test database (schema and the rows it made) into a cluster
of its own on a free port, serves it with gunicorn, stops the cluster, asks a page and the API,
starts the cluster again and checks that nothing acknowledged was lost.
"""

from __future__ import annotations

import subprocess
import tempfile
import time
from pathlib import Path

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from rest_framework.authtoken.models import Token

from annotation.models import Annotation
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.reliability.outage_servers import (
    LiveServer,
    PostgresCluster,
    compose_web_healthcheck,
    wait_until,
)
from tests.support.runtime import database_url, is_postgres

pytestmark = [pytest.mark.integration, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-for-tests"
RETRY_AFTER = 7


@pytest.fixture
def cluster():
    if not is_postgres():
        pytest.skip("copies the PostgreSQL test database into a cluster of its own; the embedded SQLite "
                    "default has no database server that could be away (CI runs this on PostgreSQL)")
    pg = PostgresCluster()
    try:
        pg.start()
        yield pg
    finally:
        pg.remove()


def copy_test_database(pg: PostgresCluster) -> str:
    """The suite's test database, as it is now, into the cluster; returns its URL there."""
    subprocess.run(["psql", pg.url("postgres"), "-qc", "CREATE DATABASE argcrowd"], check=True, timeout=30,
                   capture_output=True)
    dump = subprocess.run(["pg_dump", "--no-owner", "--no-privileges", database_url()], check=True, timeout=60,
                          capture_output=True)
    subprocess.run(["psql", "-q", "-v", "ON_ERROR_STOP=1", pg.url("argcrowd")], input=dump.stdout, check=True,
                   timeout=60, capture_output=True)
    return pg.url("argcrowd")


def stored(pg: PostgresCluster, table: str, pks: list[int]) -> set[int]:
    out = subprocess.run(["psql", "-tA", pg.url("argcrowd"), "-c",
                          f"SELECT id FROM {table} WHERE id IN ({','.join(map(str, pks))})"],
                         check=True, timeout=30, capture_output=True, text=True).stdout
    return {int(line) for line in out.split()}


def log_in(live: LiveServer, username: str) -> requests.Session:
    browser = live.session()
    browser.get(live.url("/accounts/login/"), timeout=15)
    done = browser.post(live.url("/accounts/login/"), timeout=15, allow_redirects=False, data={
        "username": username, "password": PASSWORD, "csrfmiddlewaretoken": browser.cookies["csrftoken"]},
        headers={"Referer": live.url("/accounts/login/")})
    assert done.status_code == 302, done.text[-1000:]
    return browser


def test_without_the_database_pages_and_api_answer_503_then_recover(cluster, tmp_path):
    started = time.monotonic()
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(6, project=project)
    worker = UserFactory()
    # A hash the live server knows (the suite's own hasher is not in its settings).
    worker.password = PBKDF2PasswordHasher().encode(PASSWORD, "outage-salt", iterations=1000)
    worker.save(update_fields=["password"])
    token = Token.objects.create(user=worker).key
    url = copy_test_database(cluster)
    work = Path(tempfile.mkdtemp(prefix="argcrowd-outage-pg-web-", dir=tmp_path))
    live = LiveServer({"DATABASE_URL": url, "ARGCROWD_VAR_DIR": str(work / "var"),
                       "UNAVAILABLE_RETRY_AFTER": str(RETRY_AFTER)}, work)
    try:
        api = live.session(token)
        browser = log_in(live, worker.username)
        acknowledged: list[int] = []

        def play() -> tuple[requests.Response, requests.Response | None]:
            nxt = api.post(live.url(f"/api/projects/{project.slug}/assignments/next/"), timeout=15)
            if nxt.status_code != 200:
                return nxt, None
            pk = nxt.json()["assignment"]["id"]
            sub = api.post(live.url(f"/api/assignments/{pk}/submit/"), json=answer("a1"), timeout=15)
            if sub.status_code in (200, 201):
                acknowledged.append(sub.json()["id"])
            return nxt, sub

        nxt, sub = play()
        assert nxt.status_code == 200 and sub is not None and sub.status_code == 201, live.log_tail()
        assert browser.get(live.url("/projects/"), timeout=15).status_code == 200
        # An assignment taken before the outage, to be answered while the database is away.
        pending = api.post(live.url(f"/api/projects/{project.slug}/assignments/next/"), timeout=15).json()

        cluster.stop()

        page = browser.get(live.url("/projects/"), timeout=15)
        assert page.status_code == 503, page.text[-2000:]
        assert page.headers["Retry-After"] == str(RETRY_AFTER)
        assert "text/html" in page.headers["Content-Type"] and "retry" in page.text.lower()
        got = api.post(live.url(f"/api/projects/{project.slug}/assignments/next/"), timeout=15)
        assert got.status_code == 503 and got.headers["Retry-After"] == str(RETRY_AFTER)
        assert got.json()["retry_after"] == RETRY_AFTER and "retry" in got.json()["detail"]
        refused = api.post(live.url(f"/api/assignments/{pending['assignment']['id']}/submit/"), json=answer("a2"),
                           timeout=15)
        assert refused.status_code == 503
        health = live.session().get(live.url("/health/"), timeout=15)
        assert health.status_code == 503 and health.json()["components"]["database"] == {
            "ok": False, "error": "OperationalError"}
        assert str(cluster.port) not in health.text
        # docker-compose's check of the web container fails, so the container is reported unhealthy.
        assert compose_web_healthcheck(live) != 0

        cluster.start()
        wait_until(lambda: live.session().get(live.url("/health/"), timeout=15).status_code == 200, timeout=20,
                   what="the health endpoint did not answer 200 after the database came back")
        assert browser.get(live.url("/projects/"), timeout=15).status_code == 200
        assert compose_web_healthcheck(live) == 0
        # The answer refused during the outage can be sent again and is stored now.
        again = api.post(live.url(f"/api/assignments/{pending['assignment']['id']}/submit/"), json=answer("a2"),
                         timeout=15)
        assert again.status_code == 201, again.text
        acknowledged.append(again.json()["id"])
        nxt, sub = play()
        assert nxt.status_code == 200 and sub is not None and sub.status_code == 201
    finally:
        live.stop()

    assert stored(cluster, Annotation._meta.db_table, acknowledged) == set(acknowledged)
    assert time.monotonic() - started < 60
