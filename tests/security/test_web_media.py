"""A project's audio files: one that items still use cannot be deleted (service, admin, API),
a blocked worker fetches none of the project's files, an item's media references end with its
assignment (skipped, or submitted past changing) while an open one's keep working, and on S3 a range request is redirected
to a presigned URL of the object instead of the web process downloading it."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from annotation.models import Assignment, Item, MediaFile, MediaUse, Standing
from annotation.services import MediaInUse, media_files_delete, media_import_file, worker_block
from annotation.task_types import get_task_type
from quality.services.standing import standing_set
from tests.annotation.views.media.test_assignment_media import (
    CLIP,
    COUNTER,
    NAMES,
    OTHER,
    audio_urls,
    member,
    project_with_audio,
)
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
SLUG = "comprehension"


def used_by(key: str, project) -> list[str]:
    return [i.external_id for i in Item.objects.filter(project=project).order_by("pk") if key in str(i.payload)]


def test_the_service_refuses_a_file_items_use_and_deletes_nothing(django_capture_on_commit_callbacks):
    project = project_with_audio(SLUG)
    counter = MediaFile.objects.get(project=project, key=COUNTER)
    unused = MediaFile.objects.get(project=project, key=NAMES[0])
    stored = counter.file.name
    with pytest.raises(MediaInUse) as refused:
        media_files_delete(files=[counter, unused])
    items = used_by(COUNTER, project)
    assert items and refused.value.uses == {COUNTER: items}
    assert COUNTER in str(refused.value) and all(repr(i) in str(refused.value) for i in items)
    # All or nothing: the unused file of the same call is still there too.
    assert MediaFile.objects.filter(project=project).count() == len(NAMES)
    assert default_storage.exists(stored)
    # A file no item uses goes, with its stored copy.
    unused_name = unused.file.name
    with django_capture_on_commit_callbacks(execute=True):
        assert media_files_delete(files=[unused]) == 1
    assert not MediaFile.objects.filter(pk=unused.pk).exists() and not default_storage.exists(unused_name)


def test_the_api_answers_409_naming_the_items():
    project = project_with_audio(SLUG)
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    r = api.delete(f"/api/projects/{project.slug}/media/{COUNTER}")
    assert r.status_code == 409, r.content
    assert r.json()["items"] == used_by(COUNTER, project) and COUNTER in r.json()["detail"]
    assert MediaFile.objects.filter(project=project, key=COUNTER).exists()
    assert api.delete(f"/api/projects/{project.slug}/media/{NAMES[0]}").status_code == 204
    assert api.delete(f"/api/projects/{project.slug}/media/{NAMES[0]}").status_code == 404
    # An annotator may not delete at all.
    worker_api = APIClient()
    worker_api.force_authenticate(member(project))
    assert worker_api.delete(f"/api/projects/{project.slug}/media/{OTHER}").status_code == 403


def test_the_admin_names_the_items_and_deletes_nothing(client):
    project = project_with_audio(SLUG)
    client.force_login(UserFactory(role="admin", is_superuser=True))
    counter = MediaFile.objects.get(project=project, key=COUNTER)
    url = f"/admin/annotation/mediafile/{counter.pk}/delete/"
    page = client.get(url).content.decode()
    items = used_by(COUNTER, project)
    assert f"{COUNTER} is used by item" in page and all(i in page for i in items)
    assert client.post(url, {"post": "yes"}).status_code in (200, 403)
    assert MediaFile.objects.filter(pk=counter.pk).exists()
    # The list's "delete selected" action refuses the same way.
    r = client.post("/admin/annotation/mediafile/", {"action": "delete_selected", "_selected_action": [counter.pk],
                                                      "post": "yes"})
    assert f"{COUNTER} is used by item" in r.content.decode()
    assert MediaFile.objects.filter(pk=counter.pk).exists()


@pytest.mark.parametrize("how", ["in the project", "the account"])
def test_a_blocked_worker_fetches_no_media(how, client):
    project = project_with_audio(SLUG)
    worker = member(project)
    client.force_login(worker)
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    url = audio_urls(page)[0]
    assert client.get(url).status_code == 200
    assignment = Assignment.objects.get(project=project, worker=worker)
    api = APIClient()
    api.force_authenticate(worker)
    ref = url.rsplit("/", 1)[-1]
    assert api.get(f"/api/assignments/{assignment.pk}/media/{ref}").status_code == 200
    if how == "in the project":
        standing_set(project=project, worker=worker, state=Standing.BLOCKED, reason="spam")
    else:
        worker_block(worker=worker, reason="spam")
    fetches = MediaUse.objects.get(assignment=assignment).fetches
    refused = client.get(url)
    assert refused.status_code == 404
    assert client.get(url, headers={"Range": "bytes=0-99"}).status_code == 404
    assert api.get(f"/api/assignments/{assignment.pk}/media/{ref}").status_code == 404
    assert MediaUse.objects.get(assignment=assignment).fetches == fetches
    # Another worker of the project is not affected.
    other = member(project)
    client.force_login(other)
    assert client.get(audio_urls(client.get(f"/projects/{project.slug}/annotate/").content.decode())[0]).status_code == 200


# Its answers need no listening, so a test can submit one as soon as the item is open.
ENDS = "counter_speech"


def opened(client):
    """A worker's item open in the page: (the assignment, the page's audio addresses, an API
    client logged in as the worker)."""
    project = project_with_audio(ENDS)
    worker = member(project)
    client.force_login(worker)
    urls = audio_urls(client.get(f"/projects/{project.slug}/annotate/").content.decode())
    api = APIClient()
    api.force_authenticate(worker)
    return Assignment.objects.get(project=project, worker=worker), urls, api


def api_url(assignment, url: str) -> str:
    return f"/api/assignments/{assignment.pk}/media/{url.rsplit('/', 1)[-1]}"


def assert_served(client, api, assignment, urls) -> None:
    for url in urls:
        assert client.get(url).status_code == 200
        part = client.get(url, headers={"Range": "bytes=100-199"})
        assert part.status_code == 206 and b"".join(part.streaming_content) == CLIP[100:200]
        assert api.get(api_url(assignment, url), headers={"Range": "bytes=0-9"}).status_code == 206


def assert_ended(client, api, assignment, urls) -> None:
    """Every reference of the assignment answers 404, as one the item lacks, whole, in part, by
    HEAD and through the API, and nothing more is recorded for it."""
    assert urls
    before = sorted(MediaUse.objects.filter(assignment=assignment).values_list("media_id", "fetches", "served"))
    for url in urls:
        assert client.get(url).status_code == 404
        assert client.get(url, headers={"Range": "bytes=0-99"}).status_code == 404
        assert client.head(url).status_code == 404
        assert api.get(api_url(assignment, url)).status_code == 404
        assert api.get(api_url(assignment, url), headers={"Range": "bytes=0-99"}).status_code == 404
    assert sorted(MediaUse.objects.filter(assignment=assignment).values_list("media_id", "fetches", "served")) == before


def lease_over(assignment) -> None:
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(assigned_at=now - timedelta(hours=1),
                                                       expires_at=now - timedelta(seconds=1))


def form(fields):
    data: dict[str, list[str]] = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return data


@pytest.mark.parametrize("via", ["web", "api"])
def test_a_skip_ends_the_item_s_media_references(via, client):
    assignment, urls, api = opened(client)
    assert_served(client, api, assignment, urls)
    if via == "web":
        assert client.post(f"/projects/{assignment.project.slug}/annotate/{assignment.pk}/skip/").status_code in (200, 302)
    else:
        assert api.post(f"/api/assignments/{assignment.pk}/skip/").status_code == 200
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.RETURNED
    assert_ended(client, api, assignment, urls)


@pytest.mark.parametrize("via", ["web", "api"])
def test_a_submit_ends_them_once_the_answer_can_no_longer_be_changed(via, client):
    assignment, urls, api = opened(client)
    example = get_task_type(ENDS).example()
    if via == "web":
        r = client.post(f"/projects/{assignment.project.slug}/annotate/{assignment.pk}/submit/", form(example.form),
                        HTTP_HX_REQUEST="true")
        assert r.status_code == 200
    else:
        assert api.post(f"/api/assignments/{assignment.pk}/submit/", example.answer, format="json").status_code == 201
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    # While the answer may still be changed, the change form plays the item's files again.
    edit = client.get(f"/projects/{assignment.project.slug}/annotate/{assignment.pk}/edit/").content.decode()
    assert audio_urls(edit) == urls
    assert_served(client, api, assignment, urls)
    lease_over(assignment)
    assert_ended(client, api, assignment, urls)


def test_a_reviewed_answer_s_references_end():
    client = Client()
    assignment, urls, api = opened(client)
    example = get_task_type(ENDS).example()
    assert api.post(f"/api/assignments/{assignment.pk}/submit/", example.answer, format="json").status_code == 201
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.APPROVED, reviewed_at=timezone.now())
    assert_ended(client, api, assignment, urls)


def test_an_open_assignment_s_references_keep_working_past_its_lease(client):
    # A late answer may still count, so the page that takes it still plays the files.
    assignment, urls, api = opened(client)
    assert_served(client, api, assignment, urls)
    lease_over(assignment)
    assert_served(client, api, assignment, urls)
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.EXPIRED)
    assert_served(client, api, assignment, urls)
    assert MediaUse.objects.filter(assignment=assignment).exists()


class _FakeS3Storage:
    """Stands in for the S3 storage's network calls: url() signs nothing, open() must not run."""

    signed: list[tuple[str, dict, int]] = []

    def url(self, name, parameters=None, expire=None, http_method=None):
        _FakeS3Storage.signed.append((name, parameters, expire))
        return f"https://bucket.s3.example.test/{name}?X-Amz-Signature=fake"

    def open(self, name, mode="rb"):
        raise AssertionError("the object was downloaded")


