"""Audio files attached to a project, which items name by key.

Fields and constraints only; files are stored and replaced through ``annotation.services.media.files``.
"""

import uuid

from django.db import models
from django.db.models import Q

from annotation.media.formats import AUDIO_CONTENT_TYPES, EXTENSIONS


def media_storage_name(project_id: int, content_type: str) -> str:
    """A fresh storage name for a project's file: never the uploaded name, which may hold path
    tricks, clash with another file or claim a type the content is not."""
    return f"media/{project_id}/{uuid.uuid4().hex}.{EXTENSIONS[content_type]}"


def media_upload_to(instance: "MediaFile", filename: str) -> str:
    # Migrations refer to this function by name: keep it.
    return media_storage_name(instance.project_id, instance.content_type)


class MediaFile(models.Model):
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="media_files")
    key = models.CharField(max_length=200, help_text="The name items use for the file, e.g. speech_81_pro.mp3.")
    file = models.FileField(upload_to=media_upload_to, max_length=255)
    content_type = models.CharField(max_length=20, help_text="Told from the content, not the name.")
    size = models.PositiveBigIntegerField(help_text="Bytes.")
    sha256 = models.CharField(max_length=64)
    duration = models.FloatField(null=True, blank=True,
                                 help_text="Seconds it plays, read from its headers when stored; empty when they do not tell.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["project", "key"]
        constraints = [
            models.UniqueConstraint(fields=["project", "key"], name="mediafile_project_key_unique"),
            models.CheckConstraint(condition=Q(content_type__in=AUDIO_CONTENT_TYPES), name="mediafile_audio_type"),
            models.CheckConstraint(condition=Q(size__gt=0), name="mediafile_not_empty"),
        ]

    def __str__(self) -> str:
        return self.key


class MediaUse(models.Model):
    """What the server saw of one assignment's use of one of its item's media files: the
    requests for the file (through the media view), the bytes of it actually sent, and the
    starts of playback its player reported. Claims a client makes about the media are checked
    against these."""

    assignment = models.ForeignKey("annotation.Assignment", on_delete=models.CASCADE, related_name="media_uses")
    media = models.ForeignKey(MediaFile, on_delete=models.CASCADE, related_name="uses")
    fetches = models.PositiveIntegerField(default=0, help_text="Requests answered with (part of) the file.")
    first_fetched_at = models.DateTimeField(null=True, blank=True)
    last_fetched_at = models.DateTimeField(null=True, blank=True)
    # NULL: fetched before the bytes sent were counted (the check of a listen then goes without).
    served = models.JSONField(default=list, blank=True, null=True,
                              help_text="The bytes of the file sent for the assignment: sorted, disjoint [start, end) ranges.")
    plays = models.PositiveIntegerField(default=0, help_text="Starts of playback the player reported.")
    first_played_at = models.DateTimeField(null=True, blank=True)
    last_played_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["assignment", "media"], name="mediause_assignment_media_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.media} for assignment {self.assignment_id}"
