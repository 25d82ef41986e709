"""Paying bonuses through a marketplace's API: one ``BonusPayment`` per bulk payment (the
marketplace's id is stored before anything is paid), and the job that runs it.

Fields and constraints only; the steps are ``recruiting.services.bonus_payments.payments`` and
``recruiting.services.bonus_payments.steps``.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from jobs.models import Job, job_constraints


class PaymentState(models.TextChoices):
    """Where a ledger row (and its bulk payment) stands. A row moves owed → batched (the
    marketplace's bulk payment id committed) → paying (committed before the pay call is sent) →
    paid; ``failed`` means the marketplace refused and nothing was paid; ``unconfirmed`` means the
    pay call may have gone through but the marketplace shows no sign of it: a person decides."""

    OWED = "owed", "Owed"
    BATCHED = "batched", "Batched"
    PAYING = "paying", "Paying"
    PAID = "paid", "Paid"
    FAILED = "failed", "Failed"
    UNCONFIRMED = "unconfirmed", "Unconfirmed"


class BonusPayment(models.Model):
    """One bulk bonus payment on Prolific: the rows it pays point at it (``Bonus.payment``)."""

    State = PaymentState

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="bonus_payments")
    marketplace = models.CharField(max_length=40, default="prolific")
    study_id = models.CharField(max_length=100)
    currency = models.CharField(max_length=3)
    # Empty until the marketplace created the bulk payment; unique once set, so that two rows
    # can never claim one bulk payment.
    bulk_id = models.CharField(max_length=100, blank=True)
    state = models.CharField(max_length=12, choices=PaymentState.choices, default=PaymentState.OWED)
    # What was sent: one "participant,amount" line per participant.
    csv_bonuses = models.TextField(blank=True)
    error = models.TextField(blank=True, help_text="The marketplace's message when it refused.")
    evidence = models.JSONField(default=dict, blank=True, help_text="What the marketplace showed when read back.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)
    pay_sent_at = models.DateTimeField(null=True, blank=True, help_text="When the pay call was about to be sent.")
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "annotation_bonuspayment"
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(state__in=PaymentState.values), name="bonuspayment_state_valid"),
            models.UniqueConstraint(fields=["marketplace", "bulk_id"], condition=~Q(bulk_id=""),
                                    name="bonuspayment_bulk_id_unique"),
            # Nothing is batched, paying or paid without the marketplace's id to show for it.
            models.CheckConstraint(condition=Q(state__in=["owed", "failed"]) | ~Q(bulk_id=""),
                                   name="bonuspayment_bulk_id_when_batched"),
        ]

    def __str__(self) -> str:
        return f"bulk bonus payment {self.bulk_id or '(not created)'} ({self.state})"


class BonusPayJob(Job):
    """Pays one bulk payment (``kind`` pay) or settles a project's unfinished ones (reconcile)."""

    task_name = "annotation.bonus_pay"

    class Kind(models.TextChoices):
        PAY = "pay", "Pay"
        RECONCILE = "reconcile", "Reconcile"

    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="bonus_pay_jobs")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    payment = models.ForeignKey(BonusPayment, null=True, blank=True, on_delete=models.SET_NULL, related_name="jobs")
    result = models.JSONField(null=True, blank=True)

    class Meta:
        db_table = "annotation_bonuspayjob"
        ordering = ["-created_at", "-id"]
        constraints = job_constraints("bonuspayjob")

    def __str__(self) -> str:
        return f"bonus {self.kind} job for {self.project} ({self.status})"
