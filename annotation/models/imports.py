"""Import jobs of the crowd workflow: uploaded files imported in the background."""

from django.db import models

from jobs.models import Job, job_constraints


class ImportJob(Job):
    """An uploaded file imported into a project in the background, all or nothing."""

    task_name = "annotation.import"

    class Kind(models.TextChoices):
        ITEMS = "items", "Items"
        CROWD = "crowd", "Crowd results"
        # A task type's own files (annotation.task_types.base.FilesImport) as items.
        FILES = "files", "Task-type files"
        # Audio files (a zip, or one file too large to store inside the request).
        MEDIA = "media", "Audio files"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="import_jobs")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    filename = models.CharField(max_length=255, help_text="Name of the uploaded file.")
    size = models.BigIntegerField(help_text="Bytes uploaded.")
    # Where the upload waits in the default storage until the job has read it.
    stored_name = models.CharField(max_length=255, blank=True)
    options = models.JSONField(default=dict, blank=True, help_text="Format, duplicate handling, column map …")
    result = models.JSONField(null=True, blank=True)
    # Line-and-field errors of a refused file: [{"line" or "record": n, "field": f, "message": m}].
    errors = models.JSONField(default=list, blank=True)
    error_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = job_constraints("importjob")
        indexes = [models.Index(fields=["project", "-created_at"], name="importjob_project_created")]

    def __str__(self) -> str:
        return f"import of {self.filename} into {self.project} ({self.status})"
