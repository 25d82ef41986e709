"""Writes of a key-point project: importing the shared task's files as items."""

from __future__ import annotations

from annotation.importers import ImportFailed, ParsedItem, RowError
from annotation.models import Project
from annotation.services import items_import
from annotation.services.items import ImportResult
from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError
from task_types.key_points.corpus import KeyPointCorpus, file_names

SLUG = "key_points"


def key_points_project(*, project: Project) -> None:
    """Refuse a project of another task type."""
    if project.task_type != SLUG:
        raise ImportFailed([RowError(None, "project", f"is a {get_task_type(project.task_type).name} project, "
                                                      "not a key-point one")])


def corpus_import(*, project: Project, corpus: KeyPointCorpus, arguments_file: str = "",
                  on_duplicate: str = "reject") -> ImportResult:
    """One item per argument of ``corpus`` (its key points and labels inline), all or nothing;
    raises ImportFailed naming file, line and field."""
    key_points_project(project=project)
    task = get_task_type(project.task_type)
    name = arguments_file or file_names()["arguments"]
    parsed, errors = [], []
    for argument, record in zip(corpus.arguments, corpus.records(), strict=True):
        line = int(argument.get("line") or 0)
        try:
            parsed.append(ParsedItem(line, task.clean_item(record)))
        except FieldError as exc:
            errors.append(RowError(line, exc.field, exc.message, unit=f"{name} line"))
    if errors:
        raise ImportFailed(errors[:50], total=len(errors))
    return items_import(project=project, parsed=parsed, on_duplicate=on_duplicate, unit=f"{name} line")
