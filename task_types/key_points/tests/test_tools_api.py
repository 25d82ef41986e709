"""The key-point type's project tools in the API: the corpus import and track 2, with the admin
pages' forms and steps (jobs for what reads whole files)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import ImportJob
from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS, LABELS
from task_types.key_points.tests.track2_example import ARGUMENTS as T2_ARGUMENTS
from task_types.key_points.tests.track2_example import KEY_POINTS as T2_KEY_POINTS
from task_types.key_points.tests.track2_example import PREDICTIONS
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def upload(name, text):
    return SimpleUploadedFile(name, text.encode(), content_type="text/csv")


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def test_the_corpus_import_is_a_job_that_makes_items(django_capture_on_commit_callbacks):
    project, other = ProjectFactory(task_type="key_points"), ProjectFactory(task_type="pairwise")
    staff = api(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/key-points/import/"
    r = staff.post(url, {"arguments": upload("arguments.csv", ARGUMENTS)}, format="multipart")
    assert r.status_code == 400 and "together" in r.json()["detail"][0]
    r = staff.post(url, {"on_duplicate": "merge"}, format="multipart")
    assert r.status_code == 400 and "on_duplicate" in r.json()
    r = staff.post(f"/api/projects/{other.slug}/key-points/import/", {
        "arguments": upload("arguments.csv", ARGUMENTS), "key_points": upload("key_points.csv", KEY_POINTS)},
        format="multipart")
    assert r.status_code == 400 and r.json()["errors"][0]["field"] == "project"
    assert api(UserFactory(role="researcher")).post(url, {}, format="multipart").status_code == 403
    assert not ImportJob.objects.exists()
    with django_capture_on_commit_callbacks(execute=True):
        r = staff.post(url, {"arguments": upload("arguments.csv", ARGUMENTS),
                             "key_points": upload("key_points.csv", KEY_POINTS),
                             "labels": upload("labels.csv", LABELS)}, format="multipart")
    assert r.status_code == 202 and r["Location"] == f"/api/imports/{r.json()['id']}/"
    assert ImportJob.objects.get().status == "done"
    assert project.items.get(external_id="a1").gold == {"k1": 1, "k2": 0}
    assert not other.items.exists()


def _system_files():
    return {"arguments": upload("arguments.csv", T2_ARGUMENTS.to_csv(index=False)),
            "key_points": upload("key_points.csv", T2_KEY_POINTS.to_csv(index=False)),
            "predictions": SimpleUploadedFile("predictions.json", json.dumps(PREDICTIONS).encode())}


def test_track2_builds_as_a_job_and_names_bad_fields():
    project = ProjectFactory(task_type="key_points")
    staff = api(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/key-points/track2/"
    r = staff.post(url, {"action": "guess", "system": "s", **_system_files()}, format="multipart")
    assert r.status_code == 400 and "action" in r.json()
    r = staff.post(url, {"action": "build", "system": "s"}, format="multipart")
    assert r.status_code == 400 and {"arguments", "key_points", "predictions"} <= set(r.json())
    assert not ImportJob.objects.exists()
    r = staff.post(url, {"action": "build", "system": "hand-made", "seed": 0, "show": "all", **_system_files()},
                   format="multipart")
    assert r.status_code == 202
    job = ImportJob.objects.get()
    assert job.options["import"] == "track2" and job.options["system"] == "hand-made"


def test_track2_scores_at_once_as_the_admin_page_does():
    from task_types.key_points.tests.test_track2_build import annotate
    from task_types.key_points.tests.track2_example import SYSTEM
    from task_types.key_points.track2 import track2_build

    project = ProjectFactory(task_type="key_points", redundancy=3)
    track2_build(project=project, arguments=T2_ARGUMENTS, system=SYSTEM, sample=None)
    annotate(project, {"w1": {"p1": ["kp0"], "p2": ["kp0"], "c2": []},
                       "w2": {"p1": ["kp0"], "p2": [], "c2": ["kc0"]},
                       "w3": {"p1": ["kp0", "kp1"], "p2": [], "c2": []}})
    r = api(UserFactory(role="admin")).post(f"/api/projects/{project.slug}/key-points/track2/",
                                            {"action": "score", "system": "hand-made", "seed": 0, "show": "all",
                                             **_system_files()}, format="multipart")
    assert r.status_code == 200
    body = r.json()
    assert body["system"] == "hand-made" and body["score"]["strict"] == pytest.approx(0.25)
    assert body["score"]["kept_pairs_labelled"] == 2 and not ImportJob.objects.exists()
