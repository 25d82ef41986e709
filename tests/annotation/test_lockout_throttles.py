"""Login lockout (django-axes) on every way in, and throttles on the API, join codes and
marketplace links."""

import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from axes.models import AccessAttempt
from django.conf import settings as django_settings
from django.urls import reverse
from rest_framework.test import APIClient
from rest_framework.throttling import SimpleRateThrottle

from tests.factories import ProjectFactory, UserFactory
from tests.support.runtime import database_url, is_postgres

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]
PASSWORD = "pw-for-tests"


@pytest.fixture
def rates(settings, monkeypatch):
    """Set some throttle rates for one test (the others keep their configured values). The
    throttles' clock stands still meanwhile: counts live in fixed windows, and a test whose
    requests straddle the end of a minute would otherwise count in two."""
    now = time.time()
    monkeypatch.setattr(SimpleRateThrottle, "timer", lambda self: now)

    def set_rates(**rates):
        rest = dict(settings.REST_FRAMEWORK)
        rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], **rates}
        settings.REST_FRAMEWORK = rest

    return set_rates


def test_limits_are_settings_with_sensible_defaults():
    assert django_settings.AXES_FAILURE_LIMIT == 10
    assert django_settings.AXES_COOLOFF_TIME == timedelta(minutes=15)
    assert django_settings.AXES_LOCKOUT_PARAMETERS == ["username"]
    assert django_settings.CACHES["default"]["BACKEND"] in (
        "runtime.cache.FallbackRedisCache", "runtime.sqlite_cache.SQLiteCache")


def fail_then_try_right(post, username, *, limit=10):
    responses = [post(username, "wrong-password") for _ in range(limit)]
    return responses, post(username, PASSWORD)


def test_login_page_locks_out_after_ten_failures_even_with_the_right_password(client):
    UserFactory(username="ann")
    post = lambda u, p: client.post(reverse("login"), {"username": u, "password": p})  # noqa: E731
    responses, last = fail_then_try_right(post, "ann")
    assert [r.status_code for r in responses[:9]] == [200] * 9
    assert "didn't match" in responses[0].content.decode()
    assert responses[9].status_code == 429  # the tenth failure already locks
    assert last.status_code == 429 and "_auth_user_id" not in client.session
    body = last.content.decode()
    assert "Login blocked for 15 minutes" in body and "even with the right password" in body
    assert last["Retry-After"] == "900"


def test_the_lock_holds_for_the_user_name_from_any_address_but_not_for_others(client):
    UserFactory(username="ann")
    UserFactory(username="bob")
    for _ in range(10):
        client.post(reverse("login"), {"username": "ann", "password": "nope"}, REMOTE_ADDR="10.0.0.1")
    other_address = client.post(reverse("login"), {"username": "ann", "password": PASSWORD}, REMOTE_ADDR="10.0.0.2")
    assert other_address.status_code == 429
    # Someone else behind the same address (a class behind one NAT) still gets in.
    other_user = client.post(reverse("login"), {"username": "bob", "password": PASSWORD}, REMOTE_ADDR="10.0.0.1")
    assert other_user.status_code == 302


def test_login_attempts_are_throttled_per_address(client, rates):
    rates(login="5/min")
    UserFactory(username="carl")
    codes = [client.post(reverse("login"), {"username": f"user{i}", "password": "nope"}).status_code for i in range(5)]
    assert codes == [200] * 5
    sixth = client.post(reverse("login"), {"username": "carl", "password": PASSWORD})
    assert sixth.status_code == 429 and "Too many attempts" in sixth.content.decode()
    assert client.post("/admin/login/", {"username": "carl", "password": PASSWORD},
                       HTTP_X_FORWARDED_FOR="8.8.8.8").status_code == 429
    assert client.get(reverse("login")).status_code == 200  # the page itself still shows
    assert client.post(reverse("login"), {"username": "carl", "password": PASSWORD},
                       REMOTE_ADDR="10.2.2.2").status_code == 302


def test_after_the_cool_off_the_right_password_works(client):
    UserFactory(username="ann")
    for _ in range(10):
        client.post(reverse("login"), {"username": "ann", "password": "nope"})
    assert client.post(reverse("login"), {"username": "ann", "password": PASSWORD}).status_code == 429
    AccessAttempt.objects.update(attempt_time=AccessAttempt.objects.first().attempt_time - timedelta(minutes=16))
    assert client.post(reverse("login"), {"username": "ann", "password": PASSWORD}).status_code == 302


