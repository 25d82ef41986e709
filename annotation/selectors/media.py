"""Reads of a project's audio files."""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from annotation.models import MediaFile, Project


def media_file_for(*, project: Project, key: str) -> MediaFile | None:
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
