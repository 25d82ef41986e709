"""Evaluations of a system's key-point matching predictions (track 1), run as background jobs."""

from django.db import models

from jobs.models import Job, job_constraints


class PredictionEvaluation(Job):
    """An uploaded predictions JSON scored against the project's labels (strict and relaxed mAP)."""

    class Labels(models.TextChoices):
        GOLD = "gold", "Imported gold labels"
        ANNOTATIONS = "annotations", "Labels derived from the annotations"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="key_point_evaluations")
    filename = models.CharField(max_length=255, help_text="Name of the uploaded predictions file.")
    size = models.BigIntegerField(help_text="Bytes uploaded.")
    # Where the upload waits in the default storage until the job has read it.
    stored_name = models.CharField(max_length=255, blank=True)
    labels = models.CharField(max_length=12, choices=Labels.choices, blank=True,
                              help_text="The labels the predictions were scored against.")
    result = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = job_constraints("kpevaluation")
        indexes = [models.Index(fields=["project", "-created_at"], name="kpevaluation_project_created")]

    def __str__(self) -> str:
        return f"evaluation of {self.filename} in {self.project} ({self.status})"
