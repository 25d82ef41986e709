"""The worker page's API and the audit log's: the same figures as JSON, the same actions with the
same checks and audit entries, and scoping (another project's worker is 404 and changes nothing)."""

from decimal import Decimal

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Annotation, Assignment, AuditEntry, Standing
from quality.models import WorkerStanding
from recruiting.models import Bonus
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


@pytest.fixture
def setup():
    project, other = ProjectFactory(), ProjectFactory()
    worker, stranger = UserFactory(username="w"), UserFactory(username="s")
    for _ in range(3):
        a = AssignmentFactory(item=ItemFactory(project=project), worker=worker, status=S.SUBMITTED,
                              submitted_at=timezone.now())
        Annotation.objects.create(assignment=a, answer={"label": "a2", "standpoint": "none"}, reason="r" * 30,
                                  seconds=4, client={"signals": {"pasted": 5, "webdriver": True}})
    AssignmentFactory(item=ItemFactory(project=other), worker=stranger, status=S.ASSIGNED)
    return project, other, worker, stranger


def test_the_figures_as_json(setup):
    project, _, worker, _ = setup
    WorkerStanding.objects.create(project=project, worker=worker, gold_answered=4, gold_right=4)
    body = api(UserFactory(role="researcher")).get(f"/api/projects/{project.slug}/workers/{worker.pk}/").json()
    assert body["worker"]["username"] == "w" and body["answers"]["count"] == 3
    assert body["gold"]["n"] == 4 and body["gold"]["share"] == 1.0 and 0.5 < body["gold"]["low"] < 1
    assert body["signals"]["pasted_answers"] == 3 and body["signals"]["automated_answers"] == 3
    assert body["answers"]["rows"][0]["signals"] == {"pasted": 5, "webdriver": True}
    assert body["competence"] is None and body["agreement"]["n"] == 0


def test_scoping(setup):
    project, other, worker, stranger = setup
    staff = api(UserFactory(role="admin"))
    assert staff.get(f"/api/projects/{project.slug}/workers/{stranger.pk}/").status_code == 404
    assert staff.get(f"/api/projects/{other.slug}/workers/{worker.pk}/").status_code == 404
    response = staff.post(f"/api/projects/{other.slug}/workers/{worker.pk}/block/", {}, format="json")
    assert response.status_code == 404
    response = staff.post(f"/api/projects/{project.slug}/workers/{stranger.pk}/reject/", {"note": "x"}, format="json")
    assert response.status_code == 404
    assert not AuditEntry.objects.exists() and not WorkerStanding.objects.exists()
    assert api(worker).get(f"/api/projects/{project.slug}/workers/{worker.pk}/").status_code == 403
    assert APIClient().get(f"/api/projects/{project.slug}/workers/{worker.pk}/").status_code in (401, 403)


def test_each_action(setup):
    project, _, worker, _ = setup
    staff_user = UserFactory(role="admin")
    staff = api(staff_user)
    url = f"/api/projects/{project.slug}/workers/{worker.pk}"
    r = staff.post(f"{url}/reject/", {}, format="json")
    assert r.status_code == 400 and "note" in r.json()
    r = staff.post(f"{url}/approve/", {"note": "looked fine"}, format="json")
    assert r.status_code == 200 and r.json()["count"] == 3
    r = staff.post(f"{url}/reject/", {"note": "bot"}, format="json")
    assert r.json()["count"] == 3
    assert set(Assignment.objects.filter(worker=worker).values_list("status", "review_note")) == {(S.REJECTED, "bot")}
    assert staff.post(f"{url}/block/", {"note": "bot"}, format="json").status_code == 200
    assert WorkerStanding.objects.get(worker=worker).state == Standing.BLOCKED
    assert staff.post(f"{url}/unblock/", {}, format="json").status_code == 200
    r = staff.post(f"{url}/bonus/", {"amount": "abc", "reason": "x"}, format="json")
    assert r.status_code == 400 and "amount" in r.json()
    r = staff.post(f"{url}/bonus/", {"amount": 3, "currency": "EUR", "reason": 12}, format="json")
    assert r.status_code == 400 and "reason" in r.json()
    r = staff.post(f"{url}/bonus/", {"amount": "3", "currency": "EUR", "reason": "thanks"}, format="json")
    assert r.status_code == 200 and Bonus.objects.get().amount == Decimal("3.00")
    assert staff.post(f"{url}/nonsense/", {}, format="json").status_code == 404
    assert list(AuditEntry.objects.order_by("pk").values_list("action", flat=True)) == [
        "approve", "reject", "standing:blocked", "answers_excluded", "standing:active", "answers_restored", "bonus"]
    assert set(AuditEntry.objects.values_list("actor", flat=True)) == {staff_user.pk}


def test_a_researcher_may_not_act(setup):
    project, _, worker, _ = setup
    r = api(UserFactory(role="researcher")).post(f"/api/projects/{project.slug}/workers/{worker.pk}/block/", {},
                                                 format="json")
    assert r.status_code == 403 and "change_workerstanding" in r.json()["action"]
    assert not WorkerStanding.objects.exists()


def test_the_audit_list_is_scoped_and_paged(setup):
    project, other, worker, _ = setup
    boss = UserFactory(role="admin")
    staff = api(boss)
    for n in range(3):
        staff.post(f"/api/projects/{project.slug}/workers/{worker.pk}/bonus/",
                   {"amount": "1", "reason": f"r{n}"}, format="json")
    staff.get(f"/api/projects/{other.slug}/annotations/")  # an export of the other project
    body = staff.get(f"/api/projects/{project.slug}/audit/?limit=2").json()
    assert [e["details"]["reason"] for e in body["entries"]] == ["r2", "r1"]
    more = staff.get(f"/api/projects/{project.slug}/audit/?limit=2&before={body['next_before']}").json()
    assert [e["details"]["reason"] for e in more["entries"]] == ["r0"] and more["next_before"] is None
    assert [e["action"] for e in staff.get(f"/api/projects/{other.slug}/audit/").json()["entries"]] == ["export"]
    assert staff.get(f"/api/projects/{project.slug}/audit/?action=export").json()["entries"] == []
    assert api(worker).get(f"/api/projects/{project.slug}/audit/").status_code == 403
    assert staff.get("/api/projects/nope/audit/").status_code == 404
