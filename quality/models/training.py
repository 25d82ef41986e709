"""Training rounds (the qualification and re-calibration) and scored check answers (gold and
training)."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models import Purpose


class TrainingRound(models.Model):
    """One round of training items for a worker: the qualification (which gates real items) or a
    re-calibration a staff member sent them to. Its result stays on the worker's record."""

    class Kind(models.TextChoices):
        QUALIFICATION = "qualification", "Qualification"
        RECALIBRATION = "recalibration", "Re-calibration"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="training_rounds")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="training_rounds")
    kind = models.CharField(max_length=14, choices=Kind.choices)
    number = models.PositiveSmallIntegerField(help_text="1 for the worker's first round in the project.")
    items = models.PositiveSmallIntegerField(help_text="Training items the round holds (k).")
    pass_mark = models.FloatField()
    answered = models.PositiveSmallIntegerField(default=0)
    right = models.PositiveSmallIntegerField(default=0)
    passed = models.BooleanField(null=True, blank=True, help_text="Empty while the round is open.")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    sent_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+")
    note = models.CharField(max_length=500, blank=True)

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_traininground"
        ordering = ["project_id", "worker_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["project", "worker", "number"], name="training_round_number_unique"),
            models.UniqueConstraint(fields=["project", "worker"], condition=Q(finished_at__isnull=True),
                                    name="training_round_one_open"),
            models.CheckConstraint(condition=Q(right__lte=models.F("answered")), name="training_round_counts"),
            models.CheckConstraint(condition=Q(items__gte=1), name="training_round_items_min"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} round {self.number} of {self.worker_id} in {self.project_id}"


class CheckResult(models.Model):
    """A gold or training answer, scored against the known answer by the task type."""

    assignment = models.OneToOneField("annotation.Assignment", on_delete=models.CASCADE, related_name="check_result")
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="+")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    purpose = models.CharField(max_length=10, choices=Purpose.choices)
    round = models.ForeignKey(TrainingRound, null=True, blank=True, on_delete=models.SET_NULL, related_name="results")
    score = models.FloatField(help_text="0 to 1: 1 for exact, the overlap for sets.")
    right = models.BooleanField()
    method = models.CharField(max_length=40, help_text="How it was scored, e.g. exact, jaccard, within one.")
    expected = models.JSONField(help_text="The known answer it was scored against.")
    scored_at = models.DateTimeField()

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_checkresult"
        constraints = [
            models.CheckConstraint(condition=Q(score__gte=0) & Q(score__lte=1), name="check_score_range"),
        ]
        indexes = [models.Index(fields=["project", "worker", "purpose"], name="check_project_worker")]

    def __str__(self) -> str:
        return f"check of assignment {self.assignment_id}: {self.score:.2f}"
