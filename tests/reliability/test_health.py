"""The health endpoint: 200 while the web tier can serve, 503 when the database is away."""

from __future__ import annotations

import time

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.db import OperationalError

from jobs.live import WORKER_KEY
from runtime import health

pytestmark = pytest.mark.django_db


def test_health_reports_each_component_without_a_login(client):
    cache.set(WORKER_KEY, {"host": "w1", "at": time.time() - 2}, None)
    response = client.get("/health/")
    assert response.status_code == 200 and response["Cache-Control"].startswith("max-age=0")
    body = response.json()
    assert set(body["components"]) == {"database", "cache", "broker", "worker"}
    assert body["components"]["database"] == {"ok": True}
    assert body["components"]["cache"] == {"ok": True}
    assert body["components"]["worker"]["ok"] is True
    assert 0 <= body["components"]["worker"]["last_heartbeat_seconds"] < 10
    # The heartbeat's host name is not repeated.
    assert "w1" not in response.content.decode()


def test_a_worker_never_seen_or_silent_too_long_is_reported_but_the_web_tier_serves(client):
    cache.delete(WORKER_KEY)
    body = client.get("/health/").json()
    assert body["components"]["worker"] == {"ok": False, "last_heartbeat_seconds": None, "error": "never seen"}
    cache.set(WORKER_KEY, {"host": "w1", "at": time.time() - django_settings.JOB_DEAD_SECONDS - 5}, None)
    response = client.get("/health/")
    assert response.status_code == 200 and response.json()["status"] == "degraded"
    assert response.json()["components"]["worker"]["ok"] is False


class RefusingConnection:
    """A database connection whose server refuses, with a message full of what must not leak."""

    def cursor(self):
        raise OperationalError('connection to server at "db.internal" (10.1.2.3), port 5432 failed: '
                               'password authentication failed for user "argcrowd"')


def test_database_away_is_503_with_retry_after_and_no_secrets(client, monkeypatch, settings):
    settings.UNAVAILABLE_RETRY_AFTER = 11
    monkeypatch.setattr(health, "connection", RefusingConnection())
    response = client.get("/health/")
    assert response.status_code == 503 and response["Retry-After"] == "11"
    assert response.json()["status"] == "unavailable"
    assert response.json()["components"]["database"] == {"ok": False, "error": "OperationalError"}
    text = response.content.decode()
    assert "db.internal" not in text and "10.1.2.3" not in text and "argcrowd" not in text


def test_the_endpoint_is_not_throttled(client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
                                                          "anon": "2/min"}}
    assert [client.get("/health/").status_code for _ in range(5)] == [200] * 5


def test_only_reads(client):
    assert client.post("/health/").status_code == 405
