"""Writes of a project's audio files: importing them, all or nothing, and deleting them.

Files are checked first (``annotation.media.sources``: paths, sizes, content), then copied to the
default storage under generated names, and only then recorded, in one short transaction: the
database's write lock is not held while megabytes are copied. When anything fails after files
were stored, they are deleted again, so a refused import leaves neither rows nor files. A
replaced file's old copy is deleted only once the replacement has committed.
"""

from __future__ import annotations

import hashlib
import io
import logging
from collections.abc import Callable, Iterable, Sequence
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, cast

from django.contrib.auth.models import User
from django.core.files import File
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from annotation.importers import MAX_REPORTED_ERRORS, ImportFailed, RowError
from annotation.media.durations import audio_duration
from annotation.media.sources import (
    ZIP_READ_ERRORS,
    BinaryReader,
    CheckedEntry,
    MediaBatch,
    MediaEntry,
    batch_check,
    folder_batch,
    key_problem,
    max_file_bytes,
    zip_batch,
)
from annotation.models import MediaFile, Project
from annotation.models.media import media_storage_name
from annotation.selectors.media import media_items_using
from annotation.services.audit import import_record
from annotation.uploads import limit_text

logger = logging.getLogger(__name__)
ON_DUPLICATE = ("reject", "replace")
ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
# Keys looked up per query.
LOOKUP_CHUNK = 5000


@dataclass(frozen=True)
class MediaImportResult:
    created: int
    replaced: int
    # Files of a zip or folder without a manifest that were not named as audio.
    skipped: int = 0


def media_import(*, project: Project, batch: MediaBatch, on_duplicate: str = "reject", actor: User | None = None,
                 source: str = "") -> MediaImportResult:
    """Store and record the files of ``batch``, all or nothing. ``on_duplicate``: ``reject``
    refuses the import if a key already exists in the project; ``replace`` gives such keys the
    new file. Raises ImportFailed naming the manifest line and field, or the file."""
    stored: list[str] = []
    try:
        files = media_batch_store(project=project, batch=batch, on_duplicate=on_duplicate, stored=stored)
        return media_batch_record(project=project, files=files, on_duplicate=on_duplicate, skipped=batch.skipped,
                                  actor=actor, source=source)
    except BaseException:
        media_stored_discard(names=stored)
        raise


@dataclass(frozen=True)
class StoredMedia:
    """A checked file copied to the storage, not yet recorded."""

    item: CheckedEntry
    name: str
    size: int
    sha256: str
    duration: float | None


def media_batch_store(*, project: Project, batch: MediaBatch, on_duplicate: str, stored: list[str],
                      progress: Callable[[int, int], None] | None = None) -> list[StoredMedia]:
    """The first half of an import: check every file of ``batch``, then copy each to the
    storage under a generated name, which is added to ``stored`` as soon as it exists (the
    caller deletes those if the import goes no further). ``progress(done, total)`` is told after
    each file. Raises ImportFailed naming the manifest line and field, or the file."""
    if on_duplicate not in ON_DUPLICATE:
        raise ImportFailed([RowError(None, "on_duplicate", "must be 'reject' or 'replace'")])
    checked = batch_check(batch)
    if on_duplicate == "reject":
        # Checked before copying anything, and again under the lock when they are recorded.
        _refuse_existing(project, checked)
    files = []
    for done, item in enumerate(checked, start=1):
        files.append(StoredMedia(item, *_store(project, item, stored)))
        if progress is not None:
            progress(done, len(checked))
    return files


def media_batch_record(*, project: Project, files: Sequence[StoredMedia], on_duplicate: str,
                       skipped: int = 0, actor: User | None = None, source: str = "") -> MediaImportResult:
    """The second half: record the stored files in one short transaction (the database's write
    lock is not held while they are copied). A replaced file's old copy is deleted once this has
    committed. Raises ImportFailed when a key appeared meanwhile and ``on_duplicate`` is reject.
    The import goes to the audit log in the same transaction."""
    with transaction.atomic():
        # Lock the project row: the rows of two imports into one project are written one
        # after the other, and the second sees the keys the first wrote.
        Project.objects.select_for_update().filter(pk=project.pk).first()
        existing = _existing(project, [f.item.entry.key for f in files])
        if existing and on_duplicate == "reject":
            _refuse_existing(project, [f.item for f in files])
        new, replaced, old_names = [], [], []
        for f in files:
            row = existing.get(f.item.entry.key)
            if row is None:
                new.append(MediaFile(project=project, key=f.item.entry.key, file=f.name,
                                     content_type=f.item.content_type, size=f.size, sha256=f.sha256,
                                     duration=f.duration))
                continue
            old_names.append(_stored_name(row))
            row.file, row.content_type, row.size, row.sha256 = f.name, f.item.content_type, f.size, f.sha256
            row.duration = f.duration
            replaced.append(row)
        MediaFile.objects.bulk_create(new, batch_size=500)
        MediaFile.objects.bulk_update(replaced, ["file", "content_type", "size", "sha256", "duration"], batch_size=500)
        result = MediaImportResult(created=len(new), replaced=len(replaced), skipped=skipped)
        import_record(actor=actor, project=project, kind="media", source=source, counts=asdict(result))
        transaction.on_commit(lambda: media_stored_discard(names=old_names))
    return result


