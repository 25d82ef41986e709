"""Imports of uploaded files, inline when small and as background jobs otherwise.

A web request never imports a large file itself: it stores the upload, queues an ImportJob and
returns; the job (``jobs.services.job_execute``) parses and checks every row, then writes
everything in one transaction that also records the job's outcome, so the import and its "done"
commit together or not at all. Errors name line (or record) and field, as inline imports do.
A task type's own files (``TaskType.files_imports``, e.g. the key-point corpus) are always imported
by a job, whatever their size, kept together in one stored zip until the job has read them.
"""

from __future__ import annotations

import io
import tempfile
import uuid
import zipfile
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import IO, Any, cast

from django.conf import settings
from django.contrib.auth.models import User
from django.core.files import File
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils import timezone

from annotation.importers import (
    GZIP_MAGIC,
    ImportFailed,
    ParsedItem,
    RowError,
    detect_format,
    parse_items,
)
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
from annotation.services.media.jobs import MediaAttempt, media_job_work
from annotation.task_types import get_task_type
from annotation.task_types.base import FilesImport
from annotation.value_checks import scrubbed
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
from runtime.unavailable import ServiceUnavailable

# The Celery task that runs an import job (annotation.tasks.run_import).
IMPORT_TASK = ImportJob.task_name
Kind = ImportJob.Kind
Progress = Callable[[float, str], None]


@dataclass(frozen=True)
class ParsedFiles:
    """A task type's files read into items, and the word their errors use for a row's place."""

    items: list[ParsedItem]
    unit: str
    keep_existing: bool = False


# A file's checked rows: items, crowd results, or the items of a task type's own files.
Parsed = list[ParsedItem] | list[CrowdRow] | ParsedFiles


@dataclass(frozen=True)
class ImportOutcome:
    """What an import request led to: the result of an inline import, or the queued job."""

    result: dict[str, Any] | None = None
    job: ImportJob | None = None


def _gzipped(upload: UploadedFile) -> bool:
    """Whether the upload is gzip: a small one may unpack to far more than the inline limit, so
    it is always imported by a job."""
    upload.seek(0)
    head = upload.read(len(GZIP_MAGIC))
    upload.seek(0)
    return head == GZIP_MAGIC


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
    if kind == Kind.FILES:
        on_duplicate = options.get("on_duplicate", "reject")
        if on_duplicate not in ("reject", "update"):
            raise ImportFailed([RowError(None, "on_duplicate", "must be 'reject' or 'update'")])
        return {**options, "on_duplicate": on_duplicate}
    raise ImportFailed([RowError(None, "kind", f"unknown import kind {kind!r}; known: {', '.join(Kind.values)}")])


def _parse(project: Project, kind: str, data: bytes | IO[bytes], filename: str, options: Mapping[str, Any], *,
           progress: Progress | None = None) -> Parsed:
    """Parse and check every row of one file (progress 2–60%); raises ImportFailed."""
    def parsing(fraction: float, stage: str) -> None:
        if progress:
            progress(0.02 + 0.58 * fraction, stage)

    task = get_task_type(project.task_type)
    if kind == Kind.FILES:
        return _parse_files(project, io.BytesIO(data) if isinstance(data, bytes) else data, options, progress=progress)
    fmt = detect_format(filename, options.get("format"))
    if kind == Kind.ITEMS:
        return parse_items(data, fmt=fmt, task_type=task, progress=parsing)
    return parse_crowd_rows(data=data, filename=filename, task_type=task, fmt=fmt,
                            columns=parse_column_spec(spec=options["columns"]),
                            label_map=parse_column_spec(spec=options["label_map"]), progress=parsing)


