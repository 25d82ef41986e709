"""Read the audio files of an import — a zip, a folder or one file — and check them. No
database access here; ``annotation.services.media.files`` stores what passes.

A zip or folder may hold ``manifest.csv`` at its top with the columns ``key,file`` (``file`` is
the path inside the zip or folder); without one, every file named as audio is imported under its
own file name. Everything is checked before anything is stored, and every error names the
manifest line and field, or the file: paths that climb out (``..``) or start at the root, a zip
that unpacks to more than ``IMPORT_MAX_DECOMPRESSED_BYTES`` or holds more than
``MEDIA_MAX_ZIP_MEMBERS`` entries, a file over ``MEDIA_MAX_FILE_MB``, a manifest row naming a
file that is not there, a key given twice, and content that is not audio whatever its name.
"""

from __future__ import annotations

import csv
import io
import re
import unicodedata
import zipfile
import zlib
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Protocol

from django.conf import settings

from annotation.import_decoding import decode
from annotation.importers import MAX_REPORTED_ERRORS, ImportFailed, RowError
from annotation.media.formats import (
    AUDIO_SUFFIXES,
    KNOWN_FORMATS,
    SNIFF_BYTES,
    describe,
    sniff_audio,
)
from annotation.task_types.base import ImportField
from annotation.uploads import MIB, limit_text

MANIFEST = "manifest.csv"
MANIFEST_COLUMNS = ("key", "file")
MANIFEST_FIELDS = (
    ImportField("key", True, "The name items use for the file, e.g. speech_81_pro.mp3: unique in the project, "
                             "at most 200 characters, no control characters, '/' only between names."),
    ImportField("file", True, "The file's path inside the zip or folder, e.g. audio/speech_81_pro.mp3."),
)
KEY_MAX_LENGTH = 200
# A manifest is a list of names: a larger one is not a manifest.
MANIFEST_MAX_BYTES = 5 * MIB
# A manifest's path to a file inside the zip or folder (file systems allow 4,096 bytes at most).
MANIFEST_PATH_MAX = 1_000
# Folders and files that archivers add beside the real content (macOS resource forks, Windows
# thumbnails); skipped when there is no manifest.
_JUNK_DIRS = {"__MACOSX"}
_JUNK_FILES = {"thumbs.db", "desktop.ini"}
# Errors a damaged or unsupported zip member raises while it is read (zipfile raises
# NotImplementedError for a compression method it does not know).
ZIP_READ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, RuntimeError)


class BinaryReader(Protocol):
    """A binary stream read from its start: a file on disk, a zip member, an upload."""

    def read(self, size: int = -1, /) -> bytes: ...


@dataclass(frozen=True)
class MediaEntry:
    """One file to import: the key items will use, where it comes from (for messages), its
    declared size and how to read it. ``line`` is its manifest line, if it has one."""

    key: str
    source: str
    size: int
    # ``with entry.open() as stream`` reads the file, and closes what opening it opened.
    open: Callable[[], AbstractContextManager[BinaryReader]]
    line: int | None = None

    def error(self, message: str) -> RowError:
        if self.line is not None:
            return RowError(self.line, "file", f"{self.source!r} {message}")
        return RowError(None, None, f"{self.source!r} {message}")


@dataclass(frozen=True)
class CheckedEntry:
    entry: MediaEntry
    content_type: str


@dataclass(frozen=True)
class MediaBatch:
    """The files of one import, and how many files (not named as audio, without a manifest)
    were left out."""

    entries: list[MediaEntry]
    skipped: int = 0


def max_file_bytes() -> int:
    return settings.MEDIA_MAX_FILE_MB * MIB


def key_problem(key: str) -> str | None:
    """Why ``key`` cannot name a file of a project (it ends up in URLs and payloads), or None."""
    if not key:
        return "must not be empty"
    if len(key) > KEY_MAX_LENGTH:
        return f"is longer than {KEY_MAX_LENGTH} characters"
    if key != key.strip():
        return "must not start or end with a space"
    if any(unicodedata.category(c).startswith("C") for c in key):
        return "must not contain control characters"
    if "\\" in key or key.startswith("/") or any(part in ("", ".", "..") for part in key.split("/")):
        return "must be a file name, or names joined by single '/' without '.' or '..'"
    return None


