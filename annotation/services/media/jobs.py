"""Uploads of audio files as import jobs: a zip, whatever its size, and a single file larger than
``IMPORT_INLINE_MAX_BYTES`` (the rule item imports follow) are stored as uploaded, and an
ImportJob of kind ``media`` reads them in a worker (``jobs.services.job_execute``, the lifecycle
every job shares). A web request then copies no audio to the storage itself: on S3 that copy may
take longer than the web server waits.

All or nothing, as ``annotation.services.media.files`` imports: every file is checked before any is
stored; the files are copied to the storage outside the database's transaction, then recorded in
the transaction that records the job's outcome. An attempt that fails, is cancelled or is given
up deletes the copies it made; only files whose rows committed stay.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from typing import IO, cast

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from annotation.importers import ImportFailed, RowError
from annotation.media.sources import MediaBatch, zip_batch
from annotation.models import ImportJob, MediaFile, Project
from annotation.services.media.files import (
    ON_DUPLICATE,
    MediaImportResult,
    media_batch_record,
    media_batch_store,
    media_import_upload,
    media_stored_discard,
    single_file_batch,
    upload_is_zip,
)
from annotation.value_checks import scrubbed
from jobs.live import Attempt
from jobs.services import JobFailed, JobOutcome, job_enqueue
from runtime.unavailable import ServiceUnavailable

# Stored names looked up per query when an attempt tidies up.
_CHUNK = 500


@dataclass(frozen=True)
class MediaUploadOutcome:
    """What an upload led to: the counts of a small file stored at once, or the queued job."""

    result: MediaImportResult | None = None
    job: ImportJob | None = None


def media_upload_import(*, project: Project, upload: UploadedFile, key: str | None = None,
                        on_duplicate: str = "reject", user=None) -> MediaUploadOutcome:
    """Import an uploaded zip of audio files or a single audio file (told apart by content): a
    single file up to ``IMPORT_INLINE_MAX_BYTES`` at once, anything else by a queued job. Raises
    ImportFailed for bad options (or a refused inline import) before anything is stored."""
    if on_duplicate not in ON_DUPLICATE:
        raise ImportFailed([RowError(None, "on_duplicate", "must be 'reject' or 'replace'")])
    name = upload.name or "upload"
    is_zip = upload_is_zip(upload=upload)
    if is_zip and key:
        raise ImportFailed([RowError(None, "key", "is for a single audio file; a zip names its files in manifest.csv")])
    # Django's upload handlers always give an upload its size.
    size = cast(int, upload.size)
    if not is_zip:
        # The key is checked now, so that a bad one is refused before anything is stored.
        single_file_batch(data=upload, name=name, size=size, key=key)
        if size <= settings.IMPORT_INLINE_MAX_BYTES:
            return MediaUploadOutcome(result=media_import_upload(
                project=project, upload=upload, key=key, on_duplicate=on_duplicate,
                actor=user if user is not None and user.is_authenticated else None))
    stored = default_storage.save(f"imports/{uuid.uuid4().hex}", upload)
    options = {"on_duplicate": on_duplicate, "key": key or "", "zip": is_zip}
    try:
        with transaction.atomic():
            job = ImportJob.objects.create(
                project=project, kind=ImportJob.Kind.MEDIA, filename=scrubbed(name)[:255], size=size,
                stored_name=stored, options=options,
                created_by=user if user is not None and user.is_authenticated else None,
            )
            job_enqueue(job=job)
    except ServiceUnavailable:
        # The job was stored (and failed, the queue being away): it keeps its upload, so that it
        # can be restarted.
        raise
    except Exception:
        default_storage.delete(stored)
        raise
    return MediaUploadOutcome(job=job)


class MediaAttempt:
    """The copies one attempt at a media job made in the storage, to delete unless recorded."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def discard(self) -> None:
        """Delete every copy (the attempt's records were not, or will not be, committed)."""
        media_stored_discard(names=self.names)
        self.names = []

    def discard_unrecorded(self, *, job: ImportJob) -> None:
        """Delete the copies no committed row names (an attempt given up as it finished)."""
        recorded: set[str] = set()
        for start in range(0, len(self.names), _CHUNK):
            chunk = self.names[start:start + _CHUNK]
            recorded.update(MediaFile.objects.filter(project_id=job.project_id, file__in=chunk)
                            .values_list("file", flat=True))
        media_stored_discard(names=[n for n in self.names if n not in recorded])
        self.names = []


def _batch(job: ImportJob, upload: IO[bytes]) -> MediaBatch:
    if job.options.get("zip"):
        return zip_batch(upload, name=job.filename)
    return single_file_batch(data=upload, name=job.filename, size=job.size, key=job.options.get("key") or None)


def _refused(exc: ImportFailed) -> JobFailed:
    return JobFailed(f"Nothing was stored: {exc.total} problem{'s' if exc.total != 1 else ''} in the upload.",
                     errors=[e.as_dict() for e in exc.errors], error_count=exc.total)


@contextmanager
def _discarded_on_failure(kept: MediaAttempt) -> Iterator[None]:
    """The attempt's stored copies are deleted when what runs inside fails; a refusal becomes the
    job's failure with its row and field."""
    try:
        yield
    except ImportFailed as exc:
        kept.discard()
        raise _refused(exc) from exc
    except BaseException:
        kept.discard()
        raise


def media_job_work(*, job: ImportJob, attempt: Attempt, kept: MediaAttempt) -> JobOutcome:
    """One attempt at a media job: check every file, copy each to the storage (progress 2–95%,
    which also stops a cancelled job), and record them with the job's outcome."""
    on_duplicate = job.options.get("on_duplicate", "reject")
    attempt.progress(0.01, "reading the upload")
    with _discarded_on_failure(kept), default_storage.open(job.stored_name, "rb") as upload:
        batch = _batch(job, upload)
        attempt.progress(0.02, "checking the files")

        def stored(done: int, total: int) -> None:
            attempt.progress(0.02 + 0.93 * done / total, f"{done:,} of {total:,} files stored")

        files = media_batch_store(project=job.project, batch=batch, on_duplicate=on_duplicate,
                                  stored=kept.names, progress=stored)

    def write() -> dict[str, object]:
        with _discarded_on_failure(kept):
            result = media_batch_record(project=job.project, files=files, on_duplicate=on_duplicate,
                                        skipped=batch.skipped, actor=job.created_by, source=job.filename)
        return {"result": asdict(result)}

    return JobOutcome(write=write)
