"""Analysis runs: one background job each, with its parameters and result."""

from django.db import models

from jobs.models import Job, job_constraints


class AnalysisRun(Job):
    task_name = "analysis.run"

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


class RunPart(models.Model):
    """A large table of a run's result, kept apart from it in pieces (the gold pipeline's pairs,
    one piece per topic), so that a page reads the piece it shows instead of the whole result.
    ``indexes`` holds each row's place in the whole table, as a topic's rows need not be
    consecutive there."""

    run = models.ForeignKey(AnalysisRun, on_delete=models.CASCADE, related_name="parts")
    name = models.CharField(max_length=40)
    key = models.TextField()
    position = models.PositiveIntegerField()
    rows = models.JSONField(default=list)
    indexes = models.JSONField(default=list)

    class Meta:
        ordering = ["run", "position"]
        # Not unique on key: a topic may be any length, longer than an index entry can be.
        constraints = [models.UniqueConstraint(fields=["run", "position"], name="analysis_runpart_unique")]

    def __str__(self) -> str:
        return f"{self.name}[{self.key}] of run {self.run_id}"
