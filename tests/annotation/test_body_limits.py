"""Bodies without a login are capped before anything reads them: 413 at once (a body without a
declared length is read as empty), whatever the route; routes that take no login are capped for everyone; a logged-in
caller (session or API token) keeps the larger limit for imports."""

import io

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from annotation.body_limits import ANONYMOUS_BODY_MAX_BYTES
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
HUGE = 39 * 1024 * 1024
WEBHOOK = "/api/prolific/webhook/"


class Unreadable(io.RawIOBase):
    """A request stream that fails the test if anything reads it."""

    def read(self, *args):
        raise AssertionError("the body was read")

    readline = read


def post_unread(client: Client, path: str, length: int, **extra):
    """A POST that declares ``length`` bytes of body that nobody may read."""
    return client.post(path, data=b"", content_type="application/json",
                       CONTENT_LENGTH=str(length), **{"wsgi.input": Unreadable()}, **extra)


@pytest.mark.parametrize("path", [WEBHOOK, "/api/token/", "/accounts/login/", "/admin/login/",
                                  "/accounts/password_reset/", "/api/join/", "/projects/join/",
                                  "/api/projects/p/items/import/", "/invite/abc/"])
def test_a_39_mb_anonymous_body_answers_413_unread(settings, path):
    settings.PASSWORD_RESET_ENABLED = True
    answer = post_unread(Client(), path, HUGE)
    assert answer.status_code == 413
    if path.startswith("/api/"):
        assert "64 KB" in answer.json()["detail"]
    else:
        assert b"64 KB" in answer.content


def test_a_body_within_the_cap_goes_through_and_one_byte_more_does_not(settings):
    settings.PROLIFIC_WEBHOOK_SECRET = "whsec"
    within = Client().post(WEBHOOK, data=b"{" + b" " * (ANONYMOUS_BODY_MAX_BYTES - 2) + b"}",
                           content_type="application/json")
    assert within.status_code == 403  # read and refused as unsigned, not as too large
    assert post_unread(Client(), WEBHOOK, ANONYMOUS_BODY_MAX_BYTES + 1).status_code == 413


def test_a_body_without_a_length_is_read_as_empty_and_never_parsed(settings):
    # Chunked: Django reads no byte of it, so the webhook sees an empty, unsigned delivery.
    settings.PROLIFIC_WEBHOOK_SECRET = "whsec"
    answer = Client().post(WEBHOOK, data=b"", content_type="application/json", CONTENT_LENGTH="",
                           HTTP_TRANSFER_ENCODING="chunked", **{"wsgi.input": Unreadable()})
    assert answer.status_code == 403


def test_a_logged_in_caller_keeps_the_larger_limit_except_where_no_login_counts():
    project = ProjectFactory(slug="p")
    ItemFactory(project=project)
    admin = UserFactory(role="admin")
    token = Token.objects.create(user=admin)
    body = b'{"records": "' + b"x" * (2 * ANONYMOUS_BODY_MAX_BYTES) + b'"}'
    by_token = Client().post("/api/projects/p/items/import/", data=body, content_type="application/json",
                             HTTP_AUTHORIZATION=f"Token {token.key}")
    assert by_token.status_code != 413 and by_token.status_code < 500
    session = Client()
    session.force_login(admin)
    by_session = session.post("/api/projects/p/items/import/", data=body, content_type="application/json")
    assert by_session.status_code != 413 and by_session.status_code < 500
    # A made-up token is no login.
    forged = Client().post("/api/projects/p/items/import/", data=body, content_type="application/json",
                           HTTP_AUTHORIZATION="Token not-a-token")
    assert forged.status_code == 413
    # The token endpoint and the webhook ignore logins: a login does not lift their cap.
    for path in ("/api/token/", WEBHOOK, "/accounts/login/"):
        assert post_unread(session, path, HUGE).status_code == 413
