"""The site-wide staff actions in the API: block and unblock a worker everywhere (the user
admin's actions), and the whole site's audit log for superusers."""

import pytest
from rest_framework.test import APIClient

from annotation.models import Assignment, AuditEntry, WorkerProfile
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_block_and_unblock_everywhere():
    worker = UserFactory()
    open_one = AssignmentFactory(item=ItemFactory(project=ProjectFactory()), worker=worker,
                                 status=Assignment.Status.ASSIGNED)
    staff = api(UserFactory(role="admin"))
    assert api(UserFactory(role="researcher")).post(f"/api/workers/{worker.pk}/block/").status_code == 403
    assert staff.post("/api/workers/999999/block/").status_code == 404
    assert staff.post(f"/api/workers/{worker.pk}/ban/").status_code == 404
    r = staff.post(f"/api/workers/{worker.pk}/block/", {"reason": "x" * 301}, format="json")
    assert r.status_code == 400 and "reason" in r.json()
    assert not WorkerProfile.objects.filter(blocked=True).exists() and not AuditEntry.objects.exists()
    r = staff.post(f"/api/workers/{worker.pk}/block/", {"reason": "bot"}, format="json")
    assert r.json() == {"worker": worker.pk, "blocked": True, "returned": 1}
    open_one.refresh_from_db()
    assert open_one.status == Assignment.Status.RETURNED
    assert WorkerProfile.objects.get(user=worker).blocked_reason == "bot"
    r = staff.post(f"/api/workers/{worker.pk}/unblock/")
    assert r.json()["blocked"] is False
    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == ["block", "unblock"]


def test_the_site_audit_log_is_for_superusers():
    staff_user = UserFactory(role="admin")
    worker = UserFactory()
    api(staff_user).post(f"/api/workers/{worker.pk}/block/")
    assert api(staff_user).get("/api/audit/").status_code == 403
    assert api(UserFactory(role="researcher")).get("/api/audit/").status_code == 403
    boss = UserFactory(role="admin")
    boss.is_superuser = True
    boss.save()
    body = api(boss).get("/api/audit/").json()
    assert [e["action"] for e in body["entries"]] == ["block"] and body["next_before"] is None
    assert api(boss).get("/api/audit/?action=unblock").json()["entries"] == []
