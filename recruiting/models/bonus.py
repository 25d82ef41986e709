"""Bonuses owed to workers, one ledger row each.

Fields and constraints only; bonuses are granted, removed and marked paid through
``recruiting.services.bonuses``.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from recruiting.models.bonus_payment import PaymentState


class Bonus(models.Model):
    project = models.ForeignKey("annotation.Project", on_delete=models.CASCADE, related_name="bonuses")
    # PROTECT: a worker who is owed or was paid money keeps their account (and marketplace id).
    worker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bonuses")
    # One bonus per annotation at most, so that granting twice cannot pay twice; manual bonuses
    # have none, and a deleted annotation leaves a paid bonus in the ledger.
    annotation = models.OneToOneField(
        "annotation.Annotation", null=True, blank=True, on_delete=models.SET_NULL, related_name="bonus"
    )
    amount = models.DecimalField(max_digits=10, decimal_places=2)
    currency = models.CharField(max_length=3, default="USD", help_text="ISO 4217 code, e.g. USD or GBP.")
    reason = models.CharField(max_length=300)
    created_at = models.DateTimeField(auto_now_add=True)
    paid_at = models.DateTimeField(null=True, blank=True, help_text="When it was paid; empty while owed.")
    paid_note = models.CharField(max_length=300, blank=True, help_text="e.g. the marketplace's payment batch.")
    # Paying through a marketplace's API (recruiting.models.bonus_payment): the state of this row
    # and the bulk payment that carries it.
    payment_state = models.CharField(max_length=12, choices=PaymentState.choices, default=PaymentState.OWED)
    payment = models.ForeignKey("recruiting.BonusPayment", null=True, blank=True, on_delete=models.PROTECT,
                                related_name="bonuses")

    class Meta:
        db_table = "annotation_bonus"
        ordering = ["project_id", "created_at", "id"]
        verbose_name_plural = "bonuses"
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="bonus_amount_positive"),
            models.CheckConstraint(condition=Q(payment_state__in=PaymentState.values), name="bonus_payment_state_valid"),
            # Paid means a date, and a date means paid: a row is paid once.
            models.CheckConstraint(condition=Q(payment_state="paid", paid_at__isnull=False)
                                   | (~Q(payment_state="paid") & Q(paid_at__isnull=True)),
                                   name="bonus_paid_at_iff_paid"),
            # A row on its way through the marketplace always names its bulk payment.
            models.CheckConstraint(condition=~Q(payment_state__in=["batched", "paying", "unconfirmed"])
                                   | Q(payment__isnull=False), name="bonus_payment_when_in_flight"),
        ]
        indexes = [models.Index(fields=["project", "worker"], name="bonus_project_worker")]

    def __str__(self) -> str:
        return f"{self.amount} {self.currency} for {self.worker}"

    @property
    def is_paid(self) -> bool:
        return self.paid_at is not None
