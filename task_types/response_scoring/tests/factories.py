"""Response-scoring test data: projects over the SAMPLE set or a listening clip, and the server's
record of a rater loading and starting a clip."""

from __future__ import annotations

import io
from datetime import timedelta
from pathlib import Path

from django.utils import timezone

from annotation.importers import ParsedItem
from annotation.models import Assignment, MediaFile, Project
from annotation.services import items_import
from annotation.services.media.files import media_import_file
from annotation.services.media.uses import media_use_fetched, media_use_played, media_use_served
from annotation.task_types import get_task_type
from tests.factories import ProjectFactory

TASK = get_task_type("response_scoring")
ROOT = Path(__file__).resolve().parents[3]
SAMPLE = ROOT / "task_types/response_scoring/data"
# A short synthesised clip the repository already ships (any clip of known length will do).
CLIP = ROOT / "task_types/comprehension/data/james_121_ban-boxing_con_opening_rachel.mp3"
LENGTH = 43.076


def record(response_id="r1", **extra):
    return {"response_id": response_id, "prompt_id": "p1", "prompt_type": "summary",
            "prompt": "Summarise what the teacher said about bees.",
            "references": ["Bees carry pollen between flowers.", "Bees pollinate crops."],
            "speaker": "s1", "asr_transcript": "bees carry pollen", "transcript": "Bees carry pollen.", **extra}


def project_of(presentation="reading", *, records=None, audio=False, redundancy=2, **options) -> Project:
    project = ProjectFactory(task_type="response_scoring", redundancy=redundancy,
                             options=TASK.clean_options({"presentation": presentation, **options}))
    if audio:
        data = CLIP.read_bytes()
        media_import_file(project=project, data=io.BytesIO(data), name=CLIP.name, size=len(data), key="r1.mp3")
    records = records or [record(audio="r1.mp3" if audio else "")]
    items_import(project=project, parsed=[ParsedItem(n, TASK.clean_item(r)) for n, r in enumerate(records, 1)])
    return project


def heard_on_server(assignment: Assignment, key: str, *, started_ago: float = 60.0, fetch: bool = True,
                    play: bool = True) -> None:
    now = timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(assigned_at=now - timedelta(seconds=started_ago + 2))
    assignment.refresh_from_db()
    media = MediaFile.objects.get(project_id=assignment.project_id, key=key)
    if fetch:
        media_use_fetched(assignment=assignment, media=media, now=now - timedelta(seconds=started_ago + 1))
        media_use_served(assignment=assignment, media=media, start=0, end=media.size)
    if play:
        media_use_played(assignment=assignment, media=media, play=1, now=now - timedelta(seconds=started_ago))
