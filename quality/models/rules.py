"""Quality rules, what they decided about workers, and each rule's running evidence per worker."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class QualityRule(models.Model):
    """A rule judged as answers arrive (and after analysis runs): when its sequential test finds a
    worker beyond the bar (``quality.services.rules.verdicts``), the worker is blocked in the
    project or sent to review."""

    class Kind(models.TextChoices):
        GOLD_ACCURACY = "gold_accuracy", "Gold accuracy below a bar"
        COMPETENCE = "competence", "MACE competence below a bar"
        TOO_FAST = "too_fast", "Too many answers faster than a share of the median time"
        POSITION_BIAS = "position_bias", "Picks the first-shown option more than the drawn order predicts"
        AUTOMATION = "automation", "Answers from an automated browser"

    class Action(models.TextChoices):
        BLOCK = "block", "Block in the project"
        REVIEW = "review", "Send to review"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="quality_rules")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    action = models.CharField(max_length=10, choices=Action.choices, default=Action.REVIEW)
    threshold = models.FloatField(
        help_text="The bar: an accuracy or competence (0 to 1), a share of too-fast answers, or an excess "
                  "first-shown rate; its meaning per kind is on the Quality control page.")
    min_answers = models.PositiveIntegerField(default=5, help_text="Answers (or gold answers) before the rule judges.")
    share_of_median = models.FloatField(
        default=0.25, help_text="Too fast: an answer below this share of the project's median time.")
    confidence = models.FloatField(
        default=0.95, help_text="One minus the rule's error over the whole study: at 0.95 a worker exactly at the "
                                "bar is decided about in at most 5% of studies.")
    enabled = models.BooleanField(default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_qualityrule"
        ordering = ["project_id", "kind", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(confidence__gt=0.5) & Q(confidence__lt=1), name="rule_confidence_range"),
            models.CheckConstraint(condition=Q(share_of_median__gt=0) & Q(share_of_median__lte=1),
                                   name="rule_share_range"),
            models.CheckConstraint(condition=Q(min_answers__gte=1), name="rule_min_answers"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} → {self.get_action_display()}"


class RuleDecision(models.Model):
    """What a rule decided about a worker, with the evidence it decided on."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="rule_decisions")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    rule = models.ForeignKey(QualityRule, null=True, blank=True, on_delete=models.SET_NULL, related_name="decisions")
    kind = models.CharField(max_length=20, choices=QualityRule.Kind.choices)
    action = models.CharField(max_length=10, choices=QualityRule.Action.choices)
    evidence = models.JSONField(help_text="The figures the rule decided on (estimate, interval, counts).")
    trigger = models.CharField(max_length=100, help_text="What made the rule look: a gold answer, an analysis run.")
    decided_at = models.DateTimeField()

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_ruledecision"
        ordering = ["-decided_at", "-id"]
        indexes = [models.Index(fields=["project", "worker", "decided_at"], name="decision_project_worker")]

    def __str__(self) -> str:
        return f"{self.kind} → {self.action} for {self.worker_id}"


class RuleState(models.Model):
    """One rule's running evidence about one worker, moved on each answer it judges (gold
    accuracy reads the gold counts of ``WorkerStanding`` instead): the answers it counted, those
    that speak against the worker (too fast, the first-shown option chosen, an automated
    browser), and the log-likelihood ratio of the rule's sequential test so far
    (``analysis.methods.sequential``). Kept so that judging an answer reads one row, never the
    worker's earlier answers."""

    rule = models.ForeignKey(QualityRule, on_delete=models.CASCADE, related_name="states")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    answers = models.PositiveIntegerField(default=0)
    hits = models.PositiveIntegerField(default=0)
    llr = models.FloatField(default=0.0, help_text="The test's log-likelihood ratio over the answers counted.")
    updated_at = models.DateTimeField()

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_rulestate"
        constraints = [
            models.UniqueConstraint(fields=["rule", "worker"], name="rule_state_rule_worker_unique"),
            models.CheckConstraint(condition=Q(hits__lte=models.F("answers")), name="rule_state_counts"),
        ]

    def __str__(self) -> str:
        return f"rule {self.rule_id} on {self.worker_id}: {self.hits}/{self.answers}"
