"""Importing a corpus of responses (prompts, references, responses and their audio) into a
project, all or nothing."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from annotation.importers import ImportFailed, RowError, clean_records
from annotation.models import Project
from annotation.services import items_import
from annotation.services.media.files import media_import_folder
from annotation.task_types import get_task_type
from task_types.response_scoring.corpus import folder_records


@dataclass(frozen=True)
class ResponsesImported:
    items: int
    audio_files: int


def responses_import(*, project: Project, folder: Path) -> ResponsesImported:
    """Import the folder's ``prompts``, ``references`` and ``responses`` files (CSV or JSONL)
    and its ``audio/`` files. Every row is checked first; ImportFailed names the file, the line
    and the field, and then nothing is written."""
    task = get_task_type(project.task_type)
    if task.slug != "response_scoring":
        raise ImportFailed([RowError(None, "project", f"is a {task.name} project, not a response-scoring one")])
    corpus = folder_records(folder)
    parsed = clean_records(corpus.records, task_type=task, unit="responses line")
    with transaction.atomic():
        audio = media_import_folder(project=project, folder=corpus.audio).created if corpus.audio else 0
        result = items_import(project=project, parsed=parsed, unit="responses line")
    return ResponsesImported(items=result.created, audio_files=audio)
