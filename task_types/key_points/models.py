"""Evaluations of a system's key-point matching predictions (track 1), run as background jobs."""

from django.db import models

from jobs.models import Job, job_constraints


class PredictionEvaluation(Job):
    """An uploaded predictions JSON scored against the project's labels (strict and relaxed mAP)."""

    task_name = "key_points.evaluate"

    class Labels(models.TextChoices):
        GOLD = "gold", "Imported gold labels"
        ANNOTATIONS = "annotations", "Labels derived from the annotations"

    class Ties(models.TextChoices):
        OFFICIAL = "official", "As the shared task's script (first key point in the JSON object; pandas' sort at the cut)"
        FILE_ORDER = "file-order", "In the files' order (first key point in the key points file; arguments' order at the cut)"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="key_point_evaluations")
    filename = models.CharField(max_length=255, help_text="Name of the uploaded predictions file.")
    size = models.BigIntegerField(help_text="Bytes uploaded.")
    # Where the upload waits in the default storage until the job has read it.
    stored_name = models.CharField(max_length=255, blank=True)
    labels = models.CharField(max_length=12, choices=Labels.choices, blank=True,
                              help_text="The labels the predictions were scored against.")
    result = models.JSONField(null=True, blank=True)
    # How tied scores are settled (analysis.methods.keypoint_eval.TIES); official by default.
    ties = models.CharField(max_length=12, choices=Ties.choices, default=Ties.OFFICIAL,
                            help_text="How tied scores were settled: as the shared task's script, or in the files' order.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = job_constraints("kpevaluation")
        indexes = [models.Index(fields=["project", "-created_at"], name="kpevaluation_project_created")]

    def __str__(self) -> str:
        return f"evaluation of {self.filename} in {self.project} ({self.status})"
