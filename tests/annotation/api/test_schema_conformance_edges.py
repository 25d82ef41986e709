"""The answers beyond the everyday loop conform to the OpenAPI schema too: media files (the
bytes, their ranges, upload and delete), a large import that becomes a job, adjudication,
a qualification retry refused, the key-point evaluations, and the answers every operation can
give: 429 from the throttles and 503 while the database is away."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import OperationalError

from annotation.models import Item
from annotation.task_types import get_task_type
from tests.annotation.api.test_schema_conformance import Checked, _project, _worker
from tests.annotation.views.media.test_assignment_media import (
    CLIP,
    MEDIA_SLUGS,
    member,
    project_with_audio,
)
from tests.factories import UserFactory
from tests.support import audio
from tests.support.openapi_conformance import assert_conforms

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


def test_media_files_and_their_bytes_conform():
    slug = MEDIA_SLUGS[0]
    project = project_with_audio(slug)
    admin = Checked(UserFactory(role="admin", is_superuser=True))
    base = f"/api/projects/{project.slug}/media"
    files = admin.call("GET", f"{base}/", status=200).json()["results"]
    admin.call("DELETE", f"{base}/{files[0]['key']}", status=409)
    admin.call("DELETE", f"{base}/no-such-file.wav", status=404)
    upload = {"file": SimpleUploadedFile("extra.wav", audio.wav(frames=4000)), "key": "extra.wav"}
    admin.call("POST", f"{base}/", upload, fmt="multipart", status=201)
    admin.call("POST", f"{base}/", {"file": SimpleUploadedFile("x.wav", b"not audio")}, fmt="multipart", status=400)
    admin.call("DELETE", f"{base}/extra.wav", status=204)

    user = member(project)
    worker = Checked(user)
    nxt = worker.call("POST", f"/api/projects/{project.slug}/assignments/next/", status=200).json()
    assignment = nxt["assignment"]["id"]
    refs = [m["key"] for m in worker.call("GET", f"/api/assignments/{assignment}/plays/", status=200).json()["media"]]
    path = f"/api/assignments/{assignment}/media/{refs[0]}"
    assert worker.call("GET", path, status=200).get("Content-Type", "").startswith("audio/")
    worker.client.credentials(HTTP_RANGE="bytes=0-99")
    worker.call("GET", path, status=206)
    worker.client.credentials(HTTP_RANGE=f"bytes={len(CLIP) * 4}-")
    worker.call("GET", path, status=416)
    worker.client.credentials()
    worker.call("GET", f"/api/assignments/{assignment}/media/nothing", status=404)
    worker.call("POST", f"/api/assignments/{assignment}/plays/", {"key": refs[0], "play": "first"}, status=400)
    worker.call("POST", f"/api/assignments/{assignment}/plays/", {"key": refs[0], "play": 1}, status=200)


def test_a_large_import_becomes_a_job_and_conforms(settings):
    slug = "pairwise"
    project, admin = _project(slug, records=1)
    settings.IMPORT_INLINE_MAX_BYTES = 100
    records = get_task_type(slug).example().records
    more = [{**records[0], "id": f"more-{i}"} for i in range(3)]
    upload = {"file": SimpleUploadedFile("more.json", json.dumps(more).encode())}
    job = admin.call("POST", f"/api/projects/{project.slug}/items/import/", upload, fmt="multipart", status=202).json()
    admin.call("GET", f"/api/imports/{job['id']}/", status=200)
    admin.call("POST", f"/api/imports/{job['id']}/cancel/")
    crowd = {"file": SimpleUploadedFile("crowd.csv", b"nothing,useful\n1,2\n")}
    admin.call("POST", f"/api/projects/{project.slug}/crowd-results/import/", crowd, fmt="multipart")


def test_adjudication_and_a_refused_qualification_conform():
    slug = "pairwise"
    project, admin = _project(slug, records=1)
    example = get_task_type(slug).example()
    item = admin.call("GET", f"/api/projects/{project.slug}/items/", status=200).json()["results"][0]
    queue = admin.call("GET", f"/api/projects/{project.slug}/adjudication/?reason=split", status=200).json()
    assert queue["items"] == []
    ids = [i["item_id"] for i in admin.call("GET", f"/api/projects/{project.slug}/flags/").json()["items"]]
    assert ids == [] and item["external_id"]
    pk = Item.objects.get(project=project, external_id=item["external_id"]).pk
    path = f"/api/projects/{project.slug}/items/{pk}/adjudication/"
    admin.call("POST", path, {"answer": {"label": example.answer["label"]}, "why": "the stronger argument"}, status=201)
    admin.call("POST", path, {"answer": {"nonsense": True}, "why": "x"}, status=400)
    _, worker = _worker(project)
    worker.call("POST", f"/api/projects/{project.slug}/qualification/retry/", status=409)


def test_key_point_evaluations_conform():
    project, admin = _project("key_points", records=None)
    base = f"/api/projects/{project.slug}/key-points/evaluations/"
    admin.call("GET", base, status=200)
    admin.call("POST", base, {"predictions": SimpleUploadedFile("p.json", b"[1, 2]")}, fmt="multipart")
    admin.call("POST", base + "?ties=sideways", {"a": {"b": 0.5}}, status=400)
    admin.call("GET", "/api/key-points/evaluations/999999/", status=404)


def test_throttled_answers_conform(settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "user": "2/min", "token": "1/min"}}
    caller = Checked(UserFactory())
    statuses = [caller.call("GET", "/api/task-types/").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    throttled = caller.call("GET", "/api/projects/", status=429)
    assert int(throttled["Retry-After"]) >= 1
    anyone = Checked()
    anyone.call("POST", "/api/token/", {"username": "x", "password": "y"}, status=400)
    anyone.call("POST", "/api/token/", {"username": "x", "password": "y"}, status=429)


def test_an_away_database_answers_503_as_documented(monkeypatch):
    project, _ = _project("pairwise", records=1)

    def away(**kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr("annotation.api.views.project_progress", away)
    staff = Checked(UserFactory(role="admin"))
    response = staff.call("GET", f"/api/projects/{project.slug}/progress/", status=503)
    assert int(response["Retry-After"]) >= 1 and response.json()["retry_after"] >= 1


def test_every_kind_of_body_the_parser_refuses_is_a_documented_400():
    project, _ = _project("pairwise", records=1)
    _, worker = _worker(project)
    nxt = worker.call("POST", f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]["id"]
    path = f"/api/assignments/{nxt}/submit/"
    for body in (b"{not json", b"[1, 2]", json.dumps({"label": "a1\x00"}).encode(), b"{}" + b" " * 10):
        response = worker.client.generic("POST", path, body, content_type="application/json")
        assert response.status_code == 400
        assert_conforms(response, "POST", path)
    response = worker.client.generic("POST", path, b"x", content_type="text/plain")
    assert response.status_code == 415
    assert_conforms(response, "POST", path)


def test_an_id_beyond_64_bits_is_the_documented_404():
    _, worker = _worker(_project("pairwise", records=1)[0])
    big = 2**101
    for method, path in (("GET", f"/api/assignments/{big}/annotation/"), ("PUT", f"/api/assignments/{big}/annotation/"),
                         ("POST", f"/api/assignments/{big}/submit/"), ("GET", f"/api/assignments/{big}/plays/")):
        worker.call(method, path, {}, status=404)
