"""A Redis outage under a live server: the API keeps answering, limits keep holding.

gunicorn serves the platform with a redis-server of the test's own as cache (and broker); the test
kills that Redis, uses the API and the logins, starts Redis again and checks that everything is
back on it. The database is the suite's (PostgreSQL, or the SQLite file of SQLITE_TEST_PATH).
"""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import redis
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from rest_framework.authtoken.models import Token

from annotation.models import Annotation
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.reliability.outage_servers import (
    LiveServer,
    RedisServer,
    compose_web_healthcheck,
    wait_until,
)
from tests.support.runtime import _worker_unavailable, database_url, is_postgres

pytestmark = [pytest.mark.integration, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-for-tests"
# How long a process keeps off Redis after a failed call (the setting, shortened for the test).
FALLBACK_SECONDS = 1
# Two processes, as a deployment has several: each falls back on its own.
GUNICORN_WORKERS = 2


@pytest.fixture
def database_env() -> dict[str, str]:
    if is_postgres():
        return {"DATABASE_URL": database_url()}
    name = str(connection.settings_dict["NAME"])
    if name.startswith(("file:memorydb", ":memory:")):
        _worker_unavailable("a live server needs PostgreSQL (DATABASE_URL) or a SQLite file (SQLITE_TEST_PATH)")
    return {"SQLITE_PATH": name}


@pytest.fixture
def work():
    path = Path(tempfile.mkdtemp(prefix="argcrowd-outage-redis-"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def private_redis(work):
    server = RedisServer(work)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def live(private_redis, database_env, work):
    server = LiveServer({**database_env, "REDIS_URL": private_redis.url, "ARGCROWD_VAR_DIR": str(work / "var"),
                         "CACHE_FALLBACK_SECONDS": str(FALLBACK_SECONDS), "THROTTLE_LOGIN": "5/min",
                         "LOGIN_FAILURE_LIMIT": "3"}, work, workers=GUNICORN_WORKERS)
    yield server
    server.stop()


def play(api, live, slug: str) -> tuple[int, int, int | None]:
    """Ask for an item and answer it: (status of next, status of submit, stored annotation id)."""
    nxt = api.post(live.url(f"/api/projects/{slug}/assignments/next/"), timeout=15)
    if nxt.status_code != 200 or nxt.json().get("assignment") is None:
        return nxt.status_code, 0, None
    pk = nxt.json()["assignment"]["id"]
    sub = api.post(live.url(f"/api/assignments/{pk}/submit/"), json=answer("a1"), timeout=15)
    return nxt.status_code, sub.status_code, sub.json().get("id") if sub.status_code in (200, 201) else None


def test_without_redis_the_api_answers_and_limits_hold_then_all_returns_to_redis(live, private_redis):
    started = time.monotonic()
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(20, project=project)
    worker, victim = UserFactory(), UserFactory()
    for user in (worker, victim):
        # A hash the live server knows (the suite's own hasher is not in its settings).
        user.password = PBKDF2PasswordHasher().encode(PASSWORD, "outage-salt", iterations=1000)
        user.save(update_fields=["password"])
    token = Token.objects.create(user=worker).key
    api = live.session(token)
    acknowledged: list[int] = []
    statuses: list[tuple[str, int]] = []

    def note(what: str, status: int) -> int:
        statuses.append((what, status))
        return status

    # Redis up: the baseline.
    n, s, pk = play(api, live, project.slug)
    assert (n, s) == (200, 201), live.log_tail()
    acknowledged.append(pk)
    assert live.session().get(live.url("/health/"), timeout=10).json()["components"]["cache"]["ok"] is True

    private_redis.stop()
    outage_started = time.monotonic()

    # Reads and submits keep working, and each costs no timeout: one annotator, then six at once.
    for _ in range(3):
        t0 = time.monotonic()
        n, s, pk = play(api, live, project.slug)
        note("next", n), note("submit", s)
        assert (n, s) == (200, 201), live.log_tail()
        assert time.monotonic() - t0 < 3
        acknowledged.append(pk)
    crowd = [live.session(Token.objects.create(user=UserFactory()).key) for _ in range(6)]
    with ThreadPoolExecutor(len(crowd)) as pool:
        rounds = list(pool.map(lambda client: [play(client, live, project.slug) for _ in range(2)], crowd))
    for n, s, pk in (r for played in rounds for r in played):
        note("next", n), note("submit", s)
        if s:
            assert s == 201 and pk is not None
            acknowledged.append(pk)
    assert not [x for x in statuses if x[1] >= 500], statuses
    assert len(acknowledged) == 1 + 3 + 6 * 2  # 20 items, one answer each

    # A token for the right password.
    got = live.session().post(live.url("/api/token/"), json={"username": worker.username, "password": PASSWORD},
                              timeout=15)
    assert note("token", got.status_code) == 200 and got.json()["token"] == token

    # A web login as a browser does it: the form, its CSRF token, the right password, then a page
    # that needs a session (sessions live in the database, the lockout counts there).
    browser = live.session()
    form = browser.get(live.url("/accounts/login/"), timeout=15)
    assert note("login form", form.status_code) == 200
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text)
    assert csrf, form.text[-1000:]
    done = browser.post(live.url("/accounts/login/"), timeout=15, allow_redirects=False,
                        data={"username": worker.username, "password": PASSWORD, "csrfmiddlewaretoken": csrf[1]},
                        headers={"Referer": live.url("/accounts/login/")})
    assert note("login", done.status_code) == 302 and "/accounts/login/" not in done.headers["Location"], done.text
    home = browser.get(live.url(done.headers["Location"]), timeout=15)
    assert note("home", home.status_code) == 200 and "/accounts/login/" not in home.url, home.url
    assert worker.username in home.text

    # The login throttle still counts, in each process's memory: 25 logins from one address at
    # 5/min meet 429 at least 5 times, however they spread over the 2 processes and a minute's
    # edge. (Without a CSRF token an allowed one is refused with 403 afterwards, which is enough
    # to be counted.)
    logins = [note("login", live.session().post(live.url("/accounts/login/"),
                                                 data={"username": "nobody", "password": "x"}, timeout=15).status_code)
              for _ in range(25)]
    assert logins.count(429) >= 5 and set(logins) <= {403, 429}, logins

    # The lockout still locks: the third failure for one user name locks it (LOGIN_FAILURE_LIMIT=3),
    # and then even the right password is refused.
    tries = [live.session().post(live.url("/api/token/"), json={"username": victim.username, "password": "wrong"},
                                 timeout=15) for _ in range(3)]
    assert [note("token", t.status_code) for t in tries] == [400, 400, 429]
    locked = live.session().post(live.url("/api/token/"), json={"username": victim.username, "password": PASSWORD},
                                 timeout=15)
    assert note("token", locked.status_code) == 429 and "Too many failed logins" in locked.json()["detail"]

    # Queueing a job needs the broker (the same Redis): a clear answer, the job visibly not queued.
    staff = live.session(Token.objects.create(user=UserFactory(role="admin")).key)
    t0 = time.monotonic()
    run = staff.post(live.url(f"/api/projects/{project.slug}/analysis/"), json={"kind": "agreement"}, timeout=30)
    note("queue a job", run.status_code)
    assert time.monotonic() - t0 < 15
    assert run.status_code == 503, run.text
    assert int(run.headers["Retry-After"]) > 0 and "The job queue could not be reached" in run.json()["detail"]
    from analysis.models import AnalysisRun

    queued = AnalysisRun.objects.filter(project=project).order_by("-pk").first()
    assert queued is not None and queued.status == "failed" and "The job queue could not be reached" in queued.error

    # The health endpoint says the cache is away, but the web tier serves: 200.
    health = live.session().get(live.url("/health/"), timeout=10)
    assert health.status_code == 200
    body = health.json()
    assert body["status"] == "degraded" and body["components"]["cache"]["ok"] is False
    assert body["components"]["database"]["ok"] is True
    assert str(private_redis.port) not in health.text and "127.0.0.1" not in health.text
    # docker-compose's check of the web container passes: a Redis outage only degrades it.
    assert compose_web_healthcheck(live) == 0
    assert time.monotonic() - outage_started < 30

    # The only answer of 500 or above is the deliberate 503 of the job queueing.
    assert not [x for x in statuses if x[1] >= 500 and x != ("queue a job", 503)], statuses

    # Redis back: within the breaker's pause the process returns to it, counts included.
    private_redis.start()
    wait_until(lambda: live.session().get(live.url("/health/"), timeout=10).json()["components"]["cache"]["ok"],
               timeout=15, what="the cache did not come back")
    time.sleep(FALLBACK_SECONDS + 0.2)
    n, s, pk = play(api, live, project.slug)
    assert (n, s) == (200, 201), live.log_tail()
    acknowledged.append(pk)
    counters = redis.Redis.from_url(private_redis.url).keys("*throttle_user_*")
    assert counters, "the user throttle did not count in Redis again"

    # Nothing acknowledged was lost.
    assert set(Annotation.objects.filter(pk__in=acknowledged).values_list("pk", flat=True)) == set(acknowledged)
    assert time.monotonic() - started < 60
