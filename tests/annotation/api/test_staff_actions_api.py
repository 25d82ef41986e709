"""The admin's workflow actions in the API: reviewing chosen assignments, removing a bonus and
marking bonuses paid, restarting an import, creating annotators. Staff of the project can;
annotators and researchers get 403; another project's ids are 404 and change nothing; bad input
is a 400 naming the field."""

from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Annotation, Assignment, AuditEntry, ImportJob, Invite
from recruiting.models import Bonus
from recruiting.services.bonuses import bonus_grant
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def submitted(project, worker):
    a = AssignmentFactory(item=ItemFactory(project=project), worker=worker, status=S.SUBMITTED,
                          submitted_at=timezone.now())
    Annotation.objects.create(assignment=a, answer={"label": "a1", "standpoint": "none"}, reason="r" * 30, seconds=4)
    return a


@pytest.fixture
def two():
    project, other = ProjectFactory(), ProjectFactory()
    worker = UserFactory(username="w")
    return project, other, worker, api(UserFactory(role="admin"))


def test_review_approves_and_rejects_chosen_assignments(two):
    project, _, worker, staff = two
    a, b = submitted(project, worker), submitted(project, worker)
    url = f"/api/projects/{project.slug}/assignments/review/"
    r = staff.post(url, {"verdict": "reject", "assignments": [a.pk], "note": "copied"}, format="json")
    assert r.status_code == 200 and r.json()["reviewed"] == 1
    a.refresh_from_db()
    assert (a.status, a.review_note) == (S.REJECTED, "copied")
    r = staff.post(url, {"verdict": "approve", "assignments": [a.pk, b.pk], "note": "fine"}, format="json")
    assert r.json() == {"verdict": "approve", "reviewed": 2, "unchanged": 0, "not_submitted": {}, "slots_filled": 0}
    assert set(Assignment.objects.values_list("status", flat=True)) == {S.APPROVED}
    assert AuditEntry.objects.filter(project=project).count() == 2


def test_review_refuses_others_and_bad_input(two):
    project, other, worker, staff = two
    mine, theirs = submitted(project, worker), submitted(other, worker)
    url = f"/api/projects/{project.slug}/assignments/review/"
    r = staff.post(url, {"verdict": "reject", "assignments": [mine.pk, theirs.pk], "note": "x"}, format="json")
    assert r.status_code == 404
    r = staff.post("/api/projects/nope/assignments/review/", {"verdict": "reject", "assignments": [mine.pk],
                                                               "note": "x"}, format="json")
    assert r.status_code == 404
    for body, field in (({"verdict": "maybe", "assignments": [mine.pk], "note": "x"}, "verdict"),
                        ({"verdict": "reject", "assignments": [], "note": "x"}, "assignments"),
                        ({"verdict": "reject", "assignments": ["a"], "note": "x"}, "assignments"),
                        ({"verdict": "reject", "assignments": [mine.pk]}, "note")):
        r = staff.post(url, body, format="json")
        assert r.status_code == 400 and field in r.json()
    for role in ("annotator", "researcher"):
        r = api(UserFactory(role=role)).post(url, {"verdict": "reject", "assignments": [mine.pk], "note": "x"},
                                             format="json")
        assert r.status_code == 403
    assert set(Assignment.objects.values_list("status", flat=True)) == {S.SUBMITTED}
    assert not AuditEntry.objects.exists()