@pytest.fixture
def s3(settings, monkeypatch):
    from storages.backends.s3 import S3Storage

    monkeypatch.setattr(S3Storage, "url", _FakeS3Storage.url)
    monkeypatch.setattr(S3Storage, "open", _FakeS3Storage.open)
    _FakeS3Storage.signed = []
    settings.MEDIA_PRESIGNED_SECONDS = 120

    def switch():
        settings.STORAGES = {**settings.STORAGES, "default": {
            "BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": {"bucket_name": "bucket", "region_name": "eu-west-1"}}}
        assert isinstance(default_storage, S3Storage)

    return switch


def test_on_s3_a_range_request_is_redirected_to_a_presigned_url(s3, client):
    project = project_with_audio(SLUG)
    worker = member(project)
    client.force_login(worker)
    url = audio_urls(client.get(f"/projects/{project.slug}/annotate/").content.decode())[0]
    assignment = Assignment.objects.get(project=project, worker=worker)
    s3()
    r = client.get(url, headers={"Range": "bytes=100-199"})
    assert r.status_code == 307 and r["Location"].startswith("https://bucket.s3.example.test/")
    assert r["Cache-Control"] == "private, no-store"
    (name, parameters, expire), = _FakeS3Storage.signed
    media = MediaUse.objects.get(assignment=assignment).media
    assert name == media.file.name and expire == 120
    assert parameters["ResponseContentType"] == "audio/wav"
    assert parameters["ResponseContentDisposition"].startswith('inline; filename="') and media.key not in str(parameters)
    # What was handed out counts as sent, and the request as a fetch.
    use = MediaUse.objects.get(assignment=assignment)
    assert use.fetches >= 1 and use.served == [[100, 200]]
    # A range past the end is still answered here (416), without signing anything.
    assert client.get(url, headers={"Range": f"bytes={len(CLIP) + 10}-"}).status_code == 416
    assert len(_FakeS3Storage.signed) == 1
    # Staff, by key, are redirected the same way.
    client.force_login(UserFactory(role="admin"))
    r = client.get(f"/projects/{project.slug}/media/{COUNTER}", headers={"Range": "bytes=0-"})
    assert r.status_code == 307


