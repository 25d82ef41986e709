from annotation.models.bonus import Bonus
from annotation.models.crowd import (
    Annotation,
    AnnotationRevision,
    Assignment,
    Consent,
    Invite,
    Item,
    Project,
    WorkerProfile,
)
from annotation.models.imports import ImportJob
from annotation.models.media import MediaFile, MediaUse
from annotation.models.refusals import RefusedAnswer

__all__ = [
    "Annotation",
    "AnnotationRevision",
    "Assignment",
    "Bonus",
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
