"""What an attacker tries from a browser or a script: another worker's assignment by id (API and
web), a form posted from another site, a login link that sends the user elsewhere, a forged Host
header. Each is refused, and nothing changes."""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import Annotation, Assignment
from quality.models import ItemFlag
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def victim():
    """A project with an assignment answered by its owner and one the owner still holds."""
    project = ProjectFactory(redundancy=1)
    ItemFactory.create_batch(2, project=project)
    owner = UserFactory()
    api = APIClient()
    api.force_authenticate(owner)
    done = api.post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    assert api.post(f"/api/assignments/{done}/submit/", answer(), format="json").status_code == 201
    held = api.post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    return project, owner, done, held


def state():
    return (list(Annotation.objects.values_list("pk", "assignment_id", "answer", "reason")),
            list(Assignment.objects.order_by("pk").values_list("pk", "worker_id", "status")),
            ItemFlag.objects.count())


def test_api_idor_another_workers_assignment(victim):
    project, owner, done, held = victim
    attacker = APIClient()
    attacker.force_authenticate(UserFactory())
    before = state()
    for pk in (done, held):
        for method, path, body in [
            ("post", f"/api/assignments/{pk}/submit/", answer("a2")),
            ("get", f"/api/assignments/{pk}/annotation/", None),
            ("put", f"/api/assignments/{pk}/annotation/", answer("a2")),
            ("post", f"/api/assignments/{pk}/plays/", {"ref": "x", "ranges": [[0, 1]]}),
            ("get", f"/api/assignments/{pk}/media/x", None),
            ("post", f"/api/assignments/{pk}/flag/", {"reason": "other", "comment": "mine now"}),
        ]:
            response = getattr(attacker, method)(path, body, format="json") if body else getattr(attacker, method)(path)
            # A flag's body is read before its assignment is looked up; the state check below
            # shows that the refusal, whichever it is, changed nothing.
            allowed = (400, 403, 404) if path.endswith("/flag/") else (403, 404)
            assert response.status_code in allowed, f"{method} {path}: {response.status_code}"
            assert answer("a2")["reason"] not in response.content.decode()
    # Nor the owner's answer through the export or the worker API, which are staff's.
    for path in (f"/api/projects/{project.slug}/annotations/", f"/api/projects/{project.slug}/workers/{owner.pk}/"):
        assert attacker.get(path).status_code in (403, 404), path
    assert state() == before


def test_web_idor_another_workers_assignment(client, victim):
    project, owner, done, held = victim
    client.force_login(UserFactory())
    before = state()
    for pk in (done, held):
        for name, method in [("submit", "post"), ("skip", "post"), ("edit", "get"), ("revise", "post"), ("flag", "post")]:
            url = reverse(name, args=[project.slug, pk])
            response = getattr(client, method)(url, answer("a2") if method == "post" else None)
            if name == "flag" and response.status_code == 302:
                # Sent back to the attacker's own page; the state check below shows no flag was made.
                assert response["Location"] == reverse("annotate", args=[project.slug])
                continue
            assert response.status_code in (403, 404), f"{name} {pk}: {response.status_code}"
        url = reverse("assignment-media", args=[project.slug, pk, "x"])
        assert client.get(url).status_code in (403, 404)
    assert state() == before


def csrf_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    return client


def test_csrf_forms_posted_from_elsewhere_are_refused(victim):
    project, owner, done, held = victim
    client = csrf_client(owner)
    before = state()
    for url, data in [
        (reverse("submit", args=[project.slug, held]), answer()),
        (reverse("skip", args=[project.slug, held]), {}),
        (reverse("revise", args=[project.slug, done]), answer("a2")),
        (reverse("join"), {"code": "x"}),
        (reverse("logout"), {}),
        (reverse("password_change"), {"old_password": "pw-for-tests", "new_password1": "N3w-pass-phrase!",
                                      "new_password2": "N3w-pass-phrase!"}),
    ]:
        assert client.post(url, data).status_code == 403, url
    # The API with the browser's session cookie needs the token too (a script's token does not).
    api = APIClient(enforce_csrf_checks=True)
    api.force_login(owner)
    assert api.post(f"/api/assignments/{held}/submit/", answer(), format="json").status_code == 403
    assert state() == before
    assert owner.__class__.objects.get(pk=owner.pk).check_password("pw-for-tests")
    # With the page's token the same form goes through: the refusal above was the check.
    page = client.get(reverse("annotate", args=[project.slug]))
    token = page.cookies["csrftoken"].value if "csrftoken" in page.cookies else client.cookies["csrftoken"].value
    response = client.post(reverse("submit", args=[project.slug, held]), answer(), HTTP_X_CSRFTOKEN=token)
    assert response.status_code in (200, 302) and Annotation.objects.count() == 2


def test_csrf_admin_actions_are_refused():
    admin = UserFactory(role="admin", is_superuser=True, is_staff=True)
    project = ProjectFactory()
    client = csrf_client(admin)
    url = reverse("admin:annotation_project_change", args=[project.pk])
    assert client.post(url, {"name": "taken over"}).status_code == 403
    assert project.__class__.objects.get(pk=project.pk).name == project.name


ELSEWHERE = ["https://evil.example/", "//evil.example/", "/\\evil.example/", "\\\\evil.example", "https:evil.example",
             "javascript:alert(1)", " https://evil.example", "http://127.0.0.1@evil.example/", "%2F%2Fevil.example"]


def is_local(location: str) -> bool:
    """Where a browser on the login page would go: this host, over http(s)."""
    from urllib.parse import urljoin, urlsplit

    went = urlsplit(urljoin("http://127.0.0.1/accounts/login/", location.replace("\\", "/")))
    return went.scheme == "http" and went.hostname == "127.0.0.1"


@pytest.mark.parametrize("target", ELSEWHERE)
def test_no_open_redirect_after_login_logout_or_admin_login(target):
    user = UserFactory()
    client = Client()
    response = client.post(f"{reverse('login')}?next={target}", {"username": user.username, "password": "pw-for-tests"})
    assert response.status_code == 302 and is_local(response["Location"]), response["Location"]
    response = client.post(reverse("login"), {"username": user.username, "password": "pw-for-tests", "next": target})
    assert response.status_code == 302 and is_local(response["Location"]), response["Location"]
    response = client.post(reverse("logout"), {"next": target})
    assert response.status_code == 302 and is_local(response["Location"]), response["Location"]
    staff = UserFactory(role="admin", is_staff=True, is_superuser=True)
    response = Client().post(f"{reverse('admin:login')}?next={target}",
                             {"username": staff.username, "password": "pw-for-tests", "next": target})
    assert response.status_code == 302 and is_local(response["Location"]), response["Location"]


def test_a_forged_host_header_is_refused_and_never_echoed(settings):
    settings.ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
    client = Client(raise_request_exception=False)
    for path in ("/", reverse("login"), "/api/projects/", reverse("password_reset") if _has("password_reset") else "/"):
        response = client.get(path, HTTP_HOST="evil.example")
        assert response.status_code == 400, path
        assert b"evil.example" not in response.content
    # A proxy's X-Forwarded-Host is not trusted: redirects stay on the real host.
    response = client.get("/projects/", HTTP_HOST="127.0.0.1", HTTP_X_FORWARDED_HOST="evil.example")
    assert response.status_code == 302 and "evil.example" not in response["Location"]
    response = APIClient().post("/api/token/", json.dumps({"username": "x", "password": "y"}),
                                content_type="application/json", HTTP_HOST="evil.example:80")
    assert response.status_code == 400


def _has(name: str) -> bool:
    try:
        reverse(name)
    except Exception:
        return False
    return True
