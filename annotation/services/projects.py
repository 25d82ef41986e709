"""Writes of projects: creating one, with its task type and that type's options checked through
the registry (a project's redundancy changes through ``items.project_set_redundancy``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

from django.contrib.auth.models import User

from annotation.models import Project
from annotation.task_types import get_task_type


class ProjectSettings(TypedDict, total=False):
    """The project's other fields; a field left out takes the model's default."""

    redundancy: int
    state: str
    guidelines: str
    lease_minutes: int
    assignment_order: str
    max_items_per_worker: int | None
    open_to_all: bool
    join_code: str | None
    external_entry: bool
    completion_code: str
    completion_url: str
    marketplace_sources: str
    consent_text: str


def project_create(*, name: str, slug: str, task_type: str, options: Mapping[str, Any] | None = None,
                   created_by: User | None = None, **settings: Unpack[ProjectSettings]) -> Project:
    """A new project of a registered task type, its options cleaned by the type's options form
    (defaults filled in, other keys kept). Raises UnknownTaskType (naming the known types) for a
    type the registry lacks, ValueError naming the options the type refuses, and ValidationError
    for fields the model refuses (a slug or join code already taken, a redundancy below 1 …);
    nothing is written then."""
    task = get_task_type(task_type)
    project = Project(name=name, slug=slug, task_type=task.slug, options=task.clean_options(options),
                      created_by=created_by, **settings)
    project.full_clean()
    project.save()
    return project
