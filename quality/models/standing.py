"""A worker's standing in a project, with their running gold counts."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models import Standing


class WorkerStanding(models.Model):
    """A worker's standing in one project, with running counts of their gold answers (the
    gold-accuracy rule reads these, not the answers). Blocking here is for this project only;
    ``WorkerProfile.blocked`` blocks an account everywhere."""

    State = Standing

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="standings")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="standings")
    state = models.CharField(max_length=12, choices=Standing.choices, default=Standing.ACTIVE)
    reason = models.CharField(max_length=500, blank=True)
    changed_at = models.DateTimeField(null=True, blank=True)
    gold_answered = models.PositiveIntegerField(default=0)
    gold_right = models.PositiveIntegerField(default=0)

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_workerstanding"
        constraints = [
            models.UniqueConstraint(fields=["project", "worker"], name="standing_project_worker_unique"),
            models.CheckConstraint(condition=Q(state__in=Standing.values), name="standing_state_valid"),
            models.CheckConstraint(condition=Q(gold_right__lte=models.F("gold_answered")), name="standing_gold_counts"),
        ]
        indexes = [models.Index(fields=["project", "state"], name="standing_project_state")]

    def __str__(self) -> str:
        return f"{self.worker_id} in {self.project_id}: {self.state}"
