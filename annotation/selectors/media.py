"""Reads of a project's audio files, and of what the server saw of their use for an assignment."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import QuerySet

from annotation.media.byte_ranges import ranges_length
from annotation.media.refs import key_of_ref
from annotation.models import (
    Assignment,
    Item,
    MediaFile,
    MediaUse,
    Project,
    WorkerProfile,
)
from annotation.quality_port import worker_blocked
from annotation.selectors.answers import revision_refusal
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
    (``annotation.media.refs``), or None: a reference opens no other item's file."""
    keys = get_task_type(assignment.project.task_type).media_keys(assignment.item.payload)
    key = key_of_ref(assignment_id=assignment.pk, keys=keys, ref=ref)
    return media_file_for(project=assignment.project, key=key) if key is not None else None


def media_fetch_refused(*, project: Project, worker: User) -> bool:
    """Whether the worker may fetch none of the project's files: their account is blocked, or
    they are blocked in the project (their open item went back to the pool; what they were
    sent before must not keep flowing)."""
    return (WorkerProfile.objects.filter(user=worker, blocked=True).exists()
            or worker_blocked(project=project, worker=worker))


def media_refs_ended(*, assignment: Assignment, now: datetime) -> bool:
    """Whether the assignment's media references open nothing any more: once it was skipped
    (returned), reviewed, or submitted and its answer can no longer be changed. While it is
    assigned, after its lease ran out too (a late answer may still count), and while a submitted
    answer may still be changed (the change form plays the item's files again), they work. No
    query for an open assignment: its status, loaded with it, decides."""
    Status = Assignment.Status
    if assignment.status in (Status.ASSIGNED, Status.EXPIRED):
        return False
    if assignment.status == Status.SUBMITTED:
        return revision_refusal(assignment=assignment, now=now) is not None
    return True


def media_items_using(*, files: Iterable[MediaFile]) -> dict[int, list[str]]:
    """For each of the files that items of its project refer to (by the task type's
    ``media_keys``), the external ids of those items, in item order: {media file pk: ids}.
    Reads each project's payloads once, in chunks."""
    keys_by_project: dict[int, dict[str, int]] = defaultdict(dict)
    for media in files:
        keys_by_project[media.project_id][media.key] = media.pk
    used: dict[int, list[str]] = defaultdict(list)
    for project_id, keys in keys_by_project.items():
        task_type = get_task_type(Project.objects.values_list("task_type", flat=True).get(pk=project_id))
        rows = Item.objects.filter(project_id=project_id).order_by("pk").values_list("external_id", "payload")
        for external_id, payload in rows.iterator(chunk_size=2000):
            for key in dict.fromkeys(task_type.media_keys(payload)):
                if key in keys:
                    used[keys[key]].append(external_id)
    return dict(used)
