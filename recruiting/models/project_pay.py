"""What a project pays per item on its marketplace, set by staff: the pay per hour it implies is
read from the answers' recorded times (``recruiting.selectors.pay_rate``).

Fields and constraints only.
"""

from django.db import models
from django.db.models import Q


class ProjectPay(models.Model):
    project = models.OneToOneField("annotation.Project", on_delete=models.CASCADE, related_name="pay")
    marketplace = models.CharField(max_length=40, default="prolific", help_text="Whose minimum hourly rate applies.")
    reward_per_item = models.DecimalField(max_digits=8, decimal_places=2, help_text="Paid per item answered.")
    currency = models.CharField(max_length=3, default="GBP", help_text="ISO 4217 code: the study's currency.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        db_table = "annotation_projectpay"
        verbose_name = "project pay"
        verbose_name_plural = "project pay"
        constraints = [
            models.CheckConstraint(condition=Q(reward_per_item__gt=0), name="projectpay_reward_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.reward_per_item} {self.currency} per item"