def media_stored_discard(*, names: Iterable[str]) -> None:
    """Delete stored copies (of a refused import, or replaced files); a failure is logged."""
    _delete_stored(names)


def media_import_zip(*, project: Project, archive: IO[bytes], name: str, on_duplicate: str = "reject",
                     actor: User | None = None) -> MediaImportResult:
    """Import the audio files of a zip (a seekable binary stream): by its manifest.csv, or
    every file named as audio under its file name."""
    return media_import(project=project, batch=zip_batch(archive, name=name), on_duplicate=on_duplicate,
                        actor=actor, source=name)


def media_import_folder(*, project: Project, folder: Path, on_duplicate: str = "reject") -> MediaImportResult:
    """Import the audio files of a folder on disk, with the same manifest rule as a zip."""
    return media_import(project=project, batch=folder_batch(folder), on_duplicate=on_duplicate,
                        source=f"{folder} (manage.py import_media)")


def media_import_file(*, project: Project, data: IO[bytes], name: str, size: int, key: str | None = None,
                      on_duplicate: str = "reject", actor: User | None = None) -> MediaImportResult:
    """Import one audio file (a seekable binary stream) under ``key``, by default its name."""
    batch = single_file_batch(data=data, name=name, size=size, key=key)
    return media_import(project=project, batch=batch, on_duplicate=on_duplicate, actor=actor, source=name)


def single_file_batch(*, data: IO[bytes], name: str, size: int, key: str | None = None) -> MediaBatch:
    """One audio file (a seekable binary stream) as a batch, under ``key`` or by default its
    name; raises ImportFailed for a key that cannot be one."""
    key = name if key is None else key.strip()
    problem = key_problem(key)
    if problem:
        raise ImportFailed([RowError(None, "key", f"{key!r} {problem}")])

    def reopen() -> nullcontext[IO[bytes]]:
        # From the start each time; the import's ``with`` must not close the caller's stream.
        data.seek(0)
        return nullcontext(data)

    return MediaBatch([MediaEntry(key=key, source=name, size=size, open=reopen)])


def upload_is_zip(*, upload: IO[bytes]) -> bool:
    """Whether an upload is a zip (told by its content, not its name)."""
    upload.seek(0)
    head = upload.read(4)
    upload.seek(0)
    return head in ZIP_MAGIC


def media_import_upload(*, project: Project, upload: UploadedFile, key: str | None = None,
                        on_duplicate: str = "reject", actor: User | None = None) -> MediaImportResult:
    """Import an uploaded zip of audio files, or a single audio file (told apart by content)."""
    name = upload.name or "upload"
    if upload_is_zip(upload=upload):
        if key:
            raise ImportFailed([RowError(None, "key", "is for a single audio file; a zip names its files in manifest.csv")])
        return media_import_zip(project=project, archive=upload, name=name, on_duplicate=on_duplicate, actor=actor)
    return media_import_file(project=project, data=upload, name=name, size=upload.size or 0, key=key or None,
                             actor=actor,
                             on_duplicate=on_duplicate)


class MediaInUse(Exception):
    """Media files that items still refer to: deleting them would leave those items without
    their audio. ``uses`` maps each such file's key to the external ids of its items."""

    # Item ids named per file in the message; the rest are counted.
    NAMED = 10

    def __init__(self, uses: dict[str, list[str]]) -> None:
        self.uses = uses
        parts = []
        for key, items in uses.items():
            named = ", ".join(repr(i) for i in items[:self.NAMED])
            more = f" and {len(items) - self.NAMED} more" if len(items) > self.NAMED else ""
            parts.append(f"{key!r} is used by item{'s' if len(items) > 1 else ''} {named}{more}")
        super().__init__("Nothing was deleted: " + "; ".join(parts)
                         + ". Delete those items or import them without the file first.")


