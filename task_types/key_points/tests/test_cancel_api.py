"""Cancelling a key-point evaluation through the API, as the evaluation page's button does."""

import pytest
from rest_framework.test import APIClient

from task_types.key_points.models import PredictionEvaluation
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_cancel_an_evaluation_of_the_project():
    project, other = ProjectFactory(task_type="key_points"), ProjectFactory(task_type="key_points")
    mine = PredictionEvaluation.objects.create(project=project, filename="p.json", size=2)
    theirs = PredictionEvaluation.objects.create(project=other, filename="p.json", size=2)
    staff = api(UserFactory(role="admin"))
    assert staff.post(f"/api/projects/{project.slug}/key-points/evaluations/{theirs.pk}/cancel/").status_code == 404
    assert api(UserFactory(role="researcher")).post(
        f"/api/projects/{project.slug}/key-points/evaluations/{mine.pk}/cancel/").status_code == 403
    assert set(PredictionEvaluation.objects.values_list("status", flat=True)) == {"queued"}
    r = staff.post(f"/api/projects/{project.slug}/key-points/evaluations/{mine.pk}/cancel/")
    assert r.status_code == 200 and r.json()["status"] == "cancelled"
    assert staff.post(f"/api/projects/{project.slug}/key-points/evaluations/{mine.pk}/cancel/").status_code == 409
    theirs.refresh_from_db()
    assert theirs.status == "queued"
