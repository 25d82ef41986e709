"""Recruiting's records: the bonus ledger and its payments, pay per hour, the linked Prolific
study with its submissions, sync jobs and webhook deliveries (their tables keep the names they
had in the engine app)."""

from recruiting.models.bonus import Bonus
from recruiting.models.bonus_payment import BonusPayJob, BonusPayment, PaymentState
from recruiting.models.project_pay import ProjectPay
from recruiting.models.prolific.study import ProlificStudy
from recruiting.models.prolific.submissions import (
    ProlificSubmission,
    ProlificSyncJob,
    ProlificWebhookEvent,
)

__all__ = [
    "Bonus",
    "BonusPayJob",
    "BonusPayment",
    "PaymentState",
    "ProjectPay",
    "ProlificStudy",
    "ProlificSubmission",
    "ProlificSyncJob",
    "ProlificWebhookEvent",
]
