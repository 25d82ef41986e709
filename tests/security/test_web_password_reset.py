"""Password reset: off unless the platform can send mail; when on, throttled per client address
and per address asked for (the same answers whether an account has it or not), and a mail
server that cannot be reached is reported to the user, and logged in one line."""

from __future__ import annotations

import logging
import re
import socket

import pytest
from django.core import mail

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
PATHS = ["/accounts/password_reset/", "/accounts/password_reset/done/", "/accounts/reset/MQ/set-password/",
         "/accounts/reset/done/"]


@pytest.fixture
def mail_on(settings):
    settings.PASSWORD_RESET_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    return settings


def test_off_without_mail_configured(client, settings):
    assert settings.EMAIL_HOST == "" and settings.PASSWORD_RESET_ENABLED is False
    assert "password_reset" not in client.get("/accounts/login/").content.decode()
    for path in PATHS:
        r = client.get(path)
        assert r.status_code == 404, path
        assert "ask an administrator" in r.content.decode()
    user = UserFactory(email="ann@example.org")
    r = client.post("/accounts/password_reset/", {"email": user.email})
    assert r.status_code == 404 and mail.outbox == []


def test_on_the_login_page_links_it_and_a_mail_goes_out(client, mail_on):
    assert 'href="/accounts/password_reset/"' in client.get("/accounts/login/").content.decode()
    UserFactory(email="ann@example.org")
    r = client.post("/accounts/password_reset/", {"email": "Ann@Example.org"})
    assert r.status_code == 302 and r["Location"] == "/accounts/password_reset/done/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["ann@example.org"]
    # The link in the mail sets a new password.
    link = re.search(r"/accounts/reset/[^/]+/[^/\s]+/", mail.outbox[0].body).group(0)
    form = client.get(link, follow=True)
    assert form.status_code == 200
    done = client.post(form.redirect_chain[-1][0], {"new_password1": "a-long-new-secret-42",
                                                     "new_password2": "a-long-new-secret-42"})
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert UserFactory._meta.model.objects.get(email="ann@example.org").check_password("a-long-new-secret-42")


def test_rapid_requests_are_throttled_alike_for_an_account_and_for_none(client, mail_on):
    mail_on.REST_FRAMEWORK = {**mail_on.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **mail_on.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "password_reset": "1000/hour"}}
    UserFactory(email="ann@example.org")
    sequences = {}
    for email in ("ann@example.org", "nobody@example.org"):
        sequences[email] = [client.post("/accounts/password_reset/", {"email": email}).status_code for _ in range(12)]
    # The default per-address rate: 3 an hour, then 429 with a wait, the same for both.
    assert sequences["ann@example.org"] == sequences["nobody@example.org"] == [302] * 3 + [429] * 9
    assert len(mail.outbox) == 3
    r = client.post("/accounts/password_reset/", {"email": "ANN@example.org"})
    assert r.status_code == 429 and int(r["Retry-After"]) > 0


def test_one_client_address_is_throttled_across_addresses(client, mail_on):
    codes = [client.post("/accounts/password_reset/", {"email": f"x{i}@example.org"}).status_code for i in range(12)]
    assert codes == [302] * 10 + [429] * 2


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_mail_server_is_reported_honestly(client, settings, caplog):
    settings.PASSWORD_RESET_ENABLED = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_TIMEOUT = "127.0.0.1", _closed_port(), 2
    settings.EMAIL_USE_TLS = False
    UserFactory(email="ann@example.org")
    with caplog.at_level(logging.WARNING):
        answers = [client.post("/accounts/password_reset/", {"email": email})
                   for email in ("ann@example.org", "nobody@example.org")]
    for r in answers:
        assert r.status_code == 503 and r["Retry-After"]
        assert "mail server cannot be reached" in r.content.decode()
    # The same page for an account and for none.
    bodies = [re.sub(r'value="[^"]*"', "", r.content.decode()) for r in answers]
    bodies = [re.sub(r"[A-Za-z0-9]{64}", "", b) for b in bodies]  # CSRF tokens, masked anew each time
    assert bodies[0] == bodies[1]
    # One line each, no traceback.
    records = [r for r in caplog.records if "mail server cannot be reached" in r.getMessage()]
    assert len(records) == 2 and all(r.exc_info is None for r in records)


def test_a_failed_send_after_connecting_is_logged_without_a_traceback(client, mail_on, monkeypatch, caplog):
    from django.core.mail.backends.locmem import EmailBackend

    def refuse(self, messages):
        raise OSError("recipient refused")

    monkeypatch.setattr(EmailBackend, "send_messages", refuse)
    UserFactory(email="ann@example.org")
    with caplog.at_level(logging.WARNING):
        r = client.post("/accounts/password_reset/", {"email": "ann@example.org"})
    assert r.status_code == 302
    # The page says what to do when no mail comes, as it does for every address.
    assert "ask an administrator" in client.get(r["Location"]).content.decode()
    records = [r for r in caplog.records if "not sent" in r.getMessage()]
    assert len(records) == 1 and records[0].exc_info is None and "recipient refused" in records[0].getMessage()
