"""The crowd workflow: projects, items, assignments and annotations (the people who give them:
``annotation.models.workers``).

Fields and constraints only; every state change goes through ``annotation.services``.
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Lower

from annotation.models.kinds import ItemKind, Purpose
from annotation.providers import CUSTOM_PANEL as CUSTOM
from annotation.providers import CUSTOM_SOURCE_RE as SOURCE_NAME_RE
from annotation.providers import NO_PANEL, PARAM_RE, UnknownProvider, provider_choices, provider_get
from annotation.task_types import task_type_choices


def parse_sources(value: str) -> list[str]:
    return [s.strip().lower() for s in (value or "").split(",") if s.strip()]


def validate_marketplace_sources(value: str) -> None:
    # Kept for migration 0004, which names it; projects now take one panel (``Project.panel``).
    bad = [s for s in parse_sources(value) if not SOURCE_NAME_RE.match(s)]
    if bad:
        raise ValidationError(
            "Marketplace names may hold only lowercase letters, digits, - and _ (at most 40): "
            + ", ".join(repr(s) for s in bad)
        )


class Project(models.Model):
    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused"
        CLOSED = "closed", "Closed"

    class Order(models.TextChoices):
        SEQUENTIAL = "sequential", "Sequential: complete items in import order"
        SPREAD = "spread", "Spread: items with the fewest annotations first"
        RANDOM = "random", "Random"

    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=80, unique=True)
    task_type = models.CharField(max_length=50, choices=task_type_choices)
    redundancy = models.PositiveSmallIntegerField(
        default=5, help_text="Distinct annotators per item (N)."
    )
    guidelines = models.TextField(blank=True, help_text="Markdown, shown to annotators.")
    lease_minutes = models.PositiveIntegerField(
        default=30, help_text="An assignment not submitted within this time returns to the pool."
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.DRAFT)
    assignment_order = models.CharField(
        max_length=12, choices=Order.choices, default=Order.SEQUENTIAL
    )
    max_items_per_worker = models.PositiveIntegerField(
        null=True, blank=True, help_text="Items one worker may annotate; empty for no limit."
    )
    keep_import_order = models.BooleanField(
        "keep the import order of options", default=False,
        help_text="Show every worker an item's options (the two arguments of a pair, candidates, key "
                  "points, sets, titles) in the order they were imported, to repeat a protocol that "
                  "fixed it. Off: each assignment gets its own order, drawn for it and recorded.",
    )
    open_to_all = models.BooleanField(
        default=False, help_text="Every annotator sees the project, not only its members."
    )
    join_code = models.CharField(
        max_length=40, unique=True, null=True, blank=True,
        help_text="Annotators who enter this code, in any case, become members.",
    )
    external_entry = models.BooleanField(
        default=False,
        help_text="Crowd workers may arrive from a marketplace link carrying their worker id.",
    )
    panel = models.CharField(
        "recruiting panel", max_length=40, choices=provider_choices, default=NO_PANEL, blank=True,
        help_text="The panel whose study links the project takes; links of any other are refused. "
                  "None: workers come by an account or a join code only.",
    )
    worker_param = models.CharField(
        "worker-id parameter", max_length=60, blank=True, default="worker_id",
        validators=[RegexValidator(PARAM_RE, "A parameter name holds only letters, digits, _, . and -.")],
        help_text="Custom panel only: the query parameter that carries the worker's id.",
    )
    custom_source = models.CharField(
        "custom panel name", max_length=40, blank=True, default="link",
        validators=[RegexValidator(SOURCE_NAME_RE, "A panel name holds only a-z, 0-9, - and _ (at most 40).")],
        help_text="Custom panel only: the name its workers are known by (their accounts are NAME+id).",
    )
    extra_params = models.CharField(
        "other parameters", max_length=300, blank=True,
        help_text="Custom panel only: other query parameters to keep with each answer, separated by commas.",
    )
    completion_code = models.CharField(
        max_length=64, blank=True, help_text="Shown to marketplace workers when they are done."
    )
    completion_url = models.CharField(
        "completion URL", max_length=500, blank=True,
        help_text="Where marketplace workers go when done, a template with {code}, {worker_id}, {PARAMETER}. "
                  "Empty: the panel's own (Prolific's ends in ?cc={code}), or the code to copy.",
    )
    consent_text = models.TextField(
        "welcome and consent text", blank=True,
        help_text="Markdown. Marketplace workers see it with the guidelines before their first "
                  "item and must accept it to start: who runs the study, what is recorded, pay, "
                  "how to withdraw.",
    )
    options = models.JSONField(default=dict, blank=True, help_text="Task-type options.")
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="annotation_projects"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "name"]
        permissions = [("export_annotations", "Can export a project's annotations")]
        constraints = [
            models.CheckConstraint(condition=Q(redundancy__gte=1), name="project_redundancy_min"),
            models.CheckConstraint(condition=Q(lease_minutes__gte=1), name="project_lease_min"),
            models.CheckConstraint(
                condition=Q(max_items_per_worker__isnull=True) | Q(max_items_per_worker__gte=1),
                name="project_quota_min",
            ),
            # Annotators type join codes in any case, so no two may differ in case only.
            models.CheckConstraint(condition=~Q(panel=CUSTOM) | ~Q(worker_param=""),
                                   name="project_custom_panel_worker_param"),
            models.UniqueConstraint(
                Lower("join_code"), name="project_join_code_any_case",
                violation_error_message="Another project has this join code (join codes ignore case).",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_active(self) -> bool:
        return self.state == self.State.ACTIVE

    def clean(self) -> None:
        # The panel settings hold together (a custom name never a preset's, templates with known
        # placeholders): checked by the project's provider, which owns what they mean.
        if self.panel == NO_PANEL:
            if self.external_entry:
                raise ValidationError({"panel": "Choose the panel whose study links the project takes: without "
                                                "one, no worker can arrive by a link."})
            return
        try:
            provider = provider_get(self.panel)
        except UnknownProvider as exc:
            raise ValidationError({"panel": str(exc)}) from None
        provider.settings_check(project=self)


class Item(models.Model):
    """One question shown to annotators; its payload is validated by the project's task type.

    ``n_active`` counts the assignments that hold one of the item's N slots (assigned, submitted,
    approved). The database refuses any write that would push it past ``redundancy``.
    """

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="items")
    external_id = models.CharField(max_length=200)
    payload = models.JSONField()
    gold = models.JSONField(null=True, blank=True, help_text="Known answer, if any.")
    # Real items are the data; gold questions and training items check the workers
    # (``annotation.models.kinds``). Declared there, stored here: the engine filters on it.
    # The database's default too, so that rows written in bulk without the column are real items.
    kind = models.CharField(max_length=10, choices=ItemKind.choices, default=ItemKind.REAL, db_default=ItemKind.REAL)
    # What a withdrawn item was before (so that staff may undo it); empty unless withdrawn.
    kind_before_withdrawal = models.CharField(max_length=10, blank=True, default="", db_default="")
    position = models.PositiveIntegerField(default=0)
    # The item's topic, motion or prompt as its task type names it (``TaskType.group_of``),
    # filled on import: a gold question is drawn from the group of the real item it stands in
    # for. Null when the type has no groups.
    group = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001 (null: the type names no groups)
    # A gold question's serves in place of a real item of another group (the real item's group
    # had no gold question left for the worker): how often gold could not match the topic.
    off_group_serves = models.PositiveIntegerField(default=0)
    redundancy = models.PositiveSmallIntegerField()
    n_active = models.PositiveSmallIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["project_id", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["project", "external_id"], name="item_external_id_unique"),
            models.CheckConstraint(condition=Q(redundancy__gte=1), name="item_redundancy_min"),
            models.CheckConstraint(
                condition=Q(n_active__lte=F("redundancy")), name="item_slots_within_redundancy"
            ),
            models.CheckConstraint(condition=Q(kind__in=ItemKind.values), name="item_kind_valid"),
        ]
        indexes = [
            models.Index(fields=["project", "position"], name="item_project_position"),
            # The assignment engine's "spread" order: items with the fewest slots taken first,
            # read in index order so that handing out an item never sorts the whole project.
            # With the kind: the engine claims real items (and gold questions) apart.
            models.Index(fields=["project", "kind", "n_active", "position", "id"], name="item_project_fill"),
            # The project's progress (slots taken against N per item), counted from this index
            # alone.
            models.Index(fields=["project", "n_active", "redundancy"], name="item_project_slots"),
            # Gold questions and training items of a project, picked apart from the real ones.
            models.Index(fields=["project", "kind", "position"], name="item_project_kind"),
            # A gold question from a group, nearest a position: read in index order.
            models.Index(fields=["project", "kind", "group", "position"], name="item_project_kind_group"),
        ]

    def __str__(self) -> str:
        return self.external_id


class AssignmentStatus(models.TextChoices):
    ASSIGNED = "assigned", "Assigned"
    SUBMITTED = "submitted", "Submitted"
    EXPIRED = "expired", "Expired"
    RETURNED = "returned", "Returned"
    APPROVED = "approved", "Approved"
    REJECTED = "rejected", "Rejected"


class Assignment(models.Model):
    """One worker's lease on one item, and what became of it."""

    Status = AssignmentStatus
    # Statuses that occupy one of the item's N slots.
    SLOT_STATUSES = (Status.ASSIGNED, Status.SUBMITTED, Status.APPROVED)
    # Statuses whose annotation counts as data.
    COUNTED_STATUSES = (Status.SUBMITTED, Status.APPROVED)

    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="assignments")
    # Copied from the item so that "one open assignment per worker and project" is a constraint.
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="assignments")
    worker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments"
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ASSIGNED)
    assigned_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.CharField(max_length=500, blank=True)
    # The order the worker was shown the item's options in, as {part: [canonical option ids]}
    # (``TaskType.shown_order_parts``); drawn from the assignment's item and worker when it is opened. NULL:
    # shown in import order (answers collected before orders were drawn, or elsewhere).
    shown_order = models.JSONField(null=True, blank=True)
    # What the item was handed out as (``Purpose``): only task answers are annotations of the item.
    purpose = models.CharField(max_length=10, choices=Purpose.choices, default=Purpose.TASK, db_default=Purpose.TASK)

    class Meta:
        ordering = ["-assigned_at", "-id"]
        constraints = [
            models.UniqueConstraint(fields=["item", "worker"], name="assignment_item_worker_unique"),
            models.UniqueConstraint(
                fields=["project", "worker"],
                condition=Q(status="assigned"),
                name="assignment_one_open_per_worker",
            ),
            models.CheckConstraint(
                condition=Q(status__in=AssignmentStatus.values), name="assignment_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(expires_at__gt=F("assigned_at")), name="assignment_lease_positive"
            ),
            models.CheckConstraint(condition=Q(purpose__in=Purpose.values), name="assignment_purpose_valid"),
        ]
        indexes = [
            models.Index(fields=["status", "expires_at"], name="assignment_status_expiry"),
            # With submitted_at, the staff overview's per-worker counts and latest answer are
            # read from the index alone.
            models.Index(fields=["project", "worker", "status", "submitted_at"], name="assignment_project_worker_at"),
            # Counted answers in time order: the latest one and the answers per hour.
            models.Index(fields=["project", "submitted_at"], name="assignment_counted_at",
                         condition=Q(status__in=["submitted", "approved"])),
        ]

    def __str__(self) -> str:
        return f"{self.item} / {self.worker} ({self.status})"


