"""The pairwise type's staff tools in the API: generating argument pairs (the admin's page) and
the reason review's rejection of a worker (the gold page's), with the same service as the page."""

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from annotation.models import Assignment, AuditEntry, Item
from task_types.pairwise.tests.factories import ArgumentFactory, TopicFactory
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
S = Assignment.Status


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_pairs_are_generated_once():
    topic = TopicFactory(external_id="uniforms")
    for _ in range(4):
        ArgumentFactory(topic=topic)
    project = ProjectFactory()
    staff = api(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/pairs/"
    r = staff.post(url, {"topic": "nope"}, format="json")
    assert r.status_code == 400 and "topic" in r.json()
    r = staff.post(url, {"topic": "uniforms", "sample": 1}, format="json")
    assert r.status_code == 400 and "sample" in r.json()
    r = staff.post(url, {"topic": "uniforms", "seed": "x"}, format="json")
    assert r.status_code == 400 and "seed" in r.json()
    assert api(UserFactory(role="researcher")).post(url, {"topic": "uniforms"}, format="json").status_code == 403
    assert not Item.objects.exists()
    r = staff.post(url, {"topic": "uniforms"}, format="json")
    assert r.status_code == 201 and r.json() == {"arguments": 4, "pairs": 6, "created": 6, "skipped_existing": 0}
    r = staff.post(url, {"topic": "uniforms", "seed": 7}, format="json")
    assert r.json()["created"] == 0 and r.json()["skipped_existing"] == 6
    assert Item.objects.filter(project=project).count() == 6


def test_rejecting_a_worker_recomputes_the_gold_data():
    project, other = ProjectFactory(), ProjectFactory()
    worker, stranger = UserFactory(), UserFactory()
    for _ in range(2):
        AssignmentFactory(item=ItemFactory(project=project), worker=worker, status=S.SUBMITTED,
                          submitted_at=timezone.now())
    AssignmentFactory(item=ItemFactory(project=other), worker=stranger, status=S.SUBMITTED,
                      submitted_at=timezone.now())
    staff = api(UserFactory(role="admin"))
    assert staff.post(f"/api/projects/{project.slug}/gold/workers/{stranger.pk}/reject/").status_code == 404
    assert staff.post(f"/api/projects/{other.slug}/gold/workers/{worker.pk}/reject/").status_code == 404
    assert api(UserFactory(role="researcher")).post(
        f"/api/projects/{project.slug}/gold/workers/{worker.pk}/reject/").status_code == 403
    assert not Assignment.objects.filter(status=S.REJECTED).exists() and not AnalysisRun.objects.exists()
    assert not AuditEntry.objects.exists()
    r = staff.post(f"/api/projects/{project.slug}/gold/workers/{worker.pk}/reject/")
    body = r.json()
    assert r.status_code == 200 and body["rejected"] == 2 and body["queued"] is True
    assert body["run"]["kind"] == "pairwise_gold" and body["run"]["status"] == "queued"
    assert set(Assignment.objects.filter(worker=worker).values_list("status", flat=True)) == {S.REJECTED}
    r = staff.post(f"/api/projects/{project.slug}/gold/workers/{worker.pk}/reject/")
    assert r.json() == {"rejected": 0, "queued": False, "run": None}
    assert AnalysisRun.objects.count() == 1
