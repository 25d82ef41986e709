"""Setting what a project pays per item on its marketplace (audited)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.contrib.auth.models import User
from django.db import transaction

from annotation.models import Project
from annotation.services.audit import audit_record
from recruiting.models import ProjectPay
from recruiting.providers.minimum_pay import MINIMUM_HOURLY

CENT = Decimal("0.01")


class PaySettingRefused(ValueError):
    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


def project_pay_set(*, project: Project, reward_per_item: Decimal | str, currency: str, actor: User | None,
                    marketplace: str = "prolific") -> ProjectPay:
    """Set the reward per item and its currency (the study's); refuses with the field at fault."""
    try:
        reward = Decimal(str(reward_per_item).strip()).quantize(CENT)
    except (InvalidOperation, ValueError):
        raise PaySettingRefused(f"a reward per item is an amount such as 0.25, got {reward_per_item!r}",
                                field="reward_per_item") from None
    if not reward.is_finite() or reward <= 0 or reward >= Decimal("1000000"):
        raise PaySettingRefused(f"a reward per item must be positive and below 1000000, got {reward}",
                                field="reward_per_item")
    code = str(currency or "").strip().upper()
    if not (code.isascii() and code.isalpha() and len(code) == 3):
        raise PaySettingRefused(f"a currency is a three-letter code such as GBP or USD, got {currency!r}",
                                field="currency")
    if marketplace not in MINIMUM_HOURLY:
        raise PaySettingRefused(f"unknown marketplace {marketplace!r}; known: {', '.join(sorted(MINIMUM_HOURLY))}",
                                field="marketplace")
    with transaction.atomic():
        pay, _ = ProjectPay.objects.update_or_create(
            project=project, defaults={"reward_per_item": reward, "currency": code, "marketplace": marketplace})
        audit_record(actor=actor, action="settings", project=project, target="pay per item",
                     details={"reward_per_item": str(reward), "currency": code, "marketplace": marketplace})
    return pay