class Annotation(models.Model):
    """The answer submitted for an assignment, one per assignment, in its latest version.

    A worker may change the answer while the lease lasts; every earlier version is kept as an
    ``AnnotationRevision`` first, so exports and analysis read the latest and nothing is lost.
    """

    assignment = models.OneToOneField(
        Assignment, on_delete=models.CASCADE, related_name="annotation"
    )
    answer = models.JSONField()
    reason = models.TextField(blank=True)
    seconds = models.FloatField(
        null=True, blank=True, help_text="Time spent on the item as the server saw it: from the lease's start to the "
                                         "answer's arrival (the rules judge this one).")
    client_seconds = models.FloatField(
        null=True, blank=True, help_text="Time spent on the item as the worker's browser counted it (visible time "
                                         "only); evidence, never judged on: a client can claim any time.")
    client = models.JSONField(default=dict, blank=True, help_text="Client metadata.")
    created_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField(
        default=1, help_text="1 for the first answer; each change by the worker adds one."
    )
    revised_at = models.DateTimeField(null=True, blank=True, help_text="When the worker last changed it.")

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(seconds__isnull=True) | Q(seconds__gte=0), name="annotation_seconds_min"
            ),
            models.CheckConstraint(
                condition=Q(client_seconds__isnull=True) | Q(client_seconds__gte=0),
                name="annotation_client_seconds_min",
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="annotation_version_min"),
        ]
        # Median times per worker (staff overview) read the seconds from the index alone.
        indexes = [
            models.Index(fields=["assignment", "seconds"], name="annotation_assignment_seconds"),
            # The few answers their workers changed: what a finished analysis run did not see.
            models.Index(fields=["revised_at"], name="annotation_revised_at", condition=Q(revised_at__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"annotation of {self.assignment_id}"

    @property
    def saved_at(self):
        """When the current version was stored."""
        return self.revised_at or self.created_at


class AnnotationRevision(models.Model):
    """An earlier version of an annotation, kept when the worker replaced it."""

    annotation = models.ForeignKey(Annotation, on_delete=models.CASCADE, related_name="revisions")
    version = models.PositiveIntegerField()
    answer = models.JSONField()
    reason = models.TextField(blank=True)
    seconds = models.FloatField(null=True, blank=True, help_text="The version's time as the server saw it (as the "
                                                                  "annotation's seconds when it was current).")
    client_seconds = models.FloatField(null=True, blank=True, help_text="The version's time as the worker's browser "
                                                                        "counted it; evidence, never judged on.")
    client = models.JSONField(default=dict, blank=True)
    saved_at = models.DateTimeField(help_text="When this version was stored.")
    replaced_at = models.DateTimeField(help_text="When the worker replaced it.")

    class Meta:
        ordering = ["annotation_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["annotation", "version"], name="revision_version_unique"),
        ]

    def __str__(self) -> str:
        return f"version {self.version} of annotation {self.annotation_id}"