def test_a_forged_forwarded_for_header_does_not_escape_the_lockout(client):
    UserFactory(username="bob")
    for i in range(10):
        client.post(reverse("login"), {"username": "bob", "password": "nope"}, HTTP_X_FORWARDED_FOR=f"1.2.3.{i}")
    response = client.post(reverse("login"), {"username": "bob", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="9.9.9.9")
    assert response.status_code == 429


def test_admin_login_locks_out(client):
    UserFactory(username="boss", role="admin", is_superuser=True)
    post = lambda u, p: client.post("/admin/login/", {"username": u, "password": p, "next": "/admin/"})  # noqa: E731
    responses, last = fail_then_try_right(post, "boss")
    assert responses[0].status_code == 200
    assert last.status_code == 429 and "Login blocked" in last.content.decode()
    assert client.get("/admin/").status_code == 302  # still not logged in


def test_api_token_endpoint(rates):
    rates(token="100/min")
    user = UserFactory(username="carl")
    api = APIClient()
    response = api.post("/api/token/", {"username": "carl", "password": PASSWORD}, format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    assert api.post("/api/token/", {"username": "carl", "password": PASSWORD}).json()["token"] == token
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert api.get("/api/projects/").status_code == 200
    bad = APIClient().post("/api/token/", {"username": "carl", "password": "nope"}, format="json")
    assert bad.status_code == 400 and bad.json() == {"detail": "Unable to log in with the user name and password given."}
    missing = APIClient().post("/api/token/", {"username": ["carl"]}, format="json")
    assert missing.status_code == 400 and set(missing.json()) == {"username", "password"}
    assert user.auth_token.key == token


def test_api_token_failures_count_toward_the_lockout(rates, client):
    rates(token="100/min")
    UserFactory(username="dora")
    api = APIClient()
    post = lambda u, p: api.post("/api/token/", {"username": u, "password": p}, format="json")  # noqa: E731
    responses, last = fail_then_try_right(post, "dora")
    assert [r.status_code for r in responses[:9]] == [400] * 9
    assert last.status_code == 429 and last["Retry-After"] == "900"
    assert last.json()["retry_after"] == 900 and "Too many failed logins" in last.json()["detail"]
    assert "token" not in last.json()
    # The same lock applies to the login page: failures are counted in one place.
    assert client.post(reverse("login"), {"username": "dora", "password": PASSWORD}).status_code == 429


def test_token_endpoint_is_throttled_per_address(rates):
    rates(token="3/min")
    UserFactory(username="eve")
    api = APIClient()
    codes = [api.post("/api/token/", {"username": "eve", "password": PASSWORD}).status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    response = api.post("/api/token/", {"username": "eve", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="5.6.7.8")
    assert response.status_code == 429 and "throttled" in response.json()["detail"]
    assert APIClient().post("/api/token/", {"username": "eve", "password": PASSWORD},
                            REMOTE_ADDR="10.9.9.9").status_code == 200


def test_api_users_and_anonymous_clients_are_throttled(rates):
    rates(user="5/min", anon="2/min")
    api = APIClient()
    api.force_authenticate(UserFactory())
    codes = [api.get("/api/projects/").status_code for _ in range(6)]
    assert codes == [200] * 5 + [429]
    assert api.get("/api/projects/").json()["detail"].startswith("Request was throttled. Expected available in")
    # Anonymous clients are counted where they get past the permission check: the token endpoint.
    rates(token="100/min")
    UserFactory(username="finn")
    anonymous = APIClient()
    codes = [anonymous.post("/api/token/", {"username": "finn", "password": PASSWORD}).status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    assert APIClient().post("/api/token/", {"username": "finn", "password": PASSWORD},
                            HTTP_X_FORWARDED_FOR="7.7.7.7").status_code == 429


def test_join_codes_are_throttled_per_user_and_per_address(client, rates):
    rates(join="3/min", join_address="5/min")
    project = ProjectFactory(join_code="debate-2024", open_to_all=False)
    client.force_login(UserFactory())
    codes = [client.post(reverse("join"), {"code": f"guess-{i}"}).status_code for i in range(3)]
    assert codes == [302, 302, 302]
    blocked = client.post(reverse("join"), {"code": "debate-2024"})
    assert blocked.status_code == 429 and int(blocked["Retry-After"]) > 0
    assert "Too many attempts" in blocked.content.decode()
    assert not project.members.exists()
    # Another account from the same address: the address had 4 of its 5 tries (the refused one
    # counts there too), so it gets one more.
    client.force_login(UserFactory())
    assert [client.post(reverse("join"), {"code": "x"}).status_code for _ in range(2)] == [302, 429]


def test_marketplace_links_are_throttled_per_address(rates):
    from django.test import Client

    rates(start="3/min")
    project = ProjectFactory(external_entry=True, panel="prolific")
    url = reverse("start", args=[project.slug])
    # Each link opened in a browser of its own (a session per worker), all from one address.
    codes = [Client().get(url, {"PROLIFIC_PID": f"worker{i}"}).status_code for i in range(4)]
    assert codes == [302, 302, 302, 429]
    assert Client().get(url, {"PROLIFIC_PID": "other"}, REMOTE_ADDR="10.1.1.1").status_code == 302


CHILD = """
import os, sys
import django
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
django.setup()
from django.conf import settings
from django.test import RequestFactory
from annotation.throttles import StartThrottle
rest = dict(settings.REST_FRAMEWORK)
rest["DEFAULT_THROTTLE_RATES"] = {**rest["DEFAULT_THROTTLE_RATES"], "start": "3/min"}
settings.REST_FRAMEWORK = rest
from rest_framework.settings import api_settings
api_settings.reload()
request = RequestFactory().get("/start/x/", REMOTE_ADDR=sys.argv[1])
throttle = StartThrottle()
# Counts live in fixed windows; both processes are given the same clock so that they count in one
# window even when a minute ends between them.
throttle.timer = lambda: float(sys.argv[3])
print(" ".join(str(throttle.allow_request(request, None)) for _ in range(int(sys.argv[2]))))
"""


@pytest.mark.integration
@pytest.mark.django_db(transaction=True)
def test_counts_are_shared_between_processes(tmp_path):
    """Two processes, as two gunicorn workers would be, share one count in the default cache."""
    # Redis when the suite runs with it, else the embedded cache folder both processes are given.
    env = {**os.environ, "ARGCROWD_TEST_RUN": "1", "ARGCROWD_VAR_DIR": str(tmp_path / "var")}
    if is_postgres():
        env["DATABASE_URL"] = database_url()
    else:
        env["SQLITE_PATH"] = str(tmp_path / "shared.sqlite3")
    address = f"10.77.{os.getpid() % 250}.{tmp_path.stat().st_ino % 250}"
    now = str(time.time())

    def run(n):
        done = subprocess.run([sys.executable, "-c", CHILD, address, str(n), now], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.split()

    assert run(2) == ["True", "True"]
    assert run(2) == ["True", "False"]
