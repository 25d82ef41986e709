"""Adding counter-speech questions to a project: built from the IBM Debater speeches, optionally
sampled with a seed, imported all or nothing (questions already in the project are kept)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from annotation.importers import ImportFailed, ParsedItem, RowError
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
