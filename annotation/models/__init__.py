from annotation.models.bonus import Bonus
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
from annotation.models.jobs import ImportJob, Job, JobStatus
from annotation.models.media import MediaFile

__all__ = [
    "Annotation",
    "AnnotationRevision",
    "Argument",
    "Assignment",
    "Bonus",
    "Consent",
    "Invite",
    "ImportJob",
    "Item",
    "Job",
    "JobStatus",
    "MediaFile",
    "Project",
    "Topic",
    "WorkerProfile",
]