def _write(project: Project, kind: str, parsed: Parsed, filename: str, options: Mapping[str, Any], *,
           progress: Progress | None = None, actor: User | None = None) -> dict[str, Any]:
    """Write the parsed rows, all or nothing (progress 60–100%); the result as a dict."""
    def writing(fraction: float, stage: str) -> None:
        if progress:
            progress(0.6 + 0.39 * fraction, stage)

    result: ImportResult | CrowdImportResult
    if isinstance(parsed, ParsedFiles):
        if not parsed.keep_existing:
            return _as_dict(items_import(project=project, parsed=parsed.items, on_duplicate=options["on_duplicate"],
                                       unit=parsed.unit, progress=writing, actor=actor, source=filename))
        # Read inside the write's transaction: an item added meanwhile is kept, not refused.
        have = set(project.items.filter(external_id__in=[p.item.external_id for p in parsed.items])
                   .values_list("external_id", flat=True))
        fresh = [p for p in parsed.items if p.item.external_id not in have]
        done = (items_import(project=project, parsed=fresh, unit=parsed.unit, progress=writing, actor=actor,
                             source=filename) if fresh
                else ImportResult(created=0, updated=0, unchanged=0))
        return {**_as_dict(done), "existing": len(parsed.items) - len(fresh)}
    fmt = detect_format(filename, options.get("format"))
    if kind == Kind.ITEMS:
        result = items_import(project=project, parsed=cast(list[ParsedItem], parsed),
                              on_duplicate=options["on_duplicate"], unit="record" if fmt == "json" else "line",
                              progress=writing, actor=actor, source=filename)
    else:
        result = crowd_rows_import(project=project, rows=cast(list[CrowdRow], parsed), filename=filename,
                                   fmt=fmt, source=options["source"], progress=writing, actor=actor)
    return _as_dict(result)


def _as_dict(result: ImportResult | CrowdImportResult) -> dict[str, Any]:
    """The result's counts, with its warnings only when there are some."""
    counts = asdict(result)
    if not counts.get("warnings"):
        counts.pop("warnings", None)
    return counts


def import_upload(*, project: Project, kind: str, upload: UploadedFile, options: Mapping[str, Any],
                  user=None) -> ImportOutcome:
    """Import an uploaded file: at once when it is small (IMPORT_INLINE_MAX_BYTES), else as a job.
    Raises ImportFailed for a refused inline import or bad options."""
    if kind == Kind.FILES:
        raise ImportFailed([RowError(None, "kind", "a task type's own files are imported by files_import_upload")])
    if kind == Kind.MEDIA:
        raise ImportFailed([RowError(None, "kind", "audio files are imported by media_upload_import")])
    options = _clean_options(kind, options)
    detect_format(upload.name or "", options.get("format"))  # refuse an unknown format at once
    # Django's upload handlers always give an upload its size.
    size = cast(int, upload.size)
    if size <= settings.IMPORT_INLINE_MAX_BYTES and not _gzipped(upload):
        parsed = _parse(project, kind, upload, upload.name or "", options)
        return ImportOutcome(result=_write(project, kind, parsed, upload.name or "", options,
                                           actor=user if user is not None and user.is_authenticated else None))
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


def _files_spec(project: Project, name: str) -> FilesImport:
    task = get_task_type(project.task_type)
    spec = task.files_imports().get(name)
    if spec is None:
        known = ", ".join(task.files_imports()) or "none"
        raise ImportFailed([RowError(None, "project", f"a {task.name} project has no import {name!r} of its own "
                                                      f"files (known: {known})")])
    return spec


