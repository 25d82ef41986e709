"""Quality control: gold questions and training items, each worker's standing in a project,
training rounds, scored check answers, rules and their decisions, authenticity signals' home
(``Annotation.client["signals"]``), adjudication, items flagged as broken, and the audit log of
staff actions.

Fields and constraints only; every change goes through ``annotation.services.quality`` and its
siblings.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q


class ItemKind(models.TextChoices):
    """What an item is served as. Gold questions are mixed in among real items at the project's
    rate; training items are served only in training rounds (the qualification phase and
    re-calibration); a withdrawn item (flagged as broken) is served to nobody and its answers
    leave the data."""

    REAL = "real", "Real item"
    GOLD = "gold", "Gold question"
    TRAINING = "training", "Training item"
    WITHDRAWN = "withdrawn", "Withdrawn"


class Purpose(models.TextChoices):
    """What an assignment was handed out as, fixed when it is opened: only ``task`` answers are
    annotations of their item (agreement, MACE, exports); ``gold`` and ``training`` answers are
    scored for the worker. An item promoted to gold keeps its earlier answers as data."""

    TASK = "task", "Task"
    GOLD = "gold", "Gold question"
    TRAINING = "training", "Training"


# A gold or training item is answered by any number of workers (never twice by one): its N is
# the largest a small integer column holds on every database.
CHECK_ITEM_REDUNDANCY = 32767


class GoldAnswer(models.Model):
    """The known answer of a gold question or training item, in the task type's answer fields
    (``TaskType.clean_gold``), with other answers it accepts (a pairwise gold pair may accept a
    tie) and an explanation shown as feedback."""

    class Source(models.TextChoices):
        IMPORTED = "imported", "Imported"
        PROMOTED = "promoted", "Promoted from unanimous answers"

    item = models.OneToOneField("annotation.Item", on_delete=models.CASCADE, related_name="gold_answer")
    answer = models.JSONField(help_text="The expected answer, in the task type's answer fields.")
    accept = models.JSONField(default=list, blank=True, help_text="Other answers scored as right.")
    explanation = models.TextField(blank=True, help_text="Shown to the worker with the feedback.")
    source = models.CharField(max_length=10, choices=Source.choices, default=Source.IMPORTED)
    # For a promoted item: the votes and posterior that made it gold.
    evidence = models.JSONField(default=dict, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"gold answer of {self.item_id}"


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


class Standing(models.TextChoices):
    QUALIFYING = "qualifying", "Qualifying"
    ACTIVE = "active", "Active"
    REVIEW = "review", "To review"
    BLOCKED = "blocked", "Blocked"
    SCREENED_OUT = "screened_out", "Screened out"


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
        constraints = [
            models.UniqueConstraint(fields=["project", "worker"], name="standing_project_worker_unique"),
            models.CheckConstraint(condition=Q(state__in=Standing.values), name="standing_state_valid"),
            models.CheckConstraint(condition=Q(gold_right__lte=models.F("gold_answered")), name="standing_gold_counts"),
        ]
        indexes = [models.Index(fields=["project", "state"], name="standing_project_state")]

    def __str__(self) -> str:
        return f"{self.worker_id} in {self.project_id}: {self.state}"


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
        constraints = [
            models.CheckConstraint(condition=Q(score__gte=0) & Q(score__lte=1), name="check_score_range"),
        ]
        indexes = [models.Index(fields=["project", "worker", "purpose"], name="check_project_worker")]

    def __str__(self) -> str:
        return f"check of assignment {self.assignment_id}: {self.score:.2f}"


class QualityRule(models.Model):
    """A rule judged as answers arrive (and after analysis runs): when its sequential test finds a
    worker beyond the bar (``quality.services.rule_verdicts``), the worker is blocked in the
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
        constraints = [
            models.UniqueConstraint(fields=["rule", "worker"], name="rule_state_rule_worker_unique"),
            models.CheckConstraint(condition=Q(hits__lte=models.F("answers")), name="rule_state_counts"),
        ]

    def __str__(self) -> str:
        return f"rule {self.rule_id} on {self.worker_id}: {self.hits}/{self.answers}"


class Adjudication(models.Model):
    """A staff decision on a contested item: the answer it takes, with who, when and why.
    One per item; a later decision replaces it and the audit log keeps the earlier ones."""

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="adjudications")
    item = models.OneToOneField("annotation.Item", on_delete=models.CASCADE, related_name="adjudication")
    answer = models.JSONField(help_text="The decided answer, in the task type's answer fields.")
    why = models.TextField(help_text="The adjudicator's reason.")
    contested = models.JSONField(default=list, blank=True, help_text="Why the item was in the queue.")
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    decided_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"adjudication of {self.item_id}"


class ItemFlag(models.Model):
    """A worker reported an item as broken instead of answering it; the assignment was given back."""

    class Problem(models.TextChoices):
        MEDIA = "media", "The audio does not play"
        TEXT = "text", "The text is garbled or missing"
        OPTIONS = "options", "No option fits"
        OTHER = "other", "Something else"

    assignment = models.OneToOneField("annotation.Assignment", on_delete=models.CASCADE, related_name="flag")
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="item_flags")
    item = models.ForeignKey("annotation.Item", on_delete=models.CASCADE, related_name="flags")
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    problem = models.CharField(max_length=10, choices=Problem.choices)
    reason = models.CharField(max_length=500)
    created_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=20, blank=True, help_text="withdrawn or dismissed.")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "resolved_at"], name="itemflag_project_open")]

    def __str__(self) -> str:
        return f"flag of {self.item_id} by {self.worker_id}"


class AuditEntry(models.Model):
    """A staff action: who did what to what, when."""

    at = models.DateTimeField()
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    # The actor's user name when the entry was written: the log still says who acted after the
    # account is deleted (the foreign key then becomes NULL). Empty: the platform itself.
    actor_name = models.CharField(max_length=150, blank=True, default="")
    project = models.ForeignKey("annotation.Project", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="audit_entries")
    action = models.CharField(max_length=40, help_text="e.g. reject, block, bonus, export, rerun, settings.")
    target = models.CharField(max_length=300, blank=True, help_text="What it was done to.")
    details = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["project", "at"], name="audit_project_at"),
                   models.Index(fields=["at"], name="audit_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.action} {self.target}"
