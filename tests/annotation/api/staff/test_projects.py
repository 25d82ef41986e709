"""The project admin's forms in the API: create a project of a task type, read and change its
settings, options and state, through the services the admin saves with (redundancy through
``project_set_redundancy``, the change in the audit log)."""

import pytest
from rest_framework.test import APIClient

from annotation.models import AuditEntry, Item, Project
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_create_a_project():
    staff = api(UserFactory(role="admin"))
    r = staff.post("/api/task-types/pairwise/projects/", {"name": "Uniforms", "slug": "uniforms",
                                                           "redundancy": 5, "state": "active"}, format="json")
    assert r.status_code == 201 and r.json()["redundancy"] == 5 and r.json()["task_type"] == "pairwise"
    assert Project.objects.get(slug="uniforms").created_by is not None
    r = staff.post("/api/task-types/pairwise/projects/", {"name": "Again", "slug": "uniforms"}, format="json")
    assert r.status_code == 400 and "slug" in r.json()
    r = staff.post("/api/task-types/pairwise/projects/", {"name": "X", "slug": "x", "colour": "red"}, format="json")
    assert r.status_code == 400 and "colour" in r.json()
    r = staff.post("/api/task-types/pairwise/projects/", {"name": "X", "slug": "x", "redundancy": 0}, format="json")
    assert r.status_code == 400 and "redundancy" in r.json()
    r = staff.post("/api/task-types/pairwise/projects/", {"slug": "x"}, format="json")
    assert r.status_code == 400 and "name" in r.json()
    assert staff.post("/api/task-types/nope/projects/", {"name": "X", "slug": "x"}, format="json").status_code == 404
    r = api(UserFactory(role="researcher")).post("/api/task-types/pairwise/projects/", {"name": "X", "slug": "x"},
                                                 format="json")
    assert r.status_code == 403
    assert set(Project.objects.values_list("slug", flat=True)) == {"uniforms"}


def test_change_settings_and_state():
    project, other = ProjectFactory(redundancy=3), ProjectFactory(redundancy=3)
    ItemFactory(project=project)
    staff = api(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/settings/"
    assert api(UserFactory(role="researcher")).get(url).json()["slug"] == project.slug
    assert api(UserFactory(role="researcher")).patch(url, {"state": "paused"}, format="json").status_code == 403
    assert api(UserFactory()).get(url).status_code == 403
    for body, field in (({"state": "asleep"}, "state"), ({"redundancy": "many"}, "redundancy"),
                        ({"slug": "new"}, "slug"), ({"task_type": "key_points"}, "task_type"),
                        ({"options": []}, "options"), ({"lease_minutes": -1}, "lease_minutes")):
        r = staff.patch(url, body, format="json")
        assert r.status_code == 400 and field in r.json(), body
    project.refresh_from_db()
    assert (project.state, project.redundancy) == ("active", 3) and not AuditEntry.objects.exists()
    r = staff.patch(url, {"state": "paused", "redundancy": 5, "name": "Renamed"}, format="json")
    assert r.status_code == 200 and r.json()["state"] == "paused"
    project.refresh_from_db()
    assert (project.state, project.redundancy, project.name) == ("paused", 5, "Renamed")
    assert set(Item.objects.filter(project=project).values_list("redundancy", flat=True)) == {5}
    entry = AuditEntry.objects.get(action="settings")
    assert entry.details["changed"]["state"] == {"from": "active", "to": "paused"}
    other.refresh_from_db()
    assert (other.state, other.redundancy) == ("active", 3)
    assert staff.patch("/api/projects/nope/settings/", {"state": "paused"}, format="json").status_code == 404
