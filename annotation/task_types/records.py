"""What a task type reads from import files and writes to exports: cleaned items, crowd results
collected elsewhere, and helpers that check a record's fields (errors name the field)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Protocol


class FieldError(ValueError):
    """An import record or answer field that fails validation."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class CleanItem:
    external_id: str
    payload: dict[str, Any]
    gold: Any = None


@dataclass(frozen=True)
class CrowdAnswer:
    """One label collected elsewhere, as the task type reads it from a results file."""

    item_id: str
    answer: dict[str, Any]
    reason: str
    # What the task type needs to create the item when the project does not have it yet.
    item_source: dict[str, Any] = field(default_factory=dict)


def record_text(record: Mapping[str, Any], name: str, *, required: bool = True, limit: int | None = None) -> str:
    """A text field of an import record, stripped ("" when absent and not required); a number is
    taken as its digits, anything else (a list, true/false) is refused naming the field."""
    value = record.get(name)
    if value is None or value == "":
        if required:
            raise FieldError(name, "is missing")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise FieldError(name, f"must be text, got {type(value).__name__}")
    text = str(value).strip()
    if limit is not None and len(text) > limit:
        raise FieldError(name, f"must have at most {limit:,} characters, has {len(text):,}")
    return text


def seeded_sample(records: Sequence[Mapping[str, Any]], *, n: int | None, seed: int,
                  unit: str = "record") -> list[dict[str, Any]]:
    """``n`` of the records drawn at random with ``seed`` (all of them when ``n`` is None or not
    smaller), in id order whatever the input order, so that a seed names one sample."""
    ordered = sorted((dict(r) for r in records), key=lambda r: str(r["id"]))
    if n is None or n >= len(ordered):
        return ordered
    if n < 1:
        raise ValueError(f"a sample needs at least 1 {unit}, got {n}")
    return sorted(random.Random(seed).sample(ordered, n), key=lambda r: str(r["id"]))


def shorten(text: str, length: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``length`` characters (ending
    with an ellipsis when cut)."""
    flat = " ".join(str(text).split())
    if len(flat) <= length:
        return flat
    cut = flat[: max(length - 1, 1)]
    space = cut.rfind(" ")
    # A word boundary only when it keeps most of the room; a long token (a URL) is cut inside.
    if space >= len(cut) * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


class CrowdItemError(ValueError):
    """An item of a crowd results file that cannot be built; names the item and the field."""

    def __init__(self, item_id: str, field: str | None, message: str) -> None:
        super().__init__(message)
        self.item_id, self.field, self.message = item_id, field, message


class FilesReader(Protocol):
    """Reads a task type's uploaded files (by name) into its items and the word its errors use
    for a row's place. The items are annotation.importers.ParsedItem, which imports this module:
    named in words only, so that the contract does not depend on the importers."""

    def __call__(self, *, files: Mapping[str, IO[bytes]], options: Mapping[str, Any]) -> tuple[list[Any], str]: ...


@dataclass(frozen=True)
class FilesImport:
    """A task type's import of its own files (a corpus in its published layout, several files
    that make items together) into a project. The admin's upload page hands the files to
    ``annotation.services.imports.files_import_upload``, which keeps them and queues an import
    job: the job calls ``read`` and writes its items all or nothing, as item imports do.

    ``read(files=..., options=...)`` gets the uploaded files by name (binary streams; a file not uploaded
    is absent, and none at all when ``options`` say where else to read) and returns the checked
    items with the word its errors use for a row's place (e.g. ``"arguments.csv line"``); it
    raises ``annotation.importers.ImportFailed`` naming file, line and field of every problem.
    ``page`` is the admin URL name of its upload page (taking the project's id). With
    ``keep_existing``, items the project has already are left as they are and counted (a build
    that may be run again); without, the upload's ``on_duplicate`` decides (reject or update).
    """

    files: tuple[str, ...]
    read: FilesReader
    page: str
    keep_existing: bool = False


@dataclass(frozen=True)
class ImportField:
    name: str
    required: bool
    description: str


@dataclass(frozen=True)
class ExportContext:
    """What an export row can draw on besides the answer itself."""

    item_external_id: str
    payload: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)
    # The client metrics stored with the annotation (CleanAnswer.metrics).
    metrics: dict[str, Any] = field(default_factory=dict)
    # The item's known answer (e.g. a true counter known by design), for "correct" columns.
    gold: Any = None
    # The answers the server refused for the assignment before accepting this one:
    # [{"at": ISO time, "errors": {field: message}}].
    refused: list[dict[str, Any]] = field(default_factory=list)
