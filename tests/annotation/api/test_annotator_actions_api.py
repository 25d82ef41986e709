"""The annotator's page actions in the API: skip an item, join a project by its code, accept
a project's consent text. Another worker's assignment and a private project one is no member of
are the one 404, and nothing changes."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Assignment, Consent
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_skip_gives_the_own_open_assignment_back():
    worker, other = UserFactory(), UserFactory()
    mine = AssignmentFactory(item=ItemFactory(project=ProjectFactory()), worker=worker, status=S.ASSIGNED)
    theirs = AssignmentFactory(item=ItemFactory(project=ProjectFactory()), worker=other, status=S.ASSIGNED)
    r = api(worker).post(f"/api/assignments/{theirs.pk}/skip/")
    assert r.status_code == 404 and r.json() == {"detail": "Not found."}
    assert api(worker).post("/api/assignments/999999/skip/").json() == {"detail": "Not found."}
    theirs.refresh_from_db()
    assert theirs.status == S.ASSIGNED
    r = api(worker).post(f"/api/assignments/{mine.pk}/skip/")
    assert r.json() == {"assignment": mine.pk, "status": S.RETURNED}
    assert api(worker).post(f"/api/assignments/{mine.pk}/skip/").status_code == 200
    done = AssignmentFactory(item=ItemFactory(project=mine.project), worker=worker, status=S.SUBMITTED)
    assert api(worker).post(f"/api/assignments/{done.pk}/skip/").status_code == 409
    assert APIClient().post(f"/api/assignments/{mine.pk}/skip/").status_code in (401, 403)


def test_join_by_code():
    project = ProjectFactory(open_to_all=False, join_code="Debate-2026")
    worker = UserFactory()
    r = api(worker).post("/api/join/", {"code": "wrong"}, format="json")
    assert r.status_code == 400 and "code" in r.json()
    assert api(worker).post("/api/join/", {}, format="json").json().keys() == {"code"}
    assert not project.members.exists()
    r = api(worker).post("/api/join/", {"code": "debate-2026"}, format="json")
    assert r.json() == {"project": project.slug, "name": project.name}
    assert list(project.members.all()) == [worker]


def test_consent_accept():
    private = ProjectFactory(open_to_all=False)
    project = ProjectFactory(consent_text="I agree.")
    worker = UserFactory()
    assert api(worker).post(f"/api/projects/{private.slug}/consent/", {"accept": True}, format="json") \
        .json() == {"detail": "Not found."}
    r = api(worker).post(f"/api/projects/{project.slug}/consent/", {"accept": False}, format="json")
    assert r.status_code == 400 and "accept" in r.json()
    r = api(worker).post(f"/api/projects/{project.slug}/consent/", {"accept": "perhaps"}, format="json")
    assert r.status_code == 400 and "accept" in r.json()
    assert not Consent.objects.exists()
    r = api(worker).post(f"/api/projects/{project.slug}/consent/", {"accept": True}, format="json")
    assert r.status_code == 200 and r.json()["project"] == project.slug
    assert Consent.objects.get().text == "I agree."
