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

__all__ = [
    "Annotation",
    "AnnotationRevision",
    "Argument",
    "Assignment",
    "Consent",
    "Invite",
    "ImportJob",
    "Item",
    "Job",
    "JobStatus",
    "Project",
    "Topic",
    "WorkerProfile",
]
