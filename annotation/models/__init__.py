from annotation.models.corpus import Argument, Topic
from annotation.models.crowd import (
    Annotation,
    Assignment,
    Invite,
    Item,
    Project,
    WorkerProfile,
)

__all__ = [
    "Annotation",
    "Argument",
    "Assignment",
    "Invite",
    "Item",
    "Project",
    "Topic",
    "WorkerProfile",
]
