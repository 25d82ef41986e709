"""An address that matches no route: JSON under /api/ (the API's one 404), the page elsewhere."""

from __future__ import annotations

import pytest

from annotation.api.unseen import NOT_FOUND

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/api/assignments/null,null/submit/", "/api/projects/%C2%84/rules/0/",
                                  "/api/no-such-endpoint/"])
def test_an_api_address_no_route_matches_answers_json(client, path):
    response = client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"detail": NOT_FOUND}


def test_an_api_404_is_the_same_as_a_view_s(client, django_user_model):
    from rest_framework.authtoken.models import Token

    user = django_user_model.objects.create_user(username="reader")
    token = Token.objects.create(user=user).key
    # A project that does not exist, answered by the view, and an address no route matches.
    from_view = client.post("/api/projects/no-such-project/assignments/next/", HTTP_AUTHORIZATION=f"Token {token}")
    from_router = client.post("/api/projects/no%20such/assignments/next/", HTTP_AUTHORIZATION=f"Token {token}")
    assert from_view.status_code == from_router.status_code == 404
    assert from_view.json() == from_router.json()


def test_a_page_address_no_route_matches_keeps_the_page(client):
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert b"Not found" in response.content