def unsafe_path(name: str) -> bool:
    """A path that starts at a root or a drive, or climbs out with ``..`` (either slash)."""
    parts = re.split(r"[/\\]", name)
    return name.startswith(("/", "\\")) or bool(re.match(r"^[A-Za-z]:", name)) or ".." in parts


def _is_junk(path: str) -> bool:
    parts = PurePosixPath(path).parts
    return any(p in _JUNK_DIRS or p.startswith(".") for p in parts) or parts[-1].lower() in _JUNK_FILES


def _named_as_audio(path: str) -> bool:
    return path.lower().endswith(AUDIO_SUFFIXES)


# --- manifest --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ManifestRow:
    line: int
    key: str
    file: str


def parse_manifest(data: bytes) -> list[ManifestRow]:
    """The rows of a manifest (CSV, UTF-8 or UTF-16 with its BOM, with a header holding ``key`` and ``file``); raises
    ImportFailed naming the line and field of every bad row."""
    if len(data) > MANIFEST_MAX_BYTES:
        raise ImportFailed([RowError(None, None, f"{MANIFEST} is larger than {limit_text(MANIFEST_MAX_BYTES)}")])
    try:
        # As every imported text file is read: UTF-8, or UTF-16/UTF-32 with a byte-order mark.
        text = decode(data, max_decompressed=MANIFEST_MAX_BYTES)
    except ImportFailed as exc:
        raise ImportFailed([RowError(e.line, e.field, f"{MANIFEST}: {e.message}") for e in exc.errors]) from None
    if csv.field_size_limit() < len(text):
        # As the item importers do: a long field is refused by its line and field below, not by
        # the csv module's own limit, whatever was read before.
        csv.field_size_limit(len(text))
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [h.strip().lower() for h in next(reader)]
    except StopIteration:
        header = []
    except csv.Error as exc:
        raise ImportFailed([RowError(1, None, f"{MANIFEST} cannot be read: {exc}")]) from None
    missing = [c for c in MANIFEST_COLUMNS if c not in header]
    if missing:
        raise ImportFailed([RowError(1, None, f"{MANIFEST} needs a header with the columns key,file (missing: {', '.join(missing)})")])
    key_at, file_at = header.index("key"), header.index("file")
    rows: list[ManifestRow] = []
    errors: list[RowError] = []
    first_line_of: dict[str, int] = {}
    line = reader.line_num + 1
    try:
        for record in reader:
            start, line = line, reader.line_num + 1
            if not any(cell.strip() for cell in record):
                continue
            key = record[key_at].strip() if key_at < len(record) else ""
            path = record[file_at].strip() if file_at < len(record) else ""
            problem = key_problem(key)
            if problem:
                errors.append(RowError(start, "key", problem))
            elif key in first_line_of:
                errors.append(RowError(start, "key", f"{key!r} is already the key of line {first_line_of[key]}"))
            else:
                first_line_of[key] = start
            if not path:
                errors.append(RowError(start, "file", "must not be empty"))
            elif "\x00" in path:
                errors.append(RowError(start, "file", "contains a NUL character (\\x00), which no file name holds"))
            elif len(path) > MANIFEST_PATH_MAX:
                errors.append(RowError(start, "file", f"is {len(path):,} characters long; a path may have at most "
                                                      f"{MANIFEST_PATH_MAX:,}"))
            elif unsafe_path(path):
                errors.append(RowError(start, "file", f"{path!r} must be a path inside the zip or folder (no '..', not from the root)"))
            rows.append(ManifestRow(start, key, path))
    except csv.Error as exc:
        errors.append(RowError(line, None, f"{MANIFEST} cannot be read: {exc}"))
    if errors:
        raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
    if not rows:
        raise ImportFailed([RowError(None, None, f"{MANIFEST} lists no files")])
    return rows


