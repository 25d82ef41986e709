"""Reads of a project's audio files, and of what the server saw of their use for an assignment."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from annotation.byte_ranges import ranges_length
from annotation.media_refs import key_of_ref
from annotation.models import Assignment, MediaFile, MediaUse, Project
from annotation.task_types import get_task_type
from annotation.task_types.base import MediaFacts


def media_file_for(*, project: Project, key: str) -> MediaFile | None:
    if "\x00" in key:
        # PostgreSQL refuses a NUL in a text value, stored or queried, so no file's key holds
        # one: a URL that brings one names no file (and must not reach the query, a 500).
        return None
    return MediaFile.objects.filter(project=project, key=key).first()


def media_files_of(*, project: Project) -> QuerySet[MediaFile]:
    return MediaFile.objects.filter(project=project).order_by("key")


def media_keys_missing(*, project: Project, keys: Iterable[str]) -> list[str]:
    """The keys, of those given, that name no media file of the project: once each, in the
    order given (for a task type checking the files its items refer to)."""
    wanted = list(dict.fromkeys(keys))
    found: set[str] = set()
    for start in range(0, len(wanted), 5000):
        chunk = wanted[start:start + 5000]
        found.update(MediaFile.objects.filter(project=project, key__in=chunk).values_list("key", flat=True))
    return [key for key in wanted if key not in found]


def media_facts(*, assignment: Assignment, keys: Iterable[str]) -> dict[str, MediaFacts]:
    """What the server knows of the given media files of the project for one assignment: each
    key's length and size, and the fetches, bytes sent and starts of playback recorded for the
    assignment (none for a key the project lacks). Two queries, none without keys."""
    wanted = list(dict.fromkeys(keys))
    if not wanted:
        return {}
    files = {m.key: m for m in MediaFile.objects.filter(project_id=assignment.project_id, key__in=wanted)}
    uses = {u.media_id: u for u in MediaUse.objects.filter(assignment_id=assignment.pk, media__in=list(files.values()))}
    facts = {}
    for key in wanted:
        media = files.get(key)
        use = uses.get(media.pk) if media else None
        facts[key] = MediaFacts(
            key=key, duration=media.duration if media else None, size=media.size if media else None,
            fetches=use.fetches if use else 0, first_fetched_at=use.first_fetched_at if use else None,
            served=(None if use.served is None else ranges_length(use.served)) if use else 0,
            plays=use.plays if use else 0, first_played_at=use.first_played_at if use else None,
            last_played_at=use.last_played_at if use else None,
        )
    return facts


def media_for_ref(*, assignment: Assignment, ref: str) -> MediaFile | None:
    """The media file of the assignment's item that goes to its worker as ``ref``
    (``annotation.media_refs``), or None: a reference opens no other item's file."""
    keys = get_task_type(assignment.project.task_type).media_keys(assignment.item.payload)
    key = key_of_ref(assignment_id=assignment.pk, keys=keys, ref=ref)
    return media_file_for(project=assignment.project, key=key) if key is not None else None
