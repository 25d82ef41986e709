"""Analysis runs: one background job each, with its parameters and result."""

from django.db import models

from annotation.models.jobs import Job, job_constraints


class AnalysisRun(Job):
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="analysis_runs")
    kind = models.CharField(max_length=40)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    # Which annotations the result saw: how many, and the newest one's id.
    annotations_seen = models.PositiveIntegerField(null=True, blank=True)
    last_annotation_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = job_constraints("analysis")
        indexes = [models.Index(fields=["project", "kind", "-created_at"], name="analysis_project_kind")]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"
