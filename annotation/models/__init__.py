from annotation.models.audit import AuditEntry
from annotation.models.bonus import Bonus
from annotation.models.bonus_payment import BonusPayJob, BonusPayment, PaymentState
from annotation.models.crowd import (
    Annotation,
    AnnotationRevision,
    Assignment,
    Item,
    Project,
)
from annotation.models.imports import ImportJob
from annotation.models.kinds import CHECK_ITEM_REDUNDANCY, ItemKind, Purpose, Standing
from annotation.models.marketplace_study import ProlificStudy
from annotation.models.media import MediaFile, MediaUse
from annotation.models.project_pay import ProjectPay
from annotation.models.prolific_submissions import (
    ProlificSubmission,
    ProlificSyncJob,
    ProlificWebhookEvent,
)
from annotation.models.refusals import RefusedAnswer
from annotation.models.workers import Consent, Invite, WorkerProfile

__all__ = [
    "CHECK_ITEM_REDUNDANCY",
    "AuditEntry",
    "ItemKind",
    "Purpose",
    "Standing",
    "Annotation",
    "AnnotationRevision",
    "Assignment",
    "Bonus",
    "BonusPayJob",
    "BonusPayment",
    "PaymentState",
    "ProjectPay",
    "Consent",
    "Invite",
    "ImportJob",
    "Item",
    "MediaFile",
    "MediaUse",
    "Project",
    "ProlificStudy",
    "ProlificSubmission",
    "ProlificSyncJob",
    "ProlificWebhookEvent",
    "RefusedAnswer",
    "WorkerProfile",
]
