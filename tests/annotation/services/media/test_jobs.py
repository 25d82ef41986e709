"""Audio uploads run as import jobs: a zip whatever its size, a single file past
IMPORT_INLINE_MAX_BYTES; the job stores every file or none, and an attempt that goes no further
deletes the copies it made."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.importers import ImportFailed
from annotation.models import ImportJob, MediaFile
from annotation.services.imports import import_job_execute
from annotation.services.media import jobs as media_jobs
from annotation.services.media.jobs import media_upload_import
from tests.factories import ProjectFactory
from tests.support import audio
from tests.support.audio import stored_files, zip_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
CLIPS = zip_of({"a.wav": audio.wav(), "b.mp3": audio.mp3_frames()}, manifest="key,file\nclip_a.wav,a.wav\nclip_b.mp3,b.mp3\n")


@pytest.fixture
def project():
    return ProjectFactory()


@pytest.fixture
def queued(monkeypatch):
    """Jobs are queued but sent to no worker: the test runs them."""
    from jobs import services

    monkeypatch.setattr(services, "job_send", lambda *, job: None)


def upload(project, data: bytes, name: str = "clips.zip", **options) -> media_jobs.MediaUploadOutcome:
    return media_upload_import(project=project, upload=SimpleUploadedFile(name, data), **options)


def test_a_zip_is_a_job_that_stores_its_files_and_forgets_the_upload(project, media_root, queued):
    outcome = upload(project, CLIPS)
    assert outcome.result is None and outcome.job is not None
    assert not MediaFile.objects.exists() and stored_files(media_root) == [outcome.job.stored_name]
    job = import_job_execute(job_id=outcome.job.pk)
    assert job is not None and job.status == ImportJob.Status.DONE
    assert job.result == {"created": 2, "replaced": 0, "skipped": 0} and job.stored_name == ""
    assert sorted(MediaFile.objects.values_list("key", flat=True)) == ["clip_a.wav", "clip_b.mp3"]
    assert sorted(stored_files(media_root)) == sorted(m.file.name for m in MediaFile.objects.all())


def test_a_single_file_is_stored_at_once_up_to_the_inline_limit_and_by_a_job_past_it(project, settings, queued):
    settings.IMPORT_INLINE_MAX_BYTES = len(audio.wav())
    outcome = upload(project, audio.wav(), "a.wav")
    assert outcome.job is None and outcome.result is not None and outcome.result.created == 1
    outcome = upload(project, audio.wav(frames=400), "b.wav", key="speech b.wav")
    assert outcome.job is not None and outcome.job.options == {"on_duplicate": "reject", "key": "speech b.wav", "zip": False}
    assert import_job_execute(job_id=outcome.job.pk).status == ImportJob.Status.DONE
    assert sorted(MediaFile.objects.values_list("key", flat=True)) == ["a.wav", "speech b.wav"]


def test_bad_options_are_refused_before_anything_is_stored(project, media_root, queued):
    with pytest.raises(ImportFailed, match="field 'key'"):
        upload(project, CLIPS, key="k.wav")
    with pytest.raises(ImportFailed, match="field 'on_duplicate'"):
        upload(project, CLIPS, on_duplicate="merge")
    with pytest.raises(ImportFailed, match="field 'key'"):
        upload(project, audio.wav(frames=100_000), "big.wav", key="../up.wav")
    assert not ImportJob.objects.exists() and stored_files(media_root) == []


def test_a_key_taken_while_the_files_were_copied_fails_the_job_and_deletes_the_copies(project, media_root, queued,
                                                                                      monkeypatch):
    outcome = upload(project, CLIPS)
    store = media_jobs.media_batch_store

    def store_then_clash(**kwargs):
        files = store(**kwargs)
        MediaFile.objects.create(project=project, key="clip_b.mp3", file="elsewhere.mp3", content_type="audio/mpeg",
                                 size=1, sha256="0" * 64)
        return files

    monkeypatch.setattr(media_jobs, "media_batch_store", store_then_clash)
    job = import_job_execute(job_id=outcome.job.pk)
    assert job.status == ImportJob.Status.FAILED and job.error == "Nothing was stored: 1 problem in the upload."
    assert job.errors == [{"line": 3, "field": "key", "message": (
        "'clip_b.mp3' already exists in this project (choose 'replace' to replace it)")}]
    assert list(MediaFile.objects.values_list("key", flat=True)) == ["clip_b.mp3"]
    assert stored_files(media_root) == []


def test_an_attempt_given_up_as_it_finished_leaves_no_rows_and_no_copies(project, media_root, queued, monkeypatch):
    from jobs import services

    outcome = upload(project, CLIPS)
    # Reaped or cancelled meanwhile: its outcome, and the rows written with it, roll back.
    monkeypatch.setattr(services, "job_finish", lambda **kwargs: False)
    import_job_execute(job_id=outcome.job.pk)
    assert not MediaFile.objects.exists()
    assert stored_files(media_root) == []
