"""Comprehension test data: a clip the server knows the length of, and the server's record of a
worker loading and starting it, as the listening page makes them."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.utils import timezone

from annotation.models import Assignment, MediaFile, Project
from annotation.services.media.uses import media_use_fetched, media_use_played, media_use_served


def clip_row(project: Project, key: str = "speech.wav", *, duration: float | None = 30.0) -> MediaFile:
    """A media file's row with its length (no stored content: for rules that read the row only)."""
    return MediaFile.objects.create(project=project, key=key, file=f"media/{project.pk}/{key}", content_type="audio/wav",
                                    size=1000, sha256="0" * 64, duration=duration)


def heard_on_server(assignment: Assignment, key: str, *, started_ago: float = 60.0, fetch: bool = True,
                    play: bool = True, now: datetime | None = None) -> None:
    """Hand the item out before ``started_ago`` seconds ago, and record the clip fetched (the
    whole file sent) and started for the assignment then (each only when asked)."""
    now = now or timezone.now()
    Assignment.objects.filter(pk=assignment.pk).update(assigned_at=now - timedelta(seconds=started_ago + 2))
    assignment.refresh_from_db()
    media = MediaFile.objects.get(project_id=assignment.project_id, key=key)
    if fetch:
        media_use_fetched(assignment=assignment, media=media, now=now - timedelta(seconds=started_ago + 1))
        media_use_served(assignment=assignment, media=media, start=0, end=media.size)
    if play:
        media_use_played(assignment=assignment, media=media, play=1, now=now - timedelta(seconds=started_ago))
