from annotation.models.corpus import Argument, Topic
from annotation.models.crowd import (
    Annotation,
    Assignment,
    Invite,
    Item,
    Project,
    WorkerProfile,
)
from annotation.models.jobs import ImportJob, Job, JobStatus

__all__ = [
    "Annotation",
    "Argument",
    "Assignment",
    "Invite",
    "ImportJob",
    "Item",
    "Job",
    "JobStatus",
    "Project",
    "Topic",
    "WorkerProfile",
]
