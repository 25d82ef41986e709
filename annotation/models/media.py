"""Audio files attached to a project, which items name by key.

Fields and constraints only; files are stored and replaced through ``annotation.services.media``.
"""

import uuid

from django.db import models
from django.db.models import Q

from annotation.audio import AUDIO_CONTENT_TYPES, EXTENSIONS


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
