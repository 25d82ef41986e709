from annotation.models.corpus import Argument, Topic
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

__all__ = [
    "Annotation",
    "AnnotationRevision",
    "Argument",
    "Assignment",
    "Consent",
    "Invite",
    "Item",
    "Project",
    "Topic",
    "WorkerProfile",
]
