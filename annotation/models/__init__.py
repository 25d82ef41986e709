from annotation.models.audit import AuditEntry
from annotation.models.crowd import (
    Annotation,
    AnnotationRevision,
    Assignment,
    Item,
    Project,
)
from annotation.models.imports import ImportJob
from annotation.models.kinds import CHECK_ITEM_REDUNDANCY, ItemKind, Purpose, Standing
from annotation.models.media import MediaFile, MediaUse
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
    "Consent",
    "Invite",
    "ImportJob",
    "Item",
    "MediaFile",
    "MediaUse",
    "Project",
    "RefusedAnswer",
    "WorkerProfile",
]
