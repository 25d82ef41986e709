"""Adding counter-speech questions to a project: built from the IBM Debater speeches, optionally
sampled with a seed, imported all or nothing (questions already in the project are kept)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from annotation.importers import ImportFailed, ParsedItem, RowError, clean_records
from annotation.models import Project
from annotation.services import items_import
from annotation.task_types import get_task_type
from task_types.counter_speech.corpus import (
    IBM_FOLDER,
    BuildReport,
    build_questions,
    ibm_speeches,
    sample_questions,
)


@dataclass(frozen=True)
class QuestionsBuilt:
    report: BuildReport
    sampled: int  # questions kept by the sample (all built ones without a sample)
    created: int
    existing: int  # sampled questions the project already had


def ibm_folder(*, data_dir: Path) -> Path:
    return data_dir / IBM_FOLDER


def questions_files_read(*, files: Mapping[str, IO[bytes]], options: Mapping[str, Any]) -> tuple[list[ParsedItem], str]:
    """What the import job of the build reads (``FilesImport.read``): the IBM release in the
    shared data folder, built with the options of the admin's form (``setting``,
    ``min_candidates``, ``max_candidates``, ``sample``, ``seed``). No question built is a refusal
    that says why and which minimum would build some."""
    from django.conf import settings

    folder = ibm_folder(data_dir=Path(settings.SHARED_DATA_DIR))
    if not (folder / "speech-transcripts.csv").is_file():
        raise ImportFailed([RowError(None, "folder", f"{folder} has no speech-transcripts.csv")])
    seed = int(options.get("seed") or 0)
    try:
        records, report = build_questions(ibm_speeches(folder), setting=options.get("setting") or "all",
                                          min_candidates=int(options.get("min_candidates") or 3),
                                          max_candidates=int(options.get("max_candidates") or 5), seed=seed)
        chosen = sample_questions(records, n=options.get("sample"), seed=seed)
    except ValueError as exc:
        raise ImportFailed([RowError(None, None, str(exc))]) from None
    if not chosen:
        advice = report.advice(setting="“Minimum candidates”")
        raise ImportFailed([RowError(None, None, "no question was built: " + "; ".join(report.lines())
                                     + (f". To build questions, {advice}" if advice else ""))])
    task = get_task_type("counter_speech")
    return clean_records(enumerate(chosen, 1), task_type=task, unit="question"), "question"


def questions_build(*, project: Project, folder: Path, setting: str = "all", min_candidates: int = 3,
                    max_candidates: int = 5, sample: int | None = None, seed: int = 0) -> QuestionsBuilt:
    """Build the questions of the IBM release in ``folder`` and add the (sampled) ones the project
    lacks. Raises ImportFailed naming the problem; nothing is written then."""
    task = get_task_type(project.task_type)
    if task.slug != "counter_speech":
        raise ImportFailed([RowError(None, "project", f"is a {task.name} project, not counter-speech")])
    if not (folder / "speech-transcripts.csv").is_file():
        raise ImportFailed([RowError(None, "folder", f"{folder} has no speech-transcripts.csv")])
    try:
        records, report = build_questions(ibm_speeches(folder), setting=setting, min_candidates=min_candidates,
                                          max_candidates=max_candidates, seed=seed)
        chosen = sample_questions(records, n=sample, seed=seed)
    except ValueError as exc:
        raise ImportFailed([RowError(None, None, str(exc))]) from None
    existing = set(project.items.values_list("external_id", flat=True))
    parsed = [ParsedItem(number, task.clean_item(r)) for number, r in enumerate(chosen, 1)]
    fresh = [p for p in parsed if p.item.external_id not in existing]
    result = items_import(project=project, parsed=fresh) if fresh else None
    return QuestionsBuilt(report=report, sampled=len(chosen), created=result.created if result else 0,
                          existing=len(parsed) - len(fresh))
