"""Where audio files come in: the project's admin page, the API and the command line."""

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from annotation.models import ImportJob, MediaFile
from annotation.task_types import task_types
from annotation.uploads import MIB
from tests.factories import ProjectFactory, UserFactory
from tests.support import audio
from tests.support.audio import stored_files, zip_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
CLIPS = zip_of({"s81.mp3": audio.mp3_frames(), "s82.wav": audio.wav()},
               manifest="key,file\nspeech_81_pro.mp3,s81.mp3\nspeech_82_con.wav,s82.wav\n")


# A type whose items play audio: only such a project's page offers the upload.
AUDIO_TYPE = next(t.slug for t in task_types() if "media" in t.admin_tools())


@pytest.fixture
def project():
    return ProjectFactory(task_type=AUDIO_TYPE)


def api(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


# --- admin -----------------------------------------------------------------------------------


def test_the_project_page_links_the_upload_page_which_lists_the_files(client, project,
                                                                      django_capture_on_commit_callbacks):
    client.force_login(UserFactory(role="admin"))
    page_url = reverse("admin:annotation_project_media", args=[project.pk])
    assert page_url in client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    page = client.get(page_url)
    assert page.status_code == 200
    assert "0 audio files in this project" in page.content.decode() and "Columns of manifest.csv" in page.content.decode()

    # A zip is stored by an import job: the upload leads to the job's page.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(page_url, {"file": SimpleUploadedFile("clips.zip", CLIPS), "on_duplicate": "reject"})
    job = ImportJob.objects.get(project=project)
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:annotation_project_import_job", args=[project.pk, job.pk])
    assert job.kind == ImportJob.Kind.MEDIA and job.status == ImportJob.Status.DONE and job.stored_name == ""
    text = client.get(response["Location"]).content.decode()
    assert "Imported clips.zip: 2 new, 0 replaced audio files." in text
    text = client.get(page_url).content.decode()
    assert "2 audio files in this project" in text
    assert reverse("media", kwargs={"slug": project.slug, "key": "speech_81_pro.mp3"}) in text
    assert set(project.media_files.values_list("key", flat=True)) == {"speech_81_pro.mp3", "speech_82_con.wav"}


def test_the_upload_page_queues_a_zip_and_stores_nothing_in_the_request(client, project, media_root, monkeypatch):
    """The request only keeps the upload: no worker takes this job, and no audio file is stored."""
    from jobs import services

    sent: list[int] = []
    monkeypatch.setattr(services, "job_send", lambda *, job: sent.append(job.pk))
    client.force_login(UserFactory(role="admin"))
    with_members = zip_of({f"{n}.wav": audio.wav() for n in range(3)})
    client.post(reverse("admin:annotation_project_media", args=[project.pk]),
                {"file": SimpleUploadedFile("clips.zip", with_members), "on_duplicate": "reject"})
    job = ImportJob.objects.get(project=project)
    assert job.status == ImportJob.Status.QUEUED and job.size == len(with_members) and job.options["zip"] is True
    assert not MediaFile.objects.exists() and stored_files(media_root) == [job.stored_name]


def test_the_upload_page_lists_every_problem_and_stores_nothing(client, project, media_root,
                                                                django_capture_on_commit_callbacks):
    client.force_login(UserFactory(role="admin"))
    bad = zip_of({"s81.mp3": audio.HTML}, manifest="key,file\nspeech_81_pro.mp3,s81.mp3\nspeech_82,missing.wav\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:annotation_project_media", args=[project.pk]),
                               {"file": SimpleUploadedFile("clips.zip", bad), "on_duplicate": "reject"})
    response = client.get(response["Location"])
    text = response.content.decode()
    assert response.status_code == 200
    # "Import another file" leads back to the upload page.
    assert reverse("admin:annotation_project_media", args=[project.pk]) in text
    assert "Nothing was stored: 1 problem in the upload." in text
    assert "line 3, field 'file': no file &#x27;missing.wav&#x27; in the zip or folder" in text
    assert ImportJob.objects.get(project=project).status == ImportJob.Status.FAILED
    assert not MediaFile.objects.exists() and stored_files(media_root) == []


