"""An account created with a one-time password gets a clear 403 from the API (token, session or
a token obtained before) until the password is changed; then the API answers as usual."""

import pytest
from rest_framework.authtoken.models import Token

from annotation.services.accounts import password_changed, user_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def fresh():
    return user_create(username="newcomer", password="one-time-pw-1", must_change_password=True)


def test_a_token_is_refused_for_a_one_time_password(client, fresh):
    response = client.post("/api/token/", {"username": "newcomer", "password": "one-time-pw-1"},
                           content_type="application/json")
    assert response.status_code == 403
    assert "one-time password" in response.json()["detail"] and not Token.objects.filter(user=fresh).exists()


def test_a_token_made_before_is_refused_until_the_password_is_changed(client, fresh):
    token = Token.objects.create(user=fresh)
    response = client.get("/api/projects/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 403 and "change it" in response.json()["detail"]
    password_changed(user=fresh)
    assert client.get("/api/projects/", HTTP_AUTHORIZATION=f"Token {token.key}").status_code == 200


def test_a_session_gets_the_403_in_json_and_the_pages_still_send_it_to_the_form(client, fresh):
    client.force_login(fresh)
    response = client.get("/api/projects/")
    assert response.status_code == 403 and response["Content-Type"] == "application/json"
    assert "one-time password" in response.json()["detail"]
    page = client.get("/projects/")
    assert page.status_code == 302 and page.url.endswith("/accounts/password_change/")


def test_after_the_change_a_token_is_given(client, fresh):
    fresh.set_password("a-new-password-9")
    fresh.save()
    password_changed(user=fresh)
    response = client.post("/api/token/", {"username": "newcomer", "password": "a-new-password-9"},
                           content_type="application/json")
    assert response.status_code == 200 and response.json()["token"]
