"""A worker gets an item's audio under references, never under the files' names, for every task
type that plays audio: the IBM release names a counter speech's recording after the speech it
answers (``<speaker>_<motion>_…_con_opening_<opponent>.wav``), so a name in a page, an API answer,
a header or an error would give the answer away. Ranges still work, a reload keeps the
addresses, and a reference opens nothing of another assignment or project. Staff keep the names."""

from __future__ import annotations

import io
import json
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.media.refs import media_ref
from annotation.models import Assignment, MediaUse
from annotation.services import media_import_file
from annotation.task_types import get_task_type, task_types
from tests.factories import ProjectFactory, UserFactory
from tests.support import audio

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
CLIP = audio.wav(frames=4000)
# Named as the release names its recordings: the opponent of a counter speech is its true counter.
SUPPORTING = "mary_1661_school-uniforms_pro.wav"
COUNTER = "daniel_1661_school-uniforms_con_opening_mary.wav"
OTHER = "kim_1700_school-uniforms_con_opening_will.wav"
NAMES = (SUPPORTING, COUNTER, OTHER)
# Parts of the names that must not reach a worker either.
TELLTALES = ("_con_opening_", "1661_school-uniforms", "1700_school", "mary_", "daniel_", "kim_")


def _comprehension(records):
    for record, key in zip(records, (COUNTER, OTHER), strict=False):
        record["speech"] = {**record["speech"], "audio": key}
    return records, {"mode": "listening"}


def _counter_speech(records):
    for record in records:
        record["speech"] = {**record["speech"], "audio": SUPPORTING}
        record["candidates"] = [{**c, "audio": key} for c, key in zip(record["candidates"], (COUNTER, OTHER), strict=True)]
    return records, {}


def _response_scoring(records):
    for record, key in zip(records, (COUNTER, OTHER), strict=False):
        record["audio"] = key
    return records, {"presentation": "listening"}


# How each type that plays audio names it in its example's records (and in which mode it plays).
WITH_AUDIO = {"comprehension": _comprehension, "counter_speech": _counter_speech, "response_scoring": _response_scoring}
MEDIA_SLUGS = [t.slug for t in task_types() if "audio" in t.media]


def test_every_type_that_plays_audio_is_covered():
    assert sorted(WITH_AUDIO) == sorted(MEDIA_SLUGS)


def project_with_audio(slug: str, **extra):
    task = get_task_type(slug)
    example = task.example()
    records, options = WITH_AUDIO[slug]([json.loads(json.dumps(r)) for r in example.records])
    project = ProjectFactory(task_type=slug, redundancy=2, options=task.clean_options({**example.options, **options}),
                             open_to_all=False, **extra)
    for name in NAMES:
        media_import_file(project=project, data=io.BytesIO(CLIP), name=name, size=len(CLIP))
    admin = APIClient()
    admin.force_authenticate(UserFactory(role="admin"))
    upload = SimpleUploadedFile("items.json", json.dumps(records).encode())
    r = admin.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart")
    assert r.status_code == 201, r.content
    return project


def member(project):
    user = UserFactory()
    project.members.add(user)
    return user


def audio_urls(page: str) -> list[str]:
    return re.findall(r'<audio[^>]* src="([^"]+)"', page)


def assert_nameless(where: str, text: str) -> None:
    for name in NAMES:
        assert name not in text and name.rsplit(".", 1)[0] not in text, f"{name} in {where}"
    for part in TELLTALES:
        assert part not in text, f"{part!r} in {where}"


def without_tokens(response) -> str:
    return re.sub(r"[A-Za-z0-9]{64}", "", response.content.decode())


def body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


