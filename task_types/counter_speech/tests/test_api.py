"""The counter-speech build in the API: the admin page's form and step, queued as an import job."""

import pytest
from rest_framework.test import APIClient

from annotation.models import ImportJob
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_the_build_is_queued_with_the_forms_checks():
    project, other = ProjectFactory(task_type="counter_speech"), ProjectFactory(task_type="pairwise")
    staff = api(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/counter-speech/build/"
    r = staff.post(url, {"setting": "all", "min_candidates": 9, "max_candidates": 5, "seed": 1}, format="json")
    assert r.status_code == 400 and "min_candidates" in r.json()
    r = staff.post(f"/api/projects/{other.slug}/counter-speech/build/",
                   {"setting": "all", "min_candidates": 3, "max_candidates": 5, "seed": 1}, format="json")
    assert r.status_code == 400 and r.json()["errors"][0]["field"] == "project"
    assert api(UserFactory(role="researcher")).post(url, {}, format="json").status_code == 403
    assert staff.post("/api/projects/nope/counter-speech/build/", {}, format="json").status_code == 404
    assert not ImportJob.objects.exists()
    r = staff.post(url, {"setting": "explicit", "min_candidates": 3, "max_candidates": 5, "sample": 10, "seed": 7},
                   format="json")
    assert r.status_code == 202 and r.json()["status"] == "queued"
    job = ImportJob.objects.get()
    assert (job.project, job.options["import"], job.options["setting"], job.options["seed"]) == \
        (project, "questions", "explicit", 7)