def files_import_upload(*, project: Project, name: str, files: Mapping[str, UploadedFile],
                        options: Mapping[str, Any], label: str = "", user=None) -> ImportJob:
    """Queue the import ``name`` of a task type's own files (``TaskType.files_imports``) as a job,
    whatever their size: they are kept together in one stored zip until the job has read them.
    With no files, ``options`` tell the type where else to read (e.g. a subset of the shared
    data) and ``label`` names that source on the job's page. Raises ImportFailed for a type
    without such an import, an unknown file or bad options."""
    spec = _files_spec(project, name)
    unknown = sorted(set(files) - set(spec.files))
    if unknown:
        raise ImportFailed([RowError(None, unknown[0], f"unknown file; this import takes {', '.join(spec.files)}")])
    # The names are the client's: kept as text the database stores alike (no NUL).
    options = {**_clean_options(Kind.FILES, options), "import": name,
               "files": {key: scrubbed(upload.name or key) for key, upload in files.items()}}
    size = sum(cast(int, upload.size) for upload in files.values())
    stored = ""
    if files:
        # A spooled file: small uploads stay in memory, large ones go to a temporary file.
        with tempfile.SpooledTemporaryFile(max_size=settings.FILE_UPLOAD_MAX_MEMORY_SIZE) as bundle:
            with zipfile.ZipFile(bundle, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
                for key, upload in files.items():
                    with archive.open(key, "w", force_zip64=True) as member:
                        for chunk in upload.chunks():
                            member.write(chunk)
            bundle.seek(0)
            stored = default_storage.save(f"imports/{uuid.uuid4().hex}.zip", File(bundle))
    filename = ", ".join(name for name in options["files"].values()) or label or "files"
    try:
        with transaction.atomic():
            job = ImportJob.objects.create(
                project=project, kind=Kind.FILES, filename=filename[:255], size=size, stored_name=stored,
                options=options, created_by=user if user is not None and user.is_authenticated else None,
            )
            job_enqueue(job=job, send=_send)
    except ServiceUnavailable:
        # The job was stored (and failed, the queue being away): it keeps its files, so that it
        # can be restarted.
        raise
    except Exception:
        if stored:
            default_storage.delete(stored)
        raise
    return job


def _parse_files(project: Project, stored: IO[bytes] | None, options: Mapping[str, Any], *,
                 progress: Progress | None = None) -> ParsedFiles:
    """The items of a task type's own files, kept in one zip (``files_import_upload``); progress
    2–60%, as other imports parse."""
    spec = _files_spec(project, options.get("import", ""))
    if progress:
        progress(0.02, "reading and checking the files")
    with ExitStack() as stack:
        members: dict[str, IO[bytes]] = {}
        if stored is not None:
            archive = stack.enter_context(zipfile.ZipFile(stored))
            members = {key: stack.enter_context(archive.open(key)) for key in options.get("files", {})}
        items, unit = spec.read(files=members, options=options)
    if progress:
        progress(0.6, f"{len(items):,} items checked")
    return ParsedFiles(items=items, unit=unit, keep_existing=spec.keep_existing)


def import_job_execute(*, job_id: int) -> ImportJob | None:
    """Run a queued import job; returns None if it was finished already. Raises JobBusy when a
    live worker runs it, TransientFault after putting it back in the queue (its upload kept)."""
    # The audio files a media job's attempt copies to the storage: gone unless recorded.
    kept = MediaAttempt()

    def cleanup(job: ImportJob) -> None:
        kept.discard_unrecorded(job=job)
        job_upload_forget(job=job)

    return job_execute(model=ImportJob, pk=job_id, work=lambda job, attempt: _import_stored(job, attempt, kept),
                       failure="Nothing was imported: ", cleanup=cleanup)


def _import_stored(job: ImportJob, attempt: Attempt, kept: MediaAttempt) -> JobOutcome:
    """Parse the stored upload now and write its rows with the job's outcome."""
    if job.kind == Kind.MEDIA:
        return media_job_work(job=job, attempt=attempt, kept=kept)
    attempt.progress(0.01, "reading the file")
    try:
        # The stored file is read as a stream: a gzip file unpacks chunk by chunk, up to its cap.
        if job.kind == Kind.FILES and not job.options.get("files"):
            parsed: Parsed = _parse_files(job.project, None, job.options, progress=attempt.progress)
        else:
            with default_storage.open(job.stored_name, "rb") as stored:
                parsed = _parse(job.project, job.kind, stored, job.filename, job.options, progress=attempt.progress)
    except ImportFailed as exc:
        raise _refused(exc) from exc

    def write() -> dict[str, Any]:
        try:
            return {"result": _write(job.project, job.kind, parsed, job.filename, job.options,
                                     progress=attempt.progress, actor=job.created_by)}
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
    from_upload = job.kind != Kind.FILES or bool(job.options.get("files"))
    if from_upload and (not job.stored_name or not default_storage.exists(job.stored_name)):
        raise ValueError("the uploaded file of this import is gone; upload it again")
    return job_restart(job=job, send=_send)