def test_bonus_remove_and_mark_paid(two):
    project, other, worker, staff = two
    one = bonus_grant(project=project, worker=worker, amount="1.50", reason="fast")
    two_ = bonus_grant(project=project, worker=worker, amount="2", reason="good")
    theirs = bonus_grant(project=other, worker=worker, amount="3", reason="other")
    assert staff.delete(f"/api/projects/{project.slug}/bonuses/{theirs.pk}/").status_code == 404
    r = staff.post(f"/api/projects/{project.slug}/bonuses/mark-paid/", {"bonuses": [two_.pk, theirs.pk]},
                   format="json")
    assert r.status_code == 404
    assert not Bonus.objects.filter(paid_at__isnull=False).exists()
    r = staff.post(f"/api/projects/{project.slug}/bonuses/mark-paid/", {"bonuses": "all"}, format="json")
    assert r.status_code == 400 and "bonuses" in r.json()
    assert staff.delete(f"/api/projects/{project.slug}/bonuses/{one.pk}/").status_code == 204
    r = staff.post(f"/api/projects/{project.slug}/bonuses/mark-paid/", {"bonuses": [two_.pk], "note": "PayPal"},
                   format="json")
    assert r.json() == {"marked": 1, "paid_before": 0}
    two_.refresh_from_db()
    assert two_.paid_note == "PayPal" and two_.paid_at is not None
    r = staff.delete(f"/api/projects/{project.slug}/bonuses/{two_.pk}/")
    assert r.status_code == 409 and "paid" in r.json()["detail"]
    assert set(Bonus.objects.values_list("pk", flat=True)) == {two_.pk, theirs.pk}
    assert Bonus.objects.get(pk=theirs.pk).amount == Decimal("3")
    assert api(UserFactory(role="researcher")).delete(f"/api/projects/{project.slug}/bonuses/{theirs.pk}/") \
        .status_code == 403


def _failed_import(project, **options):
    return ImportJob.objects.create(project=project, kind=ImportJob.Kind.FILES, filename="corpus", size=0,
                                    options=options, status=ImportJob.Status.FAILED, finished_at=timezone.now())


def test_import_restart(two):
    project, other, _, staff = two
    mine, theirs = _failed_import(project), _failed_import(other)
    assert staff.post(f"/api/projects/{project.slug}/imports/{theirs.pk}/restart/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.status == ImportJob.Status.FAILED
    assert api(UserFactory(role="researcher")).post(
        f"/api/projects/{project.slug}/imports/{mine.pk}/restart/").status_code == 403
    r = staff.post(f"/api/projects/{project.slug}/imports/{mine.pk}/restart/")
    assert r.status_code == 202 and r.json()["status"] == "queued" and r["Location"] == f"/api/imports/{mine.pk}/"
    assert staff.post(f"/api/projects/{project.slug}/imports/{mine.pk}/restart/").status_code == 409
    gone = _failed_import(project, files={"arguments": "arguments.csv"})
    r = staff.post(f"/api/projects/{project.slug}/imports/{gone.pk}/restart/")
    assert r.status_code == 409 and "upload it again" in r.json()["detail"]


def test_annotators_create(two):
    project, other, _, staff = two
    UserFactory(username="known")
    url = f"/api/projects/{project.slug}/annotators/"
    r = staff.post(url, {"names": ["ann1", "bad name!"], "mode": "invite"}, format="json")
    assert r.status_code == 400 and "entry 2" in r.json()["names"][0]
    r = staff.post(url, {"names": ["ann1"], "mode": "sms"}, format="json")
    assert r.status_code == 400 and "mode" in r.json()
    assert not get_user_model().objects.filter(username="ann1").exists()
    r = staff.post(url, {"names": ["ann1", "ann2", "KNOWN"], "mode": "invite"}, format="json")
    assert r.status_code == 201
    accounts = {a["username"]: a for a in r.json()["accounts"]}
    assert accounts["known"]["existing"] and accounts["known"]["invite_url"] is None
    assert "/invite/" in accounts["ann1"]["invite_url"] and accounts["ann1"]["password"] is None
    assert Invite.objects.filter(project=project).count() == 2
    assert set(project.members.values_list("username", flat=True)) == {"ann1", "ann2", "known"}
    r = staff.post(f"/api/projects/{project.slug}/annotators/", {"names": ["ann3"], "mode": "password"},
                   format="json")
    assert r.json()["accounts"][0]["password"]
    assert api(UserFactory(role="researcher")).post(url, {"names": ["ann4"]}, format="json").status_code == 403
    assert not other.members.exists()
