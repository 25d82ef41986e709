"""The dashboard's *Recompute all* in the API: one queued run per report of the project."""

import pytest
from rest_framework.test import APIClient

from analysis.models import AnalysisRun
from analysis.reports import report_kinds
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_recompute_all_queues_each_report():
    project, other = ProjectFactory(), ProjectFactory()
    url = f"/api/projects/{project.slug}/analysis/recompute/"
    assert api(UserFactory(role="researcher")).post(url).status_code == 403
    assert api(UserFactory()).post(url).status_code == 403
    assert api(UserFactory(role="admin")).post("/api/projects/nope/analysis/recompute/").status_code == 404
    assert not AnalysisRun.objects.exists()
    r = api(UserFactory(role="admin")).post(url)
    assert r.status_code == 202
    kinds = sorted(run["kind"] for run in r.json()["runs"])
    assert kinds == sorted(k for k, _ in report_kinds(project.task_type))
    assert set(AnalysisRun.objects.values_list("project", "status")) == {(project.pk, "queued")}
    assert not AnalysisRun.objects.filter(project=other).exists()
