"""The key-point set build in the API: the admin page's form (two systems at least) and step."""

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.models import ImportJob
from task_types.key_points.tests.track2_example import ARGUMENTS, KEY_POINTS, PREDICTIONS
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def api(user):
    c = APIClient()
    c.force_authenticate(user)
    return c


def _file(name, text):
    return SimpleUploadedFile(name, text.encode())


def _system(n):
    return {f"name_{n}": f"system-{n}", f"key_points_{n}": _file("key_points.csv", KEY_POINTS.to_csv(index=False)),
            f"predictions_{n}": _file("predictions.json", json.dumps(PREDICTIONS))}


def test_the_build_needs_two_systems_and_is_queued():
    project = ProjectFactory(task_type="key_point_sets")
    staff = api(UserFactory(role="admin"))
    url = f"/api/projects/{project.slug}/key-point-sets/build/"
    r = staff.post(url, {"arguments": _file("arguments.csv", ARGUMENTS.to_csv(index=False)), "seed": 0,
                         "min_score": 0, **_system(1)}, format="multipart")
    assert r.status_code == 400 and {"name_2", "key_points_2", "predictions_2"} <= set(r.json())
    assert not ImportJob.objects.exists()
    r = staff.post(url, {"arguments": _file("arguments.csv", ARGUMENTS.to_csv(index=False)), "seed": 0,
                         "min_score": 0, **_system(1), **_system(2)}, format="multipart")
    assert r.status_code == 202
    job = ImportJob.objects.get()
    assert job.options["import"] == "sets" and job.options["systems"] == {"1": "system-1", "2": "system-2"}
