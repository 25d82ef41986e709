"""Imports of uploaded files, inline when small and as background jobs otherwise.

A web request never imports a large file itself: it stores the upload, queues an ImportJob and
returns; the job (``jobs.services.job_execute``) parses and checks every row, then writes
everything in one transaction that also records the job's outcome, so the import and its "done"
commit together or not at all. Errors name line (or record) and field, as inline imports do.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import IO, Any, cast

from django.conf import settings
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from annotation.importers import ImportFailed, ParsedItem, RowError, detect_format, parse_items
from annotation.models import ImportJob, Project
from annotation.services import items_import
from annotation.services.crowd_results import (
    CrowdImportResult,
    CrowdRow,
    crowd_rows_import,
    parse_column_spec,
    parse_crowd_rows,
)
from annotation.services.items import ImportResult
from annotation.task_types import get_task_type
from config.unavailable import ServiceUnavailable
from jobs.live import Attempt
from jobs.services import (
    JobFailed,
    JobOutcome,
    job_cancel,
    job_enqueue,
    job_execute,
    job_restart,
    job_upload_forget,
)
from jobs.tasks import task_send

# The Celery task that runs an import job (annotation.tasks.run_import).
IMPORT_TASK = ImportJob.task_name
Kind = ImportJob.Kind
Progress = Callable[[float, str], None]
# A file's checked rows: items, or crowd results.
Parsed = list[ParsedItem] | list[CrowdRow]


@dataclass(frozen=True)
class ImportOutcome:
    """What an import request led to: the result of an inline import, or the queued job."""

    result: dict[str, Any] | None = None
    job: ImportJob | None = None


def _send(job_id: int) -> None:
    task_send(IMPORT_TASK, job_id)


def _clean_options(kind: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Check the options before anything is stored, with the errors an import would give."""
    options = {k: v for k, v in options.items() if v not in (None, "")}
    if kind == Kind.ITEMS:
        on_duplicate = options.get("on_duplicate", "reject")
        if on_duplicate not in ("reject", "update"):
            raise ImportFailed([RowError(None, "on_duplicate", "must be 'reject' or 'update'")])
        return {"format": options.get("format"), "on_duplicate": on_duplicate}
    if kind == Kind.CROWD:
        # Parsed now so that a bad spec is refused at once; stored as given.
        parse_column_spec(spec=options.get("columns", ""))
        parse_column_spec(spec=options.get("label_map", ""))
        return {"format": options.get("format"), "columns": options.get("columns", ""),
                "label_map": options.get("label_map", ""), "source": (options.get("source") or "mturk").strip()}
    raise ImportFailed([RowError(None, "kind", f"unknown import kind {kind!r}; known: {', '.join(Kind.values)}")])


def _parse(project: Project, kind: str, data: bytes | IO[bytes], filename: str, options: Mapping[str, Any], *,
           progress: Progress | None = None) -> Parsed:
    """Parse and check every row of one file (progress 2–60%); raises ImportFailed."""
    def parsing(fraction: float, stage: str) -> None:
        if progress:
            progress(0.02 + 0.58 * fraction, stage)

    fmt = detect_format(filename, options.get("format"))
    task = get_task_type(project.task_type)
    if kind == Kind.ITEMS:
        return parse_items(data, fmt=fmt, task_type=task, progress=parsing)
    return parse_crowd_rows(data=data, filename=filename, task_type=task, fmt=fmt,
                            columns=parse_column_spec(spec=options["columns"]),
                            label_map=parse_column_spec(spec=options["label_map"]), progress=parsing)


def _write(project: Project, kind: str, parsed: Parsed, filename: str, options: Mapping[str, Any], *,
           progress: Progress | None = None) -> dict[str, Any]:
    """Write the parsed rows, all or nothing (progress 60–100%); the result as a dict."""
    def writing(fraction: float, stage: str) -> None:
        if progress:
            progress(0.6 + 0.39 * fraction, stage)

    fmt = detect_format(filename, options.get("format"))
    result: ImportResult | CrowdImportResult
    if kind == Kind.ITEMS:
        result = items_import(project=project, parsed=cast(list[ParsedItem], parsed),
                              on_duplicate=options["on_duplicate"], unit="record" if fmt == "json" else "line",
                              progress=writing)
    else:
        result = crowd_rows_import(project=project, rows=cast(list[CrowdRow], parsed), filename=filename,
                                   fmt=fmt, source=options["source"], progress=writing)
    return asdict(result)


