"""A service that is away answers 503 with Retry-After, never 500: pages, the API, middleware."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import OperationalError
from django.test import Client, RequestFactory

from runtime.unavailable import ServiceUnavailable
from runtime.unavailable_responses import unavailable_response
from tests.factories import UserFactory

pytestmark = [pytest.mark.urls("tests.reliability.outage_urls"), pytest.mark.django_db]


@pytest.fixture
def client():
    # Django's test client re-raises a view's error even when a handler answered it; a browser
    # sees only the answer.
    return Client(raise_request_exception=False)


def test_service_unavailable_on_a_page_is_503_with_retry_after(client):
    response = client.get("/outage/queue/")
    assert response.status_code == 503 and response["Retry-After"] == "12"
    assert response["Content-Type"].startswith("text/html")
    assert "retry in 12 seconds" in response.content.decode().lower()


def test_service_unavailable_in_the_api_is_503_json_in_drf_shape(client):
    response = client.post("/api/outage/queue/")
    assert response.status_code == 503 and response["Retry-After"] == "12"
    assert response.json() == {"detail": "The job queue cannot be reached.", "retry_after": 12}


def test_database_away_in_a_view_is_503(client, settings):
    settings.UNAVAILABLE_RETRY_AFTER = 9
    page = client.get("/outage/database/")
    assert page.status_code == 503 and page["Retry-After"] == "9" and "retry" in page.content.decode()
    api = client.get("/api/outage/database/")
    assert api.status_code == 503 and api["Retry-After"] == "9"
    assert set(api.json()) == {"detail", "retry_after"} and "retry" in api.json()["detail"]


def test_database_away_in_a_middleware_is_503(client, monkeypatch):
    """The session is read on the way in, before any view: handler500 turns that into 503."""
    client.force_login(UserFactory())

    def refuse(self):
        raise OperationalError("connection to server failed: Connection refused")

    monkeypatch.setattr(SessionStore, "load", refuse)
    page = client.get("/projects/")
    assert page.status_code == 503 and "retry" in page.content.decode().lower()
    api = client.get("/api/projects/")
    assert api.status_code == 503 and "retry_after" in api.json()


def test_a_mistake_that_retrying_cannot_mend_stays_a_500(client):
    assert client.get("/outage/missing-table/").status_code == 500


def test_the_503_page_reads_no_database(django_assert_num_queries):
    request = RequestFactory().get("/projects/")
    with django_assert_num_queries(0):
        response = unavailable_response(request, ServiceUnavailable("The database", retry_after=5))
    assert response.status_code == 503 and response["Cache-Control"] == "no-store"