def _from_manifest(rows: list[ManifestRow], find: Callable[[str], MediaEntry | None]) -> list[MediaEntry]:
    """An entry per manifest row; ``find`` looks a path up and gives its entry (keyed by path)."""
    entries, errors = [], []
    for row in rows:
        found = find(row.file)
        if found is None:
            errors.append(RowError(row.line, "file", f"no file {row.file!r} in the zip or folder"))
        else:
            entries.append(MediaEntry(key=row.key, source=row.file, size=found.size, open=found.open, line=row.line))
    if errors:
        raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
    return entries


def _by_file_name(files: Iterable[MediaEntry]) -> MediaBatch:
    """Without a manifest: every file named as audio, keyed by its file name (not its folder)."""
    entries: list[MediaEntry] = []
    errors: list[RowError] = []
    seen: dict[str, str] = {}  # key -> the file that has it
    skipped = 0
    for found in files:
        if _is_junk(found.source) or not _named_as_audio(found.source):
            skipped += 1
            continue
        key = PurePosixPath(found.source).name
        problem = key_problem(key)
        if problem:
            errors.append(found.error(f"cannot be a key: the file name {problem}"))
        elif key in seen:
            errors.append(found.error(f"has the same file name as {seen[key]!r}; give them keys in a {MANIFEST}"))
        else:
            seen[key] = found.source
            entries.append(MediaEntry(key=key, source=found.source, size=found.size, open=found.open))
    if errors:
        raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
    if not entries:
        raise ImportFailed([RowError(None, None, f"no audio files found (looked for {', '.join(AUDIO_SUFFIXES)}) and no {MANIFEST}")])
    return MediaBatch(entries, skipped)


def _nested_manifest(paths: Iterable[str]) -> None:
    nested = [p for p in paths if PurePosixPath(p).name.lower() == MANIFEST and "/" in p.strip("/")]
    if nested:
        raise ImportFailed([RowError(None, None, f"{MANIFEST} must be at the top of the zip or folder, not at {nested[0]!r}")])


# --- zip -------------------------------------------------------------------------------------


def zip_batch(archive: IO[bytes], *, name: str) -> MediaBatch:
    """The files of a zip (a seekable binary stream that stays open while they are read)."""
    _check_directory_size(archive, name)
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ImportFailed([RowError(None, None, f"{name!r} is not a readable zip file ({exc})")]) from None
    members = zf.infolist()
    _check_members(members, name)
    files = {m.filename: m for m in members if not m.is_dir()}
    for info in files.values():
        if info.flag_bits & 0x1:
            raise ImportFailed([RowError(None, None, f"{info.filename!r} in the zip is encrypted")])

    def entry(info: zipfile.ZipInfo) -> MediaEntry:
        return MediaEntry(key=info.filename, source=info.filename, size=info.file_size,
                          open=lambda: zf.open(info))

    manifest = files.get(MANIFEST)
    if manifest is None:
        _nested_manifest(files)
        return _by_file_name(entry(info) for info in files.values())
    try:
        rows = parse_manifest(zf.open(manifest).read(MANIFEST_MAX_BYTES + 1))
    except ZIP_READ_ERRORS as exc:
        raise ImportFailed([RowError(None, None, f"{MANIFEST} cannot be read from the zip ({exc})")]) from None

    def find(path: str) -> MediaEntry | None:
        info = files.get(path.removeprefix("./"))
        return entry(info) if info is not None else None

    return MediaBatch(_from_manifest(rows, find))


def _check_members(members: list[zipfile.ZipInfo], name: str) -> None:
    limit = settings.MEDIA_MAX_ZIP_MEMBERS
    if len(members) > limit:
        raise ImportFailed([RowError(None, None, f"{name!r} holds {len(members)} entries, more than the limit of {limit}")])
    errors, seen = [], set()
    for info in members:
        if unsafe_path(info.filename):
            errors.append(RowError(None, None, f"{info.filename!r} in the zip has an unsafe path (no '..', not from the root)"))
        elif info.filename in seen:
            errors.append(RowError(None, None, f"{info.filename!r} is in the zip twice"))
        seen.add(info.filename)
    if errors:
        raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
    total, cap = sum(m.file_size for m in members), settings.IMPORT_MAX_DECOMPRESSED_BYTES
    if total > cap:
        raise ImportFailed([RowError(None, None, f"{name!r} unpacks to {total} bytes, more than the {limit_text(cap)} limit")])