def import_upload(*, project: Project, kind: str, upload: UploadedFile, options: Mapping[str, Any],
                  user=None) -> ImportOutcome:
    """Import an uploaded file: at once when it is small (IMPORT_INLINE_MAX_BYTES), else as a job.
    Raises ImportFailed for a refused inline import or bad options."""
    options = _clean_options(kind, options)
    detect_format(upload.name or "", options.get("format"))  # refuse an unknown format at once
    # Django's upload handlers always give an upload its size.
    size = cast(int, upload.size)
    if size <= settings.IMPORT_INLINE_MAX_BYTES:
        parsed = _parse(project, kind, upload, upload.name or "", options)
        return ImportOutcome(result=_write(project, kind, parsed, upload.name or "", options))
    stored = default_storage.save(f"imports/{uuid.uuid4().hex}", upload)
    try:
        with transaction.atomic():
            job = ImportJob.objects.create(
                project=project, kind=kind, filename=(upload.name or "upload")[:255], size=size,
                stored_name=stored, options=options,
                created_by=user if user is not None and user.is_authenticated else None,
            )
            job_enqueue(job=job, send=_send)
    except ServiceUnavailable:
        # The job was stored (and failed, the queue being away): it keeps its upload, so that
        # it can be restarted.
        raise
    except Exception:
        default_storage.delete(stored)
        raise
    return ImportOutcome(job=job)


def import_job_execute(*, job_id: int) -> ImportJob | None:
    """Run a queued import job; returns None if it was finished already. Raises JobBusy when a
    live worker runs it, TransientFault after putting it back in the queue (its upload kept)."""
    return job_execute(model=ImportJob, pk=job_id, work=_import_stored, failure="Nothing was imported: ",
                       cleanup=lambda job: job_upload_forget(job=job))


def _import_stored(job: ImportJob, attempt: Attempt) -> JobOutcome:
    """Parse the stored upload now and write its rows with the job's outcome."""
    attempt.progress(0.01, "reading the file")
    try:
        # The stored file is read as a stream: a gzip file unpacks chunk by chunk, up to its cap.
        with default_storage.open(job.stored_name, "rb") as stored:
            parsed = _parse(job.project, job.kind, stored, job.filename, job.options, progress=attempt.progress)
    except ImportFailed as exc:
        raise _refused(exc) from exc

    def write() -> dict[str, Any]:
        try:
            return {"result": _write(job.project, job.kind, parsed, job.filename, job.options,
                                     progress=attempt.progress)}
        except ImportFailed as exc:
            raise _refused(exc) from exc

    return JobOutcome(write=write)


def _refused(exc: ImportFailed) -> JobFailed:
    return JobFailed(f"Nothing was imported: {exc.total} problem{'s' if exc.total != 1 else ''} in the file.",
                     errors=[e.as_dict() for e in exc.errors], error_count=exc.total)


def import_job_cancel(*, job: ImportJob, user=None) -> ImportJob:
    job = job_cancel(job=job, by=user.get_username() if user is not None and user.is_authenticated else "")
    if job.started_at is None:
        # Never started: no worker will come to delete the upload.
        job_upload_forget(job=job)
    return job


def import_uploads_tidy(*, older_than: timedelta = timedelta(days=1)) -> int:
    """Delete the stored uploads of imports that ended (failed, or lost their worker) long ago;
    until then a job whose worker died can be restarted on the same file."""
    stale = ImportJob.objects.filter(status__in=ImportJob.FINISHED, finished_at__lt=timezone.now() - older_than)
    jobs = list(stale.exclude(stored_name=""))
    for job in jobs:
        job_upload_forget(job=job)
    return len(jobs)


def import_job_restart(*, job: ImportJob) -> ImportJob:
    """Queue a failed or cancelled import again; only possible while its upload is still stored."""
    if not job.stored_name or not default_storage.exists(job.stored_name):
        raise ValueError("the uploaded file of this import is gone; upload it again")
    return job_restart(job=job, send=_send)
