"""The login lockout holds across web processes: failed logins spread over two gunicorn servers
on one database and cache lock the account on both, even for the right password."""

from __future__ import annotations

import re

import pytest
import requests

from tests.factories import UserFactory
from tests.support.probe_server import SHARED_SETTINGS, shared_gunicorns

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def login(url: str, username: str, password: str) -> int:
    session = requests.Session()
    page = session.get(f"{url}/accounts/login/", timeout=30).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    response = session.post(f"{url}/accounts/login/", timeout=30, allow_redirects=False,
                            data={"username": username, "password": password, "csrfmiddlewaretoken": token})
    return response.status_code


def server_password(user, password: str = "pw-for-tests"):
    """The tests hash with MD5 for speed; the servers know only the real hashers."""
    from django.contrib.auth.hashers import PBKDF2PasswordHasher

    hasher = PBKDF2PasswordHasher()
    user.password = hasher.encode(password, hasher.salt(), iterations=1000)
    user.save(update_fields=["password"])
    return user


def test_failures_on_two_servers_lock_the_account_on_both(worker_processes):
    user, other = server_password(UserFactory()), server_password(UserFactory())
    # The servers lock an account after fewer failures than the default 10 (read from the
    # environment, as a deployment does), and do not throttle logins per address: the lockout
    # per account is what this checks.
    limit = int(SHARED_SETTINGS["LOGIN_FAILURE_LIMIT"])
    one, two = shared_gunicorns(worker_processes)
    assert login(two, other.username, "pw-for-tests") == 302  # the right password works
    codes = [login((one, two)[n % 2], user.username, f"wrong-{n}") for n in range(limit)]
    # The form again with its error, until the failure that reaches the limit locks.
    assert codes[:-1] == [200] * (limit - 1) and codes[-1] in (200, 429), codes
    assert login(one, user.username, "pw-for-tests") == 429
    assert login(two, user.username, "pw-for-tests") == 429
    # Another account on the same servers is not affected.
    assert login(one, other.username, "pw-for-tests") == 302
