"""Writes of projects: creating one, with its task type and that type's options checked through
the registry (a project's redundancy changes through ``items.project_set_redundancy``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction

from annotation.models import AuditEntry, Project
from annotation.services.audit import audit_record
from annotation.services.items import project_set_redundancy
from annotation.task_types import get_task_type

# Fields whose change is not a setting: bookkeeping the platform keeps itself.
NOT_SETTINGS = {"id", "created_at", "updated_at", "created_by"}


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
    panel: str
    worker_param: str
    custom_source: str
    extra_params: str
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
    with transaction.atomic():
        project.save()
        project_created_record(project=project, actor=created_by)
    return project


def project_created_record(*, project: Project, actor: User | None) -> AuditEntry:
    """Record a new project in the audit log (the admin's add form saves the row itself)."""
    return audit_record(actor=actor, action="project_create", project=project, target=f"project {project.slug}",
                        details={"task_type": project.task_type, "name": project.name})


def _shown(value: Any) -> Any:
    """A field's value as the audit log keeps it (JSON): text for what JSON does not hold."""
    return value if value is None or isinstance(value, str | int | float | bool | dict | list) else str(value)


def project_settings_record(*, actor: User | None, before: Project, after: Project) -> AuditEntry | None:
    """Record in the audit log which settings of a project a staff member changed, each with its
    value before and after (the options record key by key); None when nothing changed."""
    changed: dict[str, dict[str, Any]] = {}
    for field in Project._meta.concrete_fields:
        name = field.attname
        if name in NOT_SETTINGS or name == "options":
            continue
        old, new = getattr(before, name), getattr(after, name)
        if old != new:
            changed[field.name] = {"from": _shown(old), "to": _shown(new)}
    old_options, new_options = before.options or {}, after.options or {}
    for key in sorted(set(old_options) | set(new_options)):
        if old_options.get(key) != new_options.get(key):
            changed[f"options.{key}"] = {"from": _shown(old_options.get(key)), "to": _shown(new_options.get(key))}
    if not changed:
        return None
    return audit_record(actor=actor, action="settings", project=after, target=f"project {after.slug}",
                        details={"changed": changed})


def project_settings_save(*, project: Project, actor: User | None) -> Project:
    """Store a project whose changed settings are set on it (and checked): N through
    ``project_set_redundancy``, which keeps every item's slots right, the rest as given; the
    change goes to the audit log, setting by setting."""
    with transaction.atomic():
        before = Project.objects.select_for_update().get(pk=project.pk)
        wanted = project.redundancy
        project.redundancy = before.redundancy
        project.save()
        if wanted != before.redundancy:
            project_set_redundancy(project=project, redundancy=wanted)
        project_settings_record(actor=actor, before=before, after=project)
    return project


def project_change(*, project: Project, values: Mapping[str, Any], actor: User | None) -> Project:
    """Change the project's ``name``, settings (``ProjectSettings``) and ``options`` (merged into
    the record, cleaned by the type's options form) from plain values. Raises ValidationError
    naming each field at fault (an unknown one too); nothing is written then."""
    allowed = {"name", "options", *ProjectSettings.__annotations__}
    unknown = sorted(set(values) - allowed)
    if unknown:
        raise ValidationError({name: "not a setting that can be changed here" for name in unknown})
    changed = Project.objects.get(pk=project.pk)
    for name, value in values.items():
        if name != "options":
            setattr(changed, name, value)
    if "options" in values:
        if not isinstance(values["options"], Mapping):
            raise ValidationError({"options": "must be an object"})
        try:
            cleaned = get_task_type(changed.task_type).clean_options({**(changed.options or {}), **values["options"]})
        except ValueError as exc:
            raise ValidationError({"options": str(exc)}) from None
        # JSON values only: an options form may clean to Decimals or dates.
        changed.options = json.loads(json.dumps(cleaned, cls=DjangoJSONEncoder))
    changed.full_clean()
    return project_settings_save(project=changed, actor=actor)