def test_a_utf16_manifest_is_read_in_its_encoding(client, project, django_capture_on_commit_callbacks):
    client.force_login(UserFactory(role="admin"))
    archive = zip_of({"s81.mp3": audio.mp3_frames()}, manifest="key,file\nspeech_81_pro.mp3,s81.mp3\n".encode("utf-16"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("admin:annotation_project_media", args=[project.pk]),
                    {"file": SimpleUploadedFile("clips.zip", archive), "on_duplicate": "reject"})
    assert list(project.media_files.values_list("key", flat=True)) == ["speech_81_pro.mp3"]


def test_a_single_file_with_a_key_and_replacing_it(client, project):
    client.force_login(UserFactory(role="admin"))
    url = reverse("admin:annotation_project_media", args=[project.pk])
    client.post(url, {"file": SimpleUploadedFile("take.wav", audio.wav()), "key": "speech.wav", "on_duplicate": "reject"})
    response = client.post(url, {"file": SimpleUploadedFile("take2.ogg", audio.ogg_opus()), "key": "speech.wav",
                                 "on_duplicate": "replace"}, follow=True)
    assert "0 new, 1 replaced audio files" in response.content.decode()
    assert MediaFile.objects.get(project=project, key="speech.wav").content_type == "audio/ogg"


def test_the_upload_page_needs_the_permission_to_add_items(client, project):
    client.force_login(UserFactory(role="researcher"))
    assert client.get(reverse("admin:annotation_project_media", args=[project.pk])).status_code == 403


def test_the_upload_page_reports_an_upload_over_the_limit_on_its_field(client, project, settings):
    settings.UPLOAD_MAX_BYTES = 1 * MIB
    client.force_login(UserFactory(role="admin"))
    response = client.post(reverse("admin:annotation_project_media", args=[project.pk]),
                           {"file": SimpleUploadedFile("big.wav", audio.wav(frames=700_000)), "on_duplicate": "reject"})
    assert "The file &#x27;big.wav&#x27; is larger than the 1 MB limit for uploads." in response.content.decode()
    assert not MediaFile.objects.exists()


def test_deleting_a_file_in_the_admin_deletes_its_stored_copy(client, project, media_root,
                                                              django_capture_on_commit_callbacks):
    client.force_login(UserFactory(role="admin"))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(reverse("admin:annotation_project_media", args=[project.pk]),
                    {"file": SimpleUploadedFile("clips.zip", CLIPS), "on_duplicate": "reject"})
    media = MediaFile.objects.get(key="speech_82_con.wav")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:annotation_mediafile_delete", args=[media.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not MediaFile.objects.filter(pk=media.pk).exists()
    assert [n.rsplit(".", 1)[1] for n in stored_files(media_root)] == ["mp3"]


# --- API -------------------------------------------------------------------------------------


def test_the_api_takes_a_zip_as_a_job_and_lists_the_files_for_staff(project, django_capture_on_commit_callbacks):
    url = f"/api/projects/{project.slug}/media/"
    admin = api(UserFactory(role="admin"))
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(url, {"file": SimpleUploadedFile("clips.zip", CLIPS)}, format="multipart")
    job = ImportJob.objects.get(project=project)
    assert response.status_code == 202 and response["Location"] == f"/api/imports/{job.pk}/"
    body = response.json()
    assert body["id"] == job.pk and body["kind"] == "media" and body["url"] == f"http://testserver/api/imports/{job.pk}/"
    polled = admin.get(body["url"]).json()
    assert polled["status"] == "done" and polled["result"] == {"created": 2, "replaced": 0, "skipped": 0}
    listed = api(UserFactory(role="researcher")).get(url).json()["results"]
    assert [(f["key"], f["content_type"], f["size"]) for f in listed] == [
        ("speech_81_pro.mp3", "audio/mpeg", len(audio.mp3_frames())), ("speech_82_con.wav", "audio/wav", len(audio.wav()))]
    assert listed[1]["sha256"] == MediaFile.objects.get(key="speech_82_con.wav").sha256
    assert listed[1]["url"] == f"http://testserver/projects/{project.slug}/media/speech_82_con.wav"


def test_the_api_takes_one_file_with_a_key_and_refuses_what_is_not_audio(project):
    url = f"/api/projects/{project.slug}/media/"
    client = api(UserFactory(role="admin"))
    response = client.post(url, {"file": SimpleUploadedFile("a.webm", audio.webm()), "key": "clip 1.webm"}, format="multipart")
    assert response.status_code == 201 and response.json()["created"] == 1
    response = client.post(url, {"file": SimpleUploadedFile("b.mp3", audio.PNG)}, format="multipart")
    assert response.status_code == 400
    assert response.json()["errors"] == [{"line": None, "field": None, "message": (
        "'b.mp3' is not an audio file (MP3, WAV, Ogg (Opus, Vorbis, FLAC), FLAC, MP4/M4A or WebM): it looks like a PNG image")}]
    response = client.post(url, {"file": SimpleUploadedFile("a.webm", audio.webm()), "key": "clip 1.webm"}, format="multipart")
    assert response.status_code == 400 and "already exists" in response.json()["errors"][0]["message"]
    response = client.post(url, {"file": SimpleUploadedFile("a.webm", audio.webm()), "key": "clip 1.webm",
                                 "on_duplicate": "replace"}, format="multipart")
    assert response.status_code == 201 and response.json()["replaced"] == 1
    assert project.media_files.count() == 1


def test_the_api_refuses_a_bad_manifest_row_in_its_job_by_line_and_field(project, media_root,
                                                                         django_capture_on_commit_callbacks):
    admin = api(UserFactory(role="admin"))
    bad = zip_of({"s81.mp3": audio.mp3_frames()}, manifest="key,file\nspeech_81_pro.mp3,s81.mp3\n../up.mp3,s81.mp3\n")
    with django_capture_on_commit_callbacks(execute=True):
        response = admin.post(f"/api/projects/{project.slug}/media/", {"file": SimpleUploadedFile("c.zip", bad)},
                              format="multipart")
    assert response.status_code == 202
    polled = admin.get(response.json()["url"]).json()
    assert polled["status"] == "failed" and polled["error_count"] == 1
    assert polled["errors"][0]["line"] == 3 and polled["errors"][0]["field"] == "key"
    assert not MediaFile.objects.exists() and stored_files(media_root) == []
    # Options at fault are refused at once, before anything is stored.
    response = admin.post(f"/api/projects/{project.slug}/media/", {"file": SimpleUploadedFile("c.zip", CLIPS),
                                                                  "key": "k.wav"}, format="multipart")
    assert response.status_code == 400 and response.json()["errors"][0]["field"] == "key"
    assert ImportJob.objects.count() == 1


def test_the_api_needs_permissions(project):
    url = f"/api/projects/{project.slug}/media/"
    annotator = api(UserFactory())
    assert annotator.get(url).status_code == 403
    assert annotator.post(url, {"file": SimpleUploadedFile("a.wav", audio.wav())}, format="multipart").status_code == 403
    researcher = api(UserFactory(role="researcher"))
    assert researcher.post(url, {"file": SimpleUploadedFile("a.wav", audio.wav())}, format="multipart").status_code == 403
    assert APIClient().get(url).status_code in (401, 403)
    assert not MediaFile.objects.exists()


def test_the_api_refuses_an_upload_over_the_limit_naming_the_field(project, settings):
    settings.UPLOAD_MAX_BYTES = 1 * MIB
    response = api(UserFactory(role="admin")).post(
        f"/api/projects/{project.slug}/media/", {"file": SimpleUploadedFile("big.wav", audio.wav(frames=700_000))},
        format="multipart")
    assert response.status_code == 400
    assert response.json() == {"file": "The file 'big.wav' is larger than the 1 MB limit for uploads."}


# --- command line ----------------------------------------------------------------------------


def run(*args) -> str:
    out = io.StringIO()
    call_command("import_media", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_command_imports_a_folder_or_a_zip_and_replaces_when_asked(project, tmp_path):
    folder = tmp_path / "clips"
    folder.mkdir()
    (folder / "81.mp3").write_bytes(audio.mp3_frames())
    (folder / "notes.txt").write_text("recorded 2019")
    assert run(project.slug, str(folder)) == f"{folder}: 1 new, 0 replaced audio files, 1 other files left out\n"
    archive = tmp_path / "clips.zip"
    archive.write_bytes(zip_of({"81.mp3": audio.wav(), "82.flac": audio.flac()}))
    with pytest.raises(CommandError, match="nothing was stored from .*clips.zip:\nfile: '81.mp3' already exists"):
        run(project.slug, str(archive))
    assert run(project.slug, str(archive), "--replace") == f"{archive}: 1 new, 1 replaced audio files\n"
    assert dict(project.media_files.values_list("key", "content_type")) == {"81.mp3": "audio/wav", "82.flac": "audio/flac"}
    with pytest.raises(CommandError, match="no such folder or file"):
        run(project.slug, str(tmp_path / "nothing"))
    with pytest.raises(CommandError, match="no project with slug 'nope'"):
        run("nope", str(folder))
