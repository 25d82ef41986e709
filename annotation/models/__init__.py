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
from annotation.models.marketplace_study import ProlificStudy
from annotation.models.media import MediaFile, MediaUse
from annotation.models.project_pay import ProjectPay
from annotation.models.prolific_submissions import (
    ProlificSubmission,
    ProlificSyncJob,
    ProlificWebhookEvent,
)
from annotation.models.quality import (
    CHECK_ITEM_REDUNDANCY,
    Adjudication,
    AuditEntry,
    CheckResult,
    GoldAnswer,
    ItemFlag,
    ItemKind,
    Purpose,
    QualityPolicy,
    QualityRule,
    RuleDecision,
    RuleState,
    Standing,
    TrainingRound,
    WorkerStanding,
)
from annotation.models.refusals import RefusedAnswer
from annotation.models.workers import Consent, Invite, WorkerProfile

__all__ = [
    "CHECK_ITEM_REDUNDANCY",
    "Adjudication",
    "AuditEntry",
    "CheckResult",
    "GoldAnswer",
    "ItemFlag",
    "ItemKind",
    "Purpose",
    "QualityPolicy",
    "QualityRule",
    "RuleDecision",
    "RuleState",
    "Standing",
    "TrainingRound",
    "WorkerStanding",
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