def media_files_delete(*, files: Iterable[MediaFile]) -> int:
    """Delete media files: their rows now, their stored copies once that has committed. Raises
    MediaInUse, deleting nothing, when items still refer to any of them."""
    files = list(files)
    names = [_stored_name(f) for f in files]
    with transaction.atomic():
        # Locked as an import locks it, so that no import adds items using a file while its
        # uses are checked and it goes.
        list(Project.objects.select_for_update().filter(pk__in={f.project_id for f in files}).order_by("pk"))
        uses = media_items_using(files=files)
        if uses:
            raise MediaInUse({f.key: uses[f.pk] for f in files if f.pk in uses})
        MediaFile.objects.filter(pk__in=[f.pk for f in files]).delete()
        transaction.on_commit(lambda: _delete_stored(names))
    return len(files)


# --- helpers ---------------------------------------------------------------------------------


def _stored_name(media_file: MediaFile) -> str:
    # A recorded media file always has its stored name (the import sets it; the column is NOT NULL).
    return cast(str, media_file.file.name)


def _existing(project: Project, keys: Sequence[str]) -> dict[str, MediaFile]:
    found: dict[str, MediaFile] = {}
    for start in range(0, len(keys), LOOKUP_CHUNK):
        chunk = keys[start:start + LOOKUP_CHUNK]
        found.update((m.key, m) for m in MediaFile.objects.filter(project=project, key__in=chunk))
    return found


def _refuse_existing(project: Project, checked: Sequence[CheckedEntry]) -> None:
    existing = _existing(project, [item.entry.key for item in checked])
    clashes = [item.entry for item in checked if item.entry.key in existing]
    if clashes:
        errors = [_clash_error(entry) for entry in clashes[:MAX_REPORTED_ERRORS]]
        raise ImportFailed(errors, total=len(clashes))


def _clash_error(entry: MediaEntry) -> RowError:
    message = f"{entry.key!r} already exists in this project (choose 'replace' to replace it)"
    if entry.line is not None:
        return RowError(entry.line, "key", message)
    return RowError(None, None, message)


class _TooLarge(Exception):
    """A file grew past the size cap while it was copied into storage."""


class _HashingReader(io.RawIOBase):
    """Passes a stream on while counting and hashing it, and stops it past ``limit`` bytes
    (a zip member or a file on disk may be longer than it said)."""

    def __init__(self, stream: BinaryReader, limit: int) -> None:
        super().__init__()
        self.stream, self.limit = stream, limit
        self.size, self.sha256 = 0, hashlib.sha256()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.stream.read(len(buffer))
        self.size += len(data)
        if self.size > self.limit:
            raise _TooLarge
        self.sha256.update(data)
        buffer[: len(data)] = data
        return len(data)


class _StorageContent(File):
    """What is handed to the storage: the stream, and the content type that the S3 storage
    sends (it takes the type from here, not from the name)."""

    content_type: str


def _store(project: Project, item: CheckedEntry, stored: list[str]) -> tuple[str, int, str, float | None]:
    """Copy one checked file to the storage under a generated name, streaming; (name, size,
    sha256, the seconds it plays as its headers tell). The name is added to ``stored`` as soon as it exists, for the cleanup."""
    entry, cap = item.entry, max_file_bytes()
    wanted = media_storage_name(project.pk, item.content_type)
    # Listed before saving: a copy stopped halfway leaves a partial file to delete.
    stored.append(wanted)
    try:
        with entry.open() as stream:
            reader = _HashingReader(stream, cap)
            # The stubs ask File for a typing.IO; Django wraps any file-like object, as this one.
            content = _StorageContent(reader)  # type: ignore[arg-type]
            content.content_type = item.content_type
            name = default_storage.save(wanted, content)
    except _TooLarge:
        raise ImportFailed([entry.error(f"is larger than the {limit_text(cap)} limit for one audio file")]) from None
    except ZIP_READ_ERRORS as exc:
        raise ImportFailed([entry.error(f"cannot be read from the zip ({exc})")]) from None
    if name != wanted:
        stored.append(name)
    if reader.size == 0:
        raise ImportFailed([entry.error("is empty")])
    # Read back from the storage: the headers that tell the length may sit at the file's end.
    with default_storage.open(name, "rb") as copy:
        duration = audio_duration(copy, item.content_type, reader.size)
    return name, reader.size, reader.sha256.hexdigest(), duration


def _delete_stored(names: Iterable[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except Exception:
            # The import's outcome stands; a file left behind is only wasted space.
            logger.exception("could not delete the stored media file %s", name)