@pytest.mark.parametrize("slug", MEDIA_SLUGS)
def test_no_file_name_reaches_the_worker(slug, client):
    project = project_with_audio(slug)
    worker = member(project)
    client.force_login(worker)
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    assignment = Assignment.objects.get(project=project, worker=worker)
    urls = audio_urls(page)
    assert urls, "the page plays the item's audio"
    seen = [("page", page), ("reload", client.get(f"/projects/{project.slug}/annotate/").content.decode())]
    # A reload plays the same addresses: the browser's copy, and the server's record, still count.
    assert audio_urls(seen[1][1]) == urls
    example = get_task_type(slug).example()
    invalid = {k: v for k, v in example.invalid.items()}
    seen.append(("refused", client.post(f"/projects/{project.slug}/annotate/{assignment.pk}/submit/", invalid,
                                        HTTP_HX_REQUEST="true").content.decode()))
    for url in urls:
        assert url.startswith(f"/projects/{project.slug}/annotate/{assignment.pk}/media/")
        response = client.get(url)
        assert response.status_code == 200 and body(response) == CLIP
        seen.append((f"headers of {url}", json.dumps(dict(response.headers))))
        part = client.get(url, headers={"Range": "bytes=100-199"})
        assert part.status_code == 206 and body(part) == CLIP[100:200]
        assert part["Content-Range"] == f"bytes 100-199/{len(CLIP)}"
        assert re.fullmatch(r'inline; filename="[0-9a-f]{20}\.wav"', part["Content-Disposition"])
        seen.append((f"headers of a range of {url}", json.dumps(dict(part.headers))))
        assert client.head(url).status_code == 200
    missing = client.get(f"/projects/{project.slug}/annotate/{assignment.pk}/media/{'0' * 20}")
    assert missing.status_code == 404
    seen.append(("a wrong reference", missing.content.decode()))
    by_key = client.get(f"/projects/{project.slug}/media/{COUNTER}")
    # No key is confirmed either: the same page (but for its CSRF token, masked anew each time).
    assert by_key.status_code == 404 and without_tokens(by_key) == without_tokens(missing)

    api = APIClient()
    api.force_authenticate(worker)
    nxt = api.post(f"/api/projects/{project.slug}/assignments/next/")
    assert nxt.json()["assignment"]["id"] == assignment.pk
    seen.append(("api next", nxt.content.decode()))
    plays = api.get(f"/api/assignments/{assignment.pk}/plays/")
    seen.append(("api plays", plays.content.decode()))
    refs = [m["key"] for m in plays.json()["media"]]
    assert refs and all(re.fullmatch(r"[0-9a-f]{20}", r) for r in refs)
    assert sorted(u.rsplit("/", 1)[1] for u in set(urls)) == sorted(refs)
    for ref in refs:
        assert ref in nxt.content.decode(), "the payload names each file by the reference the API serves"
        served = api.get(f"/api/assignments/{assignment.pk}/media/{ref}", headers={"Range": "bytes=0-9"})
        assert served.status_code == 206 and body(served) == CLIP[:10]
        seen.append(("api file headers", json.dumps(dict(served.headers))))
        started = api.post(f"/api/assignments/{assignment.pk}/plays/", {"key": ref, "play": 1}, format="json")
        assert started.status_code == 200
        seen.append(("api play", started.content.decode()))
    for wrong in (COUNTER, "0" * 20):
        for response in (api.get(f"/api/assignments/{assignment.pk}/media/{wrong}"),
                         api.post(f"/api/assignments/{assignment.pk}/plays/", {"key": wrong, "play": 1}, format="json")):
            assert response.status_code == 404
            seen.append(("api error", response.content.decode()))
    seen.append(("api refused", api.post(f"/api/assignments/{assignment.pk}/submit/", example.invalid,
                                         format="json").content.decode()))
    for where, text in seen:
        assert_nameless(where, text)


@pytest.mark.parametrize("slug", MEDIA_SLUGS)
def test_a_reference_opens_only_its_own_assignment_s_file(slug, client):
    project = project_with_audio(slug)
    first, second = member(project), member(project)
    client.force_login(first)
    urls = audio_urls(client.get(f"/projects/{project.slug}/annotate/").content.decode())
    mine = Assignment.objects.get(project=project, worker=first)
    # The same project's other worker, a worker of another project holding the same files, a
    # stranger and an anonymous visitor get the page of a project that does not exist.
    elsewhere = project_with_audio(slug)
    outsider = member(elsewhere)
    client.force_login(outsider)
    client.get(f"/projects/{elsewhere.slug}/annotate/")
    theirs = Assignment.objects.get(project=elsewhere, worker=outsider)
    for user in (second, outsider, UserFactory(), None):
        client.logout()
        if user is not None:
            client.force_login(user)
        for url in urls:
            assert client.get(url).status_code == 404
            # The reference under another assignment, or another project, names nothing either.
            assert client.get(url.replace(f"/{mine.pk}/", f"/{theirs.pk}/")).status_code == 404
            assert client.get(url.replace(project.slug, elsewhere.slug)).status_code == 404
    # Two assignments of the same item name its files differently.
    client.force_login(second)
    assert set(audio_urls(client.get(f"/projects/{project.slug}/annotate/").content.decode())).isdisjoint(urls)
    assert not MediaUse.objects.filter(assignment=mine).exists(), "nobody else's request counts for the first worker"


@pytest.mark.parametrize("slug", MEDIA_SLUGS)
def test_a_marketplace_s_preview_names_no_file(slug, client):
    project = project_with_audio(slug, external_entry=True, panel="mturk")
    preview = client.get(f"/start/{project.slug}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1")
    assert preview.status_code == 200 and b'data-testid="preview"' in preview.content
    assert_nameless("the marketplace's preview", preview.content.decode())


@pytest.mark.parametrize("slug", MEDIA_SLUGS)
def test_staff_keep_the_names(slug, client):
    project = project_with_audio(slug)
    admin = UserFactory(role="admin")
    client.force_login(admin)
    listing = client.get(f"/admin/annotation/project/{project.pk}/media/").content.decode()
    assert all(name in listing for name in NAMES)
    preview = client.get(f"/projects/{project.slug}/annotate/")
    assert b'data-testid="preview"' in preview.content and not MediaUse.objects.exists()
    response = client.get(f"/projects/{project.slug}/media/{COUNTER}")
    assert response.status_code == 200 and body(response) == CLIP
    assert response["Content-Disposition"] == f'inline; filename="{COUNTER}"'
    api = APIClient()
    api.force_authenticate(admin)
    assert sorted(m["key"] for m in api.get(f"/api/projects/{project.slug}/media/").json()["results"]) == sorted(NAMES)


def test_a_reference_is_a_keyed_hash_of_assignment_and_key(settings):
    ref = media_ref(assignment_id=7, key=COUNTER)
    assert re.fullmatch(r"[0-9a-f]{20}", ref) and ref == media_ref(assignment_id=7, key=COUNTER)
    assert ref != media_ref(assignment_id=8, key=COUNTER) and ref != media_ref(assignment_id=7, key=OTHER)
    settings.SECRET_KEY = "another secret"
    assert media_ref(assignment_id=7, key=COUNTER) != ref
