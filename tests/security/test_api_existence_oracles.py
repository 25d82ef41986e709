"""No existence oracle: whatever a caller may not see answers exactly as what does not exist.

Every route of the URLconf (API and pages, the task types' included) that takes a project slug
is asked, as an annotator, about a missing project and about a private one they are no member
of; every route that takes an id is asked about a missing id, another worker's open
assignment, another worker's answered one and another project's. Within each family the
answers must be the same byte for byte (status, content type, location and body), once the
slug or id itself and the CSRF token are blanked."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotation.models import Assignment
from annotation.services import annotation_submit, assignment_next
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.support.url_routes import Route, routes

pytestmark = pytest.mark.django_db

# Django's own account pages take no project or assignment.
ROUTES = [r for r in routes(skip=("admin/", "accounts/")) if r.parameters]
SLUG_ROUTES = [r for r in ROUTES if "slug" in r.parameters]
ID_ROUTES = [r for r in ROUTES if any(c == "int" for c in r.parameters.values())]
FIXED = {"ref": "r0", "key": "a.mp3", "kind": "agreement", "fmt": "csv", "name": "x", "action": "block",
         "token": "t0", "submission_id": "s0"}
CSRF = re.compile(rb"[A-Za-z0-9]{64}")


@pytest.fixture
def world():
    me, other = UserFactory(), UserFactory()
    shared = ProjectFactory(slug="shared-work", open_to_all=False, redundancy=1)
    shared.members.add(me, other)
    for _ in range(3):
        ItemFactory(project=shared)
    answered = assignment_next(project=shared, worker=other).assignment
    annotation_submit(assignment=answered, worker=other, data=answer(), client={})
    open_one = assignment_next(project=shared, worker=other).assignment
    mine = assignment_next(project=shared, worker=me).assignment
    # A private project of which "me" is no member (and an inactive one: no state may show).
    hidden = ProjectFactory(slug="hidden-work", open_to_all=False, external_entry=False)
    ItemFactory(project=hidden)
    hidden.members.add(other)
    elsewhere = assignment_next(project=hidden, worker=other).assignment
    ProjectFactory(slug="paused-work", open_to_all=False, state="paused")
    missing_id = max(Assignment.objects.values_list("pk", flat=True)) + 1000
    return {"me": me, "shared": shared, "mine": mine, "ids": {
        "missing": missing_id, "other_open": open_one.pk, "other_answered": answered.pk,
        "other_project": elsewhere.pk}, "slugs": {"missing": "nosuch-work", "private": "hidden-work",
                                                 "paused": "paused-work"}}


def _values(route: Route, *, slug: str, number: int) -> dict:
    values = dict(FIXED)
    for name, converter in route.parameters.items():
        if name == "slug":
            values[name] = slug
        elif converter == "int":
            values[name] = number
    return values


def _answer(client: Client, method: str, url: str, blank: list[str]) -> tuple:
    response = getattr(client, method)(url, {} if method == "post" else "", **(
        {} if method == "post" else {"content_type": "application/json"}))
    body = b"".join(response.streaming_content) if response.streaming else response.content
    body = CSRF.sub(b"TOKEN", body)
    location = response.get("Location", "")
    for text in blank:
        # The slug or id where a page or answer names it (in a path, a quoted value, a JSON
        # field), not inside other words and numbers.
        thing = re.compile(rb"(?<=[/\":\s])" + re.escape(text.encode()) + rb"(?=[/\",}\s&?])")
        body = thing.sub(b"THING", body)
        location = thing.sub(b"THING", location.encode()).decode()
    return response.status_code, response.get("Content-Type", ""), location, body


def _methods(route: Route) -> list[str]:
    if route.is_drf:
        return [m for m in ("get", "post", "put") if hasattr(route.view_class, m)]
    return ["get", "post"]


def _client(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.parametrize("route", SLUG_ROUTES, ids=lambda r: r.route)
def test_a_private_project_answers_as_a_missing_one(route, world):
    for method in _methods(route):
        answers = {}
        for what, slug in world["slugs"].items():
            client = _client(world["me"])
            url = route.url(_values(route, slug=slug, number=world["ids"]["missing"]))
            answers[what] = _answer(client, method, url, [slug])
        first = answers["missing"]
        assert first[0] < 500, (method, route.route, first[0])
        for what, got in answers.items():
            assert got == first, f"{method.upper()} {route.route}: {what} differs from missing: {got[:3]} vs {first[:3]}"


@pytest.mark.parametrize("route", ID_ROUTES, ids=lambda r: r.route)
def test_another_workers_or_projects_id_answers_as_a_missing_one(route, world):
    for method in _methods(route):
        answers = {}
        for what, number in world["ids"].items():
            client = _client(world["me"])
            url = route.url(_values(route, slug=world["shared"].slug, number=number))
            answers[what] = _answer(client, method, url, [str(number)])
        first = answers["missing"]
        assert first[0] < 500, (method, route.route, first[0])
        for what, got in answers.items():
            assert got == first, f"{method.upper()} {route.route}: {what} differs from missing: {got[:3]} vs {first[:3]}"


def test_the_families_cover_the_annotators_endpoints():
    names = {r.name for r in ROUTES}
    assert {"api-next", "api-submit", "api-annotation", "api-plays", "api-assignment-media", "api-flag",
            "api-qualification-retry", "annotate", "submit", "skip", "edit", "revise", "flag", "assignment-media",
            "guidelines", "welcome", "start", "media", "qualification-retry"} <= names


def test_legitimate_callers_still_get_their_answers(world):
    """The one answer is for what the caller may not see: the owner gets their assignment, and
    is told when it has no answer yet; staff who may view answers see another's."""
    me = _client(world["me"])
    mine = world["mine"].pk
    assert me.get(f"/api/assignments/{mine}/plays/").status_code == 200
    unanswered = me.get(f"/api/assignments/{mine}/annotation/")
    assert unanswered.status_code == 404 and "no answer yet" in unanswered.json()["detail"]
    staff = _client(UserFactory(role="researcher"))
    assert staff.get(f"/api/assignments/{world['ids']['other_answered']}/annotation/").status_code == 200
    nxt = me.post(f"/api/projects/{world['shared'].slug}/assignments/next/")
    assert nxt.status_code == 200 and nxt.json()["assignment"]["id"] == mine
    # Staff who may look at every project are still told why they get no item.
    looked = staff.post("/api/projects/hidden-work/assignments/next/")
    assert looked.status_code == 200 and looked.json()["reason"] == "not_member"


def test_anonymous_marketplace_links_tell_nothing_of_closed_projects():
    ProjectFactory(slug="closed-work", external_entry=False)
    anonymous = Client()
    closed = anonymous.get("/start/closed-work/", {"PROLIFIC_PID": "A1B2C3"})
    missing = anonymous.get("/start/nosuch-work/", {"PROLIFIC_PID": "A1B2C3"})
    assert closed.status_code == missing.status_code == 404
    assert CSRF.sub(b"", closed.content) == CSRF.sub(b"", missing.content)
