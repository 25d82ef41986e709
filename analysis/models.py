"""Analysis runs: one Celery job each, with its parameters, progress, result or error."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class AnalysisRun(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="analysis_runs")
    kind = models.CharField(max_length=40)
    params = models.JSONField(default=dict, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    progress = models.FloatField(default=0.0, help_text="0 to 1.")
    stage = models.CharField(max_length=200, blank=True, help_text="What the job is doing now.")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    # Which annotations the result saw: how many, and the newest one's id and time.
    annotations_seen = models.PositiveIntegerField(null=True, blank=True)
    last_annotation_id = models.BigIntegerField(null=True, blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    deadline_at = models.DateTimeField(null=True, blank=True, help_text="A run still running then is stuck.")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(progress__gte=0) & Q(progress__lte=1), name="analysis_progress_range"),
            models.CheckConstraint(condition=Q(status__in=["queued", "running", "done", "failed"]), name="analysis_status_valid"),
        ]
        indexes = [models.Index(fields=["project", "kind", "-created_at"], name="analysis_project_kind")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def seconds(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None

    @property
    def is_finished(self) -> bool:
        return self.status in (self.Status.DONE, self.Status.FAILED)