def test_the_policy_lets_the_player_load_from_the_bucket(monkeypatch):
    from config.settings.csp import content_security_policy, media_origins

    monkeypatch.setenv("MEDIA_S3_REGION", "eu-west-1")
    assert "https://crowd-audio.s3.eu-west-1.amazonaws.com" in media_origins("crowd-audio")
    monkeypatch.setenv("MEDIA_S3_ENDPOINT_URL", "https://minio.example.test:9000")
    assert media_origins("crowd-audio") == ["https://minio.example.test:9000", "https://crowd-audio.minio.example.test:9000"]
    monkeypatch.setenv("MEDIA_S3_PUBLIC_ORIGIN", "https://cdn.example.test")
    assert media_origins("crowd-audio") == ["https://cdn.example.test"]
    assert content_security_policy(media_bucket="crowd-audio")["DIRECTIVES"]["media-src"] == [
        "'self'", "https://cdn.example.test"]
    assert media_origins("") == []


def test_unused_keys_delete_in_a_project_that_never_referred_to_them():
    project = project_with_audio(SLUG)
    media_import_file(project=project, data=io.BytesIO(CLIP), name="spare.wav", size=len(CLIP))
    spare = MediaFile.objects.get(project=project, key="spare.wav")
    assert media_files_delete(files=[spare]) == 1
