"""A project's quality-control settings."""

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q


class QualityPolicy(models.Model):
    """A project's quality-control settings (one row per project, made on first use)."""

    class SetOverlap(models.TextChoices):
        JACCARD = "jaccard", "Jaccard: shared options / options in either"
        MASI = "masi", "MASI: Jaccard weighted by how the sets relate"

    class Rubric(models.TextChoices):
        EXACT = "exact", "Exact score"
        WITHIN_ONE = "within_one", "Within one point"

    class TrainingFeedback(models.TextChoices):
        AFTER_EACH = "after_each", "After each item: right or not, the expected answer and why"
        RIGHT_WRONG = "right_wrong", "After each item: only whether it was right"
        AFTER_ROUND = "after_round", "After the round: which items were right, without the expected answers"

    project = models.OneToOneField("annotation.Project", on_delete=models.CASCADE, related_name="quality")
    gold_rate = models.FloatField(
        default=0.0, validators=[MinValueValidator(0), MaxValueValidator(0.5)], help_text="Share of the items handed out that are gold questions (0 to 0.5); 0: none.")
    gold_feedback = models.BooleanField(
        default=False, help_text="After a gold question, show the worker the expected answer and its explanation.")
    # Right/wrong after each item by default: a worker still learns where they misread the
    # guidelines, while no expected answer leaves the round for another account to copy (a new
    # project's choice; policies made before this setting keep showing the expected answers).
    training_feedback = models.CharField(
        max_length=12, choices=TrainingFeedback.choices, default=TrainingFeedback.RIGHT_WRONG,
        help_text="What a worker is told about their answers in a training round (qualification or re-calibration).")
    set_overlap = models.CharField(max_length=10, choices=SetOverlap.choices, default=SetOverlap.JACCARD,
                                   help_text="How a set-valued answer is compared with the gold set.")
    set_pass = models.FloatField(default=0.5, validators=[MinValueValidator(0), MaxValueValidator(1)], help_text="Overlap (0 to 1) from which a set-valued answer is right.")
    rubric = models.CharField(max_length=12, choices=Rubric.choices, default=Rubric.EXACT,
                              help_text="When a rubric score is right; both are recorded.")
    qualification_items = models.PositiveSmallIntegerField(
        default=0, help_text="Training items in the qualification round before real items (k); 0: no qualification.")
    qualification_pass = models.FloatField(default=0.8, validators=[MinValueValidator(0), MaxValueValidator(1)],
                                           help_text="Share of right answers that passes (0 to 1).")
    qualification_attempts = models.PositiveSmallIntegerField(default=2, validators=[MinValueValidator(1)], help_text="Qualification rounds a worker may take.")
    screened_out_code = models.CharField(
        max_length=64, blank=True, help_text="Completion code for marketplace workers who fail the qualification.")
    screened_out_url = models.CharField(
        "screened-out URL", max_length=500, blank=True,
        help_text="Where marketplace workers who fail the qualification go, a template like the completion URL "
                  "({code} is the screened-out code). Empty: the panel's own, if it has one (Prolific's).")
    prefer_adjudicated = models.BooleanField(
        default=False, help_text="Gold exports take an adjudicated item's decision instead of its aggregate.")
    # What a standing decision does to serving and to the data (docs/quality/review-and-blocking.md).
    review_pauses_work = models.BooleanField(
        "review pauses work", default=True, help_text="A worker sent to review gets no new items until staff decide (the item on their "
                                "screen may be finished).")
    blocked_answers_excluded = models.BooleanField(
        "blocked workers' answers leave the data", default=True, help_text="A worker blocked in the project has their answers left out of exports, agreement, "
                                "MACE and the queues at once (back on unblock); their items are opened for one more "
                                "answer each.")

    # The settings a staff member may change, in the order forms and the API show them.
    SETTINGS = ("gold_rate", "gold_feedback", "training_feedback", "set_overlap", "set_pass", "rubric", "qualification_items",
                "qualification_pass", "qualification_attempts", "screened_out_code", "screened_out_url",
                "prefer_adjudicated",
                # What review and blocking do.
                "review_pauses_work", "blocked_answers_excluded")

    class Meta:
        # The table it was made with, when it belonged to the engine app.
        db_table = "annotation_qualitypolicy"
        verbose_name_plural = "quality policies"
        constraints = [
            models.CheckConstraint(condition=Q(gold_rate__gte=0) & Q(gold_rate__lte=0.5), name="quality_gold_rate_range"),
            models.CheckConstraint(condition=Q(set_pass__gte=0) & Q(set_pass__lte=1), name="quality_set_pass_range"),
            models.CheckConstraint(condition=Q(qualification_pass__gte=0) & Q(qualification_pass__lte=1),
                                   name="quality_qualification_pass_range"),
            models.CheckConstraint(condition=Q(qualification_attempts__gte=1), name="quality_attempts_min"),
        ]

    def __str__(self) -> str:
        return f"quality policy of project {self.project_id}"