_EOCD, _ZIP64_LOCATOR, _ZIP64_EOCD = b"PK\x05\x06", b"PK\x06\x07", b"PK\x06\x06"


def _check_directory_size(archive: IO[bytes], name: str) -> None:
    """Refuse a zip whose central directory announces more entries, or is larger, than a zip
    within the member limit can have, before ``zipfile`` reads the whole directory into memory."""
    archive.seek(0, io.SEEK_END)
    end = archive.tell()
    archive.seek(max(end - (65535 + 22), 0))
    tail = archive.read()
    archive.seek(0)
    at = tail.rfind(_EOCD)
    if at < 0 or len(tail) - at < 22:
        return  # not a zip: zipfile says so with its own message
    count = int.from_bytes(tail[at + 10:at + 12], "little")
    directory = int.from_bytes(tail[at + 12:at + 16], "little")
    locator = at - 20
    if locator >= 0 and tail[locator:locator + 4] == _ZIP64_LOCATOR:
        archive.seek(int.from_bytes(tail[locator + 8:locator + 16], "little"))
        record = archive.read(56)
        archive.seek(0)
        if record[:4] == _ZIP64_EOCD:
            count = int.from_bytes(record[32:40], "little")
            directory = int.from_bytes(record[40:48], "little")
    limit = settings.MEDIA_MAX_ZIP_MEMBERS
    # A directory entry takes 46 bytes and its name; 1 KB each is far more than real zips use.
    if count > limit or directory > limit * 1024:
        raise ImportFailed([RowError(None, None, f"{name!r} holds more than the limit of {limit} entries")])


# --- folder ----------------------------------------------------------------------------------


def folder_batch(folder: Path) -> MediaBatch:
    """The files of a folder on disk (command line). Links that lead out of it are refused."""
    root = folder.resolve()

    def entry(path: Path) -> MediaEntry:
        relative = path.relative_to(root).as_posix()
        return MediaEntry(key=relative, source=relative, size=path.stat().st_size, open=lambda: path.open("rb"))

    def inside(path: Path) -> Path | None:
        resolved = path.resolve()
        return resolved if resolved.is_relative_to(root) and resolved.is_file() else None

    manifest = root / MANIFEST
    if manifest.is_file():
        rows = parse_manifest(manifest.read_bytes()[: MANIFEST_MAX_BYTES + 1])

        def find(path: str) -> MediaEntry | None:
            found = inside(root / path)
            return entry(found) if found is not None else None

        return MediaBatch(_from_manifest(rows, find))
    paths = sorted(p for p in root.rglob("*") if p.is_file())
    _nested_manifest(p.relative_to(root).as_posix() for p in paths)
    escaping = [p for p in paths if inside(p) is None]
    if escaping:
        raise ImportFailed([RowError(None, None, f"{p.relative_to(root).as_posix()!r} leads out of the folder") for p in escaping[:MAX_REPORTED_ERRORS]],
                           total=len(escaping))
    return _by_file_name(entry(p) for p in paths)


# --- checks ----------------------------------------------------------------------------------


def batch_check(batch: MediaBatch) -> list[CheckedEntry]:
    """Every file's size and content type, told from its first bytes; raises ImportFailed with
    the problems of all files, so that one upload shows them all."""
    cap = max_file_bytes()
    checked, errors = [], []
    for entry in batch.entries:
        if entry.size > cap:
            errors.append(entry.error(f"is {entry.size} bytes, more than the {limit_text(cap)} limit for one audio file"))
            continue
        try:
            with entry.open() as stream:
                head = stream.read(SNIFF_BYTES)
        except ZIP_READ_ERRORS as exc:
            errors.append(entry.error(f"cannot be read from the zip ({exc})"))
            continue
        content_type = sniff_audio(head)
        if content_type is None:
            errors.append(entry.error(f"is not an audio file ({KNOWN_FORMATS}): {describe(head)}"))
        else:
            checked.append(CheckedEntry(entry, content_type))
    if errors:
        raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
    return checked
