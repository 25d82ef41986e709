"""Writes of a key-point project: importing the shared task's files as items."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from annotation.importers import ImportFailed, ParsedItem, RowError
from annotation.models import Project
from annotation.services import items_import
from annotation.services.items import ImportResult
from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError
from task_types.key_points.corpus import (
    FOLDER,
    KeyPointCorpus,
    file_names,
    read_corpus,
    read_folder,
)

SLUG = "key_points"


def key_points_project(*, project: Project) -> None:
    """Refuse a project of another task type."""
    if project.task_type != SLUG:
        raise ImportFailed([RowError(None, "project", f"is a {get_task_type(project.task_type).name} project, "
                                                      "not a key-point one")])


def corpus_items(*, corpus: KeyPointCorpus, arguments_file: str = "") -> tuple[list[ParsedItem], str]:
    """One checked item per argument of ``corpus`` (its key points and labels inline), and the
    word errors use for a row's place; raises ImportFailed naming file, line and field."""
    task = get_task_type(SLUG)
    unit = f"{arguments_file or file_names()['arguments']} line"
    parsed, errors = [], []
    for argument, record in zip(corpus.arguments, corpus.records(), strict=True):
        line = int(argument.get("line") or 0)
        try:
            parsed.append(ParsedItem(line, task.clean_item(record)))
        except FieldError as exc:
            errors.append(RowError(line, exc.field, exc.message, unit=unit))
    if errors:
        raise ImportFailed(errors[:50], total=len(errors))
    return parsed, unit


def corpus_files_read(*, files: Mapping[str, IO[bytes]], options: Mapping[str, Any]) -> tuple[list[ParsedItem], str]:
    """What an import job of the type's files reads (``FilesImport.read``): the uploaded
    arguments, key points and labels files, or without files the shared data's ``subset``."""
    if files:
        names = {**file_names(), **options.get("files", {})}
        if "arguments" not in files or "key_points" not in files:
            raise ImportFailed([RowError(None, None, "upload arguments.csv and key_points.csv together")])
        corpus = read_corpus(files["arguments"], files["key_points"], files.get("labels"), names=names)
        return corpus_items(corpus=corpus, arguments_file=names["arguments"])
    subset = str(options.get("subset") or "dev")
    corpus = read_folder(Path(settings.SHARED_DATA_DIR) / FOLDER, subset)
    return corpus_items(corpus=corpus, arguments_file=file_names(subset)["arguments"])


def corpus_import(*, project: Project, corpus: KeyPointCorpus, arguments_file: str = "",
                  on_duplicate: str = "reject") -> ImportResult:
    """One item per argument of ``corpus`` (its key points and labels inline), all or nothing;
    raises ImportFailed naming file, line and field."""
    key_points_project(project=project)
    parsed, unit = corpus_items(corpus=corpus, arguments_file=arguments_file)
    return items_import(project=project, parsed=parsed, on_duplicate=on_duplicate, unit=unit)
